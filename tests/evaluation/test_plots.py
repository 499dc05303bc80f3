"""The report's figures: accuracy per suite and model, group scores, and region-by-condition surprisal, drawn
from summaries and region values into well-formed SVG that shows what the numbers say."""

import math
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from linguagym.evaluation import plots
from linguagym.evaluation.aggregate import ItemOutcome, summarize
from linguagym.evaluation.collections import Collection, Group

NS = {"s": "http://www.w3.org/2000/svg"}


def outcomes(model: str, results: dict[str, list[bool]]) -> list[ItemOutcome]:
    return [ItemOutcome(model, suite, i, ok, ok) for suite, oks in results.items() for i, ok in enumerate(oks, 1)]


def bar_titles(svg: str) -> list[str]:
    root = ET.fromstring(svg)
    return [rect.find("s:title", NS).text for rect in root.findall(".//s:rect[@class='bar']", NS)]


@pytest.fixture
def two_models():
    collection = Collection("c", ("a", "<script>b</script>"), groups=(Group("Group A", "GA", ("a",)),))
    found = outcomes("m1", {"a": [True, True, False, True], "<script>b</script>": [True, False]})
    found += outcomes("m2", {"a": [False, False, True, True]})  # m2 has no results on the second suite
    return summarize(found, collection, bootstrap=50, seed=1)


def test_suite_accuracy_plot_has_a_bar_per_model_and_suite_present(two_models):
    svg = plots.suite_accuracy_svg(two_models)
    titles = bar_titles(svg)
    assert [t.split(" [")[0] for t in titles] == ["m1 \u00b7 a: 0.750", "m1 \u00b7 <script>b</script>: 0.500",
                                                   "m2 \u00b7 a: 0.500"]  # no bar for m2's missing suite
    assert "<script>" not in svg and "&lt;script&gt;b&lt;/script&gt;" in svg


def test_suite_accuracy_plot_draws_the_bootstrap_intervals(two_models):
    svg = plots.suite_accuracy_svg(two_models)
    low, high = (two_models.models[0].intervals["suite:a"].low, two_models.models[0].intervals["suite:a"].high)
    assert bar_titles(svg)[0] == f"m1 \u00b7 a: 0.750 [{low:.3f}, {high:.3f}]"
    assert len(ET.fromstring(svg).findall(".//s:path[@class='interval']", NS)) == 3


def test_accuracy_axis_runs_from_zero_to_one(two_models):
    root = ET.fromstring(plots.suite_accuracy_svg(two_models))
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert {"0.0", "0.2", "1.0"} <= set(texts) and "1.2" not in texts


def test_group_plot_shows_the_score_and_each_group(two_models):
    svg = plots.group_scores_svg(two_models)
    # m2 lacks the second suite, so its collection score is not computed (no bar); its group needs only "a"
    assert [t.split(" [")[0] for t in bar_titles(svg)] == ["m1 \u00b7 score: 0.625", "m1 \u00b7 GA: 0.750",
                                                            "m2 \u00b7 GA: 0.500"]
    assert plots.group_scores_svg(summarize(outcomes("m", {"a": [True]}), Collection("c", ("a",)))) is None


def test_region_series_means_and_95_percent_halfwidths():
    [line] = plots.region_series({"cond": [[1.0, 3.0], [2.0], [math.nan, math.nan]]})
    assert line.condition == "cond"
    assert line.means[:2] == (2.0, 2.0) and math.isnan(line.means[2])
    assert line.halfwidths == pytest.approx((1.96 * math.sqrt(2.0 / 2), 0.0, 0.0))


def test_region_plot_draws_a_line_per_condition_with_gaps_and_numbered_regions():
    series = plots.region_series({"match": [[5.0, 7.0], [1.0, 1.0], [9.0, 11.0]],
                                  "mismatch": [[6.0, 6.0], [math.nan], [12.0, 14.0]]})
    svg = plots.region_plot_svg("number_prep", ["intro", "the", "verb"], series, metric="sum", model="gpt2")
    root = ET.fromstring(svg)
    paths = {g.get("data-series"): g.find("s:path[@class='line']", NS).get("d")
             for g in root.findall(".//s:g[@class='series']", NS)}
    assert paths["match"].count("L") == 2 and paths["mismatch"].count("M") == 2  # mismatch breaks at "the"
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert {"1", "intro", "2", "the", "3", "verb", "sum surprisal (bits)", "number_prep (gpt2)"} <= set(texts)
    intervals = root.findall(".//s:path[@class='interval']", NS)
    assert len(intervals) == 3  # match: intro and verb, mismatch: verb; zero-width and missing ones are not drawn
    tooltips = [p.find("s:title", NS).text for p in root.findall(".//s:g[@class='point']", NS)]
    assert tooltips[0] == "match \u00b7 1 intro: 6.000 [4.040, 7.960]"


def test_plots_are_deterministic(two_models):
    assert plots.suite_accuracy_svg(two_models) == plots.suite_accuracy_svg(two_models)
    series = plots.region_series({"c": [[1.0, 2.0], [3.0, 5.0]]})
    first = plots.region_plot_svg("s", ["a", "b"], series, metric="mean", model="m")
    assert first == plots.region_plot_svg("s", ["a", "b"], series, metric="mean", model="m")


def test_drawing_a_report_imports_no_plotting_library_and_no_torch(tmp_path):
    code = ("import sys\nfrom linguagym.evaluation import plots, report\n"
            "plots.region_plot_svg('s', ['a'], plots.region_series({'c': [[1.0, 2.0]]}), metric='sum', model='m')\n"
            "print(sorted({'matplotlib', 'torch', 'transformers'} & set(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path)
    assert done.stdout.strip() == "[]"
