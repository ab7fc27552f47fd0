"""Evidence units, question focus and revision asks (no model needed)."""

from __future__ import annotations

from datetime import date

import pytest

from engine.language.codes import code_kind, names
from engine.offline.focus import asks_for, Focus, match, missing_from, question_focus
from engine.language.quantities import figures
from engine.language.layout import evidence_units, trim_record
from engine.results import Constraints, Entity, EvidenceMeta, Intent, TimeConstraint

pytestmark = pytest.mark.unit


def kinds(text: str) -> list[tuple[str, str]]:
    return [(u.kind, u.text) for u in evidence_units(text)]


def test_markdown_table_rows_become_one_record_each():
    text = ("## Nominal pressures\n\n| Aircraft | Gear | Pressure | |---|---|---| | A320ceo | MLG | 14.5 bar | "
            "| A320neo | MLG | 15.0 bar |")
    assert kinds(text) == [
        ("heading", "Nominal pressures."),
        ("record", "Aircraft: A320ceo; Gear: MLG; Pressure: 14.5 bar."),
        ("record", "Aircraft: A320neo; Gear: MLG; Pressure: 15.0 bar."),
    ]


def test_a_blank_corner_cell_labels_each_row():
    text = "| | 2022 kg/BH | 2023 kg/BH | |---|---|---| | A320 family | 2,338 | 2,288 | | B737 family | 2,421 | 2,366 |"
    assert [u.text for u in evidence_units(text)] == ["A320 family - 2022 kg/BH: 2,338; 2023 kg/BH: 2,288.",
                                                      "B737 family - 2022 kg/BH: 2,421; 2023 kg/BH: 2,366."]


def test_a_run_of_csv_records_is_cut_where_the_first_key_returns():
    text = ("Parameter: Threshold; Value: 24,000 FC since new Parameter: Repeat interval; Value: 4,500 FC "
            "Parameter: Method; Value: HFEC")
    assert kinds(text) == [("record", "Parameter: Threshold; Value: 24,000 FC since new."),
                           ("record", "Parameter: Repeat interval; Value: 4,500 FC."),
                           ("record", "Parameter: Method; Value: HFEC.")]


def test_a_flattened_table_is_not_quotable_and_the_section_heading_stays_with_its_text():
    text = ("Code Message Applicability ATA E4027 BRK TEMP SENSOR DISAGREE A320, B737 32-47 E4031 WHEEL SPEED "
            "SIGNAL LOST A320, B737 32-42 E3112 APU LOW OIL PRESSURE SHUTDOWN A320, B737 49-91 Fault Code E4027 - "
            "BRK TEMP SENSOR DISAGREE Meaning: one brake temperature sensor differs by more than 150 deg C from the "
            "mean of the other brakes.")
    units = kinds(text)
    section = ("Fault Code E4027 - BRK TEMP SENSOR DISAGREE Meaning: one brake temperature sensor differs by more "
               "than 150 deg C from the mean of the other brakes.")
    assert units[-1] == ("prose", section)
    assert all(kind in ("heading", "table") for kind, _ in units[:-1])


def test_headings_questions_banners_and_measured_rows():
    assert kinds("Highlights of Revision 11\nWhat is the torque on the A320?\nRepeat interval 6,000 FC") == [
        ("heading", "Highlights of Revision 11."), ("question", "What is the torque on the A320?"),
        ("fragment", "Repeat interval 6,000 FC.")]
    assert kinds("NEAA AIRWORTHINESS DIRECTIVE AD 2025-0042 (5) Parts installation: do not install the old nut.") == [
        ("heading", "NEAA AIRWORTHINESS DIRECTIVE AD 2025-0042 (5)."),
        ("prose", "Parts installation: do not install the old nut.")]


def test_a_flattened_table_run_into_a_sentence_is_cut_from_it():
    """A PDF table without delimiters, its last cell ("+3.1 %") followed by the paragraph under it."""
    text = ("Regional sales Region units 2023 units 2024 Change North 1,210 1,248 +3.1 % South 980 1,002 +2.2 % "
            "East 1,455 1,430 -1.7 % West 875 901 +3.0 % Total 4,520 4,581 +1.3 % The eastern decline follows the "
            "closure of two stores in the third quarter, which moved some of their customers to the north region.")
    units = kinds(text)
    assert units[-1] == ("prose", "The eastern decline follows the closure of two stores in the third quarter, which "
                                  "moved some of their customers to the north region.")
    assert all(kind != "long" for kind, _ in units), units  # no table dump is left to quote whole
    assert any(kind == "table" and "1,248" in unit for kind, unit in units)


def test_long_plain_prose_stays_whole():
    sentence = "there is a website where you can listen to old radio dramas for free " * 6
    assert [u.kind for u in evidence_units(sentence)] == ["long"]


