"""Suite files that must be refused with a located problem, never an internal error (issue 17).

Each case is (id, JSON text, location, part of the message). Before the fix every one of them was either
accepted by ``validate`` and crashed ``run`` or ``upgrade`` later, or crashed ``validate`` itself.
"""

from __future__ import annotations

import json

from tests.conftest import minimal_suite


def _suite(change) -> str:
    data = minimal_suite()
    change(data)
    return json.dumps(data)


def _set(path: str, value: object):
    """A change that sets the value at a dotted path ('items.0.item_number') of the minimal suite."""
    *parents, last = path.split(".")

    def change(data: dict) -> None:
        for part in parents:
            data = data[int(part)] if isinstance(data, list) else data[part]
        data[int(last) if isinstance(data, list) else last] = value

    return change


def _raw(old: str, new: str) -> str:
    """The minimal suite's JSON text with ``old`` replaced once (for what json.dumps cannot write)."""
    text = json.dumps(minimal_suite())
    assert text.count(old) >= 1, old
    return text.replace(old, new, 1)


def _formula(text: str) -> str:
    return _suite(_set("predictions.0.formula", text))


def _website(region: object) -> str:
    prediction = {"region_number": region, "l_operand": "mismatch", "relation": "greaterthan", "r_operand": "match"}
    return _suite(_set("predictions", [prediction]))


def _rename_condition(name: str):
    def change(data: dict) -> None:
        for item in data["items"]:
            item["conditions"][0]["condition_name"] = name
        data["predictions"] = []

    return change


REGION = "items[0].conditions[0].regions[0]"
META_X = '"metric": "sum"'

