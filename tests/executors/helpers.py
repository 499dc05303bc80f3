"""Worker-side instruments for the Ray tests: a loader that logs every shard a worker returns, and can kill its
own worker or fail to load, as a real fault would."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from linguagym.scoring.protocol import WarmsUp
from linguagym.scoring.task import load_worker_scorer


@dataclass(frozen=True)
class LoggingLoader:
    """Loads the run's scorer (from its ``ScorerSpec``) in a worker; ``log`` gets one line per text of every shard
    the worker returns.

    ``kill_marker``: the first worker to reach its shard number ``kill_at`` creates this file, scores the shard
    and then kills its own process before answering (the work is lost, as in a real crash). ``kill_at_load``:
    every worker kills itself while loading. ``fail_load``: loading raises a RuntimeError with this message.
    ``identity_change``: the scorer claims other identity fields."""

    log: str
    kill_marker: str | None = None
    kill_at: int = 2
    kill_at_load: bool = False
    fail_load: str | None = None
    identity_change: tuple[tuple[str, Any], ...] = ()

    def __call__(self, spec):
        if self.kill_at_load:
            os.kill(os.getpid(), signal.SIGKILL)
        if self.fail_load:
            raise RuntimeError(self.fail_load)
        return LoggedScorer(load_worker_scorer(spec), self)


class LoggedScorer:
    def __init__(self, inner, loader: LoggingLoader) -> None:
        self.inner = inner
        self.loader = loader
        self.calls = 0

    @property
    def identity(self) -> dict[str, Any]:
        return {**self.inner.identity, **dict(self.loader.identity_change)}

    def warm_up(self) -> None:
        if isinstance(self.inner, WarmsUp):
            self.inner.warm_up()

    def score(self, texts: Sequence[str]):
        self.calls += 1
        results = self.inner.score(texts)
        if self.loader.kill_marker and self.calls == self.loader.kill_at:
            try:
                os.close(os.open(self.loader.kill_marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            except FileExistsError:
                pass
            else:
                os.kill(os.getpid(), signal.SIGKILL)
        with open(self.loader.log, "a", encoding="utf-8") as handle:
            handle.write("".join(json.dumps(text) + "\n" for text in texts))
        return results


def logged_texts(log: Path) -> Counter[str]:
    """How often each text was returned by a worker."""
    if not log.exists():
        return Counter()
    return Counter(json.loads(line) for line in log.read_text(encoding="utf-8").splitlines())


def cache_entries(path: Path) -> int:
    """Entries in a score cache file."""
    with sqlite3.connect(path) as db:
        return db.execute("SELECT COUNT(*) FROM scores").fetchone()[0]


def cache_rows(path: Path) -> dict[str, bytes]:
    """Every entry of a score cache file: key -> stored JSON payload."""
    with sqlite3.connect(path) as db:
        return dict(db.execute("SELECT key, payload FROM scores").fetchall())


def broken_labels(texts: list[str]) -> list[str]:
    """A Python classifier that fails on every call, as a classifier with a bug would."""
    raise RuntimeError("the sentiment service is down")


@dataclass(frozen=True)
class FailingFor:
    """Loads the run's scorer, but fails to load model ``model`` (its weights do not fit, say)."""

    model: str
    message: str = "CUDA out of memory. Tried to allocate 20.00 GiB"

    def __call__(self, spec):
        if spec.model == self.model:
            raise RuntimeError(self.message)
        return load_worker_scorer(spec)
