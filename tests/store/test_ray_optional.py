"""Ray is optional: the default engine never imports it, and --engine ray without it says how to install it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from engine.cli import main
from engine.errors import ConfigError
from engine.ray_ingest import RAY_PIN, import_ray

pytestmark = pytest.mark.unit

DEFAULT_PATH = """
import sys
from pathlib import Path
import engine.cli, engine.cli.documents_cmd, engine.ingest, engine.api
from engine.config import load_settings
from engine.ingest import LocalReader
folder = Path(sys.argv[1])
(folder / "note.md").write_text("# Note\\n\\nChock the wheels.")
settings = load_settings(data_dir=folder / "data")
[(index, doc)] = LocalReader(settings).read([("note.md", folder / "note.md", {}, None)], "kb")
assert doc.metadata.title == "Note", doc
loaded = sorted(m for m in sys.modules if m == "ray" or m.startswith("ray."))
print("ray modules:", loaded)
sys.exit(1 if loaded else 0)
"""


def test_the_default_engine_never_imports_ray(tmp_path):
    done = subprocess.run([sys.executable, "-c", DEFAULT_PATH, str(tmp_path)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_engine_ray_without_ray_installed_says_how_to_install_it(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)  # what an environment without the package gives an import
    with pytest.raises(ConfigError, match=r"pip install 'ray\[data\]==2\.60\.0'"):
        import_ray()
    (tmp_path / "a.md").write_text("# A\n\nText.")
    code = main(["ingest", str(tmp_path / "a.md"), "--kb", "notes", "--engine", "ray",
                 "--data-dir", str(tmp_path / "data")])
    err = capsys.readouterr().err
    assert code == 1, err
    assert "--engine ray needs Ray Data" in err and RAY_PIN in err, err
    assert not (tmp_path / "data" / "lancedb").exists() or not any((tmp_path / "data" / "lancedb").iterdir())


def test_the_pinned_ray_is_the_one_requirements_install():
    from pathlib import Path

    pins = (Path(__file__).resolve().parents[2] / "requirements.txt").read_text().split()
    assert RAY_PIN in pins


def test_settings_sent_to_ray_workers_carry_no_credentials(tmp_path):
    import pickle

    from engine.config import load_settings
    from engine.ray_ingest import RayReader

    settings = load_settings(data_dir=tmp_path, database_url="postgresql://app:s3cret-pw@db/workbench",
                             storage_options={"aws_secret_access_key": "s3cret-key"}, chunk_size=500)
    sent = RayReader(None, settings).worker_settings
    assert b"s3cret" not in pickle.dumps(sent)
    assert (sent.chunk_size, sent.data_dir, sent.embedding_model) == (500, settings.data_dir, settings.embedding_model)
