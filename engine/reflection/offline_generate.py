"""The offline generator: an extractive, cited answer from the best evidence sentences, and its revision.

Sentences are ranked by embedding similarity to the question plus content-word overlap, with a
preference for credible, authoritative and newer evidence (and for figures when the question asks
for a quantity). Near-duplicates and figures contradicted by preferred evidence are skipped; for a
comparison each compared entity gets its best sentence first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from engine.reflection.support import (
    CONFLICT_SIMILARITY,
    Embedder,
    EvidenceIndex,
    VectorCache,
    find_conflict,
    newer_revision,
    preferred,
    same_subject,
    subjects,
)
from engine.reflection.text import (
    compared_entities,
    content_words,
    mentions,
    named_tokens,
    numbers,
    figures,
    soften,
    split_sentences,
    strip_citations,
    with_citation,
)
from engine.results import Evidence, Intent, Review

NO_ANSWER = "The documents do not answer this question."
_QUANTITY = re.compile(r"\b(how (?:much|many|long|often|far|high|low)|what (?:is|are) the (?:limit|value|torque|"
                       r"pressure|interval|quantity|rate|amount)|minimum|maximum|average|percent|rate)\b", re.I)
_MARKUP = re.compile(r"^[\s#>*|•-]+|[\s|]+$")
_EMPHASIS = re.compile(r"\*\*|__|`")
_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I've|we|we're|my|our|us)\b", re.IGNORECASE)
_TABLE_RULE = re.compile(r"\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)+\|?")
MAX_SENTENCE_CHARS = 280


@dataclass(frozen=True)
class _Candidate:
    chunk: int
    text: str
    score: float
    vector: np.ndarray


class OfflineGenerator:
    """Composes and revises extractive answers with [n] citations, without a model call."""

    def __init__(
        self,
        embedder: Embedder | None = None,
        *,
        model_name: str | None = None,
        max_sentences: int = 3,
        min_relevance: float = 0.25,
        cache: VectorCache | None = None,
    ) -> None:
        if max_sentences < 1:
            raise ValueError("max_sentences must be at least 1")
        if not 0 <= min_relevance < 1:
            raise ValueError("min_relevance must be in [0, 1)")
        if embedder is not None and not callable(getattr(embedder, "encode", None)):
            raise TypeError("embedder must have an encode(texts) method returning normalised vectors")
        self.cache = cache or VectorCache(embedder, model_name=model_name)
        self.max_sentences = max_sentences
        self.min_relevance = min_relevance
        self.name = "offline-generator"

    def draft(self, question: str, evidence: Sequence[Evidence], intent: Intent) -> str:
        """An extractive answer: the best evidence sentences, each ending with its [n] citation."""
        if not evidence:
            return NO_ANSWER
        index = EvidenceIndex(evidence, self.cache)
        candidates = self._rank(question, index, intent)
        if not candidates or candidates[0].score < self.min_relevance:
            return NO_ANSWER
        chosen: list[_Candidate] = []
        for entity in compared_entities(intent):
            match = next((c for c in candidates if _mentions(c, entity, index)), None)
            if match is not None:
                self._add(match, chosen, index, force=True)
        floor = max(self.min_relevance, 0.6 * candidates[0].score)
        for candidate in candidates:
            if len(chosen) >= self.max_sentences:
                break
            if candidate.score >= floor:
                self._add(candidate, chosen, index)
        return " ".join(with_citation(c.text, [c.chunk]) for c in chosen)

    def revise(self, question: str, evidence: Sequence[Evidence], answer: str, review: Review) -> str:
        """Apply ``review``: corrections, drop unsupported sentences, soften wording, re-cite to supporting evidence."""
        index = EvidenceIndex(evidence, self.cache) if evidence else None
        out: list[str] = []
        for sentence in split_sentences(answer):
            fixed = sentence
            for correction in review.corrections:
                if correction.original and correction.original in fixed:
                    fixed = fixed.replace(correction.original, correction.corrected)
            kinds = {i.type for i in review.issues if _about(i.location, sentence)}
            corrected = fixed != sentence
            if kinds & {"fact", "logic"} and not corrected:
                continue  # unsupported: drop it
            if "citation" in kinds and not corrected:
                if index is None:
                    continue
                best = index.best_single(strip_citations(fixed), current_only=True)
                if not best.supported:
                    continue
                fixed = with_citation(fixed, [best.chunk])
            if "overconfidence" in kinds:
                fixed = soften(fixed)
            out.append(fixed)
        return " ".join(out) or NO_ANSWER

    def _rank(self, question: str, index: EvidenceIndex, intent: Intent) -> list[_Candidate]:
        wanted = set(content_words(question))
        quantity = intent.constraints.quantitative is not None or bool(_QUANTITY.search(question))
        q_vector = self.cache.encode([question])[0]
        dates = sorted({c.evidence.metadata.update_date for c in index.chunks if c.evidence.metadata.update_date})
        pieces: list[tuple[int, str, float]] = []  # (chunk, text, prior)
        for chunk in index.chunks:
            if newer_revision(index, chunk.number) is not None:
                continue  # a newer revision of this document was retrieved
            meta = chunk.evidence.metadata
            recency = (dates.index(meta.update_date) / max(len(dates) - 1, 1)) if meta.update_date in dates else 0.0
            prior = (0.12 * min(max(chunk.evidence.credibility, 0.0), 1.0) + 0.04 * (meta.authority - 1) / 4
                     + 0.04 * recency)
            for raw in chunk.sentences:
                for piece in _pieces(_clean(raw)):
                    if len(piece.split()) >= 4 and content_words(piece) and "?" not in piece:
                        pieces.append((chunk.number, piece, prior))
        vectors = self.cache.encode([text for _, text, _ in pieces]) if pieces else []
        ranked: list[_Candidate] = []
        for (number, text, prior), vector in zip(pieces, vectors):
            mine = set(content_words(text))
            overlap = len(mine & wanted) / len(wanted) if wanted else 0.0
            bonus = 0.08 if quantity and figures(text) else 0.0
            bonus -= (0.2 if _FIRST_PERSON.search(text) else 0.0) + (0.1 if _shouting(text) else 0.0)
            score = 0.65 * float(vector @ q_vector) + 0.35 * overlap + prior + bonus
            ranked.append(_Candidate(number, text, score, vector))
        ranked.sort(key=lambda c: (-c.score, c.chunk))
        return ranked

    def _add(self, candidate: _Candidate, chosen: list[_Candidate], index: EvidenceIndex, force: bool = False) -> None:
        """Add ``candidate`` unless it repeats a chosen sentence or is contradicted by preferred evidence."""
        for position, other in enumerate(chosen):
            if other.text == candidate.text or _repeats(candidate, other):
                return
            if _contradicts(index, candidate, other):
                if preferred(index, other.chunk, candidate.chunk):
                    chosen[position] = candidate
                return
        contradicted = any(find_conflict(index, f, candidate.chunk, candidate.vector) for f in figures(candidate.text))
        if contradicted and not force:
            return
        chosen.append(candidate)


def _repeats(candidate: _Candidate, other: _Candidate) -> bool:
    """Near-duplicate: very similar meaning and no figure or name that ``other`` lacks."""
    if float(other.vector @ candidate.vector) <= 0.92:
        return False
    new_facts = (numbers(candidate.text) - numbers(other.text)) | (
        named_tokens(candidate.text, capitalised=False) - named_tokens(other.text, capitalised=False))
    return not new_facts


def _contradicts(index: EvidenceIndex, a: _Candidate, b: _Candidate) -> bool:
    """Same quantity (unit, similar sentence, same subject), different value."""
    if float(a.vector @ b.vector) < CONFLICT_SIMILARITY:
        return False
    mine = subjects(a.text, index.chunk(a.chunk).evidence.metadata.title)
    if not same_subject(mine, subjects(b.text, index.chunk(b.chunk).evidence.metadata.title)):
        return False
    return any(fa.unit and fa.unit == fb.unit and fa.value != fb.value
               for fa in figures(a.text) for fb in figures(b.text))


def _shouting(text: str) -> bool:
    """Mostly capital letters: a page header or banner rather than a statement."""
    letters = [ch for ch in text if ch.isalpha()]
    return len(letters) >= 12 and sum(ch.isupper() for ch in letters) / len(letters) > 0.6


def _clean(sentence: str) -> str:
    """Evidence text made readable: no markdown emphasis, table rules or leading list markers."""
    text = _TABLE_RULE.sub(" ", _EMPHASIS.sub("", strip_citations(sentence)))
    return re.sub(r"\s+", " ", _MARKUP.sub("", text)).strip()


def _pieces(text: str, limit: int = MAX_SENTENCE_CHARS) -> list[str]:
    """``text`` as it is when short; a long run-on (tables, lists) cut at ';' / '|' into parts up to ``limit``."""
    if len(text) <= limit:
        return [text] if text else []
    parts = [p.strip() for p in re.split(r"(?<=;)\s+|\s+\|\s+|\s+-\s+(?=[A-Z])", text) if p.strip()]
    out: list[str] = []
    for part in parts:
        if out and len(out[-1]) + len(part) + 1 <= limit:
            out[-1] = f"{out[-1]} {part}"
        elif len(part) <= limit:
            out.append(part)
        else:
            out.append(part[: part.rfind(" ", 0, limit)].rstrip(" ,;:") if " " in part[:limit] else part[:limit])
    return [p.rstrip(";").strip() for p in out if p.strip()]


def _mentions(candidate: _Candidate, entity: str, index: EvidenceIndex) -> bool:
    return mentions(candidate.text, entity) or mentions(index.chunk(candidate.chunk).evidence.metadata.title, entity)


def _about(location: str, sentence: str) -> bool:
    """True when an issue's location points at ``sentence``."""
    if not location:
        return False
    a, b = strip_citations(location).strip().lower(), strip_citations(sentence).strip().lower()
    return bool(a) and (a == b or a in b or (len(a) > 20 and b in a))

