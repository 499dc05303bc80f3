"""Storage: the tables (SQLAlchemy 2) of suites, runs, capability-test files and capability jobs, the engine,
and schema migrations (Alembic) run at start-up.

Any SQLAlchemy URL works; SQLite (a file in the data directory) is the default, PostgreSQL is tested.
Every schema change is an Alembic revision under ``migrations/versions`` so an upgrade keeps a user's data.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
    create_engine,
    event,
    inspect,
)
from sqlalchemy.engine import Engine
from sqlalchemy.orm import DeclarativeBase, Mapped, deferred, mapped_column, relationship, sessionmaker

from linguagym.errors import ConfigurationError

MIGRATIONS = Path(__file__).resolve().parent / "migrations"


def now() -> datetime:
    return datetime.now(UTC)


class Base(DeclarativeBase):
    pass


# suites, runs, capability-test files and jobs have pages at their number: SQLite must never give a new row a deleted
# row's number (PostgreSQL's sequences never do); revision 0008
NEVER_REUSED = {"sqlite_autoincrement": True}


class DeletedRow(Base):
    """What a deleted numbered row leaves (revision 0008): its page answers 410 with this, and the number stays
    taken. ``kind``: one of DELETED_KINDS."""

    __tablename__ = "deleted_rows"
    __table_args__ = (UniqueConstraint("kind", "row_id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(30))
    row_id: Mapped[int] = mapped_column(Integer)
    label: Mapped[str] = mapped_column(Text, default="")
    deleted_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


DELETED_KINDS = {"suite": "suite", "run": "run", "test_file": "capability-test file", "job": "capability job"}


class UserRecord(Base):
    """An account on a lab server (revision 0005). A local single-user server has none and needs none."""

    __tablename__ = "users"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    username: Mapped[str] = mapped_column(String(80), unique=True)
    password_hash: Mapped[str] = mapped_column(String(300))
    is_admin: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=now, nullable=True)


class LabSetting(Base):
    """One setting of the lab server, kept as JSON under its key (revision 0005), e.g. the default model set."""

    __tablename__ = "lab_settings"
    key: Mapped[str] = mapped_column(String(100), primary_key=True)
    value: Mapped[object] = mapped_column(JSON, nullable=True)


class Owned:
    """Who made a row (revision 0005): None for rows made in local single-user mode or before accounts."""

    owner_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"), nullable=True,
                                                 index=True)


class SuiteRecord(Owned, Base):
    """A suite, known by its name; its content lives in versions (saving never overwrites)."""

    __tablename__ = "suites"
    __table_args__ = NEVER_REUSED
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(300), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    versions: Mapped[list[SuiteVersion]] = relationship(back_populates="suite", order_by="SuiteVersion.number",
                                                        cascade="all, delete-orphan")
    tags: Mapped[list[SuiteTag]] = relationship(order_by="SuiteTag.tag", cascade="all, delete-orphan",
                                                passive_deletes=True)

    @property
    def latest(self) -> SuiteVersion:
        return self.versions[-1]


TAG_LENGTH = 40


class SuiteTag(Base):
    """One of a suite's own tags (revision 0009); the circuits' tags are computed (``suites.tags``), not stored."""

    __tablename__ = "suite_tags"
    suite_id: Mapped[int] = mapped_column(ForeignKey("suites.id", ondelete="CASCADE"), primary_key=True)
    tag: Mapped[str] = mapped_column(String(TAG_LENGTH), primary_key=True, index=True)


class SuiteVersion(Base):
    __tablename__ = "suite_versions"
    __table_args__ = (UniqueConstraint("suite_id", "number"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    suite_id: Mapped[int] = mapped_column(ForeignKey("suites.id", ondelete="CASCADE"), index=True)
    number: Mapped[int] = mapped_column(Integer)
    content: Mapped[str] = mapped_column(Text)  # the canonical JSON (suite_to_json)
    sha256: Mapped[str] = mapped_column(String(64))
    note: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    # added in revision 0002 (backfilled from content)
    author: Mapped[str] = mapped_column(Text, default="")
    item_count: Mapped[int] = mapped_column(Integer, default=0)
    condition_count: Mapped[int] = mapped_column(Integer, default=0)
    region_count: Mapped[int] = mapped_column(Integer, default=0)
    prediction_count: Mapped[int] = mapped_column(Integer, default=0)
    suite: Mapped[SuiteRecord] = relationship(back_populates="versions")


class RunSuite(Base):
    __tablename__ = "run_suites"
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True)
    suite_version_id: Mapped[int] = mapped_column(ForeignKey("suite_versions.id"), primary_key=True)
    version: Mapped[SuiteVersion] = relationship()


class JobColumns:
    """The life cycle every background job records (runs and capability jobs alike): status, progress, a cancel
    request, its error and times. The worker, the status JSON and the pages read these and nothing else."""

    status: Mapped[str] = mapped_column(String(20), default="queued", index=True)  # see STATUSES
    error: Mapped[str] = mapped_column(Text, default="")
    progress_done: Mapped[int] = mapped_column(Integer, default=0)
    progress_total: Mapped[int] = mapped_column(Integer, default=0)
    progress_label: Mapped[str] = mapped_column(Text, default="")
    cancel_requested: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    # times a worker has taken it since it was queued by a person (revision 0007): a job left running by a server
    # that stopped is queued again only while this is below lifecycle.MAX_ATTEMPTS
    attempts: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


RUN_NAME_LENGTH = 200


class RunRecord(Owned, JobColumns, Base):
    """A run: suites x models, done in the background; its files live in ``<data_dir>/runs/<id>/``."""

    __tablename__ = "runs"
    __table_args__ = NEVER_REUSED
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    models: Mapped[list] = mapped_column(JSON)
    settings: Mapped[dict] = mapped_column(JSON)
    name: Mapped[str | None] = mapped_column(String(RUN_NAME_LENGTH), nullable=True)  # revision 0004
    suites: Mapped[list[RunSuite]] = relationship(cascade="all, delete-orphan")

    @property
    def title(self) -> str:
        """How pages name the run: ``run 7`` or ``run 7 · baseline``."""
        return f"run {self.id} · {self.name}" if self.name else f"run {self.id}"


class TestFileRecord(Owned, Base):
    """A capability-test file (the JSON ``linguagym lct generate`` writes), uploaded or made by a job."""

    __tablename__ = "capability_test_files"
    __table_args__ = NEVER_REUSED
    __test__ = False  # not a pytest class, despite its name
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(300))
    dataset: Mapped[str] = mapped_column(Text, default="")
    content: Mapped[str] = deferred(mapped_column(Text))  # the file's text, as uploaded or written
    sha256: Mapped[str] = mapped_column(String(64), index=True)
    seed_count: Mapped[int] = mapped_column(Integer, default=0)
    expansion_count: Mapped[int] = mapped_column(Integer, default=0)
    capability_count: Mapped[int] = mapped_column(Integer, default=0)
    note: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)

    @property
    def test_count(self) -> int:
        return self.seed_count + self.expansion_count


class CapabilityJob(Owned, JobColumns, Base):
    """A generate or test job, done in the background; its files live in ``<data_dir>/capability-jobs/<id>/``."""

    __tablename__ = "capability_jobs"
    __table_args__ = NEVER_REUSED
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(20))  # CAPABILITY_JOB_KINDS
    settings: Mapped[dict] = mapped_column(JSON)
    test_file_id: Mapped[int | None] = mapped_column(ForeignKey("capability_test_files.id"), nullable=True)
    result_file_id: Mapped[int | None] = mapped_column(ForeignKey("capability_test_files.id"), nullable=True)
    # the library's warnings while it ran, one a line (revision 0010): e.g. the induced-grammar fallback
    warnings: Mapped[str] = mapped_column(Text, default="", server_default="")
    test_file: Mapped[TestFileRecord | None] = relationship(foreign_keys=[test_file_id])
    result_file: Mapped[TestFileRecord | None] = relationship(foreign_keys=[result_file_id])

    @property
    def classifiers(self) -> list[str]:
        return list(self.settings.get("classifiers") or [])


STATUSES = ("queued", "running", "done", "failed", "cancelled")
CAPABILITY_JOB_KINDS = ("generate", "test")  # a capability job makes a test file, or tests a stored one
UNFINISHED = ("queued", "running")


def make_engine(url: str) -> Engine:
    try:
        if url.startswith("sqlite"):
            engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})

            @event.listens_for(engine, "connect")
            def _sqlite_pragmas(connection, _record):  # foreign keys on; readers do not block the writer
                cursor = connection.cursor()
                cursor.execute("PRAGMA foreign_keys=ON")
                cursor.execute("PRAGMA journal_mode=WAL")
                cursor.close()

            return engine
        return create_engine(url, pool_pre_ping=True)
    except Exception as error:  # bad URL, missing driver
        raise ConfigurationError(
            f"cannot use the database URL {_safe_url(url)}: {error}",
            hint="give `database_url` sqlite:///FILE or postgresql+psycopg://USER@HOST/DB",
            settings=["database_url"]) from None


def _safe_url(url: str) -> str:
    from sqlalchemy.engine import make_url

    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return "<unparsable>"


def _alembic_config(connection):
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


def migrate(engine: Engine, revision: str = "head") -> None:
    """Bring the schema to ``revision`` (default: the newest), keeping every row."""
    from alembic import command
    from alembic.migration import MigrationContext

    from linguagym.web.auth.username_index import ensure_username_index

    sqlite = engine.dialect.name == "sqlite"
    try:
        with engine.connect() as connection:
            if sqlite:  # a rebuilt table (0008) is dropped, which must not delete the rows referencing it
                connection.exec_driver_sql("PRAGMA foreign_keys=OFF")  # (outside a transaction, or it is ignored)
                connection.commit()
            try:
                with connection.begin():
                    before = MigrationContext.configure(connection).get_current_revision()
                    command.upgrade(_alembic_config(connection), revision)
                    if revision == "head" and before == head_revision():
                        ensure_username_index(connection)  # (0006 left it out, for names equal but for case)
                    if sqlite and connection.exec_driver_sql("PRAGMA foreign_key_check").first() is not None:
                        raise ConfigurationError("the migrated database has rows whose references point nowhere",
                                                 hint="restore the database from a backup and report this")
            finally:
                if sqlite:
                    connection.exec_driver_sql("PRAGMA foreign_keys=ON")
                    connection.commit()
    except Exception as error:
        if isinstance(error, ConfigurationError):
            raise
        raise ConfigurationError(f"cannot open or upgrade the database {_safe_url(str(engine.url))}: {error}",
                                 hint="check that the database server runs and the URL is right") from None


def current_revision(engine: Engine) -> str | None:
    from alembic.migration import MigrationContext

    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def head_revision() -> str:
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(_alembic_config(None)).get_current_head()
    assert head is not None  # the package ships its migrations
    return head


def open_database(url: str) -> sessionmaker:
    """An engine for ``url`` with its schema migrated to the newest revision, as a session factory."""
    engine = make_engine(url)
    migrate(engine)
    return sessionmaker(engine, expire_on_commit=False)


def table_names(engine: Engine) -> set[str]:
    return set(inspect(engine).get_table_names())
