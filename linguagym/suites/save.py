"""Writing suites in the canonical dialect (formula predictions), the output of ``upgrade``."""

from __future__ import annotations

import json
from pathlib import Path

from linguagym.atomic import atomic_write_text
from linguagym.suites.model import Suite


def suite_to_dict(suite: Suite) -> dict:
    """The canonical JSON structure of a suite; loading it back gives an equal Suite."""
    meta: dict[str, object] = {"name": suite.meta.name}
    metric = suite.meta.metric
    meta["metric"] = list(metric) if isinstance(metric, tuple) else metric
    meta.update(suite.meta.extra)
    return {
        "meta": meta,
        "region_meta": {str(i): name for i, name in enumerate(suite.region_names, start=1)},
        "predictions": [{"type": "formula", "formula": p.formula} for p in suite.predictions],
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


def suite_to_json(suite: Suite) -> str:
    # allow_nan=False: a non-finite number would be written as Infinity or NaN, which JSON readers refuse
    return json.dumps(suite_to_dict(suite), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def save_suite(suite: Suite, path: str | Path) -> None:
    """Write the canonical form atomically (a temporary file, then a rename)."""
    atomic_write_text(path, suite_to_json(suite))
