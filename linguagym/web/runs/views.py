"""Run pages: start a run (models x suites) in the background, follow its progress, cancel it; its results
(accuracy per suite and group, region-by-condition surprisal plots, item-level tables), comparison of runs,
and every result file for download."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from flask import Blueprint, Response, flash, jsonify, redirect, render_template, request, url_for

from linguagym.errors import ConfigurationError
from linguagym.evaluation import plots
from linguagym.evaluation.aggregate import summarize
from linguagym.evaluation.collections import builtin_collections, covering_collection, load_collection
from linguagym.evaluation.comparison import (
    DuplicateItems,
    compare_outcomes,
    format_difference,
    format_p,
    run_predictions,
)
from linguagym.evaluation.effect_comparison import compare_held_effects, format_effect_difference, format_effect_mean
from linguagym.evaluation.evaluate import COMPAT_OPTIONS
from linguagym.evaluation.imported import is_imported
from linguagym.evaluation.limit import parse_limit
from linguagym.evaluation.report import region_plot_names
from linguagym.evaluation.runfolder import schema
from linguagym.evaluation.runfolder.reader import find_runs
from linguagym.evaluation.summary import SummarySettings, folder_policy, summary_policy
from linguagym.evaluation.tables import format_value, notes, policy_sentence, summary_rows, surprisal_label
from linguagym.scoring.model_args import model_args
from linguagym.scoring.registry import named_models
from linguagym.web.auth.ownership import require_owner
from linguagym.web.context import config, db_session, nobody_runs, notify_worker
from linguagym.web.db import UNFINISHED
from linguagym.web.errors import NotFound
from linguagym.web.files import SANDBOX, listing, send_result_file
from linguagym.web.inputs import DEVICES, device_choice, parse_id, plain_text, whole_number
from linguagym.web.jobs.lifecycle import progress_status, queue_again, request_cancel
from linguagym.web.jobs.worker import results_directory
from linguagym.web.results.export import csv_response, zip_response
from linguagym.web.results.index import shared_suites_outcomes
from linguagym.web.runs import item_pages
from linguagym.web.runs.auto_run import auto_run_models
from linguagym.web.runs.deletion import delete_run
from linguagym.web.runs.form import (
    RunFormValues,
    collection_choices,
    preselect_models,
    select_suites,
    values_from,
    values_of_run,
)
from linguagym.web.runs.jobs import run_directory
from linguagym.web.runs.queue import queue_run
from linguagym.web.store import get_run, get_suite, list_runs, list_suites, run_name

if TYPE_CHECKING:
    from linguagym.evaluation.runfolder.reader import RunData

blueprint = Blueprint("runs", __name__)


def _named_models() -> list[str]:
    return named_models()


@blueprint.get("/runs")
def index():
    """The runs and the run form: empty, filled from the query string (``?suite=3&model=gpt2``, the form's field
    names) or, with ``?from=<run id>``, from that run ("Run again")."""
    session = db_session()
    if "from" in request.args:
        values = values_of_run(get_run(session, parse_id(request.args["from"], "run")), _named_models())
    else:
        values = values_from(request.args)
        preselect_models(values, auto_run_models(session), _named_models())
    if request.args.get("select"):  # "select all", "select a collection": ticked on top of the suites given
        values.suites |= select_suites(list_suites(session), request.args["select"])
    return _runs_page(values)


def _runs_page(values: RunFormValues, error: ConfigurationError | None = None):
    session = db_session()
    suites = list_suites(session)
    return render_template("runs.html", runs=list_runs(session), suites=suites, form=values,
                           error=error, named_models=_named_models(), devices=DEVICES, compat_options=COMPAT_OPTIONS,
                           collection_choices=collection_choices(suites))


@blueprint.post("/runs")
def start():
    """Queue a run; a form the server refuses is shown again as submitted, with the error above it (400)."""
    try:
        return _start(request.form)
    except ConfigurationError as error:
        db_session().rollback()
        return _runs_page(values_from(request.form), error), 400


def _start(form):
    session = db_session()
    models = form.getlist("model") + [line for line in form.get("other_models", "").splitlines() if line.strip()]
    versions = [get_suite(session, parse_id(value, "suite")).latest for value in form.getlist("suite")]
    device = device_choice(form)
    batch_size = whole_number(form.get("batch_size", "16"), "batch size", 1, 4096)
    settings = {"device": device, "policy": form.get("policy") or None, "batch_size": batch_size,
                **_advanced_options(form)}
    run = queue_run(session, config(), models, versions, settings, name=run_name(form.get("name")))
    session.commit()
    notify_worker()
    flash(f"Run {run.id} queued: {len(versions)} suite(s) x {len(run.models)} model(s).", "success")
    return redirect(url_for("runs.show", run_id=run.id))


def _advanced_options(form) -> dict:
    """Model arguments (lm-eval's ``key=value,...``), --limit and --compat as the command line takes them, parsed
    by the library's parsers. ``trust_remote_code`` is refused: it runs code that the request names (the model's
    own Python files), which the server never does for a browser; the command line can."""
    options: dict = {}
    text = plain_text(form.get("model_args", "").strip(), "the model arguments")
    if text:
        checked = model_args(text)
        if checked.trust_remote_code:
            raise ConfigurationError("model argument trust_remote_code=true is not taken from the web form: it runs "
                                     "the model repository's own Python code on this server",
                                     hint="run such a model from the command line: linguagym run --model-args ...")
        options["model_args"] = dict(checked.pairs())
    limit = form.get("limit", "").strip()
    if limit:
        options["limit"] = parse_limit(limit)
    compat = form.get("compat", "")
    if compat:
        options["compat"] = compat  # checked with the rest by check_settings
    for name, default in (("crossing", "first"), ("ties", "strict")):
        chosen = form.get(name, default)
        if chosen != default:
            options[name] = chosen  # checked with the rest by check_settings
    if form.get("bow_correction") in ("1", "on", "true"):
        options["bow_correction"] = True  # a masked or .tsv model refuses it when the run starts, with the reason
    return options


@blueprint.get("/api/runs/<int:run_id>")
def status(run_id: int):
    return jsonify(progress_status(get_run(db_session(), run_id)))


@blueprint.post("/runs/<int:run_id>/cancel")
def cancel(run_id: int):
    session = db_session()
    run = get_run(session, run_id)
    require_owner(run)
    request_cancel(run, "cancelling after the current chunk of sentences", abandoned=nobody_runs(run))
    session.commit()
    if request.accept_mimetypes.best == "application/json":
        return jsonify(progress_status(run))
    return redirect(url_for("runs.show", run_id=run_id))


@blueprint.post("/runs/<int:run_id>/resume")
def resume(run_id: int):
    """Queue a failed or cancelled run again as it was (its suite versions, models and options); the scores it
    computed are cached, so it goes on from where it stopped."""
    session = db_session()
    run = get_run(session, run_id)
    require_owner(run)
    queue_again(run, run.title)
    session.commit()
    notify_worker()
    flash(f"{run.title} is queued again; the scores it computed are cached and not computed again.", "success")
    return redirect(url_for("runs.show", run_id=run_id))


@blueprint.post("/runs/<int:run_id>/name")
def rename(run_id: int):
    """Name a run (an empty name removes it)."""
    session = db_session()
    run = get_run(session, run_id)
    require_owner(run)
    run.name = run_name(request.form.get("name"))
    session.commit()
    flash(f"Run {run.id} is now named {run.name!r}." if run.name else f"Run {run.id} has no name now.", "success")
    return redirect(url_for("runs.show", run_id=run_id))


@blueprint.post("/runs/<int:run_id>/delete")
def delete(run_id: int):
    """Delete a finished run: its row and its folder (a queued or running one must be cancelled first)."""
    session = db_session()
    run = get_run(session, run_id)
    require_owner(run)
    title = run.title
    delete_run(session, config(), run)
    flash(f"Deleted {title} and its files.", "success")
    return redirect(url_for("runs.index"))


def _region_plot_paths(runs: list[RunData], suites: dict[str, list[str]]) -> dict[tuple[str, str], str]:
    """(model, suite) -> the path of its region plot among a run's files, as the report named it. ``suites``: each
    model's suites in the order of its results (the report hashes the later of two names that would clash)."""
    return {key: f"{schema.PLOTS}/{name}" for key, name in region_plot_names(runs, suites).items()}


