"""The errors a user can cause in capability testing."""

from __future__ import annotations

from linguagym.errors import LinguagymError


class CapabilityError(LinguagymError):
    """A bad capability spec, dataset, lexicon or test file; says what, where and how to mend."""


class SettingError(CapabilityError):
    """A setting given a value it cannot take. The message begins with the setting's name as the library spells
    it, in backticks (```max_seeds```, ``errors.py``); ``setting`` holds it, so each face can say it its own way
    (``--max-seeds``, a form label)."""

    def __init__(self, setting: str, problem: str, *, hint: str | None = None) -> None:
        super().__init__(f"`{setting}` {problem}", hint=hint, settings=(setting,))
        self.setting = setting
        self.problem = problem


def at_least(setting: str, value: int | None, low: int) -> None:
    """SettingError unless ``value`` is None or ``low`` or more."""
    if value is not None and value < low:
        raise SettingError(setting, f"must be {low} or more, not {value}")
