"""The local executor: texts are scored in this process, chunk by chunk, through the run's (cached) scorer."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from linguagym.executors.base import ClosingExecutor
from linguagym.scoring.engine.order import score_texts

if TYPE_CHECKING:
    from linguagym.scoring.protocol import ScoredText, Scorer
    from linguagym.scoring.spec import ScorerSpec


class LocalExecutor(ClosingExecutor):
    name = "local"

    def score(
        self, scorer: Scorer, texts: Sequence[str], spec: ScorerSpec, progress: Callable[[int], None] | None
    ) -> dict[str, ScoredText]:
        return score_texts(scorer, texts, progress)

    def describe(self) -> dict[str, Any]:
        return {"name": self.name}
