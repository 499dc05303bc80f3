"""The command line's one progress display: a rich bar on stderr for each piece of work the library announces.

``ProgressBars`` has the library's progress shape (``linguagym.progress.Progress``): the library calls it as
``bars(label, total, unit)`` when a piece of work begins and advances what it returns. Each piece first gets a line
saying how much there is (``announce``), then a bar of its own that replaces the previous one; the bars are
transient, so only the lines stay in the terminal. A step without a count (``unit`` ``STAGE``: loading a model) is
a spinner with its label (a line where stderr is not a terminal). ``run`` and ``lct test`` pass it to ``run_models`` and
``run_classifiers``; ``lct generate`` and ``lct train-classifier`` adapt their stage callbacks to it.

Where stderr is not a terminal (a log file, CI, a job) a bar shows nothing, so ``ProgressBars(lines=True)`` writes
lines instead: one when a piece begins (how much there is), one per ``note`` the library sends (a capability
done, with its counts) and one when the piece ends (how much was done), each with the seconds since the command
began. ``lct generate`` asks for them; in a terminal the bars are drawn as before.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from linguagym.cli.output import console as make_console
from linguagym.progress import STAGE, Advance

if TYPE_CHECKING:
    from rich.progress import Progress

Announce = Callable[[int, str], "str | None"]


def scoring_announcement(total: int, unit: str) -> str:
    """What ``run`` says before scoring: how many tokens are left to score once the cache has answered."""
    if unit == "tokens":
        return f"{total} tokens to score (the rest is cached)" if total else "everything is cached"
    return f"{total} {unit} to score"


def prediction_announcement(total: int, unit: str) -> str:
    """What ``lct test`` says before predicting: how many texts the prediction cache does not hold."""
    return f"{total} {unit} to predict" if total else "every prediction is cached"


class ProgressBars:
    """``progress(label, total, unit) -> advance(count) | None`` drawn as rich bars on ``console`` (default:
    stderr). ``announce(total, unit)`` says how much work there is (printed as ``LABEL: ...``; None: nothing).
    Stop it when the work ends, or use it as a context manager."""

    def __init__(self, console: Any = None, announce: Announce | None = None, *, lines: bool = False) -> None:
        if console is None:
            console = make_console(stderr=True)
        self.console, self.announce = console, announce
        self.bar: Progress | None = None
        # lines where no bar can be drawn: the piece under way as [label, total, unit, done, began]
        self.lines = lines and not console.is_terminal
        self.started = time.perf_counter()
        self.piece: list | None = None

    def __call__(self, label: str, total: int, unit: str) -> Advance | None:
        self.stop()
        if unit == STAGE:  # a step without a count (loading a model): a spinner with its label until the next
            self._stage(label)
            return None
        message = self.announce(total, unit) if self.announce is not None else None
        if message:
            self.console.print(f"{label}: {message}", highlight=False, markup=False, soft_wrap=True)
        if self.lines:
            return self._piece(label, total, unit, announced=bool(message))
        if not total:
            return None
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        bar = Progress(TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(),
                       TextColumn("{task.fields[unit]}", markup=False), TimeRemainingColumn(), console=self.console,
                       transient=True)
        self.bar = bar
        bar.start()
        task = bar.add_task(label[-40:], total=total, unit=unit)
        return lambda count: bar.advance(task, count)

    def _piece(self, label: str, total: int, unit: str, announced: bool) -> Advance:
        """A piece of work as lines: begun (unless announced), then counted until it ends (``stop``)."""
        piece: list[Any] = [label, total, unit, 0, time.perf_counter()]
        self.piece = piece
        if not announced:
            self._line(f"{label}: {total} {unit}")

        def advance(count: int) -> None:
            piece[3] += count

        return advance

    def note(self, line: str) -> None:
        """A part of the piece under way is done (``linguagym.progress.note``): a line where bars are not drawn."""
        if self.lines:
            self._line(f"{self.piece[0]}: {line}" if self.piece is not None else line)

    def _line(self, text: str) -> None:
        self.console.print(f"{text} [{time.perf_counter() - self.started:.1f} s]", highlight=False, markup=False,
                           soft_wrap=True)

    def _stage(self, label: str) -> None:
        if not self.console.is_terminal:  # a log keeps the line (a spinner would show nothing there)
            if self.lines:
                self._line(label)
            else:
                self.console.print(label, highlight=False, markup=False, soft_wrap=True)
            return
        from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        bar = Progress(SpinnerColumn(), TextColumn("{task.description}", markup=False), TimeElapsedColumn(),
                       console=self.console, transient=True)
        self.bar = bar
        bar.start()
        bar.add_task(label, total=None)

    def stop(self) -> None:
        if self.piece is not None:
            label, total, unit, done, began = self.piece
            self.piece = None
            self._line(f"{label}: {done} of {total} {unit} done in {time.perf_counter() - began:.1f} s")
        if self.bar is not None:
            self.bar.stop()
            self.bar = None

    def __enter__(self) -> ProgressBars:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
