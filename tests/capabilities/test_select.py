from __future__ import annotations

import math
import random

import pytest

from linguagym.capabilities.expansion.selection import select, selection_score


def test_score_adds_confidence_and_log_probability():
    assert selection_score(-3.0, 0.25) == pytest.approx(-5.0)
    assert selection_score(0.0, 0.0) == pytest.approx(math.log2(1e-12))


def test_best_by_score_or_random_baseline():
    items = ["a", "b", "c", "d"]
    scores = [-5.0, -1.0, -3.0, -2.0]
    assert select(items, scores, 2) == ["b", "d"]
    picked = select(items, scores, 2, "random", random.Random(1))
    assert len(picked) == 2 and set(picked) <= set(items)
    assert select(items, scores, 0) == [] and select(items, scores, 9) == ["b", "d", "c", "a"]
    with pytest.raises(ValueError):
        select(items, scores, 1, "best")
