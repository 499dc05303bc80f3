"""What the commands print with: rich consoles, and messages that are shown as they are."""

from __future__ import annotations

import os
from typing import Any

from linguagym.printable import printable

INTERNAL_ERROR = 70  # the exit status of a bug of ours: sysexits' EX_SOFTWARE, apart from argparse's 2 (usage)


def console(stderr: bool = False, *, wide: bool = False, pipe_width: int | None = None):
    """A rich console; ``wide`` lets tables keep their natural width when output goes to a file or pipe,
    ``pipe_width`` gives them that width there instead. ``NO_COLOR`` (no-color.org: set and not empty) turns off
    every style, bold included (rich alone drops only the colours)."""
    from rich.console import Console

    plain: dict[str, Any] = {"color_system": None} if os.environ.get("NO_COLOR") else {}
    made = Console(stderr=stderr, highlight=False, **plain)
    if not made.is_terminal and (wide or pipe_width):
        made = Console(stderr=stderr, highlight=False, width=pipe_width or 1000, **plain)
    return made


def styled(prefix: str, style: str, message: str):
    """Plain text after a coloured prefix; the message is never read as rich markup (it holds '[3]'), and
    characters that would steer the terminal (from a suite, a file name) are shown escaped."""
    from rich.text import Text

    return Text.assemble((prefix, style), printable(message, keep="\n\t"))
