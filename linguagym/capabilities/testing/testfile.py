"""The capability-test file: one JSON document per generated suite, with a JSON schema
(``schema/capability-tests.schema.json``). It records how it was made (tool version, dataset and its hash,
lexicon, tagger, seed, cap, spec hashes) and holds the tests, each ``{id, capability, text, expected, kind,
provenance}``.

This module reads and writes it: a file becomes a ``testfile_model.CapabilityTestFile`` only after the strict-JSON
and schema checks (``validate_document``), and is written from one, checked again, byte for byte as read.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from linguagym.atomic import atomic_write_text
from linguagym.capabilities.errors import CapabilityError
from linguagym.capabilities.testing.testfile_model import FORMAT, VERSION, CapabilityTestFile, require_test_file
from linguagym.printable import printable
from linguagym.strict_json import data_problems, decode_json, json_path, nesting_problem
from linguagym.userfiles import MAX_TEXT_BYTES, RefusedFile, read_regular_text

__all__ = ["FORMAT", "VERSION", "load_document", "parse_tests", "read_tests", "schema", "validate_document",
           "write_tests"]


@lru_cache(maxsize=1)
def schema() -> dict:
    folder = resources.files("linguagym.capabilities.testing") / "schema"
    text = (folder / "capability-tests.schema.json").read_text("utf-8")
    return json.loads(text)


def parse_tests(text: str, source: str = "<tests>") -> CapabilityTestFile:
    """The test file whose JSON is ``text``, validated; CapabilityError saying where when it is not one."""
    deep = nesting_problem(text)
    if deep is not None:
        raise CapabilityError(f"{source}, {deep.location}: not a valid capability-test file: {deep.message}")
    try:
        document = decode_json(text)
    except json.JSONDecodeError as error:
        raise CapabilityError(f"{source}, line {error.lineno}, column {error.colno}: not JSON ({error.msg})") from None
    return load_document(document, source)


def load_document(document: Any, source: str = "<tests>") -> CapabilityTestFile:
    """The test file ``document`` (JSON data, as ``json.load`` gives it) holds, validated (``validate_document``)."""
    validate_document(document, source)
    return CapabilityTestFile.from_json(document)


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
                              "linguagym/capabilities/schema/capability-tests.schema.json")


def write_tests(document: CapabilityTestFile, path: str | Path) -> None:
    """Write the test file ``document`` to ``path`` (whole or not at all) after checking it as ``read_tests``
    would."""
    data = require_test_file(document, "write_tests").to_json()
    validate_document(data, str(path))
    atomic_write_text(path, json.dumps(data, indent=1, ensure_ascii=False) + "\n")


def read_tests(path: str | Path) -> CapabilityTestFile:
    path = Path(path)
    try:
        text = read_regular_text(path, limit=MAX_TEXT_BYTES, what="test file")
    except RefusedFile as refused:
        if refused.missing:
            raise CapabilityError(f"test file {path} does not exist") from None
        raise CapabilityError(f"cannot read test file {path}: {refused.problem}", hint=refused.hint) from None
    return parse_tests(text, str(path))
