"""Library settings as the command line spells them: a ``SettingError`` names a setting as the library does
(``max_seeds``); a command says its flag instead (``--max-seeds``)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from linguagym.capabilities.errors import SettingError
from linguagym.errors import LinguagymError


@contextmanager
def settings_as_flags(flags: Mapping[str, str]) -> Iterator[None]:
    """Within the block, a SettingError about a setting in ``flags`` (setting -> flag) names the flag."""
    try:
        yield
    except SettingError as error:
        if error.setting not in flags:
            raise
        raise LinguagymError(f"{flags[error.setting]} {error.problem}", hint=error.hint) from None
