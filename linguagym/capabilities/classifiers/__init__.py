"""Sentiment classifiers behind one interface (``base.Classifier``): texts in, a label and probabilities over
negative/neutral/positive out. ``registry.load_classifier`` turns a name, hub id, path or URL into one."""
