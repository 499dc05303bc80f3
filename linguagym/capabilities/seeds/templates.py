"""Fill a template's slots: sentences (whole, or a part around the start pattern's captures, through filters)
and alternatives (one chosen at random, the same wherever the name recurs). The ``negate`` filter negates the
sentence's captured ``verb`` (``negation.negate``) in the form the alternative ``negation`` chose (``not`` or
``n't``; ``not`` without one)."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from linguagym.capabilities.data.analysis import Analysis
from linguagym.capabilities.data.datasets import Example
from linguagym.capabilities.seeds.negation import negate
from linguagym.capabilities.seeds.search import Match
from linguagym.capabilities.seeds.specs import NEGATED_VERB, NEGATION_FORM, SLOT, SLOT_BODY

# a capitalised noun that starts a sentence with no determiner is mostly a name or a title the tagger took for a
# common noun ("Steers has ...", "Confessions is ..."), so it keeps its capital
_KEEP_CASE_TAGS = ("NNP", "NNPS", "NN", "NNS")


@dataclass(frozen=True)
class Slot:
    example: Example
    analysis: Analysis
    match: Match


def render(template: str | None, slots: dict[str, Slot], alternatives: dict[str, tuple[str, ...]],
           rng: random.Random | None, chosen: dict[str, str] | None = None) -> tuple[str, dict[str, str]]:
    """The test text and the alternatives chosen; without a template the text is sentence S itself.
    ``chosen`` fixes the alternatives (as an earlier render chose them) instead of drawing them from ``rng``.
    Raises ``negation.CannotNegate`` when a negate filter meets a verb it cannot negate."""
    if template is None:
        return slots["S"].example.text, {}
    if chosen is None:
        assert rng is not None
        chosen = {name: rng.choice(options) for name, options in sorted(alternatives.items())}

    def fill(match: re.Match) -> str:
        name, part, filters = SLOT_BODY.match(match.group(1)).groups()  # type: ignore[union-attr]
        if name in chosen:
            return chosen[name]
        slot = slots[name]
        start, text = _part(slot, part)
        for name_of_filter in (f for f in (filters or "").split("|") if f):
            if name_of_filter == "negate":  # first, on the whole sentence (the spec checker sees to both)
                text = negate(slot.analysis, slot.match.captures[NEGATED_VERB][0],
                              short=chosen.get(NEGATION_FORM) == "n't")
            else:
                text = _FILTERS[name_of_filter](text, slot.analysis, start)
        return text

    text = SLOT.sub(fill, template)
    return re.sub(r"[ \t]{2,}", " ", text).strip(), chosen


def _part(slot: Slot, part: str | None) -> tuple[int, str]:
    """(offset in the sentence, text) of the whole sentence or of a part: pre (before the first capture),
    post (after the last capture) or a capture."""
    text = slot.analysis.text
    if part is None:
        return 0, text
    spans = sorted(slot.match.captures.values())
    if part == "pre":
        return 0, text[: spans[0][0]] if spans else ""
    if part == "post":
        return (spans[-1][1], text[spans[-1][1]:]) if spans else (len(text), "")
    start, end = slot.match.captures[part]
    return start, text[start:end]


def _bare(text: str, analysis: Analysis, start: int) -> str:
    """Without one final period (an ellipsis, ? and ! stay: they carry meaning)."""
    text = text.rstrip()
    return text[:-1].rstrip() if text.endswith(".") and not text.endswith("..") else text


def _quote(text: str, analysis: Analysis, start: int) -> str:
    """In double quotes, bare, with the sentence's own double quotes made single."""
    return '"' + _bare(text, analysis, start).replace('"', "'") + '"'


def _lower_first(text: str, analysis: Analysis, start: int) -> str:
    """Lower-case the first letter unless its word is a noun (a name or title, see _KEEP_CASE_TAGS), "I" or an
    acronym."""
    stripped = text.lstrip()
    if not stripped:
        return text
    offset = start + len(text) - len(stripped)
    token = next((t for t in analysis.tokens if t.start == offset), None)
    if token is not None and (token.tag in _KEEP_CASE_TAGS or token.text == "I" or token.text.startswith("I'")
                              or (len(token.text) > 1 and token.text.isupper())):
        return text
    return text[: len(text) - len(stripped)] + stripped[:1].lower() + stripped[1:]


def _upper_first(text: str, analysis: Analysis, start: int) -> str:
    stripped = text.lstrip()
    return text[: len(text) - len(stripped)] + stripped[:1].upper() + stripped[1:]


_FILTERS = {"bare": _bare, "quote": _quote, "lower_first": _lower_first, "upper_first": _upper_first}
