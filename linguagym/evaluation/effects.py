"""Effect sizes: for every prediction, item and comparison, the values of the comparison's two sides and their
difference ``left - right`` in the suite's metric (bits for surprisal), and per model, suite, prediction and
comparison the mean difference over items with a 95% bootstrap interval.

An effect comes from what the evaluation already computed (``PredictionResult.sides``): nothing is scored again.
A prediction's comparisons are numbered 0, 1, ... left to right as its formula is written
(``formula.comparisons``): ``(a > b) & (c > d)`` has comparison 0, ``a > b``, and comparison 1, ``c > d``. The sign
is the formula's: ``(1;%mismatch%) > (1;%match%)`` expects a positive effect, ``a < b`` a negative one (``op`` says
which). An item whose comparison names an undefined value (a region with no token) has no effect: it is left out of
the mean, and ``EffectSize.left_out`` counts it.

The interval resamples items with replacement as the accuracy intervals do (``aggregate.summarize``): ``bootstrap``
resamples, the 2.5th and 97.5th percentiles of the resampled means; each row draws from its own generator seeded
with ``seed``, so a row's interval does not depend on which other suites or models are summarized with it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from linguagym.errors import ConfigurationError
from linguagym.evaluation.aggregate import Interval
from linguagym.suites.formula import Comparison, comparisons, format_formula, region_refs

if TYPE_CHECKING:
    from linguagym.evaluation.evaluate import PredictionResult, SuiteResult
    from linguagym.suites.model import Prediction


@dataclass(frozen=True, slots=True)  # slots: a run over a hundred checkpoints holds every model's effects
class ItemEffect:
    """One comparison of one prediction on one item: a row of ``effects.csv``."""

    model: str
    suite: str
    item: int
    prediction: int  # the prediction's index in the suite (predictions.csv's ``prediction``)
    comparison: int  # the comparison's index in the prediction, left to right as written
    formula: str  # the prediction's whole formula (predictions.csv's ``formula``)
    comparison_formula: str  # this comparison alone, e.g. ``(1;%mismatch%) > (1;%match%)``
    op: str  # its operator: <, >, =, <=, >=, !=
    metric: str  # the metric both sides are in (``sum``: surprisal in bits summed over the region)
    left: float  # NaN where undefined
    right: float
    undefined: str = ""  # the references of this comparison whose value is undefined, as written, space-separated

    @property
    def effect(self) -> float:
        """``left - right`` (NaN where either side is undefined)."""
        return self.left - self.right

    @property
    def defined(self) -> bool:
        return not math.isnan(self.effect)


@dataclass(frozen=True)
class EffectSize:
    """The mean effect of one comparison of one prediction over a suite's items, for one model."""

    model: str
    suite: str
    prediction: int
    comparison: int
    formula: str
    comparison_formula: str
    op: str
    metric: str
    mean: float  # NaN where no item has a defined effect
    interval: Interval | None  # 95% bootstrap interval of the mean; None: no bootstrap, or no defined item
    n: int  # items the mean is over
    left_out: int  # items left out: a side of the comparison undefined (an empty region)

    @property
    def items(self) -> int:
        return self.n + self.left_out


def prediction_comparisons(prediction: Prediction) -> list[Comparison]:
    """A prediction's comparisons, in the order effects number them."""
    return list(comparisons(prediction.tree))


def suite_effects(model: str, result: SuiteResult) -> Iterator[ItemEffect]:
    """Every effect of a suite's evaluated predictions, item by item, prediction by prediction, comparison by
    comparison."""
    suite = result.suite
    terms = [[(format_formula(c), c.op, tuple(dict.fromkeys(region_refs(c)))) for c in prediction_comparisons(p)]
             for p in suite.predictions]
    formulas = [p.formula for p in suite.predictions]
    for outcome in result.predictions:
        yield from _outcome_effects(model, suite.name, result.metric, formulas[outcome.prediction],
                                    terms[outcome.prediction], outcome)


def _outcome_effects(model: str, suite: str, metric: str, formula: str, terms, outcome: PredictionResult
                     ) -> Iterator[ItemEffect]:
    for index, ((text, op, refs), (left, right)) in enumerate(zip(terms, outcome.sides, strict=True)):
        undefined = " ".join(str(ref) for ref in refs if ref in outcome.undefined)
        yield ItemEffect(model, suite, outcome.item, outcome.prediction, index, formula, text, op, metric, left, right,
                         undefined)


