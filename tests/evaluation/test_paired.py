"""Paired comparison of two models on the same items: McNemar's exact p against hand computations, Holm's
adjustment against a hand computation, the paired bootstrap (seeded, covering a known difference), items one side
lacks, and ``linguagym compare`` printing and writing the paired table."""

from __future__ import annotations

import csv
import json
import math
from fractions import Fraction
from pathlib import Path

import pytest

from linguagym.cli import main
from linguagym.errors import ConfigurationError
from linguagym.evaluation.aggregate import ItemOutcome
from linguagym.evaluation.comparison import COLUMNS, compare_models, compare_outcomes, format_p
from linguagym.evaluation.paired import EXACT_LIMIT, holm, mcnemar_exact, paired_outcomes, paired_values
from linguagym.evaluation.policy import AccuracyPolicy
from linguagym.evaluation.summary import SummarySettings


def test_mcnemar_exact_p_by_hand():
    # b=1, c=9: 2 * (C(10,0) + C(10,1)) / 2^10 = 2 * 11 / 1024
    assert mcnemar_exact(1, 9) == 0.021484375 == 22 / 1024
    assert mcnemar_exact(9, 1) == mcnemar_exact(1, 9)  # symmetric
    assert mcnemar_exact(0, 5) == 2 / 32  # 0.0625
    assert mcnemar_exact(2, 5) == pytest.approx(2 * (1 + 7 + 21) / 128)  # 0.453125
    assert mcnemar_exact(0, 0) == 1.0  # no discordant pair: nothing speaks for either side
    assert mcnemar_exact(3, 3) == 1.0  # balanced: capped at 1, not 2 * P(X <= 3) = 1.3125
    assert mcnemar_exact(3, 4) == 1.0  # 2 * (1 + 7 + 21 + 35) / 128 = 1.0 exactly
    with pytest.raises(ValueError):
        mcnemar_exact(-1, 2)


def test_mcnemar_large_counts_agree_between_exact_integers_and_log_gamma():
    from linguagym.evaluation import paired

    b, c = 480, 560  # n = 1040: exact integers; the log-gamma path must give the same number
    exact = mcnemar_exact(b, c)
    tail = sum(math.comb(b + c, i) for i in range(b + 1))
    assert exact == float(Fraction(2 * tail, 2 ** (b + c)))
    original = paired.EXACT_LIMIT
    try:
        paired.EXACT_LIMIT = 10  # force the log-space sum
        assert mcnemar_exact(b, c) == pytest.approx(exact, rel=1e-9)
    finally:
        paired.EXACT_LIMIT = original
    assert EXACT_LIMIT >= 10_000
    assert mcnemar_exact(0, 2000) == float(Fraction(2, 2**2000)) == 0.0  # below the smallest float: 0, no error


def test_holm_against_a_hand_computation():
    # sorted: 0.01 (x4 = 0.04), 0.02 (x3 = 0.06), 0.03 (x2 = 0.06), 0.04 (x1 = 0.04 -> kept at 0.06: monotone)
    assert holm([0.03, 0.01, 0.04, 0.02]) == pytest.approx([0.06, 0.04, 0.06, 0.06])
    assert holm([0.5, 0.9]) == [1.0, 1.0]  # capped at 1
    adjusted = holm([0.01, math.nan, 0.02])  # NaN is not a test: m = 2
    assert adjusted[0] == pytest.approx(0.02) and math.isnan(adjusted[1]) and adjusted[2] == pytest.approx(0.02)
    assert holm([]) == []


def test_paired_bootstrap_is_seeded_and_covers_the_true_difference():
    # a is right on every item, b on every other: the true difference is 0.5 on these items
    a = {item: True for item in range(1, 41)}
    b = {item: item % 2 == 0 for item in range(1, 41)}
    first = paired_outcomes(a, b, resamples=500, seed=7, key="s")
    again = paired_outcomes(a, b, resamples=500, seed=7, key="s")
    other = paired_outcomes(a, b, resamples=500, seed=8, key="s")
    assert first.interval == again.interval and first.interval != other.interval
    assert first.difference == 0.5 and first.interval.low < 0.5 < first.interval.high
    assert (first.both, first.only_a_right, first.only_b_right, first.neither) == (20, 20, 0, 0)
    assert first.p_value == mcnemar_exact(20, 0)
    # continuous values: b = a - 1.5 plus noise that cancels; the interval holds 1.5
    values_a = {i: float(i % 7) for i in range(60)}
    values_b = {i: float(i % 7) - 1.5 + (0.25 if i % 2 else -0.25) for i in range(60)}
    shifted = paired_values(values_a, values_b, resamples=1000, seed=0)
    assert shifted.difference == pytest.approx(1.5) and shifted.interval.low <= 1.5 <= shifted.interval.high
    assert shifted.p_value is None and shifted.both is None
    assert paired_values(values_a, values_b, resamples=0).interval is None


