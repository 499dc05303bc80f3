"""A suite with more sentences than one chunk of the score cache (256 texts), for tests that stop a run part-way."""

from __future__ import annotations

import json
from pathlib import Path

from linguagym.scoring.engine.order import CHUNK
from tests.conftest import minimal_suite

ITEMS = 200  # two conditions each: 400 unique sentences, two chunks (256 + 144)


def long_suite(items: int = ITEMS) -> dict:
    """``minimal_suite`` with ``items`` items whose sentences all differ."""
    suite = minimal_suite()
    suite["meta"]["name"] = "long"
    suite["items"] = [
        {"item_number": n, "conditions": [
            {"condition_name": name, "regions": [
                {"region_number": 1, "content": f"The boy number {n}"},
                {"region_number": 2, "content": verb},
                {"region_number": 3, "content": "today."},
            ]} for name, verb in (("match", "swims"), ("mismatch", "swim"))]}
        for n in range(1, items + 1)
    ]
    assert 2 * items > CHUNK, "the suite must need more than one chunk"
    return suite


def write_long_suite(directory: Path, items: int = ITEMS) -> Path:
    path = directory / "long.json"
    path.write_text(json.dumps(long_suite(items)), encoding="utf-8")
    return path
