"""One SQLite file of checksummed JSON entries keyed by an identity and a text: the storage under the score
cache (``scoring/cache.py``) and the prediction cache (``capabilities/classifiers/cache.py``).

WAL mode; each entry's payload is compact JSON holding its own ``text``, with a sha256 checksum. An entry
whose checksum, JSON, text or decoding does not match is deleted and reported missing, so it is recomputed,
never trusted. ``put`` commits one transaction, so a caller that stores each chunk as it finishes loses
nothing when a later chunk fails.

A cache never stops a run and never loses good entries (``sqlite_repair`` tells the two kinds of fault apart):

- a damaged file (found by ``PRAGMA quick_check`` at open up to 32 MB, or by any query) is rebuilt from the entries
  that can still be read, the damaged file is set aside as ``*.damaged`` with a warning, and the run goes on;
- a file that cannot be used where it is (a full disk, a read-only directory, a lock held too long, an I/O
  error) is left exactly as it is: a warning says which file, why, and that new entries are not being saved;
  what is computed then is kept in memory, so the rest of this run still finds it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sqlite3
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

from linguagym import sqlite_repair

log = logging.getLogger(__name__)
T = TypeVar("T")
ENV_VAR = "LINGUAGYM_CACHE_DIR"
_BUGS = (sqlite3.ProgrammingError, sqlite3.InterfaceError)  # misuse of the module by us: never hidden


def resolve_cache_dir(explicit: Path | None = None) -> Path:
    """``explicit``, else ``$LINGUAGYM_CACHE_DIR``, else the platform's user cache directory."""
    if explicit is not None:
        return Path(explicit).expanduser()
    from_env = os.environ.get(ENV_VAR)
    if from_env:
        return Path(from_env).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("linguagym"))