def _collection_choice():
    choices = builtin_collections()
    chosen = request.args.get("collection", "")
    return choices, (chosen if chosen in choices else "")


def _summary(directories: list[Path], collection_name: str, labels: list[str] | None = None, *,
             shared_only: bool = False):
    """``labels``: one prefix per directory, so the same model in two runs stays two columns; ``shared_only``:
    only the suites every column has (Compare: like with like; the page names the others)."""
    runs, summary, _, _ = _labelled_summary(directories, collection_name, labels, shared_only=shared_only)
    return runs, summary


def _labelled_summary(directories: list[Path], collection_name: str, labels: list[str] | None = None, *,
                      shared_only: bool = False):
    """``_summary``, with each run's model as its column is named, and the outcomes summarized."""
    from dataclasses import replace

    runs, outcomes, sums, names = [], [], {}, []
    for index, directory in enumerate(directories):
        found = find_runs([directory])
        runs += found
        for data in found:
            prefix = f"{labels[index]}: " if labels else ""
            outcomes += [replace(o, model=prefix + o.model) for o in data.outcomes]
            sums[prefix + data.model] = data.sums
            names.append(prefix + data.model)
    if shared_only:
        outcomes = shared_suites_outcomes(outcomes)
    collection = load_collection(collection_name) if collection_name else covering_collection(o.suite for o in outcomes)
    policy = summary_policy(SummarySettings(), collection, [data.record for data in runs])  # what the runs recorded
    return runs, replace(summarize(outcomes, collection, policy=policy, bootstrap=1000), sums=sums), names, outcomes


