"""How the models of a run are summarized (collection, policy, bootstrap), checked before any work, and the
summary of run folders as written (``items.csv`` of each), for tables and the report."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from linguagym.errors import ConfigurationError
from linguagym.evaluation.aggregate import ItemOutcome, Summary, summarize, surprisal_sums
from linguagym.evaluation.collections import Collection, covering_collection, load_collection
from linguagym.evaluation.outputs import item_outcomes, model_label
from linguagym.evaluation.report import RunData, find_runs
from linguagym.evaluation.run import RunResult

POLICIES = ("all", "first")


@dataclass(frozen=True)
class SummarySettings:
    """``collection``: a collection name or ``.toml`` file whose score and groups are computed, or ``auto`` (the
    built-in collection that holds every suite, else none); ``policy``: an item is correct when ``all`` its
    predictions hold, or only the ``first`` (None: the collection's); ``bootstrap`` resamples over items for 95%
    intervals (0: none), drawn with ``seed``."""

    collection: str = "auto"
    policy: str | None = None
    bootstrap: int = 1000
    seed: int = 0


def check_summary_settings(settings: SummarySettings) -> None:
    """Refuse an unknown collection or policy, or a negative bootstrap, before any work."""
    if settings.policy not in (None, *POLICIES):
        raise ConfigurationError(f"unknown policy {settings.policy!r}", hint="use one of " + ", ".join(POLICIES))
    if settings.bootstrap < 0:
        raise ConfigurationError(f"bootstrap must be 0 or more, not {settings.bootstrap}")
    if settings.collection != "auto":
        load_collection(settings.collection)


def summary_collection(settings: SummarySettings, suites: Sequence[str]) -> Collection:
    if settings.collection == "auto":
        return covering_collection(suites)
    return load_collection(settings.collection)


def summarize_outcomes(outcomes: Sequence[ItemOutcome], settings: SummarySettings) -> Summary:
    collection = summary_collection(settings, [o.suite for o in outcomes])
    return summarize(outcomes, collection, policy=settings.policy, bootstrap=settings.bootstrap, seed=settings.seed)


def summarize_runs(folders: Sequence[str | Path], settings: SummarySettings) -> tuple[list[RunData], Summary]:
    """The run folders (as ``find_runs`` finds them) and the summary of every model in them."""
    runs = find_runs(list(folders))
    summary = summarize_outcomes([o for run in runs for o in run.outcomes], settings)
    sums = {run.model: surprisal_sums(run.record["settings"], run.record.get("scorer", {})) for run in runs}
    return runs, replace(summary, sums=sums)


def summarize_results(results: Sequence[RunResult], settings: SummarySettings) -> Summary:
    """The summary of runs held in memory: the same numbers ``summarize_runs`` reads from their folders."""
    summary = summarize_outcomes([o for result in results for o in item_outcomes(result)], settings)
    return replace(summary, sums={model_label(r): surprisal_sums(asdict(r.settings), r.scorer) for r in results})
