"""Source sentences: each classifier's accuracy on the dataset sentences the tests were made from, and the failure
rates among tests whose source it classified correctly, in every output (results.json, CSVs, HTML, the CLI)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from linguagym.capabilities.reports.results import read_tests_csv, write_results, write_tests_csv
from linguagym.capabilities.testfile import load_document
from linguagym.capabilities.testing.classifier_run import run_tests, source_sentences, unique_texts
from linguagym.capabilities.testing.failures import SOURCE_DEFINITION, summarize, summary_table
from tests.capabilities.lct_fakes import KeywordClassifier, capability_file
from tests.capabilities.source_fixture import (
    EXPECTED_OVERALL,
    EXPECTED_SOURCES,
    SOURCES_NOT_TESTS,
    UNIQUE_TEXTS,
    source_document,
)
from tests.capabilities.test_cli_test import KEYWORDS, _main

ROWS = ["LC2", "LC6", "all"]


def _document():
    return load_document(source_document(), "sources")


def _summary():
    doc = _document()
    run = run_tests(doc, KeywordClassifier())
    return summarize(run.outcomes, doc.capabilities, classifier="keywords")


def test_sources_are_the_s_rows_with_a_gold_label_and_an_expansion_falls_back_to_its_seed():
    sources = source_sentences(_document())
    assert sources["LC6/1/1/x1"] == sources["LC6/1/1"] == ("A good film.", "positive")  # x1 names no rows
    assert "LC2/1/4" not in sources and "LC2/1/5" not in sources  # no gold label; a row in slot P only
    assert len(sources) == 9


def test_sources_are_predicted_in_the_same_batch_as_the_tests():
    classifier = KeywordClassifier()
    run = run_tests(_document(), classifier)
    assert run.unique_texts == len(unique_texts(_document())) == UNIQUE_TEXTS
    (batch,) = classifier.calls
    assert batch[-2:] == SOURCES_NOT_TESTS and len(batch) == len(set(batch)) == UNIQUE_TEXTS
    by_id = {o.id: o for o in run.outcomes}
    assert (by_id["LC6/1/2"].source_predicted, by_id["LC6/1/2"].source_correct) == ("negative", False)
    assert by_id["LC6/1/1/x2"].source_correct is True and by_id["LC2/1/4"].source_correct is None


def test_source_accuracy_and_failures_given_a_right_source_match_the_hand_count():
    summary = _summary()
    rows = {**summary.by_id(), "all": summary.total}
    for cid in ROWS:
        sources, right, seeds, seeds_failed, expansions, expansions_failed = EXPECTED_SOURCES[cid]
        row = rows[cid]
        assert (row.sources.total, row.sources.correct) == (sources, right), cid
        assert (row.seeds_source_right.total, row.seeds_source_right.failed) == (seeds, seeds_failed), cid
        assert (row.expansions_source_right.total, row.expansions_source_right.failed) == (expansions,
                                                                                            expansions_failed), cid
        assert (row.tests_source_right.total, row.tests_source_right.failed) == (seeds + expansions,
                                                                              seeds_failed + expansions_failed)
        assert ((row.seeds.failed, row.seeds.total), (row.expansions.failed, row.expansions.total)) \
            == EXPECTED_OVERALL[cid]
    # the classifier that only looks good: LC6 seeds fail 66.7% overall but 100% where the source was read right
    assert rows["LC6"].seeds.percent() == "66.7" and rows["LC6"].seeds_source_right.percent() == "100.0"


def test_the_table_shows_source_columns_only_where_tests_have_sources():
    header, rows = summary_table({"keywords": _summary()})
    assert [name for _, name in header[-3:]] == ["source acc. %", "seed fail %, source right",
                                                 "exp. fail %, source right"]
    assert {row[0]: row[-3:] for row in rows} == {"LC2": ["66.7 (2/3)", "0.0", "-"],
                                                  "LC6": ["33.3 (1/3)", "100.0", "50.0"],
                                                  "all": ["40.0 (2/5)", "33.3", "50.0"]}
    run = run_tests(capability_file(), KeywordClassifier())  # a file whose tests name no sources
    header, _ = summary_table({"k": summarize(run.outcomes)})
    assert len(header) == 4 + 3


@pytest.fixture
def written(tmp_path: Path):
    path = tmp_path / "tests.json"
    path.write_text(json.dumps(source_document()), encoding="utf-8")
    doc = _document()
    run = run_tests(doc, KeywordClassifier())
    return write_results(doc, path, [run], tmp_path / "out"), run


def test_results_json_records_the_numbers_and_how_sources_were_found(written):
    out, _ = written
    record = json.loads(out.record.read_text(encoding="utf-8"))
    assert record["sources"]["definition"] == SOURCE_DEFINITION
    assert "slot S" in record["sources"]["found_as"] and "gold label" in record["sources"]["found_as"]
    assert (record["sources"]["tests_with_source"], record["sources"]["distinct_sources"]) == (9, 5)
    (entry,) = record["classifiers"]
    assert entry["unique_texts"] == UNIQUE_TEXTS
    numbers = {c["id"]: c for c in [*entry["capabilities"], entry["total"]]}
    for cid in ROWS:
        sources, right, seeds, seeds_failed, expansions, expansions_failed = EXPECTED_SOURCES[cid]
        assert numbers[cid]["sources"] == {"correct": right, "total": sources, "accuracy": right / sources}
        assert (numbers[cid]["seeds_source_right"]["failed"], numbers[cid]["seeds_source_right"]["total"]) \
            == (seeds_failed, seeds)
        assert (numbers[cid]["expansions_source_right"]["failed"],
                numbers[cid]["expansions_source_right"]["total"]) == (expansions_failed, expansions)
        assert numbers[cid]["tests_source_right"]["total"] == seeds + expansions


def test_csvs_carry_each_source_and_the_numbers(written, tmp_path):
    out, run = written
    folder = out.classifier_directories["keywords"]
    tests = {row["id"]: row for row in csv.DictReader((folder / "tests.csv").open(encoding="utf-8"))}
    assert (tests["LC6/1/2/x1"]["source"], tests["LC6/1/2/x1"]["source_label"],
            tests["LC6/1/2/x1"]["source_predicted"]) == ("A fine film that I hate.", "positive", "negative")
    assert tests["LC2/1/4"]["source"] == tests["LC2/1/4"]["source_predicted"] == ""
    summary = {row["capability"]: row for row in csv.DictReader((out.directory / "summary.csv").open(encoding="utf-8"))}
    assert (summary["LC6"]["sources"], summary["LC6"]["sources_correct"], summary["LC6"]["source_accuracy"]) \
        == ("3", "1", "0.333333")
    assert (summary["LC6"]["seed_failures_source_right"], summary["LC6"]["seeds_source_right"],
            summary["LC6"]["seed_fail_rate_source_right"]) == ("1", "1", "1.0")
    assert (summary["all"]["expansion_failures_source_right"], summary["all"]["expansions_source_right"],
            summary["all"]["expansion_fail_rate_source_right"]) == ("1", "2", "0.5")
    assert summary["LC2"]["expansion_fail_rate_source_right"] == ""  # no tests: empty, not 0
    # read back (the web app's way), the same numbers
    again = summarize(read_tests_csv(folder / "tests.csv"), _document().capabilities)
    assert again == summarize(run.outcomes, _document().capabilities)


def test_a_tests_csv_without_source_columns_still_reads(tmp_path):
    run = run_tests(capability_file(), KeywordClassifier())
    write_tests_csv(run, tmp_path / "tests.csv")
    rows = list(csv.reader((tmp_path / "tests.csv").open(encoding="utf-8")))
    old = tmp_path / "old.csv"
    with old.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(row[:11] for row in rows)  # as written before sources were recorded
    assert [o.source for o in read_tests_csv(old)] == [None] * len(run.outcomes)


def test_the_report_shows_source_accuracy_and_the_definition(written):
    out, _ = written
    page = out.report.read_text(encoding="utf-8")
    summary = page[page.index("id=summary"):page.index("id=classifiers")]
    assert "<th>source acc. %</th>" in summary and "colspan=6" in summary
    assert "<td>40.0 (2/5)</td>" in summary and "<td title='1 of 1'>100.0" in summary
    assert "Source accuracy = share of distinct source sentences" in summary
    assert "source accuracy 33.3% (1 of 3), 66.7% of tests fail where the source is read right" in page


def _cli(tmp_path: Path, *extra: str) -> int:
    path = tmp_path / "tests.json"
    path.write_text(json.dumps(source_document()), encoding="utf-8")
    return _main(["test", str(path), "-o", str(tmp_path / "out"), "--cache-dir", str(tmp_path / "cache"),
                  "-c", KEYWORDS, *extra])


def test_the_cli_prints_the_source_columns(tmp_path, capsys):
    assert _cli(tmp_path, "--csv") == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert rows[0][-3:] == [f"{KEYWORDS} source acc. %", f"{KEYWORDS} seed fail %, source right",
                            f"{KEYWORDS} exp. fail %, source right"]
    assert {row[0]: row[-3:] for row in rows[1:]}["LC6"] == ["33.3 (1/3)", "100.0", "50.0"]
    assert _cli(tmp_path, "--markdown") == 0
    out = capsys.readouterr().out
    assert "| all | all capabilities | 8 | 3 | 37.5 | 33.3 | 0/1 | 40.0 (2/5) | 33.3 | 50.0 |" in out
    assert out.rstrip().endswith("those tests.") and "Source accuracy = " in out
    assert _cli(tmp_path) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "40.0 (2/5)" in out and "Source accuracy = share of distinct source sentences" in out
