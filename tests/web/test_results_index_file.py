"""The results index file each finished run's folder keeps (``results_index.INDEX_FILE``): a server just started reads
it instead of parsing every model's items.csv, and parses again whatever changed since it was written."""

from __future__ import annotations

import csv
import json
import os

import pytest

from linguagym.web.results import index as results_index
from linguagym.web.results.index import INDEX_FILE, _read_folder


def _write_model(folder, name: str, outcomes: dict[str, list[bool]], limit=None) -> None:
    out = folder / name
    out.mkdir(parents=True, exist_ok=True)
    record = {"label": name, "settings": {"model": f"lab/{name}", "policy": "all", "limit": limit},
              "suites": [{"name": suite, "metric": "sum"} for suite in outcomes]}
    (out / "run.json").write_text(json.dumps(record), encoding="utf-8")
    with (out / "items.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["model", "suite", "item", "correct", "correct_all"])
        for suite, values in outcomes.items():
            writer.writerows([name, suite, i + 1, ok, ok] for i, ok in enumerate(values))


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.setattr(results_index, "_FOLDERS", type(results_index._FOLDERS)())  # nothing read in this process
    root = tmp_path / "results"
    _write_model(root, "a", {"agr": [True, False, True], "npi": [False]})
    _write_model(root, "b", {"agr": [True, True, True]}, limit=2)
    return root


def _restart(monkeypatch) -> None:
    """As a server just started: nothing kept in memory."""
    monkeypatch.setattr(results_index, "_FOLDERS", type(results_index._FOLDERS)())


def _refuse_parsing(monkeypatch) -> None:
    def parse(directory):
        raise AssertionError(f"{directory} was parsed, not read from its index file")

    monkeypatch.setattr(results_index, "_parse_folder", parse)


def test_a_restarted_server_reads_the_index_file_instead_of_items_csv(folder, monkeypatch):
    parsed = _read_folder(folder)
    assert {(r.model, r.suite, r.all_hold, r.limited) for r in parsed} == {
        ("lab/a", "agr", (True, False, True), False), ("lab/a", "npi", (False,), False),
        ("lab/b", "agr", (True, True, True), True)}
    assert (folder / INDEX_FILE).is_file()
    _restart(monkeypatch)
    _refuse_parsing(monkeypatch)
    assert _read_folder(folder) == parsed  # the same results, from the index file


def test_a_changed_or_broken_index_is_parsed_again(folder, monkeypatch):
    _read_folder(folder)
    _restart(monkeypatch)
    _write_model(folder, "a", {"agr": [False, False, False]})  # a run resumed: model a's files rewritten
    stat = (folder / "a" / "items.csv").stat()
    os.utime(folder / "a" / "items.csv", ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    again = _read_folder(folder)
    assert {r.all_hold for r in again if r.model == "lab/a"} == {(False, False, False)}
    _restart(monkeypatch)
    (folder / INDEX_FILE).write_text("{not json", encoding="utf-8")
    assert _read_folder(folder) == again  # parsed again, and the index file mended
    _restart(monkeypatch)
    _refuse_parsing(monkeypatch)
    assert _read_folder(folder) == again


def test_an_unwritable_folder_is_still_read(folder, monkeypatch):
    def refuse(path, text):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(results_index, "atomic_write_text", refuse)
    assert len(_read_folder(folder)) == 3 and not (folder / INDEX_FILE).exists()
