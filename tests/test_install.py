"""tools/install.py: uv is handed the package sources pip is configured with, and pip installs when asked to."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import install  # noqa: E402

pytestmark = pytest.mark.unit


def test_pips_configured_sources_become_uv_arguments(tmp_path, monkeypatch):
    config = tmp_path / "pip.conf"
    config.write_text("[global]\nfind-links = /srv/wheels\nextra-index-url = file:///srv/a file:///srv/b\n"
                      "constraint = /srv/caps.txt\ntimeout = 30\n", encoding="utf-8")
    monkeypatch.setenv("PIP_CONFIG_FILE", str(config))
    for name in ("PIP_FIND_LINKS", "PIP_EXTRA_INDEX_URL", "PIP_INDEX_URL", "PIP_CONSTRAINT"):
        monkeypatch.delenv(name, raising=False)
    args = install.pip_sources(sys.executable)
    pairs = list(zip(args[::2], args[1::2]))
    assert ("--find-links", "/srv/wheels") in pairs
    assert ("--extra-index-url", "file:///srv/a") in pairs and ("--extra-index-url", "file:///srv/b") in pairs
    assert ("--constraint", "/srv/caps.txt") in pairs
    assert not any("timeout" in a or a == "30" for a in args)


def test_the_pip_fallback_installs_and_says_so(tmp_path):
    requirements = tmp_path / "requirements.txt"
    requirements.write_text("# nothing to install\n", encoding="utf-8")
    result = subprocess.run([sys.executable, str(ROOT / "tools" / "install.py"), sys.executable, str(requirements)],
                            capture_output=True, text=True, timeout=300,
                            env={**os.environ, "WORKBENCH_INSTALLER": "pip"})
    assert result.returncode == 0, result.stderr
    assert "Installing with pip" in result.stderr


def test_a_wrong_call_says_how_to_call_it():
    result = subprocess.run([sys.executable, str(ROOT / "tools" / "install.py")], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 2 and "usage: python3 tools/install.py VENV_PYTHON REQUIREMENTS" in result.stderr
