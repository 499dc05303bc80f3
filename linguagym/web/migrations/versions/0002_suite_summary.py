"""Suite versions carry their author and counts (for listing and search), filled in from their content.

Revision ID: 0002
Revises: 0001
"""

import json

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

_COUNTS = ("item_count", "condition_count", "region_count", "prediction_count")


def summary_of(content: str) -> dict:
    """Author and counts of a stored suite (canonical JSON, already validated when it was saved)."""
    data = json.loads(content)
    items = data.get("items") or []
    author = data.get("meta", {}).get("author", "")
    return {
        "author": author if isinstance(author, str) else json.dumps(author),
        "item_count": len(items),
        "condition_count": len(items[0]["conditions"]) if items else 0,
        "region_count": len(data.get("region_meta") or {}),
        "prediction_count": len(data.get("predictions") or []),
    }


def upgrade() -> None:
    with op.batch_alter_table("suite_versions") as batch:
        batch.add_column(sa.Column("author", sa.Text, nullable=False, server_default=""))
        for column in _COUNTS:
            batch.add_column(sa.Column(column, sa.Integer, nullable=False, server_default="0"))
    versions = sa.table("suite_versions", sa.column("id", sa.Integer), sa.column("content", sa.Text),
                        sa.column("author", sa.Text), *(sa.column(c, sa.Integer) for c in _COUNTS))
    connection = op.get_bind()
    rows = connection.execute(sa.select(versions.c.id, versions.c.content)).all()
    for row in rows:
        connection.execute(versions.update().where(versions.c.id == row.id).values(**summary_of(row.content)))


def downgrade() -> None:
    with op.batch_alter_table("suite_versions") as batch:
        for column in ("author", *_COUNTS):
            batch.drop_column(column)
