"""An on-disk cache of scores around any scorer, keyed by the scorer's identity and the text.

One SQLite file (WAL) per identity under ``<cache>/scores/``. Each entry is JSON with a sha256 checksum; an
entry whose checksum, JSON or text does not match is dropped and recomputed, never trusted. Entries are
committed after every chunk, so an interrupted run resumes where it stopped. A fully cached run asks the
inner scorer only for its identity, which never loads a model.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from linguagym.errors import ConfigurationError
from linguagym.scoring.protocol import ScoredText, Scorer

log = logging.getLogger(__name__)
ENV_VAR = "LINGUAGYM_CACHE_DIR"
_SCHEMA = "CREATE TABLE IF NOT EXISTS scores (key TEXT PRIMARY KEY, payload BLOB NOT NULL, checksum TEXT NOT NULL)"


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


class CachedScorer:
    """Wraps ``inner``; only unique texts missing from the cache reach it, ``chunk_size`` at a time (default
    256 or 4 batches, whichever is more: a chunk is also the scope within which prefixes are shared)."""

    def __init__(self, inner: Scorer, cache_dir: Path | None = None, *, chunk_size: int | None = None) -> None:
        self.inner = inner
        self.cache_dir = resolve_cache_dir(cache_dir)
        self.chunk_size = chunk_size or max(256, 4 * int(getattr(inner, "batch_size", 16)))
        self._identity = inner.identity
        self._id_hash = identity_hash(self._identity)
        self.path = self.cache_dir / "scores" / f"{self._id_hash[:32]}.sqlite"
        self._db: sqlite3.Connection | None = None
        self.hits = 0
        self.misses = 0
        self.dropped = 0

    @property
    def identity(self) -> dict[str, Any]:
        return self._identity

    @property
    def progress(self) -> Callable[[int], None] | None:
        """The inner scorer's progress hook (called with tokens scored); cache hits never call it."""
        return getattr(self.inner, "progress", None)

    @progress.setter
    def progress(self, callback: Callable[[int], None] | None) -> None:
        if hasattr(self.inner, "progress"):
            self.inner.progress = callback

    def missing(self, texts: Sequence[str]) -> list[str]:
        """The unique ``texts`` that are not in the cache (what ``score`` would hand to the model)."""
        return [text for text in dict.fromkeys(texts) if self._get(text) is None]

    def count_tokens(self, texts: Sequence[str]) -> int:
        """Tokens the inner scorer would score for ``texts``: cache misses only. 0 without touching the
        model (nor importing torch) when everything is cached, or when the inner scorer cannot count."""
        missing = self.missing(texts)
        count = getattr(self.inner, "count_tokens", None)
        return int(count(missing)) if missing and count is not None else 0

    def score(self, texts: Sequence[str]) -> list[ScoredText]:
        texts = list(texts)
        found: dict[str, ScoredText] = {}
        for text in dict.fromkeys(texts):
            entry = self._get(text)
            if entry is not None:
                found[text] = entry
        missing = [text for text in dict.fromkeys(texts) if text not in found]
        self.hits += len(found)
        self.misses += len(missing)
        for start in range(0, len(missing), self.chunk_size):
            chunk = missing[start : start + self.chunk_size]
            results = self.inner.score(chunk)
            if len(results) != len(chunk):
                raise RuntimeError(f"scorer returned {len(results)} results for {len(chunk)} texts")
            self._put(results)  # committed now: a crash later keeps this chunk
            found.update((r.text, r) for r in results)
        return [found[text] for text in texts]

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    # -- storage ---------------------------------------------------------------------------------------

    def _key(self, text: str) -> str:
        return hashlib.sha256(f"{self._id_hash}\0{text}".encode()).hexdigest()

    def _connect(self) -> sqlite3.Connection:
        if self._db is None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise ConfigurationError(
                    f"cannot create the score cache directory {self.path.parent}: {error.strerror}",
                    hint=f"pass another cache_dir or set {ENV_VAR} to a writable directory",
                ) from None
            self._db = self._open()
        return self._db

    def _open(self) -> sqlite3.Connection:
        for attempt in (1, 2):
            db = sqlite3.connect(self.path, timeout=30)
            try:
                db.execute("PRAGMA journal_mode=WAL")
                db.execute(_SCHEMA)
                db.execute("CREATE TABLE IF NOT EXISTS meta (identity TEXT NOT NULL)")
                if db.execute("SELECT COUNT(*) FROM meta").fetchone()[0] == 0:
                    db.execute("INSERT INTO meta VALUES (?)", (json.dumps(self._identity, sort_keys=True),))
                db.commit()
                return db
            except sqlite3.DatabaseError as error:
                db.close()
                if attempt == 2:
                    raise
                # Not a database any more (truncated, overwritten): set it aside and start afresh.
                log.warning("score cache %s is damaged (%s); starting a new one", self.path, error)
                for suffix in ("", "-wal", "-shm"):
                    damaged = Path(str(self.path) + suffix)
                    if damaged.exists():
                        os.replace(damaged, Path(str(damaged) + ".damaged"))
        raise AssertionError("unreachable")

    def _get(self, text: str) -> ScoredText | None:
        db = self._connect()
        key = self._key(text)
        row = db.execute("SELECT payload, checksum FROM scores WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        payload, checksum = row
        try:
            if not isinstance(payload, bytes) or hashlib.sha256(payload).hexdigest() != checksum:
                raise ValueError("checksum mismatch")
            scored = ScoredText.from_json(json.loads(payload))
            if scored.text != text:
                raise ValueError("entry is for another text")
            return scored
        except (ValueError, KeyError, TypeError) as error:
            log.warning("dropping a damaged score cache entry (%s); it will be recomputed", error)
            self.dropped += 1
            db.execute("DELETE FROM scores WHERE key = ?", (key,))
            db.commit()
            return None

    def _put(self, results: list[ScoredText]) -> None:
        db = self._connect()
        rows = []
        for scored in results:
            payload = json.dumps(scored.to_json(), separators=(",", ":")).encode()
            rows.append((self._key(scored.text), payload, hashlib.sha256(payload).hexdigest()))
        with db:  # one transaction per chunk
            db.executemany("INSERT OR REPLACE INTO scores VALUES (?, ?, ?)", rows)
