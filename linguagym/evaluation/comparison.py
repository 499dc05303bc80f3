"""Model against model on the same items: per suite (the suite's accuracy, under its policy) and, from the runs'
``predictions.csv``, per prediction, the paired difference of accuracy with its paired bootstrap interval, McNemar's
exact p, and Holm's adjustment over every test of the table (``paired.py`` computes them). ``compare`` prints
it, the web compare page shows it, ``compare_models`` returns it (``to_pandas``, ``write_csv``).

Pairs: every two models, in the order given, or each model against a ``baseline``. Items one model lacks and items
whose outcome is unknown are left out and counted in the row; a suite only one model of a pair ran has no row and
is named in ``unpaired``.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from linguagym.atomic import atomic_write_text
from linguagym.errors import ConfigurationError
from linguagym.evaluation.aggregate import ItemOutcome
from linguagym.evaluation.paired import PairedDifference, holm, paired_outcomes
from linguagym.evaluation.policy import AccuracyPolicy
from linguagym.notebook_view import html_view, text_view

if TYPE_CHECKING:
    import pandas

    from linguagym.evaluation.runfolder.reader import RunData
    from linguagym.evaluation.summary import SummarySettings

COLUMNS = ("suite", "prediction", "formula", "model_a", "model_b", "policy", "items", "accuracy_a", "accuracy_b",
           "difference", "ci_low", "ci_high", "both_right", "only_a_right", "only_b_right", "both_wrong",
           "p_mcnemar", "p_holm", "holm_tests", "only_in_a", "only_in_b", "unknown", "tied", "undefined",
           "resamples", "seed")
FEW = 10  # discordant items below which a percentile bootstrap of the difference is said to be approximate
HOLM_NOTE = "p_holm: Holm-adjusted over the {count} test{s} of this table (McNemar, exact, two-sided)"


class DuplicateItems(ConfigurationError):
    """Two runs of one model label: their items cannot be paired with another model's."""


@dataclass(frozen=True)
class PredictionFlags:
    """One model's prediction on one item, as ``predictions.csv`` holds it."""

    holds: bool
    tie: bool  # a '<' or '>' compared equal sides, or sides within the tolerance
    undefined: bool  # a region value it names is undefined (the prediction then fails)


# model -> (suite, prediction index) -> item -> flags; the formula of each (suite, prediction index)
Predictions = dict[str, dict[tuple[str, int], dict[int, PredictionFlags]]]


@dataclass(frozen=True)
class ComparisonRow:
    suite: str
    model_a: str
    model_b: str
    paired: PairedDifference
    p_holm: float
    policy: str = ""  # the suite's policy (suite rows); "" for a prediction's row
    prediction: int | None = None  # the prediction's index (0: the first), None for the suite's accuracy
    formula: str = ""
    tied: int | None = None  # paired items where either model's deciding prediction was a tie (None: not known)
    undefined: int | None = None  # ... or undefined (counted as failing, as the accuracy counts it)


