"""Assigning a scored sentence's tokens to its regions by character offsets.

A token belongs to the region holding its first non-space character. A token that also covers characters of
a later region (a tokenizer merged across the boundary, e.g. smollm2's ".." over the regions ``.`` and ``.``) is a
*crossing*; what happens to it is the crossing rule (docs/scoring.md, "How tokens are assigned to regions"):

- ``first`` (default): it stays whole in its first region. A later region it covers entirely is left with no token:
  a non-empty region without a token is *undefined* (every metric NaN, every prediction naming it undefined), never
  a sum of 0.
- ``split``: its surprisal is divided between the regions it covers in proportion to the characters of each
  region's text it covers (spaces between regions count for none), and each region gets one piece: an
  approximation (a token's probability is not shared out by characters in the model), marked in regions.csv.

Unknown tokens are reported per region, like syntaxgym-core's ``oovs``.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, replace

from linguagym.errors import ConfigurationError
from linguagym.evaluation.sentences import Sentence
from linguagym.scoring.precomputed import SentenceMarkers
from linguagym.scoring.protocol import ScoredText, TokenScore

CROSSING_RULES = ("first", "split")  # what a token covering text of several regions counts for (module docstring)


@dataclass(frozen=True)
class AlignedRegion:
    number: int
    tokens: tuple[TokenScore, ...]
    # the region has text but no token: its values are undefined (a crossing token from an earlier region took it)
    undefined: bool = False

    @property
    def surprisals(self) -> list[float]:
        return [token.surprisal for token in self.tokens]

    @property
    def unknown(self) -> tuple[str, ...]:
        return tuple(token.token for token in self.tokens if token.unknown)


@dataclass(frozen=True)
class Crossing:
    """A token that starts in ``region`` but also covers text of ``spills_into``; ``characters``: how many
    characters of each region's text it covers, ``region`` first, then each of ``spills_into``."""

    token: str
    text: str
    region: int
    spills_into: tuple[int, ...]
    characters: tuple[int, ...] = ()
    surprisal: float = 0.0
    split: bool = False  # rule ``split``: each covered region holds its share of the surprisal

    @property
    def regions(self) -> tuple[int, ...]:
        return (self.region, *self.spills_into)


@dataclass(frozen=True)
class Alignment:
    regions: tuple[AlignedRegion, ...]  # regions[i] is region i + 1
    crossings: tuple[Crossing, ...]

    @property
    def tokens(self) -> tuple[TokenScore, ...]:
        return tuple(token for region in self.regions for token in region.tokens)

    @property
    def undefined_regions(self) -> tuple[int, ...]:
        """Regions with text that received no token (their values are undefined)."""
        return tuple(region.number for region in self.regions if region.undefined)


def check_crossing_rule(rule: str) -> str:
    if rule not in CROSSING_RULES:
        raise ConfigurationError(f"unknown crossing rule {rule!r}",
                                 hint="use first (a crossing token counts whole in its first region) or split "
                                 "(its surprisal is shared between the regions it covers by characters)")
    return rule


def align(sentence: Sentence, scored: ScoredText, crossing: str = "first") -> Alignment:
    check_crossing_rule(crossing)
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
        region_end, number = filled[index][1:]
        covered = [(start, end, n) for start, end, n in filled[index:] if start < token.end] \
            if region_end < token.end else []  # (rare) the token may cover text of later regions
        if len(covered) < 2:
            assigned[number].append(token)
            continue
        characters = tuple(max(0, min(end, token.end) - max(start, token.start)) for start, end, _ in covered)
        crossings.append(Crossing(token.token, text[token.start:token.end], number,
                                  tuple(n for _, _, n in covered[1:]), characters, token.surprisal,
                                  split=crossing == "split"))
        if crossing == "first":
            assigned[number].append(token)
        else:
            for piece in split_token(token, covered, characters):
                assigned[piece[0]].append(piece[1])
    regions = tuple(AlignedRegion(number, tuple(tokens), undefined=not tokens and _has_text(sentence, number))
                    for number, tokens in assigned.items())
    return Alignment(regions, tuple(crossings))


def split_token(token: TokenScore, covered: list[tuple[int, int, int]],
                characters: tuple[int, ...]) -> list[tuple[int, TokenScore]]:
    """``token`` cut into one piece per region it covers: each piece spans the region's characters it covers and
    carries ``surprisal * characters / all characters`` (the pieces add up to the token's surprisal)."""
    total = sum(characters)
    pieces = []
    for (start, end, number), count in zip(covered, characters, strict=True):
        if count:
            pieces.append((number, replace(token, start=max(start, token.start), end=min(end, token.end),
                                           surprisal=token.surprisal * count / total)))
    return pieces


def _has_text(sentence: Sentence, number: int) -> bool:
    start, end = sentence.spans[number - 1]
    return end > start


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
    and min, and lands in an empty last region when there is one. A region left undefined by a crossing stays
    undefined: a marker is no token of its text.
    """
    if not (markers.opening or markers.closing) or not alignment.regions:
        return alignment
    assigned = {region.number: list(region.tokens) for region in alignment.regions}
    assigned[1][:0] = markers.opening
    holding_words = [region.number for region in alignment.regions if region.tokens]
    closing_region = min(holding_words[-1] + 1, len(assigned)) if holding_words else 1
    assigned[closing_region].extend(markers.closing)
    regions = tuple(AlignedRegion(region.number, tuple(assigned[region.number]), region.undefined)
                    for region in alignment.regions)
    return Alignment(regions, alignment.crossings)


def region_crossings(alignment: Alignment) -> dict[int, str]:
    """Region number -> what crossing tokens did to it, in words (regions.csv's ``crossing`` column); regions no
    crossing touches are left out."""
    notes: dict[int, list[str]] = {}
    undefined = set(alignment.undefined_regions)
    for crossing in alignment.crossings:
        token, span = f"'{crossing.text.strip()}'", _span(crossing.regions)
        total = sum(crossing.characters)
        for number, count in zip(crossing.regions, crossing.characters, strict=True):
            if crossing.split:
                note = (f"{token} over regions {span} split by characters: {count} of {total} here "
                        "(an approximation)")
            elif number == crossing.region:
                note = f"{token} over regions {span} counted here whole"
            else:
                note = f"{token} over regions {span} counted in region {crossing.region}"
                if number in undefined:
                    note += ": no token left here, values undefined"
            notes.setdefault(number, []).append(note)
    return {number: "; ".join(found) for number, found in notes.items()}


def _span(numbers: tuple[int, ...]) -> str:
    return f"{numbers[0]}-{numbers[-1]}" if numbers == tuple(range(numbers[0], numbers[-1] + 1)) else \
        ", ".join(map(str, numbers))
