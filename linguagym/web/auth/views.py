"""Account pages: the admins' list of users (create, make or unmake admin, reset a password, delete, the sign-up
switch) and sign-up, when an admin has opened it (a few accounts an hour per address). Signing in and out is
``signin``."""

from __future__ import annotations

import math

from flask import Blueprint, current_app, flash, make_response, redirect, render_template, request, url_for

from linguagym.web.auth.accounts import (
    AccountError,
    create_user,
    delete_user,
    get_user,
    list_users,
    set_admin,
    set_password,
    set_signup_open,
    signup_open,
)
from linguagym.web.auth.ownership import Forbidden, accounts_on, current_user, require_admin, sign_in
from linguagym.web.auth.throttle import FailureThrottle
from linguagym.web.context import db_session

blueprint = Blueprint("accounts", __name__)

SIGNUPS_PER_HOUR = 3  # per client address: enough for a lab behind one address, too few to fill the users table


@blueprint.record_once
def _signup_throttle(state) -> None:
    state.app.extensions["signup_throttle"] = FailureThrottle(SIGNUPS_PER_HOUR, 3600.0)


def _users_page(error: AccountError | None = None, form: dict | None = None):
    session = db_session()
    return render_template("users.html", users=list_users(session), signup=signup_open(session), error=error,
                           form=form or {}, first=not accounts_on()), 400 if error else 200


@blueprint.get("/users")
def users():
    require_admin()
    return _users_page()


@blueprint.post("/users")
def create():
    """A new user; the first one turns accounts on (and is an admin: somebody must be)."""
    require_admin()
    first = not accounts_on()
    session = db_session()
    name = request.form.get("username", "")
    try:
        user = create_user(session, name, request.form.get("password", ""), admin=request.form.get("admin") == "on")
    except AccountError as error:
        session.rollback()
        return _users_page(error, {"username": name[:80], "admin": request.form.get("admin") == "on"})
    session.commit()
    flash(f"Created {'admin' if user.is_admin else 'user'} {user.username!r}.", "success")
    if first:
        flash(f"This server has accounts now: sign in as {user.username} to make changes.", "info")
        return redirect(url_for("login", next=url_for("accounts.users")))
    return redirect(url_for("accounts.users"))


@blueprint.post("/users/<int:user_id>/admin")
def admin(user_id: int):
    require_admin()
    session = db_session()
    user = get_user(session, user_id)
    try:
        set_admin(session, user, request.form.get("admin") == "on")
    except AccountError as error:
        return _users_page(error)
    session.commit()
    flash(f"{user.username} is {'now' if user.is_admin else 'no longer'} an admin.", "success")
    return redirect(url_for("accounts.users"))


@blueprint.post("/users/<int:user_id>/password")
def password(user_id: int):
    require_admin()
    session = db_session()
    user = get_user(session, user_id)
    try:
        set_password(user, request.form.get("password", ""))
    except AccountError as error:
        return _users_page(error)
    session.commit()
    flash(f"Set a new password for {user.username}.", "success")
    return redirect(url_for("accounts.users"))


@blueprint.post("/users/<int:user_id>/delete")
def delete(user_id: int):
    require_admin()
    session = db_session()
    user = get_user(session, user_id)
    name = user.username
    try:
        delete_user(session, user)
    except AccountError as error:
        return _users_page(error)
    session.commit()
    flash(f"Deleted user {name!r}; what they owned stays, and only admins can change it now.", "success")
    return redirect(url_for("accounts.users"))


@blueprint.post("/users/signup")
def signup_switch():
    require_admin()
    session = db_session()
    set_signup_open(session, request.form.get("open") == "on")
    session.commit()
    flash("Anyone who can reach this server may now make an account." if signup_open(session)
          else "Sign-up is off: only admins make accounts.", "success")
    return redirect(url_for("accounts.users"))


@blueprint.route("/signup", methods=["GET", "POST"])
def signup():
    session = db_session()
    if current_user() is not None:
        flash(f"You are signed in as {current_user().username}.", "info")
        return redirect(url_for("suites.index"))
    if not (accounts_on() and signup_open(session)):
        raise Forbidden("Sign-up is off on this server.",
                        hint="Ask an admin of this server to make you an account, or to turn sign-up on.")
    error, name = None, request.form.get("username", "")[:80]
    if request.method == "POST":
        throttle, client = current_app.extensions["signup_throttle"], request.remote_addr or "unknown"
        wait = throttle.wait(client)
        if wait:
            minutes = math.ceil(wait / 60)
            error = AccountError(f"{SIGNUPS_PER_HOUR} accounts were made from this address within the hour",
                                 hint=f"wait {minutes} minute{'s' if minutes != 1 else ''}, or ask an admin "
                                      "of this server to make the account")
            response = make_response(render_template("signup.html", error=error, username=name), 429)
            response.headers["Retry-After"] = str(math.ceil(wait))
            return response
        try:
            user = create_user(session, name, request.form.get("password", ""))
        except AccountError as failure:
            session.rollback()
            error = failure
        else:
            session.commit()
            throttle.failed(client)  # (counts the accounts made: the throttle's "failures" here)
            sign_in(user)
            flash(f"Welcome, {user.username}: you are signed in.", "success")
            return redirect(url_for("suites.index"))
    return render_template("signup.html", error=error, username=name), 400 if error else 200
