"""Saving when requests race: two pages storing the same name at once, or SQLite's single writer busy."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import TypeVar

from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import Session

T = TypeVar("T")


def commit_retrying(session: Session, save: Callable[[], T], *, attempts: int = 60) -> T:
    """Run ``save`` (it adds rows) and commit. When a concurrent request got there first (it took the unique name
    or version number ``save`` read as free, or holds SQLite's write lock past its timeout), roll back and run
    ``save`` again: it reads afresh and sees what the other stored."""
    for attempt in range(1, attempts + 1):
        try:
            result = save()
            session.commit()
            return result
        except (IntegrityError, OperationalError) as error:
            session.rollback()
            if attempt == attempts or not _lost_a_race(error):
                raise
            time.sleep(random.uniform(0, min(0.25, 0.005 * attempt)))  # spread the retries of many requests
    raise AssertionError("unreachable")


def _lost_a_race(error: IntegrityError | OperationalError) -> bool:
    state = getattr(error.orig, "sqlstate", None)  # PostgreSQL (psycopg)
    if state is not None:
        return state in ("23505", "40001", "40P01")  # unique violation, serialization failure, deadlock
    message = str(error.orig)
    return "UNIQUE constraint failed" in message or "database is locked" in message
