"""Labelled data for capability tests: datasets and their readers (SST, sentence polarity, CSV), the SentiWordNet
lexicon, and each sentence analysed into tokens with tags and word sentiment."""
