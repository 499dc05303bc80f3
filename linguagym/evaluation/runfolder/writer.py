"""Writing a model's run folder (``schema`` names its files and columns): each file whole or not at all, the run
record last, the folder itself swapped in whole; and the checks that a destination can take a run's files.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from linguagym.atomic import atomic_directory, atomic_open, atomic_write_text
from linguagym.destinations import check_folder, check_replaceable
from linguagym.evaluation.lm_eval_results import lm_eval_results_json, results_file_name
from linguagym.evaluation.run import RunResult
from linguagym.evaluation.runfolder import schema
from linguagym.evaluation.runfolder.rows import (
    effect_rows,
    item_rows,
    long_rows,
    model_label,
    prediction_rows,
    region_rows,
    run_record_json,
    suite_prediction_rows,
    token_rows,
)
from linguagym.evaluation.scored_suites import scored_suite_dict
from linguagym.names import safe_name, short_model_name, suite_file_name

if TYPE_CHECKING:
    from linguagym.evaluation.summary import SummarySettings


def _value(x: float) -> float | str:
    return "" if math.isnan(x) else x


def _write_csv(path: Path, header: list[str], rows) -> None:
    logical = [index for index, column in enumerate(header) if column in schema.BOOLEAN_COLUMNS]
    with atomic_open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(_logical_cells(rows, logical) if logical else rows)


def _logical_cells(rows: Iterable[Sequence], at: list[int]) -> Iterator[list]:
    """The rows with their logical cells written TRUE/FALSE, which R's read.csv reads as logical (it reads Python's
    True/False as text); pandas reads both."""
    for row in rows:
        cells = list(row)
        for index in at:
            cells[index] = schema.TRUE if cells[index] else schema.FALSE
        yield cells


def write_predictions(result: RunResult, path: Path) -> None:
    _write_csv(path, list(schema.PREDICTION_COLUMNS), prediction_rows(result))


def write_effects(result: RunResult, path: Path) -> None:
    _write_csv(path, list(schema.EFFECT_COLUMNS), effect_rows(result))


def write_items(result: RunResult, path: Path) -> None:
    _write_csv(path, list(schema.ITEM_COLUMNS), item_rows(result))


def write_regions(result: RunResult, path: Path) -> None:
    _write_csv(path, list(schema.REGION_COLUMNS), region_rows(result))


def write_suite_predictions(result: RunResult, path: Path) -> None:
    _write_csv(path, list(schema.SUITE_PREDICTION_COLUMNS), suite_prediction_rows(result))


def write_long(result: RunResult, path: Path) -> None:
    _write_csv(path, list(schema.LONG_COLUMNS), long_rows(result))


def write_long_parquet(result: RunResult, path: Path) -> bool:
    """``long.parquet``, the long table with its column types, where pyarrow is installed (the ``parquet`` extra);
    returns whether it was written."""
    from linguagym.evaluation.runfolder.parquet import pyarrow_installed, write_parquet

    if not pyarrow_installed():
        return False
    write_parquet(path, schema.LONG_COLUMNS, long_rows(result))
    return True


def write_tokens(result: RunResult, path: Path) -> None:
    # what the web app's item page shows on demand; regions.csv holds the values predictions are evaluated on
    rows = (row[:11] + (_value(row[11]), row[12]) for row in token_rows([result]))
    _write_csv(path, list(schema.TOKEN_COLUMNS), rows)


def write_model_folder(result: RunResult, directory: Path, summary: SummarySettings | None = None) -> Path:
    """A model's folder, as ``run_models`` writes it: ``write_run``'s files and, beside them, its results as
    lm-evaluation-harness lays them out (``summary``: their collection and intervals); returns the folder."""
    folder = write_run(result, directory).parent
    atomic_write_text(folder / results_file_name(datetime.now()), lm_eval_results_json(result, summary))
    return folder


def write_run(result: RunResult, out_dir: str | Path) -> Path:
    """Write every output file of a run into ``out_dir``, whole: into a fresh hidden folder beside it, which then
    takes the place of an earlier run's folder (so no stale file of that run stays); returns the run record's
    path. A folder that is not a run's is never replaced."""
    out = Path(out_dir)
    check_run_folder(out)
    with atomic_directory(out) as work:
        _write_run_files(result, work)
    return out / schema.RUN_RECORD


def _write_run_files(result: RunResult, out: Path) -> None:
    write_predictions(result, out / schema.PREDICTIONS)
    write_items(result, out / schema.ITEMS)
    write_effects(result, out / schema.EFFECTS)
    write_regions(result, out / schema.REGIONS)
    write_tokens(result, out / schema.TOKENS)
    write_suite_predictions(result, out / schema.SUITE_PREDICTIONS)  # (its header alone where no suite has any)
    write_long(result, out / schema.LONG)
    write_long_parquet(result, out / schema.LONG_PARQUET)
    used: set[str] = set()
    for suite_result in result.suites:
        data = scored_suite_dict(suite_result, model_label(result))  # syntaxgym-core reads it
        atomic_write_text(out / schema.SCORED_SUITES / suite_file_name(suite_result.suite.name, used),
                          scored_suite_json(data))
    atomic_write_text(out / schema.RUN_RECORD, run_record_json(result))


def scored_suite_json(data: dict) -> str:
    """A scored suite as JSON text: each top-level entry on a line of its own, and each item of ``items`` too.

    Readable and greppable item by item, and written by the json module's C encoder: an indented dump goes through
    its pure-Python one, 0.56 s against 0.10 s for the 34 suites, once for every model (checkpoint) of a run."""

    def dumped(value: object) -> str:
        return json.dumps(value, ensure_ascii=False, allow_nan=False)

    lines = []
    for key, value in data.items():
        if key == "items" and isinstance(value, list) and value:
            items = ",\n  ".join(dumped(item) for item in value)
            lines.append(f" {dumped(key)}: [\n  {items}\n ]")
        else:
            lines.append(f" {dumped(key)}: {dumped(value)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def check_run_folder(path: Path) -> None:
    """``path`` can take a run's files: its parent can be written into, and it is absent, empty or an earlier
    run's folder (which is replaced whole)."""
    check_folder(path.parent)
    _check_replaceable(path)


def check_run_destination(out_dir: str | Path, folders: Iterable[str]) -> None:
    """Before any scoring: ``out_dir`` can be written into, and each model folder in it can take a run's files."""
    out = Path(out_dir)
    check_folder(out)
    for folder in folders:
        _check_replaceable(out / folder)


def _check_replaceable(path: Path) -> None:
    check_replaceable(path, lambda folder: "is not a linguagym run folder (it holds no run.json)"
                      if not (folder / schema.RUN_RECORD).is_file() and any(folder.iterdir()) else None,
                      "a run's results")


def model_directory(out_dir: str | Path, model: str) -> Path:
    """Where a run of ``model`` goes inside ``out_dir``: a folder named after the model (paths shortened to
    their last part, unsafe characters replaced)."""
    return Path(out_dir) / safe_name(short_model_name(model), "model")
