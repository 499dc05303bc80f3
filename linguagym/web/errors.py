"""The web layer's own error: what a page asks for does not exist. ``app`` shows it as a 404 page (or JSON)."""

from __future__ import annotations

from linguagym.errors import ConfigurationError


class NotFound(ConfigurationError):
    """A suite, version, run, test file, job or result file that does not exist (shown as a 404 page)."""
