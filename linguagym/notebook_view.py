"""Short views of result objects for a REPL and a notebook (``__repr__``, ``_repr_html_``): a header line and at
most ``SHOWN`` rows, then how many more. The default dataclass reprs listed every row, test or token (12 MB for a
run of the 34 SyntaxGym suites), which freezes a notebook that shows them; the whole data stays on the object."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

SHOWN = 20  # rows a view lists before "... N more"


def text_view(header: str, lines: Sequence[str], shown: int = SHOWN) -> str:
    """``<header>`` then the first ``shown`` lines, indented, and a line saying how many were left out."""
    out = [f"<{header}>", *(f"  {line}" for line in lines[:shown])]
    if len(lines) > shown:
        out.append(f"  ... ({len(lines) - shown} more)")
    return "\n".join(out)


def html_view(title: str, columns: Sequence[str], rows: Sequence[Sequence[object]], shown: int = SHOWN) -> str:
    """A title paragraph and a table of the first ``shown`` rows (every cell escaped), then how many more."""
    head = "".join(f"<th>{escape(str(column))}</th>" for column in columns)
    body = "".join("<tr>" + "".join(f"<td>{escape(str(cell))}</td>" for cell in row) + "</tr>"
                   for row in rows[:shown])
    more = f"<p>... and {len(rows) - shown} more rows</p>" if len(rows) > shown else ""
    return (f"<p>{escape(title)}</p><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{more}"
            if columns else f"<p>{escape(title)}</p>")
