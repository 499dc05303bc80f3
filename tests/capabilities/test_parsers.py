from __future__ import annotations

import importlib.util

import pytest

from linguagym.capabilities.errors import CapabilityError
from linguagym.capabilities.syntax.parsers import load_parser
from linguagym.capabilities.syntax.trees import bracket_scores, brackets, f1
from tests.conftest import SHARED_DATA

TREEBANK = SHARED_DATA / "nltk_data" / "corpora" / "treebank.zip"


@pytest.fixture(scope="module")
def spacy_parser(spacy_ready):
    return load_parser("spacy")


def test_phrase_structure_in_ptb_style(spacy_parser):
    parsed = spacy_parser.parse(["This movie is bad.", "The film, which I saw, has a good plot."])
    assert str(parsed[0].tree) == "(S (NP (DT This) (NN movie)) (VP (VBZ is) (ADJP (JJ bad))) (. .))"
    second = parsed[1]
    assert second.tree.leaves() == ["The", "film", ",", "which", "I", "saw", ",", "has", "a", "good", "plot", "."]
    assert [second.text[a:b] for a, b in second.spans] == second.tree.leaves()
    labels = {n.label for n in second.tree.subtrees()}
    assert {"S", "NP", "VP", "SBAR", "WHNP"} <= labels
    assert ("NP", ("DT", "JJ", "NN")) in set(second.tree.productions())


def test_unknown_parser_is_a_user_error():
    with pytest.raises(CapabilityError, match="unknown parser"):
        load_parser("stanford")


@pytest.mark.skipif(importlib.util.find_spec("benepar") is not None, reason="benepar is installed")
def test_benepar_missing_says_how_to_install():
    with pytest.raises(CapabilityError, match="pip install benepar"):
        load_parser("benepar")


@pytest.mark.skipif(importlib.util.find_spec("benepar") is None, reason="benepar is not installed")
def test_benepar_parses_when_present():
    try:
        parser = load_parser("benepar")
    except CapabilityError as error:
        pytest.skip(f"benepar's model is missing: {error}")
    tree = parser.parse(["This movie is bad."])[0].tree
    assert tree.leaves() == ["This", "movie", "is", "bad", "."]


@pytest.mark.skipif(not TREEBANK.is_file(), reason="the shared treebank is not beside the checkout")
def test_bracket_f1_against_the_gold_treebank(spacy_parser):
    from linguagym.capabilities.syntax.parsers import unescape_words
    from linguagym.capabilities.syntax.treebank import read_treebank

    gold = read_treebank(TREEBANK)[:150]
    trees = spacy_parser.parse_words([unescape_words(t.leaves()) for t in gold])
    totals = [0, 0, 0]
    for g, t in zip(gold, trees, strict=True):
        for i, n in enumerate(bracket_scores(brackets(g), brackets(t))):
            totals[i] += n
    assert f1(*totals)[2] > 0.75  # 0.81 on all 3,914 trees (benchmarks/parsers.py)
