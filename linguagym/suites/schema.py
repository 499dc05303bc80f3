"""The suite JSON Schema (shipped as suite.schema.json) and readable messages for its violations."""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources

from linguagym.errors import Problem
from linguagym.strict_json import json_path
from linguagym.suites.metrics import METRIC_NAMES

_JSON_TYPES = {
    "object": "an object", "array": "an array", "string": "a string", "integer": "an integer",
    "number": "a number", "boolean": "true or false", "null": "null",
}


@cache
def suite_schema() -> dict:
    """The JSON Schema of the suite format (both dialects accepted; formulas are canonical)."""
    return json.loads(resources.files("linguagym.suites").joinpath("suite.schema.json").read_text("utf-8"))


def _is_integer(checker, instance: object) -> bool:
    return isinstance(instance, int) and not isinstance(instance, bool)


@cache
def _validator():
    from jsonschema import Draft202012Validator, validators

    # JSON Schema counts 1.0 as an integer; a suite may not: a region numbered 1.0 would index tuples and be
    # written back as 1.0, so whole numbers are written as integers
    checker = Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_integer)
    return validators.extend(Draft202012Validator, type_checker=checker)(suite_schema())


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
        value = error.instance
        if wanted == "integer" and isinstance(value, float) and value.is_integer():
            return where, f"expected an integer, found the number {value!r}; write {int(value)}"
        wanted = " or ".join(_JSON_TYPES.get(t) or str(t) for t in wanted) if isinstance(wanted, list) \
            else _JSON_TYPES.get(wanted, wanted)
        return where, f"expected {wanted}, found {_describe(value)}"
    if validator == "anyOf" and path and path[0] == "predictions":
        if isinstance(error.instance, dict) and error.context:
            # the branch its keys show it meant; say what is wrong in that one
            branch = 0 if "formula" in error.instance or "type" in error.instance else 1
            meant = [e for e in error.context if e.relative_schema_path[0] == branch]
            if meant and (branch == 0 or "l_operand" in error.instance or "r_operand" in error.instance):
                return _message(meant[0])
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
    if validator == "maxLength":  # only names have one
        return where, (f"is {len(error.instance)} characters long; names have at most {error.validator_value} "
                       "(they become file names and table headings)")
    if validator == "not" and isinstance(error.instance, str):  # only names have one: characters they may not hold
        found = re.search(error.validator_value["pattern"], error.instance)
        assert found is not None  # the "not" failed, so its pattern matches
        char, position = found.group(), found.start() + 1
        if char == "%":
            return where, f"holds '%' at position {position}; formulas write condition names between two '%'"
        return where, (f"holds the control character U+{ord(char):04X} at position {position}; names are one line "
                       "of printable text")
    if validator == "minimum":
        return where, f"must be at least {error.validator_value}, found {error.instance}"
    if validator == "maximum":
        return where, f"must be at most {error.validator_value}, found {error.instance}"
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
