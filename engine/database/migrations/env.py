"""Alembic environment: runs on the connection the workbench passes in (see engine.database.migrate)."""

from alembic import context
from sqlalchemy import create_engine

from engine.database.tables import metadata

connection = context.config.attributes.get("connection")
if connection is None:  # the alembic command line: sqlalchemy.url from its ini file
    with create_engine(context.config.get_main_option("sqlalchemy.url")).begin() as connection:
        context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
else:
    context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()
