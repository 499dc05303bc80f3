"""What a run's item pages show, read through the library's result readers: the item list of one suite (filtered to
failing items or items the models disagree on) and one item in detail (every model's region values, the terms of
each prediction, tokens on demand). ``runs.views`` routes to these."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

from linguagym.errors import ConfigurationError
from linguagym.evaluation import suite_level
from linguagym.evaluation.item_detail import ItemScores, read_item_scores
from linguagym.evaluation.item_plot import item_region_plot_svg
from linguagym.evaluation.item_table import ITEM_FILTERS, ItemTable, read_item_table
from linguagym.evaluation.prediction_table import (
    EFFECT_SENTENCE,
    count_cell,
    effect_cell,
    missing_effects,
    prediction_lines,
)
from linguagym.evaluation.report import region_plot_names
from linguagym.evaluation.runfolder import schema
from linguagym.evaluation.runfolder.reader import RunData, find_runs
from linguagym.evaluation.summary import SummarySettings
from linguagym.web.errors import NotFound


def model_runs(results: Path) -> list[RunData]:
    """The model folders a run has written so far (none before its first model is done)."""
    if not results.is_dir():
        return []
    try:
        return find_runs([results])
    except ConfigurationError:  # no model folder yet
        return []


def item_filter(value: str | None) -> str:
    show = value or "all"
    if show not in ITEM_FILTERS:
        raise ConfigurationError(f"unknown item filter {show!r}", hint="use one of " + ", ".join(ITEM_FILTERS))
    return show


def suite_table(run_id: int, runs: list[RunData], suite: str) -> ItemTable:
    table = read_item_table(runs, suite)
    if not table.models:
        raise NotFound(f"run {run_id} has no results for a suite named {suite!r}",
                       hint="pick a suite from the run's accuracy table")
    return table


def bits(value: float) -> str:
    """A surprisal for a table cell: two decimals, '–' where undefined."""
    return "–" if value is None or math.isnan(value) else f"{value:.2f}"


def effects_context(runs: list[RunData], table: ItemTable, item: int | None = None) -> dict:
    """What the effects partial (``_effects.html``) shows for the suite of ``table``: each comparison's mean effect
    per model (the run page's bootstrap: 1000 resamples, seed 0) and, on an item's page, that item's effect."""
    # each folder's effects.csv read once, for the means and the item's own
    shown = [replace(data, held_effects=data.effects()) for data in runs if data.model in table.models]
    settings = SummarySettings()
    lines = prediction_lines(shown, bootstrap=settings.bootstrap, seed=settings.seed, suites=[table.suite])
    of_item = None
    if item is not None:
        of_item = {(e.model, e.prediction, e.comparison): e.effect for data in shown for e in data.effects()
                   if e.suite == table.suite and e.item == item}
    return {"lines": lines, "models": [data.model for data in shown], "item": of_item,
            "missing": missing_effects(shown), "sentence": EFFECT_SENTENCE, "bootstrap": settings.bootstrap,
            "seed": settings.seed, "effect_cell": effect_cell, "count_cell": count_cell}


def suite_level_context(runs: list[RunData], suite: str) -> dict:
    """What ``_suite_level.html`` shows: each model's suite-level predictions of ``suite`` (``mean(x) > 0``, from
    ``suite_predictions.csv``), the statistic with its 95% interval and the verdicts, as the CLI and report state them
    (``count``: the items it is over, not ``items``, which Jinja would read as the dict's method)."""
    lines = []
    for data in runs:
        for row in data.suite_level_rows():
            if row["suite"] != suite:
                continue
            defined = int(row["items"]) > 0
            lines.append({"model": data.model, "prediction": row["prediction"], "formula": row["formula"],
                          "statistic": row["statistic"], "metric": row["metric"],
                          "value": f"{float(row['value']):.3f}" if defined else "–",
                          "ci": f"[{float(row['ci_low']):.3f}, {float(row['ci_high']):.3f}]" if defined else "–",
                          "count": row["items"], "undefined": row["undefined_items"],
                          "holds": _logical(row["holds"]), "interval_holds": _logical(row["interval_holds"])})
    return {"lines": lines, "bootstrap": suite_level.BOOTSTRAP, "seed": suite_level.SEED}  # as run evaluated them


def _logical(cell: str) -> bool:
    return cell in ("TRUE", "True", "true")  # TRUE now; earlier files wrote True


def items_context(run_id: int, results: Path, suite: str, show: str, policy: str) -> dict:
    runs = model_runs(results)
    table = suite_table(run_id, runs, suite)
    plots = []
    if (results / schema.PLOTS).is_dir():  # the report is written, and with it every model's folder
        suites_of = {data.model: list(dict.fromkeys(s["name"] for s in data.record.get("suites", []))) for data in runs}
        paths = {key: f"{schema.PLOTS}/{name}" for key, name in region_plot_names(runs, suites_of).items()}
        plots = [(model, paths[(model, suite)]) for model in table.models
                 if (model, suite) in paths and (results / paths[(model, suite)]).is_file()]
    counts = {kind: len(table.filtered(kind, policy)) for kind in ITEM_FILTERS}
    return {"suite": suite, "table": table, "shown": table.filtered(show, policy), "show": show, "counts": counts,
            "filters": ITEM_FILTERS, "policy": policy, "plots": plots, "effects": effects_context(runs, table),
            "suite_level": suite_level_context(runs, suite)}


def _item_details(run_id: int, runs: list[RunData], table: ItemTable, suite: str, item: int,
                  tokens: bool) -> list[ItemScores]:
    if item not in table.outcomes:
        raise NotFound(f"suite {suite!r} of run {run_id} has no item {item}", hint="pick an item from the suite's list")
    return [read_item_scores(data, suite, item, tokens=tokens) for data in runs if data.model in table.outcomes[item]]


def item_plot(run_id: int, results: Path, suite: str, item: int) -> str:
    """The item's region plot (SVG): every model's surprisal per region and condition, drawn by the library."""
    runs = model_runs(results)
    return item_region_plot_svg(_item_details(run_id, runs, suite_table(run_id, runs, suite), suite, item, False))


def item_context(run_id: int, results: Path, suite: str, item: int, show: str, policy: str, tokens: bool) -> dict:
    runs = model_runs(results)
    table = suite_table(run_id, runs, suite)
    details = _item_details(run_id, runs, table, suite, item, tokens)
    named: dict[tuple[str, int | None], list[int]] = {}  # (condition, region) -> the predictions naming it
    for prediction in details[0].predictions:
        for ref in prediction.references:
            named.setdefault((ref.condition, ref.region), []).append(prediction.index)
    previous, following = table.neighbours(item, show, policy)
    return {"suite": suite, "item": item, "table": table, "details": details, "first": details[0], "named": named,
            "show": show, "policy": policy, "tokens": tokens, "previous": previous, "next": following, "bits": bits,
            "has_tokens": all(d.has_tokens for d in details), "effects": effects_context(runs, table, item),
            # a condition's colour follows its name (its place in the suite's order), not its row in this item
            "colour": {name: k % 8 for k, name in enumerate(details[0].suite_conditions)},
            # the models whose values carry the word-boundary terms (a token's value is then not its own surprisal)
            "corrected": [data.model for data in runs if data.model in table.outcomes[item]
                          and data.record["settings"].get("bow_correction")]}
