"""The Python API's default progress display (``linguagym.run(progress=True)``, the default): for each piece of
work a line saying how much there is, then a rich bar that advances as it is done, on stderr. rich draws the bar
in a terminal and in a Jupyter notebook alike; where stderr is neither (a log, a captured stream) only the lines
are written. ``progress=False`` shows nothing. The command line has its own display (``cli.progress``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from linguagym.progress import STAGE, Advance, Progress

if TYPE_CHECKING:
    from rich.progress import Progress as RichProgress


class ProgressDisplay:
    """``progress(label, total, unit)`` drawn on ``console`` (default: rich's console on stderr). ``stop()`` when
    the work ends."""

    def __init__(self, console: Any = None) -> None:
        if console is None:
            from rich.console import Console

            console = Console(stderr=True, highlight=False)
        self.console = console
        self.bar: RichProgress | None = None

    def __call__(self, label: str, total: int, unit: str) -> Advance | None:
        self.stop()
        if unit == STAGE:  # a step without a count (loading a model): its label
            self.console.print(label, markup=False, highlight=False, soft_wrap=True)
            return None
        self.console.print(f"{label}: {total} {unit} to do" if total else f"{label}: nothing to do (cached)",
                           markup=False, highlight=False, soft_wrap=True)
        if not total or not (self.console.is_terminal or self.console.is_jupyter):
            return None
        from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeRemainingColumn
        from rich.progress import Progress as RichProgress

        bar = RichProgress(TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(),
                           TextColumn(unit, markup=False), TimeRemainingColumn(), console=self.console,
                           transient=True)
        self.bar = bar
        bar.start()
        task = bar.add_task(label[-40:], total=total)
        return lambda count: bar.advance(task, count)

    def stop(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


def chosen_progress(progress: Progress | bool | None) -> tuple[Progress | None, ProgressDisplay | None]:
    """``progress`` as the library takes it, and the display made for it (to stop at the end), if any: True gives
    the default display, False or None nothing, a callable itself."""
    if progress is True:
        display = ProgressDisplay()
        return display, display
    if progress is False or progress is None:
        return None, None
    return progress, None
