"""A suite text that passed the schema is not checked against it again; anything else is, every time."""

from __future__ import annotations

from pathlib import Path

import pytest

from linguagym.errors import SuiteError
from linguagym.suites import load
from linguagym.suites.schema_memo import MEMO_DIR
from tests.conftest import minimal_suite


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LINGUAGYM_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _schema_calls(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    calls: list[object] = []
    real = load.schema_problems

    def counted(data: object):
        calls.append(data)
        return real(data)

    monkeypatch.setattr(load, "schema_problems", counted)
    return calls


def test_a_valid_text_is_checked_once(cache: Path, write_suite, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _schema_calls(monkeypatch)
    path = write_suite(minimal_suite())
    first = load.read_suite(path)
    second = load.read_suite(path)
    assert len(calls) == 1
    assert first == second
    assert len(list((cache / MEMO_DIR).iterdir())) == 1
    # another text (one byte more) is checked again
    path.write_text(path.read_text() + " ", encoding="utf-8")
    load.read_suite(path)
    assert len(calls) == 2


def test_an_invalid_text_is_never_remembered(cache: Path, write_suite, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _schema_calls(monkeypatch)
    path = write_suite(minimal_suite(predictions="not a list"))
    for _ in range(2):
        with pytest.raises(SuiteError, match="predictions"):
            load.read_suite(path)
    assert len(calls) == 2
    assert not (cache / MEMO_DIR).exists()
    # nor one that passes the schema but fails the checks after it
    bad = minimal_suite()
    bad["predictions"] = [{"type": "formula", "formula": "(9;%match%) > (2;%mismatch%)"}]
    path = write_suite(bad, "bad.json")
    for _ in range(2):
        with pytest.raises(SuiteError):
            load.read_suite(path)
    assert not (cache / MEMO_DIR).exists()


def test_an_unwritable_cache_only_costs_the_check(tmp_path: Path, write_suite,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("LINGUAGYM_CACHE_DIR", str(blocker))
    calls = _schema_calls(monkeypatch)
    path = write_suite(minimal_suite())
    assert load.read_suite(path) == load.read_suite(path)
    assert len(calls) == 2
