"""Accounts for a lab server: a ``users`` table, an owner on suites, runs, capability-test files and capability
jobs (nullable: rows made before accounts, or in local single-user mode, have none), and ``lab_settings`` (one
JSON value per key, e.g. the lab's default model set).

Revision ID: 0005
Revises: 0004
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

OWNED = ("suites", "runs", "capability_test_files", "capability_jobs")


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("username", sa.String(80), nullable=False, unique=True),
        sa.Column("password_hash", sa.String(300), nullable=False),
        sa.Column("is_admin", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_table(
        "lab_settings",
        sa.Column("key", sa.String(100), primary_key=True),
        sa.Column("value", sa.JSON, nullable=True),
    )
    for table in OWNED:
        if op.get_bind().dialect.name == "sqlite":
            # ADD COLUMN with its reference inline: SQLite does that without copying the table (a batch copy would
            # drop ``runs`` from under ``run_suites``' foreign key), but Alembic cannot say it.
            op.execute(f"ALTER TABLE {table} ADD COLUMN owner_id INTEGER REFERENCES users (id) ON DELETE SET NULL")
        else:
            op.add_column(table, sa.Column("owner_id", sa.Integer, nullable=True))
            op.create_foreign_key(f"fk_{table}_owner", table, "users", ["owner_id"], ["id"], ondelete="SET NULL")
        op.create_index(f"ix_{table}_owner_id", table, ["owner_id"])


def downgrade() -> None:
    for table in OWNED:
        op.drop_index(f"ix_{table}_owner_id", table_name=table)
        if op.get_bind().dialect.name != "sqlite":  # SQLite drops the column's inline reference with it
            op.drop_constraint(f"fk_{table}_owner", table, type_="foreignkey")
        op.drop_column(table, "owner_id")
    op.drop_table("lab_settings")
    op.drop_table("users")
