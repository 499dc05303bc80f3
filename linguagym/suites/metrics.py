"""The six region metrics: how token surprisals inside a region become one number.

An empty region has sum 0; every other metric is undefined there (NaN), and a prediction comparing an
undefined value is false and reported (reference/syntaxgym.md section 4).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence

METRICS: dict[str, Callable[[Sequence[float]], float]] = {
    "sum": lambda xs: math.fsum(xs),
    "mean": lambda xs: math.fsum(xs) / len(xs) if xs else math.nan,
    "median": lambda xs: statistics.median(xs) if xs else math.nan,
    "range": lambda xs: max(xs) - min(xs) if xs else math.nan,
    "max": lambda xs: max(xs) if xs else math.nan,
    "min": lambda xs: min(xs) if xs else math.nan,
}
METRIC_NAMES: tuple[str, ...] = tuple(METRICS)


def aggregate(metric: str, surprisals: Sequence[float]) -> float:
    """The value of one metric over a region's token surprisals."""
    try:
        return METRICS[metric](surprisals)
    except KeyError:
        raise ValueError(f"unknown metric {metric!r}; known: {', '.join(METRIC_NAMES)}") from None


def all_metrics(surprisals: Sequence[float]) -> dict[str, float]:
    """Every metric over one region's surprisals, the same values as ``aggregate`` for each, with one sort and one
    sum instead of six passes (evaluation computes this for every region of every sentence of every model)."""
    if not surprisals:
        return {name: METRICS[name](surprisals) for name in METRIC_NAMES}
    total = math.fsum(surprisals)
    if math.isnan(total):  # max, min and a sort disagree about NaN: keep each metric's own reading of it
        return {name: METRICS[name](surprisals) for name in METRIC_NAMES}
    ordered = sorted(surprisals)
    n = len(ordered)
    middle = n // 2
    low, high = ordered[0], ordered[-1]
    return {"sum": total, "mean": total / n,
            "median": ordered[middle] if n % 2 else (ordered[middle - 1] + ordered[middle]) / 2,
            "range": high - low, "max": high, "min": low}

