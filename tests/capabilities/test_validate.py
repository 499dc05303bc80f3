"""The validation checks, and the defects of the original tool that must not pass them."""

from __future__ import annotations

import re

import pytest

from linguagym.capabilities.data.analysis import Analyser
from linguagym.capabilities.data.datasets import Example
from linguagym.capabilities.data.lexicon import read_sentiwordnet
from linguagym.capabilities.expansion.validate import Validator, prefilter, shape_problems
from linguagym.capabilities.seeds.specs import load_specs


@pytest.fixture
def validator(swn_file, spacy_ready) -> Validator:
    return Validator(Analyser(read_sentiwordnet(swn_file)))


def _search(lc: str, case: int = 0):
    return next(s for s in load_specs() if s.id == lc).cases[case].search


def _check(validator, text: str, word: str, tag: str, lc: str = "LC4", label: str = "negative"):
    start = re.search(rf"\b{re.escape(word)}\b", text).start()
    return validator.check(text, [word], [(start, start + len(word))], [tag], _search(lc),
                           Example("1", text, label))


def test_a_neutral_word_with_the_right_tag_in_context_passes(validator):
    checked = _check(validator, "This new movie is bad.", "new", "JJ")
    assert checked.ok, checked.reasons
    assert checked.match is not None and "verb" in checked.match.captures  # the repaired LC4 negates its verb


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


@pytest.mark.parametrize(("text", "word", "tag"), [
    ("A great performances make this a fine film.", "A", "DT"),  # singular determiner, plural noun past adjectives
    ("You wish you could change that tables now.", "that", "DT"),
    ("The ending is both overkill to the highest degree.", "both", "DT"),  # plural determiner, singular noun
    ("It has a uncertain future in a dull present.", "a", "DT"),  # "an" before a vowel sound
    ("A terrifically entertaining specimen once of sci fi.", "once", "RB"),  # an adverb before "of"
])
def test_determiners_agree_with_their_noun_and_its_sound(validator, text, word, tag):
    checked = _check(validator, text, word, tag)
    assert any(r.startswith("agreement:") for r in checked.reasons), checked.reasons


@pytest.mark.parametrize(("text", "word", "tag"), [
    # a word filled after the seed's article must take its sound (the blind sample 40: "A ultimately flawed ...")
    ("A ultimately flawed but engrossing thriller.", "ultimately", "RB"),
    ("It's as raw an cinematic experience as a ringside seat.", "cinematic", "JJ"),
])
def test_a_filled_word_takes_the_sound_of_the_article_before_it(validator, text, word, tag):
    checked = _check(validator, text, word, tag)
    assert any(r.startswith("agreement:") and "should be" in r for r in checked.reasons), checked.reasons


def test_a_filled_word_that_fits_the_article_before_it_passes_the_sound_check(validator):
    for text, word in (("An ultimately flawed but engrossing thriller.", "ultimately"),
                       ("It's a cinematic experience like no other.", "cinematic")):
        checked = _check(validator, text, word, "RB" if word.endswith("ly") else "JJ")
        assert not any("should be" in r for r in checked.reasons), (text, checked.reasons)


def test_clear_and_unclear_article_sounds(validator):
    for text in ("It is a useful film about a unique town.", "It is an honest film about a European town."):
        checked = _check(validator, text, "a" if " a " in text[:9] else "an", "DT")
        assert not any(r.startswith("agreement:") for r in checked.reasons), (text, checked.reasons)


def test_a_content_word_two_places_away_is_a_repeat(validator):
    text = "This ludicrous film is predictable and predictable at every turn."
    start = text.rindex("predictable")
    checked = validator.check(text, ["and", "predictable"], [(text.index(" and ") + 1, text.index(" and ") + 4),
                                                             (start, start + 11)], ["CC", "JJ"], _search("LC4"),
                              Example("1", text, "negative"))
    assert any(r.startswith("repeat:") for r in checked.reasons), checked.reasons
    fine = _check(validator, "This film and the plot are long.", "the", "DT")
    assert not any(r.startswith("repeat:") for r in fine.reasons), fine.reasons
