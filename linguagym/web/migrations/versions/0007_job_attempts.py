"""Jobs count their attempts: an ``attempts`` column on runs and capability jobs (0 for the rows already there).
A job left running by a server that stopped is queued again at start-up only once; if the server stops again
while it runs (a job that kills the server would otherwise kill it on every restart), it is marked failed.

Revision ID: 0007
Revises: 0006
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

TABLES = ("runs", "capability_jobs")


# plain ALTER TABLE, not a batch: on SQLite a batch rebuilds the table and turns 0005's inline owner reference into
# a table constraint, which 0005's downgrade could then not drop


def upgrade() -> None:
    for table in TABLES:
        op.add_column(table, sa.Column("attempts", sa.Integer(), nullable=False, server_default="0"))


def downgrade() -> None:
    for table in TABLES:
        op.drop_column(table, "attempts")
