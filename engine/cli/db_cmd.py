"""``python -m engine db upgrade``: migrate the workbench database to the newest schema and import old files."""

from __future__ import annotations

import argparse

from engine.cli.common import emit, settings_from


def register(sub, parent: argparse.ArgumentParser) -> None:
    db = sub.add_parser("db", help="the SQL database of traces, audit, agent runs, strategies, experiments")
    db_sub = db.add_subparsers(dest="db_command", required=True, metavar="ACTION")
    p = db_sub.add_parser("upgrade", parents=[parent],
                          help="apply pending migrations (WORKBENCH_DATABASE_URL, else DATA_DIR/workbench.db) and "
                               "import the old per-file stores once")
    p.set_defaults(handler=cmd_db_upgrade)


def _render(p: dict) -> str:
    lines = [f"database: {p['url']} ({p['backend']})", f"schema revision: {p['revision']}",
             "migrations applied: " + (", ".join(p["applied"]) or "none (already current)")]
    lines += [f"imported {rows} rows of old {kind}" for kind, rows in p["imported"].items()]
    return "\n".join(lines)


def cmd_db_upgrade(args) -> int:
    from engine.database import Database
    from engine.database.engine import location
    from engine.database.migrate import current_revision

    url, data_dir = location(settings_from(args))
    db = Database(url, legacy_dir=data_dir)
    try:
        emit(args, {"url": db.safe_url, "backend": db.dialect, "revision": current_revision(db.engine),
                    "applied": db.applied, "imported": db.imported}, _render)
    finally:
        db.close()
    return 0
