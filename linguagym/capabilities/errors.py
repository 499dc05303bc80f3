"""The errors a user can cause in capability testing."""

from __future__ import annotations

from linguagym.errors import LinguagymError


class CapabilityError(LinguagymError):
    """A bad capability spec, dataset, lexicon or test file; says what, where and how to mend."""
