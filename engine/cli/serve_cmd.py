"""CLI: ``serve`` the JSON HTTP API; ``user`` makes password and token hashes for the user and token settings.

    python -m engine serve [--host 127.0.0.1] [--port 8000] [--data-dir D]
    python -m engine user hash-password [--name alice --role analyst --grant manuals=read,write]
    python -m engine user new-token [--role analyst | --user alice]
    python -m engine user hash-token          (reads a token on stdin)
"""

from __future__ import annotations

import argparse
import getpass
import json
import sys

from engine.cli.common import emit, settings_from
from engine.errors import ConfigError


def register(sub, parent: argparse.ArgumentParser) -> None:
    p = sub.add_parser("serve", parents=[parent], help="serve the JSON HTTP API (FastAPI on uvicorn)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--log-level", default="info", choices=("critical", "error", "warning", "info", "debug"))
    p.set_defaults(handler=cmd_serve)

    user = sub.add_parser("user", help="hashes for WORKBENCH_USERS and WORKBENCH_API_TOKENS")
    user_sub = user.add_subparsers(dest="user_command", required=True, metavar="ACTION")
    p = user_sub.add_parser("hash-password", parents=[parent],
                            help="hash a password (asked twice, or one line on stdin) for WORKBENCH_USERS")
    p.add_argument("--name", help="also print the WORKBENCH_USERS entry for this user name")
    p.add_argument("--role", choices=("viewer", "analyst", "admin"), default="viewer")
    p.add_argument("--grant", action="append", default=[], metavar="KB=read[,write]",
                   help="a per-base grant for the entry (repeat); none: every base")
    p.set_defaults(handler=cmd_hash_password)
    p = user_sub.add_parser("new-token", parents=[parent], help="make a random API token and its hash")
    who = p.add_mutually_exclusive_group()
    who.add_argument("--role", choices=("viewer", "analyst", "admin"), help="the token acts with this role")
    who.add_argument("--user", help="the token acts as this WORKBENCH_USERS user")
    p.set_defaults(handler=cmd_new_token)
    p = user_sub.add_parser("hash-token", parents=[parent], help="hash an existing API token read from stdin")
    p.set_defaults(handler=cmd_hash_token)


def cmd_serve(args) -> int:
    from engine.api import create_app
    from engine.api.server import serve

    if not 0 < args.port < 65536:
        raise ConfigError(f"--port {args.port} is not a port; use 1-65535.")
    settings = settings_from(args)
    app = create_app(settings)
    print(f"API: http://{args.host}:{args.port} (OpenAPI at /openapi.json, docs at /docs)", file=sys.stderr)
    serve(app, settings, host=args.host, port=args.port, log_level=args.log_level)
    return 0


def _secret(prompt: str, confirm: bool) -> str:
    if not sys.stdin.isatty():
        value = sys.stdin.readline().rstrip("\r\n")
    else:
        value = getpass.getpass(prompt)
        if confirm and getpass.getpass("Again: ") != value:
            raise ConfigError("The two entries differ; run the command again.")
    if not value:
        raise ConfigError("Nothing to hash: type a password (or pipe one line on stdin).")
    return value


def _grants(items: list[str]) -> dict[str, list[str]] | None:
    grants: dict[str, list[str]] = {}
    for item in items:
        kb, _, perms = item.partition("=")
        if not kb or not perms:
            raise ConfigError(f"--grant {item!r}: write it as KB=read or KB=read,write.")
        grants[kb.strip()] = [p.strip() for p in perms.split(",") if p.strip()]
    return grants or None


def cmd_hash_password(args) -> int:
    from engine.identity.entries import check_users
    from engine.identity.hashing import hash_secret

    hashed = hash_secret(_secret("Password: ", confirm=True))
    payload: dict = {"password_hash": hashed}
    if args.name:
        entry = {"password_hash": hashed, "role": args.role}
        if _grants(args.grant):
            entry["grants"] = _grants(args.grant)
        payload["entry"] = check_users({args.name: entry})
    emit(args, payload, lambda p: json.dumps(p.get("entry") or p["password_hash"])
         if args.name else p["password_hash"])
    return 0


def cmd_new_token(args) -> int:
    from engine.identity.hashing import new_token, sha256_token

    token = new_token()
    entry: dict | str = {"user": args.user} if args.user else (args.role or "viewer")
    payload = {"token": token, "hash": sha256_token(token), "entry": {sha256_token(token): entry}}
    emit(args, payload, lambda p: (f"token (give it to the caller; it is not stored): {p['token']}\n"
                                   f"WORKBENCH_API_TOKENS entry: {json.dumps(p['entry'])}"))
    return 0


def cmd_hash_token(args) -> int:
    from engine.identity.hashing import sha256_token

    emit(args, {"hash": sha256_token(_secret("Token: ", confirm=False))}, lambda p: p["hash"])
    return 0
