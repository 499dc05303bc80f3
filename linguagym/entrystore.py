"""One SQLite file of checksummed JSON entries keyed by an identity and a text: the storage under the score
cache (``scoring/cache.py``) and the prediction cache (``capabilities/classifiers/cache.py``).

WAL mode; each entry's payload is compact JSON holding its own ``text``, with a sha256 checksum. An entry
whose checksum, JSON, text or decoding does not match is deleted and reported missing, so it is recomputed,
never trusted. A file that is no longer a database is set aside as ``*.damaged`` and a new one started.
``put`` commits one transaction, so a caller that stores each chunk as it finishes loses nothing when a
later chunk fails.
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

from linguagym.errors import ConfigurationError

log = logging.getLogger(__name__)
T = TypeVar("T")
ENV_VAR = "LINGUAGYM_CACHE_DIR"


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
        self.dropped = 0

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
        db = self._connect()
        key = self._key(text)
        row = db.execute(f"SELECT payload, checksum FROM {self.table} WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        payload, checksum = row
        try:
            if not isinstance(payload, bytes) or hashlib.sha256(payload).hexdigest() != checksum:
                raise ValueError("checksum mismatch")
            data = json.loads(payload)
            if data["text"] != text:
                raise ValueError("entry is for another text")
            return decode(data)
        except (ValueError, KeyError, TypeError) as error:
            log.warning("dropping a damaged %s entry (%s); it will be recomputed", self.what, error)
            self.dropped += 1
            db.execute(f"DELETE FROM {self.table} WHERE key = ?", (key,))
            db.commit()
            return None

    def put(self, entries: Iterable[dict[str, Any]]) -> None:
        """Store JSON entries (each with its ``text``) in one transaction."""
        rows = []
        for entry in entries:
            payload = json.dumps(entry, separators=(",", ":")).encode()
            rows.append((self._key(entry["text"]), payload, hashlib.sha256(payload).hexdigest()))
        db = self._connect()
        with db:
            db.executemany(f"INSERT OR REPLACE INTO {self.table} VALUES (?, ?, ?)", rows)

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def _key(self, text: str) -> str:
        return hashlib.sha256(f"{self._id_hash}\0{text}".encode()).hexdigest()

    def _connect(self) -> sqlite3.Connection:
        if self._db is None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise ConfigurationError(
                    f"cannot create the {self.what} directory {self.path.parent}: {error.strerror}",
                    hint=f"pass another cache directory or set {ENV_VAR} to a writable one",
                ) from None
            self._db = self._open()
        return self._db

    def _open(self) -> sqlite3.Connection:
        for attempt in (1, 2):
            db = sqlite3.connect(self.path, timeout=30)
            try:
                db.execute("PRAGMA journal_mode=WAL")
                db.execute(f"CREATE TABLE IF NOT EXISTS {self.table} "
                           "(key TEXT PRIMARY KEY, payload BLOB NOT NULL, checksum TEXT NOT NULL)")
                db.execute("CREATE TABLE IF NOT EXISTS meta (identity TEXT NOT NULL)")
                if db.execute("SELECT COUNT(*) FROM meta").fetchone()[0] == 0:
                    db.execute("INSERT INTO meta VALUES (?)", (json.dumps(self.identity, sort_keys=True),))
                db.commit()
                return db
            except sqlite3.DatabaseError as error:
                db.close()
                if attempt == 2:
                    raise ConfigurationError(
                        f"the {self.what} {self.path} cannot be opened: {error}",
                        hint="delete the file (it only holds cached results) or pass another cache directory",
                    ) from None
                # Not a database any more (truncated, overwritten): set it aside and start afresh.
                log.warning("%s %s is damaged (%s); starting a new one", self.what, self.path, error)
                for suffix in ("", "-wal", "-shm"):
                    damaged = Path(str(self.path) + suffix)
                    if damaged.exists():
                        os.replace(damaged, Path(str(damaged) + ".damaged"))
        raise AssertionError("unreachable")
