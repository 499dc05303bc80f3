"""The lab's default model set, as on the original SyntaxGym site: every new suite version (uploaded, saved in
the editor, loaded in bulk) is queued as a run on these models, named ``auto: <suite> v<n>``; the versions one
request stores (a bulk load of 34 suites) go into one run, so the worker loads each model once for them."""

from __future__ import annotations

from collections.abc import Sequence

from flask import flash
from sqlalchemy.orm import Session

from linguagym.errors import ConfigurationError
from linguagym.web import setting_labels
from linguagym.web.config import WebConfig
from linguagym.web.context import config, db_session, notify_worker
from linguagym.web.db import RunRecord, SuiteVersion
from linguagym.web.runs.lab_settings import get_setting, put_setting
from linguagym.web.runs.queue import check_models, default_settings, queue_run, short_name
from linguagym.web.store import SavedVersion

AUTO_RUN_KEY = "auto_run_models"


def auto_run_models(session: Session) -> list[str]:
    """The models every new suite version is run on (empty: no automatic runs)."""
    value = get_setting(session, AUTO_RUN_KEY, [])
    return [m for m in value if isinstance(m, str)] if isinstance(value, list) else []


def set_auto_run_models(session: Session, web_config: WebConfig, models: Sequence[str]) -> list[str]:
    """Check ``models`` as a run of them would be checked, and store them (the caller commits)."""
    chosen = check_models(web_config, models, default_settings())
    put_setting(session, AUTO_RUN_KEY, chosen)
    return chosen


def auto_run_name(versions: Sequence[SuiteVersion]) -> str:
    shown = ", ".join(f"{version.suite.name} v{version.number}" for version in versions)
    return short_name(f"auto: {shown}")


def queue_auto_run(session: Session, web_config: WebConfig,
                   versions: Sequence[SuiteVersion]) -> RunRecord | None:
    """Queue ``versions`` as one run on the default model set (None when there is none or no version);
    flushed, not committed."""
    models = auto_run_models(session)
    if not models or not versions:
        return None
    return queue_run(session, web_config, models, versions, default_settings(), name=auto_run_name(versions))


def auto_run_saved(saved: Sequence[SavedVersion]) -> list[RunRecord]:
    """In a request that stored suites: queue the new versions' automatic run, commit and wake the worker. A
    model set that no longer passes the checks stores no run and says why (the suites stay stored)."""
    session = db_session()
    runs = []
    try:
        run = queue_auto_run(session, config(), [one.version for one in saved if one.created])
        if run is not None:
            runs.append(run)
        session.commit()
    except ConfigurationError as error:
        session.rollback()
        message, hint = setting_labels.worded(error)
        flash(f"No automatic run was queued: {message} ({hint or 'see Settings'}).", "warning")
        return []
    if runs:
        notify_worker()
        shown = ", ".join(f"{r.id}" for r in runs[:10]) + (" ..." if len(runs) > 10 else "")
        flash(f"Queued {len(runs)} automatic run(s) on the lab's default models (run {shown}).", "info")
    return runs
