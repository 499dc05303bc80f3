"""Ties: a '<' or '>' whose two sides are equal (decided by the tie rule, strict or lm-eval's) or within the
tolerance (decided by the values) is counted per prediction, per suite and in the notes under the table."""

import csv
import json
import math
import warnings

import pytest

from linguagym.errors import ConfigurationError
from linguagym.evaluation.evaluate import evaluate_suite
from linguagym.evaluation.run import RunSettings, check_settings, run_suites
from linguagym.evaluation.runfolder.writer import write_run
from linguagym.evaluation.scored_suites import evaluate_scored_suite
from linguagym.evaluation.ties import record_tie_notes, tie_note
from linguagym.importers.common import IdenticalPairsWarning, pair_suite
from linguagym.suites.formula import RegionRef, Tolerance, evaluate, explain, parse_formula, tie_kind
from tests.evaluation.fakes import WordScorer


def _values(**values: float):
    return lambda ref: values[ref.condition]


@pytest.mark.parametrize("rule, holds", [("strict", False), ("lm-eval", True)])
@pytest.mark.parametrize("formula", ["(1;%a%) < (1;%b%)", "(1;%a%) > (1;%b%)"])
def test_the_rule_decides_two_equal_sides(formula, rule, holds):
    outcome = evaluate(parse_formula(formula).tree, _values(a=12.5, b=12.5), Tolerance(ties=rule))
    assert (outcome.holds, outcome.tie) == (holds, "exact")


@pytest.mark.parametrize("rule", ["strict", "lm-eval"])
def test_sides_within_the_tolerance_are_a_near_tie_decided_by_the_values(rule):
    tree = parse_formula("(1;%a%) < (1;%b%)").tree
    below = evaluate(tree, _values(a=12.5, b=12.5004), Tolerance(ties=rule))
    above = evaluate(tree, _values(a=12.5004, b=12.5), Tolerance(ties=rule))
    assert (below.holds, below.tie, above.holds, above.tie) == (True, "near", False, "near")
    apart = evaluate(tree, _values(a=12.5, b=12.6), Tolerance(ties=rule))
    assert (apart.holds, apart.tie) == (True, "")
    # the tolerance is the one '=' uses: a wider atol turns the same difference into a tie
    assert evaluate(tree, _values(a=12.5, b=12.6), Tolerance(atol=0.2, ties=rule)).tie == "near"


def test_equality_undefined_values_and_joined_comparisons():
    assert tie_kind("=", 1.0, 1.0) == ""  # '=' is meant to hold on equal sides: no tie
    assert tie_kind("<", math.nan, math.nan) == ""
    nan = evaluate(parse_formula("(1;%a%) < (1;%b%)").tree, _values(a=math.nan, b=math.nan), Tolerance(ties="lm-eval"))
    assert (nan.holds, nan.tie, nan.undefined) == (False, "", (RegionRef(1, "a"), RegionRef(1, "b")))
    # an exact tie anywhere in the formula is reported over a near one; both sides of '&' are looked at
    tree = parse_formula("((1;%a%) < (1;%b%)) & ((1;%c%) > (1;%d%))").tree
    outcome = evaluate(tree, _values(a=1.0, b=1.0002, c=3.0, d=3.0), Tolerance(ties="lm-eval"))
    assert (outcome.holds, outcome.tie) == (True, "exact")
    strict = evaluate(tree, _values(a=1.0, b=1.0002, c=3.0, d=3.0))
    assert (strict.holds, strict.tie) == (False, "exact")
    terms = explain(tree, _values(a=1.0, b=1.0002, c=3.0, d=3.0)).comparisons
    assert [(t.tie, t.holds) for t in terms] == [("near", True), ("exact", False)]


def test_an_unknown_rule_is_refused_with_the_choices():
    with pytest.raises(ConfigurationError, match="unknown tie rule 'argmax'") as caught:
        Tolerance(ties="argmax")
    assert "strict, lm-eval" in caught.value.hint
    with pytest.raises(ConfigurationError, match="unknown tie rule 'argmax'"):
        check_settings(RunSettings(ties="argmax"))


