"""What the pages do to the database: suites and their versions, runs and their progress.

Suites enter only through the library's validation (``parse_suite_text`` / ``parse_suite_data``) and are stored
in the canonical dialect (``suite_to_json``), so whatever is stored can be read back and run.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, replace

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session, selectinload

from linguagym.errors import ConfigurationError, SuiteError
from linguagym.suites.identity import same_content
from linguagym.suites.load import LoadedSuite, parse_suite_text
from linguagym.suites.model import Suite
from linguagym.suites.save import suite_to_json
from linguagym.web.db import RUN_NAME_LENGTH, UNFINISHED, RunRecord, RunSuite, SuiteRecord, SuiteVersion, now
from linguagym.web.deleted import missing, remember_deleted
from linguagym.web.errors import NotFound
from linguagym.web.text import clean_text, contains_pattern
from linguagym.web.transactions import commit_retrying


@dataclass(frozen=True)
class SavedVersion:
    suite: SuiteRecord
    version: SuiteVersion
    created: bool  # False when the content equals the latest version, edits aside (nothing new was stored)
    exact: bool = True  # (not created) whether byte for byte, or only but for what is not an edit


def _summary(suite: Suite) -> dict:
    author = suite.meta.extra.get("author", "")
    return {"author": clean_text(author if isinstance(author, str) else str(author)), "item_count": len(suite.items),
            "condition_count": len(suite.condition_names), "region_count": suite.region_count,
            "prediction_count": len(suite.predictions)}


def _shown_name(suite: Suite) -> Suite:
    """``suite`` with the unshowable characters dropped from its name, as from every name the app stores (docs/web.md):
    suite files refuse controls in names, but bidi overrides such as U+202E are format characters, which they
    accept, and which would reverse the text after them in every list. The stored content says the same name."""
    shown = clean_text(suite.name).strip()
    if shown == suite.name:
        return suite
    return replace(suite, meta=replace(suite.meta, name=shown or "unnamed suite"))


def save_suite_version(session: Session, suite: Suite, *, note: str = "") -> SavedVersion:
    """Store ``suite`` as the next version of the suite of that name (a new suite if there is none). Two requests
    saving one name at once: the later one fails with an IntegrityError (the name or the version number is
    taken); ``save_and_commit`` runs it again."""
    suite = _shown_name(suite)
    content = suite_to_json(suite)
    digest = hashlib.sha256(content.encode("utf-8")).hexdigest()
    # FOR UPDATE: on PostgreSQL a concurrent save of this name waits here until ours commits, then reads our
    # version. SQLite ignores it; there a read gone stale ends in an IntegrityError, and save_and_commit retries.
    record = session.scalar(select(SuiteRecord).where(SuiteRecord.name == suite.name).with_for_update())
    latest = None
    if record is None:
        record = SuiteRecord(name=suite.name, created_at=now(), updated_at=now())
        session.add(record)
        session.flush()
    else:  # read, not record.latest: the versions a concurrent save committed since the record was loaded count
        latest = session.scalar(select(SuiteVersion).where(SuiteVersion.suite_id == record.id)
                                .order_by(SuiteVersion.number.desc()).limit(1))
    if latest is not None and (latest.sha256 == digest or _unedited(latest, suite)):
        return SavedVersion(record, latest, False, exact=latest.sha256 == digest)
    number = latest.number + 1 if latest is not None else 1
    version = SuiteVersion(suite=record, number=number, content=content, sha256=digest, note=clean_text(note),
                           created_at=now(), **_summary(suite))
    session.add(version)
    record.updated_at = now()
    session.flush()
    return SavedVersion(record, version, True)


def _unedited(latest: SuiteVersion, suite: Suite) -> bool:
    """Whether ``suite`` says what ``latest`` says, but for what is not an edit (conditions reordered, an empty
    author dropped: ``suites.identity``). A stored version today's rules refuse is never the same."""
    try:
        stored = parse_suite_text(latest.content, source="stored version").suite
    except SuiteError:
        return False
    return same_content(stored, suite)


def save_and_commit(session: Session, suite: Suite, *, note: str = "") -> SavedVersion:
    """``save_suite_version`` and commit, safe when many requests save the same name at once."""
    return commit_retrying(session, lambda: save_suite_version(session, suite, note=note))


