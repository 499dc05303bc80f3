"""Capability-test files (uploaded or generated) and the generate and test jobs of the background worker.

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "capability_test_files",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(300), nullable=False),
        sa.Column("dataset", sa.Text, nullable=False),
        sa.Column("content", sa.Text, nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False, index=True),
        sa.Column("seed_count", sa.Integer, nullable=False),
        sa.Column("expansion_count", sa.Integer, nullable=False),
        sa.Column("capability_count", sa.Integer, nullable=False),
        sa.Column("note", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "capability_jobs",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("status", sa.String(20), nullable=False, index=True),
        sa.Column("settings", sa.JSON, nullable=False),
        sa.Column("test_file_id", sa.Integer, sa.ForeignKey("capability_test_files.id"), nullable=True),
        sa.Column("result_file_id", sa.Integer, sa.ForeignKey("capability_test_files.id"), nullable=True),
        sa.Column("error", sa.Text, nullable=False),
        sa.Column("progress_done", sa.Integer, nullable=False),
        sa.Column("progress_total", sa.Integer, nullable=False),
        sa.Column("progress_label", sa.Text, nullable=False),
        sa.Column("cancel_requested", sa.Boolean, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
    )


def downgrade() -> None:
    op.drop_table("capability_jobs")
    op.drop_table("capability_test_files")