def _pairs_suite():
    """Four pairs: two identical sentences (item 7), a near tie (item 8: 'ran' costs 5e-4 bits more than 'run'),
    a good pair and a bad pair."""
    pairs = [(7, "The dog ran.", "The dog ran."), (8, "The dog run.", "The dog ran."),
             (9, "The dog ran.", "The dog zzz."), (10, "The dog zzz.", "The dog ran.")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IdenticalPairsWarning)
        return pair_suite("pairs", pairs, {})


def _scorer() -> WordScorer:
    return WordScorer(lambda word, index: {"ran": 2.0005, "run": 2.0, "zzz": 9.0}.get(word, 1.0))


def test_a_run_counts_ties_and_the_rule_moves_only_the_identical_pair(tmp_path):
    suite = _pairs_suite()
    results = {rule: run_suites([suite], RunSettings(model="fake", ties=rule), scorer=_scorer())
               for rule in ("strict", "lm-eval")}
    strict, lm_eval = (results[rule].suites[0] for rule in ("strict", "lm-eval"))
    assert strict.item_correct() == {7: False, 8: True, 9: True, 10: False}
    assert lm_eval.item_correct() == {7: True, 8: True, 9: True, 10: False}
    assert strict.ties() == lm_eval.ties() == {"exact": 1, "near": 1}
    assert [p.tie for p in strict.predictions] == ["exact", "near", "", ""]

    out = write_run(results["strict"], tmp_path / "strict").parent
    with open(out / "predictions.csv", newline="") as handle:
        rows = {row["item"]: row for row in csv.DictReader(handle)}
    assert {item: (row["holds"], row["tie"]) for item, row in rows.items()} == {
        "7": ("FALSE", "exact"), "8": ("TRUE", "near"), "9": ("TRUE", ""), "10": ("FALSE", "")}
    record = json.loads((out / "run.json").read_text())
    assert record["settings"]["ties"] == "strict"
    assert record["suites"][0]["ties"] == {"exact": 1, "near": 1}
    [note] = record_tie_notes("fake", record)
    assert note.startswith("ties in pairs (fake): 1 prediction compares two equal values, counted as failing "
                           "(tie rule strict; the lm-eval rule counts them as holding)")
    assert "1 prediction compares values within the tolerance (0.001 bits)" in note

    lm_record = json.loads((write_run(results["lm-eval"], tmp_path / "lm").parent / "run.json").read_text())
    assert lm_record["settings"]["ties"] == "lm-eval" and lm_record["suites"][0]["accuracy"] == 0.75
    assert "counted as holding (tie rule lm-eval" in record_tie_notes("fake", lm_record)[0]


def test_without_tolerance_only_equal_sides_tie_and_records_without_ties_have_no_note():
    suite = _pairs_suite()
    scores = {s.text: s for s in _scorer().score([r.content for i in suite.items for c in i.conditions
                                                   for r in c.regions])}
    result = evaluate_suite(suite, scores, tolerance=Tolerance(atol=0.0, rtol=0.0))
    assert result.ties() == {"exact": 1, "near": 0}  # no tolerance: only two equal sides tie
    record = {"settings": {}, "suites": [{"name": "old", "accuracy": 0.5}, {"name": "x", "ties": {"exact": 0,
                                                                                                 "near": 0}}]}
    assert record_tie_notes("m", record) == []


def test_a_scored_suite_evaluated_again_takes_the_rule(tmp_path):
    out = write_run(run_suites([_pairs_suite()], RunSettings(model="fake"), scorer=_scorer()), tmp_path / "r").parent
    scored = out / "suites" / "pairs.json"
    assert evaluate_scored_suite(scored).accuracy() == 0.5
    assert evaluate_scored_suite(scored, tolerance=Tolerance(ties="lm-eval")).accuracy() == 0.75


def test_the_near_tie_note_says_where_a_prediction_had_its_own_tolerance():
    plain = tie_note("m", "s", {"near": 2}, "strict", 0.001)
    own = tie_note("m", "s", {"near": 2}, "strict", 0.001, own_tolerance=True)
    assert "2 predictions compare values within the tolerance (0.001 bits), decided" in plain
    assert "2 predictions compare values within the tolerance (0.001 bits, or a prediction's own), decided" in own
