"""The linguagym web application (``linguagym serve``): suites, the grid editor, runs and results in a browser.

Built on Flask (pages rendered on the server, a little vanilla JavaScript, plots as the SVG files the
evaluation report writes), SQLAlchemy for storage and Alembic for schema migrations. Everything it serves is
in this package: it works offline.
"""

from linguagym.web.app import create_app
from linguagym.web.config import WebConfig

__all__ = ["WebConfig", "create_app"]
