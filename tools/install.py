"""Install requirements.txt into the project's virtualenv: with uv when it can be had, with pip otherwise.

    python3 tools/install.py .venv/bin/python requirements.txt

uv installs the pinned set in seconds where pip takes over a minute (docs/benchmarks.md, "Startup"), which is most
of a fresh clone's wait before `make run` draws its first page. uv does not read pip's configuration, so the same
package sources pip is configured with (find-links folders, index URLs, constraint files, from pip's config files
and PIP_* variables) are handed to it. Whenever uv cannot be installed or fails, pip installs the same file the way
it always did; the requirements pin every package, so both give the same set.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

UV = "uv==0.13.9"
TIMEOUT_S = 900
_TO_UV = {"find-links": "--find-links", "index-url": "--index-url", "extra-index-url": "--extra-index-url",
          "constraint": "--constraint"}


def pip_sources(python: str) -> list[str]:
    """uv arguments for the package sources and constraints pip is configured with."""
    try:
        listed = subprocess.run([python, "-m", "pip", "config", "list"], capture_output=True, text=True,
                                timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    args: list[str] = []
    seen: set[tuple[str, str]] = set()
    for line in listed.splitlines():
        key, _, value = line.partition("=")
        option = _TO_UV.get(key.rsplit(".", 1)[-1])
        if option is None:
            continue
        for item in shlex.split(value.strip().strip("'\"")) if value.strip() else []:
            if (option, item) not in seen:
                seen.add((option, item))
                args += [option, item]
    return args


def with_uv(python: str, requirements: str) -> bool:
    """Install with uv (itself installed into the virtualenv by pip first); False when any step fails."""
    bin_dir = Path(python).parent
    uv = bin_dir / "uv"
    quiet = ["--quiet", "--disable-pip-version-check"]
    if not uv.exists() and subprocess.run([python, "-m", "pip", "install", *quiet, UV], timeout=TIMEOUT_S).returncode:
        return False
    command = [str(uv), "pip", "install", "--python", python, "--index-strategy", "unsafe-best-match",
               "--quiet", *pip_sources(python), "-r", requirements]
    try:
        return subprocess.run(command, timeout=TIMEOUT_S).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def with_pip(python: str, requirements: str) -> int:
    # --no-compile: modules are compiled when first imported; compiling all of torch and transformers up front
    # took most of a fresh install's time and most of it is never imported.
    return subprocess.run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-compile",
                           "-r", requirements]).returncode


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python3 tools/install.py VENV_PYTHON REQUIREMENTS", file=sys.stderr)
        return 2
    python, requirements = argv
    if os.environ.get("WORKBENCH_INSTALLER", "uv") != "pip" and with_uv(python, requirements):
        return 0
    print("Installing with pip (uv was not available or failed).", file=sys.stderr)
    return with_pip(python, requirements)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
