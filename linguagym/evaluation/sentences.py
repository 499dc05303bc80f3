"""From a condition's regions to the sentence a model reads, keeping each region's character span.

Spacing (reference/syntaxgym.md section 4), an option recorded in every result:
- ``natural`` (default): non-empty regions joined by one space, but no space before a region that starts
  with ``, . ! ? ; :`` -- modern subword tokenizers then see "people." as in running text;
- ``spaces``: one space between all non-empty regions, the syntaxgym-core / lm-zoo convention.
"""

from __future__ import annotations

from dataclasses import dataclass

from linguagym.errors import ConfigurationError
from linguagym.suites.model import Condition

SPACING_OPTIONS = ("natural", "spaces")
_ATTACHING = (",", ".", "!", "?", ";", ":")


@dataclass(frozen=True)
class Sentence:
    text: str
    spans: tuple[tuple[int, int], ...]  # spans[i]: (start, end) of region i + 1; an empty region is (p, p)


def build_sentence(condition: Condition, spacing: str = "natural") -> Sentence:
    if spacing not in SPACING_OPTIONS:
        raise ConfigurationError(f"unknown spacing {spacing!r}", hint=f"use one of {', '.join(SPACING_OPTIONS)}")
    text = ""
    spans = []
    for region in condition.regions:
        content = region.content
        if content and text and not (spacing == "natural" and content.startswith(_ATTACHING)):
            text += " "
        start = len(text)
        text += content
        spans.append((start, len(text)))
    return Sentence(text, tuple(spans))
