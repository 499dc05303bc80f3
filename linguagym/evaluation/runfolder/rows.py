"""The rows of a model's CSV files, built from its ``RunResult`` in memory: what the writer writes and what
``Results.to_pandas`` tabulates, so the files and the DataFrames hold the same values by construction. The
columns are ``schema``'s."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator

from linguagym.evaluation import suite_level
from linguagym.evaluation.aggregate import ItemOutcome
from linguagym.evaluation.alignment import region_crossings
from linguagym.evaluation.effects import ItemEffect, suite_effects
from linguagym.evaluation.evaluate import SuiteResult
from linguagym.evaluation.run import RunResult
from linguagym.evaluation.runfolder import schema
from linguagym.names import short_model_name
from linguagym.suites.metrics import METRIC_NAMES


def model_label(result: RunResult) -> str:
    """The model's name in tables: the run's own label where a command gave one (``model_labels``), else a
    named model or hub id as given, a local path by its last part."""
    return result.label or short_model_name(result.settings.model)


def prediction_rows(result: RunResult) -> Iterator[list]:
    """``predictions.csv``: one row per item and prediction."""
    model = model_label(result)
    for suite_result in result.suites:
        suite = suite_result.suite
        for p in suite_result.predictions:
            yield [model, suite.name, p.item, p.prediction, suite.predictions[p.prediction].formula,
                   suite_result.metric, p.holds, bool(p.undefined), p.tie, *_sides(p.sides)]


def _sides(sides: tuple[tuple[float, float], ...]) -> list:
    """``comparisons, left, right, effect`` of a prediction: the sides and their difference where it has one
    comparison (empty where undefined), only how many where it has several (``effects.csv`` has each)."""
    if len(sides) != 1:
        return [len(sides), "", "", ""]
    left, right = sides[0]
    return [1, _number(left), _number(right), _number(left - right)]


def _number(value: float) -> float | str:
    return "" if value != value else value  # NaN: empty


def run_effects(result: RunResult) -> list[ItemEffect]:
    """Every effect of a model's run (``effects.py``), suite by suite, under the model's label."""
    model = model_label(result)
    return [effect for suite_result in result.suites for effect in suite_effects(model, suite_result)]


def effect_rows(result: RunResult) -> Iterator[list]:
    """``effects.csv``: one row per item, prediction and comparison (``effects.py``); undefined values empty."""
    for e in run_effects(result):
        yield [e.model, e.suite, e.item, e.prediction, e.comparison, e.formula, e.comparison_formula, e.op, e.metric,
               _number(e.left), _number(e.right), _number(e.effect), e.undefined]


def suite_prediction_rows(result: RunResult) -> Iterator[list]:
    """``suite_predictions.csv``: one row per suite-level prediction (``suite_level.py``); NaN: empty."""
    model = model_label(result)
    for suite_result in result.suites:
        for p in suite_result.suite_predictions:
            yield [model, suite_result.suite.name, p.prediction, p.formula, suite_result.metric, p.statistic,
                   *["" if v != v else v for v in (p.value, p.ci_low, p.ci_high)], p.op, p.threshold, p.items,
                   p.undefined_items, p.holds, p.interval_holds]


def item_outcomes(result: RunResult) -> list[ItemOutcome]:
    """Each item's outcome under both policies, as ``items.csv`` holds it (and ``read_item_outcomes`` reads it)."""
    model = model_label(result)
    outcomes = []
    for suite_result in result.suites:
        first = suite_result.item_correct("first")
        for item, all_hold in suite_result.item_correct("all").items():
            outcomes.append(ItemOutcome(model, suite_result.suite.name, item, correct_all=all_hold,
                                        correct_first=first[item]))
    return outcomes


def item_rows(result: RunResult) -> Iterator[list]:
    """``items.csv``: ``correct`` as the paper's per-item files mean it (policy first), so the two kinds of file
    cannot be misread."""
    return ([o.model, o.suite, o.item, o.correct_first, o.correct_all] for o in item_outcomes(result))


def region_rows(result: RunResult) -> Iterator[list]:
    """``regions.csv``: one row per item, condition and region; an undefined metric is empty (``""``)."""
    model = model_label(result)
    for suite_result in result.suites:
        yield from _suite_region_rows(model, suite_result)


