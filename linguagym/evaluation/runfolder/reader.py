"""Reading run folders (``schema`` names their files): the run record, the item outcomes, and the rows of the CSV
files that the report, ``score``, ``compare`` and the web app show. A ``RunData`` is one model's folder; one
built from a ``RunResult`` (``held_run``) holds the same numbers without reading the folder back."""

from __future__ import annotations

import csv
import json
import math
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from linguagym.errors import ConfigurationError
from linguagym.evaluation import plots
from linguagym.evaluation.aggregate import ItemOutcome, read_item_outcomes, surprisal_sums
from linguagym.evaluation.effects import ItemEffect
from linguagym.evaluation.run import RunResult
from linguagym.evaluation.runfolder import schema
from linguagym.evaluation.runfolder.rows import (
    item_outcomes,
    prediction_rows,
    region_rows,
    run_effects,
    run_record_json,
    suite_prediction_rows,
)
from linguagym.names import suite_file_name

PredictionShares = dict[str, list[tuple[str, float]]]


@dataclass(frozen=True)
class RunData:
    """One model's run: its folder (None: held in memory only), its run record and its item outcomes."""

    directory: Path | None
    record: dict
    outcomes: list[ItemOutcome]
    # computed from the result in memory where the folder need not be read back (held_run); else read on demand
    held_regions: dict[str, plots.SuiteRegions] | None = field(default=None, repr=False, compare=False)
    held_predictions: PredictionShares | None = field(default=None, repr=False, compare=False)
    held_effects: list[ItemEffect] | None = field(default=None, repr=False, compare=False)
    held_suite_level: list[dict[str, str]] | None = field(default=None, repr=False, compare=False)

    @property
    def model(self) -> str:
        return self.record.get("label") or self.record["settings"]["model"]

    @property
    def sums(self) -> str:
        """How the run's region surprisals were summed (``aggregate.surprisal_sums``)."""
        return surprisal_sums(self.record["settings"], self.record.get("scorer", {}))

    def path(self, name: str) -> Path:
        if self.directory is None:
            raise ConfigurationError(f"the run of {self.model} was not written into a folder",
                                     hint="run it with an output folder")
        return self.directory / name

    def has(self, name: str) -> bool:
        """Whether the folder holds file ``name`` (runs made before linguagym wrote ``tokens.csv`` have none)."""
        return self.directory is not None and (self.directory / name).is_file()

    def region_rows(self) -> list[dict[str, str]]:
        """The rows of ``regions.csv``, as text."""
        with self.path(schema.REGIONS).open(newline="", encoding="utf-8") as handle:
            return list(csv.DictReader(handle))

    def regions(self) -> dict[str, plots.SuiteRegions]:
        """suite -> the model's mean surprisal per region and condition (what its region plot draws)."""
        if self.held_regions is not None:
            return self.held_regions
        if self.directory is not None and not self.has(schema.REGIONS):
            return {}  # imported per-item outcomes (evaluation/imported.py): no region values
        return plots.suite_regions(self.region_rows(), self.metrics())

    def metrics(self) -> dict[str, str]:
        """suite -> the metric its predictions were evaluated on."""
        return {s["name"]: s.get("metric", "sum") for s in self.record.get("suites", [])}

    def prediction_rows(self) -> Iterator[dict[str, str]]:
        """The rows of ``predictions.csv``, as text."""
        with self.path(schema.PREDICTIONS).open(newline="", encoding="utf-8") as handle:
            yield from csv.DictReader(handle)

    def predictions(self) -> PredictionShares:
        """suite -> each prediction's formula and the share of items on which it holds, in suite order."""
        if self.held_predictions is not None:
            return self.held_predictions
        return _prediction_shares((row["suite"], int(row["prediction"]), row["formula"], schema.is_true(row["holds"]))
                                  for row in self.prediction_rows())

    def effects(self) -> list[ItemEffect]:
        """Every effect of the run (``effects.py``), from ``effects.csv``; none where the run was made before
        linguagym wrote it (``has(schema.EFFECTS)`` tells)."""
        if self.held_effects is not None:
            return self.held_effects
        if not self.has(schema.EFFECTS):
            return []
        return read_effects(self.path(schema.EFFECTS))
    def suite_level_rows(self) -> list[dict[str, str]]:
        """The rows of ``suite_predictions.csv``, as text (none where the folder has no such file: earlier
        versions wrote none)."""
        if self.held_suite_level is not None:
            return self.held_suite_level
        if not self.has(schema.SUITE_PREDICTIONS):
            return []
        with self.path(schema.SUITE_PREDICTIONS).open(newline="", encoding="utf-8") as handle:
            return list(csv.DictReader(handle))

    def columns(self, name: str, wanted: Sequence[str]) -> Iterator[tuple[str, ...]]:
        """The ``wanted`` columns of each row of CSV file ``name``, as text; a column the file lacks (written by an
        earlier version) is empty. A plain reader: ``tokens.csv`` has tens of thousands of rows."""
        with self.path(name).open(newline="", encoding="utf-8") as handle:
            rows = csv.reader(handle)
            column = {title: index for index, title in enumerate(next(rows, []))}
            at = [column.get(title) for title in wanted]
            for row in rows:
                yield tuple("" if i is None else row[i] for i in at)

    def scored_suite_files(self) -> dict[str, Path]:
        """Suite name -> its ``suites/NAME.json`` (``scored_suite_files``)."""
        return scored_suite_files(self.path(""), self.record)


