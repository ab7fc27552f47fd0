"""Which values are rivals: the same kind of figure from another source, never two figures that name different
things."""

from __future__ import annotations

from datetime import date

import pytest

from engine.offline.conflicts import resolve
from engine.offline.reader import Candidate, Sentence
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
