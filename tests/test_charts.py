"""The SVG chart writer: well-formed, faithful to the values (bar heights, gaps, intervals), safe with any text,
and deterministic."""

import math
import xml.etree.ElementTree as ET

import pytest

from linguagym import charts

NS = {"s": "http://www.w3.org/2000/svg"}


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)  # raises on malformed XML
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    return root


def bars(root: ET.Element) -> list[ET.Element]:
    return root.findall(".//s:rect[@class='bar']", NS)


def bar_titles(root: ET.Element) -> list[str]:
    return [rect.find("s:title", NS).text for rect in bars(root)]


def test_grouped_bars_is_a_self_contained_svg_with_a_viewbox():
    svg = charts.grouped_bars(["a", "b"], {"m": [0.2, 0.4]}, y_label="accuracy")
    root = parse(svg)
    assert svg.startswith("<svg ") and svg.endswith("</svg>")
    width, height = float(root.get("width")), float(root.get("height"))
    assert root.get("viewBox") == f"0 0 {root.get('width')} {root.get('height')}"
    assert width > 300 and height > 200
    assert "href" not in svg and "<script" not in svg  # nothing fetched, nothing run


def test_bar_heights_are_proportional_to_values():
    values = [0.1, 0.25, 0.5, 1.0]
    root = parse(charts.grouped_bars(["a", "b", "c", "d"], {"m": values}, y_label="accuracy", y_max=1.0))
    heights = [float(rect.get("height")) for rect in bars(root)]
    assert len(heights) == 4
    per_unit = heights[-1] / values[-1]
    for value, height in zip(values, heights, strict=True):
        assert height == pytest.approx(value * per_unit, abs=0.15)
    bottoms = {round(float(r.get("y")) + float(r.get("height")), 1) for r in bars(root)}
    assert len(bottoms) == 1  # all bars stand on the same baseline


def test_bars_of_one_category_sit_side_by_side_in_series_order_and_colour():
    root = parse(charts.grouped_bars(["x"], {"first": [0.5], "second": [0.6]}, y_label="v"))
    first, second = bars(root)
    assert float(first.get("x")) < float(second.get("x"))
    assert first.get("fill") == charts.PALETTE[0] and second.get("fill") == charts.PALETTE[1]
    legend = root.find(".//s:g[@class='legend']", NS)
    assert [t.text for t in legend.iter("{http://www.w3.org/2000/svg}text")] == ["first", "second"]


def test_missing_values_draw_no_bar_and_are_marked_not_zero():
    root = parse(charts.grouped_bars(["a", "b", "c"], {"m": [0.5, None, math.nan]}, y_label="accuracy"))
    assert bar_titles(root) == ["m \u00b7 a: 0.500"]
    missing = root.findall(".//s:text[@class='missing']", NS)
    assert len(missing) == 2 and all(m.find("s:title", NS).text.endswith("no value") for m in missing)


def test_tooltips_carry_exact_values_and_intervals():
    root = parse(charts.grouped_bars(["a", "b"], {"m": [0.91234, 0.5]}, y_label="accuracy",
                                     intervals={"m": [(0.85, 0.97), None]}))
    assert bar_titles(root) == ["m \u00b7 a: 0.912 [0.850, 0.970]", "m \u00b7 b: 0.500"]


def test_percent_shows_fractions_as_percentages():
    root = parse(charts.grouped_bars(["a"], {"m": [0.25]}, y_label="failure rate", y_max=1.0, percent=True))
    assert bar_titles(root) == ["m \u00b7 a: 25.0%"]
    tick_texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert "100%" in tick_texts and "0%" in tick_texts


def test_intervals_are_drawn_from_low_to_high():
    root = parse(charts.grouped_bars(["a", "b"], {"m": [0.5, 1.0]}, y_label="accuracy", y_max=1.0,
                                     intervals={"m": [(0.25, 0.75), None]}))
    (interval,) = root.findall(".//s:path[@class='interval']", NS)
    rect_a, rect_b = bars(root)
    baseline = float(rect_a.get("y")) + float(rect_a.get("height"))
    per_unit = float(rect_b.get("height"))  # value 1.0
    start, end = interval.get("d").split("V")
    low_y, high_y = float(start.split()[1]), float(end.split("M")[0])
    assert low_y == pytest.approx(baseline - 0.25 * per_unit, abs=0.15)
    assert high_y == pytest.approx(baseline - 0.75 * per_unit, abs=0.15)


def test_reference_line_sits_at_its_value():
    root = parse(charts.grouped_bars(["a"], {"m": [1.0]}, y_label="accuracy", y_max=1.0, reference=0.5))
    line = root.find(".//s:g[@class='reference']/s:line", NS)
    rect = bars(root)[0]
    baseline = float(rect.get("y")) + float(rect.get("height"))
    assert float(line.get("y1")) == pytest.approx(baseline - 0.5 * float(rect.get("height")), abs=0.15)


def test_text_is_escaped():
    hostile = "<script>alert('x')</script> & \x07"
    svg = charts.grouped_bars([hostile], {hostile: [0.5], "other": [0.4]}, y_label=hostile, title=hostile)
    root = parse(svg)
    assert "<script>" not in svg and "&lt;script&gt;" in svg
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text") if t.text]
    assert "<script>alert('x')</script> & \ufffd" in texts  # round-trips as text, not markup


