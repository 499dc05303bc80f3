"""One item of one suite as a model's run folder stores it, with no model: each condition's regions and their values
(``suites/NAME.json``), each prediction's terms evaluated on them (and the outcome the run recorded, from
``predictions.csv``), and on demand each token's surprisal (``tokens.csv``). The web app's item page shows it."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from linguagym.errors import ConfigurationError
from linguagym.evaluation.runfolder import schema
from linguagym.evaluation.runfolder.reader import RunData
from linguagym.evaluation.scored_suites import stored_values
from linguagym.suites.formula import Explanation, RegionRef, Tolerance, explain, region_refs
from linguagym.suites.load import read_suite
from linguagym.suites.model import Suite


@dataclass(frozen=True)
class TokenScore:
    token: str  # as the tokenizer wrote it
    covered: str  # the text it covers in the sentence
    surprisal: float  # bits (NaN where unscored)
    unknown: bool


@dataclass(frozen=True)
class RegionScores:
    number: int
    name: str
    content: str
    values: Mapping[str, float]  # metric -> value in bits, those the scored suite holds
    oovs: tuple[str, ...]
    tokens: tuple[TokenScore, ...] | None  # None: not asked for, or the run wrote no tokens.csv
    crossing: str = ""  # what a token covering several regions did to this one (regions.csv's column), if any


@dataclass(frozen=True)
class ConditionScores:
    name: str
    regions: tuple[RegionScores, ...]


@dataclass(frozen=True)
class PredictionTerms:
    index: int
    formula: str
    references: tuple[RegionRef, ...]  # the regions it names, each once, in order
    explanation: Explanation  # re-evaluated from the stored values
    recorded: bool | None  # whether it holds, as the run recorded it (None: not in predictions.csv)


@dataclass(frozen=True)
class ItemScores:
    model: str
    suite: str
    item: int
    metric: str  # the metric predictions were evaluated on
    conditions: tuple[ConditionScores, ...]
    predictions: tuple[PredictionTerms, ...]
    has_tokens: bool  # tokens.csv was read (runs made before linguagym wrote it have none)
    # the suite's condition order (its first item's): what a condition's colour and plot marker follow, in every item
    suite_conditions: tuple[str, ...] = ()


def read_item_scores(run: RunData, suite_name: str, item_number: int, *, tokens: bool = False) -> ItemScores:
    """Item ``item_number`` of ``suite_name`` in one model's run folder; ``tokens``: also each token's surprisal."""
    suite = _scored_suite(run, suite_name)
    item = next((i for i in suite.items if i.number == item_number), None)
    if item is None:
        raise ConfigurationError(f"suite {suite_name!r} has no item {item_number} in {run.directory}")
    entry = next(s for s in run.record["suites"] if s["name"] == suite_name)
    metric = entry.get("metric") or suite.meta.primary_metric
    settings = run.record.get("settings", {})
    tolerance = Tolerance(settings.get("atol", Tolerance.atol), settings.get("rtol", Tolerance.rtol),
                          settings.get("ties", "strict"))  # runs made before the tie rule were strict
    where = f"{run.directory}: suite {suite_name!r}, item {item_number}"
    values = {condition.name: stored_values(condition, metric, where) for condition in item.conditions}

    def lookup(ref: RegionRef) -> float:
        return values[ref.condition][ref.region].get(metric, math.nan)

    recorded = _recorded_outcomes(run, suite_name, item_number)
    predictions = tuple(
        PredictionTerms(index, prediction.formula, tuple(dict.fromkeys(region_refs(prediction.tree))),
                        explain(prediction.tree, lookup, prediction.tolerance(tolerance)), recorded.get(index))
        for index, prediction in enumerate(suite.predictions))
    by_region = _read_tokens(run, suite_name, item_number) if tokens and run.has(schema.TOKENS) else None
    crossed = _read_crossings(run, suite_name, item_number) if entry.get("crossing_tokens") else {}
    conditions = tuple(
        ConditionScores(condition.name, tuple(
            RegionScores(region.number, suite.region_names[region.number - 1], region.content,
                         dict(region.values or {}), region.oovs,
                         None if by_region is None else tuple(by_region.get((condition.name, region.number), ())),
                         crossed.get((condition.name, region.number), ""))
            for region in condition.regions))
        for condition in item.conditions)
    return ItemScores(run.model, suite_name, item_number, metric, conditions, predictions, by_region is not None,
                      suite.condition_names)


def _scored_suite(run: RunData, name: str) -> Suite:
    path = run.scored_suite_files().get(name)
    if path is None:
        raise ConfigurationError(f"{run.directory} holds no results for a suite named {name!r}")
    if not path.is_file():
        raise ConfigurationError(f"{path} is missing: the run folder {run.directory} is incomplete",
                                 hint="run the suite again")
    return read_suite(path).suite


def _recorded_outcomes(run: RunData, suite: str, item: int) -> dict[int, bool]:
    wanted = str(item)
    return {int(index): schema.is_true(holds) for name, number, index, holds
            in run.columns(schema.PREDICTIONS, ("suite", "item", "prediction", "holds"))
            if name == suite and number == wanted}


def _read_crossings(run: RunData, suite: str, item: int) -> dict[tuple[str, int], str]:
    """(condition, region) -> regions.csv's ``crossing`` note, for the regions of ``item`` a crossing token touched
    (read only where the run record counts crossings in the suite)."""
    wanted = str(item)
    return {(condition, int(region)): crossing for name, number, condition, region, crossing
            in run.columns(schema.REGIONS, ("suite", "item", "condition", "region", "crossing"))
            if number == wanted and name == suite and crossing}


def _read_tokens(run: RunData, suite: str, item: int) -> dict[tuple[str, int], list[TokenScore]]:
    """(condition, region) -> its tokens, in order, from the folder's tokens.csv."""
    found: dict[tuple[str, int], list[TokenScore]] = {}
    wanted = str(item)
    columns = ("suite", "item", "condition", "region", "token", "covered", "surprisal", "unknown")
    for name, number, condition, region, token, covered, surprisal, unknown in run.columns(schema.TOKENS, columns):
        if number != wanted or name != suite:  # one item is a few dozen of tens of thousands of rows
            continue
        found.setdefault((condition, int(region)), []).append(
            TokenScore(token, covered, float(surprisal) if surprisal else math.nan, schema.is_true(unknown)))
    return found