def test_items_only_one_side_has_and_unknown_outcomes_are_left_out_and_counted():
    a = {1: True, 2: False, 3: True, 4: None}
    b = {2: True, 3: True, 4: True, 5: False}
    result = paired_outcomes(a, b, resamples=0)
    assert result.pairing.items == (2, 3) and result.n == 2
    assert (result.pairing.only_a, result.pairing.only_b, result.pairing.undefined) == (1, 1, 1)
    assert (result.mean_a, result.mean_b) == (0.5, 1.0)
    empty = paired_outcomes({1: True}, {2: True}, resamples=100)
    assert empty.n == 0 and math.isnan(empty.difference) and empty.interval is None


def _outcomes(model: str, suite: str, values: list[bool]) -> list[ItemOutcome]:
    return [ItemOutcome(model, suite, i, v, v) for i, v in enumerate(values, start=1)]


def test_compare_outcomes_adjusts_every_suite_and_pair_with_holm():
    outcomes = (_outcomes("m1", "s1", [True] * 10) + _outcomes("m2", "s1", [False] + [False] * 9)
                + _outcomes("m1", "s2", [True, False]) + _outcomes("m2", "s2", [True, True])
                + _outcomes("m3", "s1", [True] * 10))
    comparison = compare_outcomes(outcomes, AccuracyPolicy("all"), resamples=0)
    pairs = [(r.suite, r.model_a, r.model_b) for r in comparison.rows]
    assert pairs == [("s1", "m1", "m2"), ("s1", "m1", "m3"), ("s1", "m2", "m3"), ("s2", "m1", "m2")]
    assert comparison.unpaired == (("s2", "m1", "m3"), ("s2", "m2", "m3"))
    p = [r.paired.p_value for r in comparison.rows]
    assert p == [2 / 1024, 1.0, 2 / 1024, 1.0]
    assert [r.p_holm for r in comparison.rows] == pytest.approx(holm(p))
    assert comparison.rows[0].p_holm == pytest.approx(4 * 2 / 1024)
    assert comparison.notes()[0].startswith("p_holm: Holm-adjusted over the 4 tests of this table")
    baseline = compare_outcomes(outcomes, AccuracyPolicy("all"), resamples=0, baseline="m3")
    assert [(r.model_a, r.model_b) for r in baseline.rows] == [("m3", "m1"), ("m3", "m2")]
    with pytest.raises(ConfigurationError, match="no model named 'nobody'"):
        compare_outcomes(outcomes, AccuracyPolicy("all"), baseline="nobody")
    pytest.importorskip("pandas")  # the rest: the DataFrame (the notebook extra; the floors' venv has no pandas)
    frame = comparison.to_pandas()
    assert list(frame.columns) == list(COLUMNS) and frame["p_holm"].tolist() == pytest.approx(holm(p))
    assert frame["prediction"].isna().all() and frame["holm_tests"].tolist() == [4] * 4


def test_format_p():
    assert (format_p(0.021484375), format_p(0.00001), format_p(None), format_p(1.0)) == ("0.0215", "<0.0001", "–", "1")


