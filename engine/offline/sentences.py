"""Evidence sentences for the answer reader: every readable sentence of the evidence, scored by how likely it is to
hold the answer (the packaged sentence model over ``sentence_features``), with the sentences that are never
evidence left out (``planted``: questions, requests, instructions, tool syntax).

The reader (``engine.offline.reader``) parses the best of them for candidates; the generator and the reviewer read
the same ranking.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache

from engine.language.codes import VERSION, codes_in, names
from engine.language.layout import evidence_units, is_read
from engine.language.names import MONTHS
from engine.language.quantities import YEAR
from engine.language.question import QuestionReading
from engine.language.tokens import STOP_WORDS, normalise_phrase, stem, words
from engine.periods import about, asked_period, in_force
from engine.results import Evidence, Intent


@dataclass(frozen=True)
class Sentence:
    """One evidence sentence: its text, its evidence number [n], its fit to the question and its rank."""

    text: str
    evidence: int
    kind: str
    similarity: float
    overlap: float
    rank: int = 0
    heading: str = ""
    features: Mapping[str, float] = field(default_factory=dict, repr=False, compare=False)
    score: float = 0.0

    @property
    def states(self) -> bool:
        """Whether the unit says something of a subject: a heading is read for the values it carries (a release's
        date), but names a section and states nothing of what is compared."""
        return self.kind != "heading"



def rank_sentences(reading: QuestionReading, evidence: Sequence[Evidence], vectors,
                   intent: Intent | None = None) -> list[Sentence]:
    """Every readable sentence of ``evidence`` that may answer, most likely to hold the answer first (the packaged
    sentence model over ``sentence_features``; similarity plus shared words when it is not fitted yet).

    Never considered: sentences that address the reader or the model or carry tool syntax (``planted``), sentences
    about another period than the question's window, and, when the question names a code and some sentence names
    it (in the sentence, its section heading or its document title), sentences that do not: a question about fault
    E4027 is not answered by the row of E3118. ``vectors(texts)`` returns unit vectors, the question's first.
    """
    period = asked_period(intent) if intent is not None and not in_force(intent.constraints.time) else None
    rows: list[tuple[str, int, str, str, int]] = []
    every: dict[str, None] = {}  # every unit's text, read once, for the one embedding call below
    for number, item in enumerate(evidence, start=1):
        outline: list[str] = []  # the headings in force, outermost first
        position = 0
        for unit in evidence_units(item.text):
            every[unit.text] = None
            if unit.kind == "heading":
                outline = _outline(outline, unit.text)
            if is_read(unit) and not planted(unit.text):
                heading = " ".join(outline) if unit.kind != "heading" else ""
                if period is None or about(item, period, unit.text) is not False:
                    rows.append((unit.text, number, unit.kind, heading, position))
                position += 1
    if not rows:
        return []
    # every unit is embedded in one call (the reviewer reads the same units from the cache), then filtered
    kept = {r[0] for r in rows}
    others = [text for text in every if text not in kept]
    matrix = vectors([reading.text] + [r[0] for r in rows] + others)[: len(rows) + 1]
    sims = list(matrix[1:] @ matrix[0])
    codes = [s for s in reading.subjects if codes_in(s) or VERSION.fullmatch(s)]
    if codes:
        naming = [n for n, r in enumerate(rows)
                  if any(names(f"{r[0]} {r[3]} {evidence[r[1] - 1].metadata.title}", c) for c in codes)]
        if naming:
            rows, sims = [rows[n] for n in naming], [sims[n] for n in naming]
    asked = question_stems(reading)
    subject_keys = [normalise_phrase(s) for s in reading.subjects]
    top_score = max((e.score for e in evidence), default=1.0) or 1.0
    linked = _linked(evidence)
    model = _sentence_model()
    scored = []
    for (text, number, kind, heading, position), sim in zip(rows, sims):
        own = {stem(w) for w in words(text)}
        overlap = len(asked & own) / len(asked) if asked else 0.0
        features = sentence_features(reading, text, kind, float(sim), overlap, position, number,
                                     max(evidence[number - 1].score, 0.0) / top_score, subject_keys,
                                     normalise_phrase(evidence[number - 1].metadata.title), linked.get(number, 0))
        score = model.logit(features) if model is not None else float(sim) + 0.5 * overlap
        scored.append(Sentence(text, number, kind, float(sim), overlap, heading=heading, features=features,
                               score=score))
    scored.sort(key=lambda s: (-s.score, s.evidence))
    return [replace(s, rank=rank) for rank, s in enumerate(scored)]


def _outline(outline: list[str], heading: str) -> list[str]:
    """The headings in force after ``heading``. Flattened text keeps no heading levels, so a heading that carries a
    number (a section number, a version, a date: "[2.1.0] - 2025-03-01", "4.2 Torque values") opens a section and
    one without ("Added", "Notes") a part of the numbered section it stands in: a sentence under "[2.1.0] - ...
    Added" is about release 2.1.0, and a question naming 2.1.0 keeps it."""
    numbered = any(ch.isdigit() for ch in heading)
    kept = [] if numbered else [h for h in outline if any(ch.isdigit() for ch in h)][-1:]
    return kept + [heading]


