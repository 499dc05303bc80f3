"""The scoring task: what a worker (one Ray actor) loads and how it answers a shard of texts. The executor that
runs it knows it only as a task (``linguagym.executors.task.Task``); it is a plain picklable value."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from linguagym.scoring.protocol import Scorer, optional
from linguagym.scoring.spec import ScorerSpec

ScorerLoader = Callable[[ScorerSpec], Scorer]  # builds a worker's scorer; must be picklable


def load_worker_scorer(spec: ScorerSpec) -> Scorer:
    """The scorer of ``spec`` without the score cache (the driver alone writes the cache), with every other
    option of ``spec``, so that its identity is the one the driver's cached scorer has."""
    return spec.uncached().load()


@dataclass(frozen=True)
class ScoringTask:
    """Score texts with the model of ``spec``; a shard's answer is ``ScoredText.to_json`` dicts in order.
    ``loader`` builds the scorer (default ``load_worker_scorer``); it must be picklable."""

    spec: ScorerSpec
    loader: ScorerLoader | None = None

    @property
    def label(self) -> str:
        return f"model {self.spec.model!r}"

    @property
    def wants_gpu(self) -> bool:
        return not self.spec.device.startswith("cpu")

    def load(self) -> Scorer:
        scorer = (self.loader or load_worker_scorer)(self.spec)
        optional(scorer).warm_up()  # the HF scorers load their weights on first use: load them now
        return scorer

    @staticmethod
    def run(scorer: Scorer, texts: list[str]) -> list[dict[str, Any]]:
        return [scored.to_json() for scored in scorer.score(texts)]