@dataclass(frozen=True)
class ModelComparison:
    rows: tuple[ComparisonRow, ...]
    resamples: int
    seed: int
    level: str  # "suite" (accuracy per suite) or "prediction" (each prediction's share of items)
    unpaired: tuple[tuple[str, str, str], ...] = field(default=())  # (suite, model a, model b): one lacks the suite

    @property
    def tests(self) -> int:
        return sum(1 for row in self.rows if row.paired.p_value == row.paired.p_value and row.paired.n)

    def __repr__(self) -> str:  # short: the default repr held every row's every paired item
        return text_view(self._title(), [f"{_where(r)}: {r.model_a} vs {r.model_b} {format_difference(r)}, "
                                         f"Holm p {format_p(r.p_holm)}" for r in self.rows])

    def _repr_html_(self) -> str:
        return html_view(self._title(), ("suite", "a", "b", "difference a - b [95% CI]", "n", "p", "Holm p"),
                         [(_where(r), r.model_a, r.model_b, format_difference(r), r.paired.n,
                           format_p(r.paired.p_value), format_p(r.p_holm)) for r in self.rows])

    def _title(self) -> str:
        return f"ModelComparison ({self.level}): {len(self.rows)} rows, {self.tests} tests, Holm-adjusted"

    def notes(self) -> list[str]:
        """What the table's numbers are, for below it: the adjustment, the interval, what was left out."""
        lines = [HOLM_NOTE.format(count=self.tests, s="" if self.tests == 1 else "s") + "; difference = a - b, "
                 + (f"95% paired bootstrap interval over items ({self.resamples} resamples, seed {self.seed})"
                    if self.resamples else "no interval (bootstrap 0)")]
        few = [row for row in self.rows if 0 < (row.paired.only_a_right or 0) + (row.paired.only_b_right or 0) < FEW]
        if few and self.resamples:
            lines.append(f"{len(few)} row{'s' if len(few) != 1 else ''} rest{'s' if len(few) == 1 else ''} on fewer "
                         f"than {FEW} items where the models differ: there the bootstrap interval is approximate (too "
                         "narrow: it can leave out 0 while the exact p is large); read McNemar's p")
        dropped = [row for row in self.rows if row.paired.pairing.dropped]
        for row in dropped:
            pairing = row.paired.pairing
            parts = [f"{count} item{'s' if count != 1 else ''} only {model} has"
                     for count, model in ((pairing.only_a, row.model_a), (pairing.only_b, row.model_b)) if count]
            if pairing.undefined:
                parts.append(f"{pairing.undefined} with an unknown outcome")
            lines.append(f"{_where(row)}: {row.model_a} vs {row.model_b} paired on {row.paired.n} items; left out: "
                         + ", ".join(parts))
        for suite, a, b in self.unpaired:
            lines.append(f"{suite}: not compared, since only one of {a} and {b} has results for it")
        flagged = [row for row in self.rows if row.tied or row.undefined]
        if flagged:
            lines.append("tied / undefined: items where either model's deciding prediction compared equal sides or "
                         "named an undefined value, counted as the accuracy counts them (see the tie notes): "
                         + "; ".join(f"{_where(r)} {r.model_a} vs {r.model_b}: {r.tied or 0} / {r.undefined or 0}"
                                     for r in flagged[:12])
                         + (f"; and {len(flagged) - 12} more rows (tied, undefined columns)" if len(flagged) > 12
                            else ""))
        return lines

    def records(self) -> list[dict[str, Any]]:
        """One dict per row, the ``COLUMNS``; a number that does not exist (no interval, no item) is None."""
        out = []
        for row in self.rows:
            paired = row.paired
            interval = paired.interval
            out.append({
                "suite": row.suite, "prediction": row.prediction, "formula": row.formula or None,
                "model_a": row.model_a, "model_b": row.model_b, "policy": row.policy or None, "items": paired.n,
                "accuracy_a": _number(paired.mean_a), "accuracy_b": _number(paired.mean_b),
                "difference": _number(paired.difference), "ci_low": interval.low if interval else None,
                "ci_high": interval.high if interval else None, "both_right": paired.both,
                "only_a_right": paired.only_a_right, "only_b_right": paired.only_b_right,
                "both_wrong": paired.neither, "p_mcnemar": _number(paired.p_value) if paired.n else None,
                "p_holm": _number(row.p_holm), "holm_tests": self.tests, "only_in_a": paired.pairing.only_a,
                "only_in_b": paired.pairing.only_b, "unknown": paired.pairing.undefined, "tied": row.tied,
                "undefined": row.undefined, "resamples": self.resamples, "seed": self.seed,
            })
        return out

    def to_pandas(self) -> pandas.DataFrame:
        """The rows as a DataFrame, the ``COLUMNS`` (nullable integer columns where a count may be missing)."""
        import pandas

        frame = pandas.DataFrame(self.records(), columns=list(COLUMNS))
        for column in ("prediction", "tied", "undefined", "only_a_right", "only_b_right", "both_right", "both_wrong"):
            frame[column] = frame[column].astype("Int64")
        for column in ("suite", "formula", "model_a", "model_b", "policy"):
            frame[column] = frame[column].astype("string")
        return frame

    def csv_text(self) -> str:
        return table_csv(COLUMNS, self.records())

    def write_csv(self, path: str | Path) -> Path:
        atomic_write_text(Path(path), self.csv_text())
        return Path(path)


def _where(row: ComparisonRow) -> str:
    return row.suite if row.prediction is None else f"{row.suite} P{row.prediction}"  # numbered as effects.csv


def _number(value: float | None) -> float | None:
    return None if value is None or value != value else value


def table_csv(columns: Sequence[str], records: Iterable[Mapping[str, Any]]) -> str:
    """A comparison table as CSV text (this one's and ``effect_comparison``'s): None empty, floats in full, logical
    cells TRUE/FALSE (read as logical by R's read.csv and by pandas)."""
    handle = io.StringIO()
    writer = csv.writer(handle, lineterminator="\n")
    writer.writerow(columns)
    for record in records:
        writer.writerow(["" if record[c] is None else _cell(record[c]) for c in columns])
    return handle.getvalue()


def _cell(value: object) -> str:
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    return repr(value) if isinstance(value, float) else str(value)


