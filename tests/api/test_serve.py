"""`python -m engine serve` as a real uvicorn process on a free loopback port: healthz, then a question."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.api.conftest import ALICE_TOKEN, QUESTION, auth

pytestmark = [pytest.mark.integration, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT_S = 240.0


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_serve_answers_over_http(api_store_template, tmp_path):
    data = tmp_path / "data"
    shutil.copytree(api_store_template, data)
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("WORKBENCH_") and k != "DATA_DIR"}
    env["WORKBENCH_API_TOKENS"] = f'{{"{ALICE_TOKEN}": "analyst"}}'
    log = (tmp_path / "serve.log").open("w")
    server = subprocess.Popen([sys.executable, "-m", "engine", "serve", "--port", str(port), "--data-dir", str(data)],
                              cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        started = time.monotonic()
        health = None
        while time.monotonic() - started < START_TIMEOUT_S:
            assert server.poll() is None, (tmp_path / "serve.log").read_text()
            try:
                health = httpx.get(f"{base}/healthz", timeout=5)
                if health.status_code == 200:
                    break
            except httpx.TransportError:
                pass
            time.sleep(0.5)
        assert health is not None and health.json()["ok"] is True, (tmp_path / "serve.log").read_text()
        assert health.json()["sign_in_required"] is True
        assert httpx.post(f"{base}/v1/ask", json={"question": QUESTION}, timeout=60).status_code == 401
        answer = httpx.post(f"{base}/v1/ask", json={"question": QUESTION, "target_accuracy": 0},  # best guess
                            headers=auth(ALICE_TOKEN), timeout=120)
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert body["status"] == "success" and "325" in body["final"] and body["timings"]["total"] > 0
        print(f"\nuvicorn: ready in {time.monotonic() - started:.1f} s; /v1/ask {body['timings']['total']:.0f} ms")
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()
    assert server.returncode in (0, -15), (tmp_path / "serve.log").read_text()
