"""Other formats into suites: BLiMP (``blimp``) and its collection of phenomena (``blimp_collection``), minimal
pairs of your own (``pairs``), spreadsheets with a row per sentence (``table``), and BLiMP and SyntaxGym from the
Hugging Face hub (``hub``); ``common`` holds what they share (reading files, checking and writing suites).

Each importer returns ``Suite`` objects checked as a suite file is checked; ``common.write_suites`` writes them,
and ``linguagym import`` is the command line's face of it."""
