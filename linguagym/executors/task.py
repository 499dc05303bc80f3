"""What an executor runs: a *task* says what a worker loads (once) and how it answers a shard of texts with it.

Tasks belong to their owners (``linguagym.scoring.task.ScoringTask``, the classifiers' ``ClassifyingTask``);
executors know them only through these protocols. A task is a plain picklable value: it travels to the worker.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol


class Identified(Protocol):
    """What a task loads: a model (or classifier) that says what makes its answers what they are."""

    @property
    def identity(self) -> Mapping[str, Any]: ...


class Task(Protocol):
    @property
    def label(self) -> str:
        """How messages name what the task loads: ``model 'gpt2'``."""
        ...

    @property
    def wants_gpu(self) -> bool:
        """Whether a worker should take a GPU for it where the cluster has some."""
        ...

    def load(self) -> Identified:
        """Load the model now, weights included, so that one that cannot load fails before any shard."""
        ...

    def run(self, loaded: Any, texts: list[str]) -> list[Any]:
        """The answers for ``texts`` (one shard) from what ``load`` returned: JSON-able, one per text, in order."""
        ...


class DecodingTask(Task, Protocol):
    def decode(self, answers: list[Any]) -> list[Any]:
        """A worker's answers (JSON) as the values its owner's cache keeps, on the driver."""
        ...


class AnswerCache(Protocol):
    """A cache of answers per text, keyed by what answers them (a classifier's prediction cache)."""

    chunk_size: int  # texts it hands to its model at a time: a shard's size

    @property
    def identity(self) -> dict[str, Any]: ...

    def missing(self, texts: Sequence[str]) -> list[str]:
        """The unique ``texts`` without an answer yet, in order."""
        ...

    def store(self, texts: Sequence[str], values: Sequence[Any]) -> None:
        """Keep answers found elsewhere (by a worker) for ``texts``, committed at once."""
        ...


# (spec, its cache, options) -> the task that answers for spec on a worker
TaskFor = Callable[[str, AnswerCache, Mapping[str, Any]], DecodingTask]
