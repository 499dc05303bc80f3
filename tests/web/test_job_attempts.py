"""A job that stops the server is not resumed blindly (issue 43): a generate job named /dev/zero as its dataset and
the server, reading it, was killed by the kernel; the job stayed running, was resumed at start-up, and killed the
server again on every restart. Now the dataset is refused before it is read, and a job left running by a stopped
server is queued again once; left running a second time, it is marked failed with the reason."""

from __future__ import annotations

import os
import re

import pytest

from linguagym.web import db
from linguagym.web.capabilities.store import create_generate_job
from linguagym.web.db import CapabilityJob
from linguagym.web.jobs.lifecycle import MAX_ATTEMPTS, claim, queue_again, requeue_running


def _job_id(response) -> int:
    assert response.status_code == 302, response.text[:500]
    return int(re.search(r"/capabilities/jobs/(\d+)", response.headers["Location"]).group(1))


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero here")
def test_a_generate_job_reading_dev_zero_fails_at_once_with_the_reason(app, client):
    job_id = _job_id(client.post("/capabilities/jobs/generate", data={"lc": ["LC2"], "dataset": "/dev/zero"}))
    assert app.extensions["worker"].run_next()  # (before: read /dev/zero to 19 GB and was killed)
    with app.extensions["sessions"]() as session:
        job = session.get(CapabilityJob, job_id)
        assert job.status == "failed" and job.attempts == 1
        assert "/dev/zero is a character device, not a dataset file" in job.error


def test_a_job_left_running_twice_is_failed_not_resumed_again(database_url):
    sessions = db.open_database(database_url)
    with sessions.begin() as session:
        job_id = create_generate_job(session, {"lcs": "LC2", "dataset": "/dev/zero"}).id

    def crash_while_running() -> CapabilityJob:
        """A worker takes the job and the server dies under it; then the next server starts."""
        with sessions.begin() as session:
            assert claim(session, CapabilityJob, job_id)
        with sessions.begin() as session:
            requeue_running(session, CapabilityJob)
        with sessions() as session:
            return session.get(CapabilityJob, job_id)

    for attempt in range(1, MAX_ATTEMPTS):
        job = crash_while_running()
        assert (job.status, job.attempts, job.progress_label) == ("queued", attempt, "resuming after a restart")
    job = crash_while_running()
    assert job.status == "failed" and job.attempts == MAX_ATTEMPTS and job.finished_at is not None
    assert f"the server stopped while this job ran, {MAX_ATTEMPTS} times; it was not resumed again" in job.error
    with sessions.begin() as session:  # a person may still resume it: the count starts again
        queue_again(session.get(CapabilityJob, job_id), "the job")
    with sessions() as session:
        job = session.get(CapabilityJob, job_id)
        assert (job.status, job.attempts, job.error) == ("queued", 0, "")
    sessions.kw["bind"].dispose()


def test_the_attempts_column_is_added_to_an_older_database(tmp_path):
    """Revision 0007 adds ``attempts`` (0) to the rows of a database made at 0006."""
    from sqlalchemy import text

    url = f"sqlite:///{tmp_path / 'old.db'}"
    engine = db.make_engine(url)
    db.migrate(engine, "0006")
    with engine.begin() as connection:
        connection.execute(text("INSERT INTO capability_jobs (kind, settings, status, error, progress_done, "
                                "progress_total, progress_label, cancel_requested, created_at) VALUES "
                                "('generate', '{}', 'running', '', 0, 0, '', 0, '2026-01-01 00:00:00')"))
    db.migrate(engine)
    assert db.current_revision(engine) == db.head_revision() >= "0007"
    with engine.connect() as connection:
        assert connection.execute(text("SELECT attempts FROM capability_jobs")).scalar() == 0
    engine.dispose()


def test_cancel_ends_at_once_a_job_no_live_server_runs(app, client):
    """A job left running by a server that stopped, with no server started since, could not be ended from its
    page (Cancel only asked a worker that did not exist). Now Cancel ends it at once; a job a live worker holds
    is asked to stop, as before."""
    worker = app.extensions["worker"]
    first = _job_id(client.post("/capabilities/jobs/generate", data={"lc": ["LC2"]}))
    second = _job_id(client.post("/capabilities/jobs/generate", data={"lc": ["LC2"]}))
    with app.extensions["sessions"].begin() as session:
        for job_id in (first, second):
            assert claim(session, CapabilityJob, job_id)
    held = worker.locks.acquire("capability_jobs", second)  # a live worker is doing the second
    try:
        for job_id in (first, second):
            assert client.post(f"/capabilities/jobs/{job_id}/cancel").status_code == 302
        with app.extensions["sessions"]() as session:
            abandoned, live = session.get(CapabilityJob, first), session.get(CapabilityJob, second)
            assert (abandoned.status, abandoned.progress_label) == ("cancelled",
                                                                     "cancelled: no server was running it any more")
            assert abandoned.finished_at is not None
            assert (live.status, live.cancel_requested) == ("running", True)
    finally:
        held.release()
