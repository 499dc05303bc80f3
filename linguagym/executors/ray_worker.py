"""What runs inside one Ray actor: the model, loaded once, scoring shard after shard.

The class is plain Python (the driver wraps it with ``ray.remote``), so importing it imports no Ray. Errors
come back as values, never raised: the driver can then tell a worker that failed (a model it cannot load, a
text too long: not worth retrying) from a worker that died (retried elsewhere), and Ray prints no traceback
of its own.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from linguagym.errors import LinguagymError

if TYPE_CHECKING:
    from linguagym.evaluation.run import RunSettings
    from linguagym.scoring.protocol import Scorer

Loader = Callable[["RunSettings"], "Scorer"]


def load_worker_scorer(settings: RunSettings) -> Scorer:
    """The run's scorer without the score cache (the driver alone writes the cache), with the run's settings, so
    that its identity is the one the driver's cache expects."""
    from pathlib import Path

    from linguagym.scoring.registry import load_scorer

    return load_scorer(
        settings.model, bos=settings.bos, dtype=settings.dtype, device=settings.device,
        batch_size=settings.batch_size, pll=settings.pll,
        cache_dir=Path(settings.cache_dir) if settings.cache_dir else None, score_cache=False,
    )


def failure(error: BaseException) -> dict[str, Any]:
    """An error as a value the driver can report: the text, and the hint of a linguagym error."""
    if isinstance(error, LinguagymError):
        return {"error": error.message, "hint": error.hint, "user_error": True}
    return {"error": f"{type(error).__name__}: {error}", "hint": None, "user_error": False}


class ScoringWorker:
    """One model copy. ``threads``: torch's CPU threads (the CPUs Ray reserved for this actor); None on GPUs."""

    def __init__(self, settings: RunSettings, loader: Loader | None = None, threads: int | None = None) -> None:
        if threads:
            os.environ["LINGUAGYM_THREADS"] = str(threads)  # read when torch is configured, at load
        self.settings = settings
        self.loader = loader or load_worker_scorer
        self.scorer: Scorer | None = None
        self.where = f"{socket.gethostname()} pid {os.getpid()}"

    def load(self) -> dict[str, Any]:
        """Load the model now, weights included, so that a model too large for this worker fails here, before
        any shard; answer with the scorer's identity."""
        try:
            self.scorer = self.loader(self.settings)
            identity = self.scorer.identity
            getattr(self.scorer, "loaded", None)  # the HF scorers load their weights on first access
            return {"identity": identity, "where": self.where}
        except Exception as error:  # noqa: BLE001 - reported by the driver, with the model's name
            return {**failure(error), "where": self.where}

    def score(self, texts: Sequence[str]) -> dict[str, Any]:
        """Scores of ``texts`` (one shard), as ``ScoredText.to_json`` dicts in order."""
        try:
            assert self.scorer is not None, "load() first"
            return {"results": [scored.to_json() for scored in self.scorer.score(list(texts))]}
        except Exception as error:  # noqa: BLE001
            return {**failure(error), "where": self.where}
