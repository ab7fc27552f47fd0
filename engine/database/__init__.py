"""The workbench's SQL database (everything that is not vectors): SQLAlchemy engine, tables, migrations."""

from engine.database.engine import Database, forget_open_databases, normalise_url, open_database

__all__ = ["Database", "forget_open_databases", "normalise_url", "open_database"]
