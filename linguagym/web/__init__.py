"""The linguagym web application (``linguagym serve``): suites, the grid editor, runs and results in a browser.

Built on Flask (pages rendered on the server, a little vanilla JavaScript, plots as the SVG files the
evaluation report writes), SQLAlchemy for storage and Alembic for schema migrations. Everything it serves is
in this package: it works offline.

``create_app`` is imported on first use (it loads Flask and SQLAlchemy, about 0.4 s), so that the package's light
modules (``config``, ``server``, ``text`` ...) can be imported without them.
"""

from __future__ import annotations

from typing import Any

from linguagym.web.config import WebConfig

__all__ = ["WebConfig", "create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from linguagym.web.app import create_app  # loads flask and sqlalchemy

        return create_app
    raise AttributeError(f"module 'linguagym.web' has no attribute {name!r}")