@blueprint.get("/runs/<int:run_id>")
def show(run_id: int):
    run = get_run(db_session(), run_id)
    results = results_directory(config(), run_id)
    context: dict[str, Any] = {"run": run, "files": listing(results), "summary": None}
    imported = isinstance((run.settings or {}).get("imported"), dict)  # no report: per-item outcomes only
    context["imported"] = imported
    if run.status == "done" and ((results / schema.REPORT).is_file() or imported):
        choices, chosen = _collection_choice()
        runs, summary = _summary([results], chosen)
        formulas: dict[str, list[str]] = {}
        suites_of: dict[str, list[str]] = {}
        for data in runs:
            predictions = data.predictions() if data.has(schema.PREDICTIONS) else {}
            formulas.update({suite: [f for f, _ in found] for suite, found in predictions.items()})
            suites_of[data.model] = list(predictions)
        plots = {name for name, _ in context["files"] if name.startswith(f"{schema.PLOTS}/")}
        paths = _region_plot_paths(runs, suites_of)
        region_plots = {suite: [(data.model, paths[(data.model, suite)]) for data in runs
                                if paths.get((data.model, suite)) in plots]
                        for suite in formulas}
        context.update(summary=summary, rows=summary_rows(summary), notes=notes(summary), fmt=format_value,
                       surprisal=surprisal_label(summary), policy_line=policy_sentence(summary), formulas=formulas,
                       region_plots=region_plots, plots=plots,
                       collections=choices,
                       collection=chosen)
    return render_template("run.html", **context)


@blueprint.get("/runs/<int:run_id>/items")
def items(run_id: int):
    """Item-level results of one suite: each item's outcome per model, and each prediction's; ``show``: all items,
    the failing ones or those the models disagree on."""
    run = get_run(db_session(), run_id)
    _not_imported(run)
    suite = request.args.get("suite", "")
    context = item_pages.items_context(run_id, results_directory(config(), run_id), suite,
                                       item_pages.item_filter(request.args.get("show")), _policy(run_id, suite))
    return render_template("items.html", run=run, **context)


