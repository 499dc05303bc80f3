"""The run folder in one place (``evaluation/runfolder``): the files' columns are the schema's, a result held in
memory gives the numbers its folder gives when read back (so ``run_models`` summarizes and reports without reading
its folders), and ``Results.to_pandas`` builds from the in-memory rows exactly the frames reading the CSV files
gives, types included."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from linguagym.evaluation import summary
from linguagym.evaluation.model_runs import run_models
from linguagym.evaluation.results import Results, import_pandas, read_csv_frame
from linguagym.evaluation.run import RunSettings
from linguagym.evaluation.runfolder import reader, schema
from linguagym.evaluation.runfolder.reader import held_run, read_run
from linguagym.evaluation.summary import SummarySettings, summarize_runs
from linguagym.suites import example_suite_paths, read_suite
from linguagym.suites.load import parse_suite_data
from tests.evaluation.fakes import WordScorer
from tests.evaluation.test_crossing_tokens import DOTS, SURPRISAL, dotted_suite

SUMMARY = SummarySettings(bootstrap=20)


def _suites():
    """The example suites, a suite whose crossing token leaves regions and predictions undefined (empty cells,
    ``crossing`` notes under ``split``), and one whose names look like numbers (text columns stay text)."""
    dotted = parse_suite_data(dotted_suite(predictions=("(4;%a%) > (4;%b%)", "(2;%a%) = (2;%b%)",
                                                        "mean((2;%a%) - (2;%b%)) > 0"))).suite
    numeric = dotted_suite()
    numeric["meta"]["name"] = "1"
    for item in numeric["items"]:
        for condition, name in zip(item["conditions"], ("10", "20"), strict=True):
            condition["condition_name"] = name
    numeric["predictions"] = [{"type": "formula", "formula": "(1;%10%) = (1;%20%)"}]
    return [*(read_suite(p).suite for p in example_suite_paths()), dotted, parse_suite_data(numeric).suite]


def _scorers(settings: RunSettings) -> WordScorer:
    scale = 2.0 if settings.model == "b" else 1.0
    return WordScorer(lambda word, index: scale * SURPRISAL.get(word, len(word) + index % 3), pattern=DOTS)


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("out")
    settings = [RunSettings(model="a"), RunSettings(model="b", crossing="split")]
    return run_models(_suites(), settings, output=out, scorers=_scorers, summary=SUMMARY), out


def test_every_csv_file_has_the_schemas_columns(written):
    runs, _ = written
    for result in runs:
        for kind, name in schema.FILES.items():
            with (result.directory / name).open(newline="", encoding="utf-8") as handle:
                assert tuple(next(csv.reader(handle))) == schema.COLUMNS[kind], (result.label, name)
        assert (result.directory / schema.RUN_RECORD).is_file()
        assert len(list((result.directory / schema.SCORED_SUITES).glob("*.json"))) == len(result.suites)


def _cells(effects) -> list[tuple]:
    """Effects as comparable tuples (NaN as None: NaN equals nothing)."""
    from dataclasses import astuple

    return [tuple(None if v != v else v for v in (*astuple(e), e.effect)) for e in effects]


def test_model_folders_never_take_the_names_of_what_a_run_writes_beside_them():
    from linguagym.names import RUN_LEVEL_NAMES, model_folders

    assert set(RUN_LEVEL_NAMES) == {schema.REPORT, schema.PLOTS}  # names.py is below evaluation: it keeps its own
    assert set(model_folders([schema.PLOTS, "m"]).values()).isdisjoint(RUN_LEVEL_NAMES)


def test_a_result_held_in_memory_gives_the_numbers_of_its_folder_read_back(written):
    runs, _ = written
    for result in runs:
        held, read = held_run(result, regions=True), read_run(result.directory)
        assert held.directory == read.directory and held.model == read.model and held.sums == read.sums
        assert held.record == read.record
        assert held.outcomes == read.outcomes
        assert held.predictions() == read.predictions()
        assert held.suite_level_rows() == read.suite_level_rows() and read.suite_level_rows()
        assert held.regions() == read.regions()  # compared as data: NaN-free means (empty regions are left out)
        assert held.held_regions is not None and read.held_regions is None
        assert _cells(held.effects()) == _cells(read.effects()) and held.effects()  # effects.csv reads back exactly


def test_run_models_summarizes_and_reports_without_reading_its_folders_back(tmp_path, monkeypatch, written):
    def refuse(*args, **kwargs):
        raise AssertionError("run_models read a run folder back")

    for name in ("read_run", "find_runs", "read_record", "run_records", "read_item_outcomes"):
        monkeypatch.setattr(reader, name, refuse)
    monkeypatch.setattr(summary, "find_runs", refuse)
    monkeypatch.setattr(reader.RunData, "region_rows", refuse)
    monkeypatch.setattr(reader.RunData, "prediction_rows", refuse)
    settings = [RunSettings(model="a"), RunSettings(model="b", crossing="split")]
    done = run_models(_suites(), settings, output=tmp_path, scorers=_scorers, summary=SUMMARY, keep_scores=False)
    monkeypatch.undo()
    assert done.report == tmp_path / schema.REPORT and done.report.is_file()
    assert [run.directory for run in done.runs] == [result.directory for result in done]
    # the numbers reading the folders gives, and the report the earlier run (which kept its scores) wrote
    _, from_folders = summarize_runs([tmp_path], SUMMARY)
    assert done.summary == from_folders
    earlier, out = written
    assert done.summary == earlier.summary
    plots = sorted(p.name for p in (tmp_path / schema.PLOTS).iterdir())
    assert plots == sorted(p.name for p in (out / schema.PLOTS).iterdir()) and len(plots) > 3
    assert all((tmp_path / schema.PLOTS / name).read_bytes() == (out / schema.PLOTS / name).read_bytes()
               for name in plots)


@pytest.mark.parametrize("kind", ["items", "predictions", "regions", "effects", "long", "suite_predictions"])
def test_to_pandas_is_the_csv_file_read_with_its_types(written, kind):
    pd = pytest.importorskip("pandas")
    runs, _ = written
    frame = Results(runs).to_pandas(kind)
    files = pd.concat([read_csv_frame(pd, result.directory / schema.FILES[kind]) for result in runs],
                      ignore_index=True)
    pd.testing.assert_frame_equal(frame, files, check_exact=True)  # dtypes too: the schema's types are read_csv's
    assert len(frame) > 0
    if kind == "regions":
        assert frame["crossing"].notna().any() and frame["crossing"].isna().any()  # both kinds of cell covered
        assert frame["sum"].isna().any()  # an undefined region: an empty cell, NaN in both
        assert frame["condition"].isin(["10", "20"]).any()  # a numeric-looking name stays text
    if kind == "predictions":
        assert frame["undefined"].any() and not frame["undefined"].all() and (frame["suite"] == "1").any()
    if kind == "long":  # a logical crossing flag, integer counts, an undefined value missing
        assert frame["crossed"].dtype == bool and frame["crossed"].any() and not frame["crossed"].all()
        assert frame["unknown_tokens"].dtype == "int64" and frame["value"].isna().any()
    if kind == "suite_predictions":
        assert frame["holds"].dtype == bool and frame["items"].dtype == "int64"


def test_to_pandas_of_no_results_is_an_empty_frame():
    pytest.importorskip("pandas")
    empty = Results(run_models([], [], summary=None))
    assert empty.to_pandas("items").empty
    assert import_pandas().DataFrame().equals(empty.to_pandas("regions"))


def test_reader_names_a_folder_without_a_run(tmp_path: Path):
    from linguagym.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match="holds no run"):
        reader.find_runs([tmp_path])
    assert reader.run_records(tmp_path) == [] and reader.run_folders(tmp_path / "missing") == []
