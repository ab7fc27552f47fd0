"""Which documents a passage names by title: capitalised mentions, the longest title, no common words."""

from __future__ import annotations

import pytest

from engine.store.titles import TitleIndex, normalise_title

pytestmark = pytest.mark.unit

INDEX = TitleIndex([
    ("reznor", "Trent Reznor"),
    ("nin", "Nine Inch Nails"),
    ("hank", "Hank Williams"),
    ("hank-jr", "Hank Williams Jr."),
    ("love-war", "In Love and War (1996 film)"),
    ("circus", "Circus"),
    ("canberra", "Canberra"),
    ("united", "United (Marian Gold album)"),
    ("the", "The"),
    ("faq", "FAQ"),
    ("report", "2023 Fleet Reliability Report - Landing Gear (ATA 32) and APU (ATA 49), Issue 1 of the series"),
])


def ids(text: str) -> list[str]:
    return [n.doc_id for n in INDEX.named_in(text)]


def test_a_capitalised_title_in_the_text_names_its_document():
    assert ids("It was produced by Trent Reznor of Nine Inch Nails.") == ["reznor", "nin"]


def test_a_title_in_lower_case_is_a_common_word_not_a_name():
    assert ids("The band played in a circus tent near canberra.") == []
    assert ids("The band played at the Circus, in Canberra.") == ["circus", "canberra"]


def test_a_title_inside_a_longer_name_is_not_named():
    assert ids("Circus Diablo toured the United States.") == []
    assert ids("It grows in the United States; United was released in 1996.") == ["united"]


def test_the_longest_title_wins_where_two_start_at_one_word():
    assert ids("He was pregnant with Hank Williams, Jr. at the time.") == ["hank-jr"]
    assert ids("A duet by Hank Williams and Audrey Williams.") == ["hank"]


def test_a_trailing_qualifier_is_not_part_of_the_name():
    assert normalise_title("In Love and War (1996 film)") == "in love and war"
    assert ids("James Woods starred in In Love and War, a television film.") == ["love-war"]


def test_short_generic_and_long_titles_are_not_used_as_names():
    assert ids("The FAQ says the 2023 Fleet Reliability Report - Landing Gear (ATA 32) and APU (ATA 49), "
               "Issue 1 of the series is current.") == []
    assert len(INDEX) == 8  # "The", "FAQ" and the long report title are left out


def test_each_document_is_named_once_in_order_of_first_mention():
    named = INDEX.named_in("Canberra, then Trent Reznor, then Canberra again.")
    assert [(n.doc_id, n.offset) for n in named] == [("canberra", 0), ("reznor", 15)]