def _suite_region_rows(model: str, suite_result: SuiteResult) -> Iterator[list]:
    # the names are looked up once a suite or a sentence: a run writes 24,000 rows per model
    suite_name, region_names = suite_result.suite.name, suite_result.suite.region_names
    for scored in suite_result.conditions:
        text, spans, values = scored.sentence.text, scored.sentence.spans, scored.values
        crossed = region_crossings(scored.alignment) if scored.alignment.crossings else {}
        for region in scored.alignment.regions:
            number, tokens = region.number, region.tokens
            start, end = spans[number - 1]
            metric = values[number]
            yield [model, suite_name, scored.item, scored.condition, number, region_names[number - 1],
                   text[start:end], len(tokens), sum(1 for t in tokens if t.unknown),
                   *["" if (v := metric[m]) != v else v for m in METRIC_NAMES],  # NaN: empty
                   crossed.get(number, "")]


def long_rows(result: RunResult) -> Iterator[list]:
    """``long.csv``: a row of ``regions.csv`` per item, condition and region, with the metric predictions use and
    its value, ``crossed`` (a token crossing a region boundary touched it) and the item's ``correct`` (first
    prediction) and ``correct_all``; NaN: empty."""
    model = model_label(result)
    region_at = {name: index for index, name in enumerate(schema.REGION_COLUMNS)}
    crossing, first_metric = region_at["crossing"], region_at[METRIC_NAMES[0]]
    for suite_result in result.suites:
        first, every = suite_result.item_correct("first"), suite_result.item_correct("all")
        metric = suite_result.metric
        at = region_at[metric]
        for row in _suite_region_rows(model, suite_result):
            item = row[2]
            yield [*row[:9], metric, row[at], *row[first_metric:crossing], row[crossing] != "", first[item],
                   every[item]]


def token_rows(results: Iterable[RunResult]) -> Iterator[tuple]:
    """Every scored token of every sentence, in its region (assigned as the region values were: by the region of
    its first non-space character; under ``--crossing split`` a crossing token is one row per region it covers,
    each with its share); ``covered``: the text it covers, ``start``/``end`` its character offsets in the sentence;
    ``surprisal`` in bits (NaN where unscored: the file leaves it empty)."""
    for result in results:
        model = model_label(result)
        for suite_result in result.suites:
            names = suite_result.suite.region_names
            for scored in suite_result.conditions:
                index = 0
                for region in scored.alignment.regions:
                    for token in region.tokens:
                        yield (model, suite_result.suite.name, scored.item, scored.condition, region.number,
                               names[region.number - 1], index, token.token,
                               scored.sentence.text[token.start:token.end], token.start, token.end,
                               token.surprisal, token.unknown)
                        index += 1


def run_record(result: RunResult) -> dict:
    """The run record ``run.json`` holds: the model's label, ``RunResult.record()`` and how the derived tables were
    made (``derived``), so that a result says how it was computed."""
    return {"label": model_label(result), **result.record(), "derived": derived_record(result)}


def derived_record(result: RunResult) -> dict:
    """What the run computed beyond the scores: the effects (per item: their means and intervals are computed where
    they are read, with that reader's bootstrap) and the suite-level predictions, with their bootstrap settings."""
    return {
        "effects": {"file": schema.EFFECTS, "rows": sum(1 for _ in effect_rows(result)),
                    "value": "left - right of each comparison, per item, in bits of the suite's metric"},
        "suite_predictions": {"file": schema.SUITE_PREDICTIONS,
                              "rows": sum(len(s.suite_predictions) for s in result.suites),
                              "interval": "95% percentile bootstrap over items", "bootstrap": suite_level.BOOTSTRAP,
                              "seed": suite_level.SEED},
    }


def run_record_json(result: RunResult) -> str:
    return json.dumps(run_record(result), indent=2, allow_nan=False) + "\n"


ROWS = {"predictions": prediction_rows, "items": item_rows, "regions": region_rows,
        "tokens": lambda result: token_rows([result]), "effects": effect_rows,
        "suite_predictions": suite_prediction_rows, "long": long_rows}