@blueprint.get("/runs/<int:run_id>/suites/<path:suite>/items/<int:item>")
def item(run_id: int, suite: str, item: int):
    """One item in detail: each condition's regions with every model's surprisal (tokens with ``?tokens=1``), and
    each prediction's terms evaluated, the regions it names marked."""
    run = get_run(db_session(), run_id)
    _not_imported(run)
    context = item_pages.item_context(run_id, results_directory(config(), run_id), suite, item,
                                      item_pages.item_filter(request.args.get("show")), _policy(run_id, suite),
                                      tokens=request.args.get("tokens") == "1")
    return render_template("item.html", run=run, **context)


@blueprint.get("/runs/<int:run_id>/suites/<path:suite>/items/<int:item>/regions.svg")
def item_regions_plot(run_id: int, suite: str, item: int):
    """The item's plot: surprisal per region and condition, every model of the run on one axis."""
    run = get_run(db_session(), run_id)
    _not_imported(run)
    svg = item_pages.item_plot(run_id, results_directory(config(), run_id), suite, item)
    return Response(svg, mimetype="image/svg+xml", headers={"Content-Security-Policy": SANDBOX})


def _not_imported(run) -> None:
    """Item pages need predictions and region values; an imported run has each item's outcome only."""
    if isinstance((run.settings or {}).get("imported"), dict):
        raise NotFound(f"{run.title} holds imported per-item outcomes only: no predictions or region values to show "
                       "item by item", hint="its accuracy is on its page, the leaderboard and Compare")


def _policy(run_id: int, suite: str) -> str:
    """The suite's policy in this run: the one its accuracy on the run's page is under."""
    return folder_policy(results_directory(config(), run_id)).of(suite)


@blueprint.get("/runs/<int:run_id>/files/<path:relative>")
def file(run_id: int, relative: str):
    get_run(db_session(), run_id)
    return send_result_file(results_directory(config(), run_id), relative, download=bool(request.args.get("download")))


@blueprint.get("/runs/<int:run_id>/download.zip")
def download_zip(run_id: int):
    """Every file of the run's folder (its suites and results) as one zip, ``run-<id>/...`` inside."""
    run = get_run(db_session(), run_id)
    if run.status in UNFINISHED:
        raise ConfigurationError(f"run {run_id} is {run.status}: its files are still being written",
                                 hint="download the zip once the run has finished (or cancel it)")
    return zip_response(run_directory(config(), run_id), f"run-{run_id}")


def _chosen_runs() -> tuple[list[int], list[Path]]:
    session = db_session()
    chosen = [parse_id(value, "run") for value in request.args.getlist("run")]
    return chosen, [results_directory(config(), get_run(session, i).id) for i in chosen]


@blueprint.get("/compare.csv")
def compare_table_csv():
    """The comparison's table (the suites every chosen run has) in the library's long CSV format."""
    chosen, directories = _chosen_runs()
    if not directories:
        raise ConfigurationError("no runs chosen", hint="tick runs to compare")
    _, summary = _summary(directories, _collection_choice()[1], [f"run {i}" for i in chosen], shared_only=True)
    return csv_response(summary, "compare-runs-" + "-".join(map(str, chosen[:20])) + ".csv")


@blueprint.get("/compare")
def compare():
    """Several finished runs side by side: one table, models across."""
    session = db_session()
    done = [r for r in list_runs(session) if r.status == "done"]
    chosen = [parse_id(value, "run") for value in request.args.getlist("run")]
    context = {"runs": done, "chosen": chosen, "summary": None}
    if chosen:
        directories = [results_directory(config(), get_run(session, i).id) for i in chosen]
        choices, collection = _collection_choice()
        runs, summary, comparison, imported, names = _compared(directories, collection, chosen)
        shared = {s for m in summary.models for s in m.suites}
        left_out = sorted({o.suite for data in runs for o in data.outcomes} - shared)
        context.update(summary=summary, rows=summary_rows(summary), notes=notes(summary), fmt=format_value,
                       surprisal=surprisal_label(summary), policy_line=policy_sentence(summary), collections=choices,
                       collection=collection, shared=sorted(shared), left_out=left_out, comparison=comparison,
                       format_p=format_p, format_difference=format_difference, imported=imported,
                       effect_comparison=_compared_effects(runs, names, shared) if len(names) > 1 else None,
                       format_effect_difference=format_effect_difference, format_effect_mean=format_effect_mean)
    return render_template("compare.html", **context)


