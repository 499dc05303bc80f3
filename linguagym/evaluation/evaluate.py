"""A suite and token scores -> region values for every metric -> every prediction of every item evaluated."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from linguagym.errors import ConfigurationError
from linguagym.evaluation.alignment import Alignment, Crossing, align, check_crossing_rule, count_markers
from linguagym.evaluation.policy import POLICIES  # item correct when all its predictions hold / prediction 0 holds
from linguagym.evaluation.sentences import Sentence, build_sentence
from linguagym.evaluation.suite_level import SuitePredictionResult, evaluate_suite_predictions
from linguagym.notebook_view import html_view
from linguagym.scoring.protocol import ScoredText, Scorer, SentenceMarkers, optional
from linguagym.suites.formula import TIE_KINDS, RegionRef, Tolerance, evaluate, format_formula
from linguagym.suites.metrics import METRIC_NAMES, aggregate, all_metrics
from linguagym.suites.model import Suite

COMPAT_OPTIONS = ("syntaxgym-core",)  # whose way of counting sentence markers (<eos>) in regions to follow


@dataclass(frozen=True)
class ScoredCondition:
    item: int
    condition: str
    sentence: Sentence
    alignment: Alignment
    values: Mapping[int | None, Mapping[str, float]]  # region number (None: whole sentence) -> metric -> value


@dataclass(frozen=True)
class PredictionResult:
    item: int
    prediction: int  # index into suite.predictions
    holds: bool  # False where undefined: an undefined prediction never counts as holding
    undefined: tuple[RegionRef, ...]  # references whose value was undefined (NaN): the prediction is undefined
    tie: str = ""  # a '<' or '>' of it was a tie: "exact" (decided by the tie rule), "near" (within tolerance), ""
    # each comparison's (left, right) values, left to right as written (formula.comparisons), NaN where undefined:
    # its effect is left - right (effects.py); ``formula.evaluate`` keeps them as it compares
    sides: tuple[tuple[float, float], ...] = ()

    @property
    def defined(self) -> bool:
        return not self.undefined


@dataclass(frozen=True)
class SuiteResult:
    suite: Suite
    metric: str  # the metric predictions were evaluated on
    conditions: tuple[ScoredCondition, ...]
    predictions: tuple[PredictionResult, ...]
    # the suite-level predictions (mean(x) > 0), each once over the items: no part of item accuracy
    suite_predictions: tuple[SuitePredictionResult, ...] = ()

    def item_correct(self, policy: str = "all") -> dict[int, bool]:
        if policy not in POLICIES:
            raise ConfigurationError(f"unknown prediction policy {policy!r}", hint="use 'all' or 'first'")
        correct: dict[int, bool] = {item.number: True for item in self.suite.items}
        for result in self.predictions:
            if policy == "first" and result.prediction != 0:
                continue
            correct[result.item] = correct[result.item] and result.holds
        return correct

    def accuracy(self, policy: str = "all") -> float:
        correct = self.item_correct(policy)
        return sum(correct.values()) / len(correct) if correct and self.suite.predictions else math.nan

    def prediction_accuracy(self) -> list[float]:
        """For each prediction, the share of items on which it holds."""
        shares = []
        for index in range(len(self.suite.predictions)):
            outcomes = [r.holds for r in self.predictions if r.prediction == index]
            shares.append(sum(outcomes) / len(outcomes) if outcomes else math.nan)
        return shares

    def ties(self) -> dict[str, int]:
        """How many predictions (item x prediction) had a tied '<' or '>': "exact" (two equal sides, decided by
        the run's tie rule) and "near" (sides within the tolerance, decided by a difference below it)."""
        return {kind: sum(1 for r in self.predictions if r.tie == kind) for kind in TIE_KINDS}

    @property
    def crossings(self) -> list[tuple[int, str, Crossing]]:
        return [(c.item, c.condition, x) for c in self.conditions for x in c.alignment.crossings]

    def undefined_predictions(self, policy: str = "all") -> int:
        """Predictions (item x prediction) that name an undefined value, among those ``policy`` counts: each makes
        its item incorrect, neither because it failed nor because it held."""
        return sum(1 for r in self.predictions if r.undefined and (policy == "all" or r.prediction == 0))

    def __repr__(self) -> str:  # the default repr lists every condition and prediction: 77 KB for a small suite
        return (f"<SuiteResult {self.suite.name!r}: {len(self.suite.items)} items, "
                f"{len(self.suite.predictions)} predictions, accuracy {_share(self.accuracy('all'))} (all), "
                f"{_share(self.accuracy('first'))} (first), metric {self.metric}>")

    def _repr_html_(self) -> str:
        shares = self.prediction_accuracy()
        return html_view(repr(self)[1:-1], ("prediction", "formula", "share of items it holds on"),
                         [(f"P{index}", format_formula(prediction.tree), _share(shares[index]))
                          for index, prediction in enumerate(self.suite.predictions)])

    def alignment_counts(self) -> dict[str, int]:
        """What the run record says of tokens that cross a region boundary (``alignment.py``)."""
        return {"crossing_tokens": len(self.crossings),
                "conditions_with_crossings": sum(1 for c in self.conditions if c.alignment.crossings),
                "regions_without_token": sum(len(c.alignment.undefined_regions) for c in self.conditions)}


def _share(value: float) -> str:
    return "n/a" if value != value else f"{value:.3f}"


def suite_sentences(suite: Suite, spacing: str = "natural") -> list[Sentence]:
    """Every sentence of the suite (item by item, condition by condition), duplicates included."""
    return [build_sentence(condition, spacing) for item in suite.items for condition in item.conditions]


def region_values(alignment: Alignment, metrics: tuple[str, ...] = METRIC_NAMES) -> dict[int | None, dict[str, float]]:
    """Every metric of every region, and of the whole sentence (key None, the formula's '*'). A region with text but
    no token (``AlignedRegion.undefined``) has every metric undefined (NaN), its sum too: 0 would be a lie."""
    if metrics == METRIC_NAMES:
        def of(surprisals: list[float]) -> dict[str, float]:
            return all_metrics(surprisals)
    else:
        def of(surprisals: list[float]) -> dict[str, float]:
            return {m: aggregate(m, surprisals) for m in metrics}
    values: dict[int | None, dict[str, float]] = {}
    everything: list[float] = []
    for region in alignment.regions:
        surprisals = region.surprisals
        values[region.number] = dict.fromkeys(metrics, math.nan) if region.undefined else of(surprisals)
        everything += surprisals
    values[None] = of(everything)
    return values


def sentence_markers(scorer: Scorer, texts: Sequence[str]) -> dict[str, SentenceMarkers]:
    """The sentence markers (``<eos>``, ...) ``scorer`` read with each text's scores: only lm-zoo TSV files have
    them; the causal and masked scorers score a text's own tokens, with a start token as context."""
    return optional(scorer).sentence_markers(texts)


def evaluate_suite(
    suite: Suite,
    scores: Mapping[str, ScoredText],
    *,
    spacing: str = "natural",
    metric: str | None = None,
    tolerance: Tolerance | None = None,
    markers: Mapping[str, SentenceMarkers] | None = None,
    crossing: str = "first",
) -> SuiteResult:
    """Evaluate every prediction on every item; ``scores`` maps each sentence text to its token scores.
    ``markers`` (``--compat syntaxgym-core``): each text's sentence markers, counted in regions as syntaxgym-core
    counts them (``alignment.count_markers``); without it they are context, like a start token. ``crossing``: what
    a token covering several regions counts for (``alignment.CROSSING_RULES``)."""
    primary = checked_metric(metric or suite.meta.primary_metric)
    check_crossing_rule(crossing)
    scored_conditions = []
    for item in suite.items:
        for condition in item.conditions:
            sentence = build_sentence(condition, spacing)
            alignment = align(sentence, scores[sentence.text], crossing)
            if markers is not None:
                alignment = count_markers(alignment, markers.get(sentence.text, SentenceMarkers()))
            scored_conditions.append(ScoredCondition(item.number, condition.name, sentence, alignment,
                                                     region_values(alignment)))
    return evaluate_predictions(suite, scored_conditions, primary, tolerance)


def checked_metric(metric: str) -> str:
    if metric not in METRIC_NAMES:
        raise ConfigurationError(f"unknown metric {metric!r}", hint=f"use one of {', '.join(METRIC_NAMES)}")
    return metric


def evaluate_predictions(suite: Suite, conditions: Sequence[ScoredCondition], metric: str,
                         tolerance: Tolerance | None = None) -> SuiteResult:
    """Every prediction of every item, on the ``metric`` values of ``conditions`` (every condition of every item)."""
    by_item: dict[int, dict[str, ScoredCondition]] = {}
    for scored in conditions:
        by_item.setdefault(scored.item, {})[scored.condition] = scored
    predictions = []
    lookups = {}
    run_tolerance = tolerance or Tolerance()
    # a prediction's own atol/rtol (suite JSON) over the run's
    tolerances = [prediction.tolerance(run_tolerance) for prediction in suite.predictions]
    for item in suite.items:
        by_name = by_item[item.number]

        def lookup(ref: RegionRef, by_name: dict[str, ScoredCondition] = by_name) -> float:
            return by_name[ref.condition].values[ref.region][metric]

        lookups[item.number] = lookup
        for index, prediction in enumerate(suite.predictions):
            outcome = evaluate(prediction.tree, lookup, tolerances[index])
            # a prediction naming an undefined value is undefined as a whole, even where '|' lets it hold
            holds = outcome.holds and not outcome.undefined
            predictions.append(PredictionResult(item.number, index, holds, outcome.undefined, outcome.tie,
                                                outcome.sides))
    suite_level = evaluate_suite_predictions(suite, lookups, run_tolerance) if suite.suite_predictions else ()
    return SuiteResult(suite, metric, tuple(conditions), tuple(predictions), suite_level)
