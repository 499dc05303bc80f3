"""Results across runs: the latest result per model and suite, the leaderboard (``index``) and their pages
(``views``: leaderboard, model pages, overlaid plots)."""
