"""Tidy exports (#37, #39): docs/data-dictionary.md says every run-folder column the schema has, with its type; the
files hold what it says (logical TRUE/FALSE, integers, numbers or empty, text); pandas (and R, where installed)
read the long table with those types; long.parquet carries them; and files of earlier versions (True/False) read as
before."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from linguagym.evaluation.aggregate import read_item_outcomes
from linguagym.evaluation.item_table import read_item_table
from linguagym.evaluation.run import RunSettings, run_suites
from linguagym.evaluation.runfolder import schema
from linguagym.evaluation.runfolder.reader import read_run
from linguagym.evaluation.runfolder.writer import write_run
from tests.evaluation.test_suite_level import agreement_suite, scorer

DICTIONARY = Path(__file__).resolve().parents[2] / "docs" / "data-dictionary.md"
TYPES = {"integer": schema.INTEGER_COLUMNS, "logical": schema.BOOLEAN_COLUMNS, "number": schema.FLOAT_COLUMNS}


def dictionary() -> dict[str, list[tuple[str, str]]]:
    """File name -> its (column, type) rows, from the page's '## NAME.csv' sections."""
    tables: dict[str, list[tuple[str, str]]] = {}
    current = None
    for line in DICTIONARY.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            current = line[3:].strip() if line.strip().endswith(".csv") else None
            if current is not None:
                tables[current] = []
        elif current and line.startswith("| ") and not line.startswith("| column") and not line.startswith("|---"):
            cells = [cell.strip() for cell in line.strip("|").split("|")]
            tables[current].append((cells[0], cells[1]))
    return tables


def schema_type(column: str) -> str:
    return next((name for name, columns in TYPES.items() if column in columns), "text")


