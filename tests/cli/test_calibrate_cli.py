"""``python -m engine calibrate``: refuses too few questions with how many are needed; lists and deletes."""

from __future__ import annotations

import json

import pytest

from engine.cli import main
from tests.offline.test_selector_store import fitted

pytestmark = pytest.mark.integration


def test_too_few_questions_say_how_many_more(tmp_path, capsys):
    gold = tmp_path / "gold.jsonl"
    gold.write_text("\n".join(json.dumps({"id": f"q{i}", "question": "Who built the pier?", "answers": ["Acme"],
                                          "answerable": True}) for i in range(5)))
    assert main(["calibrate", "--questions", str(gold), "--data-dir", str(tmp_path / "data"), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert not out["ok"] and "at least 40" in out["error"] and "add 35" in out["error"]


def test_list_and_delete(tmp_path, capsys):
    from engine.config import load_settings
    from engine.offline.calibrate import SelectorStore

    data = tmp_path / "data"
    path = SelectorStore(load_settings(data_dir=data)).save(fitted(("notes",)))
    assert main(["calibrate", "--list", "--data-dir", str(data), "--json"]) == 0
    assert [s["name"] for s in json.loads(capsys.readouterr().out)["selectors"]] == [path.stem]
    assert main(["calibrate", "--delete", path.stem, "--data-dir", str(data), "--json"]) == 0
    capsys.readouterr()
    assert main(["calibrate", "--delete", path.stem, "--data-dir", str(data), "--json"]) == 1
