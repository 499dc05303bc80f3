"""The one shape in which long work reports progress and is cancelled, whichever face shows it.

The library calls ``progress(label, total, unit)`` when a piece of work begins (``label``: what is worked on, such
as ``model 2 of 5: gpt2`` or ``classifier vader``; ``total``: how much there is, in ``unit``: ``tokens``,
``sentences``, ``texts``); it may return ``advance(count)``, called as the work gets done. ``cancelled()`` is
asked between steps; when it answers True the work stops with ``Cancelled``, keeping what was finished (cached
scores, written model folders). The command line draws bars, the web app writes the numbers into its database;
neither loops over the work itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from linguagym.errors import Cancelled

Advance = Callable[[int], None]
IsCancelled = Callable[[], bool]


class Progress(Protocol):
    def __call__(self, label: str, total: int, unit: str) -> Advance | None:
        """Work on ``label`` begins: ``total`` ``unit`` to do. Returns what to call as they get done, or None."""
        ...


def check_cancelled(cancelled: IsCancelled | None) -> None:
    """Raise ``Cancelled`` when cancelling was asked for."""
    if cancelled is not None and cancelled():
        raise Cancelled("cancelled")


def begin(progress: Progress | None, cancelled: IsCancelled | None, label: str, total: int,
          unit: str) -> Advance | None:
    """Announce a piece of work; the returned ``advance`` also stops the work once cancelling is asked for."""
    check_cancelled(cancelled)
    advance = progress(label, total, unit) if progress is not None else None
    if cancelled is None:
        return advance

    def step(count: int) -> None:
        if advance is not None:
            advance(count)
        check_cancelled(cancelled)

    return step
