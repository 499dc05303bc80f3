"""The command line's one progress display: a rich bar on stderr for each piece of work the library announces.

``ProgressBars`` has the library's progress shape (``linguagym.progress.Progress``): the library calls it as
``bars(label, total, unit)`` when a piece of work begins and advances what it returns. Each piece first gets a line
saying how much there is (``announce``), then a bar of its own that replaces the previous one; the bars are
transient, so only the lines stay in the terminal. A step without a count (``unit`` ``STAGE``: loading a model) is
a spinner with its label (a line where stderr is not a terminal). ``run`` and ``lct test`` pass it to ``run_models`` and
``run_classifiers``; ``lct generate`` and ``lct train-classifier`` adapt their stage callbacks to it.
"""

from __future__ import annotations

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

    def __init__(self, console: Any = None, announce: Announce | None = None) -> None:
        if console is None:
            console = make_console(stderr=True)
        self.console, self.announce = console, announce
        self.bar: Progress | None = None

    def __call__(self, label: str, total: int, unit: str) -> Advance | None:
        self.stop()
        if unit == STAGE:  # a step without a count (loading a model): a spinner with its label until the next
            self._stage(label)
            return None
        message = self.announce(total, unit) if self.announce is not None else None
        if message:
            self.console.print(f"{label}: {message}", highlight=False, markup=False, soft_wrap=True)
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

    def _stage(self, label: str) -> None:
        if not self.console.is_terminal:  # a log keeps the line (a spinner would show nothing there)
            self.console.print(label, highlight=False, markup=False, soft_wrap=True)
            return
        from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        bar = Progress(SpinnerColumn(), TextColumn("{task.description}", markup=False), TimeElapsedColumn(),
                       console=self.console, transient=True)
        self.bar = bar
        bar.start()
        bar.add_task(label, total=None)

    def stop(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None

    def __enter__(self) -> ProgressBars:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
