"""The Ray executor: the texts a run still has to score go to a pool of Ray actors, one model copy each; this
process (the driver) writes their results into the run's own score cache as they arrive.

Why the driver writes the cache: workers then need no shared disk and no cache of their own (only the model),
a finished shard survives a crash of the driver (a re-run finds it and recomputes nothing finished), and
there is one writer per cache file. After the pool is done the run reads every score from the cache and goes
on exactly as a local run.

Several models (``prefill_scores``) or classifiers (``prefill_predictions``) share one pool, side by side over
the cluster (see ``linguagym.executors.ray_pool`` for how workers are shared out and how faults are handled).
A model that fails there is returned as its error and the others go on; ``score`` (one model) raises it. The
workers run tasks of their owners: ``ScoringTask`` from scoring, and for classifiers the task their caller
names (this module knows nothing of classifiers but the ``AnswerCache`` protocol).
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from linguagym.executors.base import RAY_INSTALL_HINT, ClosingExecutor, ExecutorError
from linguagym.executors.ray_pool import Job, Pool
from linguagym.executors.shards import CacheWriter, Shard, plan_shards
from linguagym.executors.task import AnswerCache, TaskFor
from linguagym.scoring.engine.device import available_cpus
from linguagym.scoring.engine.order import counts_in_tokens, score_texts
from linguagym.scoring.protocol import ScoredText, Scorer, optional
from linguagym.scoring.spec import DescribesScorer, ScorerSpec, as_spec
from linguagym.scoring.task import ScorerLoader, ScoringTask

Progress = Callable[[int], None]


def import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ExecutorError("`executor` ray needs Ray, which is not installed", hint=RAY_INSTALL_HINT,
                            settings=["executor"]) from None
    return ray


class RayExecutor(ClosingExecutor):
    """Scores on a Ray cluster: the one at ``address`` (``ray.init(address=...)``), else the one this process is
    already connected to, else a local cluster started here (and shut down by ``close``).

    ``workers``: actors, each with one model copy (default: the cluster's GPUs, else its CPUs; never more than
    there are shards). ``retries``: how often one shard may lose its worker. ``shard_texts``: cut shards this
    small instead of as a local run's chunks (see ``linguagym.executors.shards``). ``loader``: builds a
    worker's scorer from the run's ``ScorerSpec`` (default ``load_worker_scorer``); it must be picklable.
    """

    name = "ray"

    def __init__(self, *, address: str | None = None, workers: int | None = None, retries: int = 2,
                 shard_texts: int | None = None, loader: ScorerLoader | None = None) -> None:
        if workers is not None and workers < 1:
            raise ExecutorError(f"`ray_workers` must be at least 1, not {workers}", settings=["ray_workers"])
        if retries < 0:
            raise ValueError(f"retries must be 0 or more, not {retries}")
        self.ray = import_ray()
        self.address = address
        self.workers = workers
        self.retries = retries
        self.shard_texts = shard_texts
        self.loader = loader
        self.started_cluster = False
        self.cluster = "already connected"  # or the address joined, or "local" (started here)
        self._last: dict[str, Any] = {}  # how the last run (or set of classifiers) was carried out
        self._pool_record: dict[str, Any] = {}
        self._records: dict[str, dict[str, Any]] = {}  # per model identity, from the last prefill
        self._held: dict[str, dict[str, ScoredText]] = {}  # scores of scorers without a cache, until asked for
        self._written: dict[str, int] = {}  # per model identity: texts a prefill wrote into its cache

    def connect(self) -> None:
        """Join or start the cluster, offline and quietly (no dashboard, no usage report, no worker logs)."""
        ray = self.ray
        if ray.is_initialized():
            return
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        quiet = {"include_dashboard": False, "log_to_driver": False, "logging_level": logging.ERROR}
        address = self.address or os.environ.get("RAY_ADDRESS")
        try:
            if address:
                _check_reachable(address)  # ray.init itself retries an unreachable address for minutes
                ray.init(address=address, **quiet)
            else:
                ray.init(num_cpus=max(self.workers or 0, available_cpus()), **quiet)
                self.started_cluster = True
        except (ConnectionError, RuntimeError, ValueError) as error:
            raise ExecutorError(f"cannot connect to the Ray cluster at {address or 'a new local cluster'}: {error}",
                                hint="check the address (`ray status` on the head node shows it), or leave "
                                "`ray_address` out to start a local cluster", settings=["ray_address"]) from None
        self.cluster = address or "local"

    def close(self) -> None:
        if self.started_cluster and self.ray.is_initialized():
            self.ray.shutdown()
        self.started_cluster = False

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, **self._last}

    def score(
        self, scorer: Scorer, texts: Sequence[str], spec: ScorerSpec, progress: Callable[[int], None] | None
    ) -> dict[str, ScoredText]:
        key = _key(scorer)
        earlier = self._records.pop(key, None)  # from a prefill_scores of several models
        [error] = self.prefill_scores([(scorer, texts, spec)], progress)
        record = self._records.pop(key)
        self._last = earlier if earlier is not None and not record["shards"] else record
        if error is not None:
            raise error
        held = self._held.pop(key, None)
        if held is not None:  # no cache: the scores were kept in memory
            return {text: held[text] for text in dict.fromkeys(texts)}
        scores = score_texts(scorer, texts)  # every text is in the cache now: nothing reaches the model
        written = self._written.pop(key, 0)
        if (cache := optional(scorer).score_cache) is not None:  # count as a local run does: found vs computed
            cache.hits -= written
            cache.misses += written
        return scores

    def prefill_scores(
        self, runs: Sequence[tuple[Scorer, Sequence[str], ScorerSpec | DescribesScorer]],
        progress: Progress | None = None,
    ) -> list[ExecutorError | None]:
        """Score what each (scorer, texts, spec) still misses, every model side by side on the cluster, into each
        scorer's cache (or, without one, into memory for ``score`` to hand back). ``spec``: the ``ScorerSpec``
        the workers load their copy from, or what gives it (run settings). Returns each run's error, or None; a
        failed model leaves the others untouched. ``progress`` is advanced by tokens (texts for scorers that
        cannot count them) across all runs."""
        jobs: list[Job] = []
        writers: list[CacheWriter | None] = []
        for scorer, texts, described in runs:
            cache = optional(scorer).score_cache
            held = None if cache is not None else self._held.setdefault(_key(scorer), {})
            shards = plan_shards(scorer, [t for t in texts if t not in held] if held is not None else texts,
                                 self.shard_texts)
            writer = CacheWriter(cache) if cache is not None and shards else None
            writers.append(writer)
            store = _score_store(writer, held, progress, counts_in_tokens(scorer))
            task = ScoringTask(as_spec(described), self.loader)
            jobs.append(Job(task, dict(scorer.identity), shards, store))
        try:
            self._run(jobs)
        finally:
            for writer in writers:
                if writer is not None:
                    writer.close()
        for (scorer, _, _), job, writer in zip(runs, jobs, writers, strict=True):
            key = _key(scorer)
            self._records[key] = {**self._pool_record, **job.describe()}
            if writer is not None:
                self._written[key] = self._written.get(key, 0) + writer.written
        return [job.error for job in jobs]

    def prefill_predictions(
        self, classifiers: Sequence[tuple[str, AnswerCache]], texts: Sequence[str], options: Mapping[str, Any],
        progress: Progress | None = None, *, task: TaskFor,
    ) -> list[ExecutorError | None]:
        """Predict what each (spec, its prediction cache) still misses of ``texts``, every classifier side by
        side on the cluster, into its cache. ``task(spec, cache, options)`` is the task a worker runs for spec
        (``ClassifyingTask.for_cache``); ``options``: what it needs besides (``load_classifier``'s keyword
        arguments). Returns each classifier's error, or None."""
        jobs = []
        for spec, cache in classifiers:
            missing = cache.missing(list(dict.fromkeys(texts)))
            size = self.shard_texts or cache.chunk_size
            shards = [Shard(i, tuple(missing[k:k + size]), sum(map(len, missing[k:k + size])), "characters")
                      for i, k in enumerate(range(0, len(missing), size))]
            worker_task = task(spec, cache, options)

            def store(shard: Shard, answers: list[Any], cache: AnswerCache = cache, decode=worker_task.decode) -> None:
                values = decode(answers)
                if len(values) != len(shard.texts):
                    raise RuntimeError(f"a Ray worker returned {len(values)} predictions for {len(shard.texts)}")
                cache.store(shard.texts, values)  # committed: a crash of this process later keeps it
                if progress is not None:
                    progress(len(values))

            jobs.append(Job(worker_task, dict(cache.identity), shards, store))
        self._run(jobs)
        self._last = {**self._pool_record,
                      "classifiers": {spec: job.describe() for (spec, _), job in zip(classifiers, jobs, strict=True)}}
        return [job.error for job in jobs]

    def _run(self, jobs: list[Job]) -> None:
        """The pool over ``jobs``, connecting to the cluster only when some job has work."""
        self._pool_record = {}
        if not any(job.shards for job in jobs):
            return
        self.connect()
        working = [job for job in jobs if job.shards]
        self._pool_record = {"cluster": self.cluster,
                             **Pool(self.ray, working, workers=self.workers, retries=self.retries).run()}