def test_the_data_dictionary_lists_every_run_file_column_in_order_with_the_schemas_type():
    tables = dictionary()
    assert set(schema.FILES.values()) <= set(tables)
    for kind, name in schema.FILES.items():
        assert [column for column, _ in tables[name]] == list(schema.COLUMNS[kind]), name
        assert all(kind_ == schema_type(column) for column, kind_ in tables[name]), name


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run folder with a suite-level prediction, an undefined value (an empty region under mean) and both
    outcomes."""
    tmp = tmp_path_factory.mktemp("tidy")
    data = agreement_suite("mean((2;%mismatch%) - (2;%match%)) > 0")
    data["meta"]["metric"] = ["mean", "sum"]
    data["items"][1]["conditions"][0]["regions"][2]["content"] = ""  # item 2, match: region 3 empty, mean undefined
    path = tmp / "agreement.json"
    path.write_text(json.dumps(data))
    return write_run(run_suites([path], RunSettings(model="fake"), scorer=scorer()), tmp / "out").parent


CELL = {"integer": re.compile(r"-?[0-9]+"), "logical": re.compile(r"TRUE|FALSE"),
        "number": re.compile(r"|-?[0-9]+\.[0-9]*(e[+-]?[0-9]+)?|-?[0-9]+e[+-]?[0-9]+|nan|-?inf")}


def test_every_cell_of_every_file_is_what_the_dictionary_says(folder: Path):
    tables = dictionary()
    for name in schema.FILES.values():
        types = dict(tables[name])
        with open(folder / name, newline="", encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
        assert rows, name
        for row in rows:
            for column, cell in row.items():
                pattern = CELL.get(types[column])
                assert pattern is None or pattern.fullmatch(cell), (name, column, cell)
                if types[column] in ("integer", "logical"):
                    assert cell != "", (name, column)  # never empty
    with open(folder / schema.LONG, newline="") as handle:
        assert any(row["value"] == "" for row in csv.DictReader(handle))  # the undefined mean is covered


def test_pandas_reads_the_long_table_with_its_types_without_being_told(folder: Path):
    pd = pytest.importorskip("pandas")
    frame = pd.read_csv(folder / schema.LONG)  # no dtype, no true_values: pandas' defaults
    for column in schema.LONG_COLUMNS:
        kind = schema_type(column)
        expected = {"integer": "int64", "logical": "bool", "number": "float64"}.get(kind)
        if expected:
            assert str(frame[column].dtype) == expected, column
    assert frame["correct"].tolist().count(True) == frame["correct"].sum() > 0


@pytest.mark.skipif(shutil.which("Rscript") is None, reason="R is not installed")
def test_r_reads_the_long_table_with_its_types(folder: Path):
    script = f'x <- read.csv("{folder / schema.LONG}"); cat(paste(names(x), sapply(x, class), sep="=", collapse=" "))'
    out = subprocess.run(["Rscript", "-e", script], capture_output=True, text=True, check=True, timeout=120).stdout
    classes = dict(pair.split("=") for pair in out.split())
    expected = {"integer": "integer", "logical": "logical", "number": "numeric", "text": "character"}
    assert classes == {column: expected[schema_type(column)] for column in schema.LONG_COLUMNS}


def test_the_parquet_long_table_carries_the_column_types(folder: Path):
    pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    table = pq.read_table(folder / schema.LONG_PARQUET)
    assert table.column_names == list(schema.LONG_COLUMNS)
    arrow = {"integer": "int64", "logical": "bool", "number": "double", "text": "string"}
    assert {f.name: str(f.type) for f in table.schema} == {c: arrow[schema_type(c)] for c in schema.LONG_COLUMNS}
    with open(folder / schema.LONG, newline="") as handle:
        rows = list(csv.DictReader(handle))
    values = table.column("value").to_pylist()
    assert [None if row["value"] == "" else float(row["value"]) for row in rows] == values
    assert table.column("content").to_pylist() == [row["content"] for row in rows]  # an empty region stays ""


def test_without_pyarrow_no_parquet_file_is_written(folder: Path):
    from linguagym.evaluation.runfolder.parquet import pyarrow_installed

    assert (folder / schema.LONG_PARQUET).is_file() == pyarrow_installed()


def test_files_of_earlier_versions_with_true_and_false_read_as_before(folder: Path, tmp_path: Path):
    old = tmp_path / "old"
    shutil.copytree(folder, old)
    for name in (schema.PREDICTIONS, schema.ITEMS, schema.TOKENS):
        text = (old / name).read_text()
        (old / name).write_text(re.sub(r"(?<=,)TRUE(?=,|\r?$)", "True", re.sub(r"(?<=,)FALSE(?=,|\r?$)", "False",
                                                                              text, flags=re.M), flags=re.M))
    assert "True" in (old / schema.ITEMS).read_text() and "TRUE" not in (old / schema.ITEMS).read_text()
    new_run, old_run = read_run(folder), read_run(old)
    assert new_run.outcomes == old_run.outcomes == read_item_outcomes(old)
    assert new_run.predictions() == old_run.predictions() and any(share for _, share in
                                                                   new_run.predictions()["tiny"])
    [suite] = {row["suite"] for row in new_run.prediction_rows()}
    assert read_item_table([new_run], suite) == read_item_table([old_run], suite)


def test_the_long_table_is_regions_csv_with_the_value_predictions_use_and_the_items_outcome(folder: Path):
    with open(folder / schema.REGIONS, newline="") as handle:
        regions = list(csv.DictReader(handle))
    with open(folder / schema.LONG, newline="") as handle:
        long = list(csv.DictReader(handle))
    with open(folder / schema.ITEMS, newline="") as handle:
        items = {row["item"]: row for row in csv.DictReader(handle)}
    assert len(long) == len(regions)
    for region, row in zip(regions, long, strict=True):
        assert all(row[c] == region[c] for c in schema.REGION_COLUMNS if c != "crossing")
        assert row["metric"] == "mean" and row["value"] == row["mean"]
        assert row["crossed"] == ("TRUE" if region["crossing"] else "FALSE")
        item = items[row["item"]]
        assert (row["correct"], row["correct_all"]) == (item["correct"], item["correct_all"])


def test_the_dictionary_lists_the_accuracy_tables_columns_as_run_csv_writes_them():
    import io

    from linguagym.evaluation.aggregate import ItemOutcome, summarize
    from linguagym.evaluation.collections import covering_collection
    from linguagym.evaluation.tables import summary_csv

    outcomes = [ItemOutcome("m", "s", item, True, item % 2 == 0) for item in range(1, 5)]
    text = io.StringIO()
    summary_csv(summarize(outcomes, covering_collection(["s"]), bootstrap=10), text)
    header = next(csv.reader(io.StringIO(text.getvalue())))
    section = DICTIONARY.read_text(encoding="utf-8").split("## run --csv FILE")[1].split("\n## ")[0]
    rows = [line.strip("|").split("|") for line in section.splitlines() if line.startswith("| ")][1:]
    assert [cells[0].strip() for cells in rows] == header


def test_the_dictionary_holds_the_paired_comparison_tables_to_their_columns_and_cells(tmp_path: Path):
    """paired.csv and paired-effects.csv (``compare --paired-csv/--paired-effects-csv``, the web's Compare page):
    the page lists each table's ``COLUMNS`` in order, and every cell written is of the page's type (empty only where
    the page says when)."""
    from linguagym.evaluation import comparison, effect_comparison
    from linguagym.evaluation.summary import SummarySettings
    from tests.evaluation.test_effect_comparison import ALPHA, BETA, _run_folder

    one, two = _run_folder(tmp_path / "r1", "alpha", ALPHA), _run_folder(tmp_path / "r2", "beta", BETA)
    settings = SummarySettings(bootstrap=50)
    texts = {"paired.csv": comparison.compare_models([one, two], settings).csv_text()
             + "".join(comparison.compare_models([one, two], settings, per_prediction=True).csv_text()
                       .splitlines(keepends=True)[1:]),
             "paired-effects.csv": effect_comparison.compare_model_effects([one, two], settings).csv_text()}
    columns = {"paired.csv": comparison.COLUMNS, "paired-effects.csv": effect_comparison.COLUMNS}
    tables = dictionary()
    section = DICTIONARY.read_text(encoding="utf-8")
    for name, text in texts.items():
        assert [column for column, _ in tables[name]] == list(columns[name]), name
        types = dict(tables[name])
        body = section.split(f"## {name}\n")[1].split("\n## ")[0]
        may_be_empty = {cells[0].strip() for cells in (line.strip("|").split("|") for line in body.splitlines()
                                                       if line.startswith("| "))
                        if cells[-1].strip() != "never empty"}
        rows = list(csv.DictReader(io.StringIO(text)))
        assert len(rows) >= 3 and tuple(rows[0]) == columns[name], name
        for row in rows:
            for column, cell in row.items():
                if cell == "":
                    assert column in may_be_empty, (name, column)
                    continue
                pattern = CELL.get(types[column])
                assert pattern is None or pattern.fullmatch(cell), (name, column, cell)


def test_run_json_records_how_the_effects_and_suite_level_predictions_were_made(folder: Path):
    from linguagym.evaluation import suite_level

    derived = json.loads((folder / "run.json").read_text(encoding="utf-8"))["derived"]
    for kind in ("effects", "suite_predictions"):
        with open(folder / derived[kind]["file"], newline="", encoding="utf-8") as handle:
            assert derived[kind]["rows"] == len(list(csv.DictReader(handle))) > 0, kind
    assert (derived["suite_predictions"]["bootstrap"], derived["suite_predictions"]["seed"]) == (
        suite_level.BOOTSTRAP, suite_level.SEED) == (1000, 0)
