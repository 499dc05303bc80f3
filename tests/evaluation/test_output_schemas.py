"""run.json and the results file validate against the schemas the package ships (a real run on the tiny model),
and a file that breaks them is caught (the control)."""

from __future__ import annotations

import copy
import json
import tomllib
from pathlib import Path

import pytest

from linguagym.output_schemas import SCHEMAS, output_problems, output_schema

REPO = Path(__file__).resolve().parents[2]


def _written(first_cli_run) -> tuple[dict, dict]:
    done, _, out = first_cli_run
    assert done.returncode == 0, done.stderr[-2000:]
    (run,) = out.glob("*/run.json")
    (results,) = run.parent.glob("results_*.json")
    return json.loads(run.read_text(encoding="utf-8")), json.loads(results.read_text(encoding="utf-8"))


def test_a_real_run_writes_files_that_validate(first_cli_run):
    run, results = _written(first_cli_run)
    assert output_problems("run", run) == []
    assert output_problems("results", results) == []
    assert len(run["suites"]) == 3 and len(results["results"]) >= 3  # the control: the files are the run's


def test_files_that_break_the_schemas_are_caught(first_cli_run):
    run, results = _written(first_cli_run)
    broken = copy.deepcopy(run)
    broken["suites"][0]["accuracy"] = 1.5
    del broken["counts"]
    problems = output_problems("run", broken)
    assert any(p.startswith("suites/0/accuracy:") for p in problems)
    assert any("'counts' is a required property" in p for p in problems)
    bad = copy.deepcopy(results)
    next(iter(bad["results"].values()))["acc,none"] = "high"
    assert len(output_problems("results", bad)) == 1


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_the_schemas_are_valid_shipped_and_documented(name):
    from jsonschema import Draft202012Validator

    schema = output_schema(name)
    Draft202012Validator.check_schema(schema)
    assert "$id" not in schema  # no host serves them: an $id would name a URL that does not exist
    package_data = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    assert "data/schemas/*.json" in package_data["package-data"]["linguagym"]
    assert SCHEMAS[name] in (REPO / "docs" / "output-schemas.md").read_text(encoding="utf-8")


def test_no_shipped_schema_names_a_host_that_does_not_exist():
    for path in (REPO / "linguagym").rglob("*.json"):
        text = path.read_text(encoding="utf-8")
        if '"$schema"' in text:
            assert ".invalid" not in text, path