def _score_store(writer: CacheWriter | None, held: dict[str, ScoredText] | None, progress: Progress | None,
                 by_tokens: bool) -> Callable[[Shard, list[dict[str, Any]]], None]:
    """What the driver does with one finished shard of scores: into the cache (committed at once) or memory."""

    def store(shard: Shard, answers: list[dict[str, Any]]) -> None:
        results = [ScoredText.from_json(item) for item in answers]
        if [r.text for r in results] != list(shard.texts):
            raise RuntimeError(f"a Ray worker returned {len(results)} results for a shard of {len(shard.texts)} texts")
        if writer is not None:
            writer.write(results)
        else:
            assert held is not None
            held.update((r.text, r) for r in results)
        if progress is not None:  # in the unit run_suites announced (see work_to_do)
            progress(sum(len(r.tokens) for r in results) if by_tokens else len(results))

    return store


def _check_reachable(address: str, timeout: float = 10.0) -> None:
    """A ConnectionError at once when ``[ray://]host:port`` accepts no connection ("auto" is not checked)."""
    import socket

    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as error:
        raise ConnectionError(f"nothing answers at {host}:{port} ({error.strerror or error})") from None


def _key(scorer: Any) -> str:
    return json.dumps(scorer.identity, sort_keys=True, default=str)
