"""The language toolkit: citations, words and stems, numbers with units, years, sentences, codes."""

from __future__ import annotations

import pytest

from engine.language.citations import citations, strip_citations, with_citation
from engine.language.codes import code_kind, codes_in, names
from engine.language.quantities import canonical_unit, figures, numbers, units_agree, years
from engine.language.sentences import abbreviations, split_sentences
from engine.language.tokens import STOP_WORDS, content_words, holds_words, mentions, normalise_phrase, stem, words

pytestmark = pytest.mark.unit


def test_one_citation_parser_reads_lists_and_ranges_once_each():
    assert citations("It is 12 kg [2][4], see also [1, 3] and [5-7], not [9-900].") == [2, 4, 1, 3, 5, 6, 7]
    assert strip_citations("The pump runs dry [3].") == "The pump runs dry."
    assert with_citation("The pump runs dry [3].", [1, 2]) == "The pump runs dry [1][2]."


def test_the_stemmer_is_the_full_text_indexes_snowball_stemmer():
    assert stem("bridges") == stem("bridge") and stem("running") == stem("runs")
    assert stem("A320") == "a320"  # a word with digits is kept as written
    assert "the" in STOP_WORDS and "bridge" not in STOP_WORDS
    assert content_words("The bridges were painted in spring") == [stem("bridges"), stem("painted"), "spring"]


def test_words_and_phrases_compare_without_case_or_punctuation():
    assert words("Don't cross the A-7 bridge [2].") == ["don't", "cross", "the", "a-7", "bridge"]
    assert normalise_phrase("Wheel-Axle  Nut!") == "wheel axle nut"
    assert mentions("the wheel axle nut is loose", "Wheel-Axle nut") and not mentions("axle nuts", "axle nut")


def test_a_phrase_is_held_only_with_its_numbers_whole():
    assert holds_words("The bolts take 6.5 N.m, the maker says.", "6.5 N.m")
    assert not holds_words("The bolts take 6.5 N.m.", "5 N.m") and not holds_words("25 N.m", "5 N.m")
    assert not holds_words("anything", "") and not holds_words("N.m 5", "5 N.m")


def test_figures_carry_their_units_and_tolerances():
    found = figures("Set it to 35 +/- 2 psi, then 120 kilometres and 4.5 %.")
    assert [(f.value, f.unit) for f in found if f.unit] == [(35.0, "psi"), (120.0, "kilometres"), (4.5, "%")]
    assert (2.0, "") in [(f.value, f.unit) for f in found]  # the tolerance is read without the unit
    assert canonical_unit("kilometres") == "km" and units_agree("km", "kilometre") and not units_agree("psi", "bar")
    # a unit written with a middle dot is the same unit as with a full stop
    assert [canonical_unit(f.unit) for f in figures("6.5 N·m and 6.5 N.m")] == ["n.m", "n.m"]
    assert numbers("two pumps and 3 valves", spelled=True) == {2.0, 3.0}


def test_years_are_read_once_and_not_from_longer_numbers():
    assert years("Opened in 1932, rebuilt 2004; serial 120045, ratio 1999.5") == {1932, 2004}


def test_sentences_split_at_punctuation_but_not_after_listed_abbreviations():
    assert "e.g" in abbreviations()
    text = "The hall seats 900, e.g. for concerts [1]. Dr. Imani Osei designed it.\nOpening hours\nDaily from 9."
    assert split_sentences(text) == ["The hall seats 900, e.g. for concerts [1].", "Dr. Imani Osei designed it.",
                                      "Opening hours", "Daily from 9."]


def test_codes_of_the_same_shape_are_told_apart():
    assert codes_in("Valve V-2210 replaced V-2209 on line K9A3") == {"v-2210", "v-2209", "k9a3"}
    assert code_kind("V-2210") == code_kind("V-2209") != code_kind("K9A3")
    assert names("fitted to the V-2210B", "V-2210") and not names("fitted to V-22101", "V-2210")
