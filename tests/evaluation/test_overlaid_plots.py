"""Region plots of several models on one axis: one colour per model, one marker and dash per condition."""

from __future__ import annotations

import re

from linguagym import charts
from linguagym.evaluation import plots


def _rows(model_shift: float, regions=("subject", "verb")) -> list[dict[str, str]]:
    """regions.csv rows of one suite: two conditions x two items x the regions, surprisal = region + shift."""
    return [{"suite": "agr", "condition": condition, "item": str(item), "region": str(r), "region_name": name,
             "sum": str(r + model_shift + (condition == "mismatch")), "tokens": "1"}
            for condition in ("match", "mismatch") for item in (1, 2) for r, name in enumerate(regions, start=1)]


def test_two_models_share_one_axis_with_a_colour_each_and_a_dash_per_condition():
    small = plots.suite_regions(_rows(0.0), {"agr": "sum"})["agr"]
    large = plots.suite_regions(_rows(10.0), {"agr": "sum"})["agr"]
    assert small.region_names == ("subject", "verb") and small.series[1].means == (2.0, 3.0)
    svg = plots.overlaid_region_plot_svg("agr", {"small": small, "large": large})
    assert svg.count("<svg") == 1 and "agr (2 models)" in svg
    lines = dict(re.findall(r'data-series="([^"]+)"><path class="line" d="[^"]+" stroke="([^"]+)"', svg))
    assert lines == {"small · match": charts.colour(0), "small · mismatch": charts.colour(0),
                     "large · match": charts.colour(1), "large · mismatch": charts.colour(1)}
    dashes = dict(re.findall(r'data-series="([^"]+)"><path class="line"[^>]*?(?: stroke-dasharray="([^"]+)")?/>', svg))
    assert dashes["small · match"] == dashes["large · match"] == ""  # the first condition solid
    assert dashes["small · mismatch"] == dashes["large · mismatch"] != ""  # the second dashed, in both models
    # one y axis spans both models' values (2 to 13 bits), so they are drawn to the same scale
    ticks = [float(t) for t in re.findall(r'<text[^>]*text-anchor="end"[^>]*>(-?[\d.]+)</text>', svg)]
    assert min(ticks) <= 2 and max(ticks) >= 13


def test_only_models_with_the_same_regions_share_an_axis():
    first = plots.suite_regions(_rows(0.0), {"agr": "sum"})["agr"]
    other_version = plots.suite_regions(_rows(0.0, ("subject", "verb", "end")), {"agr": "sum"})["agr"]
    assert list(plots.same_regions({"a": first, "b": other_version, "c": first})) == ["a", "c"]
    assert plots.same_regions({}) == {}


def _plot_area_width(svg: str) -> float:
    """The width of the plotting area: the x axis, the longest horizontal axis-coloured line."""
    lines = re.findall(r'<line x1="([\d.]+)" y1="([\d.]+)" x2="([\d.]+)" y2="\2" stroke="#59636e"', svg)
    return max(float(x2) - float(x1) for x1, _, x2 in lines)


def test_two_models_by_four_conditions_are_drawn_wide_enough_to_read():
    conditions = ("match_sing", "mismatch_sing", "match_plural", "mismatch_plural")
    rows = [{"suite": "np", "condition": c, "item": "1", "region": str(r), "region_name": f"r{r}",
             "sum": str(r + k), "tokens": "1"} for k, c in enumerate(conditions) for r in range(1, 7)]
    one = plots.suite_regions(rows, {"np": "sum"})["np"]
    few = plots.overlaid_region_plot_svg("np", {"a": one})  # 4 lines: the default size, as before
    many = plots.overlaid_region_plot_svg("np", {"a": one, "b": one})  # 8 lines
    assert _plot_area_width(few) == 336  # six regions of 56 px
    assert _plot_area_width(many) >= 600
    width = float(re.search(r'<svg[^>]* width="([\d.]+)"', many).group(1))
    assert 600 < width < 800  # and it still fits a laptop's page at natural size
