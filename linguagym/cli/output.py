"""What the commands print with: rich consoles, and messages that are shown as they are."""

from __future__ import annotations

from linguagym.printable import printable


def console(stderr: bool = False, *, wide: bool = False):
    """A rich console; ``wide`` lets tables keep their natural width when output goes to a file or pipe."""
    from rich.console import Console

    made = Console(stderr=stderr, highlight=False)
    if wide and not made.is_terminal:
        made = Console(stderr=stderr, highlight=False, width=1000)
    return made


def styled(prefix: str, style: str, message: str):
    """Plain text after a coloured prefix; the message is never read as rich markup (it holds '[3]'), and
    characters that would steer the terminal (from a suite, a file name) are shown escaped."""
    from rich.text import Text

    return Text.assemble((prefix, style), printable(message, keep="\n\t"))
