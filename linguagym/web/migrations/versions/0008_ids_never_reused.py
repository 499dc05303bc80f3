"""Ids are never reused: a deleted suite, run, capability-test file or capability job leaves a row in
``deleted_rows`` (its page answers 410 and says what was there and when it went), and the next row never gets
its number.

PostgreSQL's ``SERIAL`` ids come from sequences, which never go back. SQLite gives a new row the highest id + 1
unless the table says ``AUTOINCREMENT``, so there the four tables are rebuilt with it (each id kept; SQLite then
counts on from the highest id the table ever had). Ids deleted before this revision are not known; the highest
one still there is where the count goes on from.

The rebuild copies each table as its own ``CREATE TABLE`` text with ``AUTOINCREMENT`` added, rather than as an
Alembic batch, so ``owner_id``'s inline reference stays inline (0005's downgrade drops that column). Dropping a
table that others reference deletes their rows when foreign keys are on: ``db.migrate`` turns them off while it
migrates a SQLite database, and the rebuild refuses to run with them on. The downgrade keeps AUTOINCREMENT.

Revision ID: 0008
Revises: 0007
"""

import re

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

NUMBERED = ("suites", "runs", "capability_test_files", "capability_jobs")


def upgrade() -> None:
    op.create_table(
        "deleted_rows",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("kind", sa.String(30), nullable=False),
        sa.Column("row_id", sa.Integer, nullable=False),
        sa.Column("label", sa.Text, nullable=False, server_default=""),
        sa.Column("deleted_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("kind", "row_id"),
    )
    if op.get_bind().dialect.name == "sqlite":
        for table in NUMBERED:
            _rebuild(table)


def downgrade() -> None:
    # AUTOINCREMENT stays on SQLite: the older revisions read and write such tables unchanged, and undoing it would
    # rebuild the tables again (with foreign keys on, as a downgrade may run, that deletes referencing rows)
    op.drop_table("deleted_rows")


def _rebuild(table: str) -> None:
    """``table`` copied into a new one whose ``id`` is ``AUTOINCREMENT``, its rows and indexes kept."""
    bind = op.get_bind()
    sql = bind.exec_driver_sql("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)).scalar()
    assert sql is not None, table  # the migration's own tables
    indexes = [row[0] for row in bind.exec_driver_sql(
        "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL", (table,))]
    if "AUTOINCREMENT" in sql:  # upgraded before, downgraded, and upgraded again
        return
    if bind.exec_driver_sql("PRAGMA foreign_keys").scalar():
        raise RuntimeError("rebuilding a table with foreign keys on would delete the rows that reference it: "
                           "migrate with linguagym.web.db.migrate, which turns them off")
    new = re.sub(r"\bid INTEGER NOT NULL,", "id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,", sql, count=1)
    new = re.sub(r",\s*PRIMARY KEY \(id\)", "", new, count=1)
    if "AUTOINCREMENT" not in new or "PRIMARY KEY (id)" in new:
        raise RuntimeError(f"table {table} is not as the earlier revisions made it: {sql}")
    staged = f"{table}__rebuilt"
    new = re.sub(rf"^CREATE TABLE \"?{table}\"?", f"CREATE TABLE {staged}", new, count=1)
    bind.exec_driver_sql(new)
    bind.exec_driver_sql(f"INSERT INTO {staged} SELECT * FROM {table}")
    bind.exec_driver_sql(f"DROP TABLE {table}")
    bind.exec_driver_sql(f"ALTER TABLE {staged} RENAME TO {table}")
    for index in indexes:
        bind.exec_driver_sql(index)
