"""An on-disk cache of predictions around any classifier, keyed by the classifier's identity and the text.

Capability tests send thousands of sentences, many repeated across runs, to classifiers that may be slow (a
language model on a CPU) or remote and flaky (an HTTP endpoint). So, as the score cache does for scorers:
one SQLite file (WAL) per identity under ``<cache>/predictions/``; each entry JSON with a sha256 checksum,
dropped and recomputed when the checksum, the JSON or the text does not match; entries committed after every
chunk, so when the classifier fails half-way the finished chunks are kept and a re-run asks only for the rest.
A fully cached call asks the inner classifier only for its identity, which never loads a model.
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

from linguagym.capabilities.classifiers.base import LABELS, Classifier, ClassifierError, Prediction
from linguagym.scoring.cache import ENV_VAR, identity_hash, resolve_cache_dir

log = logging.getLogger(__name__)
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS predictions (key TEXT PRIMARY KEY, payload BLOB NOT NULL, checksum TEXT NOT NULL)"
)
Progress = Callable[[int, int], None]


class CachedClassifier:
    """Wraps ``inner``; only unique texts missing from the cache reach it, ``chunk_size`` at a time (default:
    four of the inner classifier's batches, at least 32; 256 where it has no ``batch_size``)."""

    def __init__(self, inner: Classifier, cache_dir: Path | None = None, *, chunk_size: int | None = None) -> None:
        if chunk_size is not None and chunk_size < 1:
            raise ClassifierError(f"chunk_size must be at least 1, not {chunk_size}")
        self.inner = inner
        self.cache_dir = resolve_cache_dir(cache_dir)
        batch_size = getattr(inner, "batch_size", None)
        default = max(32, 4 * int(batch_size)) if isinstance(batch_size, int) and batch_size > 0 else 256
        self.chunk_size = chunk_size or default
        self._identity = inner.identity
        self._id_hash = identity_hash(self._identity)
        self.path = self.cache_dir / "predictions" / f"{self._id_hash[:32]}.sqlite"
        self._db: sqlite3.Connection | None = None
        self.hits = 0
        self.misses = 0
        self.dropped = 0

    @property
    def identity(self) -> dict[str, Any]:
        return self._identity

    @property
    def name(self) -> str:
        return self.inner.name

    def missing(self, texts: Sequence[str]) -> list[str]:
        """The unique ``texts`` not in the cache, in first-seen order (what ``predict`` hands to the model)."""
        return [text for text in dict.fromkeys(texts) if self._get(text) is None]

    def predict(self, texts: Sequence[str], progress: Progress | None = None) -> list[Prediction]:
        """One prediction per text. ``progress(done, total)``: texts predicted so far in this call and the
        number to predict (cache misses), called once before the first chunk and after each one."""
        texts = list(texts)
        found: dict[str, Prediction] = {}
        missing = []
        for text in dict.fromkeys(texts):
            entry = self._get(text)
            if entry is None:
                missing.append(text)
            else:
                found[text] = entry
        self.hits += len(found)
        self.misses += len(missing)
        if progress is not None:
            progress(0, len(missing))
        for start in range(0, len(missing), self.chunk_size):
            chunk = missing[start : start + self.chunk_size]
            predictions = self.inner.predict(chunk)  # an exception here keeps every chunk committed before
            if len(predictions) != len(chunk):
                raise ClassifierError(
                    f"classifier {self.inner.name!r} returned {len(predictions)} predictions for {len(chunk)} texts",
                    hint="a classifier must return exactly one prediction per text, in order",
                )
            self._put(chunk, predictions)  # committed now: a failure later keeps this chunk
            found.update(zip(chunk, predictions, strict=True))
            if progress is not None:
                progress(start + len(chunk), len(missing))
        return [found[text] for text in texts]

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def __enter__(self) -> CachedClassifier:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- storage ---------------------------------------------------------------------------------------

    def _key(self, text: str) -> str:
        return hashlib.sha256(f"{self._id_hash}\0{text}".encode()).hexdigest()

    def _connect(self) -> sqlite3.Connection:
        if self._db is None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise ClassifierError(
                    f"cannot create the prediction cache directory {self.path.parent}: {error.strerror}",
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
                    raise ClassifierError(
                        f"the prediction cache {self.path} cannot be opened: {error}",
                        hint="delete the file (it only holds cached predictions) or pass another cache_dir",
                    ) from None
                log.warning("prediction cache %s is damaged (%s); starting a new one", self.path, error)
                for suffix in ("", "-wal", "-shm"):
                    damaged = Path(str(self.path) + suffix)
                    if damaged.exists():
                        os.replace(damaged, Path(str(damaged) + ".damaged"))
        raise AssertionError("unreachable")

    def _get(self, text: str) -> Prediction | None:
        db = self._connect()
        key = self._key(text)
        row = db.execute("SELECT payload, checksum FROM predictions WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        payload, checksum = row
        try:
            if not isinstance(payload, bytes) or hashlib.sha256(payload).hexdigest() != checksum:
                raise ValueError("checksum mismatch")
            data = json.loads(payload)
            if data["text"] != text:
                raise ValueError("entry is for another text")
            prediction = Prediction.from_dict(data)
            if prediction.label not in LABELS:
                raise ValueError(f"unknown label {prediction.label!r}")
            return prediction
        except (ValueError, KeyError, TypeError) as error:
            log.warning("dropping a damaged prediction cache entry (%s); it will be recomputed", error)
            self.dropped += 1
            db.execute("DELETE FROM predictions WHERE key = ?", (key,))
            db.commit()
            return None

    def _put(self, texts: Sequence[str], predictions: Sequence[Prediction]) -> None:
        db = self._connect()
        rows = []
        for text, prediction in zip(texts, predictions, strict=True):
            payload = json.dumps({"text": text, **prediction.as_dict()}, separators=(",", ":")).encode()
            rows.append((self._key(text), payload, hashlib.sha256(payload).hexdigest()))
        with db:  # one transaction per chunk
            db.executemany("INSERT OR REPLACE INTO predictions VALUES (?, ?, ?)", rows)
