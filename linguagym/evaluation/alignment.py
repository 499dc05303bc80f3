"""Assigning a scored sentence's tokens to its regions by character offsets.

A token belongs to the region holding its first non-space character. A token that also covers characters of
a later region (a tokenizer merged across the boundary) stays with its first region and is reported. Unknown
tokens are reported per region, like syntaxgym-core's ``oovs``.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from linguagym.evaluation.sentences import Sentence
from linguagym.scoring.precomputed import SentenceMarkers
from linguagym.scoring.protocol import ScoredText, TokenScore


@dataclass(frozen=True)
class AlignedRegion:
    number: int
    tokens: tuple[TokenScore, ...]

    @property
    def surprisals(self) -> list[float]:
        return [token.surprisal for token in self.tokens]

    @property
    def unknown(self) -> tuple[str, ...]:
        return tuple(token.token for token in self.tokens if token.unknown)


@dataclass(frozen=True)
class Crossing:
    """A token that starts in ``region`` but also covers text of ``spills_into``."""

    token: str
    text: str
    region: int
    spills_into: tuple[int, ...]


@dataclass(frozen=True)
class Alignment:
    regions: tuple[AlignedRegion, ...]  # regions[i] is region i + 1
    crossings: tuple[Crossing, ...]

    @property
    def tokens(self) -> tuple[TokenScore, ...]:
        return tuple(token for region in self.regions for token in region.tokens)


def align(sentence: Sentence, scored: ScoredText) -> Alignment:
    if scored.text != sentence.text:
        raise ValueError(f"scores are for {scored.text!r}, not for {sentence.text!r}")
    text = sentence.text
    # non-empty regions in order; empty ones can hold no token
    filled = [(start, end, number) for number, (start, end) in enumerate(sentence.spans, start=1) if end > start]
    starts = [start for start, _, _ in filled]
    assigned: dict[int, list[TokenScore]] = {number: [] for number in range(1, len(sentence.spans) + 1)}
    crossings = []
    for token in scored.tokens:
        anchor = _first_non_space(text, token.start, token.end)
        if not filled:
            raise ValueError(f"token {token.token!r} in a sentence whose regions are all empty")
        # the last non-empty region starting at or before the anchor (the first one if none does)
        index = max(bisect.bisect_right(starts, anchor) - 1, 0)
        _, region_end, number = filled[index]
        assigned[number].append(token)
        if region_end < token.end:  # (rare) the token may cover text of later regions
            spills = tuple(n for start, _, n in filled[index + 1:] if start < token.end)
            if spills:
                crossings.append(Crossing(token.token, text[token.start:token.end], number, spills))
    regions = tuple(AlignedRegion(number, tuple(tokens)) for number, tokens in assigned.items())
    return Alignment(regions, tuple(crossings))


def _first_non_space(text: str, start: int, end: int) -> int:
    if start < end and start < len(text) and not text[start].isspace():
        return start  # most tokens
    for position in range(start, min(end, len(text))):
        if not text[position].isspace():
            return position
    return start  # an all-space or zero-width token stays where it starts


def count_markers(alignment: Alignment, markers: SentenceMarkers) -> Alignment:
    """``alignment`` with sentence markers counted as syntaxgym-core counts them (``--compat syntaxgym-core``).

    syntaxgym-core walks tokens and regions together: it adds an opening marker (``<s>``) to the region it is in,
    region 1 (even when empty), and a closing one (``<eos>``) to the region after the one holding the last word,
    or to that one when it is the last region: its walk moves on once a region's text is used up, unless that
    region is the last. So ``<eos>`` (surprisal 0 in most lm-zoo files) lowers the last region's mean, median
    and min, and lands in an empty last region when there is one.
    """
    if not (markers.opening or markers.closing) or not alignment.regions:
        return alignment
    assigned = {region.number: list(region.tokens) for region in alignment.regions}
    assigned[1][:0] = markers.opening
    holding_words = [region.number for region in alignment.regions if region.tokens]
    closing_region = min(holding_words[-1] + 1, len(assigned)) if holding_words else 1
    assigned[closing_region].extend(markers.closing)
    regions = tuple(AlignedRegion(number, tuple(tokens)) for number, tokens in assigned.items())
    return Alignment(regions, alignment.crossings)
