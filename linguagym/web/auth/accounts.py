"""Accounts on a lab server: users with hashed passwords, signing in, and the sign-up switch.

A server whose database has no users is in local single-user mode (no sign-in). The first user, made with
``linguagym users add NAME --admin`` or on the ``/users`` page, turns accounts on. The web pages, the command line
and the tests all go through these functions.
"""

from __future__ import annotations

import hmac
import re
from functools import lru_cache

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session
from werkzeug.security import check_password_hash, generate_password_hash

from linguagym.errors import ConfigurationError
from linguagym.web.auth.username_index import is_username_clash
from linguagym.web.db import LabSetting, UserRecord, now

USERNAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,79}")
MIN_PASSWORD, MAX_PASSWORD = 8, 1024  # the upper bound keeps one request from hashing megabytes
SIGNUP_SETTING = "signup_open"
_HASH_METHOD = "scrypt"


@lru_cache(maxsize=1)
def _dummy_hash() -> str:
    """Checked against when the name is unknown, so an unknown name costs as long as a wrong password."""
    return generate_password_hash("linguagym-no-such-user", method=_HASH_METHOD)


class AccountError(ConfigurationError):
    """A username or password that cannot be used (shown as a 400 page, or by the CLI)."""


def check_username(name: str) -> str:
    name = (name or "").strip()
    if not name:
        raise AccountError("no username given (the name was empty or only spaces)",
                           hint="use 1 to 80 letters, digits, '.', '_' or '-', starting with a letter or digit")
    if not USERNAME.fullmatch(name):
        raise AccountError(f"the username {name[:100]!r} cannot be used",
                           hint="use 1 to 80 letters, digits, '.', '_' or '-', starting with a letter or digit")
    return name


def check_password(password: str) -> str:
    if len(password or "") < MIN_PASSWORD:
        raise AccountError(f"the password has {len(password or '')} characters; at least {MIN_PASSWORD} are needed",
                           hint="choose a longer password (a few words work well)")
    if len(password) > MAX_PASSWORD:
        raise AccountError(f"the password has more than {MAX_PASSWORD} characters", hint="choose a shorter one")
    return password


def hash_password(password: str) -> str:
    return generate_password_hash(check_password(password), method=_HASH_METHOD)


def verify_password(user: UserRecord, password: str) -> bool:
    return check_password_hash(user.password_hash, password)


def accounts_exist(session: Session) -> bool:
    """Whether the server has any user, i.e. is a lab server with accounts rather than local single-user."""
    return session.scalar(select(UserRecord.id).limit(1)) is not None


def find_user(session: Session, name: str) -> UserRecord | None:
    """The user called ``name``, in any case (``Alice`` and ``alice`` are one account). A database from before
    revision 0006 may hold both: then the exact spelling wins, so ``linguagym users remove Alice`` can fix it."""
    name = (name or "").strip()
    return session.scalar(select(UserRecord).where(func.lower(UserRecord.username) == name.lower())
                          .order_by((UserRecord.username == name).desc(), UserRecord.id))


# characters that look alike in many fonts: capital I, small l and the digit 1; capital O and the digit 0
_GLYPHS = str.maketrans({"I": "l", "1": "l", "0": "O"})


def look_alike(name: str, other: str) -> bool:
    """Whether two usernames would be taken for one: equal but for case (``Alice``, ``alice``) or for characters
    that look alike (``aIice`` with a capital I, ``b0b`` with a zero)."""
    return name.lower() == other.lower() or name.translate(_GLYPHS).lower() == other.translate(_GLYPHS).lower()


def _check_new_name(session: Session, name: str) -> None:
    for user in list_users(session):  # (a lab has tens of users, not millions)
        if user.username.lower() == name.lower():
            raise _name_taken(user.username)
        if look_alike(name, user.username):
            raise AccountError(f"the username {name!r} looks too much like the existing user {user.username!r}",
                               hint="pick a name that others will not mistake for theirs")


def _name_taken(existing: str) -> AccountError:
    return AccountError(f"there is already a user called {existing!r}",
                        hint="pick another name, or change that user's password instead")


def list_users(session: Session) -> list[UserRecord]:
    return list(session.scalars(select(UserRecord).order_by(func.lower(UserRecord.username))))


def get_user(session: Session, user_id: int) -> UserRecord:
    from linguagym.web.errors import NotFound

    user = session.get(UserRecord, user_id)
    if user is None:
        raise NotFound(f"there is no user number {user_id}", hint="see the list of users")
    return user


def create_user(session: Session, name: str, password: str, *, admin: bool = False) -> UserRecord:
    """Add a user (flushed, not committed); the first user of a server is always an admin, or nobody could run it.
    When the database refuses the name (another sign-up took it since the check), the answer is the check's own
    "already a user"; as after any failed flush, the caller rolls the session back."""
    name = check_username(name)
    _check_new_name(session, name)
    user = UserRecord(username=name, password_hash=hash_password(password),
                      is_admin=admin or not accounts_exist(session), created_at=now())
    session.add(user)
    try:
        session.flush()
    except IntegrityError as error:
        if not is_username_clash(error):
            raise
        raise _name_taken(_spelling_taken(session, name)) from None
    return user


def _spelling_taken(session: Session, name: str) -> str:
    """How the database spells the user who took ``name``, read on a connection of its own (the session's
    transaction ended with the refused insert)."""
    with session.get_bind().engine.connect() as connection:
        taken = connection.scalar(select(UserRecord.username)
                                  .where(func.lower(UserRecord.username) == name.lower()).limit(1))
    return taken or name


def set_password(user: UserRecord, password: str) -> None:
    user.password_hash = hash_password(password)


def set_admin(session: Session, user: UserRecord, admin: bool) -> None:
    if not admin and user.is_admin and _admin_count(session) == 1:
        raise AccountError(f"{user.username!r} is the only admin", hint="make another user an admin first")
    user.is_admin = admin


def delete_user(session: Session, user: UserRecord) -> None:
    """Remove a user; what they owned keeps existing with no owner (then only admins change it)."""
    if user.is_admin and _admin_count(session) == 1:
        raise AccountError(f"{user.username!r} is the only admin and cannot be deleted",
                           hint="make another user an admin first")
    session.delete(user)
    session.flush()


def _admin_count(session: Session) -> int:
    return session.scalar(select(func.count()).select_from(UserRecord).where(UserRecord.is_admin)) or 0


def authenticate(session: Session, name: str, password: str) -> UserRecord | None:
    """The user whose name and password these are, or None. Takes as long for an unknown name as for a wrong
    password."""
    user = find_user(session, name) if USERNAME.fullmatch((name or "").strip()) else None
    if len(password or "") > MAX_PASSWORD:
        return None
    if user is None:
        check_password_hash(_dummy_hash(), password or "")
        return None
    return user if verify_password(user, password or "") else None


def token_matches(header: str | None, token: str | None) -> bool:
    """Whether an ``Authorization`` header carries the server's access token (``Bearer TOKEN``)."""
    if not token or not header or not header.startswith("Bearer "):
        return False
    return hmac.compare_digest(header[7:].encode(), token.encode())


def signup_open(session: Session) -> bool:
    """Whether anyone may make themselves an account (a lab setting, off unless an admin turns it on)."""
    setting = session.get(LabSetting, SIGNUP_SETTING)
    return bool(setting and setting.value is True)


def set_signup_open(session: Session, open_: bool) -> None:
    setting = session.get(LabSetting, SIGNUP_SETTING)
    if setting is None:
        session.add(LabSetting(key=SIGNUP_SETTING, value=bool(open_)))
    else:
        setting.value = bool(open_)
    session.flush()
