"""tools/import_cycles.py: the engine has no module-level import circle, and the checker finds the kinds it must."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOOL = ROOT / "tools" / "import_cycles.py"

pytestmark = pytest.mark.unit


def _run(package: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(TOOL), str(package)], capture_output=True, text=True, timeout=120)


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "pkg"
    for name, body in {"__init__.py": "", **files}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(body), encoding="utf-8")
    return root


def test_the_engine_has_no_module_level_import_circle():
    result = _run(ROOT / "engine")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Module-level circles: 0" in result.stdout


def test_the_engine_has_no_circle_even_through_deferred_imports():
    """Neither a module nor a package imports, inside a function, one that imports it back."""
    out = _run(ROOT / "engine").stdout
    assert "Circles that need a deferred import: 0 groups" in out, out
    assert "Package circles (all imports): 0" in out, out


def test_a_module_level_circle_fails_and_is_shown(tmp_path):
    package = _package(tmp_path, {"a.py": "from pkg.b import B\nA = 1\n", "b.py": "from pkg import a\nB = 2\n"})
    result = _run(package)
    assert result.returncode == 1
    assert "Module-level circles: 1" in result.stdout and "pkg.a -> pkg.b -> pkg.a" in result.stdout


def test_a_deferred_import_is_listed_and_type_checking_imports_are_left_out(tmp_path):
    package = _package(tmp_path, {
        "a.py": "from pkg.b import B\n",
        "b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import c\n"
                "B = 1\ndef late():\n    from pkg.a import A\n",
        "c.py": "from pkg.b import B\n",
    })
    result = _run(package)
    assert result.returncode == 0, result.stdout
    assert "pkg.b:6 imports pkg.a inside a function; back: pkg.a -> pkg.b" in result.stdout
    assert "pkg.c" not in result.stdout.split("Circles that need a deferred import")[1].split("Package")[0]


def test_importing_a_submodule_runs_its_packages_init(tmp_path):
    package = _package(tmp_path, {
        "x/__init__.py": "from pkg.x.inner import I\n",
        "x/inner.py": "I = 1\n",
        "y.py": "from pkg.x.inner import I\n",
        "x/uses_y.py": "import pkg.y\n",
    })
    # pkg.x/__init__ -> pkg.x.inner only; pkg.y -> pkg.x (its __init__) -> ... no circle unless x imports y
    assert _run(package).returncode == 0
    (package / "x" / "__init__.py").write_text("from pkg.x.inner import I\nfrom pkg.x import uses_y\n")
    result = _run(package)
    assert result.returncode == 1 and "pkg.x -> pkg.x.uses_y -> pkg.y -> pkg.x" in result.stdout
