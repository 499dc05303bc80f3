"""The run folder: one model's files and the run's report beside them. ``schema`` names the files and their
columns, ``rows`` builds the CSV rows from a result in memory, ``writer`` writes a folder whole, ``reader`` reads
folders back (``RunData``, ``find_runs``)."""
