"""One item's plot: its surprisal per region and condition, every model on one axis (the web's item page). Apart
from ``plots`` because it reads ``item_detail``'s records, which are read through the run folder's reader, which
draws with ``plots``."""

from __future__ import annotations

from collections.abc import Sequence

from linguagym import charts
from linguagym.evaluation.item_detail import ItemScores
from linguagym.evaluation.plots import room


def item_region_plot_svg(details: Sequence[ItemScores]) -> str:
    """One item's surprisal per region and condition, every model on one axis (``details``: the same item read from
    each model's run folder, ``item_detail.read_item_scores``): one colour per model (per condition with one model),
    one marker and dash per condition. Conditions follow the suite's order, not the item's, so a condition is drawn
    alike in every item's plot and in the suite's. A region with no value, or empty, leaves a gap."""
    first = details[0]
    regions = first.conditions[0].regions
    labels = [f"{region.number}\n{region.name}" for region in regions]
    order = list(first.suite_conditions) or [c.name for c in first.conditions]
    values, styles = {}, {}
    for m, detail in enumerate(details):
        by_name = {condition.name: condition for condition in detail.conditions}
        for k, name in enumerate(order):
            if name not in by_name:
                continue
            label = name if len(details) == 1 else f"{detail.model} · {name}"
            # an empty region (a gap condition's) is left out, as in the suite's plot (suite_regions): not a 0
            values[label] = [None if not r.content or charts.is_missing(v := r.values.get(detail.metric)) else v
                             for r in by_name[name].regions]
            styles[label] = charts.LineStyle(k if len(details) == 1 else m, k, dashed=True)
    who = details[0].model if len(details) == 1 else f"{len(details)} models"
    return charts.line_chart(labels, values, y_label=f"{first.metric} surprisal (bits)", styles=styles,
                             title=f"{first.suite}, item {first.item} ({who})", **room(len(values)))
