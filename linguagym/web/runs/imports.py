"""Importing published per-item results (Hu et al. 2020's files, or a linguagym ``items.csv``) as a finished run
whose models are marked imported: the leaderboard, a suite's page and Compare then show them beside the lab's own
models. The library reads and writes them (``evaluation/imported.py``); this view takes the upload, bounded as
every upload is, and makes the run's row. Like every change, the request passes ``auth.gate`` first (Origin, CSRF
token, sign-in or access token)."""

from __future__ import annotations

import shutil

from flask import Blueprint, flash, redirect, render_template, request, url_for

from linguagym.errors import ConfigurationError
from linguagym.evaluation.aggregate import MAX_RESULTS_BYTES
from linguagym.evaluation.imported import imported_sha256, read_imported, write_imported
from linguagym.userfiles import size_text
from linguagym.web.auth.ownership import new_owner_id
from linguagym.web.context import config, db_session
from linguagym.web.db import RunRecord, RunSuite, now
from linguagym.web.jobs.worker import results_directory
from linguagym.web.store import list_suites, run_name
from linguagym.web.text import clean_text

blueprint = Blueprint("imports", __name__)


@blueprint.get("/runs/import")
def form():
    return render_template("import_results.html", error=None, values={})


@blueprint.post("/runs/import")
def upload():
    """A results file -> a finished run of its models, marked imported; a refused file: the form again (400)."""
    try:
        return _import(request.form, request.files.get("results_file"))
    except ConfigurationError as error:
        db_session().rollback()
        values = {key: request.form.get(key, "") for key in ("name", "models", "run_name")}
        return render_template("import_results.html", error=error, values=values), 400


def _import(form, upload):
    if upload is None or not upload.filename:
        raise ConfigurationError("no results file given", hint="choose a per-item results file (.csv)")
    source = clean_text(upload.filename)[:200]
    raw = upload.stream.read(MAX_RESULTS_BYTES + 1)  # the request is bounded too (--max-upload-mb)
    if len(raw) > MAX_RESULTS_BYTES:
        raise ConfigurationError(f"{source} is larger than {size_text(MAX_RESULTS_BYTES)}",
                                 hint="split it by model and import each part")
    only = [part.strip() for part in clean_text(form.get("models", "")).split(",") if part.strip()]
    models = read_imported(raw, source, name=clean_text(form.get("name", "")), only=only)
    session = db_session()
    suites = {s.name: s.latest for s in list_suites(session)}
    counts = {suite: len({o.item for m in models for o in m.outcomes if o.suite == suite})
              for m in models for suite in m.suites}
    # a suite of the lab with the name and item count: the run is linked to its latest version (its page then
    # lists the imported models); another item count is another suite, not linked
    linked = {suite: suites[suite] for suite, count in counts.items()
              if suite in suites and suites[suite].item_count == count}
    settings = {"imported": {"file": source, "sha256": imported_sha256(raw)}}
    run = RunRecord(status="done", models=[m.name for m in models], settings=settings, error="", progress_done=1,
                    progress_total=1, progress_label="imported", cancel_requested=False, created_at=now(),
                    started_at=now(), finished_at=now(), name=run_name(form.get("run_name") or f"imported: {source}"),
                    owner_id=new_owner_id())
    run.suites = [RunSuite(suite_version_id=version.id) for version in linked.values()]
    session.add(run)
    session.flush()
    folder = results_directory(config(), run.id)
    write_imported(folder, models, source=source, sha256=settings["imported"]["sha256"])
    try:
        session.commit()
    except Exception:
        shutil.rmtree(folder, ignore_errors=True)  # no row: no folder
        raise
    shifted = " (the file counts items from 0: stored from 1, as the suites number them)" if models[0].shifted else ""
    flash(f"Imported {len(models)} model(s) from {source} as {run.title}: {', '.join(run.models)}{shifted}.",
          "success")
    unlinked = sorted(set(counts) - set(linked))
    if unlinked:
        flash(f"{len(unlinked)} suite(s) of the file are not linked to a suite here (none by that name, or another "
              f"number of items): {', '.join(unlinked[:10])}{' ...' if len(unlinked) > 10 else ''}. Their results "
              "still count on the leaderboard and in Compare.", "warning")
    return redirect(url_for("runs.show", run_id=run.id))
