"""Capability tests (S2LCT): seed sentences searched from a labelled dataset by capability rules and transformed
by templates, grown by grammar, each with the set of labels a sentiment classifier should predict; then run
against classifiers, with failure rates per capability.

Wings, in the order data flows: ``data`` (datasets, SST, the SentiWordNet lexicon, sentence analysis), ``seeds``
(capability specs, search rules, templates, seed generation), ``syntax`` (trees, parsers, treebanks, the
reference grammar), ``expansion`` (differentiation, fill-in models, validation, selection, the expander),
``perturb`` (CheckList's INV and DIR pairs), ``testfile`` (the test-file format: model, schema, reader, writer),
``testing`` (one classifier's run, failure rates), ``reports`` (results files, the HTML report, a test file at a
glance) and ``classifiers`` (every kind of sentiment classifier behind one interface). Their floors: see
docs/architecture.md.

On top: ``settings`` (``GenerateSettings``, ``ClassifierRunSettings``: frozen, checked once when made),
``pipeline.generate_tests`` (settings -> a test file) and ``run.run_classifiers`` (a test file x classifiers).
"""
