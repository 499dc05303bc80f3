"""Running capability tests: the typed test-file model and its reader and writer, one classifier's run,
``run_classifiers`` (the entry point), failure rates per capability, the results files and the HTML report."""
