"""Figures (a number with a unit) found in evidence text, with the sentence they came from."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.language.citations import strip_citations
from engine.language.quantities import canonical_unit, known_unit, located_figures
from engine.language.sentences import split_sentences
from engine.language.tokens import STOP_WORDS, words as tokens

DEFAULT_AUTHORITY = 3
"""A document that states no authority ranks in the middle of the 1-5 scale (as in retrieval's credibility)."""


@dataclass(frozen=True)
class Figure:
    """One number with its unit, as written, and the sentence around it."""

    value: float
    unit: str
    text: str
    sentence: str

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _figures(sentence: str) -> list[tuple[int, Figure]]:
    """(offset in the sentence without citations, figure) for each number with a unit of ``en/units.toml``
    (currency signs included)."""
    return [(at, Figure(f.value, f.unit, f.text, sentence[:300])) for at, f in located_figures(sentence)
            if f.unit and known_unit(f.unit)]


def extract_figures(text: str) -> list[Figure]:
    """Every number that carries a unit or currency in ``text`` (bare numbers, like years, are skipped)."""
    return [figure for sentence in split_sentences(text) for _, figure in _figures(sentence)]


def words(text: str) -> set[str]:
    """Content words of ``text``, lower-cased."""
    return {w for w in tokens(text) if w not in STOP_WORDS}


def relevant_figures(text: str, entity: str, attribute: str) -> list[Figure]:
    """Figures for ``entity``: in each sentence naming it, the first figure after the name (else the last before).

    When the entity is named in ``text`` (a title line, say) but in no sentence with a figure, falls back
    to the figures in sentences sharing the attribute's words. Sentences sharing more of them come first.
    """
    name, attr_words = entity.lower().strip(), words(attribute)
    chosen: list[Figure] = []
    fallback: list[Figure] = []
    for sentence in split_sentences(text):
        found = _figures(sentence)
        at = strip_citations(sentence).lower().find(name) if name else -1
        if at >= 0 and found:
            after = [f for pos, f in found if pos >= at + len(name)]
            chosen.append(after[0] if after else found[-1][1])
        elif attr_words & words(sentence):
            fallback.extend(f for _, f in found)
    pool = chosen or (fallback if name and name in text.lower() else [])
    return sorted(pool, key=lambda f: -len(attr_words & words(f.sentence)))


def unit_key(unit: str) -> str:
    """A unit as compared between sources: its canonical spelling ('N.m', 'n·m' and 'Nm' agree)."""
    return canonical_unit(unit)


def prefer_authority(candidates: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Candidates (most relevant first; ``value``, ``unit``, ``authority``, ``doc_id``) reordered, and conflicts.

    The first candidate fixes what is measured (its unit). Among the candidates in that unit, the one
    from the most authoritative source leads (ties keep relevance order). A conflict is a figure in
    that unit from another document whose value the leading document does not state anywhere (so a
    second quantity both give, such as a seating torque beside a final torque, is not one), once per
    document and value. The other candidates keep their order after the leader.
    """
    if not candidates:
        return [], []
    key = unit_key(candidates[0]["unit"])
    same = [c for c in candidates if unit_key(c["unit"]) == key]
    lead = max(same, key=lambda c: (c.get("authority", DEFAULT_AUTHORITY), -candidates.index(c)))
    stated = {c["value"] for c in same if c.get("doc_id") == lead.get("doc_id")}
    conflicts, seen = [], set()
    for c in same:
        if c["value"] not in stated and (c.get("doc_id"), c["value"]) not in seen:
            seen.add((c.get("doc_id"), c["value"]))
            conflicts.append(c)
    return [lead, *(c for c in candidates if c is not lead)], conflicts
