"""Capability jobs in the run worker's thread: ``generate`` makes a test file from a dataset, ``test`` runs a stored
test file against classifiers. Both are the library's own calls (``pipeline.generate_suite``,
``testing.run_tests``, ``lct_report.write_results``), as ``linguagym lct generate`` and ``lct test`` make them,
with the worker's progress and cancel wired into their progress callbacks.

Progress is written to the database at most twice a second (the dataset analysis advances once per sentence),
and every write checks whether cancelling was asked for. A test job interrupted by a restart resumes from the
prediction cache; a generate job starts again.
"""

from __future__ import annotations

import logging
import shutil
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from linguagym.capabilities.classifiers.base import Classifier
from linguagym.errors import ConfigurationError, LinguagymError
from linguagym.web.capability_store import CapabilityJob, get_test_file, save_test_file
from linguagym.web.config import WebConfig
from linguagym.web.db import now
from linguagym.web.worker import Cancelled, RunWorker

log = logging.getLogger("linguagym.web")

GENERATE_STAGES = {"analyse": "analysing the dataset's sentences", "search": "searching capabilities",
                   "expand": "expanding seeds"}


def job_directory(config: WebConfig, job_id: int) -> Path:
    return config.data_dir / "capability-jobs" / str(job_id)


def job_results_directory(config: WebConfig, job_id: int) -> Path:
    return job_directory(config, job_id) / "results"


class _Progress:
    """A job's progress in the database, written at most every ``interval`` seconds (and at each stage's end)."""

    def __init__(self, update: Callable[..., bool], interval: float = 0.5) -> None:
        self.update = update
        self.interval = interval

    def stage(self, label: str, total: int) -> Callable[[int], None]:
        if self.update(progress_label=label, progress_total=total, progress_done=0):
            raise Cancelled
        state = {"done": 0, "written": time.monotonic()}

        def advance(count: int) -> None:
            state["done"] += count
            moment = time.monotonic()
            if moment - state["written"] >= self.interval or state["done"] >= total:
                state["written"] = moment
                if self.update(progress_done=state["done"]):
                    raise Cancelled

        return advance


def execute_job(worker: RunWorker, job_id: int) -> None:
    """Do one job, recording its outcome; errors a user can cause fail the job with their message."""

    def update(**values: Any) -> bool:
        with worker.sessions.begin() as session:
            job = session.get(CapabilityJob, job_id)
            for key, value in values.items():
                setattr(job, key, value)
            return bool(job.cancel_requested)

    try:
        with worker.sessions.begin() as session:
            job = session.get(CapabilityJob, job_id)
            kind, settings = job.kind, dict(job.settings)
            content = get_test_file(session, job.test_file_id).content if job.test_file_id else None
        if kind == "generate":
            _generate(worker, job_id, settings, update)
        else:
            _test(worker.config, job_id, settings, content or "", update)
    except Cancelled:
        update(status="cancelled", finished_at=now(), progress_label="cancelled")
    except LinguagymError as error:
        update(status="failed", finished_at=now(), error=str(error), progress_label="failed")
    except Exception as error:  # a bug or an unexpected environment problem: keep the server alive
        log.error("capability job %d failed:\n%s", job_id, traceback.format_exc())
        update(status="failed", finished_at=now(), progress_label="failed",
               error=f"{type(error).__name__}: {error} (the server log has the details)")


