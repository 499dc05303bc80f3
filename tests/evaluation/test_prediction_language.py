"""A small suite using each operator added to the prediction language (#37), scored by a fake model whose surprisals
are a table, evaluated end to end (sentences, alignment, region values, predictions); every expected value is
worked out by hand in the comments. Also a prediction's own tolerance over the run's, and undefined regions in a
range."""

import math

from linguagym.evaluation.evaluate import evaluate_suite, suite_sentences
from linguagym.suites.formula import Tolerance
from linguagym.suites.load import parse_suite_data
from tests.conftest import minimal_suite
from tests.evaluation.fakes import WordScorer

# surprisal of each word, in bits: regions are 1 "The boy", 2 the verb, 3 "today ."
BITS = {"The": 1.0, "boy": 3.0, "swims": 2.0, "swim": 6.0, "today": 2.5, ".": 0.5}


def evaluated(predictions, tolerance=None, metric=None, change=None):
    data = minimal_suite(predictions=[p if isinstance(p, dict) else {"type": "formula", "formula": p}
                                      for p in predictions])
    if change:
        change(data)
    suite = parse_suite_data(data).suite
    scorer = WordScorer(lambda word, index: BITS.get(word, 1.0))
    texts = sorted({s.text for s in suite_sentences(suite)})
    scores = dict(zip(texts, scorer.score(texts), strict=True))
    return evaluate_suite(suite, scores, tolerance=tolerance, metric=metric)


def outcomes(result, item=1):
    return [r.holds for r in result.predictions if r.item == item]


def test_each_new_operator_on_a_scored_suite():
    # match: 1 = 1 + 3 = 4, 2 = 2 (swims), 3 = 2.5 + 0.5 = 3; mismatch: 1 = 4, 2 = 6 (swim), 3 = 3
    result = evaluated([
        "(2;%mismatch%) >= (2;%match%)",  # 6 >= 2: holds
        "(1;%mismatch%) >= (1;%match%)",  # 4 >= 4: holds (equal sides hold, no tie)
        "(1;%mismatch%) <= (1;%match%) & (2;%mismatch%) <= (2;%match%)",  # 4 <= 4 and 6 <= 2: fails
        "(2;%mismatch%) != (2;%match%)",  # 6 != 2: holds
        "!((2;%mismatch%) < (2;%match%))",  # not (6 < 2): holds
        "3 * (2;%match%) = (2;%mismatch%)",  # 3 * 2 = 6: holds
        "-2 * (2;%match%) > -(2;%mismatch%)",  # -4 > -6: holds
        "abs((2;%match%) - (2;%mismatch%)) = 4",  # |2 - 6| = 4: holds
        "(1..3;%match%) = 9",  # 4 + 2 + 3: holds
        "(1,3;%mismatch%) = (1;%match%) + (3;%match%)",  # 4 + 3 = 7 = 4 + 3: holds
        "(2..3;%mismatch%) - (2..3;%match%) > 3.5",  # (6 + 3) - (2 + 3) = 4 > 3.5: holds
    ])
    assert outcomes(result) == [True, True, False, True, True, True, True, True, True, True, True]
    assert outcomes(result, item=2) == outcomes(result)
    assert [r.tie for r in result.predictions if r.item == 1] == [""] * 11  # no '<' or '>' of equal sides


def test_a_predictions_own_tolerance_comes_before_the_runs():
    # mismatch - match at the verb: 6 - 2 = 4; "= 4.05" holds within atol 0.1, not within the default 0.001
    own = {"type": "formula", "formula": "(2;%mismatch%) - (2;%match%) = 4.05", "atol": 0.1}
    plain = "(2;%mismatch%) - (2;%match%) = 4.05"
    result = evaluated([own, plain])
    assert outcomes(result) == [True, False]
    assert result.suite.predictions[0].atol == 0.1 and result.suite.predictions[1].atol is None
    # the run's tolerance reaches the predictions without one, never one that has its own
    loose = evaluated([own, plain], tolerance=Tolerance(atol=0.2))
    assert outcomes(loose) == [True, True]
    strict_own = {"type": "formula", "formula": plain, "atol": 0, "rtol": 0}
    assert outcomes(evaluated([strict_own], tolerance=Tolerance(atol=0.2))) == [False]
    # rtol alone: 0.05 <= 0.001 + 0.02 * 4.05 = 0.082
    assert outcomes(evaluated([{"type": "formula", "formula": plain, "rtol": 0.02}])) == [True]


