"""Reading a capability-test file: text or JSON data becomes a ``model.CapabilityTestFile`` only after the
strict-JSON and schema checks (``schema.validate_document``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from linguagym.capabilities.errors import CapabilityError
from linguagym.capabilities.testfile.model import CapabilityTestFile
from linguagym.capabilities.testfile.schema import validate_document
from linguagym.strict_json import decode_json, nesting_problem
from linguagym.userfiles import MAX_TEXT_BYTES, RefusedFile, read_regular_text


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


def read_tests(path: str | Path) -> CapabilityTestFile:
    path = Path(path)
    try:
        text = read_regular_text(path, limit=MAX_TEXT_BYTES, what="test file")
    except RefusedFile as refused:
        if refused.missing:
            raise CapabilityError(f"test file {path} does not exist") from None
        raise CapabilityError(f"cannot read test file {path}: {refused.problem}", hint=refused.hint) from None
    return parse_tests(text, str(path))


def tests_of(tests: CapabilityTestFile | str | Path) -> CapabilityTestFile:
    """``tests`` itself when it is a test file, else the file read from the path ``tests``."""
    return tests if isinstance(tests, CapabilityTestFile) else read_tests(tests)
