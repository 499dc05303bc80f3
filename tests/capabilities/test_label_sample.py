"""benchmarks/label_sample.py (#38): the blind label sample's stratified draw and its scorer."""

from __future__ import annotations

import json

import pytest

from tests.benchmark_scripts import load_benchmark


@pytest.fixture(scope="module")
def label_sample():
    return load_benchmark("label_sample")


def test_every_stratum_gets_one_and_the_rest_go_by_size(label_sample):
    take = label_sample.allocate({"LC1/MFT/seed": 1, "LC2/MFT/seed": 90, "LC2/INV/typo": 9}, 20)
    assert take == {"LC1/MFT/seed": 1, "LC2/MFT/seed": 17, "LC2/INV/typo": 2}
    assert sum(label_sample.allocate({"a": 3, "b": 2}, 10).values()) == 5  # never more than the file has


def test_pairs_show_both_texts_and_a_dir_original_expects_positive(label_sample):
    """A DIR test names no labels; the sample keys its negated text with the reading the negation aims at."""
    from linguagym.capabilities.testfile.model import CapabilityTest, Direction, Provenance

    direction = Direction(label="positive", change="decrease", tolerance=0.1)
    provenance = Provenance(dataset="d", original_text="It is good.", perturbation="negation", direction=direction)
    dir_test = CapabilityTest(id="LC2/1/5/dir-negation", capability="LC2", text="It is not good.",
                              expected=(), kind="seed", type="DIR", provenance=provenance)
    assert label_sample.texts_of(dir_test) == [("a", "It is good.", ("positive",)),
                                              ("b", "It is not good.", ("negative", "neutral"))]


def test_the_scorer_counts_a_test_as_agreeing_only_when_all_its_texts_do(label_sample, tmp_path, capsys):
    key = [{"id": "001", "test": "LC2/1/1", "capability": "LC2", "type": "MFT", "expected": ["positive"]},
           {"id": "002a", "test": "LC3/1/2/inv-typo", "capability": "LC3", "type": "INV", "expected": ["negative"]},
           {"id": "002b", "test": "LC3/1/2/inv-typo", "capability": "LC3", "type": "INV", "expected": ["negative"]}]
    judged = [{"id": "001", "label": "positive"}, {"id": "002a", "label": "negative"},
              {"id": "002b", "label": "Neutral"}]
    (tmp_path / "key.jsonl").write_text("".join(json.dumps(k) + "\n" for k in key))
    (tmp_path / "judged.jsonl").write_text("".join(json.dumps(j) + "\n" for j in judged))
    label_sample.score(tmp_path / "judged.jsonl", tmp_path / "key.jsonl")
    rows = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()[2:]}
    assert "2/3 = 0.67" in rows["all"] and "1/2 = 0.50" in rows["all"]  # texts, then tests
    assert "1/2 = 0.50" in rows["LC3"] and "0/1 = 0.00" in rows["LC3"]
