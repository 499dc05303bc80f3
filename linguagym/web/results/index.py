"""Results across runs, by model and suite: every finished run's result per model x suite, the latest of each,
and the leaderboard made from the latest ones (scored by the library's ``summarize``, which computes a collection
score and its circuits only from complete suite sets).

A model is known by the model it was run with (``settings.model`` of its ``run.json``: a name, hub id or path)
and the settings that change its numbers where they differ from the defaults (``gpt2 [dtype=bfloat16]``), so one
model in several runs is one row, and the same weights read another way are another; its label (the column name
within a run) is shown beside it. Imported results (``evaluation/imported.py``) are ``NAME [imported]``. A run
of the first items only (``--limit``) is listed but never the latest.
"""

from __future__ import annotations

import contextlib
import json
import math
import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from sqlalchemy.orm import Session

from linguagym.atomic import atomic_write_text
from linguagym.errors import LinguagymError
from linguagym.evaluation.aggregate import ItemOutcome, ModelScores, Summary, missing_suites, summarize
from linguagym.evaluation.collections import Collection
from linguagym.evaluation.imported import is_imported
from linguagym.evaluation.run import RunSettings
from linguagym.evaluation.runfolder import schema
from linguagym.evaluation.runfolder.reader import find_runs
from linguagym.evaluation.summary import records_policy
from linguagym.web.config import WebConfig
from linguagym.web.jobs.worker import results_directory
from linguagym.web.store import list_runs


@dataclass(frozen=True)
class SuiteResult:
    """One model's result on one suite in one finished run."""
    model: str  # the model as run (settings.model)
    label: str  # its column name in that run
    suite: str
    version: int | None  # the suite's stored version the run used (None: not in the database any more)
    run_id: int
    finished_at: datetime | None
    policy: str  # the suite's policy in its run (summary.folder_policy): ``accuracy`` is under it, as on the run's page
    all_hold: tuple[bool | None, ...]  # per item: every prediction holds (None: the source does not say)
    first_holds: tuple[bool | None, ...]  # per item: the first prediction holds
    limited: bool = False  # a --limit run: only the first items, never a leaderboard entry
    run_name: str | None = None  # the run's name, shown beside its number in links
    imported: bool = False  # outcomes imported from a per-item file (evaluation/imported.py), marked where shown

    @property
    def accuracy(self) -> float:
        values = self.all_hold if self.policy == "all" else self.first_holds
        known = [v for v in values if v is not None]
        return sum(known) / len(known) if known else math.nan

    @property
    def items(self) -> int:
        return len(self.first_holds)

    def outcomes(self) -> list[ItemOutcome]:
        """Per item, under the model's name (so that one model in several runs is one model to ``summarize``)."""
        return [ItemOutcome(self.model, self.suite, index, every, first)
                for index, (every, first) in enumerate(zip(self.all_hold, self.first_holds, strict=True), start=1)]


@dataclass(frozen=True)
class _FolderResult:
    """A model's result on a suite as its run folder holds it; the database adds the run's id, date and versions."""
    model: str
    label: str
    policy: str
    suite: str
    all_hold: tuple[bool | None, ...]
    first_holds: tuple[bool | None, ...]
    limited: bool = False
    imported: bool = False


# Settings that change a model's numbers: results differing in one of them are not the same model's results.
_NUMBER_SETTINGS = ("bos", "spacing", "dtype", "pll", "metric", "atol", "rtol", "ties", "compat", "crossing")


def model_key(settings: dict) -> str:
    """The model as run, with the settings that change its numbers where they are not the defaults."""
    defaults = RunSettings()
    model = str(settings.get("model", ""))
    changed = [f"{key}={settings[key]}" for key in _NUMBER_SETTINGS
               if key in settings and settings[key] != getattr(defaults, key)]
    changed += [f"{key}={value}" for key, value in sorted(dict(settings.get("model_args") or {}).items())]
    return f"{model} [{', '.join(changed)}]" if changed else model


# Run folders read before, by path: (what says they are unchanged, their results). A finished run's folder is
# written once (a rewrite swaps it whole, which changes the stamp), and reading every items.csv on every view of
# the leaderboard or a suite costs seconds once there are dozens of runs. Outcomes are kept as tuples of booleans.
_FOLDERS: OrderedDict[Path, tuple[tuple, list[_FolderResult]]] = OrderedDict()
_FOLDERS_KEPT = 1024
_FOLDERS_LOCK = threading.Lock()
# The same, kept on disk in each results folder, so that a server just started reads one small file per run
# instead of parsing every model's items.csv (50 runs x 4 models: a first view in 0.68 s instead of 4.1 s).
INDEX_FILE = ".results-index.json"
_INDEX_VERSION = 3  # 3: imported results marked; 2: each suite's policy as its run recorded it (1: as given)
_ENCODED = {True: "1", False: "0", None: "-"}
_DECODED = {value: key for key, value in _ENCODED.items()}