def list_suites(session: Session, query: str = "") -> list[SuiteRecord]:
    """Suites whose name or author contains ``query`` (any case), newest change first."""
    statement = select(SuiteRecord).options(selectinload(SuiteRecord.versions), selectinload(SuiteRecord.tags))
    statement = statement.order_by(SuiteRecord.updated_at.desc(), SuiteRecord.id.desc())
    pattern = contains_pattern(query)
    if pattern != "%%":
        authors = select(SuiteVersion.suite_id).where(func.lower(SuiteVersion.author).like(pattern, escape="\\"))
        statement = statement.where(or_(func.lower(SuiteRecord.name).like(pattern, escape="\\"),
                                        SuiteRecord.id.in_(authors)))
    return list(session.scalars(statement))


def get_suite(session: Session, suite_id: int) -> SuiteRecord:
    record = session.get(SuiteRecord, suite_id, options=[selectinload(SuiteRecord.versions)])
    if record is None:
        raise missing(session, "suite", suite_id, "see the list of suites")
    return record


def get_version(record: SuiteRecord, number: int | None) -> SuiteVersion:
    if number is None:
        return record.latest
    for version in record.versions:
        if version.number == number:
            return version
    raise NotFound(f"suite {record.name!r} has no version {number}",
                   hint=f"its versions are 1..{record.latest.number}")


def load_version(version: SuiteVersion) -> LoadedSuite:
    """The stored version, validated again: one an older linguagym accepted and today's rules refuse is a
    located error page saying how to mend it (its download still works)."""
    try:
        return parse_suite_text(version.content, source=f"{version.suite.name} v{version.number}")
    except SuiteError as error:
        error.hint = ("stored by an older linguagym whose checks let this through: download this version, mend it, "
                      "and upload it again")
        raise


def delete_suite(session: Session, record: SuiteRecord) -> None:
    """Delete a suite and its versions, unless a run still uses one of them (its results would lose their suite).
    Deleting a run deletes its ``run_suites`` rows, so a suite used only by deleted runs can go."""
    used = sorted(session.scalars(select(RunSuite.run_id).join(SuiteVersion).where(
        SuiteVersion.suite_id == record.id).distinct()))
    if used:
        shown = ", ".join(map(str, used[:10])) + (f" and {len(used) - 10} more" if len(used) > 10 else "")
        raise ConfigurationError(f"suite {record.name!r} is used by {len(used)} run(s) ({shown}) and cannot be "
                                 "deleted", hint="delete those runs first (a run's page has a Delete button)")
    remember_deleted(session, "suite", record.id, record.name)
    session.delete(record)


# ------------------------------------------------------------------------------------------------ runs


def run_name(value: str | None) -> str | None:
    """A run's name as stored: cleaned like other names, None when blank."""
    name = clean_text(value or "").strip()
    if len(name) > RUN_NAME_LENGTH:
        raise ConfigurationError(f"the run name has {len(name)} characters; at most {RUN_NAME_LENGTH} are kept",
                                 hint="shorten the name")
    return name or None


def create_run(session: Session, models: Sequence[str], versions: Sequence[SuiteVersion], settings: dict, *,
               name: str | None = None) -> RunRecord:
    models = list(dict.fromkeys(m.strip() for m in models if m.strip()))
    if not models:
        raise ConfigurationError("no model chosen", hint="tick a named model or enter a model path or hub id")
    if not versions:
        raise ConfigurationError("no suite chosen", hint="tick at least one suite")
    run = RunRecord(status="queued", models=models, settings=settings, error="", progress_done=0, progress_total=0,
                    progress_label="waiting", cancel_requested=False, created_at=now(), name=run_name(name))
    run.suites = [RunSuite(suite_version_id=i) for i in dict.fromkeys(v.id for v in versions)]  # a suite ticked twice
    session.add(run)
    session.flush()
    return run


def list_runs(session: Session) -> list[RunRecord]:
    statement = select(RunRecord).options(selectinload(RunRecord.suites).selectinload(RunSuite.version)
                                          .selectinload(SuiteVersion.suite)).order_by(RunRecord.id.desc())
    return list(session.scalars(statement))


def get_run(session: Session, run_id: int) -> RunRecord:
    record = session.get(RunRecord, run_id, options=[selectinload(RunRecord.suites).selectinload(RunSuite.version)
                                                     .selectinload(SuiteVersion.suite)])
    if record is None:
        raise missing(session, "run", run_id, "see the list of runs")
    return record


def unfinished_count(session: Session) -> int:
    return session.scalar(select(func.count()).select_from(RunRecord).where(RunRecord.status.in_(UNFINISHED))) or 0