def _prediction_shares(rows: Iterable[tuple[str, int, str, bool]]) -> PredictionShares:
    holds: dict[str, dict[int, list[bool]]] = defaultdict(lambda: defaultdict(list))
    formulas: dict[tuple[str, int], str] = {}
    for suite, index, formula, held in rows:
        formulas[(suite, index)] = formula
        holds[suite][index].append(held)
    return {suite: [(formulas[(suite, i)], sum(v) / len(v)) for i, v in sorted(by_index.items())]
            for suite, by_index in holds.items()}


def held_run(result: RunResult, *, regions: bool = False) -> RunData:
    """The ``RunData`` of a result in memory: the numbers reading its folder would give (the run record as
    ``run.json`` holds it, its item outcomes and prediction shares), and with ``regions`` its region plots' data
    (taken now: ``run_models(keep_scores=False)`` lets go of the region values once the folder is written)."""
    record = json.loads(run_record_json(result))
    held_regions = None
    if regions:  # the rows as regions.csv holds them (text), so the plots are those the file would give
        text_rows = (dict(zip(schema.REGION_COLUMNS, map(_cell, row), strict=True)) for row in region_rows(result))
        held_regions = plots.suite_regions(text_rows, {s["name"]: s.get("metric", "sum") for s in record["suites"]})
    shares = _prediction_shares((row[1], row[3], row[4], row[6]) for row in prediction_rows(result))
    suite_level = [dict(zip(schema.SUITE_PREDICTION_COLUMNS, map(_cell, row), strict=True))
                   for row in suite_prediction_rows(result)]
    return RunData(result.directory, record, item_outcomes(result), held_regions, shares, run_effects(result),
                   suite_level)


def read_effects(path: Path) -> list[ItemEffect]:
    """The rows of an ``effects.csv`` (``schema.EFFECT_COLUMNS``); a file that is not one is a ``ConfigurationError``
    naming it and the row."""
    effects = []
    with path.open(newline="", encoding="utf-8") as handle:
        rows = csv.DictReader(handle)
        missing = [c for c in schema.EFFECT_COLUMNS if c not in (rows.fieldnames or ())]
        if missing:
            raise ConfigurationError(f"{path} is not an effects table: it lacks {', '.join(missing)}",
                                     hint="run the suites again: scores are cached")
        for row in rows:
            try:
                effects.append(ItemEffect(
                    row["model"], row["suite"], int(row["item"]), int(row["prediction"]), int(row["comparison"]),
                    row["formula"], row["comparison_formula"], row["op"], row["metric"], _float(row["left"]),
                    _float(row["right"]), row["undefined_values"]))
            except (TypeError, ValueError) as error:
                raise ConfigurationError(f"{path}:{rows.line_num}: not an effects row ({error})",
                                         hint="run the suites again: scores are cached") from None
    return effects


def _float(text: str) -> float:
    return float(text) if text else math.nan


def _cell(value: object) -> str:
    """A value as the run folder's writer writes it (a logical one TRUE/FALSE)."""
    if isinstance(value, bool):
        return schema.TRUE if value else schema.FALSE
    return value if isinstance(value, str) else "" if value is None else str(value)


def read_record(path: Path, hint: str = "run it again: scores are cached") -> dict:
    """A ``run.json``; unreadable or not JSON: a ``ConfigurationError`` naming it."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ConfigurationError(f"cannot read {path}: {error}", hint=hint) from None


def read_run(directory: str | Path) -> RunData:
    directory = Path(directory)
    record_path = directory / schema.RUN_RECORD
    if not record_path.is_file():
        raise ConfigurationError(f"{directory} is not a run directory (no {schema.RUN_RECORD})",
                                 hint="pass directories written by linguagym run")
    record = json.loads(record_path.read_text(encoding="utf-8"))
    return RunData(directory, record, read_item_outcomes(directory))


def run_folders(path: str | Path) -> list[Path]:
    """``path`` itself where it is a model's folder, else the model folders one level down (``run -o DIR``
    writes DIR/<model>/), never a hidden one (a write under way); none: an empty list."""
    path = Path(path)
    if (path / schema.RUN_RECORD).is_file():
        return [path]
    if not path.is_dir():
        return []
    return sorted(p.parent for p in path.glob(f"*/{schema.RUN_RECORD}") if not p.parent.name.startswith("."))


def find_runs(paths: list[str | Path]) -> list[RunData]:
    """Run directories given directly, or found one level down (``run -o DIR`` writes DIR/<model>/)."""
    runs: list[RunData] = []
    for path in map(Path, paths):
        found = run_folders(path)
        if not found:
            raise ConfigurationError(f"{path} holds no run (no {schema.RUN_RECORD} in it or its subdirectories)")
        runs.extend(read_run(p) for p in found)
    return runs


def run_records(directory: str | Path) -> list[dict]:
    """The run records of the model folders in ``directory`` (``run_folders``), without their outcomes."""
    return [read_record(folder / schema.RUN_RECORD) for folder in run_folders(directory)]


def scored_suite_files(run_dir: str | Path, record: dict) -> dict[str, Path]:
    """Suite name -> its ``suites/NAME.json`` in a model's folder, named as the writer named them (in the
    order of the run record's suites; of two suites with one name, the first)."""
    used: set[str] = set()
    files: dict[str, Path] = {}
    for suite in record.get("suites", []):
        files.setdefault(suite["name"], Path(run_dir) / schema.SCORED_SUITES / suite_file_name(suite["name"], used))
    return files