def test_long_records_keep_the_first_field_the_fields_about_the_question_and_the_status():
    record = ("ad_number: 2020-18-05; title: Flap track inspection; aircraft: B737; issue_date: 2020-09-10; "
              "effective_date: 2020-10-15; superseded_by: 2024-11-02; status: superseded; requirement_summary: DVI "
              "and HFEC of flap main tracks 1-8 with a threshold of 24,000 FC; repetitive_interval: 6000 FC; "
              "fleet_status: Replaced by AD 2024-11-02 in all aircraft of the fleet")
    trimmed = trim_record(record, {"repetit", "interval", "flap"})
    assert trimmed == ("ad_number: 2020-18-05; title: Flap track inspection; status: superseded; "
                       "requirement_summary: DVI and HFEC of flap main tracks 1-8 with a threshold of 24,000 FC; "
                       "repetitive_interval: 6000 FC.")


def test_tolerances_are_not_values_of_their_own():
    assert [(f.value, f.unit) for f in figures("Switch at 35 +/- 2 psi")] == [(35.0, "psi"), (2.0, "")]


def test_focus_holds_codes_identifier_entities_and_numbers():
    intent = Intent(action="lookup", raw_query="q", entities=(Entity(text="B737 MAX 8", label="AIRCRAFT"),
                                                              Entity(text="wheel axle", label="PERSON")))
    focus = question_focus("Is 215 psi right for the B737 MAX 8 and fault E4027 in May?", intent)
    assert set(focus.codes) == {"b737", "e4027"} and focus.phrases == ("B737 MAX 8",)
    assert focus.numbers == {215.0}
    assert question_focus("Compare the CFM56-5B and LEAP-1A").codes == ("cfm56-5b", "leap-1a")
    assert not question_focus("I find WW2 very interesting, do you?")


def test_codes_match_their_variants_and_same_kind_codes_are_off_topic():
    assert code_kind("E4027") == code_kind("F2214") == "a9999" and code_kind("A320") != code_kind("E4027")
    assert names("the A320neo and B737-800 fleets", "A320") and names("B737-800", "b737")
    assert not names("code E40271", "E4027") and not names("A3201 test", "A320")
    focus = Focus(("e4027",))
    assert match(focus, "Fault Code E4031 - WHEEL SPEED SIGNAL LOST").off_topic
    assert not match(focus, "E4027 and E4031 are brake codes").off_topic
    assert match(Focus(("a320",)), "Final torque 325 N.m.", "A320 AMM 32-41-11").missing == ()
    assert missing_from(Focus(("e4027", "a320")), "E4027 is a brake fault.", ["A320 FIM"]) == []
    assert missing_from(Focus(("e4027",)), "E4031 is a wheel speed fault.") == ["e4027"]


def test_a_question_asks_for_an_old_revision_by_label_year_or_time_window():
    rev10 = EvidenceMeta(title="AMM 32-41-11 (Rev 10)", revision="Rev 10", update_date=date(2021, 4, 15))
    newest = date(2025, 3, 3)
    assert asks_for("What was the final torque in Rev 10?", rev10, None, newest)
    assert asks_for("What was the final torque in 2021?", rev10, None, newest)
    assert not asks_for("What is the current final torque?", rev10, None, newest)
    assert not asks_for("What did Rev 1 say?", rev10, None, newest)
    window = Intent(action="lookup", raw_query="q", constraints=Constraints(
        time=TimeConstraint(text="before 2022", start=date(2020, 1, 1), end=date(2021, 12, 31))))
    assert asks_for("What was the torque before 2022?", rev10, window, newest)


def test_a_fenced_code_block_is_one_code_unit_quoted_as_written():
    from engine.language.layout import evidence_units, QUOTABLE

    text = "## Installation\n\n```sh pip install tablekit ```\n\nThen import it.\n\n```python\nimport tablekit\n```"
    units = [(u.kind, u.text) for u in evidence_units(text)]
    assert ("code", "pip install tablekit") in units and ("code", "import tablekit") in units
    assert ("prose", "Then import it.") in units and "code" in QUOTABLE


def test_a_long_table_run_is_not_cut_inside_brackets():
    cells = ("Item Part Load (metric) Load (imperial) Pump shaft nut - seating load (shaft turning) 301-115-2 90 kN "
             "20 klbf Pump shaft nut - final load (shaft turning, dry threads) 301-115-2 65 kN 15 klbf Locking "
             "bolt BX-1103-5 14 N.m 124 lbf.in Cover screws CS-556-08 6.5 N.m 58 lbf.in Sensor bolts SB-604-6 "
             "4.5 N.m 40 lbf.in Filter bowl FB-220 12 N.m 106 lbf.in")
    units = [u.text for u in evidence_units(cells)]
    assert len(units) > 1
    assert not any(u.count("(") != u.count(")") for u in units), units


def test_a_row_of_figures_is_a_table_row_whatever_capital_it_starts_with():
    """A flattened statistics row starts with a capitalised label and has no function words: it is table data
    (read for values), not a heading (never read)."""
    row = "Nevada 4,210 12,775 9,304 611 802 0 3 1 0 0 0 0 12 5 0 0 0 0 0 0 0 27,702"
    assert kinds(row) == [("table", f"{row}.")]
    assert kinds("Totals by state") == [("heading", "Totals by state.")]
    banner = "NORTHWIND AIR - 2024 FLEET REPORT - ISSUE 2 - 3 MAR 2025 2024"  # capitals and a few figures: a banner, not a table row
    assert kinds(banner)[0][0] != "table"
