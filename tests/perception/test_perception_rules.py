"""The rules file: loading, errors that point at the line to fix, reload, and rule-only perception."""

from __future__ import annotations

from datetime import date
import re
from pathlib import Path

import pytest

from engine.errors import ConfigError
from engine.perception import DEFAULT_RULES_PATH, Perception, load_rules
from engine.perception.rules import ACTIONS

pytestmark = pytest.mark.unit

TODAY = date(2026, 12, 2)
BASE = DEFAULT_RULES_PATH.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def rules_only() -> Perception:
    return Perception(use_ner=False, today=lambda: TODAY)


def write(tmp_path: Path, text: str, name: str = "rules.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_packaged_rules_load() -> None:
    rules = load_rules()
    assert rules.path == DEFAULT_RULES_PATH
    assert {r.action for r in rules.actions} == ACTIONS - {"unknown"}
    assert rules.actions[0].action == "compare"
    assert {r.kind for r in rules.quantitative} == {"count", "amount", "percentage", "rate", "average", "min", "max"}
    assert {"AIRCRAFT", "ENGINE", "PART_NUMBER", "FAULT_CODE"} <= {r.label for r in rules.entities}
    assert "DATE" in rules.drop_labels and "CARDINAL" in rules.drop_labels
    assert rules.source_names["aircraft maintenance manual"] == "AMM"


@pytest.mark.parametrize(
    ("old", "new", "where", "message"),
    [
        ('action = "summarize"', 'action = "summarise"', "actions[2].action", "unknown action 'summarise'"),
        ('kind = "rate"', 'kind = "speed"', "quantitative[2].kind", "unknown kind 'speed'"),
        (
            "pattern = '\\b(?P<when>{{date}})",
            "pattern = '\\b({{date}})",
            "time[13].pattern",
            "resolver 'period' needs the named group(s) (?P<when>...)",
        ),
        ("pattern = '\\b(?-i:[A-D])-check", "pattern = '\\b(?-i:[A-D]-check", "entities[5].pattern", "invalid regular"),
        ('name = "between"', 'nam = "between"', "time[0]", "unknown key 'nam'"),
        ('"p&w" = "Pratt & Whitney"', '"p&w" = 3', "sources.aliases.p&w", "expected a non-empty string"),
        ("drop_labels = [", "drop_labels = [1, ", "entities_filter.drop_labels", "expected a list of strings"),
    ],
)
def test_malformed_rules_name_key_and_line(tmp_path: Path, old: str, new: str, where: str, message: str) -> None:
    assert old in BASE, old
    text = BASE.replace(old, new, 1)
    with pytest.raises(ConfigError) as info:
        load_rules(write(tmp_path, text))
    found = re.search(r": (\S+) \(line (\d+)\): (.*)", str(info.value))
    assert found, str(info.value)
    assert found[1] == where
    assert found[3].startswith(message)
    line = text.splitlines()[int(found[2]) - 1]
    # the line named is the edited one, or for an unknown key the header of its table
    assert (line == "[[time]]") if where == "time[0]" else (new.strip() in line)


def test_invalid_toml_gives_line(tmp_path: Path) -> None:
    path = write(tmp_path, BASE.replace("version = 1", "version = = 1"))
    with pytest.raises(ConfigError, match=r"not valid TOML: .*line 14"):
        load_rules(path)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("[[actions]]\naction = 'lookup'\npatterns = []\n", "actions[0].patterns (line 3): needs at least one pattern"),
        ("[[actions]]\naction = 'lookup'\n", "actions[0] (line 1): missing key 'patterns'"),
        ("[[actions]]\naction = 'lookup'\npatterns = ['{{nope}}']\n", "unknown macro {{nope}}"),
        ("[macros]\na = '{{b}}'\nb = '{{a}}'\n", "macros.a (line 2): macros nest more than 10 levels"),
        ("[[time]]\nresolve = 'someday'\npattern = 'x'\n", "time[0].resolve (line 2): unknown resolver 'someday'"),
        ("[[time]]\nresolve = 'calendar'\noffset = 1\npattern = '(?P<unit>year)'\n", "time[0].offset (line 3)"),
        ("[sources]\n[[sources.patterns]]\npattern = 'per (\\w+)'\n", "needs a named group (?P<source>...)"),
        ("version = 2\n", "version (line 1): only version = 1"),
        ("colour = 'red'\n", "unknown key 'colour'"),
        ("[[entities]]\nlabel = 'X'\npattern = 'x'\nreplace = [['a']]\n", "entities[0].replace[0]"),
    ],
)
def test_small_malformed_files(tmp_path: Path, text: str, fragment: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_rules(write(tmp_path, text))
    assert fragment in str(info.value)


def test_missing_rules_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not found"):
        Perception(tmp_path / "absent.toml", use_ner=False)


def test_constructor_rejects_bad_settings() -> None:
    with pytest.raises(ConfigError, match="today must be a function"):
        Perception(use_ner=False, today=date(2026, 1, 1))  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="model must name"):
        Perception(model="  ", use_ner=False)


