"""The one shape in which long work reports progress and is cancelled, whichever face shows it.

The library calls ``progress(label, total, unit)`` when a piece of work begins (``label``: what is worked on, such
as ``model 2 of 5: gpt2`` or ``classifier vader``; ``total``: how much there is, in ``unit``: ``tokens``,
``sentences``, ``texts``); it may return ``advance(count)``, called as the work gets done. ``cancelled()`` is
asked between steps; when it answers True the work stops with ``Cancelled``, keeping what was finished (cached
scores, written model folders). The command line draws bars, the web app writes the numbers into its database;
neither loops over the work itself.

A progress may also have ``note(line)``: ``note(progress, line)`` tells it that a part of the work is done, in
words (a capability's counts); a face without it shows the counts alone.

A step that has no count (loading a model: downloading it, de-quantising a GGUF, reading the weights) is announced
as ``progress(label, 0, STAGE)``: the faces show it as a labelled bar without an end. The code doing such a step is
deep below the caller that knows ``progress`` (weights load lazily, on first use), so it calls ``stage(what)``,
which reaches whoever ``reporting_stages`` set up in this thread, and nobody otherwise.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Protocol

from linguagym.errors import Cancelled

Advance = Callable[[int], None]
IsCancelled = Callable[[], bool]
STAGE = "stage"  # the unit of a step without a count: ``progress(label, 0, STAGE)``, ``label`` says what it does
_stage_reporter: ContextVar[tuple[int, Callable[[str], None]] | None] = ContextVar("linguagym_stage", default=None)


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


def note(progress: Progress | None, line: str) -> None:
    """Tell ``progress`` that a part of the current piece of work is done, in words (``LC3: 50 seeds, 87
    expansions``), where it can show such a line (its ``note`` method: the command line prints it to a log); a
    no-op for a progress without one (the web app's rows keep the counts alone)."""
    show = getattr(progress, "note", None)
    if callable(show):
        show(line)


def stage(what: str) -> None:
    """Say that a step without a count begins (``what``: "de-quantising the GGUF weights"), to the reporter that
    ``reporting_stages`` set up in this thread; a no-op otherwise (and in other threads, such as a model loaded
    ahead in the background). May raise ``Cancelled``."""
    found = _stage_reporter.get()
    if found is not None and found[0] == threading.get_ident():
        found[1](what)


@contextmanager
def reporting_stages(progress: Progress | None, cancelled: IsCancelled | None,
                     label: Callable[[str], str]) -> Iterator[None]:
    """While the block runs, ``stage(what)`` announces ``progress(label(what), 0, STAGE)`` (and stops the work
    once cancelling is asked for)."""
    if progress is None and cancelled is None:
        yield
        return

    def report(what: str) -> None:
        begin(progress, cancelled, label(what), 0, STAGE)

    token = _stage_reporter.set((threading.get_ident(), report))
    try:
        yield
    finally:
        _stage_reporter.reset(token)
