from __future__ import annotations

import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO.parent / "shared" / "data"
SUITES_DIR = SHARED_DATA / "syntaxgym" / "suites"
MASTER_SUITES_DIR = SHARED_DATA / "syntaxgym" / "suites-master"


def real_suite_paths(directory: Path = SUITES_DIR) -> list[Path]:
    return sorted(directory.glob("*.json"))


@pytest.fixture
def shared_data() -> Path:
    if not SUITES_DIR.is_dir():
        pytest.skip(f"the project's shared data is not beside the checkout ({SHARED_DATA})")
    return SHARED_DATA


def minimal_suite(**overrides) -> dict:
    """A small valid suite (formula dialect) as JSON data, for tests to break on purpose."""
    suite = {
        "meta": {"name": "tiny", "metric": "sum"},
        "region_meta": {"1": "subject", "2": "verb", "3": "rest"},
        "predictions": [{"type": "formula", "formula": "(2;%mismatch%) > (2;%match%)"}],
        "items": [
            {
                "item_number": number,
                "conditions": [
                    {"condition_name": name, "regions": [
                        {"region_number": 1, "content": "The boy"},
                        {"region_number": 2, "content": verb},
                        {"region_number": 3, "content": "today."},
                    ]}
                    for name, verb in (("match", "swims"), ("mismatch", "swim"))
                ],
            }
            for number in (1, 2)
        ],
    }
    suite.update(overrides)
    return suite


@pytest.fixture
def write_suite(tmp_path):
    def write(data, name: str = "suite.json") -> Path:
        path = tmp_path / name
        path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
        return path

    return write
