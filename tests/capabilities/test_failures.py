from __future__ import annotations

import math

import pytest

from linguagym.capabilities.testing.classifier_run import run_tests
from linguagym.capabilities.testing.failures import (
    Rate,
    capability_order,
    expected_key,
    summarize,
    summary_table,
    wilson,
)
from tests.capabilities.lct_fakes import (
    EXPECTED,
    EXPECTED_ORDER,
    ConstantClassifier,
    KeywordClassifier,
    capability_file,
    document,
)


def _summary(classifier=None):
    doc = capability_file()
    run = run_tests(doc, classifier or KeywordClassifier())
    return summarize(run.outcomes, doc.capabilities, classifier=run.name)


def test_numbers_per_capability_match_the_hand_count():
    summary = _summary()
    assert [c.id for c in summary.capabilities] == EXPECTED_ORDER
    for row in summary.capabilities:
        seeds, seed_failed, expansions, expansion_failed, after, after_failed = EXPECTED[row.id]
        assert (row.seeds.total, row.seeds.failed) == (seeds, seed_failed), row.id
        assert (row.expansions.total, row.expansions.failed) == (expansions, expansion_failed), row.id
        assert (row.after_passing_seed.total, row.after_passing_seed.failed) == (after, after_failed), row.id


def test_totals_add_up_over_capabilities():
    total = _summary().total
    sums = [sum(v[i] for v in EXPECTED.values()) for i in range(6)]
    assert (total.seeds.total, total.seeds.failed, total.expansions.total, total.expansions.failed,
            total.after_passing_seed.total, total.after_passing_seed.failed) == tuple(sums)
    assert total.id == "all" and total.tests == len(document()["tests"])


def test_rates_over_no_tests_are_none_not_zero():
    rows = _summary().by_id()
    assert rows["LC2"].expansions.value is None and rows["LC2"].expansions.percent() == "-"
    assert rows["LC3"].seeds.value is None and rows["LC3"].seeds.interval() is None
    assert rows["LC1"].seeds.value == 0.5 and rows["LC1"].expansions.percent() == "66.7"


def test_names_come_from_the_capabilities_block():
    rows = _summary().by_id()
    assert rows["LC4"].name == "Negated negative" and rows["LC10"].name == ""


def test_confusion_counts_expected_sets_against_predictions():
    rows = _summary().by_id()
    assert rows["LC4"].confusion == {"neutral/positive": {"negative": 3, "neutral": 2, "positive": 0}}
    lc2 = rows["LC2"].confusion
    assert lc2["positive"] == {"negative": 0, "neutral": 1, "positive": 1}
    assert lc2["negative"] == {"negative": 1, "neutral": 0, "positive": 0}
    assert sum(sum(r.values()) for r in rows["LC1"].confusion.values()) == rows["LC1"].tests


def test_a_classifier_that_always_fails_seeds_has_no_expansion_failures_after_passing_seeds():
    summary = _summary(ConstantClassifier("negative"))
    lc1 = summary.by_id()["LC1"]
    assert lc1.seeds.failed == lc1.seeds.total == 2
    assert lc1.after_passing_seed.total == 0


def test_capability_order_numbers_lcs_then_keeps_the_rest_in_order():
    assert capability_order(["X2", "LC10", "lc2", "LC1", "X1", "LC10"]) == ["LC1", "lc2", "LC10", "X2", "X1"]


def test_expected_key_orders_labels():
    assert expected_key(["positive", "neutral"]) == "neutral/positive"


def test_wilson_matches_its_closed_forms():
    z = 1.959963984540054
    low, high = wilson(0, 10)
    assert low == 0 and math.isclose(high, z * z / (10 + z * z))
    low, high = wilson(5, 10)
    assert math.isclose(low + high, 1.0) and low == pytest.approx(0.2366, abs=1e-4)
    low, high = wilson(10, 10)
    assert high == 1 and math.isclose(low, 10 / (10 + z * z))
    assert wilson(0, 0) is None


@pytest.mark.parametrize("failed, total", [(1, 3), (7, 50), (49, 50)])
def test_wilson_contains_the_rate_and_narrows_with_more_tests(failed, total):
    low, high = Rate(failed, total).interval()
    assert low < failed / total < high
    low10, high10 = wilson(10 * failed, 10 * total)
    assert high10 - low10 < high - low


def test_summary_table_puts_classifiers_side_by_side():
    first, second = _summary(), _summary(ConstantClassifier("neutral"))
    header, rows = summary_table({"kw": first, "neutral": second})
    assert header[:4] == [("", "LC"), ("", "name"), ("", "seeds"), ("", "expansions")]
    assert [h[0] for h in header[4:]] == ["kw"] * 3 + ["neutral"] * 3
    assert [r[0] for r in rows] == [*EXPECTED_ORDER, "all"]
    lc1 = rows[0]
    assert lc1[4:7] == ["50.0", "66.7", "1/2"]
    lc2 = rows[1]
    assert lc2[5] == "-" and lc2[6] == "-"
    neutral_lc1 = lc1[7:10]
    assert neutral_lc1[0] == "0.0" and neutral_lc1[1] == "0.0"
