"""Who may change what on the server: the signed-in user, the owner a new row gets, and the checks a view makes
before it changes or deletes a row.

Local single-user mode (no users in the database) lets whoever the app's security checks let through change
everything, and new rows get no owner. Once accounts exist, a row's owner and the admins may change it; a row with
no owner (made before accounts) only the admins. A script sending the server's access token acts as an admin.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from flask import current_app, g, request, session
from sqlalchemy.orm import Session

from linguagym.errors import LinguagymError
from linguagym.suites.model import Suite
from linguagym.web.auth.accounts import accounts_exist, list_users, token_matches
from linguagym.web.auth.throttle import token_throttle_key
from linguagym.web.context import config, db_session
from linguagym.web.db import CapabilityJob, RunRecord, SuiteRecord, TestFileRecord, UserRecord
from linguagym.web.store import SavedVersion, save_suite_version
from linguagym.web.transactions import commit_retrying

SESSION_KEY, PASSWORD_KEY = "user_id", "user_key"


class Forbidden(LinguagymError):
    """This request may not change that row, or the lab's settings (shown as a 403 page, or JSON under /api/)."""

    def __init__(self, message: str, *, hint: str | None = None, sign_in: bool = False) -> None:
        super().__init__(message, hint=hint)
        self.sign_in = sign_in


def accounts_on() -> bool:
    """Whether this server has accounts (once per request)."""
    if "accounts_on" not in g:
        g.accounts_on = accounts_exist(db_session())
    return g.accounts_on


def current_user() -> UserRecord | None:
    """The signed-in user, or None (local single-user mode, or nobody signed in)."""
    if "current_user" not in g:
        user_id = session.get(SESSION_KEY)
        user = db_session().get(UserRecord, user_id) if isinstance(user_id, int) else None
        # a session from before the user's password changed is no longer theirs
        same = user is not None and hmac.compare_digest(str(session.get(PASSWORD_KEY, "")), _password_key(user))
        g.current_user = user if same else None
    return g.current_user


def _password_key(user: UserRecord) -> str:
    return hashlib.sha256(user.password_hash.encode()).hexdigest()[:16]


def sign_in(user: UserRecord) -> None:
    """A fresh session for ``user``: nothing of the signed-out session (its CSRF token included) carries over."""
    session.clear()
    session["csrf"] = secrets.token_urlsafe(24)
    session[SESSION_KEY] = user.id
    session[PASSWORD_KEY] = _password_key(user)
    g.current_user = user


def sign_out() -> None:
    session.clear()
    session["csrf"] = secrets.token_urlsafe(24)
    g.current_user = None


def new_owner_id() -> int | None:
    """The owner a row made by this request gets."""
    user = current_user()
    return user.id if user else None


def acts_as_admin() -> bool:
    """Whether this request may change anything: single-user mode (behind the token where the server has one), an
    admin, or the access token."""
    if not accounts_on():
        return not config().token_required or bool(session.get("authorized")) or _token_holder()
    user = current_user()
    return bool(user and user.is_admin) or _token_holder()


def _token_holder() -> bool:
    """A script's ``Authorization: Bearer TOKEN`` (a wrong token counts against the client's login attempts)."""
    if "token_holder" not in g:
        header, client = request.headers.get("Authorization"), token_throttle_key(request.remote_addr or "unknown")
        throttle = current_app.extensions["login_throttle"]
        g.token_holder = bool(header) and not throttle.wait(client) and token_matches(header, config().token)
        if header and not g.token_holder:
            throttle.failed(client)
    return g.token_holder


def owner_name(record) -> str:
    """The username of ``record``'s owner ("" when it has none), from one read of the users per request."""
    if "usernames" not in g:
        g.usernames = {user.id: user.username for user in list_users(db_session())}
    return g.usernames.get(record.owner_id, "") if record.owner_id is not None else ""


def describe(record) -> str:
    if isinstance(record, SuiteRecord):
        return f"the suite {record.name!r}"
    if isinstance(record, RunRecord):
        return record.title
    if isinstance(record, TestFileRecord):
        return f"the test file {record.name!r}"
    if isinstance(record, CapabilityJob):
        return f"capability job {record.id}"
    return "this"


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]  # not str.capitalize, which lowercases the names in it


def refusal(record) -> Forbidden | None:
    """Why this request may not change or delete ``record`` (anything with ``owner_id``); None when it may."""
    if acts_as_admin():
        return None
    user = current_user()
    if user is None:
        return Forbidden(f"Sign in to change {describe(record)}.",
                         hint="Changes on this server need an account: sign in, then try again.", sign_in=True)
    if record.owner_id == user.id:
        return None
    owner = owner_name(record)
    if owner:
        return Forbidden(f"{_sentence(describe(record))} belongs to {owner}: only {owner} or an admin may change "
                         f"or delete it.",
                         hint=f"Ask {owner} or an admin of this server; or copy it and change your copy.")
    return Forbidden(f"{_sentence(describe(record))} was made before this server had accounts and has no owner: "
                     "only an admin may change or delete it.", hint="Ask an admin of this server.")


def require_owner(record) -> None:
    """Refuse (a 403 page) unless this request may change or delete ``record``."""
    refused = refusal(record)
    if refused is not None:
        raise refused


def needs_sign_in() -> bool:
    """For the pages: whether this browser must sign in (or log in with the token) before it may save anything."""
    if accounts_on():
        return current_user() is None and not _token_holder()
    return not acts_as_admin()


def may_change(record) -> bool:
    """For the pages: whether to offer the buttons that change or delete ``record``. Without accounts, always (the
    app's security checks guard the changes themselves, as before)."""
    return not accounts_on() or refusal(record) is None


def require_admin() -> None:
    """Refuse (a 403 page) unless this request may change the lab's settings."""
    if acts_as_admin():
        return
    user = current_user()
    if user is None:
        raise Forbidden("Only an admin of this server may do this; sign in first.",
                        hint="Sign in with an admin account.", sign_in=True)
    raise Forbidden(f"Only an admin of this server may do this, and {user.username} is not one.",
                    hint="Ask an admin of this server (the Users page lists them).")


def save_suite_owned(session: Session, suite: Suite, *, note: str = "") -> SavedVersion:
    """Store ``suite`` and commit: a new suite is owned by this request's user; a new version of a known suite is a
    change of it (its owner's or an admin's to make); content equal to the latest version stores nothing."""

    def save() -> SavedVersion:
        saved = save_suite_version(session, suite, note=note)
        if saved.created and saved.version.number == 1:
            saved.suite.owner_id = new_owner_id()
        elif saved.created:
            require_owner(saved.suite)
        return saved

    try:
        return commit_retrying(session, save)
    except Forbidden:
        session.rollback()
        raise
