"""Which values are rivals: the same kind of figure from another source, never two figures that name different
things."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

import pytest

from engine.offline.conflicts import resolve
from engine.offline.reader import Candidate
from engine.offline.sentences import Sentence
from engine.results import Evidence, EvidenceMeta

pytestmark = pytest.mark.unit


def _evidence(n: int, text: str) -> Evidence:
    return Evidence(chunk_id=f"c{n}", doc_id=f"d{n}", knowledge_base="kb", text=text, score=1.0,
                    metadata=EvidenceMeta(title=f"Doc {n}", update_date=date(2024, 1, 1), authority=3))


def _candidate(text: str, kind: str, evidence: int, score: float) -> Candidate:
    sentence = Sentence(text=f"... {text} ...", evidence=evidence, kind="sentence", similarity=0.5, overlap=0.5)
    return Candidate(text=text, kind=kind, sentence=sentence, start=4, end=4 + len(text), score=score)


def _conflicts(a: str, b: str, kind: str = "code") -> list[str]:
    evidence = [_evidence(1, a), _evidence(2, b)]
    _, conflicts = resolve([_candidate(a, kind, 1, 2.0), _candidate(b, kind, 2, 1.9)], evidence, lambda c: 0.8)
    return [c.rival.text for c in conflicts]


def test_a_part_number_and_a_chapter_number_are_not_rivals():
    assert _conflicts("P/N 4471-20", "chapter 12-30") == []


def test_two_revisions_two_plain_figures_and_two_dates_are_rivals():
    assert _conflicts("Rev 7", "Rev 9") == ["Rev 9"]
    assert _conflicts("1,250", "1,310", kind="number") == ["1,310"]
    assert _conflicts("4 May 2021", "9 Sep 2022", kind="date") == ["9 Sep 2022"]


def test_figures_in_one_unit_are_rivals_and_in_two_units_are_not():
    assert _conflicts("42 kg", "45 kg", kind="quantity") == ["45 kg"]
    assert _conflicts("42 kg", "45 min", kind="quantity") == []


def test_a_figure_whose_digits_end_another_is_a_rival_not_the_same_value():
    # "5 N.m" is not a part of "6.5 N.m" nor of "25 N.m": numbers are compared whole, with their decimals
    assert _conflicts("6.5 N.m", "5 N.m", kind="quantity") == ["5 N.m"]
    assert _conflicts("25 N.m", "5 N.m", kind="quantity") == ["5 N.m"]
    assert _conflicts("5 N.m", "6.5 N.m", kind="quantity") == ["6.5 N.m"]
    # the same value said with more words around it, or written another way, stays one value
    assert _conflicts("6.5 N.m", "6.5 N.m, the maker's figure", kind="quantity") == []
    assert _conflicts("1,250", "1250", kind="number") == []
    assert _conflicts("€46", "EUR 46", kind="money") == []


def _weighted(rival_features: dict[str, float], rival_sentence: str = "... 9 bar ...",
              top_subject: float = 1.0, named: bool = True, top_overlap: float = 0.8) -> list[str]:
    """A best value at P 0.9 and a rival in the same unit at P 0.3 from another source of equal standing."""
    evidence = [_evidence(1, "6.5 bar"), _evidence(2, "9 bar")]
    top = replace(_candidate("6.5 bar", "quantity", 1, 2.0),
                  features={"sent_subject": top_subject, "near": 0.4, "sent_overlap": top_overlap})
    sentence = Sentence(text=rival_sentence, evidence=2, kind="sentence", similarity=0.5, overlap=0.5)
    rival = Candidate(text="9 bar", kind="quantity", sentence=sentence, start=4, end=9, score=-0.8,
                      features=rival_features)
    _, conflicts = resolve([top, rival], evidence, lambda c: 0.9 if c is top else 0.3, named=named)
    return [c.rival.text for c in conflicts]


def test_a_less_liked_rival_counts_when_its_sentence_says_it_of_the_asked_subject():
    # below half the best one's probability, but it names every subject of the question with asked words near it
    assert _weighted({"sent_subject": 1.0, "near": 0.4}) == ["9 bar"]
    # the same probability without the subject, or far from the asked words, is the ranker telling them apart
    assert _weighted({"sent_subject": 0.5, "near": 0.4}) == []
    assert _weighted({"sent_subject": 1.0, "near": 0.0}) == []
    # a sentence that states both values ("raised from 6.5 bar to 9 bar") is a change, not a rival source
    assert _weighted({"sent_subject": 1.0, "near": 0.4}, "... raised from 6.5 bar to 9 bar ...") == []
    # the best value's own sentence must name the subject too: else it is not two values of one thing
    assert _weighted({"sent_subject": 1.0, "near": 0.4}, top_subject=0.5) == []


def test_for_a_question_naming_nothing_both_sentences_must_hold_half_its_words():
    assert _weighted({"sent_overlap": 0.6, "near": 0.4}, named=False) == ["9 bar"]
    assert _weighted({"sent_overlap": 0.4, "near": 0.4}, named=False) == []
    assert _weighted({"sent_overlap": 0.6, "near": 0.4}, named=False, top_overlap=0.4) == []


def _in_one_document(rival_features: dict[str, float], rival_sentence: str) -> list[str]:
    """The best value and a rival from another sentence of the same document."""
    evidence = [_evidence(1, "the whole card")]
    features = {"sent_subject": 1.0, "near": 0.4, "sent_overlap": 0.8}
    top = replace(_candidate("6.5 bar", "quantity", 1, 2.0), features=features)
    sentence = Sentence(text=rival_sentence, evidence=1, kind="sentence", similarity=0.5, overlap=0.5)
    rival = Candidate(text="9 bar", kind="quantity", sentence=sentence, start=4, end=9, score=-0.8,
                      features=rival_features)
    _, conflicts = resolve([top, rival], evidence, lambda c: 0.9 if c is top else 0.3)
    return [c.rival.text for c in conflicts]


def test_a_document_can_disagree_with_itself_about_the_asked_subject():
    # an erratum or a record restating the figure, in another sentence of the same document, naming the subject
    assert _in_one_document({"sent_subject": 1.0, "near": 0.4}, "Erratum: the relief valve opens at 9 bar.") == ["9 bar"]
    # another figure of the same document that is not said of the subject is just another figure
    assert _in_one_document({"sent_subject": 0.0, "near": 0.4}, "The feed pump delivers 9 bar.") == []
    # the best value's own sentence is never its rival
    assert _in_one_document({"sent_subject": 1.0, "near": 0.4}, "... 6.5 bar ...") == []


def test_the_value_in_force_is_not_listed_again_among_the_values_it_replaced():
    old = Evidence(chunk_id="c1", doc_id="d1", knowledge_base="kb", text="2,288 kg", score=1.0,
                   metadata=EvidenceMeta(title="Report 2023", update_date=date(2023, 6, 1), authority=3))
    new = Evidence(chunk_id="c2", doc_id="d2", knowledge_base="kb", text="12.35 kg per seat", score=1.0,
                   metadata=EvidenceMeta(title="Report 2024", update_date=date(2024, 6, 1), authority=3))
    ranked = [_candidate("2,288 kg", "quantity", 1, 2.0), _candidate("12.35 kg per seat", "quantity", 2, 1.9),
              _candidate("12.35 kg", "quantity", 2, 1.8)]
    chosen, conflicts = resolve(ranked, [old, new], lambda c: 0.8)
    assert chosen[0].text == "12.35 kg per seat"
    assert [(c.rival.text, c.preferred_because) for c in conflicts] == [("2,288 kg", "newer")]
