"""The database's guard against two usernames equal but for case (``Alice``, ``alice``): a unique index on
``lower(username)`` (revision 0006). ``accounts`` refuses such names before inserting, but two sign-ups at once
can both pass that check; the index refuses the second.

A database that already holds such a pair cannot get the index. Then it is left without it (the names keep
working, the old case-sensitive constraint stays) and every start logs a warning naming the users, until one of
each pair is removed; the next start makes the index.
"""

from __future__ import annotations

import logging

from sqlalchemy import text
from sqlalchemy.engine import Connection

INDEX = "uq_users_username_lower"
log = logging.getLogger("linguagym.web")


def case_clashes(connection: Connection) -> list[list[str]]:
    """The groups of usernames equal but for case, each sorted (``[['Alice', 'alice'], ...]``)."""
    rows = connection.execute(text(
        "SELECT username FROM users WHERE lower(username) IN "
        "(SELECT lower(username) FROM users GROUP BY lower(username) HAVING count(*) > 1)"))
    groups: dict[str, list[str]] = {}
    for (name,) in rows:
        groups.setdefault(name.lower(), []).append(name)
    return [sorted(group) for _, group in sorted(groups.items())]


def ensure_username_index(connection: Connection) -> bool:
    """Make the index unless some names clash (then warn, naming them); whether the database has it now."""
    clashes = case_clashes(connection)
    if clashes:
        pairs = "; ".join(" and ".join(repr(name) for name in group) for group in clashes)
        log.warning("usernames equal but for case: %s. Sign-ups still check names, but the database cannot refuse "
                    "two made at the same moment until each name is unique: remove the extra accounts with "
                    "`linguagym users remove NAME` (spelled exactly, in its case) and restart the server.", pairs)
        return False
    # IF NOT EXISTS: SQLite and PostgreSQL both have it, and a later start runs this again (see db.migrate)
    connection.execute(text(f"CREATE UNIQUE INDEX IF NOT EXISTS {INDEX} ON users (lower(username))"))
    return True


def is_username_clash(error: Exception) -> bool:
    """Whether an IntegrityError comes from a username constraint (this index, or the column's own ``UNIQUE``):
    SQLite and PostgreSQL both name the constraint or column in the message."""
    return "username" in str(getattr(error, "orig", error)).lower()
