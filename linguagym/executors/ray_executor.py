"""The Ray executor: the texts a run still has to score go to a pool of Ray actors, one model copy each; this
process (the driver) writes their results into the run's own score cache as they arrive.

Why the driver writes the cache: workers then need no shared disk and no cache of their own (only the model),
a finished shard survives a crash of the driver (a re-run finds it and recomputes nothing finished), and
there is one writer per cache file. After the pool is done the run reads every score from the cache and goes
on exactly as a local run.

Faults, handled here rather than by Ray's own restarts so that the limits are ours and visible:
- a worker that dies (process killed, node lost, out of memory) has its shard put back in the queue, taken by
  the next free worker, and is replaced by a fresh actor; a shard whose worker died more than ``retries``
  times, or workers that keep dying while loading the model, stop the run with an ``ExecutorError``;
- a worker that reports an error (a model it cannot load, a text too long) stops the run at once with the
  model's name and the worker's message: retrying would fail the same way.
Either way nothing of the run's outputs is written: those are written only after the run succeeds.
"""

from __future__ import annotations

import logging
import os
from collections import deque
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from linguagym.executors import RAY_INSTALL_HINT, ClosingExecutor, ExecutorError
from linguagym.executors.ray_worker import Loader, ScoringWorker
from linguagym.executors.shards import CacheWriter, Shard, plan_shards
from linguagym.scoring.protocol import ScoredText

if TYPE_CHECKING:
    from linguagym.evaluation.run import RunSettings
    from linguagym.scoring.protocol import Scorer

MEMORY_HINT = ("the model may be too large for one worker: use a smaller --dtype or --batch-size, or workers with "
               "more (GPU) memory")


def import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ExecutorError("--executor ray needs Ray, which is not installed", hint=RAY_INSTALL_HINT) from None
    return ray


class RayExecutor(ClosingExecutor):
    """Scores on a Ray cluster: the one at ``address`` (``ray.init(address=...)``), else the one this process is
    already connected to, else a local cluster started here (and shut down by ``close``).

    ``workers``: actors, each with one model copy (default: the cluster's GPUs, else its CPUs; never more than
    there are shards). ``retries``: how often one shard may lose its worker. ``shard_texts``: cut shards this
    small instead of as a local run's chunks (see ``linguagym.executors.shards``). ``loader``: builds a
    worker's scorer from the run's settings (default ``load_worker_scorer``); it must be picklable.
    """

    name = "ray"

    def __init__(self, *, address: str | None = None, workers: int | None = None, retries: int = 2,
                 shard_texts: int | None = None, loader: Loader | None = None) -> None:
        if workers is not None and workers < 1:
            raise ExecutorError(f"--ray-workers must be at least 1, not {workers}")
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
        self._last: dict[str, Any] = {}

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
                from linguagym.scoring.device import available_cpus

                ray.init(num_cpus=max(self.workers or 0, available_cpus()), **quiet)
                self.started_cluster = True
        except (ConnectionError, RuntimeError, ValueError) as error:
            raise ExecutorError(f"cannot connect to the Ray cluster at {address or 'a new local cluster'}: {error}",
                                hint="check the address (`ray status` on the head node shows it), or leave "
                                "--ray-address out to start a local cluster") from None
        self.cluster = address or "local"

    def close(self) -> None:
        if self.started_cluster and self.ray.is_initialized():
            self.ray.shutdown()
        self.started_cluster = False

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, **self._last}

    def score(
        self, scorer: Scorer, texts: Sequence[str], settings: RunSettings, progress: Callable[[int], None] | None
    ) -> dict[str, ScoredText]:
        from linguagym.evaluation.run import score_texts

        shards = plan_shards(scorer, texts, self.shard_texts)
        self._last = {"shards": len(shards), "texts": sum(len(s.texts) for s in shards), "worker_deaths": 0}
        cached = hasattr(scorer, "missing") and hasattr(scorer, "cache_dir")
        writer = CacheWriter(scorer) if cached and shards else None
        computed: dict[str, ScoredText] = {}
        by_tokens = hasattr(scorer, "count_tokens") and hasattr(scorer, "progress")

        def store(results: list[ScoredText]) -> None:
            if writer is not None:
                writer.write(results)  # committed: a crash of this process later keeps it
            else:
                computed.update((r.text, r) for r in results)
            if progress is not None:  # in the unit run_suites announced (see work_to_do)
                progress(sum(len(r.tokens) for r in results) if by_tokens else len(results))

        try:
            if shards:
                self.connect()
                self._last["cluster"] = self.cluster
                _Pool(self, settings, scorer.identity, self._last).run(shards, store)
        finally:
            if writer is not None:
                writer.close()
        if not cached:
            return {text: computed[text] for text in dict.fromkeys(texts)}
        scores = score_texts(scorer, texts)  # every text is in the cache now: nothing reaches the model
        if writer is not None and hasattr(scorer, "hits"):  # count as a local run does: found vs computed
            scorer.hits -= writer.written
            scorer.misses += writer.written
        return scores


