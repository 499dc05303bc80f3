"""The life cycle runs and capability jobs share (the columns of ``db.JobColumns``): a cancel request, the status
JSON the pages poll, and putting back in the queue what a stopped server left running."""

from __future__ import annotations

from sqlalchemy import update
from sqlalchemy.orm import Session

from linguagym.web.db import CapabilityJob, RunRecord


def request_cancel(job: RunRecord | CapabilityJob, running: str) -> None:
    """Cancel a queued run or capability job at once; ask a running one to stop (``running`` says when it will).
    The worker checks ``cancel_requested`` at each progress step. The caller commits."""
    if job.status == "queued":
        job.status, job.progress_label = "cancelled", "cancelled before it started"
    elif job.status == "running":
        job.cancel_requested = True
        job.progress_label = running


def progress_status(job: RunRecord | CapabilityJob) -> dict:
    """The life-cycle fields of a run or capability job, as its status JSON gives them."""
    return {"id": job.id, "status": job.status, "done": job.progress_done, "total": job.progress_total,
            "label": job.progress_label, "error": job.error, "cancel_requested": job.cancel_requested}


def requeue_running(session: Session, table: type[RunRecord] | type[CapabilityJob]) -> int:
    """Put the rows of ``table`` that a stopped server left running back in the queue; how many there were."""
    result = session.execute(update(table).where(table.status == "running")
                             .values(status="queued", progress_label="resuming after a restart"))
    return result.rowcount or 0
