"""From per-item outcomes to suite accuracy, collection score (SG score), group (circuit) scores and bootstrap
confidence intervals over items.

Item outcomes come from linguagym's ``items.csv``, from a run directory holding one, or from the per-item files
of Hu et al. (2020). Three headers, told apart by their columns:

- ``model,suite,item,correct`` (the paper's files): ``correct`` is whether the item's first prediction holds
  (policy ``first``); nothing says whether all hold;
- ``model,suite,item,correct,correct_all`` (``items.csv`` now): ``correct`` as in the paper, ``correct_all``
  whether every prediction holds (policy ``all``);
- ``model,suite,item,correct,correct_first`` (``items.csv`` of earlier versions): there ``correct`` meant all
  predictions and ``correct_first`` the first; read with those meanings.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from linguagym.errors import ConfigurationError
from linguagym.evaluation.collections import AD_HOC, Collection
from linguagym.evaluation.policy import AccuracyPolicy, resolve_policy
from linguagym.evaluation.runfolder.schema import ITEMS
from linguagym.userfiles import RefusedFile, read_regular

MAX_RESULTS_BYTES = 512 * 2**20  # a per-item results file for every SyntaxGym suite and model is a few MB
_TRUE = {"true", "1", "yes"}
_FALSE = {"false", "0", "no"}


@dataclass(frozen=True)
class ItemOutcome:
    model: str
    suite: str
    item: int
    correct_all: bool | None  # policy "all": every prediction holds; None when the source does not say
    correct_first: bool | None  # policy "first": the first prediction holds (the paper's "correct")

    def under(self, policy: str) -> bool | None:
        return self.correct_all if policy == "all" else self.correct_first


def _bool(value: str, where: str) -> bool:
    lowered = value.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ConfigurationError(f"{where}: expected True or False, found {value[:40]!r}")


def read_item_outcomes(path: str | Path) -> list[ItemOutcome]:
    """Outcomes from an items.csv, a run directory (its items.csv), or a Hu et al. (2020) results file."""
    path = Path(path)
    if path.is_dir():
        if not (path / ITEMS).is_file():
            raise ConfigurationError(f"{path} holds no {ITEMS}", hint="pass a run directory written by linguagym run")
        path = path / ITEMS
    try:  # a FIFO would block, a device never end: only a regular file of bounded size
        raw = read_regular(path, limit=MAX_RESULTS_BYTES, what="results file")
    except RefusedFile as refused:
        problem = "does not exist" if refused.missing else refused.problem
        raise ConfigurationError(f"results file {str(path)!r} {problem}",
                                 hint="pass items.csv, a run directory, or a per-item CSV") from None
    return parse_item_outcomes(raw, str(path))


def parse_item_outcomes(raw: bytes, path: str) -> list[ItemOutcome]:
    """``read_item_outcomes`` of bytes already read (an upload), ``path`` naming them in messages."""
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw[:error.start].count(b"\n") + 1
        raise ConfigurationError(f"{path}:{line}: not UTF-8 text (byte {error.start})",
                                 hint="save the file as UTF-8") from None
    reader = csv.DictReader(io.StringIO(text, newline=""))
    try:
        columns = set(reader.fieldnames or ())
        required = {"model", "suite", "item", "correct"}
        if not required <= columns:
            raise ConfigurationError(
                f"{path}: columns are {', '.join(reader.fieldnames or []) or 'missing'}; expected at least "
                "model, suite, item, correct",
                hint="pass items.csv from a linguagym run, or a per-item file in the format of Hu et al. (2020)",
            )
        layout = item_columns_layout(columns)
        outcomes = []
        for row in reader:
            where = f"{path}:{reader.line_num}"
            if any(row.get(column) is None for column in columns):
                raise ConfigurationError(f"{where}: the row has fewer values than the header has columns")
            item_text = row["item"].strip()
            if not (item_text.isascii() and item_text.lstrip("-").isdigit() and len(item_text) <= 18):
                raise ConfigurationError(f"{where}: item must be a whole number, found {row['item'][:40]!r}")
            correct = _bool(row["correct"], where)
            if layout == "current":
                all_hold, first_holds = _bool(row["correct_all"], where), correct
            elif layout == "old":  # before correct_all existed, "correct" meant every prediction
                all_hold, first_holds = correct, _bool(row["correct_first"], where)
            else:  # the paper's files hold the first-prediction outcome only
                all_hold, first_holds = None, correct
            outcomes.append(ItemOutcome(row["model"], row["suite"], int(item_text), all_hold, first_holds))
    except csv.Error as error:
        raise ConfigurationError(f"{path}:{reader.line_num}: not a readable CSV ({error})") from None
    if not outcomes:
        raise ConfigurationError(f"{path}: no results rows")
    return outcomes


def item_columns_layout(columns: Iterable[str]) -> str:
    """Which items.csv header the columns are: ``current`` (correct, correct_all), ``old`` (correct,
    correct_first: linguagym before correct_all) or ``paper`` (correct only, the first prediction's outcome)."""
    columns = set(columns)
    if "correct_all" in columns:
        return "current"
    if "correct_first" in columns:
        return "old"
    return "paper"


@dataclass(frozen=True)
class Interval:
    low: float
    high: float


@dataclass(frozen=True)
class ModelScores:
    model: str
    suites: dict[str, float]  # suite -> accuracy
    items: dict[str, int]  # suite -> number of items
    score: float  # mean over the collection's score suites; NaN unless every one of them has results
    score_suites: int  # how many of them have results
    groups: dict[str, float]  # group short name -> mean of its suites; NaN unless every one has results
    intervals: dict[str, Interval]  # "score", "group:<short>", "suite:<name>" -> 95% bootstrap interval


@dataclass(frozen=True)
class Summary:
    collection: Collection
    policy: str  # the policy as shown beside the numbers: ``first``, or ``first; all: a, b`` where suites differ
    models: tuple[ModelScores, ...]
    bootstrap: int
    seed: int
    # model -> how its region surprisals were summed (``surprisal_sums``), named beside the numbers; None where the
    # outcomes do not say how they were made (per-item files of other tools)
    sums: Mapping[str, str] | None = None
    accuracy_policy: AccuracyPolicy = AccuracyPolicy()  # each suite's policy (policy.py)


TOKEN_SUMS = "token sums (no word-boundary correction)"
CORRECTED = "word-boundary corrected"
PRECOMPUTED = "as the precomputed file gives them"
IMPORTED = "imported outcomes, made elsewhere"


def surprisal_sums(settings: Mapping[str, Any], scorer: Mapping[str, Any]) -> str:
    """How a run's region surprisals were summed, from its settings and scorer identity (run.json's)."""
    if scorer.get("kind") == "precomputed":
        return PRECOMPUTED  # an lm-zoo file says nothing of how its numbers were made
    if scorer.get("kind") == "imported":
        return IMPORTED  # per-item outcomes made elsewhere (evaluation/imported.py)
    return CORRECTED if settings.get("bow_correction") else TOKEN_SUMS


def summarize(
    outcomes: Iterable[ItemOutcome],
    collection: Collection,
    *,
    policy: str | AccuracyPolicy | None = None,
    bootstrap: int = 1000,
    seed: int = 0,
) -> Summary:
    """Accuracy per suite, the collection score and group scores per model, with bootstrap intervals.

    A score or group is computed only from all the suites it needs: a mean over some of them is not the published
    number, so it is NaN and ``tables.notes`` names the missing suites. The ad-hoc collection (the suites some
    results hold) averages only the suites every model has, so that models are compared on the same suites.

    ``policy``: an ``AccuracyPolicy`` (each suite's), a policy name for every suite, or None: the collection's
    (``policy.resolve_policy``)."""
    chosen = policy if isinstance(policy, AccuracyPolicy) else resolve_policy(collection, policy)
    by_model: dict[str, dict[str, list[bool]]] = {}
    for outcome in outcomes:
        value = outcome.under(chosen.of(outcome.suite))
        if value is None:
            raise ConfigurationError(
                f"results of {outcome.model} on {outcome.suite} give only the first prediction's outcome, so "
                f"policy {chosen.of(outcome.suite)!r} cannot be computed from them", hint="give `policy` first",
                settings=["policy"])
        by_model.setdefault(outcome.model, {}).setdefault(outcome.suite, []).append(value)
    if collection.name == AD_HOC:
        collection = shared_suites_only(collection, [set(suites) for suites in by_model.values()])
    models = tuple(_model_scores(model, suites, collection, bootstrap, seed) for model, suites in by_model.items())
    shown = chosen.describe(dict.fromkeys(s for suites in by_model.values() for s in suites))
    return Summary(collection, shown, models, bootstrap, seed, accuracy_policy=chosen)


def shared_suites_only(collection: Collection, suites_of_models: Sequence[set[str]]) -> Collection:
    """The ad-hoc collection whose score averages only the suites every model has; the others are kept (shown)
    but excluded from the score."""
    unshared = tuple(s for s in collection.suites if not all(s in suites for suites in suites_of_models))
    return replace(collection, exclude_from_score=tuple(dict.fromkeys((*collection.exclude_from_score, *unshared))))


def missing_suites(collection: Collection, model: ModelScores, needed: Sequence[str] | None = None) -> list[str]:
    """The suites a score (``needed``: by default the collection's score suites) needs that the model lacks."""
    return [s for s in (collection.score_suites if needed is None else needed) if s not in model.suites]


def _model_scores(model: str, suites: dict[str, list[bool]], collection: Collection, bootstrap: int,
                  seed: int) -> ModelScores:
    import numpy as np

    accuracy = {suite: sum(values) / len(values) for suite, values in suites.items()}
    present = [s for s in collection.score_suites if s in accuracy]
    scored = present if len(present) == len(collection.score_suites) else []  # all or nothing (see summarize)
    complete = [g for g in collection.groups
                if collection.group_suites(g) and all(s in accuracy for s in collection.group_suites(g))]
    groups = {g.short: _mean([accuracy[s] for s in collection.group_suites(g)] if g in complete else [])
              for g in collection.groups}
    intervals: dict[str, Interval] = {}
    if bootstrap > 0:
        rng = np.random.default_rng(seed)
        # resample items within each suite; every aggregate is recomputed from the same resamples
        draws = {}
        for suite in sorted(suites):
            values = np.asarray(suites[suite], dtype=float)
            picks = rng.integers(0, len(values), size=(bootstrap, len(values)))
            draws[suite] = values[picks].mean(axis=1)
            intervals[f"suite:{suite}"] = _interval(draws[suite])
        if scored:
            intervals["score"] = _interval(np.mean([draws[s] for s in scored], axis=0))
        for group in complete:
            members = collection.group_suites(group)
            intervals[f"group:{group.short}"] = _interval(np.mean([draws[s] for s in members], axis=0))
    return ModelScores(model, accuracy, {s: len(v) for s, v in suites.items()}, _mean([accuracy[s] for s in scored]),
                       len(present), groups, intervals)


def _interval(samples) -> Interval:
    import numpy as np

    low, high = np.percentile(samples, [2.5, 97.5])
    return Interval(float(low), float(high))


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else math.nan
