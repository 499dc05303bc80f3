"""benchmarks/expansion_agreement.py: the two-reader agreement behind the expansion acceptance rates (#38)."""

from __future__ import annotations

import json

import pytest

from tests.benchmark_scripts import load_benchmark

script = load_benchmark("expansion_agreement")


def test_kappa_is_zero_for_chance_and_one_for_identical_verdicts():
    same = [True, False, True, True, False]
    assert script.kappa(same, same) == 1.0
    # two readers who each accept half, independently: agreement 0.5 is exactly chance
    assert script.kappa([True, True, False, False], [True, False, True, False]) == pytest.approx(0.0)
    # opposite verdicts on every row: below chance
    assert script.kappa([True, False, True, False], [False, True, False, True]) == pytest.approx(-1.0)
    # everyone accepts everything: no disagreement and nothing chance could not explain
    assert script.kappa([True, True], [True, True]) == 1.0


def test_the_draw_is_seeded_and_takes_each_expansion_once():
    rows = [{"expansion": f"text {i % 30}", "tag": "x", "id": str(i)} for i in range(60)]
    first, again = script.draw(rows, 20, seed=1), script.draw(rows, 20, seed=1)
    assert first == again and len({r["expansion"] for r in first}) == 20
    assert len(script.draw(rows, 100, seed=1)) == 30  # only 30 distinct texts exist


def test_agreement_reports_every_reader_against_the_first(tmp_path):
    out = tmp_path / "agreement"
    key = [{"id": i, "sample": "39" if i <= 2 else "40", "sample_id": str(i), "acceptable": ok}
           for i, ok in [(1, True), (2, False), (3, True), (4, False)]]
    (tmp_path / "agreement_key.jsonl").write_text("".join(json.dumps(k) + "\n" for k in key), encoding="utf-8")
    (tmp_path / "agreement_judged_b.jsonl").write_text(
        "".join(json.dumps({"id": str(i), "acceptable": ok}) + "\n"
                for i, ok in [(1, True), (2, True), (3, True), (4, False)]), encoding="utf-8")
    lines = script.agreement(out)
    assert lines[0] == "4 rows judged by all 2 readers (first, b)"
    assert "[all] accepted: first 2/4, b 3/4" in lines
    # agree on 3 of 4; chance 0.5*0.75 + 0.5*0.25 = 0.5, so kappa (0.75 - 0.5) / 0.5 = 0.5
    assert "[all] first vs b: agree 3/4 = 0.75, kappa 0.50" in lines
    assert "[39] first vs b: agree 1/2 = 0.50, kappa 0.00" in lines


def test_the_shipped_sample_draws_from_judged_rows_with_their_verdicts():
    rows = {(r["tag"], r["id"]): r for r in script.judged_rows()}
    key = [json.loads(line) for line in
           (script.HERE / "expansion_agreement_53_key.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(key) == 200
    for entry in key:
        assert rows[(entry["sample"], entry["sample_id"])]["acceptable"] == entry["acceptable"]


def test_dir_agreement_counts_both_readers_on_the_same_pairs():
    dir_script = load_benchmark("dir_agreement")
    first = {"1": True, "2": True, "3": False, "4": True}
    second = {"1": True, "2": False, "3": False, "4": True}
    line = dir_script.summary(["1", "2", "3", "4"], first, second)
    # both valid: 1 and 4; they disagree on 2 only; chance 0.75*0.5 + 0.25*0.5 = 0.5, so kappa (0.75-0.5)/0.5
    assert line == "first 3/4, second 2/4, both 2/4 (first 40: 2/4); agree 3/4, kappa 0.50"
    samples = dir_script.two_readers()
    assert {"dir_pairs_39", "dir_pairs_53", "dir_pairs_54", "dir_pairs_55"} <= set(samples)
    key, one, two = samples["dir_pairs_54"]
    assert len(key) == len(one) == len(two) == 50
    # sample 60's two readers of the stricter rubric are their own pair, not mixed with its usual two
    strict = dir_script.two_readers(readers=dir_script.STRICT_READERS)
    assert set(strict) == {"dir_pairs_60"}
    _, usual, _ = samples["dir_pairs_60"]
    _, strict_a, _ = strict["dir_pairs_60"]
    assert sum(usual.values()) > sum(strict_a.values())


def test_dir_kept_takes_each_original_once_with_its_first_verdict():
    kept_script = load_benchmark("dir_kept")
    pairs = [("dir_pairs_judged", "It is good.", "It is not good.", True),
             ("dir_pairs_39", "It is good.", "It is not good.", False),
             ("dir_pairs_40", "It works.", "It does not work.", False)]
    assert kept_script.first_verdicts(pairs) == {"It is good.": ("dir_pairs_judged", True),
                                                 "It works.": ("dir_pairs_40", False)}
