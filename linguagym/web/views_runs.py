"""Run pages: start a run (models x suites) in the background, follow its progress, cancel it; its results
(accuracy per suite and group, region-by-condition surprisal plots, item-level tables), comparison of runs,
and every result file for download."""

from __future__ import annotations

import csv
import re
from collections import defaultdict
from pathlib import Path

from flask import (
    Blueprint,
    Response,
    current_app,
    flash,
    jsonify,
    redirect,
    render_template,
    request,
    send_file,
    url_for,
)

from linguagym.errors import ConfigurationError
from linguagym.web.app import config, db_session
from linguagym.web.files import listing, safe_child
from linguagym.web.inputs import parse_id, plain_text, whole_number
from linguagym.web.store import (
    create_run,
    get_run,
    get_suite,
    list_runs,
    list_suites,
    progress_status,
    request_cancel,
)
from linguagym.web.worker import results_directory

blueprint = Blueprint("runs", __name__)

DEVICES = ("auto", "cpu", "cuda", "mps")
MAX_MODELS = 8
_SANDBOX = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"  # for served HTML and SVG files


def _named_models() -> list[str]:
    from linguagym.scoring.registry import named_models

    return named_models()


@blueprint.get("/runs")
def index():
    session = db_session()
    chosen = set(request.args.getlist("suite", type=int))
    return render_template("runs.html", runs=list_runs(session), suites=list_suites(session), chosen=chosen,
                           named_models=_named_models(), devices=DEVICES)


@blueprint.post("/runs")
def start():
    session = db_session()
    form = request.form
    models = form.getlist("model") + [line for line in form.get("other_models", "").splitlines() if line.strip()]
    if len(models) > MAX_MODELS:
        raise ConfigurationError(f"{len(models)} models chosen; a run takes at most {MAX_MODELS}",
                                 hint="split them into several runs")
    models = [plain_text(model.strip(), "the model") for model in models]
    versions = [get_suite(session, parse_id(value, "suite")).latest for value in form.getlist("suite")]
    device = form.get("device", "auto")
    if device not in DEVICES:
        raise ConfigurationError(f"unknown device {device!r}", hint="use one of " + ", ".join(DEVICES))
    policy = form.get("policy", "all")
    if policy not in ("all", "first"):
        raise ConfigurationError(f"unknown policy {policy!r}", hint="use all or first")
    batch_size = whole_number(form.get("batch_size", "16"), "batch size", 1, 4096)
    run = create_run(session, models, versions, {"device": device, "policy": policy, "batch_size": batch_size})
    session.commit()
    current_app.extensions["worker"].notify()
    flash(f"Run {run.id} queued: {len(versions)} suite(s) x {len(run.models)} model(s).", "success")
    return redirect(url_for("runs.show", run_id=run.id))


@blueprint.get("/api/runs/<int:run_id>")
def status(run_id: int):
    return jsonify(progress_status(get_run(db_session(), run_id)))


@blueprint.post("/runs/<int:run_id>/cancel")
def cancel(run_id: int):
    session = db_session()
    run = get_run(session, run_id)
    request_cancel(run, "cancelling after the current chunk of sentences")
    session.commit()
    if request.accept_mimetypes.best == "application/json":
        return jsonify(progress_status(run))
    return redirect(url_for("runs.show", run_id=run_id))


def _slug(text: str) -> str:  # the plot file names of linguagym.evaluation.report
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("._") or "x"


def _collection_choice():
    from linguagym.evaluation.collections import builtin_collections

    choices = builtin_collections()
    chosen = request.args.get("collection", "")
    return choices, (chosen if chosen in choices else "")


def _summary(directories: list[Path], collection_name: str, labels: list[str] | None = None):
    """``labels``: one prefix per directory, so the same model in two runs stays two columns."""
    from dataclasses import replace

    from linguagym.evaluation.aggregate import summarize
    from linguagym.evaluation.collections import covering_collection, load_collection
    from linguagym.evaluation.report import find_runs

    runs, outcomes = [], []
    for index, directory in enumerate(directories):
        found = find_runs([directory])
        runs += found
        for data in found:
            prefix = f"{labels[index]}: " if labels else ""
            outcomes += [replace(o, model=prefix + o.model) for o in data.outcomes]
    collection = load_collection(collection_name) if collection_name else covering_collection(o.suite for o in outcomes)
    return runs, summarize(outcomes, collection, bootstrap=1000)


