"""The life cycle runs and capability jobs share (the columns of ``db.JobColumns``): taking a queued job, a cancel
request, the status JSON the pages poll, and putting back in the queue what a stopped server left running."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, TypeVar, cast

from sqlalchemy import CursorResult, select, update
from sqlalchemy.orm import Session

from linguagym.errors import ConfigurationError
from linguagym.web.db import CapabilityJob, RunRecord, now

_Job = TypeVar("_Job", bound=RunRecord | CapabilityJob)  # the table a function is given, and its rows


def request_cancel(job: RunRecord | CapabilityJob, running: str, *, abandoned: bool = False) -> None:
    """Cancel a queued run or capability job at once; ask a running one to stop (``running`` says when it will).
    The worker checks ``cancel_requested`` at each progress step. ``abandoned``: the job is running but no live
    worker holds it (its server stopped): cancelled at once, as nothing else would end it. The caller commits."""
    if job.status == "queued":
        job.status, job.progress_label = "cancelled", "cancelled before it started"
    elif job.status == "running" and abandoned:
        job.status, job.finished_at = "cancelled", now()
        job.progress_label = "cancelled: no server was running it any more"
    elif job.status == "running":
        job.cancel_requested = True
        job.progress_label = running


RESUMABLE = ("failed", "cancelled")


def queue_again(job: RunRecord | CapabilityJob, what: str) -> None:
    """Put a failed or cancelled job (``what``: how pages name it) back in the queue as it was: its suites, models
    and options. What it finished is in the caches, so it recomputes nothing it had. The caller commits."""
    if job.status not in RESUMABLE:
        raise ConfigurationError(f"{what} is {job.status}; only a failed or cancelled one can be resumed",
                                 hint="wait for it to end, or cancel it first" if job.status in ("queued", "running")
                                 else "start a new one with the same settings instead (Run again)")
    job.status, job.error, job.cancel_requested, job.finished_at = "queued", "", False, None
    job.attempts = 0  # a person asked: the server-restart budget starts again
    job.progress_done, job.progress_total, job.progress_label = 0, 0, "queued again: resumes from the cached scores"


def progress_status(job: RunRecord | CapabilityJob) -> dict:
    """The life-cycle fields of a run or capability job, as its status JSON gives them."""
    return {"id": job.id, "status": job.status, "done": job.progress_done, "total": job.progress_total,
            "label": job.progress_label, "error": job.error, "cancel_requested": job.cancel_requested}


MAX_ATTEMPTS = 2  # a job the server stopped during is resumed once; stopped during again, it fails
GAVE_UP = ("the server stopped while this job ran, {attempts} times; it was not resumed again, as the job itself "
           "may be what stops the server (e.g. a dataset or endpoint that exhausts its memory). Check its settings; "
           "Resume it if the server stopped for another reason")


def requeue_running(session: Session, table: type[_Job],
                    only: Collection[int] | None = None) -> int:
    """Put the rows of ``table`` that a stopped server left running back in the queue (``only``: those of these ids),
    but mark failed, with the reason, those already taken ``MAX_ATTEMPTS`` times; how many were queued again."""
    statement = select(table).where(table.status == "running")
    if only is not None:
        statement = statement.where(table.id.in_(list(only)))
    queued = 0
    for job in session.scalars(statement):
        attempts = job.attempts or 0
        if attempts >= MAX_ATTEMPTS:
            job.status, job.finished_at, job.progress_label = "failed", now(), "failed"
            job.error = GAVE_UP.format(attempts=attempts)
        else:
            job.status = "queued"
            job.progress_label = "resuming after a restart"
            queued += 1
    session.flush()
    return queued


def running_ids(session: Session, table: type[_Job]) -> list[int]:
    return list(session.scalars(select(table.id).where(table.status == "running")))


def oldest_queued(session: Session, table: type[_Job],
                  exclude: Collection[int] = ()) -> _Job | None:
    """The oldest queued row of ``table`` but those in ``exclude`` (to take with ``claim``: another worker may take
    it first). Oldest by creation, so a resumed job goes before newer ones."""
    statement = select(table).where(table.status == "queued")
    if exclude:
        statement = statement.where(table.id.not_in(list(exclude)))
    return session.scalar(statement.order_by(table.created_at, table.id).limit(1))


def claim(session: Session, table: type[_Job], job_id: int) -> bool:
    """Take the queued job ``job_id`` for this worker: True when this call moved it from queued to running, False
    when another worker (a thread, or another server on the same database) took it first or it was cancelled.
    One conditional UPDATE, so the database decides: PostgreSQL makes a second claimant wait for the first and
    then finds the row no longer queued; SQLite has one writer at a time."""
    statement = (update(table).where(table.id == job_id, table.status == "queued")
                 .values(status="running", started_at=now(), progress_label="starting", attempts=table.attempts + 1))
    result = cast(CursorResult[Any], session.execute(statement))  # an UPDATE's result: it has rowcount
    return result.rowcount == 1
