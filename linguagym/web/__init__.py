"""The linguagym web application (``linguagym serve``): suites, the grid editor, runs and results in a browser.

Built on Flask (pages rendered on the server, a little vanilla JavaScript, plots as the SVG files the
evaluation report writes), SQLAlchemy for storage and Alembic for schema migrations. Everything it serves is
in this package: it works offline.

``create_app`` and ``WebConfig`` are imported on first use: the command line imports this package to add the
``serve`` command, and importing Flask and SQLAlchemy there cost every command about 0.4 s.
"""

from __future__ import annotations

from typing import Any

__all__ = ["WebConfig", "create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from linguagym.web.app import create_app

        return create_app
    if name == "WebConfig":
        from linguagym.web.config import WebConfig

        return WebConfig
    raise AttributeError(f"module 'linguagym.web' has no attribute {name!r}")
