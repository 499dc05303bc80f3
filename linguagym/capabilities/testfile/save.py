"""Writing a capability-test file: checked as a reader would check it, then written whole or not at all, byte for
byte as it was read."""

from __future__ import annotations

import json
from pathlib import Path

from linguagym.atomic import atomic_write_text
from linguagym.capabilities.testfile.model import CapabilityTestFile, require_test_file
from linguagym.capabilities.testfile.schema import validate_document


def tests_text(document: CapabilityTestFile, source: str = "<tests>") -> str:
    """The file's text as ``write_tests`` writes it, after checking it as ``read_tests`` would."""
    data = require_test_file(document, "write_tests").to_json()
    validate_document(data, source)
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def write_tests(document: CapabilityTestFile, path: str | Path) -> None:
    """Write the test file ``document`` to ``path`` (whole or not at all) after checking it as ``read_tests``
    would."""
    atomic_write_text(path, tests_text(document, str(path)))
