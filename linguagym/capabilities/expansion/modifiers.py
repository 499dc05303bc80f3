"""Rules for inserted adverbs and adjectives, on the tags of the filled sentence (Penn tags, tagged in context).

Judged expansions of the default run showed modifiers put where none fits: one adverb stacked on another
("massively mostly", "unusually wildly fascinating"), a locative, temporal or ordinal adverb before an adjective
("It's past rare", "are first worthwhile", "get somewhere weird", "fast beautiful"), and a modifier pushed into a
stack of prenominal adjectives ("scientifically stereotypical little B movie"). English grades an adjective with
degree and manner adverbs, and those are nearly all derived in -ly ("uniquely", "potentially"); the few others
("very", "so", "quite", "too") are hedges or intensifiers the validator refuses anyway.
"""

from __future__ import annotations

from collections.abc import Sequence

from linguagym.capabilities.expansion.check import Check, Problem

_ADVERB = ("RB", "RBR", "RBS")
_ADJECTIVE = ("JJ", "JJR", "JJS")


def is_derived_adverb(word: str) -> bool:
    """An adverb made from an adjective with -ly ("uniquely"; not "fly", "only" is refused elsewhere)."""
    word = word.lower()
    return len(word) >= 5 and word.endswith("ly")


def modifier_problems(tokens: Sequence, inserted: Sequence[int]) -> list[Problem]:
    """Why the inserted words at ``inserted`` (indices into ``tokens``, the filled sentence's tokens) are modifiers
    that do not fit where they stand; empty when none."""
    problems = []
    taken = set(inserted)
    for i in inserted:
        token = tokens[i]
        following = tokens[i + 1] if i + 1 < len(tokens) else None
        if following is None:
            continue
        if token.tag in _ADVERB and following.tag in _ADVERB and i + 1 not in taken:
            problems.append(MODIFIER.problem(f"the adverb {token.text!r} is stacked on the adverb {following.text!r}"))
        elif token.tag in _ADVERB and following.tag in _ADJECTIVE and not is_derived_adverb(token.text):
            problems.append(MODIFIER.problem(f"{token.text!r} is not a degree or manner adverb (those end in -ly), "
                                             f"yet it stands before the adjective {following.text!r}"))
        elif token.tag in _ADJECTIVE + _ADVERB and following.tag in _ADJECTIVE and _stacked(tokens, i + 1):
            problems.append(MODIFIER.problem(f"{token.text!r} goes into a stack of adjectives before "
                                             f"{tokens[i + 2].text!r}"))
        elif token.tag in _ADJECTIVE and following.tag in _ADJECTIVE and i + 1 not in taken:
            problems.append(MODIFIER.problem(f"the adjective {token.text!r} is stacked on the adjective "
                                             f"{following.text!r}"))
    return problems


def _stacked(tokens: Sequence, j: int) -> bool:
    """Whether the adjective at ``j`` is itself followed directly by another adjective (no comma or "and")."""
    return j + 1 < len(tokens) and tokens[j + 1].tag in _ADJECTIVE


MODIFIER = Check("modifier", "insertion", "an inserted adverb or adjective stacked on another, or a non -ly adverb "
                 "before an adjective", lambda tokens, inserted, seed_tokens=None: modifier_problems(tokens, inserted))
