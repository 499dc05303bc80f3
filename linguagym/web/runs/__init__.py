"""Runs: the pages (``views``), the run form's values (``form``), the one path that queues a run (``queue``), the
job that runs it (``jobs``), deletion (``deletion``), item lists and item pages (``item_pages``), and automatic runs
of the lab's default models on every new suite version (``auto_run``, ``lab_settings``)."""
