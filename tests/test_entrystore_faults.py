"""Score and prediction caches never lose good data and never stop the tool (issue 17).

A damaged file (garbage in its middle) is rebuilt from the entries that can still be read and set aside with a
warning naming it and where it went; a full disk, a read-only file or directory, a lock or an I/O error leaves
the file exactly as it is, with a warning that new results are not being saved, and the run goes on.
"""

from __future__ import annotations

import errno
import hashlib
import json
import logging
import os
import random
import re
import sqlite3
from pathlib import Path

import pytest

from linguagym import sqlite_repair
from linguagym.capabilities.classifiers.cache import CachedClassifier
from linguagym.executors.shards import CacheWriter
from linguagym.scoring.cache import CachedScorer
from tests.capabilities.lct_fakes import KeywordClassifier, document
from tests.evaluation.fakes import WordScorer

TEXTS = [f"The farmer number {i} that the clerks near the cabinet liked knows the answer." for i in range(600)]
PAGE = 4096  # SQLite's default page size, which the caches use


@pytest.fixture
def warnings(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.WARNING, logger="linguagym")
    return caplog


def filled_score_cache(cache: Path, texts: list[str] = TEXTS) -> Path:
    scorer = CachedScorer(WordScorer(), cache)
    scorer.score(texts)
    scorer.close()
    return scorer.path