def test_run_rejects_non_text(rules_only: Perception) -> None:
    with pytest.raises(TypeError):
        rules_only.run(None)  # type: ignore[arg-type]


def test_reload_picks_up_edited_rules(tmp_path: Path) -> None:
    path = write(tmp_path, BASE)
    perception = Perception(path, use_ner=False, today=lambda: TODAY)
    question = "Digest the Q3 findings for the A320 fleet in the ABC manual"
    before = perception.run(question)
    assert before.action == "unknown"
    assert before.constraints.source is None

    edited = BASE.replace(
        "[[actions]]\naction = \"compare\"",
        "[[actions]]\naction = \"summarize\"\npatterns = ['^digest\\b']\n\n[[actions]]\naction = \"compare\"",
        1,
    ).replace('documents = [\n    "AMM",', 'documents = [\n    "ABC manual", "AMM",', 1)
    assert edited != BASE
    path.write_text(edited, encoding="utf-8")
    assert perception.run(question) == before  # nothing changes until reload
    perception.reload()
    after = perception.run(question)
    assert after.action == "summarize"
    assert after.constraints.source == "ABC manual"
    assert after.entity_texts == ["A320"]


def test_failed_reload_keeps_old_rules(tmp_path: Path) -> None:
    path = write(tmp_path, BASE)
    perception = Perception(path, use_ner=False, today=lambda: TODAY)
    old = perception.rules
    path.write_text("[[actions]\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="line 1"):
        perception.reload()
    assert perception.rules is old
    assert perception.run("Compare A320 and A321").action == "compare"


@pytest.mark.parametrize(
    ("question", "start", "end", "text"),
    [
        ("in 2023 reports", "2023-01-01", "2023-12-31", "2023 reports"),
        ("between 2021 and 2023", "2021-01-01", "2023-12-31", "between 2021 and 2023"),
        ("between 2023 and 2021", "2021-01-01", "2023-12-31", "between 2023 and 2021"),
        ("2021-2023", "2021-01-01", "2023-12-31", "2021-2023"),
        ("2021–2023", "2021-01-01", "2023-12-31", "2021–2023"),
        ("from March 2022 to June 2023", "2022-03-01", "2023-06-30", "from March 2022 to June 2023"),
        ("from Feb 2024 through Feb. 2024", "2024-02-01", "2024-02-29", "from Feb 2024 through Feb. 2024"),
        ("since 2022", "2022-01-01", "2026-12-02", "since 2022"),
        ("after 2022", "2023-01-01", "2026-12-02", "after 2022"),
        ("before 2020", None, "2019-12-31", "before 2020"),
        ("prior to March 2020", None, "2020-02-29", "prior to March 2020"),
        ("within the last 6 months", "2026-06-02", "2026-12-02", "within the last 6 months"),
        ("in the last 12 months", "2025-12-02", "2026-12-02", "in the last 12 months"),
        ("over the past two years", "2024-12-02", "2026-12-02", "over the past two years"),
        ("within 3 weeks", "2026-11-11", "2026-12-02", "within 3 weeks"),
        ("in the last 10 days", "2026-11-22", "2026-12-02", "in the last 10 days"),
        ("past year", "2025-12-02", "2026-12-02", "past year"),
        ("this year", "2026-01-01", "2026-12-02", "this year"),
        ("last year", "2025-01-01", "2025-12-31", "last year"),
        ("last month", "2026-11-01", "2026-11-30", "last month"),
        ("this month", "2026-12-01", "2026-12-02", "this month"),
        ("on 2024-05-01", "2024-05-01", "2024-05-01", "2024-05-01"),
        ("since 2024-05-01", "2024-05-01", "2026-12-02", "since 2024-05-01"),
        ("in 2024-05", "2024-05-01", "2024-05-31", "2024-05"),
        ("in 2023 and 2024", "2023-01-01", "2024-12-31", "2023 and 2024"),
    ],
)
def test_time_expressions(rules_only: Perception, question: str, start: str | None, end: str, text: str) -> None:
    time = rules_only.run(f"What was reported {question}?").constraints.time
    assert time is not None
    assert time.start == (date.fromisoformat(start) if start else None)
    assert time.end == date.fromisoformat(end)
    assert time.text == text


@pytest.mark.parametrize(
    "question",
    [
        "Torque to 2000 in-lbs on the A320",
        "Inspect every 1500 FH",
        "Apply 1950 psi to the accumulator",
        "See AD 2021-12-05 for the B737",
        "Order P/N 2019-2020-1",
        "Is 2024-13 a valid month?",
        "What was reported on 2023-02-30?",
    ],
)
def test_no_time_where_a_number_is_not_a_date(rules_only: Perception, question: str) -> None:
    assert rules_only.run(question).constraints.time is None


@pytest.mark.parametrize(
    ("question", "source"),
    [
        ("according to the AMM, what is the gap?", "AMM"),
        ("What is the gap in the A320 AMM?", "AMM"),
        ("per the FAA, is it allowed?", "FAA"),
        ("Take it from the CMM", "CMM"),
        ("as listed in the component maintenance manual", "CMM"),
        ("According to Boeing, what is the limit?", "Boeing"),
        ("according to Pratt and Whitney the limit is 5", "Pratt & Whitney"),
        ("What does EASA require?", "EASA"),
        ("What does the rule require?", None),
        ("What is the fuel burn in the Airbus A320?", None),
        ("How many cycles per hour?", None),
    ],
)
def test_sources(rules_only: Perception, question: str, source: str | None) -> None:
    assert rules_only.run(question).constraints.source == source


@pytest.mark.parametrize(
    ("question", "kind", "text"),
    [
        ("How many ADs apply?", "count", "How many"),
        ("What is the number of removals?", "count", "number of"),
        ("How much oil is used?", "amount", "How much"),
        ("What percentage of flights?", "percentage", "percentage"),
        ("What share of delays, in %?", "percentage", "share of"),
        ("What is the failure rate?", "rate", "rate"),
        ("What is the average EGT margin?", "average", "average"),
        ("What is the lowest tire pressure?", "min", "lowest"),
        ("What is the max EGT?", "max", "max"),
        ("What is the part number of the pump?", None, None),
        ("Which 737 MAX 8 tasks are due?", None, None),
        ("Wait 5 min before restart", None, None),
        ("What does EGT mean?", None, None),
    ],
)
def test_quantitative(rules_only: Perception, question: str, kind: str | None, text: str | None) -> None:
    quant = rules_only.run(question).constraints.quantitative
    assert ((quant.kind, quant.text) if quant else (None, None)) == (kind, text)


@pytest.mark.parametrize(
    ("question", "action"),
    [
        ("Compare the A320 and the A321", "compare"),
        ("A320 versus A321 cabin pressure", "compare"),
        ("What is the difference between SB and AD?", "compare"),
        ("List the steps to replace a brake", "list"),
        ("How do I replace a brake?", "how_to"),
        ("How to reset the FADEC?", "how_to"),
        ("What is the procedure for towing?", "how_to"),
        ("Why is the EGT high?", "explain"),
        ("What causes brake vibration?", "explain"),
        ("Summarize the findings", "summarize"),
        ("Give me an overview of the fleet", "summarize"),
        ("What are the torque limits?", "list"),
        ("What is the torque limit?", "lookup"),
        ("When was the last C-check?", "lookup"),
        ("How many ADs apply?", "lookup"),
        ("Brake wear", "unknown"),
    ],
)
def test_actions(rules_only: Perception, question: str, action: str) -> None:
    assert rules_only.run(question).action == action


def test_rule_patterns_find_entities_without_spacy(rules_only: Perception) -> None:
    intent = rules_only.run("Compare the B-737-800, A321neo, LEAP-1B, PW1100G-JM, CFM56-7B27 and fault F2210")
    assert [(e.text, e.label) for e in intent.entities] == [
        ("B737-800", "AIRCRAFT"),
        ("A321neo", "AIRCRAFT"),
        ("LEAP-1B", "ENGINE"),
        ("PW1100G-JM", "ENGINE"),
        ("CFM56-7B27", "ENGINE"),
        ("F2210", "FAULT_CODE"),
    ]


def test_wrong_type_at_top_level(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r": version \(line 2\): expected int, got str"):
        load_rules(write(tmp_path, "# rules\nversion = '1'\n"))