CASES: list[tuple[str, str, str, str]] = [
    # a float where a whole number is meant: JSON Schema calls 1.0 an integer, run then indexed tuples with it
    ("float-region-number", _suite(_set("items.0.conditions.0.regions.0.region_number", 1.0)),
     f"{REGION}.region_number", "expected an integer, found the number 1.0"),
    ("float-item-number", _suite(_set("items.0.item_number", 1.0)), "items[0].item_number",
     "expected an integer, found the number 1.0"),
    ("float-website-region", _website(2.0), "predictions[0].region_number", "expected an integer"),
    ("fraction-website-region", _website(1.5), "predictions[0].region_number", "expected an integer"),
    ("huge-item-number", _suite(_set("items.0.item_number", 2**53)), "items[0].item_number", "must be at most"),
    # names that become file names and table headings
    ("long-suite-name", _suite(_set("meta.name", "x" * 10_000)), "meta.name", "is 10000 characters long"),
    ("long-condition-name", _suite(_rename_condition("c" * 10_000)), "items[0].conditions[0].condition_name",
     "is 10000 characters long"),
    ("long-region-name", _suite(_set("region_meta.1", "r" * 10_000)), "region_meta.1", "is 10000 characters long"),
    ("escape-in-suite-name", _suite(_set("meta.name", "a\x1b[31mb")), "meta.name",
     "holds the control character U+001B at position 2"),
    ("newline-in-condition-name", _suite(_rename_condition("a\nb")), "items[0].conditions[0].condition_name",
     "holds the control character U+000A"),
    ("c1-control-in-region-name", _suite(_set("region_meta.2", "v\x9b")), "region_meta.2",
     "holds the control character U+009B"),
    ("percent-in-condition-name", _suite(_rename_condition("a%b")), "items[0].conditions[0].condition_name",
     "holds '%' at position 2"),
    # text that cannot be written as UTF-8 (or stored: NUL)
    ("surrogate-in-name", _raw('"tiny"', '"ti\\ud800ny"'), "meta.name", "lone surrogate (\\ud800"),
    ("surrogate-in-content", _raw('"The boy"', '"The \\udc00boy"'), f"{REGION}.content", "lone surrogate"),
    ("surrogate-in-key", _raw(META_X, META_X + ', "k\\udfff": 1'), "meta", "the key 'k\\udfff' holds a lone"),
    ("nul-in-content", _raw('"The boy"', '"The\\u0000boy"'), f"{REGION}.content", "holds a NUL character"),
    # numbers that do not round-trip
    ("1e999", _raw(META_X, META_X + ', "x": 1e999'), "meta.x", "the number 1e999 is too large"),
    ("-1e999-in-list", _raw(META_X, META_X + ', "x": [0, -1e999]'), "meta.x[1]", "is too large"),
    ("NaN", _raw(META_X, META_X + ', "x": NaN'), "meta.x", "NaN is not a JSON number"),
    ("Infinity", _raw(META_X, META_X + ', "x": Infinity'), "meta.x", "Infinity is not a JSON number"),
    ("-Infinity", _raw(META_X, META_X + ', "x": -Infinity'), "meta.x", "-Infinity is not a JSON number"),
    ("5000-digit-item-number", _raw('"item_number": 1', '"item_number": ' + "7" * 5000), "items[0].item_number",
     "an integer of 5000 digits"),
    ("5000-digit-integer-in-meta", _raw(META_X, META_X + ', "x": -' + "7" * 5000), "meta.x",
     "an integer of 5000 digits"),
    # nesting that exhausted the stack (RecursionError in json or the schema validator)
    ("5000-nested-arrays", "[" * 5000 + "]" * 5000, "line 1, column 65", "nest more than 64 levels deep"),
    ("5000-nested-in-meta", _raw(META_X, META_X + ', "x": ' + "[" * 5000 + "]" * 5000), "line 1, column",
     "nest more than 64 levels deep"),
    ("5000-nested-objects", '{"a":' * 5000 + "1" + "}" * 5000, "line 1, column 321", "nest more than 64"),
    ("65-nested", _raw(META_X, META_X + ', "x": ' + "[" * 63 + "]" * 63), "line 1, column", "more than 64"),
    # keys that say the same thing twice
    ("repeated-key", _raw('"name": "tiny"', '"name": "tiny", "name": "other"'), "meta",
     "the key 'name' is given more than once"),
    ("region-keys-1-and-01", _suite(_set("region_meta", {"1": "a", "01": "b", "2": "v", "3": "r"})),
     "region_meta.01", "keys '1' and '01' both name region 1"),
    ("5000-digit-region-key", _suite(_set("region_meta", {"1": "a", "2": "v", "3": "r", "9" * 5000: "x"})),
     "region_meta." + "9" * 40 + "...", "is too large"),
    ("region-key-with-newline", _suite(_set("region_meta", {"1": "a", "2\n": "v", "3": "r"})), "region_meta['2\\n']",
     "region_meta keys are region numbers"),
    # formulas: nesting, size, numbers that print as 'inf', digits that are not ASCII
    ("formula-5000-parentheses", _formula("(" * 5000 + "(2;%match%) > 1" + ")" * 5000), "predictions[0].formula",
     "longer than 10000 characters"),
    ("formula-60-parentheses", _formula("(" * 60 + "(2;%match%) > 1" + ")" * 60), "predictions[0].formula",
     "nested more than 50 levels deep"),
    ("formula-5000-minus", _formula("-" * 5000 + "(2;%match%) > 1"), "predictions[0].formula",
     "nested more than 50 levels deep"),
    ("formula-150-terms", _formula(" + ".join(["1"] * 150) + " > (2;%match%)"), "predictions[0].formula",
     "more than 100 operators"),
    ("formula-1e999", _formula("(2;%match%) > 1e999"), "predictions[0].formula", "number too large"),
    ("formula-5000-digits", _formula("(2;%match%) > " + "9" * 5000), "predictions[0].formula", "number too large"),
    ("formula-5000-digit-region", _formula("(" + "2" * 5000 + ";%match%) > 1"), "predictions[0].formula",
     "is too large"),
    ("formula-arabic-digit", _formula("(2;%match%) > \u0661"), "predictions[0].formula", "unexpected character"),
]
