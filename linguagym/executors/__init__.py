"""Executors: where texts are scored (or classified). The rest of a run (evaluation, outputs) never changes.

A run asks its executor for the scores of its unique texts. ``local`` scores them in this process through the
score cache, as linguagym always did; ``ray`` hands the texts missing from the cache to a pool of Ray actors
(one model copy each) and writes what they return into the same cache, so that the run then continues exactly
as a local one. Why a seam and not a flag inside ``run_suites``: the Ray code (connection, actor pool, retries)
stays out of the evaluation path, and importing linguagym never imports Ray. An executor knows scorers, tasks
(``linguagym.executors.task``), shards and its workers; nothing of suites, runs or classifiers.
"""

from __future__ import annotations

from linguagym.executors.base import RAY_INSTALL_HINT, ClosingExecutor, Executor, ExecutorError
from linguagym.executors.local import LocalExecutor
from linguagym.extras import require_extra

__all__ = ["EXECUTORS", "RAY_INSTALL_HINT", "ClosingExecutor", "Executor", "ExecutorError", "make_executor"]

EXECUTORS = ("local", "ray")


def make_executor(name: str = "local", *, address: str | None = None, workers: int | None = None) -> Executor:
    """The executor ``name`` (``local`` or ``ray``) with the command line's options; refuses options that do not
    apply, and Ray when it is not installed, before any work is done."""
    if name == "local":
        if address is not None or workers is not None:
            raise ExecutorError("`ray_address` and `ray_workers` apply to `executor` ray only",
                                hint="set `executor` ray, or leave those settings out",
                                settings=["ray_address", "ray_workers", "executor"])

        return LocalExecutor()
    if name == "ray":
        require_extra("ray", "ray", needed_by="the Ray executor", error=ExecutorError)  # before any work
        from linguagym.executors.ray_executor import RayExecutor  # ~6 ms; --help loads this package

        return RayExecutor(address=address, workers=workers)
    raise ExecutorError(f"unknown executor {name!r}", hint="use one of " + ", ".join(EXECUTORS))
