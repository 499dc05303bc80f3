"""One item's region plot (the web item page's): every model on one axis, conditions in the suite's order whatever
the item's order, each value exactly as the item's regions hold it."""

from __future__ import annotations

import math
import re

from linguagym import charts
from linguagym.evaluation.item_detail import ConditionScores, ItemScores, RegionScores
from linguagym.evaluation.item_plot import item_region_plot_svg

SUITE_ORDER = ("match", "mismatch", "other")


def _item(model: str, order: tuple[str, ...], shift: float) -> ItemScores:
    """Item 2 of suite "agr" listing its conditions in ``order``; region r of condition c has r + 10 * c + shift bits
    (c: the condition's place in the suite), region 3 of "other" undefined and region 1 of "match" empty (sum 0)."""
    def region(number: int, condition: str) -> RegionScores:
        value = math.nan if (condition, number) == ("other", 3) else number + 10 * SUITE_ORDER.index(condition) + shift
        if (condition, number) == ("match", 1):
            return RegionScores(number, f"r{number}", "", {"sum": 0.0}, (), None)
        return RegionScores(number, f"r{number}", "text", {"sum": value}, (), None)
    conditions = tuple(ConditionScores(c, tuple(region(n, c) for n in (1, 2, 3))) for c in order)
    return ItemScores(model, "agr", 2, "sum", conditions, (), False, SUITE_ORDER)


def _series(svg: str) -> list[str]:
    return re.findall(r'<g class="series" data-series="([^"]+)">', svg)


def test_conditions_are_drawn_in_the_suites_order_with_the_same_marker_in_every_item():
    in_order = item_region_plot_svg([_item("small", SUITE_ORDER, 0.0)])
    reordered = item_region_plot_svg([_item("small", ("other", "mismatch", "match"), 0.0)])
    assert _series(in_order) == _series(reordered) == list(SUITE_ORDER)
    assert in_order == reordered  # the same drawing, marker and colour per condition, whatever the item's order
    lines = dict(re.findall(r'data-series="([^"]+)"><path class="line" d="[^"]+" stroke="([^"]+)"', in_order))
    assert lines == {name: charts.colour(k) for k, name in enumerate(SUITE_ORDER)}  # one model: a colour each
    assert "agr, item 2 (small)" in in_order


def test_every_model_on_one_axis_with_its_values_and_gaps():
    svg = item_region_plot_svg([_item("small", SUITE_ORDER, 0.0), _item("large", ("mismatch", "other", "match"), 5.0)])
    assert _series(svg) == [f"{model} · {c}" for model in ("small", "large") for c in SUITE_ORDER]
    lines = dict(re.findall(r'data-series="([^"]+)"><path class="line" d="[^"]+" stroke="([^"]+)"', svg))
    assert {lines[f"small · {c}"] for c in SUITE_ORDER} == {charts.colour(0)}  # a colour per model
    assert {lines[f"large · {c}"] for c in SUITE_ORDER} == {charts.colour(1)}
    tooltips = re.findall(r"<title>([^<]+)</title>", svg)
    assert "large · mismatch · 2 r2: 17.000" in tooltips  # 2 + 10 + 5 bits, exactly
    assert not any(t.startswith("small · other · 3") for t in tooltips)  # undefined: a gap, not a 0
    assert not any(t.startswith("large · match · 1") for t in tooltips)  # empty: a gap, as in the suite's plot
    assert "large · match · 2 r2: 7.000" in tooltips
    assert "small · other · 2 r2: 22.000" in tooltips
