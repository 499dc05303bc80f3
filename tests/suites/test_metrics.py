import math
import random

import pytest

from linguagym.suites.metrics import METRIC_NAMES, aggregate, all_metrics


def test_six_metrics():
    assert METRIC_NAMES == ("sum", "mean", "median", "range", "max", "min")
    values = [3.0, 1.0, 8.0, 2.0]
    assert [aggregate(m, values) for m in METRIC_NAMES] == [14.0, 3.5, 2.5, 7.0, 8.0, 1.0]


def test_empty_region_sum_is_zero_and_the_rest_undefined():
    assert aggregate("sum", []) == 0.0
    for metric in METRIC_NAMES[1:]:
        assert math.isnan(aggregate(metric, [])), metric


def test_single_token():
    assert [aggregate(m, [2.5]) for m in METRIC_NAMES] == [2.5, 2.5, 2.5, 0.0, 2.5, 2.5]


def test_sum_is_exactly_rounded():
    assert aggregate("sum", [1e16, 1.0, -1e16]) == 1.0


def test_unknown_metric():
    with pytest.raises(ValueError, match="unknown metric 'total'"):
        aggregate("total", [1.0])


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


@pytest.mark.parametrize("values", [
    [], [2.5], [3.0, 1.0, 8.0, 2.0], [1e16, 1.0, -1e16], [0.1] * 7, [math.inf, 2.0], [1.0, math.nan, 3.0],
    [math.nan, 1.0], *([random.Random(seed).uniform(0, 30) for _ in range(random.Random(seed).randrange(1, 40))]
                       for seed in range(50)),
])
def test_all_metrics_at_once_equal_each_metric_alone(values):
    together = all_metrics(values)
    assert list(together) == list(METRIC_NAMES)
    for metric in METRIC_NAMES:
        assert _same(together[metric], aggregate(metric, values)), (metric, values)
