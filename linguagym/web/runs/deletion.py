"""Deleting a run: its database row (and its ``run_suites`` rows, so a suite it alone used can then be deleted)
and its folder of suites and results.

Only a finished run (done, failed or cancelled) is deleted: a queued run may be taken by the worker at any moment
and a running one is writing into its folder, so the page asks to cancel first. The folder is first moved aside
under a hidden name, then the row is deleted and committed, then the moved folder is removed: a failure before
the commit leaves the run whole. The run's number stays taken (``deleted``: its page answers 410), and even a run
that got it from a database that reused numbers would never find the old files.
"""

from __future__ import annotations

import logging
import secrets
import shutil

from sqlalchemy.orm import Session

from linguagym.errors import ConfigurationError
from linguagym.web.config import WebConfig
from linguagym.web.db import UNFINISHED, RunRecord
from linguagym.web.deleted import remember_deleted
from linguagym.web.runs.jobs import run_directory

log = logging.getLogger("linguagym.web")


def delete_run(session: Session, config: WebConfig, run: RunRecord) -> None:
    """Delete ``run`` (row and folder) and commit; refused while it is queued or running."""
    if run.status in UNFINISHED:
        raise ConfigurationError(f"run {run.id} is {run.status} and cannot be deleted yet",
                                 hint="cancel it first (the Cancel run button), then delete it")
    folder = run_directory(config, run.id)
    aside = folder.with_name(f".deleted-{run.id}-{secrets.token_hex(4)}")
    if folder.exists():
        try:
            folder.rename(aside)
        except OSError as error:
            raise ConfigurationError(f"cannot remove the folder of run {run.id} ({folder}): {error.strerror}",
                                     hint="check the permissions of the data directory") from None
    try:
        remember_deleted(session, "run", run.id, (f"{run.name}: " if run.name else "") + ", ".join(run.models))
        session.delete(run)
        session.commit()
    except Exception:
        session.rollback()
        if aside.exists():
            aside.rename(folder)  # the row stays: put its files back
        raise
    if aside.exists():  # the row is gone; a file left behind is only disk space, so it is logged, not raised
        shutil.rmtree(aside, onerror=lambda _f, path, error: log.warning("could not remove %s: %s", path, error[1]))
