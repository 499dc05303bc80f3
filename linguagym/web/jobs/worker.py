"""Runs in the background: a pool of ``workers`` threads (``serve --workers N``, default 1) takes queued jobs
(runs, and capability jobs) from the database, oldest first, and hands each to its handler (``JOB_KINDS``).

A job is claimed by one conditional UPDATE (queued -> running, ``lifecycle.claim``), so two threads, or two servers
sharing a PostgreSQL database, never take the same job. A job's state lives in the database, so a job survives a
server restart: at start-up, jobs left ``running`` are queued again and, because scores and predictions are
cached on disk, a resumed job recomputes nothing it had. A worker holds the job's lock (``jobs.locks``) from before
its claim until the job ends, so a server starting beside a live one queues again only the jobs nobody holds.
Cancelling sets a flag the job reads between steps.

Several jobs scoring with torch in one process would each start a team of CPU threads as large as the machine:
with more than one worker, each job gets an equal share of the usable CPUs (``LINGUAGYM_THREADS``, as a Ray
worker gets its actor's CPUs), unless the operator set ``LINGUAGYM_THREADS`` already.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy.orm import sessionmaker

from linguagym.errors import ConfigurationError
from linguagym.evaluation.model_runs import ScorerFactory
from linguagym.scoring.engine.device import available_cpus
from linguagym.web.capabilities.jobs import execute_job
from linguagym.web.config import WebConfig
from linguagym.web.db import CapabilityJob, RunRecord
from linguagym.web.jobs.executors import JobExecutors
from linguagym.web.jobs.lifecycle import claim, oldest_queued, requeue_running, running_ids
from linguagym.web.jobs.locks import JobLock, JobLocks
from linguagym.web.jobs.rows import JobContext
from linguagym.web.runs.jobs import execute_run, results_directory, run_directory

__all__ = ["JOB_KINDS", "RunWorker", "results_directory", "run_directory", "wait_for"]

log = logging.getLogger("linguagym.web")
MAX_WORKERS = 64
THREADS_ENV = "LINGUAGYM_THREADS"


@dataclass(frozen=True)
class JobKind:
    """One kind of background job: its table (queued rows are found and claimed there, by ``lifecycle``) and how
    to do one."""

    name: str
    table: type[RunRecord] | type[CapabilityJob]
    execute: Callable[[JobContext, int], None]


JOB_KINDS = (JobKind("run", RunRecord, execute_run), JobKind("capability job", CapabilityJob, execute_job))


def check_workers(workers: int) -> int:
    if not 1 <= workers <= MAX_WORKERS:
        raise ConfigurationError(f"`workers` {workers}: jobs at once must be between 1 and {MAX_WORKERS}",
                                 hint="use 1 (the default) for one job at a time, or e.g. the machine's GPUs",
                                 settings=["workers"])
    return workers


def cpu_share(workers: int) -> int:
    """torch's CPU threads for each of ``workers`` jobs running at once: the usable CPUs split evenly, at least 1."""
    return max(1, available_cpus() // workers)


class RunWorker:
    """The background workers of one server: ``config.workers`` threads after ``start``; ``run_next`` does one job
    in the caller's thread (tests, scripts). ``scorer_factory``: tests, instead of the model registry."""

    def __init__(self, sessions: sessionmaker, config: WebConfig, *,
                 scorer_factory: ScorerFactory | None = None) -> None:
        self.sessions = sessions
        self.config = config
        self.workers = check_workers(config.workers)
        self.context = JobContext(sessions, config, scorer_factory, JobExecutors(config))
        self.locks = JobLocks(config.database_url, config.data_dir)
        self._wake = threading.Condition()
        self._nudged = False
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._threads_set: str | None = None  # the LINGUAGYM_THREADS this pool set (restored at stop)

    def start(self) -> None:
        resumed = self.requeue_orphans()
        if resumed:
            log.info("resuming %d run(s) and capability job(s) left unfinished", resumed)
        if self.workers > 1 and not os.environ.get(THREADS_ENV, "").strip():
            self._threads_set = os.environ[THREADS_ENV] = str(cpu_share(self.workers))
            log.info("%d jobs at once: %s CPU thread(s) each", self.workers, self._threads_set)
        self._threads = [threading.Thread(target=self._loop, name=f"linguagym-jobs-{n + 1}", daemon=True)
                         for n in range(self.workers)]
        for thread in self._threads:
            thread.start()

    def notify(self) -> None:
        """A job was queued: idle workers look now."""
        with self._wake:
            self._nudged = True  # seen by a worker that was busy when the notice came
            self._wake.notify_all()

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        self.notify()
        for thread in self._threads:
            thread.join(timeout)
        if self._threads_set is not None and os.environ.get(THREADS_ENV) == self._threads_set:
            del os.environ[THREADS_ENV]
        self._threads_set = None
        if self.context.executors is not None:
            self.context.executors.close()
        self.locks.close()

    def nobody_runs(self, table: type[RunRecord] | type[CapabilityJob], job_id: int) -> bool:
        """Whether no live worker, of this server or another on the database, holds the job's lock (a worker takes
        it before claiming the job and keeps it until the job ends)."""
        lock = self.locks.acquire(table.__tablename__, job_id)
        if lock is None:
            return False
        lock.release()
        return True

    def requeue_orphans(self) -> int:
        """Queue again the jobs left running by a server that stopped (their locks are free), not those a live
        server on the same database is doing; how many."""
        resumed = 0
        for kind in JOB_KINDS:
            with self.sessions() as session:
                running = running_ids(session, kind.table)
            for job_id in running:
                lock = self.locks.acquire(kind.table.__tablename__, job_id)
                if lock is None:
                    continue  # a live worker holds it
                try:
                    with self.sessions.begin() as session:
                        resumed += requeue_running(session, kind.table, only=[job_id])
                finally:
                    lock.release()
        return resumed

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                ran = self.run_next()
            except Exception:  # never let the worker die; the job itself records its failure
                log.exception("the run worker hit an error")
                ran = False
            if not ran:
                with self._wake:
                    if not self._nudged and not self._stop.is_set():
                        self._wake.wait(2.0)  # (a job queued by another server is seen within 2 s)
                    self._nudged = False

    def run_next(self) -> bool:
        """Claim the oldest queued job of any kind and do it; False when none is left to claim."""
        claimed = self.claim_next()
        if claimed is None:
            return False
        kind, job_id, lock = claimed
        try:
            kind.execute(self.context, job_id)
        finally:
            lock.release()
        return True

    def claim_next(self) -> tuple[JobKind, int, JobLock] | None:
        """The oldest queued job of any kind, now running for this worker, with its lock (release it when the job
        ends); None when the queue is empty. When another worker claims the oldest first, the next is tried."""
        passed: set[tuple[str, int]] = set()  # locked by another worker that is about to claim them
        while True:
            with self.sessions() as session:
                oldest = ((kind, oldest_queued(session, kind.table, [i for k, i in passed if k == kind.name]))
                          for kind in JOB_KINDS)
                queued = [(row.created_at, row.id, kind) for kind, row in oldest if row is not None]
            if not queued:
                return None
            _, job_id, kind = min(queued, key=lambda entry: entry[0])
            lock = self.locks.acquire(kind.table.__tablename__, job_id)  # first the lock, then the row
            if lock is None:
                passed.add((kind.name, job_id))
                continue
            try:
                with self.sessions.begin() as session:
                    taken = claim(session, kind.table, job_id)
            except BaseException:
                lock.release()
                raise
            if taken:
                return kind, job_id, lock
            lock.release()


def wait_for(sessions: sessionmaker, run_id: int, statuses=("done", "failed", "cancelled"), timeout: float = 60.0
             ) -> RunRecord:
    """Poll until the run reaches one of ``statuses`` (for tests and scripts)."""
    deadline = time.monotonic() + timeout
    while True:
        with sessions() as session:
            run = session.get(RunRecord, run_id)
            if run.status in statuses or time.monotonic() > deadline:
                return run
        time.sleep(0.1)
