"""Signing in and out: ``/login`` takes the access token (single-user mode) or a username and password (with
accounts), throttled per client (``throttle``); ``/logout`` ends the session."""

from __future__ import annotations

import hmac

from flask import Flask, flash, redirect, render_template, request, session, url_for

from linguagym.web import context
from linguagym.web.auth import ownership
from linguagym.web.auth.accounts import authenticate, signup_open
from linguagym.web.auth.replies import client, too_many
from linguagym.web.auth.requests import safe_next
from linguagym.web.auth.throttle import (
    DEVICE_COOKIE,
    FailureThrottle,
    device_cookie,
    password_throttle_key,
    token_throttle_key,
)
from linguagym.web.config import WebConfig


def add_routes(app: Flask, config: WebConfig, throttle: FailureThrottle) -> None:
    """``/login`` and ``/logout`` on ``app`` (endpoints ``login`` and ``logout``, as the templates name them)."""

    @app.route("/login", methods=["GET", "POST"])
    def login():
        if ownership.accounts_on():
            return account_login(app.secret_key, throttle)
        return token_login(config, throttle)

    @app.post("/logout")
    def logout():
        ownership.sign_out()
        flash("Signed out.", "info")
        return redirect(url_for("suites.index"))


def _next_page():
    return redirect(safe_next(request.args.get("next")) or url_for("suites.index"))


def token_login(config: WebConfig, throttle: FailureThrottle):
    """Single-user mode: the access token marks the session authorized."""
    error = ""
    if request.method == "POST":
        wait = throttle.wait(token_throttle_key(client()))
        if wait:
            return too_many(wait)
        given = request.form.get("token", "").strip()
        if config.token and hmac.compare_digest(given.encode(), config.token.encode()):
            session["authorized"] = True
            return _next_page()
        throttle.failed(token_throttle_key(client()))
        error = "That is not this server's token."
    return render_template("login.html", error=error, required=config.token_required), 403 if error else 200


def account_login(secret: str, throttle: FailureThrottle):
    """Username and password; throttled like the token, per client address; a fresh session on success."""
    error, username = "", request.form.get("username", "").strip()[:80]
    if request.method == "POST":
        key = password_throttle_key(client(), username, request.cookies.get(DEVICE_COOKIE), secret)
        wait = throttle.wait(key)
        if wait:
            return too_many(wait)
        user = authenticate(context.db_session(), username, request.form.get("password", ""))
        if user is not None:
            ownership.sign_in(user)
            flash(f"Signed in as {user.username}.", "success")
            response = _next_page()
            value, seconds = device_cookie(user.username, secret)
            response.set_cookie(DEVICE_COOKIE, value, max_age=seconds, httponly=True, samesite="Lax",
                                secure=request.is_secure)
            return response
        throttle.failed(key)
        error = "Wrong username or password."
    return render_template("login.html", error=error, accounts=True, username=username,
                           signup=signup_open(context.db_session())), 403 if error else 200
