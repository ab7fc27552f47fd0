"""Issue 27, items 1 and 6, measured from outside: agent runs across base grants, token handling, sign-in limits
and what uvicorn answers to requests it cannot parse. Prints one JSON object. Runs on this checkout or an older
one (``git archive``), for the before and after figures in docs/reliability.md:

    .venv/bin/python tests/reliability/measure_access.py [--root CHECKOUT]
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

USERS = {
    "alice": {"role": "analyst", "grants": {"manuals": ["read", "write"]}},
    "carol": {"role": "analyst", "grants": {"regulations": ["write"], "manuals": ["read"]}},
}
ALICE, CAROL = "alice-token-0123456789abcdef", "carol-token-0123456789abcdef"
RULE = "Airworthiness directive NEAA-AD-2025-0042: the axle nut final torque is raised to 325 N.m."


def cross_grants(data: Path) -> dict:
    from fastapi.testclient import TestClient

    from engine.api import create_app
    from engine.config import load_settings
    from engine.ingest import Ingestor
    from engine.store import KnowledgeBaseStore

    ingestor = Ingestor(KnowledgeBaseStore(load_settings(data_dir=data)))
    ingestor.ingest_records([{"id": "torque", "title": "Axle nut", "text": "The axle nut torque is 300 N.m."}],
                            "manuals")
    ingestor.ingest_records([{"id": "ad", "title": "AD 2025-0042", "text": RULE}], "regulations")
    settings = load_settings(data_dir=data, users=json.dumps(USERS),
                             api_tokens=json.dumps({ALICE: {"user": "alice"}, CAROL: {"user": "carol"}}))
    out: dict = {}
    with TestClient(create_app(settings, warm=False), raise_server_exceptions=False,
                    client=("192.0.2.10", 4000)) as client:
        run = client.post("/v1/agent/runs", headers={"Authorization": f"Bearer {CAROL}"},
                          json={"request": "search axle nut torque in regulations and send the results to "
                                           "ops@example.com"}).json()
        alice = {"Authorization": f"Bearer {ALICE}"}
        seen = client.get(f"/v1/agent/runs/{run['run_id']}", headers=alice)
        approved = client.post(f"/v1/agent/runs/{run['run_id']}/approve", headers=alice)
        out["agent"] = {"carol_run": run["status"], "alice_get": seen.status_code,
                        "alice_sees_regulations_text": "325 N.m" in seen.text,
                        "alice_approve": approved.status_code, "after": approved.json().get("status")}
        token = {}
        for name, header in (("plain", f"Bearer {ALICE}"), ("two spaces before", f"Bearer  {ALICE}"),
                             ("space after", f"Bearer {ALICE} "), ("tab after", f"Bearer {ALICE}\t")):
            token[name] = client.get("/v1/strategy", headers={"Authorization": header}).status_code
        out["token_whitespace"] = token
        out["help_text_401"] = client.get("/v1/strategy").json()["error"]
        started, codes = time.perf_counter(), []
        for n in range(100):
            codes.append(client.get("/v1/strategy", headers={"Authorization": f"Bearer guess-{n:024d}"}).status_code)
        out["wrong_tokens_100"] = {"401": codes.count(401), "429": codes.count(429),
                                   "first_429": codes.index(429) + 1 if 429 in codes else None,
                                   "seconds": round(time.perf_counter() - started, 2)}
    return out


def passwords() -> dict:
    from engine.config import load_settings
    from engine.errors import AuthenticationError
    from engine.identity import Directory, hash_secret

    users = {"ann": {"password_hash": hash_secret("pw-ann"), "role": "viewer"}}
    directory = Directory.from_settings(load_settings(users=json.dumps(users)))
    refused, limited, started = 0, 0, time.perf_counter()
    for _ in range(30):
        try:
            directory.sign_in("ann", "guess")
        except AuthenticationError as exc:
            limited += "Too many" in str(exc)
            refused += "Too many" not in str(exc)
    return {"wrong_passwords_30": {"checked_and_refused": refused, "refused_by_the_limit": limited,
                                   "seconds": round(time.perf_counter() - started, 2)}}


def transport(data: Path) -> dict:
    import uvicorn

    from engine.api import create_app
    from engine.config import load_settings

    settings = load_settings(data_dir=data)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    app = create_app(settings, warm=False)
    try:
        from engine.api.server import server_config

        config = server_config(app, settings, host="127.0.0.1", port=port, log_level="critical")
    except ImportError:  # before: `serve` ran uvicorn.run(app, host, port) with uvicorn's defaults
        config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="critical")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    out = {}
    big = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 200_000 + b"\r\n\r\n"
    for name, raw in (("header of 200 KB", big),
                      ("NUL in a header", b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Bad: a\x00b\r\n\r\n"),
                      ("control character in the path", b"GET /a\x01b HTTP/1.1\r\nHost: x\r\n\r\n")):
        started = time.perf_counter()
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            try:
                sock.sendall(raw)
            except OSError:
                pass
            data_in = b""
            while True:
                try:
                    chunk = sock.recv(65536)
                except OSError:
                    break
                if not chunk:
                    break
                data_in += chunk
        head, _, body = data_in.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        content_type = next((line.split(": ", 1)[1] for line in lines if line.lower().startswith("content-type")), "")
        out[name] = {"status": lines[0], "content_type": content_type, "body": body.decode("latin-1")[:120],
                     "ms": round((time.perf_counter() - started) * 1000, 1)}
    server.should_exit = True
    thread.join(timeout=10)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=str(Path(__file__).resolve().parents[2]), help="checkout to measure")
    args = parser.parse_args()
    sys.path.insert(0, args.root)
    with tempfile.TemporaryDirectory() as folder:
        result = {"root": args.root, **cross_grants(Path(folder) / "a"), **passwords(),
                  "uvicorn": transport(Path(folder) / "b")}
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
