from __future__ import annotations

import json

import pytest

from linguagym.capabilities.errors import CapabilityError
from linguagym.capabilities.syntax.grammar import load_reference_grammar
from tests.conftest import SHARED_DATA

TREES = """( (S (NP-SBJ (DT The) (NN film)) (VP (VBZ is) (ADJP-PRD (JJ long))) (. .)) )
( (S (NP-SBJ (DT The) (JJ new) (NN film)) (VP (VBZ is) (NP (-NONE- *))) (. .)) )
( (S (NP-SBJ (DT A) (NN plot)) (VP (VBD was) (ADJP-PRD (RB quite) (JJ long))) (. .)) )
"""


def test_gold_grammar_probabilities_tags_stripped_none_dropped_and_cached(tmp_path):
    path = tmp_path / "tiny.mrg"
    path.write_text(TREES)
    grammar = load_reference_grammar(str(path), cache_dir=tmp_path / "cache")
    assert grammar.probability("NP", ("DT", "NN")) == pytest.approx(2 / 3)
    assert grammar.probability("NP", ("DT", "JJ", "NN")) == pytest.approx(1 / 3)
    assert grammar.probability("ADJP", ("RB", "JJ")) == pytest.approx(0.5)
    assert "NP-SBJ" not in grammar.counts and "-NONE-" not in json.dumps(grammar.to_json())
    assert grammar.probability("VP", ("VBZ",)) == pytest.approx(1 / 3)  # the emptied NP is gone
    cached = list((tmp_path / "cache" / "capabilities").glob("grammar-*.json"))
    assert len(cached) == 1
    cached[0].write_text(json.dumps({**grammar.to_json(), "productions": [["X", ["Y"], 1]]}))
    assert load_reference_grammar(str(path), cache_dir=tmp_path / "cache").counts.keys() == {"X"}  # read back


def test_a_grammar_cache_that_cannot_be_written_warns_and_the_grammar_is_used(tmp_path, caplog):
    path = tmp_path / "tiny.mrg"
    path.write_text(TREES)
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "capabilities").write_text("a file where the folder should be")
    with caplog.at_level("WARNING"):
        grammar = load_reference_grammar(str(path), cache_dir=tmp_path / "cache")
    assert grammar.probability("NP", ("DT", "NN")) == pytest.approx(2 / 3)
    assert "not kept for later runs" in caplog.text


def test_induced_grammar_shares_the_parser_style(tmp_path, spacy_ready):
    corpus = tmp_path / "sentences.txt"
    corpus.write_text("The film is long.\nA new plot was quite long.\n")
    grammar = load_reference_grammar(f"induced:{corpus}", cache_dir=tmp_path)
    assert grammar.source["induced"] and grammar.source["parser"]["parser"] == "spacy"
    assert grammar.probability("S", ("NP", "VP", ".")) == 1.0
    assert grammar.probability("NP", ("DT", "JJ", "NN")) == 0.5


def test_missing_reference_is_a_user_error(tmp_path, monkeypatch):
    with pytest.raises(CapabilityError, match="does not exist"):
        load_reference_grammar(str(tmp_path / "nope.mrg"), cache_dir=tmp_path)
    monkeypatch.setenv("NLTK_DATA", str(tmp_path))
    monkeypatch.setenv("HOME", str(tmp_path))
    from linguagym.capabilities.syntax import treebank

    monkeypatch.setattr(treebank, "default_treebank", lambda: None)
    with pytest.raises(CapabilityError, match="NLTK_DATA") as error:
        load_reference_grammar("treebank", cache_dir=tmp_path)
    assert "skip expansion (`expand` off)" in error.value.hint and "expand" in error.value.settings


@pytest.mark.skipif(not (SHARED_DATA / "nltk_data" / "corpora" / "treebank.zip").is_file(), reason="no treebank")
def test_penn_treebank_grammar(tmp_path, monkeypatch):
    monkeypatch.setenv("NLTK_DATA", str(SHARED_DATA / "nltk_data"))
    grammar = load_reference_grammar("treebank", cache_dir=tmp_path)
    assert grammar.size > 3000
    assert grammar.probability("NP", ("DT", "JJ", "NN")) > 0.02
    assert not any("-" in lhs[1:] for lhs in grammar.counts if lhs not in ("-LRB-", "-RRB-"))


def test_expansions_of_some_lengths_keep_the_order_and_are_kept():
    from collections import Counter

    from linguagym.capabilities.syntax.grammar import Grammar

    grammar = Grammar({"NP": Counter({("DT", "NN"): 5, ("DT", "JJ", "NN"): 3, ("NN",): 3, ("DT", "JJ", "JJ", "NN"): 3,
                                      ("PRP",): 1, ("DT", "NN", "PP", "SBAR"): 2})})
    sized = grammar.expansions_sized("NP", 2, 3)
    assert sized == [(rhs, p) for rhs, p in grammar.expansions("NP") if 2 <= len(rhs) <= 3]
    assert [rhs for rhs, _ in sized] == [("DT", "NN"), ("DT", "JJ", "NN")]
    assert grammar.expansions_sized("NP", 2, 3) is sized  # sorted once per label and lengths
    assert grammar.expansions_sized("VP", 1, 2) == []
