"""The ``attested`` rule (``expansion/attested.py``): an inserted adjective or adverb must be one the dataset uses
with the same head; the heads' attested modifiers are what the filler is offered; the word cap."""

from __future__ import annotations

from linguagym.capabilities.expansion.attested import ModifierPairs, head, mask_heads
from linguagym.capabilities.expansion.domain import DomainVocabulary
from linguagym.capabilities.expansion.fit import MAX_USES, WordCap
from linguagym.capabilities.expansion.settings import DEFAULT_EXPANSION_SETTINGS
from tests.capabilities.test_domain_checks import corpus
from tests.capabilities.test_insertion_rules import tagged

REVIEWS = corpus(
    "a/DT smart/JJ ,/, funny/JJ film/NN ./.", "the/DT recent/JJ films/NNS ./.", "a/DT smart/JJ script/NN ./.",
    "beautifully/RB shot/VBN ./.", "it/PRP plays/VBZ well/RB ./.", "an/DT oddly/RB funny/JJ story/NN ./.",
    "a/DT smart/JJ film/NN noir/NN ./.", "the/DT smart/JJ film/NN ./.",
)


def vocabulary(min_sentences: int = 1) -> DomainVocabulary:
    return DomainVocabulary.from_analyses(REVIEWS, min_count=0, min_sentences=min_sentences, attested=True)


def attested(text: str, min_sentences: int = 1) -> list[str]:
    return [p for p in vocabulary(min_sentences).problems(*tagged(text)) if p.startswith("attested:")]


def test_the_pairs_are_modifier_and_head_lemmas_past_prenominal_words():
    pairs = vocabulary().modifiers
    assert pairs is not None
    assert pairs.attested("smart", "film") == 2 and pairs.attested("funny", "film") == 1  # past "smart ,"
    assert pairs.attested("recent", "films") == 1  # the test corpus's lemma is the lower-cased word
    assert pairs.attested("smart", "noir") == 1  # "smart film noir": a compound's last noun
    assert pairs.attested("beautifully", "shot") == 1 and pairs.attested("well", "plays") == 1  # after its verb
    assert pairs.attested("oddly", "funny") == 1 and pairs.attested("oddly", "story") == 0


def test_an_unattested_adjective_is_refused_and_an_attested_one_kept():
    refused = attested("a/DT *female/JJ film/NN ./.")
    assert len(refused) == 1 and "'female' modifying 'film'" in refused[0]
    assert attested("a/DT *smart/JJ film/NN ./.") == []
    assert attested("a/DT *Smart/JJ ,/, clever/JJ script/NN ./.") == []  # by lemma, past another adjective
    assert attested("a/DT *smart/JJ story/NN ./.")  # "smart" is attested, but not with "story"


def test_adverbs_are_kept_only_when_attested_with_their_head():
    assert attested("it/PRP is/VBZ *oddly/RB funny/JJ ./.") == []
    assert attested("it/PRP is/VBZ *beautifully/RB funny/JJ ./.")  # attested with "shot", not "funny"
    assert attested("it/PRP plays/VBZ *well/RB ./.") == []  # after its verb
    no_head = attested("the/DT *also/RB film/NN ./.")
    assert len(no_head) == 1 and "modifies no word" in no_head[0]


def test_a_small_dataset_attests_nothing_and_refuses_nothing():
    assert attested("a/DT *female/JJ film/NN ./.", min_sentences=100) == []
    assert DomainVocabulary.from_analyses(REVIEWS, min_count=0, min_sentences=1).modifiers is None  # off by default


def test_the_filler_is_offered_the_heads_modifiers_most_used_first():
    pairs = ModifierPairs.from_analyses(REVIEWS)
    assert pairs.forms("film", "JJ") == ("smart", "funny")  # "smart film" twice, "funny film" once
    assert pairs.forms("funny", "RB") == ("oddly",) and pairs.forms("funny", "JJ") == ()


def test_a_masks_head_is_found_among_the_seeds_tokens():
    tokens, _ = tagged("a/DT funny/JJ film/NN ,/, oddly/RB shot/VBN ./.")
    # a JJ mask before "funny" modifies "film" (index 2); an RB mask before "shot" modifies it (5)
    assert mask_heads(tokens, [(tokens[1].start, "JJ")]) == [2]
    assert mask_heads(tokens, [(tokens[5].start, "RB")]) == [5]
    assert mask_heads(tokens, [(tokens[3].start, "JJ")]) == [None]  # before the comma: no noun follows
    assert mask_heads(tokens, [(tokens[1].start, "CC"), (tokens[1].start, "JJ")]) == [None, 2]  # CC: no head
    assert head(tokens, 0) is None  # a determiner modifies nothing here


def test_the_word_cap_allows_three_uses_of_a_word_in_a_capability_by_default():
    assert MAX_USES == 3 and DEFAULT_EXPANSION_SETTINGS.max_word_uses == 3 and DEFAULT_EXPANSION_SETTINGS.attested
    cap = WordCap(DEFAULT_EXPANSION_SETTINGS.max_word_uses)
    cap.take(["recent"])
    cap.take(["Recent", "film"])
    assert cap.over(["recent"]) is None
    cap.take(["RECENT"])
    assert cap.over(["film", "recent"]) == "recent"  # the fourth use is over the cap, counted lower-cased
