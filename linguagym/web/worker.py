"""Runs in the background: one thread takes queued jobs (runs, and capability jobs) from the database, oldest first,
one at a time, and hands each to its handler (``JOB_KINDS``).

A job's state lives in the database, so a job survives a server restart: at start-up, jobs left ``running`` are
queued again and, because scores and predictions are cached on disk, a resumed job recomputes nothing it had.
Cancelling sets a flag the job reads between steps of its work.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy.orm import Session, sessionmaker

from linguagym.evaluation.models import ScorerFactory
from linguagym.web.capability_jobs import execute_job
from linguagym.web.capability_store import next_queued_job, requeue_unfinished_jobs
from linguagym.web.config import WebConfig
from linguagym.web.db import CapabilityJob, RunRecord, now
from linguagym.web.jobs import JobContext
from linguagym.web.run_jobs import execute_run, results_directory, run_directory
from linguagym.web.store import next_queued, requeue_unfinished

__all__ = ["JOB_KINDS", "RunWorker", "results_directory", "run_directory", "wait_for"]

log = logging.getLogger("linguagym.web")


@dataclass(frozen=True)
class JobKind:
    """One kind of background job: how to find its oldest queued row, requeue what a stopped server left running,
    and do one."""

    name: str
    next_queued: Callable[[Session], RunRecord | CapabilityJob | None]
    requeue: Callable[[Session], int]
    execute: Callable[[JobContext, int], None]


JOB_KINDS = (JobKind("run", next_queued, requeue_unfinished, execute_run),
             JobKind("capability job", next_queued_job, requeue_unfinished_jobs, execute_job))


class RunWorker:
    def __init__(self, sessions: sessionmaker, config: WebConfig, *,
                 scorer_factory: ScorerFactory | None = None) -> None:
        self.sessions = sessions
        self.config = config
        self.context = JobContext(sessions, config, scorer_factory)  # scorer_factory: tests, instead of the registry
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        with self.sessions.begin() as session:
            resumed = sum(kind.requeue(session) for kind in JOB_KINDS)
        if resumed:
            log.info("resuming %d run(s) and capability job(s) left unfinished", resumed)
        self._thread = threading.Thread(target=self._loop, name="linguagym-runs", daemon=True)
        self._thread.start()

    def notify(self) -> None:
        self._wake.set()

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                ran = self.run_next()
            except Exception:  # never let the worker die; the job itself records its failure
                log.exception("the run worker hit an error")
                ran = False
            if not ran:
                self._wake.wait(2.0)
                self._wake.clear()

    def run_next(self) -> bool:
        """Take the oldest queued job of any kind and do it; False when the queue is empty."""
        with self.sessions.begin() as session:
            queued = [(row, kind) for kind in JOB_KINDS if (row := kind.next_queued(session)) is not None]
            if not queued:
                return False
            row, kind = min(queued, key=lambda pair: pair[0].created_at)
            row.status, row.started_at, row.progress_label = "running", now(), "starting"
            job_id = row.id
        kind.execute(self.context, job_id)
        return True


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
