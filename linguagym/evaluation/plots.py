"""Plots as SVG text (matplotlib, no display): accuracy by suite and model, group (circuit) scores, and the
classic psycholinguistics plot of each suite: mean surprisal per region for each condition, with 95% intervals.
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from linguagym.evaluation.aggregate import Summary

_PALETTE = ["#3b6ea5", "#e07b39", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3", "#8c8c8c", "#ccb974",
            "#64b5cd"]


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")  # no display; must precede the pyplot import
    import matplotlib.pyplot as plt

    plt.rcParams.update({"svg.fonttype": "none", "font.size": 9, "axes.spines.top": False,
                         "axes.spines.right": False, "svg.hashsalt": "linguagym"})  # stable SVG ids
    return plt


def _svg(figure) -> str:
    plt = _pyplot()
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(figure)
    text = buffer.getvalue()
    return text[text.index("<svg"):]  # drop the XML prolog so the SVG can be inlined in HTML


def _grouped_bars(labels: Sequence[str], series: Mapping[str, Sequence[float]], errors: Mapping[str, Sequence],
                  *, title: str, horizontal_line: float | None = None) -> str:
    plt = _pyplot()
    width = max(6.0, 0.28 * len(labels) * max(1, len(series)) + 1.5)
    figure, axes = plt.subplots(figsize=(min(width, 22.0), 3.6))
    count = max(1, len(series))
    bar = 0.8 / count
    for k, (name, values) in enumerate(series.items()):
        xs = [i + (k - (count - 1) / 2) * bar for i in range(len(labels))]
        heights = [0.0 if v != v else v for v in values]
        yerr = None
        if errors.get(name) and any(e is not None for e in errors[name]):
            yerr = [[0 if e is None else max(0.0, h - e.low) for h, e in zip(heights, errors[name], strict=True)],
                    [0 if e is None else max(0.0, e.high - h) for h, e in zip(heights, errors[name], strict=True)]]
        axes.bar(xs, heights, bar * 0.92, label=name, color=_PALETTE[k % len(_PALETTE)], yerr=yerr,
                 error_kw={"elinewidth": 0.8, "capsize": 1.5, "ecolor": "#333333"})
    axes.set_xticks(range(len(labels)))
    axes.set_xticklabels(labels, rotation=60 if len(labels) > 8 else 0, ha="right" if len(labels) > 8 else "center")
    axes.set_ylim(0, 1.05)
    axes.set_ylabel("accuracy")
    axes.set_title(title, loc="left")
    if horizontal_line is not None:
        axes.axhline(horizontal_line, color="#999999", linewidth=0.8, linestyle=":")
    if len(series) > 1:
        axes.legend(frameon=False, ncols=min(len(series), 4), loc="lower left", bbox_to_anchor=(0, 1.08))
    return _svg(figure)


def suite_accuracy_svg(summary: Summary) -> str:
    suites = [s for s in summary.collection.suites if any(s in m.suites for m in summary.models)]
    suites += sorted({s for m in summary.models for s in m.suites} - set(suites))
    series = {m.model: [m.suites.get(s, math.nan) for s in suites] for m in summary.models}
    errors = {m.model: [m.intervals.get(f"suite:{s}") for s in suites] for m in summary.models}
    return _grouped_bars(suites, series, errors, title="Accuracy per suite (95% bootstrap intervals over items)")


def group_scores_svg(summary: Summary) -> str | None:
    collection = summary.collection
    if not collection.groups:
        return None
    labels = ["score", *(g.short for g in collection.groups)]
    series = {m.model: [m.score, *(m.groups[g.short] for g in collection.groups)] for m in summary.models}
    errors = {m.model: [m.intervals.get("score"), *(m.intervals.get(f"group:{g.short}") for g in collection.groups)]
              for m in summary.models}
    return _grouped_bars(labels, series, errors, title=f"{collection.name}: score and groups")


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
    plt = _pyplot()
    figure, axes = plt.subplots(figsize=(max(5.0, 0.9 * len(region_names) + 1.5), 3.2))
    xs = list(range(1, len(region_names) + 1))
    for k, line in enumerate(series):
        axes.errorbar(xs, line.means, yerr=line.halfwidths, label=line.condition, marker="o", markersize=3.5,
                      linewidth=1.4, capsize=2.5, color=_PALETTE[k % len(_PALETTE)])
    axes.set_xticks(xs)
    axes.set_xticklabels([f"{i}\n{name}" for i, name in enumerate(region_names, start=1)], fontsize=8)
    axes.set_ylabel(f"{metric} surprisal (bits)")
    axes.set_title(f"{suite} ({model})", loc="left")
    axes.legend(frameon=False, fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return _svg(figure)
