"""Suite-level predictions (``mean((2;%mismatch%) - (2;%match%)) > 0``): the mean or median over a suite's items of a
per-item expression, compared with a number, with a 95% bootstrap interval over items. Evaluated once per suite and
model, and reported in rows of their own (``suite_predictions.csv``): never part of item accuracy, whose meaning
(the share of items whose predictions hold) stays what it is.

Items where the expression is undefined (it names an undefined region value) are left out of the statistic and
counted (``undefined_items``), as R's ``na.rm = TRUE`` would; with no defined item the value is undefined and the
prediction does not hold.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from linguagym.suites.formula import RegionRef, Tolerance, compare, number_value
from linguagym.suites.model import Suite

# the interval: items resampled with replacement this many times (as accuracy's, aggregate.summarize), one
# generator per prediction seeded alike, so that a prediction's interval does not depend on the others
BOOTSTRAP = 1000
SEED = 0


@dataclass(frozen=True)
class SuitePredictionResult:
    """One suite-level prediction on one model's scores."""

    prediction: int  # index into suite.suite_predictions
    formula: str  # canonical
    statistic: str  # "mean" or "median" over items
    value: float  # the statistic over the items where the expression is defined, in bits (NaN: none is)
    ci_low: float  # 95% percentile bootstrap interval of the statistic over items (NaN where value is)
    ci_high: float
    op: str
    threshold: float
    items: int  # items whose expression is defined (those the statistic is over)
    undefined_items: int  # items whose expression is undefined, left out
    holds: bool  # value OP threshold, decided as a formula's comparison is (tolerance, tie rule)
    interval_holds: bool  # the comparison holds over the whole interval: it excludes what would contradict it

    @property
    def defined(self) -> bool:
        return self.items > 0


def evaluate_suite_predictions(
    suite: Suite,
    lookups: Mapping[int, Callable[[RegionRef], float]],
    tolerance: Tolerance | None = None,
    *,
    bootstrap: int = BOOTSTRAP,
    seed: int = SEED,
) -> tuple[SuitePredictionResult, ...]:
    """Every suite-level prediction of ``suite``; ``lookups``: item number -> the value of a region reference on that
    item (in the metric evaluated)."""
    run_tolerance = tolerance or Tolerance()
    results = []
    for index, prediction in enumerate(suite.suite_predictions):
        level = prediction.suite_level
        if level is None:  # the loader keeps item-level predictions out of suite_predictions
            raise ValueError(f"not a suite-level prediction: {prediction.formula}")
        values = [number_value(level.expression, lookups[item.number])[0] for item in suite.items]
        defined = [v for v in values if not math.isnan(v)]
        own = prediction.tolerance(run_tolerance)
        value = _statistic(level.function, defined)
        low, high = bootstrap_interval(defined, level.function, bootstrap, seed) if defined else (math.nan, math.nan)
        results.append(SuitePredictionResult(
            index, prediction.formula, level.function, value, low, high, level.op, level.threshold, len(defined),
            len(values) - len(defined), compare(level.op, value, level.threshold, own),
            interval_holds(level.op, low, high, level.threshold, own)))
    return tuple(results)


def _statistic(function: str, values: list[float]) -> float:
    if not values:
        return math.nan
    import numpy as np

    return float(np.mean(values) if function == "mean" else np.median(values))


def bootstrap_interval(values: list[float], function: str, bootstrap: int = BOOTSTRAP,
                       seed: int = SEED) -> tuple[float, float]:
    """The 95% percentile bootstrap interval of the mean (or median) of ``values``: items resampled with
    replacement ``bootstrap`` times, as accuracy's interval is drawn (``aggregate._model_scores``)."""
    import numpy as np

    data = np.asarray(values, dtype=float)
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(data), size=(bootstrap, len(data)))
    draws = data[picks].mean(axis=1) if function == "mean" else np.median(data[picks], axis=1)
    low, high = np.percentile(draws, [2.5, 97.5])
    return float(low), float(high)


def interval_holds(op: str, low: float, high: float, threshold: float, tolerance: Tolerance) -> bool:
    """Whether ``x OP threshold`` holds for every x in [low, high]: for ``<``, ``>``, ``<=``, ``>=`` and ``=`` where it
    holds at both ends; for ``!=`` where the interval stays clear of the threshold (both ends on one side)."""
    if math.isnan(low) or math.isnan(high):
        return False
    if op == "!=":
        return (compare(op, low, threshold, tolerance) and compare(op, high, threshold, tolerance)
                and (low > threshold) == (high > threshold))
    return compare(op, low, threshold, tolerance) and compare(op, high, threshold, tolerance)


def describe(row: Mapping[str, object]) -> str:
    """One line for a console or report from a row of ``suite_predictions.csv`` (its text as read, or the values
    ``runfolder.rows`` builds): the statistic with its interval, over how many items, and the verdict."""

    def logical(value: object) -> bool:
        return value in ("TRUE", "True", "true") if isinstance(value, str) else bool(value)

    items, undefined = int(str(row["items"])), int(str(row["undefined_items"]))
    if not items:
        return f"{row['formula']}: undefined (no item has a defined value; {undefined} undefined): does not hold"
    value, low, high = (float(str(row[name])) for name in ("value", "ci_low", "ci_high"))
    left_out = f", {undefined} undefined items left out" if undefined else ""
    verdict = ("holds, across its 95% interval" if logical(row["interval_holds"]) else
               "holds, but not across its 95% interval" if logical(row["holds"]) else "does not hold")
    return (f"{row['formula']}: {row['statistic']} {value:.3f} bits of {row['metric']}, 95% CI "
            f"[{low:.3f}, {high:.3f}] over {items} items{left_out}: {verdict}")
