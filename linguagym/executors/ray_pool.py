"""The actor pool behind the Ray executor: several jobs (one model or classifier each) share the cluster's workers.

Each actor loads one job's model once and takes that job's shards one after another, heaviest first. The pool
keeps at most ``slots`` actors alive; a slot that frees up (its job has no shard left, its actor died, its job
failed) goes to the job with the most work left per actor it already has, so many models spread over the
cluster side by side and a big model gets more workers than a small one once the small ones are done.

Faults, handled here rather than by Ray's own restarts so that the limits are ours and visible:
- a worker that dies (process killed, node lost, out of memory) has its shard put back at the front of its
  job's queue, and a fresh actor takes the slot; a shard whose worker died more than ``retries`` times, or a
  job whose workers keep dying while loading the model, fails that job;
- a worker that reports an error (a model it cannot load, a model too large for it, a text too long) fails its
  job at once with the worker's message: retrying would fail the same way;
- a worker whose model would answer with another identity than the driver's (other device, other library
  versions) fails its job: its answers could not go into the driver's cache.
A failed job stops alone: its actors are killed, its queue dropped, and the other jobs go on. The caller reads
``job.error``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from linguagym.executors.base import ExecutorError
from linguagym.executors.ray_worker import Worker
from linguagym.executors.shards import Shard
from linguagym.executors.task import Task

MEMORY_HINT = ("the model may be too large for one worker: use a smaller `dtype` or `batch_size`, or workers with "
               "more (GPU) memory")
MEMORY_SETTINGS = ("dtype", "batch_size")  # the settings MEMORY_HINT names


@dataclass(eq=False)
class Job:
    """One model's (or classifier's) work: ``store(shard, answers)`` is called on the driver for each finished
    shard, with the worker's answers (JSON dicts) in the shard's order."""

    task: Task
    identity: dict[str, Any]
    shards: Sequence[Shard]
    store: Callable[[Shard, list[dict[str, Any]]], None]
    error: ExecutorError | None = None
    queue: deque[Shard] = field(default_factory=deque)
    attempts: dict[int, int] = field(default_factory=dict)  # shard index -> workers lost while scoring it
    load_deaths: int = 0
    deaths: int = 0
    started: int = 0  # actors started for this job, in all
    loading: int = 0  # actors of this job still loading (each will take a shard)
    live: int = 0
    peak: int = 0  # the most actors it had at once

    def __post_init__(self) -> None:
        self.queue.extend(self.shards)

    @property
    def label(self) -> str:
        return self.task.label

    @property
    def left(self) -> int:
        return sum(shard.weight for shard in self.queue)

    def describe(self) -> dict[str, Any]:
        return {"shards": len(self.shards), "texts": sum(len(s.texts) for s in self.shards), "workers": self.peak,
                "worker_deaths": self.deaths}


class Pool:
    """One pass of some jobs over freshly started actors; they are all killed when it ends, however it ends."""

    def __init__(self, ray: Any, jobs: Sequence[Job], *, workers: int | None, retries: int) -> None:
        self.ray = ray
        self.jobs = list(jobs)
        self.workers = workers
        self.retries = retries
        self.pending: dict[Any, tuple[Any, Job, Shard | None]] = {}  # object ref -> (actor, job, shard; None: loading)
        self.owner: dict[Any, Job] = {}  # live actor -> its job
        self.record: dict[str, Any] = {}

    def run(self) -> dict[str, Any]:
        """Work every job's queue to the end (or to its error); returns how it went, for the run record."""
        ray = self.ray
        gpus, self.slots, self.cpus_each = self._plan()
        self.gpus = gpus
        self.actor_class = ray.remote(Worker)
        self.record = {"pool_workers": self.slots, "pool_jobs": len(self.jobs),
                       "worker_resources": {"num_gpus": 1} if gpus else {"num_cpus": self.cpus_each}}
        try:
            self._fill()
            while self.pending:
                [ref], _ = ray.wait(list(self.pending), num_returns=1)
                actor, job, shard = self.pending.pop(ref)
                try:
                    answer = ray.get(ref)
                except ray.exceptions.RayActorError as death:
                    self._lost(actor, job, shard, death)
                    continue
                if "error" in answer:
                    self._fail(job, self._worker_error(job, shard, answer))
                    continue
                if shard is None:
                    job.loading -= 1
                    problem = self._identity_problem(job, answer)
                    if problem is not None:
                        self._fail(job, problem)
                        continue
                else:
                    job.store(shard, answer["results"])
                self._next(actor, job)
        finally:
            for actor in list(self.owner):
                ray.kill(actor, no_restart=True)
            self.owner.clear()
        return self.record

    # ------------------------------------------------------------------------------------------ scheduling
    def _plan(self) -> tuple[bool, int, int]:
        """Whether actors take a GPU each (the cluster has GPUs and some job wants one), how many actors at
        most (``workers``, else one per GPU or CPU, never more than there are shards), and each CPU actor's CPUs."""
        resources = self.ray.cluster_resources()
        gpus, cpus = int(resources.get("GPU", 0)), int(resources.get("CPU", 0))
        use_gpus = gpus > 0 and any(job.task.wants_gpu for job in self.jobs)
        kind, available = ("GPU", gpus) if use_gpus else ("CPU", cpus)
        wanted = self.workers or available
        if wanted > available or available == 0:
            raise ExecutorError(f"{wanted} Ray workers asked for, but the cluster has {available} {kind}s",
                                hint="give a smaller `ray_workers`, or add nodes to the cluster",
                                settings=["ray_workers"])
        shards = sum(len(job.shards) for job in self.jobs)
        return use_gpus, max(1, min(wanted, shards)), max(1, cpus // wanted)

    def _neediest(self) -> Job | None:
        """The job that most needs one more actor: shards no actor will take yet, most work left per actor."""
        waiting = [job for job in self.jobs if job.error is None and len(job.queue) > job.loading]
        return max(waiting, key=lambda job: job.left / (job.live + 1), default=None)

    def _fill(self) -> None:
        """Start actors while there is a free slot and a job that needs one."""
        while len(self.owner) < self.slots:
            job = self._neediest()
            if job is None:
                return
            self._start(job)

    def _start(self, job: Job) -> None:
        """A new actor for ``job``, asked at once to load the model."""
        if job.task.wants_gpu and self.gpus:
            options, threads = {"num_gpus": 1}, None
        else:
            options, threads = {"num_cpus": self.cpus_each}, self.cpus_each
        actor = self.actor_class.options(max_restarts=0, max_task_retries=0, **options).remote(job.task, threads)
        self.owner[actor] = job
        job.started += 1
        job.live += 1
        job.peak = max(job.peak, job.live)
        job.loading += 1
        self.pending[actor.load.remote()] = (actor, job, None)

    def _next(self, actor: Any, job: Job) -> None:
        """The actor's next shard of its own job (its model is loaded), else its slot goes to another job."""
        if job.queue:
            shard = job.queue.popleft()
            self.pending[actor.run.remote(shard.texts)] = (actor, job, shard)
            return
        self._forget(actor)
        self._fill()

    def _forget(self, actor: Any) -> None:
        """Let go of an actor that died or has no more work, so that its resources are free at once."""
        job = self.owner.pop(actor, None)
        if job is not None:
            job.live -= 1
            self.ray.kill(actor, no_restart=True)

    # ------------------------------------------------------------------------------------------ faults
    def _lost(self, actor: Any, job: Job, shard: Shard | None, death: BaseException) -> None:
        """A worker died: its shard goes back to the front of its job's queue, within the retry limits."""
        job.deaths += 1
        if shard is None:
            job.loading -= 1
        self._forget(actor)
        last, retries = _first_line(death), self.retries
        if shard is None:
            job.load_deaths += 1
            if job.load_deaths > retries:
                return self._fail(job, ExecutorError(
                    f"Ray workers died {_times(job.load_deaths)} while loading {job.label}; the last: {last}",
                    hint=MEMORY_HINT, settings=MEMORY_SETTINGS))
        else:
            tries = job.attempts[shard.index] = job.attempts.get(shard.index, 0) + 1
            if tries > retries:
                return self._fail(job, ExecutorError(
                    f"a shard of {len(shard.texts)} texts lost its Ray worker {_times(tries)} with {job.label}; "
                    f"the last: {last}", hint=MEMORY_HINT, settings=MEMORY_SETTINGS))
            job.queue.appendleft(shard)
        self._fill()

    def _fail(self, job: Job, error: ExecutorError) -> None:
        """``job`` stops here: its actors are killed and their slots go to the other jobs."""
        job.error = error
        job.queue.clear()
        for ref, (_, owner, _) in list(self.pending.items()):
            if owner is job:
                del self.pending[ref]
        for actor, owner in list(self.owner.items()):
            if owner is job:
                self._forget(actor)
        job.loading = 0
        self._fill()

    def _identity_problem(self, job: Job, answer: dict[str, Any]) -> ExecutorError | None:
        found = answer["identity"]
        if found == job.identity:
            return None
        keys = sorted(k for k in set(found) | set(job.identity) if found.get(k) != job.identity.get(k))
        shown = "; ".join(f"{k}: worker {found.get(k)!r}, driver {job.identity.get(k)!r}" for k in keys)
        hint = "run the driver with the same library versions as the workers"
        if "device" in keys:
            hint = f"give `device` {found.get('device')} (the workers' device) so that both agree"
        return ExecutorError(
            f"the Ray worker on {answer['where']} would answer for {job.label} differently from this process "
            f"({shown}), so its answers could not go into this run's cache", hint=hint, settings=["device"])

    @staticmethod
    def _worker_error(job: Job, shard: Shard | None, answer: dict[str, Any]) -> ExecutorError:
        doing = "failed to load" if shard is None else "failed while working"
        hint = answer.get("hint") or (None if answer.get("user_error") else MEMORY_HINT)
        return ExecutorError(f"{job.label} {doing} on the Ray worker on {answer['where']}: {answer['error']}",
                             hint=hint, settings=MEMORY_SETTINGS if hint == MEMORY_HINT else ())


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def _times(count: int) -> str:
    return "1 time" if count == 1 else f"{count} times"
