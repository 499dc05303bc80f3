"""The local executor: texts are scored in this process, chunk by chunk, through the run's (cached) scorer."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from linguagym.executors import ClosingExecutor

if TYPE_CHECKING:
    from linguagym.evaluation.run import RunSettings
    from linguagym.scoring.protocol import ScoredText, Scorer


class LocalExecutor(ClosingExecutor):
    name = "local"

    def score(
        self, scorer: Scorer, texts: Sequence[str], settings: RunSettings, progress: Callable[[int], None] | None
    ) -> dict[str, ScoredText]:
        from linguagym.evaluation.run import score_texts

        return score_texts(scorer, texts, progress)

    def describe(self) -> dict[str, Any]:
        return {"name": self.name}
