import math

import pytest

from linguagym.errors import ConfigurationError
from linguagym.evaluation.evaluate import evaluate_suite, suite_sentences
from linguagym.suites.load import parse_suite_data
from tests.conftest import minimal_suite
from tests.evaluation.fakes import WordScorer


def scores_for(suite, scorer, spacing="natural"):
    texts = sorted({s.text for s in suite_sentences(suite, spacing)})
    return dict(zip(texts, scorer.score(texts), strict=True))


def surprise(table):
    return WordScorer(lambda word, index: table.get(word, 1.0))


def test_prediction_holds_when_the_mismatching_verb_is_more_surprising():
    suite = parse_suite_data(minimal_suite()).suite
    result = evaluate_suite(suite, scores_for(suite, surprise({"swim": 9.0, "swims": 2.0})))
    assert [p.holds for p in result.predictions] == [True, True]
    assert result.accuracy() == 1.0
    result = evaluate_suite(suite, scores_for(suite, surprise({"swim": 1.0, "swims": 2.0})))
    assert result.accuracy() == 0.0


def test_region_values_for_every_metric_and_the_whole_sentence():
    data = minimal_suite()
    data["meta"]["metric"] = "all"
    suite = parse_suite_data(data).suite
    result = evaluate_suite(suite, scores_for(suite, surprise({"The": 1.0, "boy": 3.0, "today": 2.0, ".": 4.0})))
    first = result.conditions[0]
    assert first.sentence.text == "The boy swims today."
    assert first.values[1] == {"sum": 4.0, "mean": 2.0, "median": 2.0, "range": 2.0, "max": 3.0, "min": 1.0}
    assert first.values[None]["sum"] == 1.0 + 3.0 + 1.0 + 2.0 + 4.0


def test_empty_region_makes_non_sum_comparisons_false_and_reported():
    data = minimal_suite(predictions=[{"type": "formula", "formula": "(2;%mismatch%) > (2;%match%)"}])
    data["meta"]["metric"] = "mean"
    data["items"][0]["conditions"][1]["regions"][1]["content"] = ""
    suite = parse_suite_data(data).suite
    result = evaluate_suite(suite, scores_for(suite, WordScorer()))
    first = result.predictions[0]
    assert not first.holds and [str(r) for r in first.undefined] == ["(2;%mismatch%)"]
    assert math.isnan(result.conditions[1].values[2]["mean"])
    # with sum, the empty region is 0 and the comparison is defined
    summed = evaluate_suite(suite, scores_for(suite, WordScorer()), metric="sum")
    assert summed.predictions[0].undefined == () and not summed.predictions[0].holds


def test_policies_all_and_first():
    data = minimal_suite(predictions=[
        {"type": "formula", "formula": "(2;%mismatch%) > (2;%match%)"},
        {"type": "formula", "formula": "(1;%mismatch%) > (1;%match%)"},  # never holds: same words
    ])
    suite = parse_suite_data(data).suite
    result = evaluate_suite(suite, scores_for(suite, surprise({"swim": 9.0})))
    assert result.accuracy("all") == 0.0
    assert result.accuracy("first") == 1.0
    with pytest.raises(ConfigurationError):
        result.accuracy("most")


def test_whole_sentence_reference():
    data = minimal_suite(predictions=[{"type": "formula", "formula": "(*;%mismatch%) > (*;%match%)"}])
    suite = parse_suite_data(data).suite
    assert evaluate_suite(suite, scores_for(suite, surprise({"swim": 9.0}))).accuracy() == 1.0


def test_accuracy_of_each_prediction():
    data = minimal_suite(predictions=[
        {"type": "formula", "formula": "(2;%mismatch%) > (2;%match%)"},
        {"type": "formula", "formula": "(1;%mismatch%) > (1;%match%)"},
    ])
    suite = parse_suite_data(data).suite
    result = evaluate_suite(suite, scores_for(suite, surprise({"swim": 9.0})))
    assert result.prediction_accuracy() == [1.0, 0.0]
