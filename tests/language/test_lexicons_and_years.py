"""Years and ranges, currency amounts and rates read from data, and the named lexicons."""

from __future__ import annotations

import re

import pytest

from engine.language import lexicons
from engine.language.quantities import YEAR, figures, years

pytestmark = pytest.mark.unit


def test_years_ranges_and_years_inside_codes():
    assert years("The survey ran 2019 to 2021; see AD 2022-0193.") == {2019, 2020, 2021, 2022}
    assert years("The survey ran 2019 to 2021; see AD 2022-0193.", standalone=True) == {2019, 2020, 2021}
    assert years("Span 1990-2090 is a part code, 1500 psi a pressure, 1,950 a count.") == {1990, 2090}
    assert YEAR.fullmatch("2023") and not YEAR.fullmatch("1850")


def test_currency_signs_and_rates_come_from_the_units_table():
    found = {f.text: f.unit for f in figures("Fees: $1,200 a year, £40, US$5; use 0.3 qt/h and 2 cycles per day.")}
    assert found["$1,200"] == "$" and found["£40"] == "£" and found["US$5"] == "us$"
    assert found["0.3 qt/h"] == "qt/h" and found["2 cycles per day"] == "cycles/d"


def test_an_iso_currency_code_before_an_amount_is_its_unit():
    found = {f.text: f.unit for f in figures("A cabin costs EUR 120, a deck seat CHF 35 and a pass 40 EUR.")}
    assert found == {"EUR 120": "eur", "CHF 35": "chf", "40 EUR": "eur"}
    assert [f.unit for f in figures("Gate B12 opens at 9; ref. EU 2024/7")] == ["", "", ""]  # no code, no money


def test_lexicons_are_read_from_data_files():
    assert "superseded" in lexicons.words("status_words") and "vs" in lexicons.words("framing_words")
    status = re.compile(lexicons.pattern("status_words"), re.IGNORECASE)
    assert status.search("This notice is NO LONGER  in force.") and not status.search("the canceller was reset")
    with pytest.raises(ValueError):
        lexicons.lexicon("../secrets")