def _run_folder(root: Path, label: str, suites: dict[str, list[bool]], *,
                dropped: tuple[str, int] | None = None) -> Path:
    """A finished run's model folder: run.json, items.csv, predictions.csv (one prediction per suite)."""
    folder = root / label
    folder.mkdir(parents=True)
    record = {"label": label, "settings": {"model": label, "policy": "all"},
              "suites": [{"name": suite, "metric": "sum"} for suite in suites]}
    (folder / "run.json").write_text(json.dumps(record), encoding="utf-8")
    with (folder / "items.csv").open("w", newline="", encoding="utf-8") as items, \
            (folder / "predictions.csv").open("w", newline="", encoding="utf-8") as predictions:
        item_rows, prediction_rows = csv.writer(items), csv.writer(predictions)
        item_rows.writerow(["model", "suite", "item", "correct", "correct_all"])
        prediction_rows.writerow(["model", "suite", "item", "prediction", "formula", "metric", "holds", "undefined",
                                  "tie"])
        for suite, outcomes in suites.items():
            for item, ok in enumerate(outcomes, start=1):
                if (suite, item) == dropped:
                    continue
                item_rows.writerow([label, suite, item, ok, ok])
                prediction_rows.writerow([label, suite, item, 0, "(1;%a%) < (1;%b%)", "sum", ok, "",
                                          "exact" if item == 2 else ""])
    return folder


def test_compare_prints_and_writes_the_paired_comparison(tmp_path: Path, capsys):
    one = _run_folder(tmp_path / "r1", "alpha", {"agree": [True] * 10, "npi": [True, False, True, True]})
    two = _run_folder(tmp_path / "r2", "beta", {"agree": [True] + [False] * 9, "npi": [True, True, True, True]},
                      dropped=("npi", 4))
    out = tmp_path / "paired.csv"
    assert main(["compare", str(one), str(two), "--bootstrap", "200", "--paired-csv", str(out)]) == 0
    captured = capsys.readouterr()
    text = " ".join(captured.out.split())
    assert "paired comparison: accuracy of a minus b on the same items, per suite" in text
    for column in ("a - b [95% CI]", "p (McNemar)", "p (Holm)"):
        assert column in text
    assert "agree │ alpha │ beta │ 10 │ +0.900 [" in text  # 9 items only alpha gets right: p = 2/512
    assert "│ 9 / 0 │ 0.00391 │ 0.00781 │" in text  # Holm over the 2 suites: x2
    assert "p_holm: Holm-adjusted over the 2 tests of this table" in text
    assert "2 rows rest on fewer than 10 items where the models differ" in text  # 9 and 1 discordant
    assert "npi: alpha vs beta paired on 3 items; left out: 1 item only alpha has" in text
    assert "tied / undefined" in text and "agree alpha vs beta: 1 / 0" in text
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert tuple(rows[0]) == COLUMNS
    assert rows[0]["p_mcnemar"] == repr(2 / 512) and rows[0]["p_holm"] == repr(4 / 512)
    assert rows[1]["items"] == "3" and rows[1]["only_in_a"] == "1" and rows[1]["only_in_b"] == "0"
    low, high = float(rows[0]["ci_low"]), float(rows[0]["ci_high"])
    assert low <= 0.9 <= high
    # the API gives the same numbers, seeded alike
    api = compare_models([one, two], SummarySettings(bootstrap=200))
    assert api.rows[0].paired.interval.low == low and api.rows[0].p_holm == 4 / 512
    per_prediction = compare_models([one, two], SummarySettings(bootstrap=0), per_prediction=True)
    assert [(r.suite, r.prediction, r.formula) for r in per_prediction.rows] == [
        ("agree", 0, "(1;%a%) < (1;%b%)"), ("npi", 0, "(1;%a%) < (1;%b%)")]
    assert per_prediction.rows[0].tied == 1


def test_compare_with_one_model_prints_no_paired_table(tmp_path: Path, capsys):
    one = _run_folder(tmp_path / "r1", "alpha", {"agree": [True, False]})
    assert main(["compare", str(one), "--bootstrap", "0"]) == 0
    assert "paired comparison" not in capsys.readouterr().out


def test_two_runs_of_one_model_label_keep_the_table_and_skip_the_pairing(tmp_path: Path, capsys):
    one = _run_folder(tmp_path / "r1", "alpha", {"agree": [True, False]})
    two = _run_folder(tmp_path / "r2", "alpha", {"agree": [False, False]})
    other = _run_folder(tmp_path / "r3", "beta", {"agree": [True, True]})
    assert main(["compare", str(one), str(two), str(other), "--bootstrap", "0"]) == 0  # as before: one column
    captured = capsys.readouterr()
    assert "no paired comparison: alpha has item 1 of agree twice" in " ".join(captured.err.split())
    assert "paired comparison:" not in captured.out
