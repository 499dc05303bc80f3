"""Writing suites in the canonical dialect (formula predictions), the output of ``upgrade``; and scored suites."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from linguagym.atomic import atomic_write_text
from linguagym.suites.model import Condition, Item, Prediction, Region, Suite


def suite_to_dict(suite: Suite) -> dict:
    """The canonical JSON structure of a suite; loading it back gives an equal Suite."""
    meta: dict[str, object] = {"name": suite.meta.name}
    metric = suite.meta.metric
    meta["metric"] = list(metric) if isinstance(metric, tuple) else metric
    meta.update(suite.meta.extra)
    return {
        "meta": meta,
        "region_meta": {str(i): name for i, name in enumerate(suite.region_names, start=1)},
        # suite-level predictions after the item ones, so that an item prediction's index is its place in the file
        "predictions": [prediction_to_dict(p) for p in (*suite.predictions, *suite.suite_predictions)],
        "items": [
            {
                "item_number": item.number,
                "conditions": [
                    {
                        "condition_name": condition.name,
                        "regions": [
                            {"region_number": region.number, "content": region.content}
                            for region in condition.regions
                        ],
                    }
                    for condition in item.conditions
                ],
            }
            for item in suite.items
        ],
    }


def prediction_to_dict(prediction: Prediction) -> dict[str, object]:
    """A prediction in the canonical dialect: its formula, and its own tolerance where it has one."""
    data: dict[str, object] = {"type": "formula", "formula": prediction.formula}
    for name in ("atol", "rtol"):
        if (value := getattr(prediction, name)) is not None:
            data[name] = int(value) if value.is_integer() else value  # whole numbers as integers, as the schema asks
    return data


# a region's metric values (None: not scored) and unknown words
RegionValues = Callable[[Item, Condition, Region], tuple[Mapping[str, float] | None, Sequence[str]]]


def _own_values(item: Item, condition: Condition, region: Region) -> tuple[Mapping[str, float] | None, Sequence[str]]:
    return region.values, region.oovs


def scored_suite_to_dict(suite: Suite, *, metric: str, model: str | None = None,
                         values: RegionValues = _own_values) -> dict:
    """A scored suite as syntaxgym-core writes one after scoring and reads one to evaluate it: every region carries
    ``metric_value`` (bits; null where undefined) and ``oovs``. ``meta.metric`` is the one metric predictions are
    evaluated on (syntaxgym-core takes a single name there: a list fails in its loader), ``meta.metrics`` every
    metric ``metric_value`` holds, ``meta.model`` the model. ``read_suite`` reads it back, values included.
    ``values(item, condition, region)``: a region's values and unknown words (default: the region's own; a run's
    results pass theirs, so that no scored copy of the suite is built first)."""
    data = suite_to_dict(suite)
    metrics: dict[str, None] = {}  # every metric of any region, in first-seen order
    for item_data, item in zip(data["items"], suite.items, strict=True):
        for condition_data, condition in zip(item_data["conditions"], item.conditions, strict=True):
            for region_data, region in zip(condition_data["regions"], condition.regions, strict=True):
                region_values, oovs = values(item, condition, region)
                if region_values is None:
                    raise ValueError(f"item {item.number}, condition {condition.name!r}, region {region.number} "
                                     "has no values: only a scored suite is written this way")
                region_data["metric_value"] = {m: None if math.isnan(v) else v for m, v in region_values.items()}
                region_data["oovs"] = list(oovs)
                metrics.update(dict.fromkeys(region_values))
    data["meta"]["metric"] = metric
    data["meta"]["metrics"] = list(metrics)
    if model is not None:
        data["meta"]["model"] = model
    return data


def suite_to_json(suite: Suite) -> str:
    # allow_nan=False: a non-finite number would be written as Infinity or NaN, which JSON readers refuse
    return json.dumps(suite_to_dict(suite), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def save_suite(suite: Suite, path: str | Path) -> None:
    """Write the canonical form atomically (a temporary file, then a rename)."""
    atomic_write_text(path, suite_to_json(suite))