def summarize_effects(effects: Iterable[ItemEffect], *, bootstrap: int = 1000, seed: int = 0) -> list[EffectSize]:
    """The mean effect per model, suite, prediction and comparison (in the order first met), with its 95% bootstrap
    interval over items (``bootstrap`` resamples, 0: none) and how many items it is over and left out."""
    if bootstrap < 0:
        raise ConfigurationError(f"bootstrap must be 0 or more, not {bootstrap}")
    groups: dict[tuple[str, str, int, int], list[ItemEffect]] = {}
    for effect in effects:
        groups.setdefault((effect.model, effect.suite, effect.prediction, effect.comparison), []).append(effect)
    sizes = []
    for rows in groups.values():
        first = rows[0]
        values = [row.effect for row in rows if row.defined]
        mean = math.fsum(values) / len(values) if values else math.nan
        sizes.append(EffectSize(first.model, first.suite, first.prediction, first.comparison, first.formula,
                                first.comparison_formula, first.op, first.metric, mean,
                                bootstrap_interval(values, bootstrap, seed), len(values), len(rows) - len(values)))
    return sizes


def bootstrap_interval(values: Sequence[float], resamples: int = 1000, seed: int = 0) -> Interval | None:
    """The 95% percentile bootstrap interval of the mean of ``values``, drawn as the accuracy intervals are (items
    with replacement, ``resamples`` times, from ``numpy.random.default_rng(seed)``); None with no values or no
    resamples."""
    if not values or resamples <= 0:
        return None
    import numpy as np

    data = np.asarray(values, dtype=float)
    picks = np.random.default_rng(seed).integers(0, len(data), size=(resamples, len(data)))
    low, high = np.percentile(data[picks].mean(axis=1), [2.5, 97.5])
    return Interval(float(low), float(high))


def effect_vector(effects: Iterable[ItemEffect], suite: str, prediction: int, comparison: int = 0, *,
                  model: str | None = None) -> dict[int, float]:
    """item -> effect (``left - right``; NaN where undefined) of one comparison of one prediction of ``suite``
    among ``effects`` (``model`` picks one model among several): the per-item vector two models' effects are paired
    on. ``prediction_table.item_effect_vector`` takes a run. An unknown suite, prediction or comparison is a
    ``ConfigurationError``."""
    chosen = [e for e in effects if e.suite == suite and (model is None or e.model == model)]
    if not chosen:
        raise ConfigurationError(f"no effects of a suite named {suite!r}" + (f" for model {model!r}" if model else ""),
                                 hint="name a suite (and model) the results hold")
    models = {e.model for e in chosen}
    if len(models) > 1:
        raise ConfigurationError(f"effects of several models ({', '.join(sorted(models))}) on suite {suite!r}",
                                 hint="pick one with model=...")
    vector = {e.item: e.effect for e in chosen if e.prediction == prediction and e.comparison == comparison}
    if not vector:
        counts = sorted({(e.prediction, e.comparison) for e in chosen})
        raise ConfigurationError(f"suite {suite!r} has no comparison {comparison} of prediction {prediction}",
                                 hint="it has (prediction, comparison) " + ", ".join(map(str, counts)))
    return vector


def format_effect(size: EffectSize, digits: int = 2) -> str:
    """``1.23 [0.80, 1.71] bits, n=20`` with, where items were left out, how many and why: what every face shows
    beside an effect."""
    if size.n == 0:
        shown = "–"
    else:
        shown = f"{size.mean:.{digits}f}"
        if size.interval is not None:
            shown += f" [{size.interval.low:.{digits}f}, {size.interval.high:.{digits}f}]"
        shown += " bits"  # every metric is of surprisals in bits (metrics.py), a range of them too
    return shown + f", n={size.n}" + left_out_note(size)


def effect_size_row(size: EffectSize) -> list:
    """An ``EffectSize`` as a row of ``schema.EFFECT_SIZE_COLUMNS`` (empty where there is no value)."""
    interval = size.interval
    return [size.model, size.suite, size.prediction, size.comparison, size.formula, size.comparison_formula, size.op,
            size.metric, "" if size.n == 0 else size.mean, "" if interval is None else interval.low,
            "" if interval is None else interval.high, size.n, size.left_out]


def left_out_note(size: EffectSize) -> str:
    """``" (3 of 20 items left out: a side undefined)"``, or "" where none was."""
    if not size.left_out:
        return ""
    return f" ({size.left_out} of {size.items} items left out: a side undefined)"
