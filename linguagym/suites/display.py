"""A suite as the table of the SyntaxGym architecture page: items x conditions down, regions across.

Every text from the suite goes in as a rich ``Text`` (never read as markup, so "[bold]" stays as written) with
terminal-steering characters escaped (``printable``): a suite cannot colour, move or hide what is shown.
"""

from __future__ import annotations

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from linguagym.printable import printable
from linguagym.suites.model import Suite


def _text(text: str, style: str = "") -> Text:
    return Text(printable(text), style=style)


def suite_table(suite: Suite, *, max_items: int | None = None) -> Table:
    table = Table(box=box.SIMPLE_HEAVY, show_lines=False, header_style="bold")
    table.add_column("item", justify="right", style="dim", no_wrap=True)
    table.add_column("condition", style="cyan", no_wrap=True)
    for number, name in enumerate(suite.region_names, start=1):
        table.add_column(Text(f"{number}\n") + _text(name), overflow="fold")
    items = suite.items if max_items is None else suite.items[:max_items]
    for item in items:
        for k, condition in enumerate(item.conditions):
            # the item number only on its first row, so items read as blocks
            label = Text(str(item.number) if k == 0 else "")
            cells = [_text(region.content) if region.content else Text("∅", style="dim")
                     for region in condition.regions]
            table.add_row(label, _text(condition.name), *cells, end_section=k == len(item.conditions) - 1)
    return table


def suite_view(suite: Suite, *, max_items: int | None = None) -> Group:
    """The suite's header (name, metric, predictions) above its table."""
    metric = suite.meta.metric
    metric_text = ", ".join(metric) if isinstance(metric, tuple) else metric
    header = Text.assemble(
        _text(suite.name, "bold"),
        f"  {len(suite.items)} items x {len(suite.condition_names)} conditions x "
        f"{suite.region_count} regions; metric: {metric_text}",
    )
    lines = [header]
    for i, prediction in enumerate(suite.predictions):
        lines.append(_text(f"  prediction {i}: {prediction.formula}", "green"))
    for i, prediction in enumerate(suite.suite_predictions):
        lines.append(_text(f"  suite-level prediction {i}: {prediction.formula}", "green"))
    if not suite.predictions and not suite.suite_predictions:
        lines.append(Text("  no predictions", style="yellow"))
    shown = len(suite.items) if max_items is None else min(max_items, len(suite.items))
    parts: list[RenderableType] = [*lines, suite_table(suite, max_items=max_items)]
    if shown < len(suite.items):
        parts.append(Text(f"({len(suite.items) - shown} more items; --items N shows more)", style="dim"))
    return Group(*parts)
