"""Gradual rollout: deterministic assignment, share accuracy, persistence, Ask options."""

from __future__ import annotations

import pytest
from sqlalchemy import insert

from engine.config import load_settings
from engine.database import Database
from engine.database.tables import app_settings
from engine.errors import ConfigError
from engine.experiments import RolloutSetting, RolloutStore, assign_reflection, rollout_options, validate_share
from engine.pipeline.options import AskOptions

pytestmark = pytest.mark.unit
SESSIONS = [f"session-{n}" for n in range(2000)]


def test_same_user_and_question_same_arm():
    first = assign_reflection("What is X?", "alice", 50)
    assert all(assign_reflection("What is X?", "alice", 50) == first for _ in range(5))
    assert assign_reflection("  What is   X? ", "alice", 50) == first  # whitespace does not move a user
    assert first[1] in ("rollout:reflection@50%", "rollout:control@50%")


@pytest.mark.parametrize("share", [25, 60])
def test_share_is_roughly_matched(share):
    on = sum(assign_reflection("Compare A and B", sid, share)[0] for sid in SESSIONS)
    assert abs(on / len(SESSIONS) - share / 100) <= 0.04


def test_zero_and_hundred_are_exact():
    assert not any(assign_reflection("q", sid, 0)[0] for sid in SESSIONS)
    assert all(assign_reflection("q", sid, 100)[0] for sid in SESSIONS)
    assert assign_reflection("q", "s", 0)[1] == "rollout:control@0%"
    assert assign_reflection("q", "s", 100)[1] == "rollout:reflection@100%"
    assert assign_reflection("q", "s", 12.5)[1].endswith("@12.5%")


def test_raising_the_share_keeps_earlier_users_in_reflection():
    at_25 = {sid for sid in SESSIONS if assign_reflection("q", sid, 25)[0]}
    at_50 = {sid for sid in SESSIONS if assign_reflection("q", sid, 50)[0]}
    assert at_25 <= at_50


def test_share_validation():
    assert validate_share("25%") == 25.0 and validate_share(0) == 0.0
    for bad in (-1, 101, "abc", float("nan"), None):
        with pytest.raises(ConfigError, match="0 to 100"):
            validate_share(bad)


def test_store_default_set_persist(tmp_path):
    store = RolloutStore(tmp_path)
    assert store.get().share == 100.0 and store.get().updated_at is None
    saved = store.set("25")
    assert saved.share == 25.0 and saved.updated_at
    assert RolloutStore(tmp_path).get() == saved
    assert RolloutStore(Database(f"sqlite:///{tmp_path / 'workbench.db'}")).get() == saved  # a second engine
    with pytest.raises(ConfigError):
        store.set(150)
    assert store.get().share == 25.0


def test_damaged_setting_says_how_to_fix(tmp_path):
    store = RolloutStore(tmp_path)
    with store.db.begin() as conn:
        conn.execute(insert(app_settings).values(key="rollout", value="{not json", updated_at="t"))
    with pytest.raises(ConfigError, match="rollout set PERCENT"):
        store.get()
    store.set(40)
    assert store.get().share == 40


def test_damaged_old_file_is_not_imported_and_the_default_applies(tmp_path):
    (tmp_path / "rollout.json").write_text("{not json", encoding="utf-8")
    assert RolloutStore(tmp_path).get() == RolloutSetting()


def test_rollout_options_sets_arm_and_bucket(tmp_path):
    settings = load_settings(data_dir=tmp_path)
    base = AskOptions(mode="single", max_rounds=3)
    RolloutStore(tmp_path).set(0)
    off = rollout_options(base, "q", "s1", settings)
    assert off == base.model_copy(update={"reflection": False, "rollout_bucket": "rollout:control@0%"})
    RolloutStore(tmp_path).set(100)
    on = rollout_options(base, "q", "s1", settings)
    assert on.reflection and on.rollout_bucket == "rollout:reflection@100%" and on.mode == "single"
    RolloutStore(tmp_path).set(50)
    picks = {rollout_options(base, "q", sid, settings).reflection for sid in SESSIONS[:50]}
    assert picks == {True, False}
