"""Usernames unique regardless of case in the database too: a unique index on ``lower(username)``, so two
sign-ups ``Alice`` and ``alice`` at the same moment cannot both succeed. A database that already holds such a
pair is left without it, with a warning naming them (see ``linguagym.web.auth.username_index``).

Revision ID: 0006
Revises: 0005
"""

from alembic import op

from linguagym.web.auth.username_index import INDEX, ensure_username_index

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    ensure_username_index(op.get_bind())


def downgrade() -> None:
    op.execute(f"DROP INDEX IF EXISTS {INDEX}")
