"""Runs in the background: one thread takes queued runs (and capability jobs, see ``capability_jobs``) from the
database, one at a time, and does them.

A run's state lives in the database, so a run survives a server restart: at start-up, runs left ``running``
are queued again and, because token scores are cached on disk (``linguagym.scoring``), the resumed run
recomputes nothing it had. Cancelling sets a flag the run checks between chunks of sentences.
"""

from __future__ import annotations

import logging
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path

from sqlalchemy.orm import sessionmaker

from linguagym.errors import LinguagymError
from linguagym.evaluation.outputs import suite_file_name
from linguagym.web.config import WebConfig
from linguagym.web.db import RunRecord, now
from linguagym.web.store import next_queued, requeue_unfinished

log = logging.getLogger("linguagym.web")

RUN_OPTIONS = ("bos", "spacing", "dtype", "device", "batch_size", "metric", "policy")


class Cancelled(Exception):
    pass


def run_directory(config: WebConfig, run_id: int) -> Path:
    return config.runs_dir / str(run_id)


def results_directory(config: WebConfig, run_id: int) -> Path:
    return run_directory(config, run_id) / "results"


class RunWorker:
    def __init__(self, sessions: sessionmaker, config: WebConfig, *, scorer_factory: Callable | None = None) -> None:
        self.sessions = sessions
        self.config = config
        self.scorer_factory = scorer_factory  # tests: model string -> Scorer, instead of load_scorer
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        from linguagym.web.capability_store import requeue_unfinished_jobs

        with self.sessions.begin() as session:
            resumed = requeue_unfinished(session) + requeue_unfinished_jobs(session)
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
            except Exception:  # never let the worker die; the run itself records its failure
                log.exception("the run worker hit an error")
                ran = False
            if not ran:
                self._wake.wait(2.0)
                self._wake.clear()

    def run_next(self) -> bool:
        """Take the oldest queued run or capability job and do it; False when the queue is empty."""
        from linguagym.web.capability_jobs import execute_job
        from linguagym.web.capability_store import next_queued_job

        with self.sessions.begin() as session:
            run, job = next_queued(session), next_queued_job(session)
            if job is not None and (run is None or job.created_at < run.created_at):
                run = None
            task = run or job
            if task is None:
                return False
            task.status, task.started_at, task.progress_label = "running", now(), "starting"
            task_id = task.id
        if run is not None:
            self.execute(task_id)
        else:
            execute_job(self, task_id)
        return True

    # ------------------------------------------------------------------------------------------ one run

    def _update(self, run_id: int, **values) -> bool:
        """Write progress; returns whether cancellation was asked for."""
        with self.sessions.begin() as session:
            run = session.get(RunRecord, run_id)
            for key, value in values.items():
                setattr(run, key, value)
            return bool(run.cancel_requested)

    def execute(self, run_id: int) -> None:
        try:
            self._execute(run_id)
        except Cancelled:
            self._update(run_id, status="cancelled", finished_at=now(), progress_label="cancelled")
        except LinguagymError as error:
            self._update(run_id, status="failed", finished_at=now(), error=str(error), progress_label="failed")
        except Exception as error:  # a bug or an unexpected environment problem: keep the server alive
            log.error("run %d failed:\n%s", run_id, traceback.format_exc())
            self._update(run_id, status="failed", finished_at=now(), progress_label="failed",
                         error=f"{type(error).__name__}: {error} (the server log has the details)")

    def _execute(self, run_id: int) -> None:
        from linguagym.atomic import atomic_write_text
        from linguagym.evaluation.outputs import model_folders, model_labels, write_run
        from linguagym.evaluation.run import RunSettings, run_suites

        with self.sessions.begin() as session:
            run = session.get(RunRecord, run_id)
            models, options = list(run.models), dict(run.settings)
            contents = [(link.version.suite.name, link.version.content) for link in run.suites]
        directory = run_directory(self.config, run_id)
        paths, used = [], set()
        for name, content in contents:
            path = directory / "suites" / suite_file_name(name, used)
            atomic_write_text(path, content)
            paths.append(path)
        results = results_directory(self.config, run_id)
        labels = model_labels(models)  # checkpoints sharing a last name keep their full names, and
        folders = model_folders(labels.values())  # names that would make one folder get a hash: none overwrites another
        for index, model in enumerate(models, start=1):
            out = results / folders[labels[model]]
            label = f"model {index} of {len(models)}: {model}"
            if self._update(run_id, progress_label=f"{label}: loading", progress_done=0, progress_total=0):
                raise Cancelled
            settings = RunSettings(model=model, cache_dir=str(self.config.score_cache_dir),
                                   **{k: v for k, v in options.items() if k in RUN_OPTIONS})

            def progress(total: int, unit: str = "sentences", run_id=run_id, label=label) -> Callable[[int], None]:
                state = {"done": 0}
                if self._update(run_id, progress_total=total, progress_done=0,
                                progress_label=f"{label}: scoring {unit}"):
                    raise Cancelled

                def advance(count: int) -> None:
                    state["done"] += count
                    if self._update(run_id, progress_done=state["done"]):
                        raise Cancelled

                return advance

            scorer = self.scorer_factory(model) if self.scorer_factory else None
            result = run_suites(paths, settings, scorer=scorer, progress=progress)
            write_run(result, out)  # replaces the folder of an interrupted attempt whole, once the new one is complete
        self._update(run_id, progress_label="writing the report")
        write_results_report(results)
        self._update(run_id, status="done", finished_at=now(), progress_label="done")


def write_results_report(results: Path) -> Path:
    """report.html and plots/*.svg of every model of a run (the library's report)."""
    from linguagym.evaluation.aggregate import summarize
    from linguagym.evaluation.collections import covering_collection
    from linguagym.evaluation.report import find_runs, write_report

    runs = find_runs([results])
    outcomes = [o for run in runs for o in run.outcomes]
    summary = summarize(outcomes, covering_collection(o.suite for o in outcomes), bootstrap=1000)
    return write_report(runs, results, summary)


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
