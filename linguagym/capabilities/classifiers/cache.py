"""An on-disk cache of predictions around any classifier, keyed by the classifier's identity and the text.

Capability tests send thousands of sentences, many repeated across runs, to classifiers that may be slow (a
language model on a CPU) or remote and flaky (an HTTP endpoint). So, as the score cache does for scorers:
one SQLite file (WAL) per identity under ``<cache>/predictions/``; each entry JSON with a sha256 checksum,
dropped and recomputed when the checksum, the JSON or the text does not match; entries committed after every
chunk, so when the classifier fails half-way the finished chunks are kept and a re-run asks only for the rest.
A fully cached call asks the inner classifier only for its identity, which never loads a model. A damaged file
is rebuilt and a file that cannot be used (full disk, read-only) is left alone with a warning; neither stops
the run (``entrystore``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from linguagym.capabilities.classifiers.base import LABELS, Classifier, ClassifierError, Prediction
from linguagym.entrystore import EntryStore
from linguagym.progress import IsCancelled
from linguagym.scoring.cache import resolve_cache_dir

log = logging.getLogger(__name__)
Progress = Callable[[int, int], None]


class CachedClassifier(Classifier):
    """Wraps ``inner``; only unique texts missing from the cache reach it, ``chunk_size`` at a time (default:
    four of the inner classifier's batches, at least 32; 256 where it has no ``batch_size``).

    Beyond a Classifier it offers ``missing`` (what a prediction would still compute), ``store`` (keep
    predictions made elsewhere), ``predict(texts, progress=...)``, ``cache_dir`` and ``chunk_size``: callers
    recognise it with ``isinstance(classifier, CachedClassifier)``.
    """

    def __init__(self, inner: Classifier, cache_dir: Path | None = None, *, chunk_size: int | None = None) -> None:
        if chunk_size is not None and chunk_size < 1:
            raise ClassifierError(f"chunk_size must be at least 1, not {chunk_size}")
        self.inner = inner
        self.cache_dir = resolve_cache_dir(cache_dir)
        batch_size = inner.batch_size
        default = max(32, 4 * batch_size) if batch_size is not None and batch_size > 0 else 256
        self.chunk_size = chunk_size or default
        self._identity = inner.identity
        self._store = EntryStore.under(self.cache_dir, "predictions", self._identity, what="prediction cache")
        self.path = self._store.path
        self.hits = 0
        self.misses = 0

    @property
    def dropped(self) -> int:
        """Damaged entries found (and recomputed) so far."""
        return self._store.dropped

    @property
    def problem(self) -> str | None:
        """Why predictions made in this run are not being saved (a full disk, a read-only directory), or None."""
        return self._store.problem

    @property
    def identity(self) -> dict[str, Any]:
        return self._identity

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def batch_size(self) -> int | None:  # the inner classifier's
        return self.inner.batch_size

    @batch_size.setter
    def batch_size(self, size: int | None) -> None:
        self.inner.batch_size = size

    def warm_up(self) -> None:
        """Load the inner classifier's model now (a prediction served from the cache would not need it)."""
        self.inner.warm_up()

    def missing(self, texts: Sequence[str]) -> list[str]:
        """The unique ``texts`` not in the cache, in first-seen order (what ``predict`` hands to the model)."""
        return self._store.lookup(texts, _decode)[1]

    def predict(self, texts: Sequence[str], progress: Progress | None = None) -> list[Prediction]:
        """One prediction per text. ``progress(done, total)``: texts predicted so far in this call and the
        number to predict (cache misses), called once before the first chunk and after each one."""
        texts = list(texts)
        found, missing = self._store.lookup(texts, _decode)
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
            self._store.put({"text": text, **prediction.as_dict()}  # committed now: a failure later keeps it
                            for text, prediction in zip(chunk, predictions, strict=True))
            found.update(zip(chunk, predictions, strict=True))
            if progress is not None:
                progress(start + len(chunk), len(missing))
        return [found[text] for text in texts]

    def store(self, texts: Sequence[str], predictions: Sequence[Prediction]) -> None:
        """Keep predictions made elsewhere (by a Ray worker) for ``texts``, committed at once."""
        self._store.put({"text": text, **prediction.as_dict()}
                        for text, prediction in zip(texts, predictions, strict=True))

    def stop_when(self, cancelled: IsCancelled | None) -> None:
        self.inner.stop_when(cancelled)

    def close(self) -> None:
        """Close the cache file and the inner classifier."""
        self._store.close()
        self.inner.close()

    def __enter__(self) -> CachedClassifier:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _decode(data: dict[str, Any]) -> Prediction:
    prediction = Prediction.from_dict(data)
    if prediction.label not in LABELS:
        raise ValueError(f"unknown label {prediction.label!r}")
    return prediction
