"""Each prediction of each suite on its own, models across: the share of items on which it holds and, comparison by
comparison, its mean effect with a 95% bootstrap interval (``effects.py``). What ``linguagym run --by-prediction``
prints, the report's per-prediction tables and the web app's suite and item pages show. Also
``item_effect_vector``: one comparison's effect item by item, from a run (for paired comparisons of models)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from linguagym.evaluation.effects import EffectSize, ItemEffect, effect_vector, summarize_effects
from linguagym.evaluation.run import RunResult
from linguagym.evaluation.runfolder import schema
from linguagym.evaluation.runfolder.reader import RunData
from linguagym.evaluation.runfolder.rows import run_effects


@dataclass(frozen=True)
class PredictionLine:
    """One comparison of one prediction of a suite, for every model (``None`` where a model lacks it)."""

    suite: str
    prediction: int
    comparison: int  # 0, 1, ... left to right in the formula
    comparisons: int  # how many the prediction has
    formula: str  # the prediction's
    comparison_formula: str  # this comparison alone
    accuracy: tuple[float | None, ...]  # the share of items the prediction holds on (on every comparison's line)
    effects: tuple[EffectSize | None, ...]

    @property
    def label(self) -> str:
        """``P0``, or ``P1.0``, ``P1.1`` for the comparisons of a prediction with several."""
        return f"P{self.prediction}" + (f".{self.comparison}" if self.comparisons > 1 else "")


def prediction_lines(runs: Sequence[RunData], *, bootstrap: int = 1000, seed: int = 0,
                     suites: Sequence[str] | None = None) -> list[PredictionLine]:
    """The lines of every suite (``suites``: only these) of ``runs``, suite by suite in the order the runs hold them,
    prediction by prediction, comparison by comparison."""
    shares = [run.predictions() for run in runs]
    wanted = None if suites is None else set(suites)
    sizes: dict[tuple[str, str, int, int], EffectSize] = {}
    for run in runs:
        effects = (e for e in run.effects() if wanted is None or e.suite in wanted)
        for size in summarize_effects(effects, bootstrap=bootstrap, seed=seed):
            sizes[(run.model, size.suite, size.prediction, size.comparison)] = size
    counts: dict[tuple[str, int], int] = {}
    for _, suite, index, comparison in sizes:
        counts[(suite, index)] = max(counts.get((suite, index), 0), comparison + 1)
    order = list(dict.fromkeys(suite for found in shares for suite in found if wanted is None or suite in wanted))
    lines = []
    for suite in order:
        formulas = next(found[suite] for found in shares if suite in found)
        for index, (formula, _) in enumerate(formulas):
            count = counts.get((suite, index), 1)  # a run without effects still shows the prediction's accuracy
            for comparison in range(count):
                per_model = tuple(sizes.get((run.model, suite, index, comparison)) for run in runs)
                text = next((s.comparison_formula for s in per_model if s is not None), formula)
                accuracy = tuple(_share(found_shares, suite, index) for found_shares in shares)
                lines.append(PredictionLine(suite, index, comparison, count, formula, text, accuracy, per_model))
    return lines


def _share(found: dict[str, list[tuple[str, float]]], suite: str, index: int) -> float | None:
    predictions = found.get(suite)
    return predictions[index][1] if predictions is not None and index < len(predictions) else None


def item_effect_vector(source: RunResult | RunData | Iterable[ItemEffect], suite: str, prediction: int,
                       comparison: int = 0, *, model: str | None = None) -> dict[int, float]:
    """item -> effect (``left - right``; NaN where undefined) of comparison ``comparison`` of prediction
    ``prediction`` of ``suite``, for pairing two models' effects item by item. ``source``: a model's ``RunResult``,
    its run folder (``RunData``: held in memory, or read from ``effects.csv``), or effects already read (``model``
    picks one among several). ``effects.effect_vector`` does the picking."""
    if isinstance(source, RunResult):
        effects: Iterable[ItemEffect] = run_effects(source)
    elif isinstance(source, RunData):
        effects = source.effects()
    else:
        effects = source
    return effect_vector(effects, suite, prediction, comparison, model=model)


def missing_effects(runs: Sequence[RunData]) -> list[str]:
    """The models whose run folder has no ``effects.csv`` (made before linguagym wrote it): no effects to show."""
    return [run.model for run in runs if not run.held_effects and run.directory is not None
            and not run.has(schema.EFFECTS)]


def effect_cell(size: EffectSize | None) -> str:
    """An effect as a table cell under a heading that gives its unit and n: ``1.67 [-0.50, 3.00]``; ``–`` where the
    model has none (no effects, or no item with both sides defined)."""
    if size is None or size.n == 0:
        return "–"
    interval = "" if size.interval is None else f" [{size.interval.low:.2f}, {size.interval.high:.2f}]"
    return f"{size.mean:.2f}{interval}"


def count_cell(size: EffectSize | None) -> str:
    """The items an effect is over: ``20``, or ``17 (3 left out)`` where a side was undefined on some."""
    if size is None:
        return "–"
    return f"{size.n}" + (f" ({size.left_out} left out)" if size.left_out else "")


def accuracy_cell(value: float | None) -> str:
    return "–" if value is None or value != value else f"{value:.3f}"


EFFECT_SENTENCE = ("Effect: the left side minus the right side of each comparison, in bits of the suite's metric, "
                   "the mean over items with a 95% bootstrap interval; n: the items it is over (items where a side "
                   "is undefined, an empty region, are left out and counted). A '>' predicts a positive effect, a "
                   "'<' a negative one.")
