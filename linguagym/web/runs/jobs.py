"""A run of the web app (suites x models) in the background worker: the suites are written into the run's folder
and handed with the models to the library's ``run_models``, which writes every model's results and the report
into ``<data_dir>/runs/<id>/results/``, exactly as ``linguagym run`` would with the same settings (and the server's
``--executor``: see ``jobs.executors``).

A run interrupted by a restart is queued again and, since token scores are cached on disk, recomputes nothing
it had; its model folders are replaced whole.
"""

from __future__ import annotations

from pathlib import Path

from linguagym.atomic import atomic_write_text
from linguagym.evaluation.model_runs import run_models
from linguagym.evaluation.run import RunSettings
from linguagym.evaluation.summary import SummarySettings
from linguagym.names import suite_file_name
from linguagym.web import setting_labels
from linguagym.web.config import WebConfig
from linguagym.web.db import RunRecord, now
from linguagym.web.jobs.rows import JobContext, JobProgress

RUN_OPTIONS = ("bos", "spacing", "dtype", "device", "batch_size", "metric", "policy", "model_args", "limit", "compat",
               "bow_correction", "crossing", "ties")
SUMMARY = SummarySettings()  # as `linguagym run` summarizes by default: the collection's policy for its score


def run_directory(config: WebConfig, run_id: int) -> Path:
    return config.runs_dir / str(run_id)


def results_directory(config: WebConfig, run_id: int) -> Path:
    return run_directory(config, run_id) / "results"


def run_settings(config: WebConfig, models: list[str], options: dict) -> list[RunSettings]:
    """One ``RunSettings`` per model from a run's stored options, with the server's score cache."""
    chosen = {key: value for key, value in options.items() if key in RUN_OPTIONS}  # (each a RunSettings field)
    return [RunSettings(model=model, cache_dir=str(config.score_cache_dir), **chosen) for model in models]


def execute_run(context: JobContext, run_id: int) -> None:
    progress = JobProgress(context, RunRecord, run_id)
    progress.record(lambda: _execute(context, run_id, progress), f"run {run_id}")


def _execute(context: JobContext, run_id: int, progress: JobProgress) -> None:
    with context.sessions.begin() as session:
        run = session.get(RunRecord, run_id)
        models, options = list(run.models), dict(run.settings)
        contents = [(link.version.suite.name, link.version.content) for link in run.suites]
    directory = run_directory(context.config, run_id)
    paths: list[Path] = []
    used: set[str] = set()
    for name, content in contents:
        path = directory / "suites" / suite_file_name(name, used)
        atomic_write_text(path, content)
        paths.append(path)
    progress.say("loading")
    with context.executor() as executor:  # the server's --executor, as `linguagym run --executor` scores
        done = run_models(paths, run_settings(context.config, models, options),
                          output=results_directory(context.config, run_id), summary=SUMMARY, progress=progress,
                          cancelled=progress.cancelled, scorers=context.scorer_factory, executor=executor,
                          keep_scores=False)
    message = "\n".join(f"{one.model}: {setting_labels.text(error)}" for one, error in done.failed)
    status = "failed" if len(done.failed) == len(done) else "done"  # some models ran: their results are shown
    progress.write(status=status, finished_at=now(), progress_label=status, error=message)
