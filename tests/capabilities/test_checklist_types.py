"""CheckList's test types as objects (``checklist_types``): one table, each type with its pass rule, rate and
labels; ``Outcome.passed`` and the reports read them from there."""

from __future__ import annotations

import pytest

from linguagym.capabilities.classifiers.base import Prediction
from linguagym.capabilities.testfile.checklist_types import DIR, INV, MFT, PAIRED, TEST_TYPES, type_of
from linguagym.capabilities.testfile.model import TEST_TYPES as FILE_CODES
from linguagym.capabilities.testfile.model import Direction
from linguagym.capabilities.testing.classifier_run import Outcome
from linguagym.capabilities.testing.failures import summarize


def _outcome(test_type: str, label: str, probabilities=(0.1, 0.2, 0.7), original: Prediction | None = None,
             direction: Direction | None = None, expected=("positive",)) -> Outcome:
    return Outcome("t1", "LC1", "seed", None, "A film.", expected, Prediction(label, probabilities),
                   test_type=test_type, original_text="The film." if original else None,
                   original_prediction=original, direction=direction)


def test_the_table_holds_the_three_types_in_the_files_order_under_their_codes():
    assert list(TEST_TYPES) == ["MFT", "INV", "DIR"] == list(FILE_CODES)
    assert [TEST_TYPES[code] for code in TEST_TYPES] == [MFT, INV, DIR]
    assert PAIRED == (INV, DIR) and not MFT.paired
    assert str(INV) == "INV" and type_of(None) is MFT and type_of("DIR") is DIR


def test_each_type_owns_its_pass_rule():
    original = Prediction("positive", (0.1, 0.2, 0.7))
    assert MFT.passed(_outcome("MFT", "positive")) and not MFT.passed(_outcome("MFT", "negative"))
    assert INV.passed(_outcome("INV", "positive", original=original))
    assert not INV.passed(_outcome("INV", "neutral", (0.1, 0.8, 0.1), original=original))
    down = Direction(label="positive", change="decrease", tolerance=0.1)
    assert DIR.passed(_outcome("DIR", "positive", (0.1, 0.25, 0.65), original, down))  # a fall
    assert DIR.passed(_outcome("DIR", "positive", (0.1, 0.15, 0.75), original, down))  # a rise within tolerance
    assert not DIR.passed(_outcome("DIR", "positive", (0.0, 0.0, 1.0), original, down))  # a rise past it


def test_outcome_passed_is_its_types_rule():
    original = Prediction("positive", (0.1, 0.2, 0.7))
    flipped = _outcome("INV", "negative", (0.7, 0.2, 0.1), original=original, expected=("negative",))
    assert flipped.type is INV and not flipped.passed  # the expected label would pass it: INV's rule does not
    assert _outcome("INV", "negative", expected=("negative",)).passed  # no original: read as an MFT


def test_each_type_counts_its_own_failures_and_the_summary_uses_them():
    original = Prediction("positive", (0.1, 0.2, 0.7))
    outcomes = [_outcome("MFT", "negative"), _outcome("INV", "negative", original=original),
                _outcome("INV", "positive", original=original)]
    assert MFT.failures(outcomes) == (1, 1) and INV.failures(outcomes) == (1, 2) and DIR.failures(outcomes) == (0, 0)
    total = summarize(outcomes).total
    assert (total.invariance.failed, total.invariance.total) == INV.failures(outcomes)
    assert (total.directional.failed, total.directional.total) == (0, 0)


def test_the_rules_are_the_words_the_test_file_records():
    # the perturbations block writes these; a change here would change every generated file
    assert {t.code: t.rule for t in PAIRED} == {
        "INV": "fails when the predicted label differs from the label predicted for original_text",
        "DIR": "fails when the probability of direction.label moves against direction.change by more than "
               "direction.tolerance"}


def test_an_unknown_code_is_not_a_type():
    with pytest.raises(KeyError):
        type_of("XYZ")
