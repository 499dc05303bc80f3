"""Spans an insertion must leave whole: names and titles, quotations, compounds.

A blind reader of the default run (#38) rejected insertions that went into a name or a title ("the *recent*
Komediant", "named The *main* Husband"), into the words of a quotation (a title or someone's words, which the
review quotes as they are), or between the parts of a compound ("*human* heart felt drama", where "heart felt" is
"heart-felt" with its dash lost): each changes what is named or quoted, or splits a word, whatever the fill.

- ``name``: an inserted word directly before a proper noun or a capitalised word inside the sentence (a name or a
  title: "the recent Komediant"), or between two capitalised words ("The Husband, The *main* Wife");
- ``quotation``: an inserted word inside a span the sentence quotes ("...", '...', curly quotes);
- ``split``: an inserted word between two nouns (a noun-noun compound: "film *local* festival"), or a modifier put
  before a noun that leads a compound modifier (a noun, then a participle or adjective, then the head noun:
  "*human* heart felt drama", "a *new* computer generated fish").
"""

from __future__ import annotations

from collections.abc import Sequence

from linguagym.capabilities.expansion.check import Check, Problem

_NOUN = ("NN", "NNS", "NNP", "NNPS")
_COMMON_NOUN = ("NN", "NNS")
_LEADS = ("VBN", "VBG", "VBD", "JJ")  # what follows the noun of a compound modifier ("heart felt", "eye filling")


def _capitalised(token, first: int, index: int) -> bool:
    """A word written with a capital inside the sentence (not its first word, not "I")."""
    return index != first and token.text[:1].isupper() and token.text != "I" and not token.is_punct


def name_problems(tokens: Sequence, inserted: Sequence[int], seed_tokens: Sequence | None = None) -> list[Problem]:
    """Why the words at ``inserted`` (indices into the filled sentence's ``tokens``) go into a name or title."""
    problems = []
    taken = set(inserted)
    first = next((i for i, t in enumerate(tokens) if not t.is_punct), 0)
    for i in inserted:
        after = next((j for j in range(i + 1, len(tokens)) if j not in taken), None)
        before = next((j for j in range(i - 1, -1, -1) if j not in taken), None)
        if after is None:
            continue
        following = tokens[after]
        if following.tag in ("NNP", "NNPS") or _capitalised(following, first, after):
            if before is not None and (tokens[before].text[:1].isupper() and not tokens[before].is_punct):
                problems.append(NAME.problem(f"{tokens[i].text!r} goes inside the name or title "
                                             f"{tokens[before].text!r} ... {following.text!r}"))
            else:
                problems.append(NAME.problem(f"{tokens[i].text!r} goes before the name or title "
                                             f"{following.text!r}"))
    return problems


def quoted(tokens: Sequence) -> list[bool]:
    """For each token, whether it stands inside a quotation: between a quote mark and its match (``"``, curly
    quotes, or a lone ``'`` that is not a possessive's)."""
    inside: list[bool] = []
    open_marks: dict[str, bool] = {'"': False, "'": False}
    for token in tokens:
        text = token.text
        mark = ('"' if text in ('"', "``", "''", "\u201c", "\u201d") else
                "'" if text in ("'", "\u2018", "\u2019") and token.tag != "POS" else None)
        inside.append(any(open_marks.values()) and mark is None)
        if mark is not None:
            open_marks[mark] = not open_marks[mark]
    return inside


def quotation_problems(tokens: Sequence, inserted: Sequence[int],
                       seed_tokens: Sequence | None = None) -> list[Problem]:
    """Why the words at ``inserted`` (indices into the filled sentence's ``tokens``) go inside a quotation."""
    inside = quoted(tokens)
    return [QUOTATION.problem(f"{tokens[i].text!r} goes inside a quotation") for i in inserted if inside[i]]


def split_problems(tokens: Sequence, inserted: Sequence[int], seed_tokens: Sequence | None = None) -> list[Problem]:
    """Why the words at ``inserted`` split a compound."""
    problems = []
    taken = set(inserted)
    for i in inserted:
        before = next((j for j in range(i - 1, -1, -1) if j not in taken), None)
        after = next((j for j in range(i + 1, len(tokens)) if j not in taken), None)
        if before is None or after is None:
            continue
        if tokens[before].tag in _NOUN and tokens[after].tag in _NOUN and tokens[i].tag not in _NOUN:
            problems.append(SPLIT.problem(f"{tokens[i].text!r} splits the compound {tokens[before].text!r} "
                                          f"{tokens[after].text!r}"))
        elif (tokens[after].tag in _COMMON_NOUN and after + 2 < len(tokens)
              and tokens[after + 1].tag in _LEADS and tokens[after + 2].tag in _NOUN
              and tokens[i].tag.startswith(("JJ", "RB"))):
            problems.append(SPLIT.problem(f"{tokens[i].text!r} goes before the compound modifier "
                                          f"{tokens[after].text!r} {tokens[after + 1].text!r}"))
    return problems


NAME = Check("name", "insertion", "an inserted word before a name or title, or inside a capitalised name or title",
             name_problems)
QUOTATION = Check("quotation", "insertion", "an inserted word inside a quotation", quotation_problems)
SPLIT = Check("split", "insertion", "an inserted word between two nouns, or before a noun that leads a compound "
              "modifier", split_problems)
PROTECTED_CHECKS: tuple[Check, ...] = (NAME, QUOTATION, SPLIT)