def model_pairs(models: Sequence[str], baseline: str | None = None) -> list[tuple[str, str]]:
    """Every two models in the order given, or each against ``baseline`` (first in the pair)."""
    if baseline is None:
        return [(a, b) for i, a in enumerate(models) for b in models[i + 1:]]
    if baseline not in models:
        raise ConfigurationError(f"no model named {baseline[:200]!r} to compare against",
                                 hint="give one of " + ", ".join(models), settings=["baseline"])
    return [(baseline, other) for other in models if other != baseline]


def compare_outcomes(outcomes: Iterable[ItemOutcome], policy: AccuracyPolicy, *, resamples: int = 1000, seed: int = 0,
                     baseline: str | None = None, predictions: Predictions | None = None) -> ModelComparison:
    """Each suite's accuracy, model against model, under the suite's policy. ``predictions`` (the runs'
    ``predictions.csv``) adds how many paired items rest on a tie or an undefined value, for the pairs whose models
    both have it."""
    by_model: dict[str, dict[str, dict[int, bool | None]]] = {}
    for outcome in outcomes:
        items = by_model.setdefault(outcome.model, {}).setdefault(outcome.suite, {})
        if outcome.item in items:
            raise DuplicateItems(f"{outcome.model} has item {outcome.item} of {outcome.suite} twice: two runs of "
                                 "one model label cannot be told apart", hint="compare runs whose models have "
                                 "different labels, or each run with the others separately")
        items[outcome.item] = outcome.under(policy.of(outcome.suite))
    suites = list(dict.fromkeys(s for model in by_model.values() for s in model))
    rows: list[tuple] = []
    unpaired = []
    for suite in suites:
        for a, b in model_pairs(list(by_model), baseline):
            if suite not in by_model[a] or suite not in by_model[b]:
                unpaired.append((suite, a, b))
                continue
            paired = paired_outcomes(by_model[a][suite], by_model[b][suite], resamples=resamples, seed=seed,
                                     key=suite)  # a suite's resamples: the same whatever the columns are named
            tied = undefined = None
            if predictions is not None and a in predictions and b in predictions:
                deciding = [0] if policy.of(suite) == "first" else None
                tied, undefined = _flag_counts(predictions, suite, deciding, a, b, paired.pairing.items)
            rows.append((suite, a, b, paired, policy.of(suite), None, "", tied, undefined))
    return _with_holm(rows, resamples, seed, "suite", unpaired)


def compare_predictions(predictions: Predictions, formulas: Mapping[tuple[str, int], str], *, resamples: int = 1000,
                        seed: int = 0, baseline: str | None = None) -> ModelComparison:
    """Each prediction's share of items on which it holds, model against model (a tie or an undefined value counts
    as not holding, as the accuracy counts it; how many paired items rest on one is in the row)."""
    keys = list(dict.fromkeys(key for model in predictions.values() for key in model))
    rows: list[tuple] = []
    unpaired = []
    for suite, index in keys:
        for a, b in model_pairs(list(predictions), baseline):
            if (suite, index) not in predictions[a] or (suite, index) not in predictions[b]:
                if (suite, a, b) not in unpaired:
                    unpaired.append((suite, a, b))
                continue
            holds_a = {item: flags.holds for item, flags in predictions[a][(suite, index)].items()}
            holds_b = {item: flags.holds for item, flags in predictions[b][(suite, index)].items()}
            paired = paired_outcomes(holds_a, holds_b, resamples=resamples, seed=seed,
                                     key=f"{suite}\0{index}")
            tied, undefined = _flag_counts(predictions, suite, [index], a, b, paired.pairing.items)
            rows.append((suite, a, b, paired, "", index, formulas.get((suite, index), ""), tied, undefined))
    return _with_holm(rows, resamples, seed, "prediction", unpaired)


def _flag_counts(predictions: Predictions, suite: str, indices: Sequence[int] | None, a: str, b: str,
                 items: Iterable) -> tuple[int, int]:
    """Paired items where either model's deciding predictions (``indices``; None: all of the suite's) tied, and
    where either named an undefined value."""
    def flags(model: str, item: int) -> list[PredictionFlags]:
        return [by_item[item] for (s, i), by_item in predictions[model].items()
                if s == suite and (indices is None or i in indices) and item in by_item]

    tied = undefined = 0
    for item in items:
        found = flags(a, item) + flags(b, item)
        tied += any(f.tie for f in found)
        undefined += any(f.undefined for f in found)
    return tied, undefined


def _with_holm(rows: list[tuple], resamples: int, seed: int, level: str,
               unpaired: list[tuple[str, str, str]]) -> ModelComparison:
    p_values = [paired.p_value if paired.n else float("nan") for _, _, _, paired, *_ in rows]
    adjusted = holm([p if p is not None else float("nan") for p in p_values])
    made = tuple(ComparisonRow(suite, a, b, paired, p_holm, policy, prediction, formula, tied, undefined)
                 for (suite, a, b, paired, policy, prediction, formula, tied, undefined), p_holm
                 in zip(rows, adjusted, strict=True))
    return ModelComparison(made, resamples, seed, level, tuple(unpaired))


