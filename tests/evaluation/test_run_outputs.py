import csv
import json

import pytest

from linguagym.errors import OutputError
from linguagym.evaluation.aggregate import read_item_outcomes
from linguagym.evaluation.run import RunSettings, run_suites
from linguagym.evaluation.runfolder.rows import item_outcomes
from linguagym.evaluation.runfolder.writer import write_run
from linguagym.suites import example_suite_paths
from tests.conftest import minimal_suite
from tests.evaluation.fakes import WordScorer


@pytest.fixture
def examples_run():
    scorer = WordScorer(lambda word, index: {"know": 9.0, "knows": 1.0}.get(word, float(index % 3)))
    return run_suites(example_suite_paths(), RunSettings(model="fake"), scorer=scorer), scorer


def test_identical_sentences_are_scored_once(examples_run):
    result, scorer = examples_run
    texts = [text for call in scorer.calls for text in call]
    assert len(texts) == len(set(texts)) == result.unique_sentences
    assert result.sentences == 8 * 4 + 8 * 2 + 8 * 4


def test_outputs(examples_run, tmp_path):
    result, _ = examples_run
    record_path = write_run(result, tmp_path / "out")
    out = record_path.parent
    record = json.loads(record_path.read_text())
    assert record["settings"]["model"] == "fake" and record["settings"]["spacing"] == "natural"
    assert record["scorer"] == {"kind": "fake", "model": "word-scorer"}
    assert record["counts"]["unique_sentences"] == result.unique_sentences
    assert [s["name"] for s in record["suites"]] == ["agreement_across_pp", "npi_ever", "npz_comma"]
    assert all(len(s["sha256"]) == 64 for s in record["suites"])
    agreement = record["suites"][0]
    # "know" is always the surprising verb: the singular contrast holds, the plural one never does
    assert agreement["accuracy"] == 0.0 and agreement["items"] == 8
    [prediction] = agreement["predictions"]
    assert prediction["formula"].startswith("(5;%mismatch_sing%) > (5;%match_sing%) &")
    assert prediction["accuracy"] == 0.0

    with open(out / "items.csv") as handle:
        items = list(csv.DictReader(handle))
    assert len(items) == 24 and list(items[0]) == ["model", "suite", "item", "correct", "correct_all"]
    with open(out / "regions.csv") as handle:
        regions = list(csv.DictReader(handle))
    assert len(regions) == 8 * 4 * 6 + 8 * 2 * 5 + 8 * 4 * 7
    empty = [r for r in regions if r["suite"] == "npz_comma" and r["region_name"] == "comma" and r["content"] == ""]
    assert empty and all(r["sum"] == "0.0" and r["mean"] == "" and r["tokens"] == "0" for r in empty)
    with open(out / "predictions.csv") as handle:
        predictions = list(csv.DictReader(handle))
    assert len(predictions) == 24 and predictions[0]["metric"] == "sum"

    suite_json = json.loads((out / "suites" / "npz_comma.json").read_text())
    assert suite_json["meta"]["model"] == "fake"
    region = suite_json["items"][0]["conditions"][0]["regions"][3]
    assert region["content"] == "" and region["metric_value"] == {"sum": 0.0} and region["oovs"] == []
    npi = json.loads((out / "suites" / "npi_ever.json").read_text())
    assert set(npi["items"][0]["conditions"][0]["regions"][0]["metric_value"]) == {"sum", "mean"}
    assert not list(out.rglob("*.tmp"))


def test_a_bad_suite_stops_the_run_before_scoring(write_suite):
    data = minimal_suite()
    del data["predictions"]
    scorer = WordScorer()
    from linguagym.errors import SuiteError

    with pytest.raises(SuiteError):
        run_suites([*example_suite_paths(), write_suite(data)], RunSettings(model="fake"), scorer=scorer)
    assert scorer.calls == []


