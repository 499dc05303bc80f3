"""What every background job of the web app shares: where it writes its progress and reads its cancel request (the
``JobColumns`` of its row), in the library's progress shape, and how its outcome is recorded.

A job's work is one library call (``run_models``, ``run_classifiers``, ``generate_tests``); this module turns the
database row into that call's ``progress`` and ``cancelled`` callbacks. Progress is written at most twice a second
(the dataset analysis advances once per sentence); each write also reads whether cancelling was asked for.
"""

from __future__ import annotations

import logging
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import sessionmaker

from linguagym.errors import Cancelled, LinguagymError
from linguagym.evaluation.model_runs import ScorerFactory
from linguagym.executors import Executor
from linguagym.executors.local import LocalExecutor
from linguagym.progress import STAGE, Advance
from linguagym.web import setting_labels
from linguagym.web.config import WebConfig
from linguagym.web.db import CapabilityJob, RunRecord, now
from linguagym.web.jobs.executors import JobExecutors

log = logging.getLogger("linguagym.web")

UNIT_PHRASES = {"tokens": "tokens scored", "texts": "texts predicted"}  # beside done / total on the page


@dataclass(frozen=True)
class JobContext:
    """What a job handler needs of the server: its database, its configuration, where jobs score
    (``executors.open()``: an executor for one job; None: in this process) and, in tests, a scorer factory
    (``RunSettings`` -> scorer, ``run_models``' ``scorers``) used instead of the model registry."""

    sessions: sessionmaker
    config: WebConfig
    scorer_factory: ScorerFactory | None = None
    executors: JobExecutors | None = None

    def executor(self) -> Executor:
        """An executor for one job, to use in a ``with`` block."""
        return self.executors.open() if self.executors is not None else LocalExecutor()


class JobProgress:
    """One job's row, as the library's ``progress(label, total, unit)`` and ``cancelled()`` callbacks."""

    def __init__(self, context: JobContext, table: type[RunRecord] | type[CapabilityJob], job_id: int,
                 interval: float = 0.5) -> None:
        self.context, self.table, self.job_id, self.interval = context, table, job_id, interval
        self.cancel_asked = False
        self._looked = time.monotonic()  # when the row's cancel request was last read

    def write(self, **values: Any) -> None:
        """Set columns of the job's row, and learn whether cancelling was asked for."""
        with self.context.sessions.begin() as session:
            job = session.get(self.table, self.job_id)
            for key, value in values.items():
                setattr(job, key, value)
            self.cancel_asked = bool(job.cancel_requested)
        self._looked = time.monotonic()

    def cancelled(self) -> bool:
        """Whether cancelling was asked for: what the last write read, or, when that is older than ``interval``,
        the row read now. A classifier waiting on an endpoint asks this from another thread (no write comes)."""
        if not self.cancel_asked and time.monotonic() - self._looked >= self.interval:
            self._looked = time.monotonic()
            with self.context.sessions() as session:
                self.cancel_asked = bool(session.get(self.table, self.job_id).cancel_requested)
        return self.cancel_asked

    def say(self, label: str) -> None:
        """A step without a count (loading, writing); stops here when cancelling was asked for."""
        self.write(progress_label=label, progress_done=0, progress_total=0)
        if self.cancel_asked:
            raise Cancelled("cancelled")

    def __call__(self, label: str, total: int, unit: str) -> Advance:
        # a stage (loading a model) is its label with no total: the page draws a bar without an end
        shown = label if unit == STAGE else f"{label}: {UNIT_PHRASES.get(unit, f'{unit} done')}"
        self.write(progress_label=shown, progress_total=total, progress_done=0)
        state = {"done": 0, "written": time.monotonic()}

        def advance(count: int) -> None:
            state["done"] += count
            moment = time.monotonic()
            if moment - state["written"] >= self.interval or state["done"] >= total:
                state["written"] = moment
                self.write(progress_done=state["done"])  # (the library asks ``cancelled`` after each step)

        return advance

    def record(self, work: Callable[[], None], what: str) -> None:
        """Do ``work``, recording how it ended: done (``work`` sets it), cancelled, or failed with the message of an
        error a user can cause; any other error is a bug, logged with its traceback, and the server goes on."""
        try:
            work()
        except Cancelled:
            self.write(status="cancelled", finished_at=now(), progress_label="cancelled")
        except LinguagymError as error:
            self.write(status="failed", finished_at=now(), error=setting_labels.text(error), progress_label="failed")
        except Exception as error:  # a bug or an unexpected environment problem: keep the server alive
            log.error("%s failed:\n%s", what, traceback.format_exc())
            self.write(status="failed", finished_at=now(), progress_label="failed",
                       error=f"{type(error).__name__}: {error} (the server log has the details)")
