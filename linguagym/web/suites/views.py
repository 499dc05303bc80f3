"""Suite pages: list and search, upload (errors shown with their JSON paths), the table view, download, the grid
editor, and the two endpoints the editor calls while you type (formula) and when you save (suite)."""

from __future__ import annotations

from flask import Blueprint, Response, flash, jsonify, redirect, render_template, request, url_for

from linguagym.errors import FormulaError, SuiteError
from linguagym.names import suite_file_name
from linguagym.suites.formula import format_formula, parse_formula, region_refs
from linguagym.suites.load import parse_suite_data
from linguagym.suites.metrics import METRIC_NAMES
from linguagym.suites.peers import formula_peer_note
from linguagym.suites.save import suite_to_dict
from linguagym.web.auth.ownership import require_owner, save_suite_owned
from linguagym.web.context import config, db_session
from linguagym.web.inputs import json_object_body
from linguagym.web.results.index import latest_results, suite_panel, suite_results
from linguagym.web.runs.auto_run import auto_run_saved
from linguagym.web.store import delete_suite, get_suite, get_version, list_suites, load_version
from linguagym.web.suites.browse import (
    SORTS,
    SuiteFilter,
    circuit_short,
    circuits,
    facets,
    own_tags,
    parse_tags,
    set_tags,
)
from linguagym.web.suites.bulk_upload import parse_uploaded, problem, suite_problems
from linguagym.web.text import clean_text

blueprint = Blueprint("suites", __name__)

MAX_FORMULA = 2000


@blueprint.app_template_global("suite_tags")
def suite_tags(record) -> dict:
    """For the pages: a suite's circuits (from the built-in collections) and its own tags."""
    return {"circuits": circuits(record.name), "own": own_tags(record),
            "short": {name: circuit_short(name) for name in circuits(record.name)}}


@blueprint.get("/suites")
def index():
    """The suites: ``?q=`` searches names and authors; ``?tag=``, ``?circuit=``, ``?author=`` filter (tags are a
    suite's own and its circuits'); ``?sort=`` (changed, name, author, items, version) and ``?order=``."""
    query = request.args.get("q", "")
    chosen = SuiteFilter.from_args(request.args)
    found = list_suites(db_session(), query)
    return render_template("suites.html", suites=chosen.apply(found), query=query, suite_filter=chosen,
                           facets=facets(list_suites(db_session()) if query else found), sorts=list(SORTS))


@blueprint.post("/suites/<int:suite_id>/tags")
def tag(suite_id: int):
    """Replace the suite's own tags (``tags``: comma-separated)."""
    session = db_session()
    record = get_suite(session, suite_id)
    require_owner(record)
    set_tags(session, record, parse_tags(request.form.get("tags", "")))
    session.commit()
    shown = ", ".join(own_tags(record))
    flash(f"Tags of {record.name!r}: {shown}." if shown else f"{record.name!r} has no tags of its own now.", "success")
    return redirect(url_for("suites.show", suite_id=suite_id))


@blueprint.post("/suites/upload")
def upload():
    upload = request.files.get("suite_file")
    name, raw = "", b""
    if upload is not None and upload.filename:
        name, raw = clean_text(upload.filename), upload.read()
    elif request.form.get("suite_text", "").strip():
        name, raw = "pasted text", request.form["suite_text"].encode("utf-8")
    if not raw.strip():
        loaded, problems = None, [problem("no suite given: choose a .json file or paste its text")]
    else:
        loaded, problems = parse_uploaded(name, raw)  # as "upload many" reads each of its files
    if loaded is None:
        session = db_session()
        return render_template("suites.html", suites=list_suites(session), query="", upload_name=name,
                               upload_problems=problems), 400
    saved = save_suite_owned(db_session(), loaded.suite, note=f"uploaded from {name}")
    auto_run_saved([saved])
    for warning in loaded.warnings:
        flash(f"normalised: {warning.render()}", "warning")
    if saved.created:
        flash(f"Saved {saved.suite.name!r} as version {saved.version.number} "
              f"({loaded.dialect} dialect).", "success")
    else:
        flash(f"{saved.suite.name!r} already holds exactly this content (version {saved.version.number})"
              f"{'' if saved.exact else ', but for the order of conditions or empty fields, which are not edits'}.",
              "info")
    return redirect(url_for("suites.show", suite_id=saved.suite.id))


@blueprint.get("/suites/<int:suite_id>")
def show(suite_id: int):
    record = get_suite(db_session(), suite_id)
    version = get_version(record, request.args.get("version", type=int))
    suite = load_version(version).suite
    results = suite_panel(suite_results(db_session(), config(), suite=record.name), record.name)  # any version
    newest = latest_results(results).values()
    latest = {(r.run_id, r.model) for r in newest}
    plotted = any(r.version == version.number for r in newest)  # the overlaid plot shows results on this version
    return render_template("suite.html", record=record, version=version, suite=suite, results=results, latest=latest,
                           plotted=plotted)