def test_failed_write_leaves_no_partial_file(examples_run, tmp_path, monkeypatch):
    result, _ = examples_run
    out = tmp_path / "out"
    write_run(result, out)
    before = (out / "regions.csv").read_text()
    import linguagym.evaluation.runfolder.writer as outputs

    original = outputs._write_csv

    def failing_write(path, header, rows):
        if path.name == "regions.csv":
            def rows_then_fail():
                yield from list(rows)[:3]
                raise OSError("disk full")
            return original(path, header, rows_then_fail())
        return original(path, header, rows)

    monkeypatch.setattr(outputs, "_write_csv", failing_write)
    with pytest.raises(OutputError, match=r"could not write .*out/regions\.csv: disk full"):
        write_run(result, out)
    assert (out / "regions.csv").read_text() == before  # the old file is untouched, not half-overwritten
    assert not list(out.glob(".*.tmp"))
    assert [p.name for p in tmp_path.iterdir()] == ["out"]  # the new folder, half-written, is gone


def test_progress_counts_tokens_and_a_cached_run_has_none_to_score(tiny_lm_dir, tmp_path):
    from linguagym.scoring.registry import load_scorer

    def run_once():
        seen = {}

        def progress(total, unit):
            seen.update(total=total, unit=unit, done=0)

            def advance(n):
                seen["done"] += n

            return advance

        scorer = load_scorer(str(tiny_lm_dir), cache_dir=tmp_path / "cache")
        result = run_suites(example_suite_paths(), RunSettings(model=str(tiny_lm_dir)), scorer=scorer,
                            progress=progress)
        return result, seen

    first, seen = run_once()
    assert seen["unit"] == "tokens" and seen["total"] == first.tokens == seen["done"] > 0
    _, seen = run_once()
    assert seen == {"total": 0, "unit": "tokens", "done": 0}


def test_items_csv_correct_is_the_first_prediction_and_correct_all_every_one(tmp_path):
    # the first prediction holds (swim is the surprising verb), the second never does (equal subjects)
    suite = minimal_suite(predictions=[{"type": "formula", "formula": "(2;%mismatch%) > (2;%match%)"},
                                       {"type": "formula", "formula": "(1;%mismatch%) > (1;%match%)"}])
    path = tmp_path / "two.json"
    path.write_text(json.dumps(suite))
    scorer = WordScorer(lambda word, index: {"swim": 5.0}.get(word, 1.0))
    result = run_suites([path], RunSettings(model="fake"), scorer=scorer)
    out = write_run(result, tmp_path / "out").parent
    with open(out / "items.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert rows and all(r["correct"] == "TRUE" and r["correct_all"] == "FALSE" for r in rows)
    assert read_item_outcomes(out) == item_outcomes(result)  # what is written reads back as it was


def test_scored_suite_files_hold_one_item_a_line(examples_run, tmp_path):
    from linguagym.evaluation.runfolder.writer import scored_suite_json
    from linguagym.evaluation.scored_suites import scored_suite_dict

    result, _ = examples_run
    out = write_run(result, tmp_path / "out").parent
    for suite_result in result.suites:
        data = scored_suite_dict(suite_result, "fake")
        text = (out / "suites" / f"{suite_result.suite.name}.json").read_text()
        assert json.loads(text) == json.loads(json.dumps(data))  # the same document as any dump of it
        lines = text.splitlines()
        assert len(lines) == len(data) + 2 + len(data["items"]) + 1  # braces, one line a key, items, "]"
        assert [json.loads(line.rstrip(",")) for line in lines if line.startswith("  {")] == data["items"]
    odd = {"meta": {"name": "naïve “quoted”"}, "items": [], "predictions": [{"formula": "(1;%a%) < (1;%b%)"}]}
    assert json.loads(scored_suite_json(odd)) == odd and "naïve" in scored_suite_json(odd)
    with pytest.raises(ValueError):
        scored_suite_json({"items": [{"value": float("nan")}]})
