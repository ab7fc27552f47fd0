"""Figures bound to the subject they are said of."""

from __future__ import annotations

import pytest

from engine.offline.binding import bind, subjects_agree

pytestmark = pytest.mark.unit


def said_of(sentence: str) -> list[tuple[str, list[str]]]:
    return [(b.figure.text, sorted(b.subjects)) for b in bind(sentence)]


@pytest.mark.parametrize("sentence, expected", [
    ("The B737 limit is 300 N.m, while the A320 limit is 270 N.m.", [("300 N.m", ["b737"]), ("270 N.m", ["a320"])]),
    ("The limit is 300 N.m for the B737 and 270 N.m for the A320.", [("300 N.m", ["b737"]), ("270 N.m", ["a320"])]),
    ("Alice Moreau scored 24 points and Beth Okafor scored 31 points.",
     [("24 points", ["alice moreau"]), ("31 points", ["beth okafor"])]),
    ("For the A320, the limit is 300 N.m.", [("300 N.m", ["a320"])]),
    ("The A320, B737 and A330 limits are 300 N.m.", [("300 N.m", ["a320", "a330", "b737"])]),
    ("The Parks Department receives 4 million dollars; the Roads Department receives 9 million dollars.",
     [("4 million", ["parks department"]), ("9 million", ["roads department"])]),
    ("The torque is 300 N.m [1].", [("300 N.m", [])]),
    # said of an unnamed thing the sentence describes, not of the film named before it
    ('The music of "Glass Orchard" was written by a composer born in 1958 [2].', [("1958", [])]),
    ("The A320 has a limit of 300 N.m.", [("300 N.m", ["a320"])]),
])
def test_each_figure_is_said_of_its_own_subject(sentence, expected):
    assert said_of(sentence) == expected


def test_subjects_agree_by_name_part_or_variant():
    assert subjects_agree({"okafor"}, {"beth okafor"}) and subjects_agree({"a320"}, {"a320neo"})
    assert subjects_agree(set(), {"b737"}) and subjects_agree({"a320"}, set())
    assert not subjects_agree({"a320"}, {"b737"}) and not subjects_agree({"roads department"}, {"parks department"})


def test_only_subjects_of_the_same_kind_can_disagree():
    assert subjects_agree({"mlg"}, {"3-1612-7"})  # a name against a part number: nothing said against it
    assert subjects_agree({"a320", "mlg"}, {"a320", "3-1612-7"})
    assert not subjects_agree({"a320", "201-587-3"}, {"a320", "201-587-5"})  # same type, another part


@pytest.mark.parametrize("record, expected", [
    # a table row: every figure is the row's, not a neighbouring field's name's (the key before "Totals" names a
    # group with a capitalised name)
    ("Depot: Leeds; Parts: 1,200; Return to Stores - North Bay Hours: 35; Totals: 1,235",
     [("1,200", ["leeds"]), ("35", ["leeds", "north bay hours", "stores"]), ("1,235", ["leeds"])]),
    # a label written before its fields
    ("A320 family - 2023 kg/BH: 2,288; Change: -2.1 %", [("2023 kg/BH", ["a320"]), ("2,288", ["a320"]),
                                                        ("-2.1 %", ["a320"])]),
    # a CSV row whose first field is a year: a field without figures names the row
    ("year: 2024; aircraft_type: A320neo; fuel_kg_per_block_hour: 2080", [("2024", ["a320neo"]), ("2080", ["a320neo"])]),
    # a label that describes the row names nothing: any subject may hold its figure
    ("Item: Hydraulic reservoir usable volume; Value: 12.5 L", [("12.5 L", [])]),
])
def test_a_figure_in_a_record_is_said_of_its_row(record, expected):
    assert said_of(record) == expected


def test_a_judge_finds_a_rows_total_said_of_that_row():
    from engine.offline.binding import subjects_agree

    total = bind("Depot: Leeds; Parts: 1,200; Return to Stores - North Bay Hours: 35; Totals: 1,235")[-1]
    assert subjects_agree(frozenset({"leeds"}), total.subjects)
    assert not subjects_agree(frozenset({"york"}), total.subjects)
