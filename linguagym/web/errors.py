"""The web layer's own errors (what a page asks for does not exist: ``app`` shows it as a 404 page, or a 410 when it
was deleted) and the one
way a request is refused (``refuse``: an error page, or JSON for the API)."""

from __future__ import annotations

from flask import jsonify, render_template, request

from linguagym.errors import ConfigurationError


class NotFound(ConfigurationError):
    """A suite, version, run, test file, job or result file that does not exist (shown as a 404 page)."""


class Gone(NotFound):
    """A suite, run or test file that was deleted (shown as a 410 page saying what it was and when it went)."""


def wants_json() -> bool:
    """A request to the JSON API (``/api/...``): refusals answer in JSON, not as a page."""
    return request.path.startswith("/api/")


def refuse(status: int, message: str, hint: str = "", *, login: bool = False):
    """The response that refuses a request: an error page, or ``{"error", "hint"}`` for the API."""
    if wants_json():
        return jsonify({"error": message, "hint": hint}), status
    return render_template("error.html", message=message, hint=hint, status=status, login=login), status
