"""The exceptions a user can cause, each carrying where it happened and how to mend it.

The CLI prints ``str(error)`` and exits 1; it never shows a traceback for these.

A message that advises changing a setting names it as the library's keyword in backticks (```max_seeds```,
```ray_workers```): the Python name, which a notebook user passes as is. It lists those names in ``settings``, so
that each face can write them its own way (``LinguagymError.worded``): the command line as its option
(``--max-seeds``), the web as the label of its form field. Only a backticked name is rewritten: ``dtype=`` in a
model argument, or the word "model", stay as they are.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from linguagym.printable import printable


class LinguagymError(Exception):
    """Base class for every error caused by input, configuration or environment."""

    def __init__(self, message: str, *, hint: str | None = None, settings: Iterable[str] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.settings = tuple(settings)  # the settings (Python keywords) that message and hint name

    def __str__(self) -> str:
        return _joined(self.message, self.hint)

    def worded(self, spell: Callable[[str], str | None]) -> tuple[str, str | None]:
        """The message and the hint with each of ``settings`` written as ``spell`` writes it (``None``: as is)."""
        return spell_settings(self.message, self.settings, spell), (
            spell_settings(self.hint, self.settings, spell) if self.hint else self.hint)

    def text(self, spell: Callable[[str], str | None]) -> str:
        """``str(self)``, with each of ``settings`` written as ``spell`` writes it."""
        return _joined(*self.worded(spell))


def _joined(message: str, hint: str | None) -> str:
    return f"{message}\n  hint: {hint}" if hint else message


def spell_settings(text: str, settings: Iterable[str], spell: Callable[[str], str | None]) -> str:
    """``text`` with each backticked setting name (```batch_size```) replaced by ``spell(name)``; kept as it is,
    backticks and all, where ``spell`` gives ``None``."""
    for name in settings:
        written = spell(name)
        if written is not None:
            text = text.replace(f"`{name}`", written)
    return text


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an input, located by a JSON path and/or a text position."""

    location: str  # e.g. "items[3].conditions[1]" or "line 4, column 7"; "" for the whole file
    message: str
    detail: str = ""  # extra lines shown under the message (e.g. a formula with a caret)

    def render(self, source: str | None = None) -> str:
        where = ":".join(part for part in (source or "", self.location) if part)
        head = f"{where}: {self.message}" if where else self.message
        if self.detail:
            return head + "\n" + "\n".join("    " + line for line in self.detail.splitlines())
        return head


class SuiteError(LinguagymError):
    """A suite file that cannot be used; lists every problem found, not only the first."""

    def __init__(self, source: str | None, problems: list[Problem]) -> None:
        self.source = source
        self.problems = list(problems)
        count = len(self.problems)
        noun = "problem" if count == 1 else "problems"
        lines = [f"{source or '<suite>'}: {count} {noun}"]
        lines += ["  " + p.render(source).replace("\n", "\n  ") for p in self.problems]
        super().__init__("\n".join(lines))


class FormulaError(LinguagymError):
    """A prediction formula that cannot be parsed; points at the offending character."""

    def __init__(self, formula: str, position: int, reason: str) -> None:
        self.formula = formula
        self.position = position
        self.reason = reason
        super().__init__(f"{reason} at position {position + 1}\n{self.pointer()}")

    def pointer(self) -> str:
        """The formula with a caret under the offending character (control characters shown escaped; of a
        long formula, only the 60 characters either side)."""
        start, end = max(0, self.position - 60), self.position + 60
        before = ("..." if start else "") + printable(self.formula[start : self.position])
        after = printable(self.formula[self.position : end]) + ("..." if end < len(self.formula) else "")
        return f"{before}{after}\n{' ' * len(before)}^"


class ConfigurationError(LinguagymError):
    """A bad option, a missing model or asset, an unusable directory."""


class OutputError(LinguagymError):
    """An output that cannot be written: a file or folder in the way, no permission, a full disk, a name too long."""

    def __init__(self, message: str, *, hint: str | None = None, path: str | None = None,
                 settings: Iterable[str] = ()) -> None:
        super().__init__(message, hint=hint, settings=settings)
        self.path = path  # the file or folder that could not be written


class Cancelled(LinguagymError):
    """Work stopped because its caller asked (the web app's cancel button). What was finished is kept: cached
    scores and predictions, and every output folder written whole before it stopped."""
