from __future__ import annotations

import pytest

from linguagym.capabilities.syntax.trees import bracket_scores, brackets, clean, f1, parse_brackets, strip_function_tags

GOLD = """( (S (NP-SBJ-1 (DT The) (NN film)) (VP (VBZ is) (VP (VBN made) (NP (-NONE- *-1))
  (PP-MNR (IN with) (NP (NN care))))) (. .)) )"""


def test_reads_ptb_brackets_and_drops_the_unlabelled_root():
    (tree,) = parse_brackets(GOLD)
    assert tree.label == "S-SBJ" or tree.label == "S"
    assert tree.leaves() == ["The", "film", "is", "made", "*-1", "with", "care", "."]


def test_clean_strips_function_tags_and_drops_none_elements():
    tree = clean(parse_brackets(GOLD)[0])
    assert tree is not None
    assert tree.leaves() == ["The", "film", "is", "made", "with", "care", "."]
    labels = {node.label for node in tree.subtrees()}
    assert "NP-SBJ-1" not in labels and "PP-MNR" not in labels and "-NONE-" not in labels
    assert ("VP", ("VBN", "PP")) in set(tree.productions())  # the emptied NP is gone
    assert strip_function_tags("-LRB-") == "-LRB-" and strip_function_tags("PP-LOC=2") == "PP"


def test_unbalanced_brackets_raise():
    with pytest.raises(ValueError):
        parse_brackets("(S (NP (DT The)")


def test_bracket_f1_ignores_punctuation_and_counts_mismatches():
    gold = clean(parse_brackets(GOLD)[0])
    test = parse_brackets("(S (NP (DT The) (NN film)) (VP (VBZ is) (VBN made) (PP (IN with) (NP (NN care)))) (. .))")[0]
    matched, n_gold, n_test = bracket_scores(brackets(gold), brackets(test))
    assert (n_gold, n_test) == (6, 5)  # gold has the inner VP; the period spans nothing
    assert matched == 5
    precision, recall, score = f1(matched, n_gold, n_test)
    assert precision == 1.0 and recall == pytest.approx(5 / 6) and 0.9 < score < 0.92
