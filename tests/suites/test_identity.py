"""What counts as an edit of a suite: reordered conditions and empty metadata do not; text, order of items, regions
and predictions, and a filled-in field do."""

from __future__ import annotations

import copy

from linguagym.suites.identity import same_content
from linguagym.suites.load import parse_suite_data
from tests.conftest import minimal_suite


def _suite(data):
    return parse_suite_data(data, source="test").suite


def test_reordered_conditions_and_empty_fields_are_not_edits():
    data = minimal_suite(meta={"name": "tiny", "metric": "sum", "author": "A", "reference": ""})
    other = copy.deepcopy(data)
    other["meta"] = {"name": "tiny", "metric": "sum", "author": "A", "comment": ""}
    other["items"][1]["conditions"].reverse()
    assert _suite(data) != _suite(other)  # the files differ...
    assert same_content(_suite(data), _suite(other))  # ...the suite does not


def test_text_order_and_filled_fields_are_edits():
    data = minimal_suite()
    changed = copy.deepcopy(data)
    changed["items"][0]["conditions"][0]["regions"][1]["content"] = "runs"
    assert not same_content(_suite(data), _suite(changed))
    reordered = copy.deepcopy(data)
    reordered["items"].reverse()
    assert not same_content(_suite(data), _suite(reordered))
    authored = copy.deepcopy(data)
    authored["meta"]["author"] = "B"
    assert not same_content(_suite(data), _suite(authored))
    two = copy.deepcopy(data)
    two["predictions"] = [{"type": "formula", "formula": "(2;%match%) < (2;%mismatch%)"}, *data["predictions"]]
    swapped = copy.deepcopy(two)
    swapped["predictions"].reverse()
    assert not same_content(_suite(two), _suite(swapped))
