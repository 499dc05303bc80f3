"""Executors: where the sentences of a run are scored. The rest of a run (evaluation, outputs) never changes.

A run asks its executor for the scores of its unique texts. ``local`` scores them in this process through the
score cache, as linguagym always did; ``ray`` hands the texts missing from the cache to a pool of Ray actors
(one model copy each) and writes what they return into the same cache, so that the run then continues exactly
as a local one. Why a seam and not a flag inside ``run_suites``: the Ray code (connection, actor pool, retries)
stays out of the evaluation path, and importing linguagym never imports Ray.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from linguagym.errors import LinguagymError

if TYPE_CHECKING:
    from linguagym.evaluation.run import RunSettings
    from linguagym.scoring.protocol import ScoredText, Scorer

EXECUTORS = ("local", "ray")
RAY_INSTALL_HINT = "install it with: pip install 'linguagym[ray]'"


class ExecutorError(LinguagymError):
    """A run its executor could not carry out: Ray missing or unreachable, a worker that cannot load the model,
    a shard that kept failing. Nothing of the run's outputs is written."""


class Executor(Protocol):
    name: str

    def score(
        self, scorer: Scorer, texts: Sequence[str], settings: RunSettings, progress: Callable[[int], None] | None
    ) -> dict[str, ScoredText]:
        """The scores of every unique text of ``texts``; ``scorer`` is the run's own (cached) scorer, whose
        identity the scores must have. ``progress`` is advanced by tokens (or texts) as they are scored."""
        ...

    def describe(self) -> dict[str, Any]:
        """How the last ``score`` was carried out, for the run record (never a number of the results)."""
        ...

    def close(self) -> None:
        """Release what the executor started (a local Ray cluster)."""
        ...


class ClosingExecutor:
    """``with`` support for executors: ``close`` at the end of the block."""

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def make_executor(name: str = "local", *, address: str | None = None, workers: int | None = None) -> Executor:
    """The executor ``name`` (``local`` or ``ray``) with the command line's options; refuses options that do not
    apply, and Ray when it is not installed, before any work is done."""
    if name == "local":
        if address is not None or workers is not None:
            raise ExecutorError("--ray-address and --ray-workers apply to --executor ray",
                                hint="add --executor ray, or leave those options out")
        from linguagym.executors.local import LocalExecutor

        return LocalExecutor()
    if name == "ray":
        from linguagym.executors.ray_executor import RayExecutor

        return RayExecutor(address=address, workers=workers)
    raise ExecutorError(f"unknown executor {name!r}", hint="use one of " + ", ".join(EXECUTORS))
