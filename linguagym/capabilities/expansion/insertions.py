"""Which kinds of insertion the expander makes: a masked sentence's kind is the phrase its masks go into and the
tags they insert (``NP`` + ``JJ``: an adjective into a noun phrase).

``modifiers`` (the default) inserts modifiers only: an adjective into a noun phrase ("the *initial* story"), an
adverb into an adjective or verb phrase ("*largely* forgettable", "are *currently* generating"), and a coordinated
adjective ("cold and *wet*"). ``all`` makes every insertion the reference grammar allows, as the paper does.

Why: on the two blind-judged samples of the default run (``benchmarks/expansion_judged*.jsonl``, 440 expansions; the
held-out one made after the linguistic checks of ``grammaticality.py``), the other kinds were ungrammatical far more
often than not, for reasons no check on tags can see: an inserted determiner before a noun that takes none ("or an
empathy", "for the female advice", "satisfying a massive fare"), an inserted noun that changes what the sentence is
about ("junk like this pizza", "This topic isn't amusing"), an adverb or preposition that breaks a fixed phrase or
needs an argument the sentence does not give ("before long over", "ends well onward", "better than for a hollow
tribute"). On the held-out sample the insertion itself was grammatical in 6 of 25 determiner + adjective insertions,
8 of 21 nouns, 5 of 12 adverb phrases, 8 of 16 determiners and 1 of 4 prepositions or complementisers, against 64 of
93 adjectives, 16 of 20 adverbs before adjectives, 11 of 14 coordinated adjectives and 7 of 7 adverbs in a verb
phrase (docs/capabilities.md). The kinds are chosen before the masked sentences per seed are, so a seed's best
masked sentences of the allowed kinds are filled in place of the others.
"""

from __future__ import annotations

from linguagym.capabilities.expansion.check import Check, Problem
from linguagym.capabilities.expansion.defaults import DEFAULT_INSERTIONS, INSERTION_SETS
from linguagym.capabilities.expansion.differentiate import MASKABLE_TAGS, MaskedSentence

# (phrase, tags inserted, in order)
MODIFIERS = frozenset({
    ("NP", ("JJ",)),
    ("ADJP", ("RB",)),
    ("VP", ("RB",)),
    ("ADJP", ("CC", "JJ")),
    ("ADJP", ("JJ", "CC")),
})


def insertion_kind(masked: MaskedSentence) -> tuple[str, tuple[str, ...]]:
    return masked.lhs, tuple(mask.tag for mask in masked.masks)


def allowed(masked: MaskedSentence, insertions: str = DEFAULT_INSERTIONS) -> bool:
    """Whether the insertion set ``insertions`` makes this masked sentence's kind of insertion."""
    if insertions == "all":
        return True
    if insertions == "modifiers":
        return insertion_kind(masked) in MODIFIERS
    raise ValueError(f"unknown insertion set {insertions!r}: one of {', '.join(INSERTION_SETS)}")


def insertion_tags(insertions: str = DEFAULT_INSERTIONS) -> frozenset[str]:
    """The tags the set's masks may have: ``differentiate`` makes no masked sentence of others (in the default run
    it spent 70 s making 160,000 masked sentences that the modifier set then refused)."""
    if insertions == "all":
        return MASKABLE_TAGS
    return frozenset(tag for _, tags in MODIFIERS for tag in tags)


def _insertion_problems(parsed: object, masked: MaskedSentence, insertions: str) -> list[Problem]:
    if allowed(masked, insertions):
        return []
    lhs, tags = insertion_kind(masked)
    return [INSERTION.problem(f"the {insertions!r} set makes no {lhs} -> {' '.join(tags)} insertion")]


INSERTION = Check("insertion", "masked", "a masked sentence of a kind of insertion the settings do not make",
                  _insertion_problems)
