"""The checks every request passes before a view runs, each a small function, in the order ``check_request``
runs them: a foreign Host gets nothing (not even a session cookie); a change (any method but GET, HEAD, OPTIONS)
must come from the server's own pages (Origin/Referer) and then carry the form's CSRF token, or be made by a
signed-in user (with accounts) or with the access token (a script: no session or CSRF token needed).
``install`` puts these checks, the security headers and the sign-in pages on an app."""

from __future__ import annotations

import hmac
import math
import secrets

from flask import Flask, Response, g, make_response, request, session

from linguagym.errors import ConfigurationError
from linguagym.web import context
from linguagym.web.auth import ownership, signin
from linguagym.web.auth.accounts import signup_open, token_matches
from linguagym.web.auth.replies import client, too_many
from linguagym.web.auth.requests import HostPolicy, forged_origin
from linguagym.web.auth.throttle import FailureThrottle, token_throttle_key
from linguagym.web.config import WebConfig
from linguagym.web.errors import refuse

# reachable without signing in (each still needs the CSRF token): signing in, out and up
SIGNED_OUT_ENDPOINTS = frozenset({"login", "logout", "accounts.signup"})
# POSTs that change nothing (a computation on the sent body, e.g. the editor's live formula check): anyone may call
# them, with the CSRF token, so a signed-out author's valid formula is never marked wrong; a caller that is not
# signed in is held to READ_ONLY_RATE calls a minute per address
READ_ONLY_POSTS = frozenset({"suites.check_formula"})
READ_ONLY_RATE = 240
CSP = ("default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; object-src 'none'; "
       "base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def install(app: Flask, config: WebConfig) -> None:
    """The request checks, the security headers and the sign-in pages, on ``app``."""
    hosts = host_policy(config)
    throttle = FailureThrottle()
    app.extensions["login_throttle"] = throttle  # ownership's token check counts its failures here too
    rate = FailureThrottle(limit=READ_ONLY_RATE)  # here each call counts, not only failures
    app.before_request(lambda: check_request(config, hosts, throttle, rate))
    app.after_request(security_headers)
    signin.add_routes(app, config, throttle)


def host_policy(config: WebConfig) -> HostPolicy:
    try:
        return HostPolicy(config.host, config.port, config.allowed_hosts)
    except ValueError as error:
        raise ConfigurationError(str(error), hint="give `allowed_hosts` NAME or NAME:PORT",
                                 settings=["allowed_hosts"]) from None


def check_request(config: WebConfig, hosts: HostPolicy, throttle: FailureThrottle,
                  rate: FailureThrottle | None = None) -> Response | None:
    """``None`` lets the request through; else the response that refuses it."""
    refused = foreign_host(hosts)  # before anything touches the session: no page, cookie or token
    if refused is not None:
        return refused
    ensure_csrf_token()
    if request.method in SAFE_METHODS:
        return None
    refused = forged_change()
    if refused is not None:
        return refused
    if request.endpoint in SIGNED_OUT_ENDPOINTS:
        return csrf_refusal()
    if request.endpoint in READ_ONLY_POSTS and bearer_token() is None:  # a script's token is checked as ever
        return csrf_refusal() or read_only_rate(rate)
    if ownership.accounts_on():
        return account_refusal(config, throttle)
    if config.token_required and not session.get("authorized"):
        return token_refusal(config, throttle)
    return csrf_refusal()


def foreign_host(hosts: HostPolicy) -> Response | None:
    """A request for a Host the server was not started for (DNS rebinding: see ``requests``)."""
    if hosts.allows(request.host):
        return None
    shown = request.host[:100]
    return Response(f"linguagym does not answer for the host {shown!r}: it serves only the addresses it "
                    "was started for.\nIf you reach this server by that name, start it with "
                    f"--allowed-host {shown.split(':')[0] or 'NAME'}.\n",
                    status=400, mimetype="text/plain")


def ensure_csrf_token() -> None:
    if "csrf" not in session:
        session["csrf"] = secrets.token_urlsafe(24)


def forged_change():
    """A change whose Origin or Referer is another site."""
    forged = forged_origin(request.headers.get("Origin"), request.headers.get("Referer"), request.host)
    if not forged:
        return None
    return refuse(403, f"This change was refused: {forged}.",
                  "Make changes from this server's own pages, or from a script with the access token.")


def csrf_refusal():
    """A form or script call without the session's CSRF token."""
    sent = request.headers.get("X-CSRF-Token") or request.form.get("csrf", "")
    if not hmac.compare_digest(sent.encode(), session["csrf"].encode()):
        return refuse(400, "The form had expired or came from another site.", "Reload the page and try again.")
    return None


def read_only_rate(rate: FailureThrottle | None):
    """A signed-out caller of a read-only POST past its calls a minute: 429 with Retry-After."""
    if rate is None or ownership.current_user() is not None or session.get("authorized"):
        return None
    key = f"read-only:{client()}"
    wait = rate.wait(key)
    if wait:
        response = make_response(refuse(429, f"More than {READ_ONLY_RATE} checks a minute from this address.",
                                        f"Wait {math.ceil(wait)} seconds, or sign in."))
        response.headers["Retry-After"] = str(math.ceil(wait))
        return response
    rate.failed(key)  # counts the call
    return None


def bearer_token() -> str | None:
    """The ``Authorization: Bearer ...`` header a script sends, if any."""
    header = request.headers.get("Authorization", "")
    return header if header.startswith("Bearer ") else None


def token_refusal(config: WebConfig, throttle: FailureThrottle):
    """Single-user mode with a required token: the right bearer token (a script), else a refusal."""
    header = bearer_token()
    if header is not None:
        wait = throttle.wait(token_throttle_key(client()))
        if wait:
            return too_many(wait)
        if token_matches(header, config.token):
            return None  # scripts: the token itself, no session or CSRF needed
        throttle.failed(token_throttle_key(client()))
    return refuse(403, "This server needs its access token for changes.",
                  "Log in with the token printed when the server started (or set with --token).", login=True)


def account_refusal(config: WebConfig, throttle: FailureThrottle):
    """With accounts: a signed-in user (and the CSRF token), or a script with the access token (an admin)."""
    if ownership.current_user() is not None:
        return csrf_refusal()
    header = bearer_token()
    if header is not None and config.token:
        wait = throttle.wait(token_throttle_key(client()))
        if wait:
            return too_many(wait, token=True)
        if token_matches(header, config.token):
            g.token_holder = True
            return None
        throttle.failed(token_throttle_key(client()))
        return refuse(403, "That is not this server's access token.",
                      "Send the token printed when the server started (or set with --token).")
    return refuse(403, "Sign in to make changes on this server.",
                  "Anyone may read; uploading, running, editing and deleting need an account. Ask an admin "
                  "for one" + (", or sign up." if signup_open(context.db_session()) else "."), login=True)


def security_headers(response):
    response.headers.setdefault("Content-Security-Policy", CSP)
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "same-origin"
    response.headers["X-Frame-Options"] = "DENY"
    return response