def suite_results(session: Session, config: WebConfig, *, suite: str | None = None) -> list[SuiteResult]:
    """Every model x suite of every finished run (with ``suite``: of the runs that ran a version of it), the most
    recently finished run first. A run whose folder is gone or unreadable (deleted by hand, written by a broken
    version) is skipped, not an error page."""
    done = [run for run in list_runs(session) if run.status == "done"
            and (suite is None or any(entry.version.suite.name == suite for entry in run.suites))]
    done.sort(key=lambda run: (run.finished_at or run.created_at, run.id), reverse=True)
    found = []
    for run in done:
        try:
            folder = _read_folder(results_directory(config, run.id))
        except (LinguagymError, OSError, ValueError, KeyError):
            continue
        versions = {entry.version.suite.name: entry.version.number for entry in run.suites}
        found += [SuiteResult(r.model, r.label, r.suite, versions.get(r.suite), run.id, run.finished_at, r.policy,
                              r.all_hold, r.first_holds, r.limited, run.name, r.imported)
                  for r in folder if suite is None or r.suite == suite]
    return found


def _stamp(directory: Path) -> tuple:
    """What changes when any model's results in the folder change: each file's name, time, inode and size."""
    files = sorted(p for pattern in (f"*/{schema.RUN_RECORD}", f"*/{schema.ITEMS}") for p in directory.glob(pattern))
    return tuple((p.relative_to(directory).as_posix(), (info := p.stat()).st_mtime_ns, info.st_ino, info.st_size)
                 for p in files)


def _read_folder(directory: Path) -> list[_FolderResult]:
    """The folder's results: from memory, else from its index file, else parsed (and the index file written),
    whichever is still current."""
    stamp = _stamp(directory)
    with _FOLDERS_LOCK:
        cached = _FOLDERS.get(directory)
        if cached is not None and cached[0] == stamp:
            _FOLDERS.move_to_end(directory)
            return cached[1]
    results = _read_index(directory, stamp)
    if results is None:
        results = _parse_folder(directory)
        _write_index(directory, stamp, results)
    with _FOLDERS_LOCK:
        _FOLDERS[directory] = (stamp, results)
        while len(_FOLDERS) > _FOLDERS_KEPT:
            _FOLDERS.popitem(last=False)
    return results


