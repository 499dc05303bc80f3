"""The Flask application: configuration, security (size limit, CSRF, access token or accounts, headers), signing
in and out, and error pages."""

from __future__ import annotations

import hmac
import logging
import math
import secrets
from datetime import datetime

from flask import (
    Flask,
    Response,
    flash,
    g,
    jsonify,
    make_response,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from markupsafe import Markup, escape
from sqlalchemy.orm import sessionmaker
from werkzeug.exceptions import HTTPException

from linguagym.errors import ConfigurationError, LinguagymError
from linguagym.version import __version__
from linguagym.web import (
    context,
    ownership,
    setting_labels,
    views_accounts,
    views_capabilities,
    views_results,
    views_runs,
    views_starter,
    views_suites,
)
from linguagym.web.accounts import authenticate, signup_open, token_matches
from linguagym.web.config import WebConfig
from linguagym.web.db import open_database
from linguagym.web.errors import NotFound
from linguagym.web.inputs import IdConverter
from linguagym.web.security import (
    DEVICE_COOKIE,
    FailureThrottle,
    HostPolicy,
    device_cookie,
    forged_origin,
    password_throttle_key,
    safe_next,
    token_throttle_key,
)
from linguagym.web.worker import RunWorker

log = logging.getLogger("linguagym.web")

# reachable without signing in (each still needs the CSRF token): signing in, out and up
_SIGNED_OUT_ENDPOINTS = frozenset({"login", "logout", "accounts.signup"})
_CSP = ("default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; object-src 'none'; "
        "base-uri 'none'; form-action 'self'; frame-ancestors 'none'")


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

    _security(app, config)
    _errors(app)
    _template_helpers(app)

    app.url_map.converters["int"] = IdConverter  # before the routes: ids beyond the database's integers are a 404
    app.register_blueprint(views_suites.blueprint)
    app.register_blueprint(views_runs.blueprint)
    app.register_blueprint(views_capabilities.blueprint)
    app.register_blueprint(views_results.blueprint)
    app.register_blueprint(views_accounts.blueprint)
    app.register_blueprint(views_starter.blueprint)

    @app.get("/")
    def home():
        return redirect(url_for("suites.index"))

    return app


def _security(app: Flask, config: WebConfig) -> None:
    try:
        hosts = HostPolicy(config.host, config.port, config.allowed_hosts)
    except ValueError as error:
        raise ConfigurationError(str(error), hint="give allowed_hosts NAME or NAME:PORT",
                                 settings=["allowed_hosts"]) from None
    throttle = FailureThrottle()
    app.extensions["login_throttle"] = throttle

    @app.before_request
    def _check():
        # Before anything touches the session: a request for a foreign Host gets no page, cookie or token.
        if not hosts.allows(request.host):
            shown = request.host[:100]
            return Response(f"linguagym does not answer for the host {shown!r}: it serves only the addresses it "
                            "was started for.\nIf you reach this server by that name, start it with "
                            f"--allowed-host {shown.split(':')[0] or 'NAME'}.\n",
                            status=400, mimetype="text/plain")
        if "csrf" not in session:
            session["csrf"] = secrets.token_urlsafe(24)
        if request.method in ("GET", "HEAD", "OPTIONS"):
            return None
        forged = forged_origin(request.headers.get("Origin"), request.headers.get("Referer"), request.host)
        if forged:
            return _refuse(403, f"This change was refused: {forged}.",
                           "Make changes from this server's own pages, or from a script with the access token.")
        if request.endpoint in _SIGNED_OUT_ENDPOINTS:
            return _check_csrf()
        if ownership.accounts_on():
            return _check_account()
        if config.token_required and not session.get("authorized"):
            header = request.headers.get("Authorization", "")
            if header.startswith("Bearer "):
                wait = throttle.wait(token_throttle_key(_client()))
                if wait:
                    return _too_many(wait)
                if token_matches(header, config.token):
                    return None  # scripts: the token itself, no session or CSRF needed
                throttle.failed(token_throttle_key(_client()))
            return _refuse(403, "This server needs its access token for changes.",
                           "Log in with the token printed when the server started (or set with --token).",
                           login=True)
        return _check_csrf()

    def _check_account():
        """With accounts: a signed-in user (and the CSRF token), or a script with the access token (an admin)."""
        if ownership.current_user() is not None:
            return _check_csrf()
        header = request.headers.get("Authorization", "")
        if header.startswith("Bearer ") and config.token:
            wait = throttle.wait(token_throttle_key(_client()))
            if wait:
                return _too_many(wait, token=True)
            if token_matches(header, config.token):
                g.token_holder = True
                return None
            throttle.failed(token_throttle_key(_client()))
            return _refuse(403, "That is not this server's access token.",
                           "Send the token printed when the server started (or set with --token).")
        return _refuse(403, "Sign in to make changes on this server.",
                       "Anyone may read; uploading, running, editing and deleting need an account. Ask an admin "
                       "for one" + (", or sign up." if signup_open(context.db_session()) else "."), login=True)

    def _check_csrf():
        sent = request.headers.get("X-CSRF-Token") or request.form.get("csrf", "")
        if not hmac.compare_digest(sent.encode(), session["csrf"].encode()):
            return _refuse(400, "The form had expired or came from another site.",
                           "Reload the page and try again.")
        return None

    def _too_many(wait: float, *, token: bool = False):
        what, again = (("wrong passwords", "your username and password") if ownership.accounts_on() and not token
                       else ("wrong access tokens", "the token the server printed"))
        response = make_response(_refuse(429, f"Too many {what} from this address.",
                                         f"Wait {math.ceil(wait)} seconds, then try again with {again}."))
        response.headers["Retry-After"] = str(math.ceil(wait))
        return response

    @app.route("/login", methods=["GET", "POST"])
    def login():
        if ownership.accounts_on():
            return _account_login()
        error = ""
        if request.method == "POST":
            wait = throttle.wait(token_throttle_key(_client()))
            if wait:
                return _too_many(wait)
            given = request.form.get("token", "").strip()
            if config.token and hmac.compare_digest(given.encode(), config.token.encode()):
                session["authorized"] = True
                return redirect(safe_next(request.args.get("next")) or url_for("suites.index"))
            throttle.failed(token_throttle_key(_client()))
            error = "That is not this server's token."
        return render_template("login.html", error=error, required=config.token_required), 403 if error else 200

    def _account_login():
        """Username and password; throttled like the token, per client address; a fresh session on success."""
        error, username = "", request.form.get("username", "").strip()[:80]
        if request.method == "POST":
            key = password_throttle_key(_client(), username, request.cookies.get(DEVICE_COOKIE), app.secret_key)
            wait = throttle.wait(key)
            if wait:
                return _too_many(wait)
            user = authenticate(context.db_session(), username, request.form.get("password", ""))
            if user is not None:
                ownership.sign_in(user)
                flash(f"Signed in as {user.username}.", "success")
                response = redirect(safe_next(request.args.get("next")) or url_for("suites.index"))
                value, seconds = device_cookie(user.username, app.secret_key)
                response.set_cookie(DEVICE_COOKIE, value, max_age=seconds, httponly=True, samesite="Lax",
                                    secure=request.is_secure)
                return response
            throttle.failed(key)
            error = "Wrong username or password."
        return render_template("login.html", error=error, accounts=True, username=username,
                               signup=signup_open(context.db_session())), 403 if error else 200

    @app.post("/logout")
    def logout():
        ownership.sign_out()
        flash("Signed out.", "info")
        return redirect(url_for("suites.index"))

    @app.after_request
    def _headers(response):
        response.headers.setdefault("Content-Security-Policy", _CSP)
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "same-origin"
        response.headers["X-Frame-Options"] = "DENY"
        return response


def _client() -> str:
    return request.remote_addr or "unknown"


def _wants_json() -> bool:
    return request.path.startswith("/api/")


def _refuse(status: int, message: str, hint: str = "", *, login: bool = False):
    if _wants_json():
        return jsonify({"error": message, "hint": hint}), status
    return render_template("error.html", message=message, hint=hint, status=status, login=login), status


def _errors(app: Flask) -> None:
    @app.errorhandler(LinguagymError)
    def _user_error(error: LinguagymError):
        message, hint = setting_labels.worded(error)  # the settings it names, as this face's form fields
        if isinstance(error, ownership.Forbidden):
            return _refuse(403, message, hint or "", login=error.sign_in)
        return _refuse(404 if isinstance(error, NotFound) else 400, message, hint or "")

    @app.errorhandler(413)
    def _too_large(_error):
        limit = app.config["MAX_CONTENT_LENGTH"]
        shown = f"{limit / 1024 / 1024:g} MB" if limit >= 1024 * 1024 else f"{limit} bytes"
        return _refuse(413, f"The upload is larger than this server's limit of {shown}.",
                       "Split the file, or start the server with a larger --max-upload-mb.")

    @app.errorhandler(HTTPException)
    def _http(error: HTTPException):
        return _refuse(error.code or 500, f"{error.code} {error.name}", error.description or "")

    @app.errorhandler(Exception)
    def _bug(error: Exception):
        log.exception("unexpected error on %s %s", request.method, request.path)
        return _refuse(500, "Something went wrong inside linguagym.",
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
                "may_change": ownership.may_change, "refusal": ownership.refusal}

    @app.template_global()
    def csrf_field() -> Markup:
        return Markup('<input type="hidden" name="csrf" value="{}">').format(escape(session.get("csrf", "")))

    @app.template_filter("when")
    def _when(value: datetime | None) -> str:
        return value.strftime("%Y-%m-%d %H:%M") if value else ""

    @app.template_filter("size")
    def _size(value: int) -> str:
        for unit in ("B", "KB", "MB", "GB"):
            if value < 1024 or unit == "GB":
                return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
            value /= 1024
        return str(value)
