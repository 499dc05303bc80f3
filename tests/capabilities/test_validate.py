"""The validation checks, and the defects of the original tool that must not pass them."""

from __future__ import annotations

import pytest

from linguagym.capabilities.analysis import Analyser
from linguagym.capabilities.datasets import Example
from linguagym.capabilities.lexicon import read_sentiwordnet
from linguagym.capabilities.specs import load_specs
from linguagym.capabilities.validate import Validator, prefilter, shape_problems


@pytest.fixture
def validator(swn_file, spacy_ready) -> Validator:
    return Validator(Analyser(read_sentiwordnet(swn_file)))


def _search(lc: str, case: int = 0):
    return next(s for s in load_specs() if s.id == lc).cases[case].search


def _check(validator, text: str, word: str, tag: str, lc: str = "LC4", label: str = "negative"):
    start = text.index(word) if not text.startswith(word + " ") else 0
    return validator.check(text, [word], [(start, start + len(word))], [tag], _search(lc),
                           Example("1", text, label))


def test_a_neutral_word_with_the_right_tag_in_context_passes(validator):
    checked = _check(validator, "This new movie is bad.", "new", "JJ")
    assert checked.ok, checked.reasons
    assert checked.match is not None and "copula" in checked.match.captures


def test_original_defect_stray_letter_is_rejected(validator):
    checked = _check(validator, "n They should have found a better plot.", "n", "NN")
    assert not checked.ok and checked.reasons[0].startswith("word:")


def test_original_defect_lower_case_word_before_a_capital_is_rejected(validator):
    checked = _check(validator, "or That is not essentially a bad movie.", "or", "CC")
    assert any(r.startswith("case:") for r in checked.reasons)
    assert shape_problems(["Or"], [(0, 2)], "Or that is a bad movie.") == []


def test_original_defect_doubled_nouns_are_rejected(validator):
    checked = _check(validator, "This combination combo is bad.", "combo", "NN")
    assert any(r.startswith("repeat:") for r in checked.reasons)
    checked = _check(validator, "This movie movie is bad.", "movie", "NN")
    assert any(r.startswith("repeat:") for r in checked.reasons)


def test_the_tag_is_taken_in_the_new_sentence(validator):
    checked = _check(validator, "This red movie is bad.", "red", "NN")  # red is an adjective here
    assert any(r.startswith("tag:") and "tagged JJ" in r for r in checked.reasons)


def test_sentiment_words_and_negations_are_rejected(validator):
    assert any(r.startswith("neutral:") for r in _check(validator, "This good movie is bad.", "good", "JJ").reasons)
    assert any(r.startswith("neutral:") for r in _check(validator, "This movie is never bad.", "never", "RB").reasons)


def test_articles_agree(validator):
    assert any(r.startswith("agreement:") for r in _check(validator, "This is a films mess.", "a", "DT").reasons)
    assert any(r.startswith("agreement:") for r in _check(validator, "This is an movie.", "an", "DT").reasons)
    assert any(r.startswith("agreement:") for r in _check(validator, "This is a debut from the Josh Koury.", "the",
                                                          "DT").reasons)
    assert any(r.startswith("agreement:") for r in _check(validator, "This is a knock off from of a movie.", "from",
                                                          "IN").reasons)


def test_the_capability_rule_is_checked_on_the_new_sentence(validator):
    # LC1 needs fewer than 10 words: nine words plus a fill is too long
    text = "A red car and a long film with a new plot."
    checked = validator.check(text, ["new"], [(text.index("new"), text.index("new") + 3)], ["JJ"], _search("LC1"),
                              Example("1", text, "neutral"))
    assert "rule: the new sentence no longer meets its capability's search rule" in checked.reasons
    # LC4's start pattern breaks when a verb comes between the demonstrative and the copula
    checked = _check(validator, "This movie found is bad.", "found", "VBD")
    assert any(r.startswith("rule:") or r.startswith("tag:") or r.startswith("neutral:") for r in checked.reasons)


def test_prefilter_keeps_only_words_that_can_be_neutral(swn_file):
    accept = prefilter(read_sentiwordnet(swn_file))
    assert accept("new", "JJ") and accept("films", "NNS") and accept("the", "DT")
    assert not accept("good", "JJ") and not accept("never", "RB") and not accept("unknownword", "NN")
