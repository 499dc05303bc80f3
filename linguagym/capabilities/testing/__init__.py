"""Running capability tests: the typed test-file model and its reader and writer, one classifier's run,
``run_classifiers`` (the entry point) and failure rates per capability."""
