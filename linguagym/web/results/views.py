"""Results by model rather than by run: the leaderboard (each model's latest result per suite, scored with a
collection), a page per model, and region plots of several models on one axis (a run's, a suite's)."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from flask import Blueprint, Response, render_template, request, url_for

from linguagym.errors import ConfigurationError
from linguagym.evaluation import plots
from linguagym.evaluation.aggregate import summarize
from linguagym.evaluation.collections import AD_HOC, builtin_collections, covering_collection, load_collection
from linguagym.evaluation.runfolder.reader import find_runs
from linguagym.evaluation.tables import format_value, score_label
from linguagym.names import suite_file_name
from linguagym.web.context import config, db_session
from linguagym.web.errors import NotFound
from linguagym.web.files import SANDBOX
from linguagym.web.inputs import parse_id
from linguagym.web.jobs.worker import results_directory
from linguagym.web.results.export import csv_response
from linguagym.web.results.index import SORT_KEYS, latest_results, leaderboard, model_results, suite_results
from linguagym.web.store import get_run, get_suite, get_version

blueprint = Blueprint("results", __name__)

DEFAULT_COLLECTION = "syntaxgym-2020"


def _collection_named(chosen: str) -> str:
    choices = builtin_collections()
    if chosen not in choices:
        raise ConfigurationError(f"unknown collection {chosen[:80]!r}", hint=f"choose one of {', '.join(choices)}")
    return chosen


@blueprint.get("/leaderboard.csv")
def leaderboard_csv():
    """The leaderboard's numbers in the library's long CSV format: a row per model and score, circuit or suite."""
    chosen = _collection_named(request.args.get("collection", DEFAULT_COLLECTION))
    board = leaderboard(suite_results(db_session(), config()), load_collection(chosen))
    return csv_response(board.summary, f"leaderboard-{chosen}.csv")


@blueprint.get("/suites/<int:suite_id>/results.csv")
def suite_results_csv(suite_id: int):
    """Every model's latest result on this version of the suite (``?version=``, default the latest; as its plot),
    with 95% bootstrap intervals, in the library's long CSV format."""
    record = get_suite(db_session(), suite_id)
    version = get_version(record, request.args.get("version", type=int))
    chosen = [r for r in latest_results(suite_results(db_session(), config(), suite=record.name)).values()
              if r.suite == record.name and r.version == version.number]
    covering = covering_collection([record.name])
    only = replace(covering, name=covering.name if covering.name == AD_HOC else f"{covering.name}: {record.name}",
                   suites=(record.name,), groups=(), exclude_from_score=(record.name,))  # its policy, one suite
    summary = summarize([o for r in chosen for o in r.outcomes()], only, bootstrap=1000)
    filename = suite_file_name(record.name, set()).removesuffix(".json") + f".v{version.number}.results.csv"
    return csv_response(summary, filename)


@blueprint.get("/leaderboard")
def leaderboard_page():
    choices = builtin_collections()
    chosen = request.args.get("collection", DEFAULT_COLLECTION)
    if chosen not in choices:
        raise ConfigurationError(f"unknown collection {chosen[:80]!r}", hint=f"choose one of {', '.join(choices)}")
    sort = request.args.get("sort", "score")
    if sort not in SORT_KEYS and not sort.startswith(("group:", "suite:")):
        raise ConfigurationError(f"cannot sort by {sort[:80]!r}",
                                 hint="click a column heading: model, score, suites, a circuit or a suite")
    order = request.args.get("order", "asc" if sort == "model" else "desc")
    if order not in ("asc", "desc"):  # (anything else was a KeyError, a 500, once a run had finished)
        raise ConfigurationError(f"cannot order by {order[:80]!r}", hint="use order=asc or order=desc")
    board = leaderboard(suite_results(db_session(), config()), load_collection(chosen), sort=sort,
                        descending=order != "asc")

    def sort_link(key: str) -> str:
        """The column's link: sorted by it, best first; clicked again, the other way round."""
        first = "asc" if key == "model" else "desc"
        flipped = {"asc": "desc", "desc": "asc"}[order] if key == sort else first
        return url_for("results.leaderboard_page", collection=chosen, sort=key, order=flipped)

    return render_template("leaderboard.html", board=board, collections=choices, collection=chosen, sort=sort,
                           order=order, sort_link=sort_link, fmt=format_value,
                           score_label=score_label(board.summary.collection))


@blueprint.get("/model")
def model_page():
    """``?name=``: model names hold ``/`` and ``:`` (hub ids, paths, ``gguf:``), so they travel as a parameter."""
    name = request.args.get("name", "")
    everything = suite_results(db_session(), config())
    mine = model_results(everything, name)
    if not mine:
        raise NotFound(f"no finished run has results for a model named {name[:200]!r}",
                       hint="pick a model on the leaderboard")
    latest = latest_results(mine)
    newest = {(result.run_id, result.suite) for result in latest.values()}
    repeated = {suite for suite, count in Counter(r.suite for r in mine).items() if count > 1}  # "latest" marks
    return render_template("model.html", model=name, results=mine, newest=newest, repeated=repeated, fmt=format_value,
                           labels=sorted({r.label for r in mine}), runs=sorted({r.run_id for r in mine}, reverse=True))


@blueprint.get("/runs/<int:run_id>/regions.svg")
def run_regions_plot(run_id: int):
    """The run's models on one axis for ``?suite=``: mean surprisal per region, a colour per model."""
    get_run(db_session(), run_id)
    suite = request.args.get("suite", "")
    by_model = {data.model: regions[suite] for data in find_runs([results_directory(config(), run_id)])
                if suite in (regions := data.regions())}
    return _overlaid(suite, by_model, f"run {run_id}")


@blueprint.get("/compare/regions.svg")
def compare_regions_plot():
    """The models of the runs ``?run=`` on one axis for ``?suite=`` (those whose regions match the first's)."""
    session = db_session()
    suite = request.args.get("suite", "")
    by_model = {}
    for value in request.args.getlist("run"):
        run = get_run(session, parse_id(value, "run"))
        for data in find_runs([results_directory(config(), run.id)]):
            if suite in (regions := data.regions()):
                by_model[f"run {run.id}: {data.model}"] = regions[suite]
    return _overlaid(suite, by_model, "the chosen runs")


@blueprint.get("/suites/<int:suite_id>/regions.svg")
def suite_regions_plot(suite_id: int):
    """Every model's latest result on this version of the suite (``?version=``, default the latest), on one axis."""
    record = get_suite(db_session(), suite_id)
    version = get_version(record, request.args.get("version", type=int))
    chosen = [r for r in latest_results(suite_results(db_session(), config(), suite=record.name)).values()
              if r.suite == record.name and r.version == version.number]
    by_model = {}
    for result in chosen:
        for data in find_runs([results_directory(config(), result.run_id)]):
            if data.model == result.label and record.name in (regions := data.regions()):
                by_model[result.model] = regions[record.name]
    return _overlaid(record.name, by_model, f"version {version.number} of suite {record.name}")


def _overlaid(suite: str, by_model: dict, where: str) -> Response:
    shared = plots.same_regions(by_model)
    if not shared:
        raise NotFound(f"{where} has no region results for a suite named {suite[:200]!r}")
    return Response(plots.overlaid_region_plot_svg(suite, shared), mimetype="image/svg+xml",
                    headers={"Content-Security-Policy": SANDBOX})
