"""What runs inside one Ray actor: one task's model (or classifier), loaded once, working through shard after shard.

The task (``linguagym.executors.task.Task``) says what the worker loads and how it answers a shard; ``Worker``
is plain Python (the driver wraps it with ``ray.remote``), so importing this module imports no Ray. Errors come
back as values, never raised: the driver can then tell a worker that failed (a model it cannot load, a text too
long: not worth retrying) from a worker that died (retried elsewhere), and Ray prints no traceback of its own.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Sequence
from typing import Any

from linguagym.errors import LinguagymError
from linguagym.executors.task import Identified, Task


def failure(error: BaseException) -> dict[str, Any]:
    """An error as a value the driver can report: the text, and the hint of a linguagym error."""
    if isinstance(error, LinguagymError):
        return {"error": error.message, "hint": error.hint, "user_error": True}
    return {"error": f"{type(error).__name__}: {error}", "hint": None, "user_error": False}


class Worker:
    """One model copy. ``threads``: torch's CPU threads (the CPUs Ray reserved for this actor); None on GPUs."""

    def __init__(self, task: Task, threads: int | None = None) -> None:
        if threads:
            os.environ["LINGUAGYM_THREADS"] = str(threads)  # read when torch is configured, at load
        self.task = task
        self.loaded: Identified | None = None
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
