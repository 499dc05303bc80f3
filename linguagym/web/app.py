"""The Flask application: configuration, the security checks and sign-in pages (``auth``), the views, error
pages and template helpers."""

from __future__ import annotations

import logging
from datetime import datetime

from flask import Flask, redirect, request, session, url_for
from markupsafe import Markup, escape
from sqlalchemy.orm import sessionmaker
from werkzeug.exceptions import HTTPException

from linguagym.errors import LinguagymError
from linguagym.version import __version__
from linguagym.web import context, setting_labels
from linguagym.web.auth import gate, ownership
from linguagym.web.auth import views as account_views
from linguagym.web.capabilities import views as views_capabilities
from linguagym.web.config import WebConfig
from linguagym.web.db import open_database
from linguagym.web.errors import Gone, NotFound, refuse
from linguagym.web.inputs import IdConverter
from linguagym.web.jobs.worker import RunWorker
from linguagym.web.results import views as views_results
from linguagym.web.runs import imports as views_imports
from linguagym.web.runs import views as views_runs
from linguagym.web.suites import starter_views as views_starter
from linguagym.web.suites import views as views_suites

log = logging.getLogger("linguagym.web")


def create_app(config: WebConfig, *, sessions: sessionmaker | None = None, scorer_factory=None) -> Flask:
    """The application for ``config``; migrates the database and, unless turned off, starts the run worker
    (which first queues again any run a stopped server left unfinished)."""
    app = Flask(__name__)
    app.config.update(SECRET_KEY=config.secret_key(), MAX_CONTENT_LENGTH=config.max_upload,
                      SESSION_COOKIE_NAME="linguagym_session",
                      SESSION_COOKIE_HTTPONLY=True, SESSION_COOKIE_SAMESITE="Lax", TEMPLATES_AUTO_RELOAD=False)
    sessions = sessions or open_database(config.database_url)
    worker = RunWorker(sessions, config, scorer_factory=scorer_factory)
    context.attach(app, config, sessions, worker)
    if config.start_worker:
        worker.start()

    gate.install(app, config)  # Host, Origin, CSRF, sign-in, security headers
    _errors(app)
    _template_helpers(app)

    app.url_map.converters["int"] = IdConverter  # before the routes: ids beyond the database's integers are a 404
    app.register_blueprint(views_suites.blueprint)
    app.register_blueprint(views_runs.blueprint)
    app.register_blueprint(views_imports.blueprint)
    app.register_blueprint(views_capabilities.blueprint)
    app.register_blueprint(views_results.blueprint)
    app.register_blueprint(account_views.blueprint)
    app.register_blueprint(views_starter.blueprint)

    @app.get("/")
    def home():
        return redirect(url_for("suites.index"))

    return app


def _errors(app: Flask) -> None:
    @app.errorhandler(LinguagymError)
    def _user_error(error: LinguagymError):
        message, hint = setting_labels.worded(error)  # the settings it names, as this face's form fields
        if isinstance(error, ownership.Forbidden):
            return refuse(403, message, hint or "", login=error.sign_in)
        status = 410 if isinstance(error, Gone) else 404 if isinstance(error, NotFound) else 400
        return refuse(status, message, hint or "")

    @app.errorhandler(413)
    def _too_large(_error):
        limit = app.config["MAX_CONTENT_LENGTH"]
        shown = f"{limit / 1024 / 1024:g} MB" if limit >= 1024 * 1024 else f"{limit} bytes"
        return refuse(413, f"The upload is larger than this server's limit of {shown}.",
                       "Split the file, or start the server with a larger --max-upload-mb.")

    @app.errorhandler(HTTPException)
    def _http(error: HTTPException):
        return refuse(error.code or 500, f"{error.code} {error.name}", error.description or "")

    @app.errorhandler(Exception)
    def _bug(error: Exception):
        log.exception("unexpected error on %s %s", request.method, request.path)
        return refuse(500, "Something went wrong inside linguagym.",
                       "The server log has the details; please report it with the steps that led here.")


def _accounts_on() -> bool:
    """For templates: error pages too, where the database may be what failed (then the page shows no accounts)."""
    try:
        return ownership.accounts_on()
    except Exception:
        log.warning("could not read the users table", exc_info=True)
        return False


def _template_helpers(app: Flask) -> None:
    @app.context_processor
    def _globals():
        return {"linguagym_version": __version__, "web_config": context.config(),
                "csrf_token": session.get("csrf", ""), "authorized": session.get("authorized", False),
                "accounts_on": _accounts_on, "current_user": ownership.current_user,
                "owner_name": ownership.owner_name, "acts_as_admin": ownership.acts_as_admin,
                "may_change": ownership.may_change, "refusal": ownership.refusal,
                "needs_sign_in": ownership.needs_sign_in}

    @app.template_global()
    def csrf_field() -> Markup:
        return Markup('<input type="hidden" name="csrf" value="{}">').format(escape(session.get("csrf", "")))

    @app.template_filter("when")
    def _when(value: datetime | None) -> str:
        return value.strftime("%Y-%m-%d %H:%M") if value else ""

    @app.template_filter("size")
    def _size(value: float) -> str:
        for unit in ("B", "KB", "MB", "GB"):
            if value < 1024 or unit == "GB":
                return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
            value /= 1024
        return str(value)
