"""Rules for inserted nouns: no noun-noun compounds.

An inserted noun next to another noun makes a compound ("a real snooze sleep", "the entire course cast", "a
refreshing cocktail change"); the filler, which proposes from the left context alone, picks nouns that follow the
modifier well but make nonsense with the head after them, and no check on tags can tell "hotel thriller" from
"pleasure mission". In the judged sample 15 of 22 such compounds were nonsense, so none is made; nor is a noun
put before a noun phrase's modifiers and head ("takes this sound never ending confusion"). A noun that becomes
the head of a determiner's phrase ("This book is ...") is not a compound and passes.
"""

from __future__ import annotations

from collections.abc import Sequence

from linguagym.capabilities.expansion.check import Check, Problem

_NOUN = ("NN", "NNS", "NNP", "NNPS")
_PRENOMINAL = ("JJ", "JJR", "JJS", "VBG", "VBN", "RB", "HYPH")


def nominal_problems(tokens: Sequence, inserted: Sequence[int]) -> list[Problem]:
    """Why the inserted nouns at ``inserted`` (indices into the filled sentence's ``tokens``) make compounds."""
    problems = []
    for i in inserted:
        if tokens[i].tag not in _NOUN:
            continue
        for j in (i - 1, i + 1):
            if 0 <= j < len(tokens) and j not in inserted and tokens[j].tag in _NOUN:
                problems.append(COMPOUND.problem(f"the noun {tokens[i].text!r} makes a compound with "
                                                 f"{tokens[j].text!r}"))
                break
        else:
            if (head := _head_after_modifiers(tokens, i + 1)) is not None:
                problems.append(COMPOUND.problem(f"the noun {tokens[i].text!r} goes before the modifiers of "
                                                 f"{head.text!r}"))
    return problems


def _head_after_modifiers(tokens: Sequence, j: int):
    """The noun that one or more prenominal modifiers from ``j`` lead to, or None."""
    start = j
    while j < len(tokens) and tokens[j].tag in _PRENOMINAL:
        j += 1
    return tokens[j] if j > start and j < len(tokens) and tokens[j].tag in _NOUN else None


COMPOUND = Check("compound", "insertion", "an inserted noun that makes a compound with a noun beside it",
                 lambda tokens, inserted, seed_tokens=None: nominal_problems(tokens, inserted))
