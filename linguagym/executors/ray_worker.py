"""What runs inside one Ray actor: one model (or classifier), loaded once, working through shard after shard.

A *task* says what a worker loads and how it answers a shard: ``ScoringTask`` (a language model's surprisals,
for ``linguagym run``) and ``ClassifyingTask`` (a sentiment classifier's predictions, for ``lct test``). Tasks
are plain picklable objects; ``Worker`` is plain Python too (the driver wraps it with ``ray.remote``), so
importing this module imports no Ray. Errors come back as values, never raised: the driver can then tell a
worker that failed (a model it cannot load, a text too long: not worth retrying) from a worker that died
(retried elsewhere), and Ray prints no traceback of its own.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
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


@dataclass(frozen=True)
class ScoringTask:
    """Score texts with the model of ``settings``; a shard's answer is ``ScoredText.to_json`` dicts in order.
    ``loader`` builds the scorer (default ``load_worker_scorer``); it must be picklable."""

    settings: RunSettings
    loader: Loader | None = None

    @property
    def label(self) -> str:
        return f"model {self.settings.model!r}"

    @property
    def wants_gpu(self) -> bool:
        return not self.settings.device.startswith("cpu")

    def load(self) -> Any:
        scorer = (self.loader or load_worker_scorer)(self.settings)
        getattr(scorer, "loaded", None)  # the HF scorers load their weights on first access: load them now
        return scorer

    @staticmethod
    def run(scorer: Any, texts: list[str]) -> list[dict[str, Any]]:
        return [scored.to_json() for scored in scorer.score(texts)]


@dataclass(frozen=True)
class ClassifyingTask:
    """Predict the sentiment of texts with the classifier ``spec`` (``load_classifier``'s options in
    ``options``); a shard's answer is ``Prediction.as_dict`` dicts in order."""

    spec: str
    options: Mapping[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return f"classifier {self.spec!r}"

    @property
    def wants_gpu(self) -> bool:
        # Lexicons, endpoints and Python functions never touch a GPU; only local models can use one.
        lowered = self.spec.strip().lower()
        if lowered in ("vader", "textblob") or lowered.startswith(("http://", "https://", "python:")):
            return False
        return not str(self.options.get("device", "auto")).startswith("cpu")

    def load(self) -> Any:
        from linguagym.capabilities.classifiers.registry import load_classifier

        classifier = load_classifier(self.spec, **self.options)
        warm = getattr(classifier, "warm_up", None)  # local models load lazily: load them now, before any shard
        if callable(warm):
            warm()
        return classifier

    @staticmethod
    def run(classifier: Any, texts: list[str]) -> list[dict[str, Any]]:
        from linguagym.capabilities.testing import checked_predictions

        return [p.as_dict() for p in checked_predictions(classifier, texts, classifier.predict(texts))]


def failure(error: BaseException) -> dict[str, Any]:
    """An error as a value the driver can report: the text, and the hint of a linguagym error."""
    if isinstance(error, LinguagymError):
        return {"error": error.message, "hint": error.hint, "user_error": True}
    return {"error": f"{type(error).__name__}: {error}", "hint": None, "user_error": False}


class Worker:
    """One model copy. ``threads``: torch's CPU threads (the CPUs Ray reserved for this actor); None on GPUs."""

    def __init__(self, task: ScoringTask | ClassifyingTask, threads: int | None = None) -> None:
        if threads:
            os.environ["LINGUAGYM_THREADS"] = str(threads)  # read when torch is configured, at load
        self.task = task
        self.loaded: Any = None
        self.where = f"{socket.gethostname()} pid {os.getpid()}"

    def load(self) -> dict[str, Any]:
        """Load the model now, weights included, so that a model too large for this worker fails here, before
        any shard; answer with its identity."""
        try:
            self.loaded = self.task.load()
            return {"identity": dict(self.loaded.identity), "where": self.where}
        except Exception as error:  # noqa: BLE001 - reported by the driver, with the model's name
            return {**failure(error), "where": self.where}

    def run(self, texts: Sequence[str]) -> dict[str, Any]:
        """The answers for ``texts`` (one shard), in order."""
        try:
            assert self.loaded is not None, "load() first"
            return {"results": self.task.run(self.loaded, list(texts))}
        except Exception as error:  # noqa: BLE001
            return {**failure(error), "where": self.where}
