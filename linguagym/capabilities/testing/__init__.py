"""Marking capability tests: one classifier's run over a test file (``classifier_run``) and failure rates per
capability (``failures``). ``linguagym.capabilities.run.run_classifiers`` is the entry point that drives them."""