class _Pool:
    """One pass of a run's shards over freshly started actors; they are killed when it ends, however it ends."""

    def __init__(self, executor: RayExecutor, settings: RunSettings, identity: dict[str, Any],
                 record: dict[str, Any]) -> None:
        self.ray = executor.ray
        self.executor = executor
        self.settings = settings
        self.identity = identity
        self.record = record
        self.pending: dict[Any, tuple[Any, Shard | None]] = {}  # object ref -> (actor, shard; None: loading)
        self.actors: list[Any] = []
        self.queue: deque[Shard] = deque()
        self.attempts: dict[int, int] = {}  # shard index -> workers lost while scoring it
        self.load_deaths = 0

    def run(self, shards: list[Shard], store: Callable[[list[ScoredText]], None]) -> None:
        ray = self.ray
        options, count = self._actor_options(len(shards))
        self.record.update(workers=count, worker_resources=options)
        self.remote = ray.remote(ScoringWorker).options(max_restarts=0, max_task_retries=0, **options)
        self.threads = options.get("num_cpus") if "num_gpus" not in options else None
        self.queue.extend(shards)
        try:
            for _ in range(count):
                self._start()
            while self.pending:
                [ref], _ = ray.wait(list(self.pending), num_returns=1)
                actor, shard = self.pending.pop(ref)
                try:
                    answer = ray.get(ref)
                except ray.exceptions.RayActorError as death:
                    self._lost(actor, shard, death)
                    continue
                if "error" in answer:
                    raise self._worker_error(shard, answer)
                if shard is None:
                    self._check_identity(answer)
                else:
                    store(self._results(shard, answer))
                if self.queue:
                    shard = self.queue.popleft()
                    self.pending[actor.score.remote(shard.texts)] = (actor, shard)
                else:
                    self._forget(actor)
        finally:
            for actor in self.actors:
                ray.kill(actor, no_restart=True)

    def _start(self) -> None:
        """A new actor, asked at once to load the model."""
        actor = self.remote.remote(self.settings, self.executor.loader, self.threads)
        self.actors.append(actor)
        self.pending[actor.load.remote()] = (actor, None)

    def _lost(self, actor: Any, shard: Shard | None, death: BaseException) -> None:
        """A worker died: its shard goes back to the front of the queue and a fresh worker is started, within
        the retry limits."""
        self.record["worker_deaths"] += 1
        self._forget(actor)
        model, last, retries = self.settings.model, _first_line(death), self.executor.retries
        if shard is None:
            self.load_deaths += 1
            if self.load_deaths > retries:
                raise ExecutorError(f"Ray workers died {_times(self.load_deaths)} while loading model {model!r}; "
                                    f"the last: {last}", hint=MEMORY_HINT) from None
        else:
            tries = self.attempts[shard.index] = self.attempts.get(shard.index, 0) + 1
            if tries > retries:
                raise ExecutorError(f"a shard of {len(shard.texts)} texts lost its Ray worker {_times(tries)} scoring "
                                    f"with {model!r}; the last: {last}", hint=MEMORY_HINT) from None
            self.queue.appendleft(shard)
        if self.queue:
            self._start()

    def _actor_options(self, shards: int) -> tuple[dict[str, Any], int]:
        """One GPU per actor where the cluster has GPUs (unless the run asked for the CPU), else CPUs: the
        cluster's CPUs shared out, at least one each. How many: ``workers``, else one per GPU or CPU."""
        resources = self.ray.cluster_resources()
        gpus, cpus = int(resources.get("GPU", 0)), int(resources.get("CPU", 0))
        use_gpus = gpus > 0 and not self.settings.device.startswith("cpu")
        kind, available = ("GPU", gpus) if use_gpus else ("CPU", cpus)
        wanted = self.executor.workers or available
        if wanted > available or available == 0:
            raise ExecutorError(f"{wanted} Ray workers asked for, but the cluster has {available} {kind}s",
                                hint="pass a smaller --ray-workers, or add nodes to the cluster")
        count = min(wanted, shards)
        options = {"num_gpus": 1} if use_gpus else {"num_cpus": max(1, available // wanted)}
        return options, count

    def _forget(self, actor: Any) -> None:
        """Let go of an actor that died or has no more work, so that its resources are free at once."""
        if actor in self.actors:
            self.actors.remove(actor)
            self.ray.kill(actor, no_restart=True)

    def _check_identity(self, answer: dict[str, Any]) -> None:
        found = answer["identity"]
        if found == self.identity:
            return
        keys = sorted(k for k in set(found) | set(self.identity) if found.get(k) != self.identity.get(k))
        shown = "; ".join(f"{k}: worker {found.get(k)!r}, driver {self.identity.get(k)!r}" for k in keys)
        hint = "run the driver with the same library versions as the workers"
        if "device" in keys:
            hint = f"pass --device {found.get('device')} (the workers' device) so that both agree"
        raise ExecutorError(
            f"the Ray worker on {answer['where']} would score {self.settings.model!r} differently from this process "
            f"({shown}), so its scores could not go into this run's cache", hint=hint)

    def _worker_error(self, shard: Shard | None, answer: dict[str, Any]) -> ExecutorError:
        doing = "failed to load" if shard is None else "failed while scoring"
        hint = answer.get("hint") or (None if answer.get("user_error") else MEMORY_HINT)
        return ExecutorError(f"model {self.settings.model!r} {doing} on the Ray worker on {answer['where']}: "
                             f"{answer['error']}", hint=hint)

    @staticmethod
    def _results(shard: Shard | None, answer: dict[str, Any]) -> list[ScoredText]:
        assert shard is not None
        results = [ScoredText.from_json(item) for item in answer["results"]]
        if [r.text for r in results] != list(shard.texts):
            raise RuntimeError(f"a Ray worker returned {len(results)} results for a shard of {len(shard.texts)} texts")
        return results


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


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def _times(count: int) -> str:
    return "1 time" if count == 1 else f"{count} times"