@blueprint.get("/suites/<int:suite_id>/download")
def download(suite_id: int):
    record = get_suite(db_session(), suite_id)
    version = get_version(record, request.args.get("version", type=int))

    filename = suite_file_name(record.name, set()).removesuffix(".json") + f".v{version.number}.json"
    return Response(version.content, mimetype="application/json",
                    headers={"Content-Disposition": f'attachment; filename="{filename}"'})


@blueprint.post("/suites/<int:suite_id>/delete")
def delete(suite_id: int):
    session = db_session()
    record = get_suite(session, suite_id)
    require_owner(record)
    name = record.name
    delete_suite(session, record)
    session.commit()
    flash(f"Deleted suite {name!r} and all its versions.", "success")
    return redirect(url_for("suites.index"))


_BLANK = {
    "meta": {"name": "", "metric": "sum", "author": ""},
    "region_meta": {"1": "subject", "2": "verb", "3": "continuation"},
    "predictions": [{"type": "formula", "formula": "(2;%mismatch%) > (2;%match%)"}],
    "items": [{"item_number": 1, "conditions": [
        {"condition_name": "match", "regions": [{"region_number": n, "content": ""} for n in (1, 2, 3)]},
        {"condition_name": "mismatch", "regions": [{"region_number": n, "content": ""} for n in (1, 2, 3)]},
    ]}],
}


@blueprint.get("/suites/new")
def new():
    return render_template("editor.html", record=None, version=None, data=_BLANK, metrics=METRIC_NAMES)


@blueprint.get("/suites/<int:suite_id>/edit")
def edit(suite_id: int):
    record = get_suite(db_session(), suite_id)
    version = get_version(record, request.args.get("version", type=int))
    data = suite_to_dict(load_version(version).suite)
    return render_template("editor.html", record=record, version=version, data=data, metrics=METRIC_NAMES)


@blueprint.post("/api/formula")
def check_formula():
    """Parse one formula as the user types: canonical form, or the error and its position; plus references
    to conditions or regions the suite does not have."""
    body = json_object_body(request.get_data(), expected='{"formula": "...", "conditions": [...], "regions": N}')
    formula = body.get("formula")
    if not isinstance(formula, str) or len(formula) > MAX_FORMULA:
        return jsonify({"ok": False, "reason": f"a formula is text of at most {MAX_FORMULA} characters",
                        "position": 0}), 400
    try:
        parsed = parse_formula(formula)
    except FormulaError as error:
        return jsonify({"ok": False, "reason": error.reason, "position": error.position, "pointer": error.pointer()})
    given = body.get("conditions")
    conditions = [c for c in given if isinstance(c, str)] if isinstance(given, list) else []
    regions = body.get("regions") if type(body.get("regions")) is int else None  # not True, which is an int
    notes = []
    for ref in dict.fromkeys(region_refs(parsed.tree)):
        if conditions and ref.condition not in conditions:
            notes.append(f"{ref} names condition {ref.condition!r}, which this suite does not have")
        if regions is not None and ref.region is not None and not 1 <= ref.region <= regions:
            notes.append(f"{ref} refers to region {ref.region}; this suite has regions 1..{regions}")

    return jsonify({"ok": not notes, "canonical": format_formula(parsed.tree), "notes": notes,
                    "peers": formula_peer_note(parsed.tree)})


@blueprint.post("/api/suites")
def save_from_editor():
    """Validate the editor's suite with the library and store it as a new version."""
    body = json_object_body(request.get_data(), expected='{"suite": {...}, "note": "..."}')
    if not isinstance(body.get("suite"), dict):
        return jsonify({"ok": False, "problems": [{"location": "", "message": "expected {\"suite\": {...}}",
                                                   "detail": ""}]}), 400
    try:
        loaded = parse_suite_data(body["suite"], source="editor")
    except SuiteError as error:
        return jsonify({"ok": False, "problems": suite_problems(error)}), 422
    note = body.get("note") if isinstance(body.get("note"), str) else ""
    saved = save_suite_owned(db_session(), loaded.suite, note=clean_text(note)[:500] or "saved in the editor")
    auto_run_saved([saved])
    if saved.created:
        flash(f"Saved {saved.suite.name!r} as version {saved.version.number}.", "success")
    else:
        flash(f"Nothing changed: {saved.suite.name!r} version {saved.version.number} holds exactly this"
              f"{'' if saved.exact else ', but for the order of conditions or empty fields, which are not edits'}.",
              "info")
    return jsonify({"ok": True, "created": saved.created, "version": saved.version.number,
                    "url": url_for("suites.show", suite_id=saved.suite.id),
                    "warnings": [w.render() for w in loaded.warnings]})