def test_a_near_tie_is_judged_with_the_predictions_own_tolerance():
    # 6 against 6.05: a near tie within atol 0.1 (the prediction's), not within the run's default 0.001
    result = evaluated([{"type": "formula", "formula": "(2;%mismatch%) < 6.05", "atol": 0.1},
                        "(2;%mismatch%) < 6.05", "(2;%mismatch%) > 6"])
    assert outcomes(result) == [True, True, False]
    assert [r.tie for r in result.predictions if r.item == 1] == ["near", "", "exact"]
    assert result.ties() == {"exact": 2, "near": 2}
    assert outcomes(evaluated(["(2;%mismatch%) > 6"], tolerance=Tolerance(ties="lm-eval"))) == [True]


def test_an_empty_region_in_a_range_is_undefined_under_mean_and_zero_under_sum():
    def empty_verb(data):  # item 1's match condition has no verb
        data["items"][0]["conditions"][0]["regions"][1]["content"] = ""

    formula = "(1..2;%match%) < (1..2;%mismatch%)"
    summed = evaluated([formula], change=empty_verb)
    # sum: 4 + 0 < 4 + 6 holds; item 2: 4 + 2 < 4 + 6 holds
    assert [(r.holds, r.undefined) for r in summed.predictions] == [(True, ()), (True, ())]
    meant = evaluated([formula, "!(" + formula + ")"], change=empty_verb, metric="mean")
    first = [r for r in meant.predictions if r.item == 1]
    # mean of region 2 of match is undefined: the range is undefined, its negation too, and neither holds
    assert math.isnan(meant.conditions[0].values[2]["mean"])
    assert [(r.holds, [str(ref) for ref in r.undefined]) for r in first] == [
        (False, ["(2;%match%)"]), (False, ["(2;%match%)"])]
    assert meant.undefined_predictions() == 2
    # item 2 under mean: 2 + 2 < 2 + 6 holds, its negation fails
    assert [r.holds for r in meant.predictions if r.item == 2] == [True, False]


def test_a_suite_with_every_new_operator_runs_from_the_command_line(write_suite, tmp_path):
    """validate, run (an lm-zoo file of the surprisals above as the model) and the run record: each prediction's
    accuracy is the value worked out by hand, and the run's --atol reaches the predictions without their own."""
    import json

    from linguagym.cli import main

    formulas = ["(2;%mismatch%) >= (2;%match%)", "(1;%mismatch%) <= (1;%match%)", "(2;%mismatch%) != (2;%match%)",
                "!((2;%mismatch%) < (2;%match%))", "3 * (2;%match%) = (2;%mismatch%)",
                "abs((2;%match%) - (2;%mismatch%)) = 4", "(1..3;%match%) = 9", "(1,3;%mismatch%) = 7",
                "(2;%mismatch%) - (2;%match%) = 4.15",  # within --atol 0.2, not the default
                {"type": "formula", "formula": "(2;%mismatch%) - (2;%match%) = 4.15", "atol": 0.1}]  # its own
    suite = write_suite(minimal_suite(predictions=[f if isinstance(f, dict) else {"type": "formula", "formula": f}
                                                   for f in formulas]))
    assert main(["validate", "-q", str(suite)]) == 0
    rows = ["sentence_id\ttoken_id\ttoken\tsurprisal"]
    for sentence, verb in enumerate(["swims", "swim", "swims", "swim"], start=1):
        for token_id, token in enumerate(["The", "boy", verb, "today", "."], start=1):
            rows.append(f"{sentence}\t{token_id}\t{token}\t{BITS[token]}")
    model = tmp_path / "table.tsv"
    model.write_text("\n".join(rows) + "\n")
    out = tmp_path / "out"
    assert main(["run", "--model", str(model), "--atol", "0.2", "--no-report", "-o", str(out), str(suite)]) == 0
    [record_path] = out.glob("*/run.json")
    record = json.loads(record_path.read_text())
    assert (record["settings"]["atol"], record["settings"]["rtol"]) == (0.2, 1e-5)
    [entry] = record["suites"]
    assert [p["accuracy"] for p in entry["predictions"]] == [1.0] * 9 + [0.0]
    assert [p["formula"] for p in entry["predictions"]][-3:] == [
        "(1,3;%mismatch%) = 7", "(2;%mismatch%) - (2;%match%) = 4.15", "(2;%mismatch%) - (2;%match%) = 4.15"]
