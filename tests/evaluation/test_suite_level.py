"""Suite-level predictions (``mean((2;%mismatch%) - (2;%match%)) > 0``, #37): the statistic over items checked by
hand, its bootstrap interval, undefined items left out and counted, its own rows in ``suite_predictions.csv`` and
``to_pandas``, and item accuracy exactly what it is without them."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import pytest

from linguagym.evaluation.run import RunSettings, run_suites
from linguagym.evaluation.runfolder import schema
from linguagym.evaluation.runfolder.writer import write_run
from linguagym.evaluation.suite_level import bootstrap_interval, evaluate_suite_predictions, interval_holds
from linguagym.suites.formula import RegionRef, Tolerance
from linguagym.suites.load import parse_suite_data
from tests.conftest import minimal_suite
from tests.evaluation.fakes import WordScorer

# the verb of each item in each condition, and its surprisal: mismatch - match is 3, -1, 2 and 10 bits
VERBS = {1: ("aa", "ba"), 2: ("ab", "bb"), 3: ("ac", "bc"), 4: ("ad", "bd")}
SURPRISAL = {"aa": 2.0, "ba": 5.0, "ab": 4.0, "bb": 3.0, "ac": 1.0, "bc": 3.0, "ad": 1.0, "bd": 11.0}
DIFFERENCES = [3.0, -1.0, 2.0, 10.0]  # mean 3.5, median 2.5


def agreement_suite(*formulas: str, website: list[dict] | None = None) -> dict:
    data = minimal_suite(predictions=[{"type": "formula", "formula": "(2;%mismatch%) > (2;%match%)"},
                                      *({"type": "formula", "formula": f} for f in formulas), *(website or [])])
    data["items"] = [
        {"item_number": number, "conditions": [
            {"condition_name": name, "regions": [{"region_number": 1, "content": "The boy"},
                                                 {"region_number": 2, "content": verb},
                                                 {"region_number": 3, "content": "today."}]}
            for name, verb in zip(("match", "mismatch"), verbs, strict=True)]}
        for number, verbs in VERBS.items()]
    return data


def scorer() -> WordScorer:
    return WordScorer(lambda word, index: SURPRISAL.get(word, 1.0))


def run_on(tmp_path: Path, data: dict):
    path = tmp_path / "agreement.json"
    path.write_text(json.dumps(data))
    return run_suites([path], RunSettings(model="fake"), scorer=scorer())


def test_the_mean_and_median_over_items_are_the_hand_computed_ones(tmp_path: Path):
    result = run_on(tmp_path, agreement_suite("mean((2;%mismatch%) - (2;%match%)) > 3",
                                              "median((2;%mismatch%) - (2;%match%)) > 3",
                                              "mean((2;%mismatch%) - (2;%match%)) >= 3.5"))
    [suite] = result.suites
    mean, median, at_least = suite.suite_predictions
    assert (mean.statistic, mean.value, mean.items, mean.undefined_items) == ("mean", 3.5, 4, 0)
    assert (median.statistic, median.value) == ("median", 2.5)
    assert mean.holds and not median.holds  # 3.5 > 3, 2.5 > 3 does not
    assert at_least.holds  # 3.5 >= 3.5: equal within the tolerance
    # item accuracy counts the item prediction alone: it holds on items 1, 3 and 4
    assert suite.accuracy("all") == suite.accuracy("first") == 0.75
    assert len(suite.suite.predictions) == 1 and [p.prediction for p in suite.predictions] == [0] * 4


def test_a_suite_level_prediction_leaves_item_accuracy_and_predictions_csv_as_they_were(tmp_path: Path):
    (tmp_path / "plain").mkdir()
    plain = run_on(tmp_path / "plain", agreement_suite())
    with_mean = run_on(tmp_path, agreement_suite("mean((2;%mismatch%) - (2;%match%)) > 0"))
    assert plain.suites[0].predictions == with_mean.suites[0].predictions
    a = write_run(plain, tmp_path / "a").parent
    b = write_run(with_mean, tmp_path / "b").parent
    for name in (schema.PREDICTIONS, schema.ITEMS):
        assert (a / name).read_text() == (b / name).read_text()


def test_the_interval_is_a_bootstrap_over_items_and_is_written_as_its_own_row(tmp_path: Path):
    result = run_on(tmp_path, agreement_suite("mean((2;%mismatch%) - (2;%match%)) > 0"))
    [p] = result.suites[0].suite_predictions
    # every resample's mean lies between the smallest and largest difference; the point estimate inside
    assert -1.0 <= p.ci_low < 3.5 < p.ci_high <= 10.0
    assert (p.ci_low, p.ci_high) == bootstrap_interval(DIFFERENCES, "mean")  # the same draws every time
    out = write_run(result, tmp_path / "out").parent
    with open(out / schema.SUITE_PREDICTIONS, newline="") as handle:
        [row] = list(csv.DictReader(handle))
    assert row["formula"] == "mean((2;%mismatch%) - (2;%match%)) > 0" and row["statistic"] == "mean"
    assert (float(row["value"]), row["items"], row["undefined_items"], row["holds"]) == (3.5, "4", "0", "TRUE")
    assert (float(row["ci_low"]), float(row["ci_high"])) == (p.ci_low, p.ci_high)
    assert row["interval_holds"] == ("TRUE" if p.ci_low > 0 else "FALSE")


def test_identical_values_have_a_zero_width_interval():
    assert bootstrap_interval([2.0, 2.0, 2.0], "mean") == (2.0, 2.0)
    assert bootstrap_interval([2.0, 2.0, 2.0], "median") == (2.0, 2.0)
    assert bootstrap_interval([4.0], "mean") == (4.0, 4.0)


def test_items_where_the_expression_is_undefined_are_left_out_and_counted():
    data = parse_suite_data(agreement_suite("mean((2;%mismatch%) - (2;%match%)) > 3")).suite
    values = dict(zip(VERBS, DIFFERENCES, strict=True))
    values[2] = math.nan  # item 2's difference undefined: the mean of 3, 2 and 10 is 5

    def lookups(item):
        return lambda ref: values[item] if ref == RegionRef(2, "mismatch") else 0.0

    [p] = evaluate_suite_predictions(data, {item: lookups(item) for item in VERBS})
    assert (p.value, p.items, p.undefined_items, p.holds) == (5.0, 3, 1, True)
    values.update(dict.fromkeys(VERBS, math.nan))  # none defined: undefined, and it does not hold
    [none] = evaluate_suite_predictions(data, {item: lookups(item) for item in VERBS})
    assert math.isnan(none.value) and math.isnan(none.ci_low) and (none.items, none.undefined_items) == (0, 4)
    assert not none.holds and not none.interval_holds


@pytest.mark.parametrize(
    "op, low, high, expected",
    [(">", 0.5, 2.0, True), (">", -0.1, 2.0, False), ("<", -3.0, -1.0, True), ("<", -3.0, 0.0, False),
     (">=", 0.0, 1.0, True), ("<=", -1.0, 0.0005, True), ("<=", -1.0, 0.01, False),
     ("=", -0.0005, 0.0005, True), ("=", -0.0005, 0.1, False),
     ("!=", 0.5, 1.0, True), ("!=", -1.0, -0.5, True), ("!=", -1.0, 1.0, False), ("!=", 0.0005, 1.0, False)],
)
def test_the_interval_holds_where_the_comparison_holds_all_over_it(op, low, high, expected):
    assert interval_holds(op, low, high, 0.0, Tolerance()) is expected


def test_the_website_dialect_writes_a_suite_level_prediction_with_aggregate(tmp_path: Path):
    website = [{"region_number": 2, "l_operand": "mismatch", "relation": "greaterthan", "r_operand": "match",
                "aggregate": "median"}]
    result = run_on(tmp_path, agreement_suite(website=website))
    [p] = result.suites[0].suite_predictions
    assert p.formula == "median((2;%mismatch%) - (2;%match%)) > 0" and (p.value, p.holds) == (2.5, True)


def test_to_pandas_has_the_suite_level_rows(tmp_path: Path):
    pytest.importorskip("pandas")
    from linguagym.evaluation.model_runs import run_models
    from linguagym.evaluation.results import Results

    path = tmp_path / "agreement.json"
    path.write_text(json.dumps(agreement_suite("median((2;%mismatch%) - (2;%match%)) < 0")))
    done = run_models([path], [RunSettings(model="fake")], scorers=lambda settings: scorer(), summary=None)
    frame = Results(done).to_pandas("suite_predictions")
    assert frame[["statistic", "value", "holds"]].values.tolist() == [["median", 2.5, False]]


def test_the_command_line_prints_each_suite_level_prediction_on_a_row_of_its_own(tmp_path: Path, capsys,
                                                                                 monkeypatch):
    from linguagym.cli import main
    from linguagym.evaluation import model_runs

    path = tmp_path / "agreement.json"
    path.write_text(json.dumps(agreement_suite("mean((2;%mismatch%) - (2;%match%)) > 3")))
    monkeypatch.setattr(model_runs, "settings_scorer", lambda settings: scorer())
    assert main(["run", str(path), "-m", "fake", "-o", str(tmp_path / "out"), "--no-report"]) == 0
    out = capsys.readouterr().out
    [line] = [line for line in out.splitlines() if line.startswith("suite-level")]
    assert line.startswith("suite-level, tiny (fake): mean((2;%mismatch%) - (2;%match%)) > 3: mean 3.500 bits of "
                           "sum, 95% CI [")
    assert "over 4 items: holds" in line


def test_the_report_shows_each_suite_level_prediction_below_the_suites_accuracy(tmp_path: Path):
    from linguagym.evaluation.model_runs import run_models
    from linguagym.evaluation.runfolder.reader import read_run
    from linguagym.evaluation.summary import SummarySettings

    path = tmp_path / "agreement.json"
    path.write_text(json.dumps(agreement_suite("mean((2;%mismatch%) - (2;%match%)) > 3")))
    done = run_models([path], [RunSettings(model="fake")], output=tmp_path / "out", scorers=lambda s: scorer(),
                      summary=SummarySettings(bootstrap=10))
    page = done.report.read_text()
    [row] = read_run(tmp_path / "out" / "fake").suite_level_rows()
    assert row["holds"] == "TRUE" and float(row["value"]) == 3.5
    assert ("suite-level, fake: <code>mean((2;%mismatch%) - (2;%match%)) &gt; 3: mean 3.500 bits of sum, 95% CI ["
            in page)
    assert "accuracy fake: 0.750" in page  # the item prediction alone
