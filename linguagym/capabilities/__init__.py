"""Capability tests (S2LCT): seed sentences searched from a labelled dataset by capability rules and transformed
by templates, grown by grammar, each with the set of labels a sentiment classifier should predict; then run
against classifiers, with failure rates per capability.

Wings, in the order data flows: ``data`` (datasets, SST, the SentiWordNet lexicon, sentence analysis), ``seeds``
(capability specs, search rules, templates, seed generation), ``syntax`` (trees, parsers, treebanks, the
reference grammar), ``expansion`` (differentiation, fill-in models, validation, selection, the expander),
``testing`` (the typed test-file model and its reader, one classifier's run, ``run_classifiers``, failure rates),
``reports`` (results files, the HTML report, a test file at a glance) and ``classifiers`` (every kind of
sentiment classifier behind one interface).
``pipeline.generate_suite`` ties data, seeds and expansion into one call.
"""
