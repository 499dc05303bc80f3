"""Rules for inserted determiners, prepositions and subordinators, on the filled sentence's Penn tags.

A function word changes the structure around it, and the judged expansions show it breaking that structure: a
determiner before a name ("on these Imax", "watching all Spy", "from another Robert Rodriguez"); a determiner
between a preposition and its bare noun, where the bare noun is what makes the phrase ("small in this scope",
"with each restraint", "from the top to bottom": English uses bare singular nouns after prepositions in
fixed and mass readings, and a determiner turns them into a count noun); a preposition taking a clause after a
verb or adjective, which only a complementizer can introduce ("you think at you're watching", "so large with
it's"); a preposition before another preposition or "to" ("a reason after to want", "as inept with as").
"""

from __future__ import annotations

from collections.abc import Sequence

from linguagym.capabilities.expansion.check import Check, Problem

_DETERMINER = ("DT", "PDT", "PRP$")
_PRENOMINAL = ("JJ", "JJR", "JJS", "VBN", "VBG", "CD", "RB", "HYPH")
_NAME = ("NNP", "NNPS")
# the words that introduce a verb's or an adjective's complement clause ("I think that ...", "sure whether ...")
COMPLEMENTIZERS = frozenset({"that", "whether", "if"})
_SUBJECT_PRONOUNS = frozenset({"i", "you", "he", "she", "it", "we", "they", "there"})


def function_word_problems(tokens: Sequence, inserted: Sequence[int]) -> list[Problem]:
    """Why the inserted function words at ``inserted`` (indices into the filled sentence's ``tokens``) break the
    structure they went into; empty when none."""
    problems = []
    taken = set(inserted)
    for i in inserted:
        token = tokens[i]
        previous = tokens[i - 1] if i > 0 else None
        following = tokens[i + 1] if i + 1 < len(tokens) else None
        if following is None:
            continue
        if token.tag in _DETERMINER:
            name = _name_after(tokens, i + 1)
            if name is not None:
                problems.append(FUNCTION.problem(f"the determiner {token.text!r} goes before the name {name.text!r}"))
            elif (previous is not None and previous.tag == "IN" and previous.lower != "than" and i - 1 not in taken
                  and following.tag == "NN" and i + 1 not in taken):
                problems.append(FUNCTION.problem(f"the determiner {token.text!r} goes between the preposition "
                                                 f"{previous.text!r} and its bare noun {following.text!r}"))
        elif token.tag == "IN" and token.lower not in COMPLEMENTIZERS:
            if following.tag in ("IN", "TO") or following.lower == "as":
                problems.append(FUNCTION.problem(f"the preposition {token.text!r} goes before {following.text!r}"))
            elif (previous is not None and previous.tag[:2] in ("VB", "JJ") and i - 1 not in taken
                  and following.lower in _SUBJECT_PRONOUNS):
                problems.append(FUNCTION.problem(f"{token.text!r} introduces the clause after {previous.text!r}, which "
                                                 f"only a complementizer ({', '.join(sorted(COMPLEMENTIZERS))}) can"))
    return problems


def _name_after(tokens: Sequence, j: int):
    """The proper noun a determiner at ``j - 1`` would go with, looking past prenominal modifiers; None if the
    phrase's head is not a name."""
    while j < len(tokens) and tokens[j].tag in _PRENOMINAL:
        j += 1
    return tokens[j] if j < len(tokens) and tokens[j].tag in _NAME else None


FUNCTION = Check("function", "insertion", "an inserted determiner before a name or a bare noun after a preposition, "
                 "or a preposition taking a clause or a preposition",
                 lambda tokens, inserted, seed_tokens=None: function_word_problems(tokens, inserted))
