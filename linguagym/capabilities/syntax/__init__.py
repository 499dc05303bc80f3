"""Constituency syntax for expansion: a tree type and the bracket format, parsers, dependency-to-phrase conversion,
gold treebanks, and the reference grammar."""