def run_predictions(runs: Sequence[RunData], labels: Sequence[str] | None = None
                    ) -> tuple[Predictions, dict[tuple[str, int], str]]:
    """Every run's ``predictions.csv`` (``labels``: the model's name in the comparison, one per run; by default
    its label), and each prediction's formula. A run held in memory only, or without the file: left out."""
    predictions: Predictions = {}
    formulas: dict[tuple[str, int], str] = {}
    for index, run in enumerate(runs):
        if run.directory is None or not run.has("predictions.csv"):
            continue
        model = labels[index] if labels else run.model
        mine = predictions.setdefault(model, {})
        for row in run.prediction_rows():
            key = (row["suite"], int(row["prediction"]))
            formulas.setdefault(key, row["formula"])
            mine.setdefault(key, {})[int(row["item"])] = PredictionFlags(
                _true(row["holds"]), bool(row.get("tie")), _undefined(row.get("undefined") or ""))
    return predictions, formulas


def _undefined(cell: str) -> bool:
    """predictions.csv's ``undefined``: logical now (TRUE/FALSE); the undefined references, or empty, in files of
    earlier versions. ``FALSE`` is not text saying something is undefined."""
    text = cell.strip()
    return bool(text) and text.upper() != "FALSE"


def _true(text: str) -> bool:
    return text.strip().lower() in ("true", "1")


def compare_held(runs: Sequence[RunData], settings: SummarySettings, *, baseline: str | None = None,
                 per_prediction: bool = False, labels: Sequence[str] | None = None) -> ModelComparison:
    """The comparison of the models of ``runs`` (read from their folders or held in memory), under the policy the
    summary of the same runs uses (``summary.summary_policy``), with the summary's bootstrap and seed.
    ``labels``: each run's model's name in the table (the web page prefixes its run's number)."""
    from dataclasses import replace

    from linguagym.evaluation.summary import summary_collection, summary_policy

    outcomes = [replace(o, model=labels[i]) if labels else o for i, run in enumerate(runs) for o in run.outcomes]
    collection = summary_collection(settings, [o.suite for o in outcomes])
    predictions, formulas = run_predictions(runs, labels)
    if per_prediction:
        missing = [run.model for run in runs if run.directory is None or not run.has("predictions.csv")]
        if missing:
            raise ConfigurationError(f"no predictions.csv for {', '.join(missing)}: per-prediction comparison needs it",
                                     hint="compare per suite, or pass run folders written by linguagym run")
        return compare_predictions(predictions, formulas, resamples=settings.bootstrap, seed=settings.seed,
                                   baseline=baseline)
    policy = summary_policy(settings, collection, [run.record for run in runs])
    return compare_outcomes(outcomes, policy, resamples=settings.bootstrap, seed=settings.seed, baseline=baseline,
                            predictions=predictions)


def compare_models(runs: Sequence[str | Path], settings: SummarySettings | None = None, *,
                   baseline: str | None = None, per_prediction: bool = False) -> ModelComparison:
    """The API: run folders (as ``linguagym compare`` takes them) -> the paired comparison of their models, per
    suite (or ``per_prediction``); ``settings`` as the summary's (policy, bootstrap resamples, seed)."""
    from linguagym.evaluation.runfolder.reader import find_runs
    from linguagym.evaluation.summary import SummarySettings, check_summary_settings

    settings = settings or SummarySettings()
    check_summary_settings(settings)
    return compare_held(find_runs(list(runs)), settings, baseline=baseline, per_prediction=per_prediction)


def format_p(value: float | None) -> str:
    """A p value as the tables show it: 3 significant digits, ``<0.0001`` below that, ``–`` where there is none."""
    if value is None or value != value:
        return "–"
    if value < 1e-4:
        return "<0.0001"
    return f"{value:.3g}"


def format_difference(row: ComparisonRow) -> str:
    """``+0.125 [+0.031, +0.219]``: the difference a - b and its interval (none: the difference alone)."""
    return format_paired(row.paired, 3)


def format_paired(paired: PairedDifference, digits: int) -> str:
    """A paired difference and its interval with ``digits`` decimals, signed; ``–`` where no item was paired."""
    if not paired.n:
        return "–"
    shown = f"{paired.difference:+.{digits}f}"
    if paired.interval is not None:
        shown += f" [{paired.interval.low:+.{digits}f}, {paired.interval.high:+.{digits}f}]"
    return shown
