"""Capability jobs keep the library's warnings (``warnings``: one a line, '' for the rows already there), so the
job's page says what the server log said, e.g. that expansion fell back to a grammar induced from the dataset.

Revision ID: 0010
Revises: 0009
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


# plain ALTER TABLE, not a batch (as 0007): a batch would rebuild the table


def upgrade() -> None:
    op.add_column("capability_jobs", sa.Column("warnings", sa.Text(), nullable=False, server_default=""))


def downgrade() -> None:
    op.drop_column("capability_jobs", "warnings")
