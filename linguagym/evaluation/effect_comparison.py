"""Model against model on the same items, effect by effect: for every suite, prediction and comparison, the paired
difference of the mean effect (model a's effect minus model b's, item by item, in bits; ``effects.py``) with its
paired bootstrap interval, the two-sided sign-flip permutation p (``paired.sign_flip_p``: exact up to 32 items), and
Holm's adjustment over every test of this table (its own family: the paired accuracies are another table).

``compare`` prints it under ``--by-prediction``, the web compare page shows it, ``compare_model_effects`` returns it
(``to_pandas``, ``write_csv``). Items whose effect either model lacks (a side undefined, an empty region) are left
out and counted in the row, as are items only one model has; a model whose run folder has no ``effects.csv`` (made
by an earlier linguagym, or imported per-item outcomes) is named in ``missing`` and compared with no one.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from linguagym.atomic import atomic_write_text
from linguagym.evaluation.comparison import (
    FEW,
    DuplicateItems,
    format_p,
    format_paired,
    model_pairs,
    table_csv,
)
from linguagym.evaluation.effects import ItemEffect
from linguagym.evaluation.paired import EXACT_FLIPS, SIGN_FLIPS, PairedDifference, holm, paired_effects
from linguagym.evaluation.runfolder import schema
from linguagym.notebook_view import html_view, text_view

if TYPE_CHECKING:
    import pandas

    from linguagym.evaluation.runfolder.reader import RunData
    from linguagym.evaluation.summary import SummarySettings

COLUMNS = ("suite", "prediction", "comparison", "formula", "comparison_formula", "op", "metric", "model_a", "model_b",
           "items", "effect_a", "effect_b", "difference", "ci_low", "ci_high", "p_sign_flip", "p_exact", "p_holm",
           "holm_tests", "only_in_a", "only_in_b", "undefined", "resamples", "flips", "seed")
HOLM_NOTE = ("p_holm: Holm-adjusted over the {count} test{s} of this table (a sign-flip permutation test of the mean "
             "difference, two-sided: exact, over every sign pattern, up to {exact} items; above, {flips} random sign "
             "patterns, seeded)")


@dataclass(frozen=True)
class EffectKey:
    """One comparison of one prediction of a suite, as ``effects.csv`` names it."""

    suite: str
    prediction: int  # the prediction's index in the suite (0: the first)
    comparison: int  # the comparison's index in the prediction, left to right as written
    formula: str
    comparison_formula: str
    op: str
    metric: str
    comparisons: int = 1  # how many the prediction has

    @property
    def label(self) -> str:
        """``P0``, or ``P1.0``, ``P1.1`` for a prediction with several comparisons: as the per-prediction table."""
        return f"P{self.prediction}" + (f".{self.comparison}" if self.comparisons > 1 else "")


@dataclass(frozen=True)
class EffectComparisonRow:
    key: EffectKey
    model_a: str
    model_b: str
    paired: PairedDifference  # mean_a, mean_b: each model's mean effect over the paired items; p_value: sign-flip
    p_holm: float

    @property
    def exact(self) -> bool:
        """Whether ``p_value`` counted every sign pattern (not a random sample of them)."""
        return self.paired.n <= EXACT_FLIPS


# model -> (suite, prediction, comparison) -> item -> effect (NaN where undefined); the keys' descriptions
EffectVectors = dict[str, dict[tuple[str, int, int], dict[Hashable, float | None]]]


@dataclass(frozen=True)
class EffectComparison:
    rows: tuple[EffectComparisonRow, ...]
    resamples: int
    seed: int
    flips: int = SIGN_FLIPS
    unpaired: tuple[tuple[str, str, str], ...] = field(default=())  # (suite, model a, model b): one lacks the suite
    missing: tuple[str, ...] = field(default=())  # models with no effects (no effects.csv): in no row

    @property
    def tests(self) -> int:
        return sum(1 for row in self.rows if row.paired.n)

    def __repr__(self) -> str:  # short: the default repr held every row's every paired item
        return text_view(self._title(), [f"{r.key.suite} {r.key.label}: {r.model_a} vs {r.model_b} "
                                         f"{format_effect_difference(r)} bits, Holm p {format_p(r.p_holm)}"
                                         for r in self.rows])

    def _repr_html_(self) -> str:
        return html_view(self._title(), ("suite", "prediction", "a", "b", "difference a - b [95% CI], bits", "n",
                                         "p", "Holm p"),
                         [(r.key.suite, r.key.label, r.model_a, r.model_b, format_effect_difference(r), r.paired.n,
                           format_p(r.paired.p_value), format_p(r.p_holm)) for r in self.rows])

    def _title(self) -> str:
        return f"EffectComparison: {len(self.rows)} rows, {self.tests} tests, Holm-adjusted"

    def notes(self, *, missing: bool = True) -> list[str]:
        """What the table's numbers are, for below it: the difference, the test, the adjustment, what was left out
        (``missing``: also the models without effects, which a face may have named already)."""
        lines = [
            "difference = a's mean effect - b's, item by item on the items both have an effect for, in bits; "
            + (f"95% paired bootstrap interval over items ({self.resamples} resamples, seed {self.seed})"
               if self.resamples else "no interval (bootstrap 0)")
            + ". The effect is left - right of the comparison: with '>' a positive difference is a's effect larger "
            "in the predicted direction, with '<' a negative one is (with '=', compare effect a and effect b: the one "
            "nearer 0 holds better).",
            HOLM_NOTE.format(count=self.tests, s="" if self.tests == 1 else "s", exact=EXACT_FLIPS,
                             flips=f"{self.flips:,}") + f"; the smallest p a random one can give is "
            f"{1 / (self.flips + 1):.2g}",
        ]
        few = sum(1 for row in self.rows if 0 < row.paired.n < FEW)
        if few and self.resamples:
            lines.append(f"{few} row{'s' if few != 1 else ''} rest{'s' if few == 1 else ''} on fewer than {FEW} "
                         "paired items: there the bootstrap interval is approximate (too narrow: it can leave out 0 "
                         "while the exact p is large); read the sign-flip p")
        for row in self.rows:
            pairing = row.paired.pairing
            if not pairing.dropped:
                continue
            parts = [f"{count} item{'s' if count != 1 else ''} only {model} has"
                     for count, model in ((pairing.only_a, row.model_a), (pairing.only_b, row.model_b)) if count]
            if pairing.undefined:
                parts.append(f"{pairing.undefined} where either effect is undefined (an empty region)")
            lines.append(f"{row.key.suite} {row.key.label}: {row.model_a} vs {row.model_b} paired on {row.paired.n} "
                         "items; left out: " + ", ".join(parts))
        for suite, a, b in self.unpaired:
            lines.append(f"{suite}: effects not compared, since only one of {a} and {b} has effects for it")
        for model in self.missing if missing else ():
            lines.append(f"no effects for {model}: its folder has no effects.csv (a run made by an earlier linguagym, "
                         "or imported per-item outcomes); run it again to have them (its scores are cached)")
        return lines

    def records(self) -> list[dict[str, Any]]:
        """One dict per row, the ``COLUMNS``; a number that does not exist (no interval, no item) is None."""
        out = []
        for row in self.rows:
            paired, key = row.paired, row.key
            interval = paired.interval
            out.append({
                "suite": key.suite, "prediction": key.prediction, "comparison": key.comparison,
                "formula": key.formula, "comparison_formula": key.comparison_formula, "op": key.op,
                "metric": key.metric, "model_a": row.model_a, "model_b": row.model_b, "items": paired.n,
                "effect_a": _number(paired.mean_a), "effect_b": _number(paired.mean_b),
                "difference": _number(paired.difference), "ci_low": interval.low if interval else None,
                "ci_high": interval.high if interval else None,
                "p_sign_flip": _number(paired.p_value) if paired.n else None,
                "p_exact": row.exact if paired.n else None, "p_holm": _number(row.p_holm),
                "holm_tests": self.tests, "only_in_a": paired.pairing.only_a, "only_in_b": paired.pairing.only_b,
                "undefined": paired.pairing.undefined, "resamples": self.resamples, "flips": self.flips,
                "seed": self.seed,
            })
        return out

    def to_pandas(self) -> pandas.DataFrame:
        """The rows as a DataFrame, the ``COLUMNS`` (``p_exact`` a nullable boolean)."""
        import pandas

        frame = pandas.DataFrame(self.records(), columns=list(COLUMNS))
        for column in ("suite", "formula", "comparison_formula", "op", "metric", "model_a", "model_b"):
            frame[column] = frame[column].astype("string")
        frame["p_exact"] = frame["p_exact"].astype("boolean")
        return frame

    def csv_text(self) -> str:
        return table_csv(COLUMNS, self.records())

    def write_csv(self, path: str | Path) -> Path:
        atomic_write_text(Path(path), self.csv_text())
        return Path(path)


def _number(value: float | None) -> float | None:
    return None if value is None or value != value else value




def compare_effects(effects: Mapping[str, Iterable[ItemEffect]], *, resamples: int = 1000, seed: int = 0,
                    flips: int = SIGN_FLIPS, baseline: str | None = None, suites: Iterable[str] | None = None,
                    missing: Sequence[str] = ()) -> EffectComparison:
    """model -> its effects (the key names it in the table; each effect's own ``model`` is not read) -> every
    comparison of every prediction, model against model (every two models in the order given, or each against
    ``baseline``), Holm over the table. ``suites``: only these. ``missing``: models to name as having no effects."""
    wanted = None if suites is None else set(suites)
    vectors: EffectVectors = {}
    keys: dict[tuple[str, int, int], EffectKey] = {}
    for model, found in effects.items():
        mine = vectors.setdefault(model, {})
        for effect in found:
            if wanted is not None and effect.suite not in wanted:
                continue
            where = (effect.suite, effect.prediction, effect.comparison)
            keys.setdefault(where, EffectKey(effect.suite, effect.prediction, effect.comparison, effect.formula,
                                             effect.comparison_formula, effect.op, effect.metric))
            items = mine.setdefault(where, {})
            if effect.item in items:
                raise DuplicateItems(f"{model} has item {effect.item} of {effect.suite} twice: two runs of one model "
                                     "label cannot be told apart", hint="compare runs whose models have different "
                                     "labels, or each run with the others separately")
            items[effect.item] = effect.effect
    counts: dict[tuple[str, int], int] = {}
    for suite, prediction, comparison in keys:
        counts[(suite, prediction)] = max(counts.get((suite, prediction), 0), comparison + 1)
    keys = {where: replace(key, comparisons=counts[where[:2]]) for where, key in keys.items()}
    pairs = model_pairs(list(vectors), baseline)
    rows: list[tuple[EffectKey, str, str, PairedDifference]] = []
    unpaired: list[tuple[str, str, str]] = []
    for where, key in keys.items():
        for a, b in pairs:
            if where not in vectors[a] or where not in vectors[b]:
                if (key.suite, a, b) not in unpaired:
                    unpaired.append((key.suite, a, b))
                continue
            # one key per comparison: its resamples and sign flips are the same whatever else is compared
            paired = paired_effects(vectors[a][where], vectors[b][where], resamples=resamples, seed=seed,
                                    key=f"{key.suite}\0{key.prediction}\0{key.comparison}", flips=flips)
            rows.append((key, a, b, paired))
    adjusted = holm([paired.p_value if paired.n and paired.p_value is not None else math.nan
                     for *_, paired in rows])
    made = tuple(EffectComparisonRow(key, a, b, paired, p_holm)
                 for (key, a, b, paired), p_holm in zip(rows, adjusted, strict=True))
    return EffectComparison(made, resamples, seed, flips, tuple(unpaired), tuple(missing))


def compare_held_effects(runs: Sequence[RunData], settings: SummarySettings, *, baseline: str | None = None,
                         labels: Sequence[str] | None = None, suites: Iterable[str] | None = None
                         ) -> EffectComparison:
    """The effects comparison of the models of ``runs`` (read from their ``effects.csv`` or held in memory), with
    the summary's bootstrap and seed. ``labels``: each run's model's name in the table (the web page prefixes its
    run's number). A run without effects is named in ``missing``, not an error: its accuracy still compares."""
    effects: dict[str, list[ItemEffect]] = {}
    missing = []
    for index, run in enumerate(runs):
        name = labels[index] if labels else run.model
        if run.held_effects is None and (run.directory is None or not run.has(schema.EFFECTS)):
            missing.append(name)
            continue
        # two runs of one label on different suites join, as the accuracy table joins them; on one item, DuplicateItems
        effects.setdefault(name, []).extend(run.effects())
    if baseline is not None and baseline in missing:  # it exists, but has nothing to pair: the note says why
        return EffectComparison((), settings.bootstrap, settings.seed, missing=tuple(missing))
    return compare_effects(effects, resamples=settings.bootstrap, seed=settings.seed, baseline=baseline,
                           suites=suites, missing=missing)


def compare_model_effects(runs: Sequence[str | Path], settings: SummarySettings | None = None, *,
                          baseline: str | None = None) -> EffectComparison:
    """The API: run folders (as ``linguagym compare`` takes them) -> the paired comparison of their models' effects,
    per suite, prediction and comparison; ``settings`` as the summary's (bootstrap resamples, seed)."""
    from linguagym.evaluation.runfolder.reader import find_runs
    from linguagym.evaluation.summary import SummarySettings, check_summary_settings

    settings = settings or SummarySettings()
    check_summary_settings(settings)
    return compare_held_effects(find_runs(list(runs)), settings, baseline=baseline)


def format_effect_difference(row: EffectComparisonRow) -> str:
    """``+0.42 [+0.05, +0.80]``: a's mean effect - b's, in bits, and its interval (none: the difference alone)."""
    return format_paired(row.paired, 2)


def format_effect_mean(value: float) -> str:
    return "–" if value != value else f"{value:.2f}"
