"""Scored suites (``suites/NAME.json`` in a model's folder): a suite with each region's values, written so that
syntaxgym-core reads it, and evaluated again from those stored values, with no model and no token scores."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

from linguagym.errors import ConfigurationError
from linguagym.evaluation.alignment import AlignedRegion, Alignment
from linguagym.evaluation.evaluate import ScoredCondition, SuiteResult, checked_metric, evaluate_predictions
from linguagym.evaluation.sentences import build_sentence
from linguagym.suites.formula import Tolerance
from linguagym.suites.load import read_suite
from linguagym.suites.metrics import METRIC_NAMES
from linguagym.suites.model import Condition, Item, Region, Suite
from linguagym.suites.save import RegionValues, scored_suite_to_dict


def _region_values(result: SuiteResult) -> RegionValues:
    """Each region's values in ``result`` (sum, the suite's metrics and the one predictions were evaluated on) and
    its unknown tokens."""
    metrics = tuple(dict.fromkeys(("sum", *result.suite.meta.metrics, result.metric)))
    scored = {(c.item, c.condition): c for c in result.conditions}

    def values(item: Item, condition: Condition, region: Region) -> tuple[dict[str, float], tuple[str, ...]]:
        found = scored[(item.number, condition.name)]
        of_region = found.values[region.number]
        return {m: of_region[m] for m in metrics}, found.alignment.regions[region.number - 1].unknown

    return values


def scored_suite(result: SuiteResult) -> Suite:
    """``result.suite`` with each region's values and unknown tokens (``_region_values``)."""
    values = _region_values(result)

    def scored_region(item: Item, condition: Condition, region: Region) -> Region:
        found, oovs = values(item, condition, region)
        return dataclasses.replace(region, values=found, oovs=tuple(oovs))

    def condition_with_values(item: Item, condition: Condition) -> Condition:
        regions = tuple(scored_region(item, condition, region) for region in condition.regions)
        return dataclasses.replace(condition, regions=regions)

    items = tuple(dataclasses.replace(item, conditions=tuple(condition_with_values(item, c) for c in item.conditions))
                  for item in result.suite.items)
    return dataclasses.replace(result.suite, items=items)


def scored_suite_dict(result: SuiteResult, model: str) -> dict:
    """The JSON of a run's ``suites/NAME.json``: syntaxgym-core's scored-suite form, the same document as
    ``scored_suite_to_dict(scored_suite(result), ...)``, with the values taken from the result as it is written
    rather than from a scored copy of the suite (a copy of every region: 0.3 s of each model of a run over the 34
    suites)."""
    return scored_suite_to_dict(result.suite, metric=result.metric, model=model, values=_region_values(result))


def evaluate_scored_suite(source: str | Path | Suite, *, metric: str | None = None,
                          tolerance: Tolerance | None = None) -> SuiteResult:
    """Evaluate a scored suite's predictions again from its stored region values (a path, or a ``Suite`` read from
    one): another metric, policy or tolerance needs no model. The values of the whole sentence (``*``) are not
    stored: its sum is the sum of the region sums, its other metrics are undefined. The result's alignments hold
    no tokens, and its sentences are the regions joined by the default spacing."""
    suite = source if isinstance(source, Suite) else read_suite(source).suite
    where = str(source) if not isinstance(source, Suite) else f"suite {suite.name!r}"
    primary = checked_metric(metric or suite.meta.primary_metric)
    conditions = []
    for item in suite.items:
        for condition in item.conditions:
            values = stored_values(condition, primary, f"{where}: item {item.number}")
            alignment = Alignment(tuple(AlignedRegion(region.number, ()) for region in condition.regions), ())
            conditions.append(ScoredCondition(item.number, condition.name, build_sentence(condition), alignment,
                                              values))
    return evaluate_predictions(suite, conditions, primary, tolerance)


def stored_values(condition: Condition, metric: str, where: str) -> dict[int | None, dict[str, float]]:
    """A scored condition's values by region number, as formulas look them up; the whole sentence (None, ``*``):
    the sum of the region sums, its other metrics undefined (they are not stored). ``where`` starts a message."""
    values: dict[int | None, dict[str, float]] = {}
    for region in condition.regions:
        if region.values is None or metric not in region.values:
            stored = ", ".join(region.values) if region.values else "no values"
            raise ConfigurationError(
                f"{where}, condition {condition.name!r}, region {region.number} holds {stored}, not the metric "
                f"{metric!r}",
                hint="give a scored suite (a run's suites/NAME.json) and one of the metrics its "
                "metric_value holds" if region.values else "only a scored suite (a run's "
                "suites/NAME.json, or syntaxgym-core's output) holds region values; run this suite instead")
        values[region.number] = dict(region.values)
    sums = [values[region.number].get("sum") for region in condition.regions]
    # a sum stored as null is a region a crossing token left with no token: that token is in an earlier region's sum
    total = math.nan if None in sums else math.fsum(x for x in sums if x is not None and not math.isnan(x))
    values[None] = {**dict.fromkeys(METRIC_NAMES, math.nan), "sum": total}
    return values