@blueprint.get("/runs/<int:run_id>")
def show(run_id: int):
    run = get_run(db_session(), run_id)
    results = results_directory(config(), run_id)
    context = {"run": run, "files": listing(results), "summary": None}
    if run.status == "done" and (results / "report.html").is_file():
        from linguagym.evaluation.tables import format_value, summary_rows

        choices, chosen = _collection_choice()
        runs, summary = _summary([results], chosen)
        formulas: dict[str, list[str]] = {}
        for data in runs:
            formulas.update({suite: [f for f, _ in found] for suite, found in data.predictions().items()})
        plots = {name for name, _ in context["files"] if name.startswith("plots/")}
        region_plots = {suite: [(data.model, f"plots/regions_{_slug(data.model)}_{_slug(suite)}.svg")
                                for data in runs
                                if f"plots/regions_{_slug(data.model)}_{_slug(suite)}.svg" in plots]
                        for suite in formulas}
        context.update(summary=summary, rows=summary_rows(summary), fmt=format_value, formulas=formulas,
                       region_plots=region_plots, plots=plots, collections=choices, collection=chosen)
    return render_template("run.html", **context)


@blueprint.get("/runs/<int:run_id>/items")
def items(run_id: int):
    """Item-level results of one suite: each item's outcome per model, and each prediction's."""
    run = get_run(db_session(), run_id)
    suite = request.args.get("suite", "")
    results = results_directory(config(), run_id)
    table: dict[int, dict[str, dict]] = defaultdict(dict)
    models: list[str] = []
    formulas: dict[int, str] = {}
    for path in sorted(results.glob("*/predictions.csv")):
        with path.open(newline="", encoding="utf-8") as handle:
            for row in csv.DictReader(handle):
                if row["suite"] != suite:
                    continue
                if row["model"] not in models:
                    models.append(row["model"])
                formulas.setdefault(int(row["prediction"]), row["formula"])
                cell = table[int(row["item"])].setdefault(row["model"], {})
                cell[int(row["prediction"])] = row["holds"]
    if not table:
        raise ConfigurationError(f"run {run_id} has no results for a suite named {suite!r}")
    plots = [(model, f"plots/regions_{_slug(model)}_{_slug(suite)}.svg") for model in models]
    plots = [(m, p) for m, p in plots if (results / p).is_file()]
    return render_template("items.html", run=run, suite=suite, models=models, formulas=dict(sorted(formulas.items())),
                           table=dict(sorted(table.items())), plots=plots)


@blueprint.get("/runs/<int:run_id>/files/<path:relative>")
def file(run_id: int, relative: str):
    get_run(db_session(), run_id)
    path = safe_child(results_directory(config(), run_id), relative)
    inline = path.suffix in (".svg", ".html") and not request.args.get("download")
    response = send_file(path, as_attachment=not inline, download_name=path.name, max_age=0)
    if path.suffix == ".csv" or path.suffix == ".json":
        response.headers["Content-Type"] = "text/csv; charset=utf-8" if path.suffix == ".csv" else "application/json"
    response.headers["Content-Security-Policy"] = _SANDBOX
    return response


@blueprint.get("/compare")
def compare():
    """Several finished runs side by side: one table, models across."""
    session = db_session()
    done = [r for r in list_runs(session) if r.status == "done"]
    chosen = [parse_id(value, "run") for value in request.args.getlist("run")]
    context = {"runs": done, "chosen": chosen, "summary": None}
    if chosen:
        from linguagym.evaluation.tables import format_value, summary_rows

        directories = [results_directory(config(), get_run(session, i).id) for i in chosen]
        choices, collection = _collection_choice()
        _, summary = _summary(directories, collection, [f"run {i}" for i in chosen])
        context.update(summary=summary, rows=summary_rows(summary), fmt=format_value, collections=choices,
                       collection=collection)
    return render_template("compare.html", **context)


@blueprint.get("/compare/accuracy.svg")
def compare_plot():
    from linguagym.evaluation import plots

    session = db_session()
    chosen = [parse_id(value, "run") for value in request.args.getlist("run")]
    directories = [results_directory(config(), get_run(session, i).id) for i in chosen]
    if not directories:
        raise ConfigurationError("no runs chosen", hint="tick runs to compare")
    _, summary = _summary(directories, _collection_choice()[1], [f"run {i}" for i in chosen])
    return Response(plots.suite_accuracy_svg(summary), mimetype="image/svg+xml",
                    headers={"Content-Security-Policy": _SANDBOX})
