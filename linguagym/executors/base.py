"""What every executor is (``Executor``), and the error one raises. Apart from ``make_executor`` so that the
executors themselves import this module, never the package that picks among them."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, Self, runtime_checkable

from linguagym.errors import LinguagymError

if TYPE_CHECKING:
    from linguagym.executors.task import AnswerCache, TaskFor
    from linguagym.scoring.protocol import ScoredText, Scorer
    from linguagym.scoring.spec import DescribesScorer, ScorerSpec

RAY_INSTALL_HINT = "install it with: pip install 'linguagym[ray]'"


class ExecutorError(LinguagymError):
    """A run its executor could not carry out: Ray missing or unreachable, a worker that cannot load the model,
    a shard that kept failing. Nothing of the run's outputs is written."""


class Executor(Protocol):
    name: str

    def score(
        self, scorer: Scorer, texts: Sequence[str], spec: ScorerSpec, progress: Callable[[int], None] | None
    ) -> dict[str, ScoredText]:
        """The scores of every unique text of ``texts``; ``scorer`` is the run's own (cached) scorer, whose
        identity the scores must have, and ``spec`` describes it (workers elsewhere load their own copy from
        it). ``progress`` is advanced by tokens (or texts) as they are scored."""
        ...

    def describe(self) -> dict[str, Any]:
        """How the last ``score`` was carried out, for the run record (never a number of the results)."""
        ...

    def close(self) -> None:
        """Release what the executor started (a local Ray cluster)."""
        ...

    def __enter__(self) -> Self:  # ``with`` closes it (``ClosingExecutor``)
        ...

    def __exit__(self, *exc_info: object) -> None:
        ...


@runtime_checkable
class SideBySide(Protocol):
    """An executor that runs several models (or classifiers) at once, filling their caches ahead of the ordinary
    local code, which then reads every number from them (the Ray executor)."""

    def prefill_scores(
        self, runs: Sequence[tuple[Scorer, Sequence[str], ScorerSpec | DescribesScorer]],
        progress: Callable[[int], None] | None = None,
    ) -> list[ExecutorError | None]:
        """Score what each (scorer, texts, spec) still misses, into each scorer's cache; each run's error or None."""
        ...

    def prefill_predictions(
        self, classifiers: Sequence[tuple[str, AnswerCache]], texts: Sequence[str], options: Mapping[str, Any],
        progress: Callable[[int], None] | None = None, *, task: TaskFor,
    ) -> list[ExecutorError | None]:
        """Predict what each (spec, prediction cache) still misses of ``texts``; each classifier's error or None."""
        ...


class ClosingExecutor:
    """``with`` support for executors: ``close`` at the end of the block."""

    def close(self) -> None:
        pass

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
