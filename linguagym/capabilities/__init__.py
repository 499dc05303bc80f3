"""Capability tests (S2LCT): seed sentences searched from a labelled dataset by capability rules and transformed
by templates, each with the set of labels a sentiment classifier should predict.

Modules, in the order data flows: ``lexicon`` (SentiWordNet word sentiment), ``datasets`` and ``sst`` (labelled
sentences behind one interface), ``detokenize``, ``analysis`` (spaCy tokens with lemma, tag, word class and
sentiment), ``specs`` (capability specifications as data files), ``search``, ``transform``, ``generate``,
``testfile`` (the capability-test file format), ``show`` and ``cli``. Expansion (part 2): ``trees``, ``depconv`` and
``parsers`` (constituency parsing), ``treebank`` and ``grammar`` (the reference grammar), ``differentiate`` (masks),
``fill`` (fill-in models), ``validate``, ``select`` and ``expand`` (the whole step).
"""