def _generate(worker: RunWorker, job_id: int, settings: dict, update: Callable[..., bool]) -> None:
    from linguagym.capabilities import pipeline
    from linguagym.capabilities.expand import ExpansionSettings
    from linguagym.capabilities.testfile import write_tests

    progress = _Progress(update)
    expansion = pipeline.ExpansionOptions(
        enabled=bool(settings.get("expand")),
        settings=ExpansionSettings(seeds_per_capability=settings.get("expand_seeds"),
                                   per_seed=int(settings.get("per_seed", 3))))
    if update(progress_label="loading the dataset and the lexicon", progress_done=0, progress_total=0):
        raise Cancelled
    document = pipeline.generate_suite(
        settings.get("dataset") or "rotten-tomatoes", lcs=settings.get("lcs") or "all",
        seed=int(settings.get("seed", 0)), max_seeds=settings.get("max_seeds"),
        cache_dir=worker.config.score_cache_dir, expansion=expansion,
        progress=lambda stage, total: progress.stage(GENERATE_STAGES.get(stage, stage), total))
    path = job_directory(worker.config, job_id) / "tests.json"
    write_tests(document, path)
    text = path.read_text(encoding="utf-8")
    with worker.sessions.begin() as session:
        saved = save_test_file(session, text, document, name=settings.get("name") or _default_name(document),
                               note=f"generated by capability job {job_id}")
        job = session.get(CapabilityJob, job_id)
        job.result_file_id = saved.record.id
        job.status, job.finished_at, job.progress_label = "done", now(), "done"


def _default_name(document: dict) -> str:
    lcs = ",".join(document["settings"].get("lcs") or [])
    return f"{document['dataset'].get('name', 'tests')} {lcs}".strip()


def _test(config: WebConfig, job_id: int, settings: dict, content: str, update: Callable[..., bool]) -> None:
    from linguagym.atomic import atomic_write_text
    from linguagym.capabilities.lct_report import write_results
    from linguagym.capabilities.testfile import read_tests
    from linguagym.capabilities.testing import run_tests

    path = job_directory(config, job_id) / "tests.json"
    atomic_write_text(path, content)
    document = read_tests(path)
    specs = list(settings.get("classifiers") or [])
    classifiers = [(spec, open_classifier(spec, config, settings)) for spec in specs]  # a typo fails at once
    progress = _Progress(update)
    runs = []
    for index, (spec, classifier) in enumerate(classifiers, start=1):
        label = f"classifier {index} of {len(classifiers)}: {classifier.name}"
        if update(progress_label=f"{label}: loading", progress_done=0, progress_total=0):
            raise Cancelled
        try:
            runs.append(run_tests(document, classifier, spec=spec,
                                  progress=lambda total, label=label: progress.stage(f"{label}: predicting", total)))
        finally:
            close = getattr(classifier, "close", None)
            if callable(close):
                close()
    update(progress_label="writing the results")
    results = job_results_directory(config, job_id)
    if results.exists():  # a partial folder from an interrupted attempt: replaced whole
        shutil.rmtree(results)
    record = {key: settings.get(key) for key in ("classifiers", "device", "batch_size", "label_map")}
    write_results(document, path, runs, results, examples=int(settings.get("examples", 3)),
                  settings={**record, "cache_dir": str(config.score_cache_dir)})
    failed = [run for run in runs if not run.ok]
    message = "\n".join(f"{run.name}: failed after {run.finished} of {run.unique_texts} predictions (kept in the "
                        f"prediction cache; testing again resumes): {run.error}" for run in failed)
    status = "failed" if failed and len(failed) == len(runs) else "done"
    update(status=status, finished_at=now(), progress_label=status, error=message)


def open_classifier(spec: str, config: WebConfig, settings: dict) -> Classifier:
    """The classifier ``spec`` names, behind the prediction cache in the server's cache directory.

    Checked here, where both the form and the job runner pass: a ``python:`` spec runs code on the server, so it
    is refused unless the operator started the server with --allow-python-classifiers (a job queued while it
    was allowed does not run after a restart without it)."""
    from linguagym.capabilities.classifiers.cache import CachedClassifier
    from linguagym.capabilities.classifiers.registry import load_classifier, runs_code

    if runs_code(spec) and not config.allow_python_classifiers:
        raise ConfigurationError(
            f"{spec.strip()[:200]!r}: python:module:function classifiers run code on the server, and this server "
            "does not accept them from the web", hint="start the server with --allow-python-classifiers (only "
            "where every user who can reach it may run code), or wrap the function in an HTTP endpoint")
    inner = load_classifier(spec, cache_dir=config.score_cache_dir, device=settings.get("device") or "auto",
                            batch_size=settings.get("batch_size"), label_map=settings.get("label_map"))
    return CachedClassifier(inner, cache_dir=config.score_cache_dir)  # type: ignore[return-value]
