"""The one-line note that tells a reader of a suite's accuracy about tokens crossing region boundaries and about
undefined predictions: printed by ``linguagym run`` and shown in the report, from the counts the run record keeps
per suite (``SuiteResult.alignment_counts``, ``undefined_predictions``)."""

from __future__ import annotations

from collections.abc import Mapping


def _plural(count: int, word: str, plural: str | None = None) -> str:
    return f"{count} {word if count == 1 else plural or word + 's'}"


def crossing_note(counts: Mapping[str, int], undefined_predictions: int, rule: str = "first") -> str:
    """'' where there is nothing to say; ``counts``: the suite's entry in run.json (or ``alignment_counts()``)."""
    parts = []
    tokens = int(counts.get("crossing_tokens", 0) or 0)
    if tokens:
        where = _plural(int(counts.get("conditions_with_crossings", 0) or 0), "sentence")
        counted = ("split between the regions they cover by characters (an approximation)" if rule == "split"
                   else "counted whole in their first region")
        verb = "crosses" if tokens == 1 else "cross"
        parts.append(f"{_plural(tokens, 'token')} {verb} a region boundary in {where}, {counted} "
                     "(regions.csv, column crossing)")
    empty = int(counts.get("regions_without_token", 0) or 0)
    if empty:
        parts.append(f"{_plural(empty, 'region')} with text but no token, undefined")
    if undefined_predictions:
        verb = "names" if undefined_predictions == 1 else "name"
        parts.append(f"{_plural(undefined_predictions, 'prediction')} {verb} an undefined value, counted as not "
                     "holding (predictions.csv, column undefined)")
    return "; ".join(parts)
