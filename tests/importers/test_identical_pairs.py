"""Pairs of two identical sentences (BLiMP has 7: passive_1 #324 and #810, principle_A_case_2 #105, #287, #372,
#816, #967) are kept, named in a warning at import, and scored by the run's tie rule: strict counts them incorrect,
lm-eval's rule (its argmax picks the good sentence on a tie) correct."""

import csv
import json
import warnings

import pytest

from linguagym.cli.entry import main
from linguagym.importers.blimp import read_blimp
from linguagym.importers.common import IdenticalPairsWarning
from linguagym.importers.hub import blimp_from_hub
from linguagym.importers.pairs import read_pairs

SAME = "Rebecca was hugged by Teresa."


def _record(uid: str, pair: int, good: str, bad: str) -> dict:
    return {"sentence_good": good, "sentence_bad": bad, "UID": uid, "pairID": str(pair), "field": "syntax",
            "linguistics_term": "argument_structure"}


@pytest.fixture
def passive_with_ties(tmp_path):
    """passive_1 as BLiMP has it in miniature: a real pair and pairs 324 and 810, each two identical sentences."""
    path = tmp_path / "passive_1.jsonl"
    rows = [_record("passive_1", 0, "Tracy isn't fired by Jeffrey.", "Tracy isn't arrived by Jeffrey."),
            _record("passive_1", 324, SAME, SAME), _record("passive_1", 810, "Bill was seen.", "Bill was seen.")]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def test_a_blimp_import_names_its_identical_pairs(passive_with_ties, blimp_files):
    with pytest.warns(IdenticalPairsWarning) as caught:
        [suite] = read_blimp(passive_with_ties)
    [warning] = caught
    assert str(warning.message).startswith("passive_1: 2 pairs with two identical sentences (items 324, 810)")
    assert [item.number for item in suite.items] == [0, 324, 810]  # kept: they are part of the data
    with warnings.catch_warnings():
        warnings.simplefilter("error", IdenticalPairsWarning)
        read_blimp(blimp_files[2])  # no identical pair, no warning


def test_the_pairs_importer_and_the_hub_loader_warn_too(tmp_path):
    pairs = tmp_path / "mine.csv"
    pairs.write_text("item,good,bad\n3,A cat sleeps.,A cat sleep.\n4,It rains.,It rains.\n")
    with pytest.warns(IdenticalPairsWarning, match=r"^mine: 1 pair with two identical sentences \(item 4\)"):
        read_pairs(pairs)

    def load(dataset, uid, split):
        return [{**_record(uid, 105, SAME, SAME), "pair_id": 105}]

    with pytest.warns(IdenticalPairsWarning, match=r"^principle_A_case_2: 1 pair .*\(item 105\)"):
        blimp_from_hub(["principle_A_case_2"], load=load)


def test_import_prints_the_warning_and_the_tie_rule_decides_them_in_a_run(passive_with_ties, tiny_lm_dir, tmp_path,
                                                                          capsys):
    suites = tmp_path / "suites"
    assert main(["import", "blimp", str(passive_with_ties), "-o", str(suites)]) == 0
    err = capsys.readouterr().err
    assert "warning: passive_1: 2 pairs with two identical sentences (items 324, 810)" in err
    assert "tie rule lm-eval" in err

    accuracy, items, notes = {}, {}, {}
    for rule in ("strict", "lm-eval"):
        out = tmp_path / rule
        assert main(["run", "--model", str(tiny_lm_dir), str(suites / "passive_1.json"), "--ties", rule,
                     "--bootstrap", "0", "--no-report", "--cache-dir", str(tmp_path / "cache"), "-o", str(out)]) == 0
        notes[rule] = capsys.readouterr().out
        [record_path] = out.glob("*/run.json")
        record = json.loads(record_path.read_text())
        assert record["settings"]["ties"] == rule and record["suites"][0]["ties"]["exact"] == 2
        accuracy[rule] = record["suites"][0]["accuracy"]
        with open(record_path.parent / "items.csv", newline="") as handle:
            items[rule] = {row["item"]: row["correct"] for row in csv.DictReader(handle)}
    # the two identical pairs move from incorrect to correct, and nothing else moves
    assert accuracy["lm-eval"] - accuracy["strict"] == pytest.approx(2 / 3)
    assert (items["strict"]["324"], items["strict"]["810"]) == ("FALSE", "FALSE")
    assert (items["lm-eval"]["324"], items["lm-eval"]["810"]) == ("TRUE", "TRUE")
    assert items["strict"]["0"] == items["lm-eval"]["0"]
    assert "ties in passive_1" in notes["strict"] and "counted as failing" in " ".join(notes["strict"].split())
    assert "counted as holding" in " ".join(notes["lm-eval"].split())
