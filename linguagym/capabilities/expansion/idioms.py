"""Fixed phrases a fill must not break: the parser reads "in favor of" as a preposition and a noun phrase, so
differentiation offers a determiner or an adjective for "favor" ("in the current favor of", "in a massive favor
of"), and "one beverage after another" as a noun phrase that can take a noun ("after another alcoholic snack").

``IDIOMS``: phrases nothing may go into. ``CLOSED``: phrases that end their noun phrase, so nothing may follow
them either (a regular expression of what may come next: punctuation or the end of the sentence).
A fill breaks a phrase when the seed sentence holds it more often than the filled sentence.
"""

from __future__ import annotations

import re

from linguagym.capabilities.expansion.check import Check, Problem

IDIOMS = (
    "in favor of", "in favour of", "in front of", "in spite of", "on top of", "in charge of", "in terms of",
    "by way of", "in case of", "on behalf of", "in light of", "in place of", "in need of", "in search of",
    "at the hands of", "for the sake of", "as well as", "at all", "at least", "at last", "at most", "at once",
    "of course", "in fact", "so far", "as long as", "such as", "at every turn", "off the shelf", "kind of",
    "sort of", "a lot of", "a lot", "a bit", "a few", "a little", "more or less", "by far", "on the other hand",
    "all the same", "the same as", "in a way", "for good", "at times", "on time", "in time", "by heart", "in turn",
)
CLOSED = ("after another", "one another", "each other", "after the other")
_AFTER_CLOSED = r"(?=\s*(?:[^\w\s]|$))"


def _pattern(phrase: str, closed: bool) -> re.Pattern:
    words = r"\s+".join(re.escape(w) for w in phrase.split())
    return re.compile(rf"\b{words}\b" + (_AFTER_CLOSED if closed else ""), re.IGNORECASE)


_PATTERNS = [(p, _pattern(p, False)) for p in IDIOMS] + [(p, _pattern(p, True)) for p in CLOSED]


def broken_idioms(seed: str, filled: str) -> list[str]:
    """The fixed phrases of ``seed`` that ``filled`` (the seed with words put in) no longer holds whole."""
    return [phrase for phrase, pattern in _PATTERNS if len(pattern.findall(filled)) < len(pattern.findall(seed))]


def idiom_problems(seed: str, filled: str) -> list[Problem]:
    """The ``idiom`` refusals of ``filled``: each fixed phrase of ``seed`` it breaks."""
    return [IDIOM.problem(f"the fill breaks the fixed phrase {phrase!r}") for phrase in broken_idioms(seed, filled)]


IDIOM = Check("idiom", "sentence", "a fill that breaks one of the seed's fixed phrases", idiom_problems)
