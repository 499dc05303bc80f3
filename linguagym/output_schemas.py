"""The JSON Schemas of the files a run writes, shipped in the package (``linguagym/data/schemas``): ``run`` for each
model's ``run.json``, ``results`` for its ``results_<time>.json`` (lm-evaluation-harness's layout). They say which
keys are always there and their types; later versions may add keys (the schemas allow them). docs/output-schemas.md.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

SCHEMAS = {"run": "run.schema.json", "results": "results.schema.json"}


def output_schema(name: str) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of the output file ``name`` (``run`` or ``results``)."""
    if name not in SCHEMAS:
        raise ValueError(f"no schema {name!r}; there are {', '.join(SCHEMAS)}")
    return json.loads(resources.files("linguagym").joinpath("data", "schemas", SCHEMAS[name]).read_text("utf-8"))


def output_problems(name: str, data: Any) -> list[str]:
    """Where ``data`` (a parsed ``run.json`` or results file) breaks schema ``name``, one line each; empty: valid."""
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(output_schema(name))
    return [f"{'/'.join(map(str, error.absolute_path)) or '(top level)'}: {error.message}"
            for error in sorted(validator.iter_errors(data), key=lambda e: list(map(str, e.absolute_path)))]
