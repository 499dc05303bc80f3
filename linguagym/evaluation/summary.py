"""How the models of a run are summarized (collection, policy, bootstrap), checked before any work, and the
summary of runs (``RunData``: held in memory by ``run_models``, or read from their folders), for tables and the
report. Which policy decides each
suite's accuracy is settled here for runs (``run_policy``) and for results read again (``summary_policy``), both
by ``policy.resolve_policy``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from linguagym.errors import ConfigurationError
from linguagym.evaluation.aggregate import ItemOutcome, Summary, read_item_outcomes, summarize
from linguagym.evaluation.collections import Collection, covering_collection, load_collection
from linguagym.evaluation.policy import POLICIES, AccuracyPolicy, agreed_policy, resolve_policy
from linguagym.evaluation.run import RunSettings
from linguagym.evaluation.runfolder import schema
from linguagym.evaluation.runfolder.reader import RunData, find_runs, read_record, run_records


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


def run_policy(settings: Sequence[RunSettings], summary: SummarySettings | None,
               suites: Sequence[str]) -> AccuracyPolicy:
    """The one policy of a run (every model, every output): the one given (``RunSettings.policy`` or the
    summary's, which must agree), else the collection's (``summary.collection``; ``auto``: the built-in one that
    holds every suite), else ``all``."""
    given = {one.policy for one in settings if one.policy is not None}
    if summary is not None and summary.policy is not None:
        given.add(summary.policy)
    if len(given) > 1:
        raise ConfigurationError(f"one run is given two policies ({' and '.join(sorted(given))})",
                                 hint="a run gives one accuracy per suite: give one `policy`, or none to use the "
                                 "collection's", settings=["policy"])
    return resolve_policy(summary_collection(summary or SummarySettings(), suites), given.pop() if given else None)


def summary_policy(settings: SummarySettings, collection: Collection,
                   records: Iterable[Mapping[str, Any]] = ()) -> AccuracyPolicy:
    """The policy of results read again: the one given; else what their runs recorded (``run.json``), for the
    suites they recorded, where the runs agree; else the collection's. So re-reading a run shows its numbers."""
    resolved = resolve_policy(collection, settings.policy)
    if settings.policy is not None:
        return resolved
    recorded, clash = agreed_policy(records)
    if recorded is None:
        where = f"the policy of {resolved.source}" if resolved.source != "default" else f"policy {resolved.default}"
        return replace(resolved, note=f"{clash}; all are shown here under {where}" if clash else "")
    return AccuracyPolicy(resolved.default, recorded.rules + resolved.rules, source=recorded.source)


def folder_policy(directory: str | Path) -> AccuracyPolicy:
    """The policy of the runs in a run folder (``DIR`` or ``DIR/<model>/``), as a run's page shows them: what their
    ``run.json`` recorded, else (runs of earlier versions) that of the built-in collection holding their suites."""
    return records_policy(run_records(directory))


def records_policy(records: Sequence[Mapping[str, Any]]) -> AccuracyPolicy:
    """``folder_policy`` of run records already read (``RunData.record``)."""
    suites = [str(s.get("name")) for record in records for s in record.get("suites", []) if isinstance(s, dict)]
    return summary_policy(SummarySettings(), covering_collection(suites), records)


def summarize_outcomes(outcomes: Sequence[ItemOutcome], settings: SummarySettings,
                       records: Iterable[Mapping[str, Any]] = ()) -> Summary:
    """``records``: the ``run.json`` of the runs the outcomes come from (their policy: ``summary_policy``)."""
    collection = summary_collection(settings, [o.suite for o in outcomes])
    return summarize(outcomes, collection, policy=summary_policy(settings, collection, records),
                     bootstrap=settings.bootstrap, seed=settings.seed)


def summarize_runs(folders: Sequence[str | Path], settings: SummarySettings) -> tuple[list[RunData], Summary]:
    """The run folders (as ``find_runs`` finds them) and the summary of every model in them."""
    runs = find_runs(list(folders))
    return runs, summarize_held(runs, settings)


def summarize_held(runs: Sequence[RunData], settings: SummarySettings) -> Summary:
    """The summary of every model of ``runs`` (read from their folders, or held in memory: ``held_run``)."""
    summary = summarize_outcomes([o for run in runs for o in run.outcomes], settings, [run.record for run in runs])
    return replace(summary, sums={run.model: run.sums for run in runs})


def summarize_files(paths: Sequence[str | Path], settings: SummarySettings) -> Summary:
    """The summary of per-item results (``items.csv`` files, run folders, per-item files of other tools), as
    ``linguagym score`` prints it: a run's own ``run.json`` (beside its ``items.csv``) gives its policy."""
    outcomes: list[ItemOutcome] = []
    records: list[dict] = []
    for path in map(Path, paths):
        outcomes += read_item_outcomes(path)
        record_path = (path if path.is_dir() else path.parent) / schema.RUN_RECORD
        if record_path.is_file():
            records.append(read_record(record_path, hint="pass the items.csv alone, or mend or remove run.json"))
    return summarize_outcomes(outcomes, settings, records)
