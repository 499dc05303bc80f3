"""Capability-test files and the jobs that make and use them: what the pages do with them (their tables are in
``db``).

A test file enters only through the library's validation (``testfile.validate_document``), so whatever is stored
can be tested. Its counts (tests by kind, capabilities) are kept beside the JSON so the list needs no parsing.
Jobs share the run worker's queue and life cycle (queued, running, done, failed, cancelled; see ``worker``):
``generate`` makes a test file from a dataset, ``test`` runs a stored file against classifiers.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import func, or_, select, update
from sqlalchemy import text as sql
from sqlalchemy.orm import Session

from linguagym.capabilities.errors import CapabilityError
from linguagym.capabilities.testfile.load import parse_tests
from linguagym.capabilities.testfile.model import CapabilityTestFile, require_test_file
from linguagym.errors import ConfigurationError
from linguagym.web.db import CapabilityJob, TestFileRecord, now
from linguagym.web.deleted import missing, remember_deleted
from linguagym.web.errors import NotFound
from linguagym.web.text import clean_text, contains_pattern

# ------------------------------------------------------------------------------------------------ test files


def parse_test_file(raw: bytes | str, source: str) -> CapabilityTestFile:
    """The document in ``raw``, validated; CapabilityError (one problem a line) when it is not a test file."""
    try:
        text = raw.decode("utf-8-sig") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError as error:
        raise CapabilityError(f"{source}: not UTF-8 text (byte {error.start})", hint="save the file as UTF-8") from None

    return parse_tests(text, source)


@dataclass(frozen=True)
class SavedFile:
    record: TestFileRecord
    created: bool  # False when a file with exactly this content was already stored


def _one_saver_at_a_time(session: Session, digest: str) -> None:
    """Until this transaction ends, another request saving the same content waits here, then finds this one's
    row instead of storing the file twice. PostgreSQL: an advisory lock on the digest. SQLite (one writer at a
    time): its write lock, taken now by an update that changes nothing, so that the read that follows is current."""
    dialect = session.get_bind().dialect.name
    if dialect == "postgresql":
        session.execute(sql("SELECT pg_advisory_xact_lock(:key)"), {"key": int(digest[:15], 16)})
    elif dialect == "sqlite":
        session.execute(update(TestFileRecord).where(TestFileRecord.sha256 == digest).values(sha256=digest))


def save_test_file(session: Session, text: str, document: CapabilityTestFile, *, name: str,
                   note: str = "", owner_id: int | None = None) -> SavedFile:
    """Store a validated test file (``text`` is its content, ``document`` the parsed form) for ``owner_id``;
    identical content is stored once (keeping its first owner), also when two requests save it at once."""
    require_test_file(document, "save_test_file")
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    _one_saver_at_a_time(session, digest)
    known = session.scalar(select(TestFileRecord).where(TestFileRecord.sha256 == digest).limit(1))
    if known is not None:
        return SavedFile(known, False)
    ids = {c.id for c in document.capabilities} | {t.capability for t in document.tests}
    dataset = clean_text(document.dataset.name)  # the file keeps the name as it was written
    record = TestFileRecord(name=(clean_text(name).strip() or "tests")[:300], dataset=dataset, content=text,
                            sha256=digest, seed_count=document.count("seed"),
                            expansion_count=document.count("expansion"),
                            capability_count=len(ids), note=clean_text(note)[:500],
                            created_at=now(), owner_id=owner_id)
    session.add(record)
    session.flush()
    return SavedFile(record, True)


def list_test_files(session: Session, query: str = "") -> list[TestFileRecord]:
    """Test files whose name or dataset contains ``query`` (any case), newest first."""
    statement = select(TestFileRecord).order_by(TestFileRecord.id.desc())
    pattern = contains_pattern(query)
    if pattern != "%%":
        statement = statement.where(or_(func.lower(TestFileRecord.name).like(pattern, escape="\\"),
                                        func.lower(TestFileRecord.dataset).like(pattern, escape="\\")))
    return list(session.scalars(statement))


def get_test_file(session: Session, file_id: int) -> TestFileRecord:
    record = session.get(TestFileRecord, file_id)
    if record is None:
        raise missing(session, "test_file", file_id, "see the list of test files")
    return record


def load_test_file(record: TestFileRecord) -> CapabilityTestFile:
    """The stored file, checked again: a row stored by an older linguagym that cannot be shown (a lone surrogate,
    a non-finite number) is a located 400 page, not a 500."""
    try:
        return parse_tests(record.content, source=f"stored test file {record.name!r}")
    except CapabilityError as error:
        raise CapabilityError(error.message, hint="it was stored by an older linguagym that let this through: "
                              "download it, mend it, and upload it again") from None


def delete_test_file(session: Session, record: TestFileRecord) -> None:
    used = session.scalar(select(func.count()).select_from(CapabilityJob).where(
        or_(CapabilityJob.test_file_id == record.id, CapabilityJob.result_file_id == record.id)))
    if used:
        raise ConfigurationError(f"test file {record.name!r} belongs to {used} job(s) and cannot be deleted",
                                 hint="it is the input or the output of those jobs")
    remember_deleted(session, "test_file", record.id, record.name)
    session.delete(record)


# ------------------------------------------------------------------------------------------------ jobs


def _job(session: Session, kind: str, settings: dict, test_file: TestFileRecord | None = None) -> CapabilityJob:
    job = CapabilityJob(kind=kind, status="queued", settings=settings, test_file_id=test_file.id if test_file else None,
                        error="", progress_done=0, progress_total=0, progress_label="waiting", cancel_requested=False,
                        created_at=now())
    session.add(job)
    session.flush()
    return job


def create_generate_job(session: Session, settings: dict) -> CapabilityJob:
    return _job(session, "generate", settings)


def create_test_job(session: Session, test_file: TestFileRecord, classifiers: Sequence[str],
                    settings: dict) -> CapabilityJob:
    classifiers = list(dict.fromkeys(c.strip() for c in classifiers if c.strip()))
    if not classifiers:
        raise ConfigurationError("no classifier chosen", hint="tick a classifier or enter a classifier spec")
    return _job(session, "test", {**settings, "classifiers": classifiers}, test_file)


def list_jobs(session: Session) -> list[CapabilityJob]:
    return list(session.scalars(select(CapabilityJob).order_by(CapabilityJob.id.desc())))


def get_job(session: Session, job_id: int) -> CapabilityJob:
    job = session.get(CapabilityJob, job_id)
    if job is None:
        raise NotFound(f"there is no capability job number {job_id}", hint="see the list of capability jobs")
    return job