def identity_hash(identity: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(identity, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


class EntryStore:
    """Entries for one identity in ``path``; ``what`` names the cache in messages ("score cache")."""

    def __init__(self, path: Path, identity: dict[str, Any], *, table: str, what: str) -> None:
        self.path = path
        self.identity = identity
        self.table = table  # the table name is part of existing cache files: never rename it
        self.what = what
        self._id_hash = identity_hash(identity)
        self._db: sqlite3.Connection | None = None
        self._readable = True  # False once the file cannot be used at all in this run
        self._writable = True  # False once it takes no more writes (what it holds is still read)
        self._memory: dict[str, tuple[bytes, str]] = {}  # entries the file did not take: still found in this run
        self.dropped = 0
        self.problem: str | None = None  # why new entries are not being saved, for the run's record

    @classmethod
    def under(cls, cache_dir: Path, kind: str, identity: dict[str, Any], *, what: str) -> EntryStore:
        """The store for ``identity`` at ``<cache_dir>/<kind>/<identity hash>.sqlite``, in table ``kind``."""
        path = cache_dir / kind / f"{identity_hash(identity)[:32]}.sqlite"
        return cls(path, identity, table=kind, what=what)

    def lookup(self, texts: Iterable[str], decode: Callable[[dict[str, Any]], T]) -> tuple[dict[str, T], list[str]]:
        """The unique ``texts`` split into those found (decoded) and those missing, in first-seen order."""
        found: dict[str, T] = {}
        missing: list[str] = []
        for text in dict.fromkeys(texts):
            entry = self.get(text, decode)
            if entry is None:
                missing.append(text)
            else:
                found[text] = entry
        return found, missing

    def get(self, text: str, decode: Callable[[dict[str, Any]], T]) -> T | None:
        """The entry for ``text`` decoded by ``decode`` (which raises ValueError, KeyError or TypeError on a
        bad payload), or None when it is absent or damaged (then it is deleted)."""
        key = self._key(text)
        # read as bytes: a payload or checksum stored as text that is not UTF-8 made the driver raise on the row,
        # which stopped the cache for good; now it is one damaged entry, dropped below
        row = self._memory.get(key) or self._use(
            lambda db: db.execute(f"SELECT CAST(payload AS BLOB), CAST(checksum AS BLOB) FROM {self.table} "
                                  "WHERE key = ?", (key,)).fetchone(), writing=False)
        if row is None:
            return None
        payload, checksum = row
        try:
            if isinstance(checksum, bytes):
                checksum = checksum.decode("ascii")
            if not isinstance(payload, bytes) or hashlib.sha256(payload).hexdigest() != checksum:
                raise ValueError("checksum mismatch")
            data = json.loads(payload)
            if data["text"] != text:
                raise ValueError("entry is for another text")
            return decode(data)
        except (ValueError, KeyError, TypeError) as error:  # UnicodeDecodeError is a ValueError
            log.warning("dropping a damaged %s entry (%s); it will be recomputed", self.what, error)
            self.dropped += 1
            self._memory.pop(key, None)
            self._use(lambda db: self._write(db, f"DELETE FROM {self.table} WHERE key = ?", [(key,)]), writing=True)
            return None

    def put(self, entries: Iterable[dict[str, Any]]) -> None:
        """Store JSON entries (each with its ``text``) in one transaction; in memory for this run only where the
        file takes no writes."""
        rows = []
        for entry in entries:
            payload = json.dumps(entry, separators=(",", ":")).encode()
            rows.append((self._key(entry["text"]), payload, hashlib.sha256(payload).hexdigest()))
        stored = self._use(lambda db: self._write(db, f"INSERT OR REPLACE INTO {self.table} VALUES (?, ?, ?)", rows),
                           writing=True)
        if stored:
            for key, _, _ in rows:
                self._memory.pop(key, None)
        else:
            self._memory.update((key, (payload, checksum)) for key, payload, checksum in rows)

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def _key(self, text: str) -> str:
        return hashlib.sha256(f"{self._id_hash}\0{text}".encode()).hexdigest()

    @staticmethod
    def _write(db: sqlite3.Connection, statement: str, rows: list[tuple[Any, ...]]) -> bool:
        with db:
            db.executemany(statement, rows)
        return True

    def _use(self, action: Callable[[sqlite3.Connection], T], *, writing: bool) -> T | None:
        """``action(db)``, or None where the file cannot serve it. A damaged file is rebuilt and ``action`` tried
        again on the new one; an unusable one is left alone and no longer asked (one warning)."""
        for attempt in (1, 2):
            db = self._connect() if self._readable and (self._writable or not writing) else None
            if db is None:
                return None
            try:
                return action(db)
            except _BUGS:
                raise
            except sqlite3.Error as error:
                if sqlite_repair.is_damage(error) and attempt == 1:
                    self._recover(error)
                    continue
                self._stop(error, writing=writing)
                return None
        return None

    def _connect(self) -> sqlite3.Connection | None:
        if self._db is None and self._readable:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._db = self._open()
            except _BUGS:
                raise
            except (OSError, sqlite3.Error) as error:
                if not sqlite_repair.is_damage(error):
                    self._db = self._open_read_only(error)
                    if self._db is None:
                        self._stop(error, writing=False)
                    return self._db
                self._recover(error)
                if self._readable:
                    try:
                        self._db = self._open()
                    except (OSError, sqlite3.Error) as again:  # even the new file fails: not the file's fault
                        self._stop(again, writing=False)
        return self._db

    def _open(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=30)
        try:
            self._prepare(db)
            if self.path.stat().st_size <= sqlite_repair.CHECK_UP_TO:
                sqlite_repair.check(db)
        except BaseException:
            db.close()
            raise
        return db

    def _open_read_only(self, error: BaseException) -> sqlite3.Connection | None:
        """The file opened for reading only, where it cannot be opened to write (a read-only file or directory:
        a WAL file's index cannot be made beside it), so that what it holds is still served; None where even that
        fails."""
        if not self.path.is_file():
            return None
        # immutable skips locks: only where no one can write beside the file (its directory is not writable)
        queries = ("mode=ro",) if os.access(self.path.parent, os.W_OK) else ("mode=ro", "immutable=1")
        for query in queries:
            db = None
            try:
                db = sqlite3.connect(f"{self.path.resolve().as_uri()}?{query}", uri=True, timeout=30)
                db.execute(f"SELECT key FROM {self.table} LIMIT 1").fetchall()
            except sqlite3.Error:
                if db is not None:
                    db.close()
                continue
            self._stop(error, writing=True)  # warns once: entries are read, new ones not saved
            return db
        return None

    def _prepare(self, db: sqlite3.Connection) -> None:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute(f"CREATE TABLE IF NOT EXISTS {self.table} "
                   "(key TEXT PRIMARY KEY, payload BLOB NOT NULL, checksum TEXT NOT NULL)")
        db.execute("CREATE TABLE IF NOT EXISTS meta (identity TEXT NOT NULL)")
        if db.execute("SELECT COUNT(*) FROM meta").fetchone()[0] == 0:
            db.execute("INSERT INTO meta VALUES (?)", (json.dumps(self.identity, sort_keys=True),))
        db.commit()

    def _intact(self, key: str, payload: bytes, checksum: str) -> bool:
        """Whether a row read back from a damaged file is whole: its checksum holds and its key is its text's."""
        try:
            return (hashlib.sha256(payload).hexdigest() == checksum
                    and key == self._key(json.loads(payload)["text"]))
        except (ValueError, KeyError, TypeError):
            return False

    def _recover(self, error: OSError | sqlite3.Error) -> None:
        """The file is damaged: rebuild it from what can still be read, set the damaged one aside, go on."""
        self.close()
        try:
            moved, kept = sqlite_repair.rebuild(self.path, self.table, self._prepare, self._intact)
        except _BUGS:
            raise
        except (OSError, sqlite3.Error) as failure:  # no new file can be written here: leave the damaged one
            self._stop(failure, writing=False, damage=error)
            return
        log.warning("%s %s is damaged (%s): moved it to %s and started a new one with the %d entries that could "
                    "still be read; the rest will be recomputed", self.what, self.path, error, moved.name, kept)

    def _stop(self, error: BaseException, *, writing: bool, damage: BaseException | None = None) -> None:
        """Stop reading (or, after a failed write, writing) the file, leaving it as it is; say so once."""
        why = sqlite_repair.reason(error, self.path)
        if damage is not None:
            why = f"it is damaged ({damage}) and cannot be rebuilt here: {why}"
        if writing and self._writable:
            self._writable = False
            self.problem = f"cannot write to {self.path}: {why}"
            log.warning("cannot write to the %s %s (%s): the entries it holds are kept and still used, but what is "
                        "computed from now on in this run is not saved", self.what, self.path, why)
        elif not writing and self._readable:
            self._readable = self._writable = False
            self.problem = f"cannot use {self.path}: {why}"
            self.close()
            log.warning("cannot use the %s %s (%s): this run goes on without it; nothing is read from it, what is "
                        "computed is not saved, and the file is left as it is", self.what, self.path, why)
