"""The reader rules (``expansion/reader_rules.py``): ``proper``, ``quantifier`` and ``own``, refused among the
inserted words as the blind reader of ``benchmarks/expansion_blind_39*`` refused them."""

from __future__ import annotations

from linguagym.capabilities.expansion.domain import DomainVocabulary
from linguagym.capabilities.expansion.reader_rules import QUANTIFIERS, Capitals
from tests.capabilities.test_domain_checks import corpus
from tests.capabilities.test_insertion_rules import tagged

REVIEWS = corpus(
    "a/DT French/JJ film/NN ./.", "the/DT French/JJ cast/NN ./.", "a/DT french/JJ kiss/NN ./.",
    "French/JJ films/NNS ./.", "French/JJ films/NNS ./.", "French/JJ films/NNS ./.",  # capitalized first: not counted
    "a/DT Smart/JJ film/NN ./.", "a/DT smart/JJ film/NN ./.", "a/DT smart/JJ plot/NN ./.",
    'he/PRP said/VBD "/`` Funny/JJ film/NN ./.', "a/DT funny/JJ film/NN ./.", "a/DT funny/JJ film/NN ./.",
    "an/DT odd/JJ ,/, Odd/JJ film/NN ./.", "a/DT film/NN of/IN her/PRP$ own/JJ ./.",
    "a/DT Gallic/JJ film/NN ./.", "in/IN Legally/RB Blonde/JJ ./.", "in/IN Legally/RB Blonde/JJ ./.",
)


def vocabulary(min_sentences: int = 1, attested: bool = True) -> DomainVocabulary:
    return DomainVocabulary.from_analyses(REVIEWS, min_count=0, min_sentences=min_sentences, attested=attested)


def refused(text: str, check: str, min_sentences: int = 1, attested: bool = True) -> list[str]:
    return [p for p in vocabulary(min_sentences, attested).problems(*tagged(text)) if p.check == check]


def test_capitals_count_only_mid_sentence_occurrences():
    capitals = Capitals.from_analyses(REVIEWS)
    assert capitals.seen["french"] == 3 and capitals.capitalized["french"] == 2  # not the 3 sentence-initial ones
    assert capitals.is_proper("french") and capitals.is_proper("FRENCH")
    assert capitals.seen["smart"] == 3 and not capitals.is_proper("smart")  # 1 of 3: not most
    assert capitals.seen["funny"] == 2 and capitals.capitalized["funny"] == 0  # after an opening quote: not counted
    assert capitals.seen["odd"] == 2 and capitals.capitalized["odd"] == 1 and not capitals.is_proper("odd")  # half
    assert capitals.seen["gallic"] == capitals.capitalized["gallic"] == 1 and not capitals.is_proper("gallic")  # few
    assert capitals.seen["blonde"] == 0  # after a capitalized word: a title's run, not counted


def test_a_lower_cased_proper_word_is_refused_and_a_capitalized_one_kept():
    found = refused("a/DT *french/JJ plot/NN ./.", "proper")
    assert len(found) == 1 and "capitalizes it in 2 of its 3 mid-sentence occurrences" in found[0]
    assert refused("a/DT *French/JJ plot/NN ./.", "proper") == []
    assert refused("a/DT *smart/JJ plot/NN ./.", "proper") == []


def test_every_quantifier_is_refused_and_other_words_kept():
    for word in sorted(QUANTIFIERS):
        assert len(refused(f"the/DT *{word}/JJ fun/NN ./.", "quantifier")) == 1, word
    assert refused("the/DT *Many/JJ fun/NN ./.", "quantifier")  # by the lower-cased form
    assert refused("the/DT *smart/JJ fun/NN ./.", "quantifier") == []
    assert refused("the/DT smart/JJ *fun/NN ./.", "quantifier") == []


def test_own_only_right_after_a_possessive_determiner():
    for owner in ("my", "your", "his", "her", "its", "our", "their", "Their"):
        assert refused(f"{owner}/PRP$ *own/JJ kids/NNS ./.", "own") == [], owner
    found = refused("the/DT *own/JJ story/NN ./.", "own")
    assert len(found) == 1 and "after 'the'" in found[0]
    assert refused("Noyce/NNP 's/POS *own/JJ film/NN ./.", "own")
    assert refused("his/PRP$ sense/NN of/IN *own/JJ story/NN ./.", "own")
    assert refused("*own/JJ story/NN ./.", "own")
    assert refused("the/DT own/JJ story/NN ./.", "own") == []  # not inserted: the seed's own words are not judged


def test_the_rules_are_off_without_the_attested_rule_or_on_a_small_dataset():
    for text, check in (("a/DT *french/JJ plot/NN ./.", "proper"), ("the/DT *much/JJ fun/NN ./.", "quantifier"),
                        ("the/DT *own/JJ story/NN ./.", "own")):
        assert refused(text, check)
        assert refused(text, check, attested=False) == []
        assert refused(text, check, min_sentences=100) == []
    assert vocabulary(attested=False).capitals is None
