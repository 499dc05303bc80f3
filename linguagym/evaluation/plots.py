"""The report's figures as SVG text: accuracy by suite and model, group (circuit) scores, and the classic
psycholinguistics plot of each suite: mean surprisal per region for each condition, with 95% intervals.

What to draw lives here; how to draw it lives in ``linguagym.charts`` (a direct SVG writer, no plotting
library, so a report costs milliseconds rather than seconds).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from linguagym import charts
from linguagym.evaluation.aggregate import Interval, Summary


def _accuracy_bars(labels: list[str], series: Mapping[str, Sequence[float]],
                   intervals: Mapping[str, Sequence[Interval | None]], *, title: str) -> str:
    return charts.grouped_bars(
        labels,
        {name: [None if charts.is_missing(v) else v for v in values] for name, values in series.items()},
        y_label="accuracy", y_max=1.0, title=title,
        intervals={name: [None if i is None else (i.low, i.high) for i in spans] for name, spans in intervals.items()},
    )


def suite_accuracy_svg(summary: Summary) -> str:
    suites = [s for s in summary.collection.suites if any(s in m.suites for m in summary.models)]
    suites += sorted({s for m in summary.models for s in m.suites} - set(suites))
    series = {m.model: [m.suites.get(s, math.nan) for s in suites] for m in summary.models}
    errors = {m.model: [m.intervals.get(f"suite:{s}") for s in suites] for m in summary.models}
    return _accuracy_bars(suites, series, errors, title="Accuracy per suite (95% bootstrap intervals over items)")


def group_scores_svg(summary: Summary) -> str | None:
    collection = summary.collection
    if not collection.groups:
        return None
    labels = ["score", *(g.short for g in collection.groups)]
    series = {m.model: [m.score, *(m.groups[g.short] for g in collection.groups)] for m in summary.models}
    errors = {m.model: [m.intervals.get("score"), *(m.intervals.get(f"group:{g.short}") for g in collection.groups)]
              for m in summary.models}
    return _accuracy_bars(labels, series, errors, title=f"{collection.name}: score and groups")


@dataclass(frozen=True)
class RegionSeries:
    condition: str
    means: tuple[float, ...]  # one per region; NaN where undefined
    halfwidths: tuple[float, ...]  # 95% interval half-width (1.96 standard errors over items)


def region_series(values: Mapping[str, Sequence[Sequence[float]]]) -> list[RegionSeries]:
    """``values[condition][region_index]`` = the metric of that region for every item."""
    series = []
    for condition, per_region in values.items():
        means, halves = [], []
        for samples in per_region:
            clean = [v for v in samples if v == v]
            if not clean:
                means.append(math.nan)
                halves.append(0.0)
                continue
            mean = sum(clean) / len(clean)
            var = sum((v - mean) ** 2 for v in clean) / (len(clean) - 1) if len(clean) > 1 else 0.0
            means.append(mean)
            halves.append(1.96 * math.sqrt(var / len(clean)))
        series.append(RegionSeries(condition, tuple(means), tuple(halves)))
    return series


def region_plot_svg(suite: str, region_names: Sequence[str], series: Sequence[RegionSeries], *, metric: str,
                    model: str) -> str:
    labels = [f"{i}\n{name}" for i, name in enumerate(region_names, start=1)]
    values = {line.condition: [None if charts.is_missing(m) else m for m in line.means] for line in series}
    spans = {line.condition: [None if charts.is_missing(m) or not h else (m - h, m + h)
                              for m, h in zip(line.means, line.halfwidths, strict=True)] for line in series}
    return charts.line_chart(labels, values, y_label=f"{metric} surprisal (bits)", intervals=spans,
                             title=f"{suite} ({model})")


@dataclass(frozen=True)
class SuiteRegions:
    """One model's mean surprisal per region and condition of one suite: what a region plot draws."""
    region_names: tuple[str, ...]
    series: tuple[RegionSeries, ...]
    metric: str


def suite_regions(rows: Iterable[Mapping[str, str]], metric_of: Mapping[str, str]) -> dict[str, SuiteRegions]:
    """suite -> its region plot's data, from the rows of a model's ``regions.csv``; ``metric_of[suite]``: the
    metric its predictions used (``sum`` when not named)."""
    values: dict[str, dict[str, dict[int, list[float]]]] = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    names: dict[str, dict[int, str]] = defaultdict(dict)
    for row in rows:
        suite, region = row["suite"], int(row["region"])
        raw = row[metric_of.get(suite, "sum")]
        # an empty region (no tokens, e.g. a gap condition) is absent, not a surprisal of 0: leave it out
        empty = raw == "" or row["tokens"] == "0"
        values[suite][row["condition"]][region].append(math.nan if empty else float(raw))
        names[suite][region] = row["region_name"]
    out = {}
    for suite, by_condition in values.items():
        regions = sorted(names[suite])
        series = region_series({c: [by_region[r] for r in regions] for c, by_region in by_condition.items()})
        out[suite] = SuiteRegions(tuple(names[suite][r] for r in regions), tuple(series), metric_of.get(suite, "sum"))
    return out


def overlaid_region_plot_svg(suite: str, by_model: Mapping[str, SuiteRegions]) -> str:
    """Several models' region plots of one suite on one axis: one colour per model, one marker and dash per
    condition, a legend entry per model and condition. Models whose regions differ from the first model's (another
    version of the suite) cannot share the axis: the caller leaves them out (``same_regions``)."""
    first = next(iter(by_model.values()))
    labels = [f"{i}\n{name}" for i, name in enumerate(first.region_names, start=1)]
    conditions = list(dict.fromkeys(line.condition for data in by_model.values() for line in data.series))
    values, spans, styles = {}, {}, {}
    for m, (model, data) in enumerate(by_model.items()):
        for line in data.series:
            name = f"{model} · {line.condition}"
            values[name] = [None if charts.is_missing(v) else v for v in line.means]
            spans[name] = [None if charts.is_missing(v) or not h else (v - h, v + h)
                           for v, h in zip(line.means, line.halfwidths, strict=True)]
            styles[name] = charts.LineStyle(m, conditions.index(line.condition), dashed=True)
    return charts.line_chart(labels, values, y_label=f"{first.metric} surprisal (bits)", intervals=spans,
                             styles=styles, title=f"{suite} ({len(by_model)} model{'s' if len(by_model) != 1 else ''})",
                             **room(len(values)))


def room(lines: int) -> dict[str, Any]:
    """The plotting area of a chart of ``lines`` series: the default for a few; wider and taller for more (2 models x
    4 conditions drew 300 px wide under a legend taller than the plot), so that lines and legend stay readable."""
    return {} if lines <= 4 else {"min_plot": 600.0, "plot_height": 280.0}


def same_regions(by_model: Mapping[str, SuiteRegions]) -> dict[str, SuiteRegions]:
    """The models whose region names and metric match the first model's: those one axis can hold."""
    if not by_model:
        return {}
    first = next(iter(by_model.values()))
    return {model: data for model, data in by_model.items()
            if (data.region_names, data.metric) == (first.region_names, first.metric)}