def _compared(directories: list[Path], collection: str, chosen: list[int]):
    """The runs, their summary on the suites they share, and the paired comparison of their models on those suites
    (the summary's policy, 1000 resamples, seed 0; every pair of columns; Holm over the table), and the columns
    that are imported results (``evaluation/imported.py``)."""
    runs, summary, names, outcomes = _labelled_summary(directories, collection, [f"run {i}" for i in chosen],
                                                       shared_only=True)
    predictions, _ = run_predictions(runs, names)
    try:  # tie counts for the pairs whose runs both have predictions.csv (an imported run has none)
        comparison = compare_outcomes(outcomes, summary.accuracy_policy, resamples=summary.bootstrap,
                                      seed=summary.seed, predictions=predictions)
    except DuplicateItems:  # one run ticked twice (a hand-made URL): the accuracy table as before, no pairing
        comparison = None
    imported = {name for name, data in zip(names, runs, strict=True) if is_imported(data.record)}
    return runs, summary, comparison, imported, names


def _compared_effects(runs, names: list[str], shared: set[str]):
    """The paired comparison of the compared models' effects on the shared suites (the summary's 1000 resamples,
    seed 0; Holm over its own table); None where a run is ticked twice."""
    try:
        return compare_held_effects(runs, SummarySettings(), labels=names, suites=shared)
    except DuplicateItems:
        return None


@blueprint.get("/compare/paired.csv")
def compare_csv():
    """The compare page's paired comparison as CSV (``comparison.COLUMNS``)."""
    session = db_session()
    chosen = [parse_id(value, "run") for value in request.args.getlist("run")]
    if not chosen:
        raise ConfigurationError("no runs chosen", hint="tick runs to compare")
    directories = [results_directory(config(), get_run(session, i).id) for i in chosen]
    _, _, comparison, _, _ = _compared(directories, _collection_choice()[1], chosen)
    if comparison is None:
        raise ConfigurationError("a run is chosen twice", hint="tick each run once")
    return Response(comparison.csv_text(), mimetype="text/csv",
                    headers={"Content-Disposition": "attachment; filename=paired-comparison.csv"})


@blueprint.get("/compare/paired-effects.csv")
def compare_effects_csv():
    """The compare page's paired comparison of effects as CSV (``effect_comparison.COLUMNS``)."""
    session = db_session()
    chosen = [parse_id(value, "run") for value in request.args.getlist("run")]
    if not chosen:
        raise ConfigurationError("no runs chosen", hint="tick runs to compare")
    directories = [results_directory(config(), get_run(session, i).id) for i in chosen]
    runs, summary, _, _, names = _compared(directories, _collection_choice()[1], chosen)
    effects = _compared_effects(runs, names, {s for m in summary.models for s in m.suites})
    if effects is None:
        raise ConfigurationError("a run is chosen twice", hint="tick each run once")
    return Response(effects.csv_text(), mimetype="text/csv",
                    headers={"Content-Disposition": "attachment; filename=paired-effects.csv"})


@blueprint.get("/compare/accuracy.svg")
def compare_plot():
    session = db_session()
    chosen = [parse_id(value, "run") for value in request.args.getlist("run")]
    directories = [results_directory(config(), get_run(session, i).id) for i in chosen]
    if not directories:
        raise ConfigurationError("no runs chosen", hint="tick runs to compare")
    _, summary = _summary(directories, _collection_choice()[1], [f"run {i}" for i in chosen], shared_only=True)
    if not summary.models:
        raise ConfigurationError("the chosen runs share no suite", hint="compare runs that ran a suite in common")
    return Response(plots.suite_accuracy_svg(summary), mimetype="image/svg+xml",
                    headers={"Content-Security-Policy": SANDBOX})
