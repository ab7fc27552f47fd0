"""Text helpers: sentences, citations, figures, named tokens, absolute wording."""

from __future__ import annotations

import pytest

from engine.language.citations import citations, strip_citations, with_citation
from engine.language.layout import is_key_statement
from engine.language.names import name_spans, named_tokens
from engine.language.negation import absolute_words, negated_words, negations
from engine.language.quantities import canonical_unit, figures, units_agree
from engine.language.sentences import split_sentences
from engine.language.tokens import coverage

pytestmark = pytest.mark.unit


def test_sentences_keep_their_citations_and_respect_abbreviations():
    text = "Torque the nut to 150 lbf.ft [1]. Check it, e.g. daily [2][3].\n# Heading\nLast line"
    assert split_sentences(text) == ["Torque the nut to 150 lbf.ft [1].", "Check it, e.g. daily [2][3].",
                                     "# Heading", "Last line"]


def test_hard_wrapped_lines_join_and_citation_only_fragments_merge():
    assert split_sentences("The brake is\nserviceable at 1.0 mm. [2]") == ["The brake is serviceable at 1.0 mm. [2]"]


def test_citations_expand_lists_and_ranges():
    assert citations("a [2] b [1, 3] c [4-6] d [2]") == [2, 1, 3, 4, 5, 6]
    assert strip_citations("Torque it [1][2].") == "Torque it."


def test_figures_carry_units_and_skip_codes():
    found = figures("Torque to 150 lbf.ft on the A320, 25% more, P/N 201-587-3, on June 7th 2010.")
    assert [(f.text, f.value, f.unit) for f in found] == [
        ("150 lbf.ft", 150.0, "lbf.ft"), ("25%", 25.0, "%"), ("7", 7.0, ""), ("2010", 2010.0, "")]


def test_named_tokens_are_codes_months_and_names():
    tokens = named_tokens("Fault E4027 on the A320 in January, reported by Boeing engineers.")
    assert {"e4027", "a320", "january", "boeing"} <= tokens
    assert "boeing" not in named_tokens("Fault on the A320, said Boeing.", capitalised=False)


def test_absolute_wording_found_and_idioms_ignored():
    assert absolute_words("It always works and never fails for all units.") == ["always", "never", "all"]
    assert absolute_words("The best book of all time, not at all an all-star.") == []


def test_key_statements_and_coverage():
    assert is_key_statement("Torque the axle nut to 150 lbf.ft.")
    assert not is_key_statement("Yes, it does.")
    assert coverage("torqued nuts", "Torque the nut") == 1.0
    assert with_citation("A statement [3].", [1]) == "A statement [1]."


def test_units_normalise_rates_and_drop_qualifiers():
    assert [(f.text, f.unit) for f in figures("0.45 US qt/h and 0.8 qt per hour, 5 minutes a day")] == [
        ("0.45 US qt/h", "qt/h"), ("0.8 qt per hour", "qt/h"), ("5 minutes a day", "minutes/d")]


def test_mentions_ignores_case_hyphens_and_partial_words():
    from engine.language.tokens import mentions

    assert mentions("The Wheel-Axle nut", "wheel axle")
    assert mentions("CFM56-7B limits", "cfm56 7b")
    assert not mentions("The A3201 test", "A320")


def test_compared_entities_need_compare_or_two_of_a_kind_joined_in_the_question():
    from engine.validation.comparison import compared_entities
    from engine.results import Entity, Intent

    def make(action, query, *pairs):
        return Intent(action=action, raw_query=query, entities=tuple(Entity(text=t, label=l) for t, l in pairs))

    assert compared_entities(make("compare", "q", ("A320", "AIRCRAFT"), ("B737", "AIRCRAFT"))) == ["A320", "B737"]
    joined = "What is the maximum takeoff weight of the A320 and the B737?"
    assert compared_entities(make("lookup", joined, ("A320", "AIRCRAFT"), ("B737", "AIRCRAFT"))) == ["A320", "B737"]
    either = "Which was built first, the Tower Bridge or the Forth Bridge?"
    assert compared_entities(make("lookup", either, ("Tower Bridge", "FAC"), ("Forth Bridge", "FAC"))) == \
        ["Tower Bridge", "Forth Bridge"]
    assert compared_entities(make("lookup", joined, ("A320", "AIRCRAFT"), ("wheel axle", "PERSON"))) == []
    assert compared_entities(make("compare", "q", ("A320", "AIRCRAFT"))) == []
    # two of a kind that the question does not join: one question about one thing
    apart = "How many boilers were inspected in Leeds for the Harbour Board in March 2019?"
    assert compared_entities(make("lookup", apart, ("Leeds", "GPE"), ("Harbour Board", "GPE"))) == []
    # "between A and B" names one route or range
    route = "What did the ferry ticket between Dover and Calais cost in 2019?"
    assert compared_entities(make("lookup", route, ("Dover", "GPE"), ("Calais", "GPE"))) == []


def test_negations_and_the_words_they_cover():
    assert negations("Pets aren't allowed, and smoking is never permitted.") == ["aren't", "never"]
    assert negations("Give no more than 5 mg, not only at night.") == []
    assert negated_words("The part is not approved for the wing spar, but the bolt is.") == {"approv", "wing", "spar"}
    assert negated_words("Neither the museum nor the zoo charges a fee.") == {"museum", "zoo", "charg", "fee"}
    # a word also said outside the negation is not negated as a whole
    assert negated_words("Pass the ball, while the team without control of the ball, waits.") == {"control"}


def test_units_compare_through_their_spellings():
    assert canonical_unit("Kilometres") == "km" and canonical_unit("percent") == "%"
    assert canonical_unit("kilometres/h") == "km/h" and canonical_unit("N.m") == "n.m"
    assert units_agree("n.m", "N.m") and units_agree("", "psi") and units_agree("points", "goals")
    assert not units_agree("n.m", "psi") and not units_agree("points", "minutes")


def test_names_are_runs_of_capitalised_words_and_codes():
    spans = name_spans("The Parks Department gets 4 million dollars; the A320 limit is 300 N.m, said Beth Okafor.")
    assert [name for _, _, name in spans] == ["parks department", "a320", "beth okafor"]
    assert name_spans("Release 5.2 fixes the crash in January.") == []