def _read_index(directory: Path, stamp: tuple) -> list[_FolderResult] | None:
    """The results the folder's index file holds, or None when it is missing, unreadable or out of date."""
    try:
        data = json.loads((directory / INDEX_FILE).read_text(encoding="utf-8"))
        if data.get("version") != _INDEX_VERSION or [tuple(entry) for entry in data["stamp"]] != list(stamp):
            return None
        return [_FolderResult(r["model"], r["label"], r["policy"], r["suite"], _decode(r["all"]), _decode(r["first"]),
                              bool(r["limited"]), bool(r["imported"])) for r in data["results"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _write_index(directory: Path, stamp: tuple, results: list[_FolderResult]) -> None:
    """Keep the parsed results beside the run's files; a folder that cannot be written is simply parsed again."""
    data = {"version": _INDEX_VERSION, "stamp": stamp,
            "results": [{"model": r.model, "label": r.label, "policy": r.policy, "suite": r.suite,
                         "all": _encode(r.all_hold), "first": _encode(r.first_holds), "limited": r.limited,
                         "imported": r.imported}
                        for r in results]}
    with contextlib.suppress(OSError):
        atomic_write_text(directory / INDEX_FILE, json.dumps(data))


def _encode(values: tuple[bool | None, ...]) -> str:
    return "".join(_ENCODED[value] for value in values)


def _decode(text: str) -> tuple[bool | None, ...]:
    return tuple(map(_DECODED.__getitem__, text))


def _parse_folder(directory: Path) -> list[_FolderResult]:
    results = []
    runs = find_runs([directory])
    policy = records_policy([data.record for data in runs])  # as the run's page shows it (summary.folder_policy)
    for data in runs:
        settings = data.record.get("settings", {})
        model = model_key(settings) if settings.get("model") else data.model
        limited = settings.get("limit") is not None
        by_suite: dict[str, list[ItemOutcome]] = {}
        for outcome in data.outcomes:
            by_suite.setdefault(outcome.suite, []).append(outcome)
        imported = is_imported(data.record)
        if imported:  # never one row with a model run here of the same name: results of two sources never mix
            model = f"{model} [imported]"
        results += [_FolderResult(model, data.model, policy.of(suite), suite, tuple(o.correct_all for o in outcomes),
                                  tuple(o.correct_first for o in outcomes), limited, imported)
                    for suite, outcomes in by_suite.items()]
    return results


def latest_results(results: Iterable[SuiteResult]) -> dict[tuple[str, str], SuiteResult]:
    """(model, suite) -> the result of the most recently finished run that has it (``results`` newest first, as
    ``suite_results`` gives them). A --limit run scored only the first items: it is never the latest result."""
    latest: dict[tuple[str, str], SuiteResult] = {}
    for result in results:
        if not result.limited:
            latest.setdefault((result.model, result.suite), result)
    return latest


@dataclass(frozen=True)
class LeaderboardRow:
    model: str
    scores: ModelScores
    missing: tuple[str, ...]  # the collection's score suites this model has no result for
    runs: tuple[int, ...]  # the runs its latest results come from, newest first
    imported: bool = False  # some of its latest results are imported from a per-item file, not run here

    @property
    def suite_count(self) -> int:
        return len(self.scores.suites)


@dataclass(frozen=True)
class Leaderboard:
    summary: Summary
    rows: tuple[LeaderboardRow, ...]
    suites: tuple[str, ...]  # the suite columns: the collection's suites any model has, then any others
    latest: dict[tuple[str, str], SuiteResult]
    run_names: dict[int, str] = field(default_factory=dict)  # run id -> its name, for the runs that have one

    def run_policy(self, model: str, suite: str) -> str | None:
        """The policy the result's own run shows for it, where it is not the one the leaderboard uses (the
        collection's, so that every model is ranked alike); None where they agree."""
        result = self.latest.get((model, suite))
        if result is None or result.policy == self.summary.accuracy_policy.of(suite):
            return None
        return result.policy

    @property
    def other_policies(self) -> bool:
        return any(self.run_policy(model, suite) for model, suite in self.latest)

    def missing_for_group(self, row: LeaderboardRow, short: str) -> list[str]:
        group = next(g for g in self.summary.collection.groups if g.short == short)
        return missing_suites(self.summary.collection, row.scores, self.summary.collection.group_suites(group))


SORT_KEYS = ("model", "score", "suites")  # and "group:<short>", "suite:<name>"


def leaderboard(results: Sequence[SuiteResult], collection: Collection, *, sort: str = "score",
                descending: bool = True) -> Leaderboard:
    """One row per model from its latest result on each suite, scored with ``collection`` (no bootstrap: the
    leaderboard shows the point values; a run's page has the intervals)."""
    latest = latest_results(results)
    outcomes = [o for result in latest.values() for o in result.outcomes()]
    summary = summarize(outcomes, collection, bootstrap=0)
    runs: dict[str, list[int]] = {}
    for (model, _), result in latest.items():
        runs.setdefault(model, [])
        if result.run_id not in runs[model]:
            runs[model].append(result.run_id)
    imported = {model for (model, _), result in latest.items() if result.imported}
    rows = [LeaderboardRow(m.model, m, tuple(missing_suites(collection, m)), tuple(sorted(runs[m.model], reverse=True)),
                           m.model in imported)
            for m in summary.models]
    present = [s for s in collection.suites if any(s in m.suites for m in summary.models)]
    others = sorted({s for m in summary.models for s in m.suites} - set(present))
    names = {result.run_id: result.run_name for result in latest.values() if result.run_name}
    return Leaderboard(summary, tuple(sort_rows(rows, sort, descending)), (*present, *others), latest, names)


def sort_rows(rows: Sequence[LeaderboardRow], key: str, descending: bool) -> list[LeaderboardRow]:
    """Rows ordered by ``key`` (``model``, ``score``, ``suites``, ``group:<short>`` or ``suite:<name>``); rows
    without a value (a withheld score, a suite not run) go last either way."""
    def value(row: LeaderboardRow) -> float | str | None:
        scores = row.scores
        if key == "model":
            return row.model.casefold()
        if key == "suites":
            return row.suite_count
        if key == "score":
            number = scores.score
        elif key.startswith("group:"):
            number = scores.groups.get(key[6:], math.nan)
        elif key.startswith("suite:"):
            number = scores.suites.get(key[6:], math.nan)
        else:
            number = scores.score
        return None if number != number else number

    known = [r for r in rows if value(r) is not None]
    unknown = sorted((r for r in rows if value(r) is None), key=lambda r: r.model.casefold())
    known.sort(key=lambda r: (value(r), r.model.casefold()), reverse=descending)
    return known + unknown


def model_results(results: Iterable[SuiteResult], model: str) -> list[SuiteResult]:
    """Every result of ``model``, by suite name, newest run first within a suite."""
    mine = [r for r in results if r.model == model]
    return sorted(mine, key=lambda r: r.suite.casefold())  # stable: newest first within a suite stays


def suite_panel(results: Iterable[SuiteResult], suite: str) -> list[SuiteResult]:
    """Every model's results on ``suite`` (any version), each model's newest first, models by name."""
    return sorted((r for r in results if r.suite == suite), key=lambda r: r.model.casefold())


def shared_suites_outcomes(outcomes: Sequence[ItemOutcome]) -> list[ItemOutcome]:
    """Only the outcomes of the suites every model has, so that means over them compare like with like."""
    suites_of: dict[str, set[str]] = {}
    for outcome in outcomes:
        suites_of.setdefault(outcome.model, set()).add(outcome.suite)
    shared = set.intersection(*suites_of.values()) if suites_of else set()
    return [o for o in outcomes if o.suite in shared]