_TYPE_CUES = {
    "date": lambda t: bool(YEAR.search(t)) or any(m in t.lower() for m in MONTHS),
    "number": lambda t: any(ch.isdigit() for ch in t),
    "quantity": lambda t: any(ch.isdigit() for ch in t),
    "money": lambda t: any(ch in t for ch in "$€£¥") or "dollar" in t.lower(),
    "percent": lambda t: "%" in t or "percent" in t.lower(),
}


def sentence_features(reading: QuestionReading, text: str, kind: str, similarity: float, overlap: float,
                      position: int, number: int, evidence_score: float, subject_keys: Sequence[str],
                      title: str, linked: int = 0) -> dict[str, float]:
    """What says a sentence may hold the answer: its fit to the question, its place and its evidence's rank, and
    whether it holds something of the expected kind (a year for "when", a figure for "how many")."""
    body = f" {normalise_phrase(text)} "
    named = sum(1 for k in subject_keys if k and f" {k} " in body) / len(subject_keys) if subject_keys else 0.0
    titled = sum(1 for k in subject_keys if k and f" {k} " in f" {title} ") / len(subject_keys) if subject_keys else 0.0
    cue = _TYPE_CUES.get(reading.answer_type)
    capitals = sum(1 for w in text.split()[1:] if w[:1].isupper())
    return {
        "similarity": similarity,
        "overlap": overlap,
        "subject": named,
        "title_subject": titled,
        "first": float(position == 0),
        "position_log": math.log1p(position),
        "evidence_rank_inv": 1.0 / number,
        "evidence_score": evidence_score,
        "words_log": math.log1p(len(text.split())),
        "typed": float(cue(text)) if cue else 0.0,
        "capitals_log": math.log1p(capitals),
        "linked": float(linked > 0),
        "linked_from_top": float(0 < linked <= 3),
        f"unit={kind}": 1.0,
        f"type={reading.answer_type}|capitals": min(capitals, 4) / 4,
        f"type={reading.answer_type}|typed": float(cue(text)) if cue else 0.0,
    }


@lru_cache(maxsize=8192)
def planted(sentence: str) -> bool:
    """A sentence that is never answer evidence: it addresses the reader, the model or the reviewer, carries
    instructions or tool-call syntax (see ``engine.reflection.injection``), or asks rather than states (a question,
    or a request such as "could you make sure the figure quoted is ...?", asserts no value)."""
    from engine.reflection.injection import borrowed_syntax, find_instructions

    return (sentence.rstrip(" \t\"'’”)]").endswith("?") or borrowed_syntax(sentence) in ("tool syntax", "markup")
            or bool(find_instructions(sentence)))


BRIDGE_MIN_CHARS = 4
"""Shorter titles are too generic to link two documents."""


def bridges(evidence: Sequence[Evidence]) -> dict[int, int]:
    """[n] -> [m] for evidence reached by a hop from another evidence passage: through a name the entity graph
    followed (``Evidence.hop``), or a title the link hop followed (``scores["linked_from"]``)."""
    number = {e.chunk_id: m for m, e in enumerate(evidence, start=1)}
    out: dict[int, int] = {}
    for n, item in enumerate(evidence, start=1):
        source = number.get(item.hop.from_chunk) if item.hop is not None and item.hop.from_chunk else None
        if source is None and "linked_from" in item.scores:
            source = int(item.scores["linked_from"])
        if source is not None and source != n and 1 <= source <= len(evidence):
            out[n] = source
    return out


def _linked(evidence: Sequence[Evidence]) -> dict[int, int]:
    """Evidence one hop away: its document's title is named in another document's retrieved text. Maps [n] to the
    best-ranked [m] that names it ("... based on the life of James Stockdale" links the page titled "James
    Stockdale"), the second passage of a two-step question. Evidence the entity graph reached through a name in
    another passage among the evidence is linked to that passage (``Evidence.hop``)."""
    out: dict[int, int] = bridges(evidence)
    texts = [(m, normalise_phrase(e.text), normalise_phrase(e.metadata.title)) for m, e in enumerate(evidence, 1)]
    for n, item in enumerate(evidence, start=1):
        if n in out:
            continue
        title = normalise_phrase(item.metadata.title)
        if len(title) < BRIDGE_MIN_CHARS:
            continue
        for m, text, other_title in texts:
            if m != n and other_title != title and f" {title} " in f" {text} ":
                out[n] = m
                break
    return out


def _sentence_model():
    from engine.errors import ConfigError
    from engine.offline.model import packaged

    try:
        return packaged("sentences")
    except ConfigError:
        return None


def question_stems(reading: QuestionReading) -> frozenset[str]:
    return frozenset(stem(w) for w in words(reading.text) if w not in STOP_WORDS and len(w) > 1)
