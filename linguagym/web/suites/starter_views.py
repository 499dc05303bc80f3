"""Getting a server started: load the example suites or SyntaxGym 2020 in one click, upload many suite files (or a
.zip) at once, run every stored suite on one model, and the lab's settings (the default model set that every new
suite version is run on)."""

from __future__ import annotations

from flask import Blueprint, flash, redirect, render_template, request, url_for

from linguagym.errors import ConfigurationError
from linguagym.evaluation.run import DEFAULT_MODEL
from linguagym.scoring.registry import named_models
from linguagym.web.auth.ownership import require_admin
from linguagym.web.context import config, db_session, notify_worker
from linguagym.web.inputs import plain_text
from linguagym.web.runs.auto_run import auto_run_models, auto_run_saved, set_auto_run_models
from linguagym.web.runs.queue import default_settings, queue_run, short_name
from linguagym.web.store import list_suites
from linguagym.web.suites.bulk_upload import outcome_summary, store_files
from linguagym.web.suites.starter import missing_suites, starter_files, starter_set, starter_sets

blueprint = Blueprint("starter", __name__)


@blueprint.app_template_global()
def starter_panel() -> dict:
    """What the suites page offers: the starter sets not (fully) loaded yet, and the named models."""
    session = db_session()
    sets = [(one, missing_suites(session, one.names)) for one in starter_sets()]
    return {"sets": [(one, missing) for one, missing in sets if missing], "named_models": named_models(),
            "default_model": DEFAULT_MODEL}


@blueprint.post("/suites/load/<key>")
def load(key: str):
    """Store every suite of a starter set: new suites, new versions where the content differs, nothing when
    identical; the page says which."""
    chosen = starter_set(key)
    outcomes = store_files(db_session(), starter_files(chosen.key, config().score_cache_dir),
                           note=f"loaded with {chosen.label}:")
    auto_run_saved([o.saved for o in outcomes if o.saved is not None])
    if any(o.status in ("invalid", "refused") for o in outcomes):
        return _outcomes_page(outcomes, f"Loading {chosen.label}")
    flash(f"Loaded {chosen.label}: {outcome_summary(outcomes)}", "success")
    return redirect(url_for("suites.index"))


@blueprint.post("/suites/upload-many")
def upload_many():
    """Several suite files, or .zip archives of them: each stored or listed with its problems."""
    files = [(upload.filename or "", upload.read()) for upload in request.files.getlist("suite_files")
             if upload.filename]
    if not files:
        raise ConfigurationError("no files given", hint="choose one or more .json suite files or a .zip of them")
    outcomes = store_files(db_session(), files, note="uploaded from")
    auto_run_saved([o.saved for o in outcomes if o.saved is not None])
    return _outcomes_page(outcomes, f"Upload of {len(files)} file(s)")


def _outcomes_page(outcomes, title: str):
    good = any(o.status in ("added", "version", "unchanged") for o in outcomes)
    return render_template("suites.html", suites=list_suites(db_session()), query="", bulk_title=title,
                           bulk_outcomes=outcomes, bulk_summary=outcome_summary(outcomes)), 200 if good else 400


def _chosen_models(form) -> list[str]:
    return form.getlist("model") + [line for line in form.get("other_models", "").splitlines() if line.strip()]


@blueprint.post("/runs/every-suite")
def run_every_suite():
    """One run of every stored suite (its latest version) on one model, with the run form's default options."""
    session = db_session()
    typed = [line for line in request.form.get("other_models", "").splitlines() if line.strip()]
    models = typed or [m for m in request.form.getlist("model") if m.strip()]
    if len(models) != 1:
        raise ConfigurationError(f"{len(models)} models given; this runs every suite on one model",
                                 hint="pick a named model, or type one path or hub id")
    versions = [record.latest for record in list_suites(session)]
    if not versions:
        raise ConfigurationError("there are no suites to run yet",
                                 hint="load the example suites or upload some on the Suites page first")
    model = plain_text(models[0].strip(), "the model")
    run = queue_run(session, config(), [model], versions, default_settings(),
                    name=short_name(f"every suite on {model}"))
    session.commit()
    notify_worker()
    flash(f"Run {run.id} queued: every suite ({len(versions)}) on {model}.", "success")
    return redirect(url_for("runs.show", run_id=run.id))


@blueprint.get("/settings")
def settings():
    models = auto_run_models(db_session())
    return _settings_page(models)


def _settings_page(models: list[str], error: ConfigurationError | None = None, status: int = 200):
    named = named_models()
    return render_template("settings.html", named_models=named, chosen=[m for m in models if m in named],
                           other="\n".join(m for m in models if m not in named), error=error), status


@blueprint.post("/settings")
def save_settings():
    """Change the lab's default model set (admins only, once the server has accounts)."""
    require_admin()
    session = db_session()
    given = _chosen_models(request.form)
    try:
        models = set_auto_run_models(session, config(), given)
    except ConfigurationError as error:
        session.rollback()
        return _settings_page(given, error, 400)
    session.commit()
    if models:
        flash(f"Every new suite version will be run on {', '.join(models)}.", "success")
    else:
        flash("New suite versions are no longer run automatically.", "success")
    return redirect(url_for("starter.settings"))
