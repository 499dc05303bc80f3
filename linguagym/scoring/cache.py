"""An on-disk cache of scores around any scorer, keyed by the scorer's identity and the text.

One SQLite file (WAL) per identity under ``<cache>/scores/``. Each entry is JSON with a sha256 checksum; an
entry whose checksum, JSON or text does not match is dropped and recomputed, never trusted. Entries are
committed after every chunk, so an interrupted run resumes where it stopped: a cancel asked for while a chunk is
scored lets that chunk finish and be committed before ``Cancelled`` stops the run (``_DeferredCancel``), and an
interruption (Ctrl-C) loses only the chunk under way. A fully cached run asks the inner scorer only for its
identity, which never loads a model. A damaged file is rebuilt and a file that
cannot be used (full disk, read-only) is left alone with a warning; neither stops the run (``entrystore``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from linguagym.entrystore import EntryStore, resolve_cache_dir  # (callers import it from here too)
from linguagym.errors import Cancelled
from linguagym.scoring.protocol import (
    ScoredText,
    Scorer,
    ScorerBase,
    optional,
)

log = logging.getLogger(__name__)


class CachedScorer(ScorerBase):
    """Wraps ``inner``; only unique texts missing from the cache reach it, ``chunk_size`` at a time (default
    256 or 4 batches, whichever is more: a chunk is also the scope within which prefixes are shared)."""

    def __init__(self, inner: Scorer, cache_dir: Path | None = None, *, chunk_size: int | None = None) -> None:
        self.inner = inner
        self.cache_dir = resolve_cache_dir(cache_dir)
        self.chunk_size = chunk_size or max(256, 4 * int(self._members.batch_size))
        # work on a cached scorer is counted (cache misses only) and reported as its inner scorer can: a claim of
        # tokens the inner scorer cannot count would make a run's progress a bar of 0 tokens that never moves
        self.counts_tokens = self._members.counts_tokens
        self.reports_progress = self._members.reports_progress
        self._identity = inner.identity
        self._store = EntryStore.under(self.cache_dir, "scores", self._identity, what="score cache")
        self.path = self._store.path
        self.hits = 0
        self.misses = 0
        self._progress: _DeferredCancel | None = None

    @property
    def dropped(self) -> int:
        """Damaged entries found (and recomputed) so far."""
        return self._store.dropped

    @property
    def problem(self) -> str | None:
        """Why scores computed in this run are not being saved (a full disk, a read-only directory), or None."""
        return self._store.problem

    @property
    def identity(self) -> dict[str, Any]:
        return self._identity

    @property
    def progress(self) -> Callable[[int], None] | None:
        """The inner scorer's progress hook (called with tokens scored); cache hits never call it. A ``Cancelled``
        it raises is held until the chunk under way is scored and committed (``_DeferredCancel``)."""
        return self._progress.callback if self._progress is not None else None

    @progress.setter
    def progress(self, callback: Callable[[int], None] | None) -> None:
        if self._members.reports_progress:
            self._progress = _DeferredCancel(callback) if callback is not None else None
            self._members.progress = self._progress

    def missing(self, texts: Sequence[str]) -> list[str]:
        """The unique ``texts`` that are not in the cache (what ``score`` would hand to the model)."""
        return self._store.lookup(texts, ScoredText.from_json)[1]

    def count_tokens(self, texts: Sequence[str]) -> int:
        """Tokens the inner scorer would score for ``texts``: cache misses only. 0 without touching the
        model (nor importing torch) when everything is cached, or when the inner scorer cannot count."""
        if not self._members.counts_tokens:
            return 0
        missing = self.missing(texts)
        return int(self._members.count_tokens(missing)) if missing else 0

    def score(self, texts: Sequence[str]) -> list[ScoredText]:
        texts = list(texts)
        found, missing = self._store.lookup(texts, ScoredText.from_json)
        self.hits += len(found)
        self.misses += len(missing)
        for start in range(0, len(missing), self.chunk_size):
            chunk = missing[start : start + self.chunk_size]
            try:
                results = self.inner.score(chunk)
            finally:  # a cancel that came during the chunk; where the chunk failed, its error is what is raised
                cancelled = self._progress.take() if self._progress is not None else None
            if len(results) != len(chunk):
                raise RuntimeError(f"scorer returned {len(results)} results for {len(chunk)} texts")
            self._store.put(r.to_json() for r in results)  # committed now: a crash later keeps it
            found.update((r.text, r) for r in results)
            if cancelled is not None:
                raise cancelled  # only now: the chunk the cancel came during is kept
        return [found[text] for text in texts]

    def store(self, results: Sequence[ScoredText]) -> int:
        """Keep scores computed elsewhere (by a Ray worker), committed at once; those already cached (by a
        concurrent run) are kept as they are. Returns how many were stored."""
        missing = set(self.missing([r.text for r in results]))
        self._store.put(r.to_json() for r in results if r.text in missing)
        return len(missing)

    @property
    def score_cache(self) -> CachedScorer:
        return self

    @property
    def _members(self) -> ScorerBase:
        """``inner`` with every optional member, seen afresh: ``inner`` may be replaced (a wrapper put in front)."""
        return optional(self.inner)

    def close(self) -> None:
        self._store.close()

    def unload(self) -> Callable[[], bool]:
        """The scorer's weights let go; of a scorer that cannot say, assume that something still holds them."""
        return self._members.unload()


class _DeferredCancel:
    """The progress hook handed to the inner scorer: it passes each count on to ``callback`` and holds a
    ``Cancelled`` that ``callback`` raises (the run's ``begin`` stops work that way) instead of letting it unwind
    through the inner scorer, which would throw away the chunk it is scoring, finished or nearly so (a web run
    cancelled during its second chunk lost it whole: issue 36). ``CachedScorer.score`` raises it once that chunk
    is committed, so a cancel costs at most the rest of one chunk and keeps all of it."""

    def __init__(self, callback: Callable[[int], None]) -> None:
        self.callback = callback
        self._held: Cancelled | None = None

    def __call__(self, count: int) -> None:
        try:
            self.callback(count)
        except Cancelled as cancelled:
            if self._held is None:
                self._held = cancelled

    def take(self) -> Cancelled | None:
        """The held ``Cancelled`` (None when no cancel came), no longer held."""
        held, self._held = self._held, None
        return held


def cache_stats(scorer: Scorer) -> dict[str, Any] | None:
    """What a run records of its scorer's cache: where it is, texts found there and computed, damaged entries
    dropped, and why scores were not saved (a full disk); None for a scorer without a cache."""
    members = optional(scorer)
    use, cache = members.cache_use, members.score_cache
    if use is None:
        return None
    return {"path": str(use.path), "hits": use.hits, "misses": use.misses,
            "dropped_corrupt": cache.dropped if cache is not None else 0,
            "not_saved": cache.problem if cache is not None else None}
