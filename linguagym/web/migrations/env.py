"""Alembic environment: migrations run on the connection linguagym hands over (see db.migrate)."""

from alembic import context

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("linguagym runs its migrations itself (linguagym.web.db.migrate)")
context.configure(connection=connection, target_metadata=None, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
