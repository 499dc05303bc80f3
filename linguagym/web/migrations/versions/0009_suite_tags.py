"""A suite's own tags (``suite_tags``: a row per suite and tag), beside the tags every suite gets from the circuits
(groups) of the built-in collections; the suites page filters by either.

Revision ID: 0009
Revises: 0008
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "suite_tags",
        sa.Column("suite_id", sa.Integer, sa.ForeignKey("suites.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("tag", sa.String(40), primary_key=True),
    )
    op.create_index("ix_suite_tags_tag", "suite_tags", ["tag"])


def downgrade() -> None:
    op.drop_index("ix_suite_tags_tag", table_name="suite_tags")
    op.drop_table("suite_tags")
