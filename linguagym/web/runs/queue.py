"""Queueing a run: the one path by which the run form, "run every suite on a model" and the automatic runs of a new
suite version put a run in the queue. The options are checked as the CLI checks them, on the ``RunSettings`` the
worker will build, before anything is stored."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.orm import Session

from linguagym.errors import ConfigurationError
from linguagym.evaluation.run import check_settings
from linguagym.web.auth.ownership import new_owner_id
from linguagym.web.config import WebConfig
from linguagym.web.db import RUN_NAME_LENGTH, RunRecord, SuiteVersion
from linguagym.web.inputs import plain_text
from linguagym.web.runs.form import RunFormValues
from linguagym.web.runs.jobs import run_settings
from linguagym.web.store import create_run

MAX_MODELS = 8


def default_settings() -> dict:
    """The options of a run started without the form: the run form's defaults."""
    form = RunFormValues()
    return {"device": form.device, "policy": form.policy or None, "batch_size": int(form.batch_size)}


def check_models(config: WebConfig, models: Sequence[str], settings: dict) -> list[str]:
    """The models as a run stores them (stripped, each once), refused with a clear message when there are none,
    too many, or one holds an unshowable character; each with ``settings`` checked as the worker will run it."""
    chosen = list(dict.fromkeys(plain_text(m.strip(), "the model") for m in models if m.strip()))
    if len(chosen) > MAX_MODELS:
        raise ConfigurationError(f"{len(chosen)} models chosen; a run takes at most {MAX_MODELS}",
                                 hint="split them into several runs")
    for one in run_settings(config, chosen, settings):
        check_settings(one)
    return chosen


def queue_run(session: Session, config: WebConfig, models: Sequence[str], versions: Sequence[SuiteVersion],
              settings: dict, *, name: str | None = None) -> RunRecord:
    """Check and add a queued run (flushed, not committed: the caller commits, then wakes the worker)."""
    run = create_run(session, check_models(config, models, settings), versions, settings, name=name)
    if run.owner_id is None:
        run.owner_id = new_owner_id()
    return run


def short_name(text: str, limit: int = RUN_NAME_LENGTH) -> str:
    """``text`` cut to ``limit`` characters (the longest run name), an ellipsis marking the cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"
