"""The lab's settings: JSON values under a key in the ``lab_settings`` table (revision 0005)."""

from __future__ import annotations

from sqlalchemy.orm import Session

from linguagym.web.db import LabSetting


def get_setting(session: Session, key: str, default=None):
    """The stored value of ``key``, or ``default`` when it was never set."""
    row = session.get(LabSetting, key)
    return default if row is None or row.value is None else row.value


def put_setting(session: Session, key: str, value) -> None:
    """Store ``value`` (anything JSON can hold) under ``key`` (the caller commits)."""
    row = session.get(LabSetting, key)
    if row is None:
        session.add(LabSetting(key=key, value=value))
    else:
        row.value = value
