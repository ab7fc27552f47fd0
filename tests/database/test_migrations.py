"""Opening a database migrates it to the newest schema once; a second open changes nothing; SQLite runs in WAL."""

from __future__ import annotations

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect, text

from engine.config import load_settings
from engine.database import Database, normalise_url, open_database
from engine.database.migrate import current_revision, head_revision
from engine.database.tables import metadata
from engine.errors import ConfigError

pytestmark = pytest.mark.integration
TABLES = {"traces", "trace_bases", "agent_steps", "agent_runs", "strategy_versions", "experiments", "app_settings",
          "legacy_imports", "alembic_version"}


def test_a_fresh_database_is_migrated_and_a_second_open_is_a_no_op(database_url):
    first = Database(database_url)
    assert first.applied == ["0001"] and current_revision(first.engine) == head_revision() == "0001"
    assert set(inspect(first.engine).get_table_names()) == TABLES
    with first.begin() as conn:
        conn.execute(text("INSERT INTO app_settings (key, value, updated_at) VALUES ('k', 'v', 't')"))
    first.close()

    second = Database(database_url)  # another process opening the same database
    assert second.applied == [] and current_revision(second.engine) == "0001"
    with second.connect() as conn:
        assert conn.execute(text("SELECT value FROM app_settings")).scalars().all() == ["v"]
        assert conn.execute(text("SELECT COUNT(*) FROM alembic_version")).scalar_one() == 1
    second.close()


def test_the_migrations_build_exactly_the_tables_the_code_uses(database):
    with database.connect() as conn:
        differences = compare_metadata(MigrationContext.configure(conn), metadata)
    assert differences == []


def test_sqlite_runs_in_wal_mode_on_every_connection(tmp_path):
    db = Database(f"sqlite:///{tmp_path / 'workbench.db'}")
    connections = [db.engine.connect() for _ in range(3)]  # three pooled connections, each set by the connect event
    try:
        assert [c.exec_driver_sql("PRAGMA journal_mode").scalar() for c in connections] == ["wal"] * 3
        assert {c.exec_driver_sql("PRAGMA busy_timeout").scalar() for c in connections} == {30000}
    finally:
        for conn in connections:
            conn.close()
    assert (tmp_path / "workbench.db-wal").exists()


def test_settings_choose_sqlite_in_the_data_folder_or_the_configured_url(tmp_path, monkeypatch):
    monkeypatch.delenv("WORKBENCH_DATABASE_URL", raising=False)
    db = open_database(load_settings(data_dir=tmp_path / "data"))
    assert db.dialect == "sqlite" and (tmp_path / "data" / "workbench.db").is_file()
    url = f"sqlite:///{tmp_path / 'elsewhere.db'}"
    monkeypatch.setenv("WORKBENCH_DATABASE_URL", url)
    assert open_database(load_settings(data_dir=tmp_path / "data")).url == url
    assert (tmp_path / "elsewhere.db").is_file()


def test_postgres_urls_use_psycopg_3_and_bad_urls_say_what_to_do():
    assert normalise_url("postgresql://u:p@h:5432/db") == "postgresql+psycopg://u:p@h:5432/db"
    assert normalise_url("postgres://u@h/db") == "postgresql+psycopg://u@h/db"
    with pytest.raises(ConfigError, match="not a database URL"):
        normalise_url("not a url")
    with pytest.raises(ConfigError, match="supports PostgreSQL"):
        normalise_url("mysql://u@h/db")


def test_an_unreachable_server_says_what_to_check():
    from tests.database.conftest import free_port

    with pytest.raises(ConfigError, match="Cannot open the workbench database .*WORKBENCH_DATABASE_URL") as caught:
        Database(f"postgresql://workbench:s3cret@127.0.0.1:{free_port()}/workbench")
    assert "s3cret" not in str(caught.value)


def test_db_upgrade_command_migrates_and_reports(tmp_path, capsys):
    from engine.cli import main

    data = tmp_path / "data"
    assert main(["db", "upgrade", "--data-dir", str(data), "--json"]) == 0
    out = capsys.readouterr().out
    assert '"revision": "0001"' in out and '"applied": ["0001"]' in out and "sqlite" in out
    assert main(["db", "upgrade", "--data-dir", str(data), "--json"]) == 0
    assert '"applied": []' in capsys.readouterr().out
