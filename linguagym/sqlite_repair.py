"""Telling a damaged SQLite file from a place where no file can be used, and rebuilding a damaged one.

Why the difference matters: a damaged file (garbage written into it, a torn page) will fail on every later
run, so it is set aside and rebuilt; a full disk, a read-only directory, a lock held too long or an I/O error
say nothing about the file, which must then be left exactly as it is. Only SQLITE_CORRUPT and SQLITE_NOTADB
(and ``PRAGMA quick_check`` finding a fault) count as damage; every other error is the environment's.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

_DAMAGE_CODES = {11, 26}  # SQLITE_CORRUPT, SQLITE_NOTADB; extended codes keep the primary code in the low byte
_DAMAGE_MESSAGES = ("database disk image is malformed", "file is not a database")
SIDE_FILES = ("-wal", "-shm", "-journal")
# Files up to this size are checked when opened (at most ~35 ms warm, ~0.5 s cold; all SyntaxGym's 3,050
# sentences take 3 MB); a bigger file's damage is found when a query meets it, as damage done after opening is.
CHECK_UP_TO = 32 << 20


class DamagedFile(sqlite3.DatabaseError):
    """``PRAGMA quick_check`` found a fault that no query has run into yet."""


def is_damage(error: BaseException) -> bool:
    """Whether ``error`` says the file's contents are damaged (not that the disk is full, read-only or locked)."""
    if isinstance(error, DamagedFile):
        return True
    if not isinstance(error, sqlite3.DatabaseError):
        return False
    code = getattr(error, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in _DAMAGE_CODES
    return any(message in str(error) for message in _DAMAGE_MESSAGES)


def check(db: sqlite3.Connection) -> None:
    """Raise DamagedFile when ``PRAGMA quick_check`` finds a fault. It reads every page: about 1 ms per MB when
    the file is in the page cache, about 15 ms per MB when it is not (an idle VM's disk); see ``CHECK_UP_TO``."""
    rows = db.execute("PRAGMA quick_check").fetchall()
    if rows != [("ok",)]:
        first = str(rows[0][0]).strip().splitlines() if rows else ["no answer"]
        raise DamagedFile(f"database disk image is malformed ({first[-1]})")


def reason(error: BaseException, path: Path) -> str:
    """Why ``path`` cannot be used, in words: the error, plus what the disk says where SQLite only says
    "disk I/O error" (a full disk often shows up as that)."""
    said = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
    directory = next((p for p in path.parents if p.exists()), None)
    if directory is None:
        return said
    try:
        if shutil.disk_usage(directory).free < 1 << 20:
            return f"{said}; the disk holding {directory} is full"
    except OSError:
        pass
    if not os.access(directory, os.W_OK):
        return f"{said}; {directory} is not writable"
    return said


def rebuild(path: Path, table: str, prepare: Callable[[sqlite3.Connection], None],
            keep: Callable[[str, bytes, str], bool]) -> tuple[Path, int]:
    """Copy the rows of the damaged ``path`` that can still be read and pass ``keep(key, payload, checksum)``
    into a new file made by ``prepare``, move the damaged file (with its -wal and -shm) aside and put the new
    one in its place. Returns where the damaged file went and how many rows were kept. Raises OSError or
    sqlite3.Error where no new file can be written there (a full disk, a read-only directory)."""
    fresh = path.with_name(f"{path.name}.rebuilding-{os.getpid()}")  # two processes never share one
    _remove(fresh)
    kept = 0
    try:
        new = sqlite3.connect(fresh)
        try:
            prepare(new)
            new.execute("PRAGMA journal_mode=DELETE")  # nothing left in a -wal when it is renamed into place
            with new:
                for row in readable_rows(path, table):
                    if keep(*row):
                        kept += new.execute(f"INSERT OR IGNORE INTO {table} VALUES (?, ?, ?)", row).rowcount
        finally:
            new.close()
        moved = set_aside(path)
        os.replace(fresh, path)
    except BaseException:
        _remove(fresh)
        raise
    return moved, kept


def readable_rows(path: Path, table: str) -> Iterator[tuple[str, bytes, str]]:
    """The rows (key, payload, checksum) of ``table`` in a damaged file that can still be read: read forward up
    to the first unreadable page, then backward down to the last one, so one damaged stretch loses only itself."""
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        # a truncated file is shorter than its header says; SQLite then refuses every query ("malformed") unless
        # the schema is writable, when it reads the pages that are there (a cache cut in half kept none before)
        db.execute("PRAGMA writable_schema=ON")
    except sqlite3.Error:
        return
    seen: set[int] = set()
    try:
        for order in ("ASC", "DESC"):
            try:  # as bytes: a text column that is not UTF-8 would stop the pass at that row
                for rowid, key, payload, checksum in db.execute(
                        f"SELECT rowid, CAST(key AS BLOB), CAST(payload AS BLOB), CAST(checksum AS BLOB) FROM {table} "
                        f"ORDER BY rowid {order}"):
                    if rowid in seen:  # the backward pass met the forward one: every row was readable
                        break
                    seen.add(rowid)
                    if isinstance(key, bytes) and isinstance(payload, bytes) and isinstance(checksum, bytes):
                        try:
                            yield key.decode("ascii"), payload, checksum.decode("ascii")
                        except UnicodeDecodeError:
                            continue
            except sqlite3.Error:
                pass  # an unreadable page: what lies beyond it is read from the other end
    finally:
        db.close()


def set_aside(path: Path) -> Path:
    """Rename ``path`` and its journal to ``<name>.damaged`` (``<name>.2.damaged`` ... when an earlier one is
    there, which is kept); returns the new name of ``path``. An empty journal and the -shm index, which only
    describes the journal, are deleted: a new file must not find them beside it."""
    files = [Path(str(path) + suffix) for suffix in ("", "-wal", "-journal")]
    Path(f"{path}-shm").unlink(missing_ok=True)
    for journal in files[1:]:
        if journal.exists() and journal.stat().st_size == 0:
            journal.unlink()
    number = 1
    while any(_damaged(f, number).exists() for f in files):
        number += 1
    for file in files:
        if file.exists():
            os.replace(file, _damaged(file, number))
    return _damaged(path, number)


def _damaged(path: Path, number: int) -> Path:
    return Path(f"{path}.damaged" if number == 1 else f"{path}.{number}.damaged")


def _remove(path: Path) -> None:
    for suffix in ("", *SIDE_FILES):
        Path(str(path) + suffix).unlink(missing_ok=True)
