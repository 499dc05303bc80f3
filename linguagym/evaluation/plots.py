"""The report's figures as SVG text: accuracy by suite and model, group (circuit) scores, and the classic
psycholinguistics plot of each suite: mean surprisal per region for each condition, with 95% intervals.

What to draw lives here; how to draw it lives in ``linguagym.charts`` (a direct SVG writer, no plotting
library, so a report costs milliseconds rather than seconds).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

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