def garble(path: Path, offset: int, pages: int = 3, seed: int = 0) -> None:
    """Overwrite ``pages`` pages of ``path`` from the page holding ``offset`` with random bytes."""
    with open(path, "r+b") as handle:
        handle.seek(offset // PAGE * PAGE)
        handle.write(random.Random(seed).randbytes(pages * PAGE))


def snapshot(directory: Path) -> dict[str, str]:
    """Every file under ``directory`` with the sha256 of its bytes (SQLite's -shm index excluded)."""
    return {str(p.relative_to(directory)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(directory.rglob("*")) if p.is_file() and not p.name.endswith("-shm")}


def environment_error(message: str, code: int) -> sqlite3.OperationalError:
    error = sqlite3.OperationalError(message)
    error.sqlite_errorcode = code  # as SQLite itself reports it
    return error


def warning_texts(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage() for record in caplog.records if record.levelno >= logging.WARNING]


# Damage: set aside, rebuilt from what can still be read, recomputed; the next run is quiet.

@pytest.mark.parametrize("where", [0.25, 0.5, 0.9])
def test_garbage_in_the_middle_of_a_score_cache_is_set_aside_and_rebuilt(tmp_path, warnings, where):
    path = filled_score_cache(tmp_path)
    expected = WordScorer().score(TEXTS)
    garble(path, int(path.stat().st_size * where))

    inner = WordScorer()
    scorer = CachedScorer(inner, tmp_path)
    assert scorer.score(TEXTS) == expected
    scorer.close()
    damaged = path.with_name(path.name + ".damaged")
    assert damaged.exists() and path.exists()
    [message] = warning_texts(warnings)
    assert str(path) in message and damaged.name in message and "damaged" in message
    recomputed = sum(len(call) for call in inner.calls)
    assert 0 < recomputed < len(TEXTS) // 2  # the entries that could still be read were kept

    warnings.clear()
    again = WordScorer()
    assert CachedScorer(again, tmp_path).score(TEXTS) == expected
    assert again.calls == [] and warning_texts(warnings) == []


def test_damage_met_by_a_query_after_opening_is_recovered_in_the_middle_of_the_run(tmp_path, warnings, monkeypatch):
    path = filled_score_cache(tmp_path)
    expected = WordScorer().score(TEXTS)
    garble(path, path.stat().st_size // 2)
    monkeypatch.setattr(sqlite_repair, "CHECK_UP_TO", 0)  # as for a file too big to be checked when opened

    scorer = CachedScorer(WordScorer(), tmp_path)
    first = scorer.score(TEXTS[:300])  # opens the file: no fault there yet
    assert scorer.score(TEXTS) == expected and first == expected[:300]
    assert path.with_name(path.name + ".damaged").exists()
    assert any(str(path) in message and ".damaged" in message for message in warning_texts(warnings))


def test_garbage_in_a_prediction_cache_is_set_aside_and_rebuilt(tmp_path, warnings):
    texts = [f"a good film number {i}, not a bad one at all" for i in range(800)]
    first = CachedClassifier(KeywordClassifier(), tmp_path)
    expected = first.predict(texts)
    first.close()
    garble(first.path, first.path.stat().st_size // 2)

    inner = KeywordClassifier()
    cached = CachedClassifier(inner, tmp_path)
    assert cached.predict(texts) == expected
    assert 0 < sum(len(call) for call in inner.calls) < len(texts) // 2
    damaged = first.path.with_name(first.path.name + ".damaged")
    assert damaged.exists()
    assert any(str(first.path) in m and damaged.name in m for m in warning_texts(warnings))


def test_a_second_damaged_file_does_not_replace_the_first_one_set_aside(tmp_path, warnings):
    path = filled_score_cache(tmp_path, TEXTS[:50])
    for _ in range(2):
        path.write_bytes(b"this is not a database" * 400)
        for side in ("-wal", "-shm"):
            Path(f"{path}{side}").unlink(missing_ok=True)
        assert CachedScorer(WordScorer(), tmp_path).score(TEXTS[:2]) == WordScorer().score(TEXTS[:2])
    assert path.with_name(path.name + ".damaged").read_bytes().startswith(b"this is not")
    assert path.with_name(path.name + ".2.damaged").read_bytes().startswith(b"this is not")


def test_a_damaged_file_that_cannot_be_rebuilt_is_left_where_it_is(tmp_path, warnings, monkeypatch):
    path = filled_score_cache(tmp_path, TEXTS[:50])
    garble(path, PAGE)  # the table's first pages

    def no_room(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(sqlite_repair, "rebuild", no_room)
    before = snapshot(tmp_path)
    assert CachedScorer(WordScorer(), tmp_path).score(TEXTS[:50]) == WordScorer().score(TEXTS[:50])
    assert snapshot(tmp_path) == before  # nothing renamed, nothing written
    [message] = warning_texts(warnings)
    assert str(path) in message and "damaged" in message and "No space left on device" in message


def test_damage_and_environment_errors_are_told_apart(tmp_path):
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(b"not a database at all" * 300)
    with pytest.raises(sqlite3.DatabaseError) as raised:
        sqlite3.connect(garbage).execute("SELECT * FROM sqlite_master").fetchall()
    assert sqlite_repair.is_damage(raised.value)
    assert sqlite_repair.is_damage(sqlite_repair.DamagedFile("database disk image is malformed"))
    for message, code in (("database or disk is full", 13), ("attempt to write a readonly database", 8),
                          ("database is locked", 5), ("disk I/O error", 4874), ("unable to open database file", 14)):
        assert not sqlite_repair.is_damage(environment_error(message, code))
        assert not sqlite_repair.is_damage(sqlite3.OperationalError(message))
    assert not sqlite_repair.is_damage(OSError(errno.EROFS, "Read-only file system"))


# The environment: the cache file is left exactly as it is, the run goes on and its results are right.

@pytest.mark.parametrize(("message", "code"), [
    ("database or disk is full", 13),  # SQLITE_FULL
    ("disk I/O error", 4874),  # SQLITE_IOERR_SHMSIZE: what a full disk gives when the -shm cannot be made
    ("attempt to write a readonly database", 1288),  # SQLITE_READONLY_DIRECTORY
    ("unable to open database file", 14),  # SQLITE_CANTOPEN
    ("database is locked", 5),  # SQLITE_BUSY, after the 30 s wait
])
def test_a_healthy_score_cache_that_cannot_be_opened_is_left_untouched(tmp_path, warnings, monkeypatch, message, code):
    path = filled_score_cache(tmp_path)
    before = snapshot(tmp_path)

    def refuse(*args, **kwargs):
        raise environment_error(message, code)

    monkeypatch.setattr(sqlite3, "connect", refuse)
    inner = WordScorer()
    scorer = CachedScorer(inner, tmp_path)
    assert scorer.score(TEXTS[:20]) == WordScorer().score(TEXTS[:20])
    assert scorer.score(TEXTS[:20]) == WordScorer().score(TEXTS[:20])  # computed once: kept in memory
    assert sum(len(call) for call in inner.calls) == 20
    assert scorer.problem is not None and message in scorer.problem
    [warning] = warning_texts(warnings)  # once, however often the cache is asked
    assert str(path) in warning and message in warning and "not saved" in warning
    monkeypatch.undo()
    assert snapshot(tmp_path) == before
    again = WordScorer()
    assert CachedScorer(again, tmp_path).score(TEXTS) == WordScorer().score(TEXTS) and again.calls == []


def test_a_disk_that_fills_up_during_the_run_keeps_what_was_committed(tmp_path, warnings, monkeypatch):
    path = filled_score_cache(tmp_path, TEXTS[:200])
    connect = sqlite3.connect

    def full_disk(*args, **kwargs):  # SQLite's own SQLITE_FULL as soon as the file would grow
        db = connect(*args, **kwargs)
        db.execute(f"PRAGMA max_page_count = {db.execute('PRAGMA page_count').fetchone()[0]}")
        return db

    monkeypatch.setattr(sqlite3, "connect", full_disk)
    inner = WordScorer()
    scorer = CachedScorer(inner, tmp_path, chunk_size=100)
    assert scorer.score(TEXTS) == WordScorer().score(TEXTS)
    assert sum(len(call) for call in inner.calls) == 400 and scorer.hits == 200
    assert scorer.score(TEXTS[200:]) == WordScorer().score(TEXTS[200:])  # the rest of the run finds them
    assert sum(len(call) for call in inner.calls) == 400
    [warning] = warning_texts(warnings)
    assert str(path) in warning and "database or disk is full" in warning and "not saved" in warning
    scorer.close()
    monkeypatch.undo()
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == [path.name]
    again = WordScorer()
    assert CachedScorer(again, tmp_path).score(TEXTS) == WordScorer().score(TEXTS)
    assert sum(len(call) for call in again.calls) == 400  # the 200 committed before are all there


def test_a_read_only_prediction_cache_still_serves_what_it_holds(tmp_path, warnings, monkeypatch):
    first = CachedClassifier(KeywordClassifier(), tmp_path)
    expected = first.predict(["a good one", "a bad one", "good", "bad"])
    first.close()
    before = hashlib.sha256(first.path.read_bytes()).hexdigest()
    connect = sqlite3.connect
    monkeypatch.setattr(sqlite3, "connect",  # opened read-only, as a file of another user's is
                        lambda path, **kw: connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True, **kw))

    inner = KeywordClassifier()
    cached = CachedClassifier(inner, tmp_path)
    assert cached.predict(["a good one", "a bad one", "fine and good", "bad"]) == \
        expected[:2] + KeywordClassifier().predict(["fine and good"]) + expected[3:]
    assert inner.calls == [["fine and good"]]
    [warning] = warning_texts(warnings)
    assert str(first.path) in warning and "readonly" in warning and "not saved" in warning
    cached.close()
    monkeypatch.undo()
    assert hashlib.sha256(first.path.read_bytes()).hexdigest() == before
    assert not first.path.with_name(first.path.name + ".damaged").exists()


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="permissions do not stop root from writing; "
                    "test_a_read_only_prediction_cache_still_serves_what_it_holds simulates it")
def test_a_read_only_directory_is_left_untouched(tmp_path, warnings):
    path = filled_score_cache(tmp_path, TEXTS[:30])
    path.chmod(0o444)
    path.parent.chmod(0o555)
    try:
        before = snapshot(tmp_path)
        assert CachedScorer(WordScorer(), tmp_path).score(TEXTS[:40]) == WordScorer().score(TEXTS[:40])
        assert snapshot(tmp_path) == before
        [warning] = warning_texts(warnings)
        assert str(path) in warning and "not saved" in warning
    finally:
        path.parent.chmod(0o755)


def test_a_cache_directory_that_cannot_be_made_is_a_warning_not_a_stop(tmp_path, warnings):
    blocker = tmp_path / "cache"
    blocker.write_text("a file where the cache directory should be")
    inner = KeywordClassifier()
    cached = CachedClassifier(inner, blocker)
    assert cached.predict(["good", "bad", "good"]) == KeywordClassifier().predict(["good", "bad", "good"])
    assert inner.calls == [["good", "bad"]] and cached.missing(["good", "bad"]) == []
    [warning] = warning_texts(warnings)
    assert str(blocker / "predictions") in warning and "not saved" in warning
    assert blocker.read_text() == "a file where the cache directory should be"


def test_results_from_elsewhere_are_found_by_the_run_when_the_cache_takes_no_writes(tmp_path, warnings, monkeypatch):
    monkeypatch.setattr(sqlite3, "connect", lambda *a, **k: (_ for _ in ()).throw(
        environment_error("database or disk is full", 13)))
    computed = WordScorer().score(TEXTS[:5])  # as a Ray worker would return them
    scorer = CachedScorer(WordScorer(), tmp_path)
    writer = CacheWriter(scorer)
    writer.write(computed)
    writer.close()
    assert writer.written == 5
    assert scorer.score(TEXTS[:5]) == computed and scorer.inner.calls == []  # not computed again on the driver


def test_a_run_whose_scores_cannot_be_saved_says_so_in_its_record(tmp_path, warnings, monkeypatch):
    from linguagym.evaluation.run import RunSettings, run_suites
    from linguagym.suites import example_suite_paths

    monkeypatch.setattr(sqlite3, "connect", lambda *a, **k: (_ for _ in ()).throw(
        environment_error("database or disk is full", 13)))
    result = run_suites(example_suite_paths(), RunSettings(model="fake"), scorer=CachedScorer(WordScorer(), tmp_path))
    assert "database or disk is full" in result.cache["not_saved"]
    assert result.cache["misses"] == result.unique_sentences and result.cache["hits"] == 0
    uncached = run_suites(example_suite_paths(), RunSettings(model="fake"), scorer=WordScorer())
    assert [s.conditions for s in result.suites] == [s.conditions for s in uncached.suites]


# Through the command line.

def test_lct_test_goes_on_past_a_damaged_and_then_an_unwritable_prediction_cache(tmp_path, warnings, monkeypatch,
                                                                                  capsys):
    from linguagym.cli import main

    tests = tmp_path / "tests.json"
    tests.write_text(json.dumps(document()), encoding="utf-8")

    def run(out: str) -> dict:
        code = main(["lct", "test", str(tests), "-c", "python:tests.capabilities.lct_fakes:keyword_labels",
                     "--cache-dir", str(tmp_path / "cache"), "-o", str(tmp_path / out)])
        assert code == 0, capsys.readouterr().err
        return json.loads((tmp_path / out / "results.json").read_text(encoding="utf-8"))

    def outcomes(record: dict) -> list:
        return [(c["status"], c["failed_tests"], c["total"], c["capabilities"]) for c in record["classifiers"]]

    first = run("a")
    [path] = (tmp_path / "cache" / "predictions").glob("*.sqlite")
    path.write_bytes(path.read_bytes()[:PAGE] + random.Random(1).randbytes(path.stat().st_size - PAGE))
    second = run("b")
    assert outcomes(second) == outcomes(first)
    assert any(str(path) in m and ".damaged" in m for m in warning_texts(warnings))

    warnings.clear()
    before = snapshot(tmp_path / "cache")
    monkeypatch.setattr(sqlite3, "connect", lambda *a, **k: (_ for _ in ()).throw(
        environment_error("database or disk is full", 13)))
    third = run("c")
    assert outcomes(third) == outcomes(first)
    [warning] = warning_texts(warnings)
    assert str(path) in warning and "database or disk is full" in warning
    monkeypatch.undo()
    assert snapshot(tmp_path / "cache") == before


# One bad entry, a truncated file, a read-only file (issue 43): what can be read is served.

@pytest.mark.parametrize("column", ["payload", "checksum"])
def test_an_undecodable_entry_is_dropped_and_the_cache_keeps_serving(tmp_path, warnings, column):
    """A text column that is not UTF-8 made the driver raise on the row: "cannot use the score cache", in this
    run and every later one. Now that entry alone is dropped and recomputed."""
    path = filled_score_cache(tmp_path, TEXTS[:30])
    with sqlite3.connect(path) as db:
        db.execute(f"UPDATE scores SET {column} = CAST(X'80FF' AS TEXT) WHERE rowid = 7")
    db.close()
    for recomputed in (1, 0):  # this run recomputes the dropped entry; the next finds it again
        inner = WordScorer()
        scorer = CachedScorer(inner, tmp_path)
        assert scorer.score(TEXTS[:30]) == WordScorer().score(TEXTS[:30])
        scorer.close()
        assert sum(len(call) for call in inner.calls) == recomputed
    assert [w for w in warning_texts(warnings) if "cannot use" in w or "cannot write" in w] == []
    assert any("dropping a damaged score cache entry" in w for w in warning_texts(warnings))


def test_a_truncated_cache_salvages_the_entries_before_the_cut(tmp_path, warnings):
    """SQLite refuses every query on a file shorter than its header says, so a cache cut in half kept 0 of 332
    entries; read with a writable schema, the pages before the cut give theirs back."""
    path = filled_score_cache(tmp_path, TEXTS[:332])
    with open(path, "r+b") as handle:
        handle.truncate(path.stat().st_size // 2)
    inner = WordScorer()
    scorer = CachedScorer(inner, tmp_path)
    assert scorer.score(TEXTS[:332]) == WordScorer().score(TEXTS[:332])
    scorer.close()
    [warning] = [w for w in warning_texts(warnings) if "is damaged" in w]
    kept = int(re.search(r"with the (\d+) entries that could still be read", warning).group(1))
    assert 100 <= kept < 332  # about half: the pages before the cut
    assert sum(len(call) for call in inner.calls) == 332 - kept


def test_a_cache_that_cannot_be_opened_to_write_still_serves_reads(tmp_path, warnings, monkeypatch):
    """A read-only file in a read-only directory (its WAL index cannot be made) could not be opened at all, and a
    run served no hits from it. Now it is opened to read only. Root ignores permissions, so the refusal to open it
    for writing is simulated as SQLite reports it."""
    path = filled_score_cache(tmp_path, TEXTS[:30])
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    connect = sqlite3.connect

    def read_only(target, **kw):
        if "mode=ro" not in str(target) and "immutable=1" not in str(target):
            raise environment_error("unable to open database file", 14)  # SQLITE_CANTOPEN
        return connect(target, **kw)

    monkeypatch.setattr(sqlite3, "connect", read_only)
    inner = WordScorer()
    scorer = CachedScorer(inner, tmp_path)
    assert scorer.score(TEXTS[:40]) == WordScorer().score(TEXTS[:40])
    scorer.close()
    assert sum(len(call) for call in inner.calls) == 10  # the 30 it holds were served
    [warning] = warning_texts(warnings)
    assert str(path) in warning and "not saved" in warning and "unable to open" in warning
    monkeypatch.undo()
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before  # (an empty -wal appears: root may make it)
