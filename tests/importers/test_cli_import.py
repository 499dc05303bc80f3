"""``linguagym import``: files in, suite files out (whole, or none on bad input); and BLiMP end to end through
``linguagym run --collection`` on the tiny offline model, scored per phenomenon."""

import csv
import json

from linguagym.cli.entry import main
from linguagym.evaluation.collections import load_collection
from linguagym.suites.load import load_suite


def test_import_blimp_writes_suites_and_a_collection(blimp_files, tmp_path, capsys):
    out = tmp_path / "blimp"
    assert main(["import", "blimp", *map(str, blimp_files), "-o", str(out), "--collection", "mine"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["anaphor_gender_agreement.json", "animate_subject_passive.json",
                                                      "mine.toml", "passive_1.json"]
    assert load_suite(out / "passive_1.json").meta.extra["phenomenon"] == "argument_structure"
    collection = load_collection(out / "mine.toml")
    assert collection.name == "mine" and len(collection.groups) == 2
    err = capsys.readouterr().err
    assert "wrote 3 suites" in err and f"--collection {out / 'mine.toml'} --suites-dir {out}" in err


def test_bad_input_writes_nothing_and_shows_no_traceback(blimp_files, tmp_path, capsys):
    bad = tmp_path / "broken.jsonl"
    bad.write_text(blimp_files[0].read_text() + "{not json\n")
    out = tmp_path / "out"
    assert main(["import", "blimp", str(blimp_files[2]), str(bad), "-o", str(out), "--collection", "b"]) == 1
    err = capsys.readouterr().err
    assert f"{bad}:3: invalid JSON" in err and "Traceback" not in err
    assert not out.exists() or not any(out.iterdir())  # the good file before it was not written either


def test_import_pairs_and_table(tmp_path, capsys):
    pairs = tmp_path / "mine.csv"
    pairs.write_text("good,bad\nThe cat sleeps.,The cat sleep.\n")
    table = tmp_path / "number.tsv"
    table.write_text("item\tcondition\tsubject\tverb\n1\tmatch\tThe boy\tswims\n1\tmismatch\tThe boy\tswim\n")
    out = tmp_path / "out"
    assert main(["import", "pairs", str(pairs), "-o", str(out)]) == 0
    assert main(["import", "table", str(table), "-o", str(out), "--prediction", "(2;%mismatch%) > (2;%match%)"]) == 0
    assert load_suite(out / "mine.json").condition_names == ("good", "bad")
    assert load_suite(out / "number.json").region_names == ("subject", "verb")
    assert main(["import", "pairs", str(pairs), str(pairs), "--name", "x", "-o", str(out)]) == 1
    assert "--name names one suite" in capsys.readouterr().err


def test_blimp_end_to_end_accuracy_per_phenomenon(blimp_files, tiny_lm_dir, tmp_path, capsys):
    suites = tmp_path / "blimp"
    assert main(["import", "blimp", *map(str, blimp_files), "-o", str(suites), "--collection", "blimp"]) == 0
    results = tmp_path / "results"
    assert main(["run", "--model", str(tiny_lm_dir), "--collection", str(suites / "blimp.toml"), "--suites-dir",
                 str(suites), "--bootstrap", "0", "--cache-dir", str(tmp_path / "cache"), "-o", str(results)]) == 0
    table = capsys.readouterr().out
    assert "Anaphor agreement (Ana. agr)" in table and "Argument structure (Arg. str)" in table
    [record_path] = results.glob("*/run.json")
    record = json.loads(record_path.read_text())
    accuracy = {s["name"]: s["accuracy"] for s in record["suites"]}
    assert set(accuracy) == {"anaphor_gender_agreement", "animate_subject_passive", "passive_1"}
    with open(record_path.parent / "items.csv", newline="") as handle:
        items = list(csv.DictReader(handle))
    # an item per BLiMP pair, numbered by pairID; one prediction, so correct (first) and correct_all agree
    assert sorted((r["suite"], r["item"]) for r in items) == [
        ("anaphor_gender_agreement", "0"), ("anaphor_gender_agreement", "1"), ("animate_subject_passive", "0"),
        ("passive_1", "0")]
    assert all(r["correct"] == r["correct_all"] for r in items)
    mean = sum(r["correct"] == "TRUE" for r in items if r["suite"] == "anaphor_gender_agreement") / 2
    assert accuracy["anaphor_gender_agreement"] == mean
