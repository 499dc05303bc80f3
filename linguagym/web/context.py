"""What the pages take from the running application: its configuration, the request's database session and the
background worker. ``app.create_app`` puts them in place (``attach``); the views import them from here, never
from ``app``, so that ``app`` can import the views to register them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from flask import Flask, current_app, g
from sqlalchemy.orm import Session, sessionmaker

from linguagym.web.config import WebConfig

if TYPE_CHECKING:
    from linguagym.web.jobs.worker import RunWorker

# Keys in ``app.extensions``; tests and ``cli`` read them there too.
CONFIG, SESSIONS, WORKER = "linguagym", "sessions", "worker"


def attach(app: Flask, config: WebConfig, sessions: sessionmaker, worker: RunWorker) -> None:
    """Give ``app`` its configuration, session factory and worker, and close each request's session after it."""
    app.extensions[CONFIG] = config
    app.extensions[SESSIONS] = sessions
    app.extensions[WORKER] = worker

    @app.teardown_appcontext
    def _close(_error):
        db = g.pop("db", None)
        if db is not None:
            db.close()


def config() -> WebConfig:
    """The running application's configuration."""
    return current_app.extensions[CONFIG]


def db_session() -> Session:
    """The request's database session (committed by the view when it changes something)."""
    if "db" not in g:
        g.db = current_app.extensions[SESSIONS]()
    return g.db


def nobody_runs(job) -> bool:
    """Whether ``job`` (a run or capability job) is ``running`` with no live worker holding it: a server doing it
    stopped, and no server has started since to fail or queue it again (see ``RunWorker.nobody_runs``)."""
    return job.status == "running" and current_app.extensions[WORKER].nobody_runs(type(job), job.id)


def notify_worker() -> None:
    """Wake the background worker: a run or job was just queued."""
    current_app.extensions[WORKER].notify()