def test_long_category_labels_are_rotated_and_short_ones_are_not():
    short = parse(charts.grouped_bars(["a", "b"], {"m": [1, 2]}, y_label="v"))
    assert not [t for t in short.iter("{http://www.w3.org/2000/svg}text") if "rotate(-45" in t.get("transform", "")]
    names = [f"a_rather_long_suite_name_{i}" for i in range(30)]
    root = parse(charts.grouped_bars(names, {"m": [0.5] * 30}, y_label="v"))
    rotated = [t for t in root.iter("{http://www.w3.org/2000/svg}text") if "rotate(-45" in t.get("transform", "")]
    assert [t.text for t in rotated] == names
    assert min(float(t.get("x")) for t in rotated) > charts.text_width(names[0], charts.TICK_SIZE) * 0.7 - 1


def test_very_long_labels_are_cut_with_the_whole_label_in_their_tooltip():
    long = "x" * 30 + " " + "y" * 30
    root = parse(charts.grouped_bars([long, "b" * 45], {"m": [1, 2]}, y_label="v"))
    rotated = [t for t in root.iter("{http://www.w3.org/2000/svg}text") if "rotate(-45" in t.get("transform", "")]
    assert [len(t.text) for t in rotated] == [40, 40] and rotated[0].text.endswith("\u2026")
    assert rotated[0].find("s:title", NS).text == long


def test_few_long_labels_are_wrapped_at_spaces():
    root = parse(charts.grouped_bars(["Vocabulary: negation of a positive word", "Taxonomy"],
                                     {"m": [0.1, 0.2]}, y_label="v"))
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert "Taxonomy" in texts and "Vocabulary: negation of a positive word" not in texts
    assert any(t and t.startswith("Vocabulary") for t in texts)


def test_output_is_deterministic():
    def make():
        return charts.grouped_bars(["a", "b"], {"m": [0.3, None], "n": [0.1, 0.9]}, y_label="accuracy",
                                   intervals={"m": [(0.2, 0.4), None]}, reference=0.5, title="t")

    assert make() == make()
    lines = dict(categories=["1\nintro", "2\nverb"], series={"c": [1.0, 2.0]}, y_label="s",
                 intervals={"c": [(0.5, 1.5), None]})
    assert charts.line_chart(**lines) == charts.line_chart(**lines)


def test_axis_takes_in_negative_values_and_bars_hang_below_zero():
    root = parse(charts.grouped_bars(["up", "down"], {"m": [2.0, -1.0]}, y_label="difference"))
    up, down = bars(root)
    assert float(up.get("y")) + float(up.get("height")) == pytest.approx(float(down.get("y")), abs=0.15)
    assert float(up.get("height")) == pytest.approx(2 * float(down.get("height")), abs=0.2)


def test_mismatched_lengths_are_refused():
    with pytest.raises(ValueError, match="2 values for 3 categories"):
        charts.grouped_bars(["a", "b", "c"], {"m": [1, 2]}, y_label="v")
    with pytest.raises(ValueError, match="unknown series"):
        charts.grouped_bars(["a"], {"m": [1]}, y_label="v", intervals={"n": [(0, 1)]})


def test_line_chart_breaks_at_missing_values_and_draws_intervals():
    root = parse(charts.line_chart(["1\nintro", "2\nverb", "3\nnoun", "4\nend"],
                                   {"c": [1.0, 2.0, None, 4.0]}, y_label="surprisal",
                                   intervals={"c": [(0.5, 1.5), None, None, (3.0, 5.0)]}))
    path = root.find(".//s:path[@class='line']", NS).get("d")
    assert path.count("M") == 2 and path.count("L") == 1  # 1-2 joined, gap, 4 alone
    points = root.findall(".//s:g[@class='point']", NS)
    assert [p.find("s:title", NS).text for p in points] == [
        "c \u00b7 1 intro: 1.000 [0.500, 1.500]", "c \u00b7 2 verb: 2.000", "c \u00b7 4 end: 4.000 [3.000, 5.000]"]
    assert len(root.findall(".//s:path[@class='interval']", NS)) == 2
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert "intro" in texts and "1" in texts  # a newline in a label starts a second line


def test_line_series_differ_by_marker_as_well_as_colour():
    root = parse(charts.line_chart(["a", "b"], {"x": [1, 2], "y": [2, 3], "z": [3, 1]}, y_label="v"))
    shapes = [p[0].tag.split("}")[1] for p in root.findall(".//s:g[@class='point']", NS)]
    assert shapes == ["circle", "circle", "rect", "rect", "polygon", "polygon"]


@pytest.mark.parametrize(("low", "high", "expected"), [
    (0, 1, [0, 0.2, 0.4, 0.6, 0.8, 1.0]),
    (0, 18.7, [0, 5, 10, 15, 20]),
    (-1, 2, [-1, 0, 1, 2]),
    (3, 3, [2, 2.5, 3, 3.5, 4]),  # a flat range is widened by one either side
])
def test_nice_ticks(low, high, expected):
    assert charts.nice_ticks(low, high) == pytest.approx(expected)


def test_tick_labels_use_the_fewest_decimals_needed():
    assert charts.tick_labels([0, 0.2, 0.4]) == ["0.0", "0.2", "0.4"]
    assert charts.tick_labels([0, 5, 10]) == ["0", "5", "10"]
    assert charts.tick_labels([0, 0.25, 0.5], percent=True) == ["0%", "25%", "50%"]
