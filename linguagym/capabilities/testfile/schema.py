"""The capability-test file's JSON Schema (shipped as ``capability-tests.schema.json``) and the check every file
passes before it is read or after it is made: strict JSON values, the schema, unique test ids."""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

from linguagym.capabilities.errors import CapabilityError
from linguagym.printable import printable
from linguagym.strict_json import data_problems, json_path


@lru_cache(maxsize=1)
def schema() -> dict:
    text = (resources.files("linguagym.capabilities.testfile") / "capability-tests.schema.json").read_text("utf-8")
    return json.loads(text)


def _unreadable_values(document: Any) -> list[str]:
    """What Python's JSON reader accepts but a test file cannot hold, each with its path (see ``strict_json``):
    non-finite or huge numbers, repeated keys, NUL characters, lone surrogates, nesting beyond MAX_DEPTH."""
    return [f"{printable(problem.location) or '(top)'}: {problem.message}" for problem in data_problems(document)[:10]]


def validate_document(document: Any, source: str = "<tests>") -> None:
    """Raise CapabilityError listing (up to 10) unreadable values, schema violations and duplicate test ids."""
    import jsonschema

    unreadable = _unreadable_values(document)
    if unreadable:
        raise CapabilityError(f"{source}: not a valid capability-test file\n  " + "\n  ".join(unreadable),
                              hint="files are written by `linguagym lct generate`, as UTF-8 JSON")
    validator = jsonschema.Draft202012Validator(schema())
    errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
    problems = [f"{printable(json_path(e.absolute_path)) or '(top)'}: {e.message}" for e in errors[:10]]
    if not errors and isinstance(document, dict):
        seen: set[str] = set()
        for i, test in enumerate(document["tests"]):
            if test["id"] in seen:
                problems.append(f"tests[{i}].id: duplicate id {test['id']!r}")
            seen.add(test["id"])
    if problems:
        more = f" (first 10 of {len(errors)})" if len(errors) > 10 else ""
        raise CapabilityError(f"{source}: not a valid capability-test file{more}\n  " + "\n  ".join(problems),
                              hint="files are written by `linguagym lct generate`; the schema is "
                              "linguagym/capabilities/testfile/capability-tests.schema.json")
