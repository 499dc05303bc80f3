"""Numbers that stay taken: deleting a suite, run or capability-test file leaves a ``DeletedRow`` (what it was and
when it went), its page then answers 410 Gone saying so, and no new row gets its number (db.NEVER_REUSED), so a
link in a lab notebook or a paper never silently comes to mean something else."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from linguagym.web.db import DELETED_KINDS, DeletedRow, now
from linguagym.web.errors import Gone, NotFound


def remember_deleted(session: Session, kind: str, row_id: int, label: str) -> None:
    """Record that the ``kind`` row ``row_id`` (named ``label``) is being deleted in this transaction."""
    if kind not in DELETED_KINDS:
        raise ValueError(f"unknown kind of numbered row {kind!r}")
    if session.scalar(select(DeletedRow).where(DeletedRow.kind == kind, DeletedRow.row_id == row_id)) is None:
        session.add(DeletedRow(kind=kind, row_id=row_id, label=label[:500], deleted_at=now()))


def missing(session: Session, kind: str, row_id: int, hint: str) -> NotFound:
    """The error for a ``kind`` row ``row_id`` that is not there: Gone (410) if it was deleted, else NotFound."""
    what = DELETED_KINDS[kind]
    gone = session.scalar(select(DeletedRow).where(DeletedRow.kind == kind, DeletedRow.row_id == row_id))
    if gone is None:
        return NotFound(f"there is no {what} number {row_id}", hint=hint)
    when = gone.deleted_at.strftime("%Y-%m-%d %H:%M UTC") if gone.deleted_at else "at an unknown time"
    return Gone(f"{what} {row_id} ({gone.label}) was deleted on {when}",
                hint=f"its number is not given to anything else; {hint}")
