"""Capability jobs in the background worker: ``generate`` makes a test file from a dataset, ``test`` runs a stored
test file against classifiers. Each is one library call (``pipeline.generate_tests``; ``run.run_classifiers``, as
``linguagym lct generate`` and ``lct test`` make them) on the library's settings object (``GenerateSettings``,
``ClassifierRunSettings``), with the job's row as its progress and cancel callbacks (``jobs.JobProgress``).

A test job interrupted by a restart resumes from the prediction cache; a generate job starts again.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from linguagym.capabilities import pipeline
from linguagym.capabilities.classifiers.base import Classifier
from linguagym.capabilities.expansion.settings import ExpansionSettings
from linguagym.capabilities.run import open_classifier as open_library_classifier
from linguagym.capabilities.run import run_classifiers
from linguagym.capabilities.settings import (
    ClassifierOptions,
    ClassifierRunSettings,
    ExpansionOptions,
    GenerateSettings,
)
from linguagym.capabilities.testfile.load import parse_tests
from linguagym.capabilities.testfile.model import CapabilityTestFile
from linguagym.capabilities.testfile.save import tests_text
from linguagym.web.capabilities.store import get_test_file, save_test_file
from linguagym.web.config import WebConfig
from linguagym.web.db import CapabilityJob, now
from linguagym.web.jobs.rows import JobContext, JobProgress
from linguagym.web.jobs.warnings import library_warnings


def job_directory(config: WebConfig, job_id: int) -> Path:
    return config.data_dir / "capability-jobs" / str(job_id)


def job_results_directory(config: WebConfig, job_id: int) -> Path:
    return job_directory(config, job_id) / "results"


def classifier_options(config: WebConfig, settings: dict) -> ClassifierOptions:
    """How a job's classifiers are loaded: its settings, the server's cache, and ``python:`` specs only where the
    operator started the server with --allow-python-classifiers (checked by the form and again by the job, so
    a job queued while they were allowed does not run after a restart without it)."""
    return ClassifierOptions(device=settings.get("device") or "auto", batch_size=settings.get("batch_size"),
                             label_map=settings.get("label_map"), cache_dir=config.score_cache_dir,
                             allow_code=config.allow_python_classifiers)


def test_settings(config: WebConfig, classifiers: list[str], settings: dict, output: Path) -> ClassifierRunSettings:
    """The library's settings for a test job (``examples`` left blank: the library's default)."""
    examples = {"examples": int(settings["examples"])} if settings.get("examples") is not None else {}
    return ClassifierRunSettings(tuple(classifiers), classifier_options(config, settings), output, **examples)


# A generate job's stored setting -> the library's name for it, in ExpansionSettings
_EXPANSION_KEYS = {"expand_seeds": "seeds_per_capability", "per_seed": "per_seed", "fills_per_mask": "fills_per_mask",
                   "masked_per_seed": "masked_per_seed", "insertions": "insertions"}


def generate_settings(settings: dict, cache_dir: Path | None) -> GenerateSettings:
    """The library's settings for a generate job from the form's, as stored with the job: a setting left blank
    in the form, or a job queued before the form had it, takes the library's default (``GenerateSettings``'s),
    and every check is the library's. The form checks a job's settings with this before queueing it."""
    chosen = {key: settings[key] for key in ("dataset", "lcs", "seed", "templates")
              if settings.get(key) not in (None, "")}
    if "max_seeds" in settings:  # None (left blank): every match
        chosen["max_seeds"] = settings["max_seeds"]
    caps = {name: settings[key] for key, name in _EXPANSION_KEYS.items() if settings.get(key) is not None}
    return GenerateSettings(**chosen, cache_dir=cache_dir,
                            test_types=settings.get("test_types", "mft"),  # jobs queued before INV and DIR: MFT alone
                            expansion=ExpansionOptions(enabled=bool(settings.get("expand")),
                                                       settings=ExpansionSettings(**caps)))


def open_classifier(spec: str, config: WebConfig, settings: dict) -> Classifier:
    """The classifier ``spec`` names, as a job would load it (the form checks specs with this before queueing)."""
    return open_library_classifier(spec, classifier_options(config, settings))


def execute_job(context: JobContext, job_id: int) -> None:
    """Do one job, recording its outcome; errors a user can cause fail the job with their message."""
    progress = JobProgress(context, CapabilityJob, job_id)

    def work() -> None:
        with context.sessions.begin() as session:
            job = session.get(CapabilityJob, job_id)
            kind, settings = job.kind, dict(job.settings)
            content = get_test_file(session, job.test_file_id).content if job.test_file_id else None
        with library_warnings() as said:  # kept for the job's page, not only the server log
            try:
                if kind == "generate":
                    _generate(context, job_id, settings, progress, said)
                else:
                    _test(context, job_id, settings, content or "", progress)
            finally:
                if said:
                    progress.write(warnings="\n".join(said))

    progress.record(work, f"capability job {job_id}")


def _generate(context: JobContext, job_id: int, settings: dict, progress: JobProgress, said: list[str]) -> None:
    progress.say("loading the dataset and the lexicon")
    document = pipeline.generate_tests(generate_settings(settings, context.config.score_cache_dir),
                                       progress=progress, cancelled=progress.cancelled)
    text = tests_text(document)
    with context.sessions.begin() as session:
        job = session.get(CapabilityJob, job_id)
        saved = save_test_file(session, text, document, name=settings.get("name") or _default_name(document),
                               note=f"generated by capability job {job_id}", owner_id=job.owner_id)
        job.result_file_id = saved.record.id
        job.warnings = "\n".join(said)  # with the outcome: a page that shows "done" shows these too
        job.status, job.finished_at, job.progress_label = "done", now(), "done"


def _default_name(document: CapabilityTestFile) -> str:
    lcs = ",".join(document.settings.lcs or ())
    return f"{document.dataset.name} {lcs}".strip()


def _test(context: JobContext, job_id: int, settings: dict, content: str, progress: JobProgress) -> None:
    config = context.config
    document = parse_tests(content, f"the test file of capability job {job_id}")
    results = job_results_directory(config, job_id)
    if results.exists():  # a partial folder from an interrupted attempt: replaced whole
        shutil.rmtree(results)
    run = test_settings(config, list(settings.get("classifiers") or []), settings, results)
    with context.executor() as executor:  # the server's --executor, as `lct test --executor` predicts
        done = run_classifiers(document, run, progress=progress, cancelled=progress.cancelled, executor=executor)
    message = "\n".join(f"{run.name}: failed after {run.finished} of {run.unique_texts} predictions (kept in the "
                        f"prediction cache; testing again resumes): {run.error}" for run in done.failed)
    status = "failed" if done.failed and len(done.failed) == len(done) else "done"
    progress.write(status=status, finished_at=now(), progress_label=status, error=message)
