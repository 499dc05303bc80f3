"""The suite JSON Schema (shipped as suite.schema.json) and readable messages for its violations."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

from linguagym.errors import Problem
from linguagym.suites.metrics import METRIC_NAMES

_JSON_TYPES = {
    "object": "an object", "array": "an array", "string": "a string", "integer": "an integer",
    "number": "a number", "boolean": "true or false", "null": "null",
}


@cache
def suite_schema() -> dict:
    """The JSON Schema of the suite format (both dialects accepted; formulas are canonical)."""
    return json.loads(resources.files("linguagym.suites").joinpath("suite.schema.json").read_text("utf-8"))


@cache
def _validator():
    from jsonschema import Draft202012Validator

    return Draft202012Validator(suite_schema())


def json_path(parts) -> str:
    """['items', 3, 'conditions', 1] -> 'items[3].conditions[1]'."""
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _describe(value: object) -> str:
    kind = {dict: "an object", list: "an array", str: "a string", bool: "true/false", type(None): "null"}
    if isinstance(value, bool | type(None) | dict | list):
        return kind[type(value)]
    if isinstance(value, int | float):
        return f"the number {value!r}"
    return f"{kind.get(type(value), type(value).__name__)} ({value!r})"


def _message(error) -> tuple[str, str]:
    """(location, message) for one jsonschema error, in the words of this format."""
    path = list(error.absolute_path)
    where = json_path(path)
    validator = error.validator
    if validator == "required":
        missing = [key for key in error.validator_value if key not in error.instance]
        key = missing[0] if missing else "?"
        location = f"{where}.{key}" if where else key
        hint = {
            "predictions": ' (use "predictions": [] for a suite without predictions)',
            "name": " (every suite needs a name)",
            "metric": "",
        }.get(key, "")
        return location, f"missing required key {key!r}{hint}"
    if path and path[-1] == "metric" or (len(path) >= 2 and path[-2] == "metric"):
        value = error.instance
        if isinstance(value, list):  # point at the first bad entry of a metric list
            bad = [i for i, entry in enumerate(value) if entry not in METRIC_NAMES]
            if bad:
                where, value = f"{where}[{bad[0]}]", value[bad[0]]
            elif not value:
                return where, 'the metric list is empty; name at least one metric, or use "all"'
            elif len(set(value)) < len(value):
                return where, "a metric is listed twice"
        return where, (f"unknown metric {value!r}; use one of {', '.join(METRIC_NAMES)}, "
                       'a list of them, or "all"')
    if validator == "type":
        wanted = error.validator_value
        wanted = " or ".join(_JSON_TYPES.get(t, t) for t in wanted) if isinstance(wanted, list) \
            else _JSON_TYPES.get(wanted, wanted)
        return where, f"expected {wanted}, found {_describe(error.instance)}"
    if validator == "anyOf" and path and path[0] == "predictions":
        return where, ('a prediction is {"type": "formula", "formula": "..."} or '
                       '{"region_number": N, "l_operand": C, "relation": "lessthan|equals|greaterthan", '
                       f'"r_operand": C}}; found {json.dumps(error.instance)[:120]}')
    if validator == "enum":
        return where, f"{error.instance!r} is not one of {', '.join(map(repr, error.validator_value))}"
    if validator == "propertyNames":
        return where, f"region_meta keys are region numbers (\"1\", \"2\", ...); found {error.instance!r}"
    if validator in ("minItems", "minProperties"):
        return where, "must not be empty"
    if validator == "minLength":
        return where, "must not be an empty string"
    return where, error.message


def schema_problems(data: object) -> list[Problem]:
    """Every schema violation in decoded suite JSON, as located problems (empty when valid)."""
    problems = []
    seen = set()
    for error in sorted(_validator().iter_errors(data), key=lambda e: list(map(str, e.absolute_path))):
        where, message = _message(error)
        if (where, message) not in seen:
            seen.add((where, message))
            problems.append(Problem(where, message))
    return problems
