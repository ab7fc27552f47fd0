"""The offline generator: an extractive, cited answer from the best evidence units, and its revision.

Evidence is cut into units (sentences, table rows, records; headings, flattened tables and
questions are never quoted: see ``units``). Units are ranked by embedding similarity to the
question plus content-word overlap, with a strong preference for units that name what the
question is specifically about (its codes, part numbers, models, numbers: see ``focus``) and a
penalty for units about another code of the same kind; then credible, authoritative and newer
evidence, and figures when the question asks for a quantity. A superseded revision is not
quoted when a newer one was retrieved, unless the question asks for that revision. Near-duplicates
and figures contradicted by preferred evidence are skipped; for a comparison each compared
entity gets its best unit first.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from engine.reflection.focus import Focus, asks_for, code_kind, codes_in, match, missing_from, question_focus
from engine.reflection.signals import FOCUS_WEIGHT, Ask, chunk_prior, definition_bonus, question_parts, unit_bonus
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
    citations,
    compared_entities,
    content_words,
    figures,
    mentions,
    named_tokens,
    numbers,
    split_sentences,
    stem,
    strip_citations,
    with_citation,
    words,
)
from engine.reflection.units import QUOTABLE, readable_record, trim_record
from engine.results import Evidence, Intent, Review

NO_ANSWER = "The documents do not answer this question."


@dataclass(frozen=True)
class _Candidate:
    chunk: int
    text: str
    score: float
    vector: np.ndarray
    kind: str = "prose"
    share: float = 1.0  # how much of the question's focus the unit names (directly, by context or by title)
    rest: float = 0.0  # the score apart from similarity and word overlap with the question

    similarity: float = 0.0  # to the whole question
    overlap: float = 0.0
    direct: float = 1.0  # the share of the focus the unit names itself
    asked: bool = False  # from an older revision that the question explicitly asks about

    def rescored(self, similarity: float, overlap: float, bonus: float = 0.0) -> _Candidate:
        """The score for one part of the question (blended with the whole question).

        A later part ("what is the probable cause") is about the focus named earlier, so a unit
        that names it through its context counts as much as one that names it directly.
        """
        similarity = 0.6 * similarity + 0.4 * self.similarity
        overlap = 0.6 * overlap + 0.4 * self.overlap
        rest = self.rest + FOCUS_WEIGHT * 0.6 * (self.share - self.direct) + bonus
        return replace(self, score=0.65 * similarity + 0.35 * overlap + rest)

    def quote(self, wanted: set[str], years: frozenset[int] = frozenset()) -> str:
        """The unit with its [n] citation; a long record keeps only its fields about the question.

        With ``years`` (the question's time window), a record field labelled with another year is left
        out: "2022 kg/BH: 2,338; 2023 kg/BH: 2,288" quoted for a 2023 question keeps the 2023 field.
        """
        text = self.text
        if self.kind == "record":
            text = readable_record(trim_record(_window_fields(text, years), wanted))
        return with_citation(text, [self.chunk])


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
        self.cache = cache or VectorCache.shared(embedder, model_name=model_name)
        self.max_sentences = max_sentences
        self.min_relevance = min_relevance
        self.name = "offline-generator"

    def draft(self, question: str, evidence: Sequence[Evidence], intent: Intent) -> str:
        """An extractive answer: the best evidence units, each ending with its [n] citation."""
        if not evidence:
            return NO_ANSWER
        parts = question_parts(question)
        index = EvidenceIndex(evidence, self.cache, extra=[question, *parts])
        focus = question_focus(question, intent)
        candidates = self._rank(question, index, intent, focus)
        if not candidates or candidates[0].score < self.min_relevance:
            return NO_ANSWER
        if not any(c.share > 0 for c in candidates):
            focus = Focus(numbers=focus.numbers)  # nothing names it: rank without it, and let the review decide
        chosen: list[_Candidate] = []
        for part in parts:  # "what does X mean, what is the cause and what is the action": one unit for each
            self._answer_part(part, candidates, chosen, index, focus)
        entities = compared_entities(intent)
        for entity in entities:
            others = [e for e in entities if e != entity]
            own = [c for c in candidates if _mentions(c, entity, index)]
            alone = next((c for c in own if not any(mentions(c.text, o) for o in others)), None)
            found = alone if alone is not None and alone.score >= own[0].score - 0.15 else (own[0] if own else None)
            if found is not None:
                self._add(found, chosen, index, force=True)
        for token in list(focus.codes) + list(focus.phrases):
            if chosen and not missing_from(Focus((token,)) if token in focus.codes else Focus((), (token,)),
                                           " ".join(c.text for c in chosen), _titles(index, chosen)):
                continue
            found = next((c for c in candidates if _names(c, token, focus, index)), None)
            if found is not None and found.score >= self.min_relevance:
                self._add(found, chosen, index)
        floor = max(self.min_relevance, 0.6 * candidates[0].score)
        for candidate in candidates:
            if len(chosen) >= self.max_sentences:
                break
            if candidate.score >= floor and (not focus or candidate.share > 0):
                self._add(candidate, chosen, index)
        wanted = set(content_words(question))
        body = [c.quote(wanted, _window_years(intent)) for c in chosen]
        return " ".join(self._lead(question, evidence, intent, body) + body) or NO_ANSWER

    def _lead(self, question: str, evidence: Sequence[Evidence], intent: Intent, body: list[str]) -> list[str]:
        """The asked value first (with its subject and citation), then the sentence it stands in if not chosen."""
        from engine.answerability import AnswerabilityEvaluator
        from engine.answerability.evaluator import fuzzy_in
        from engine.answerability.lead import lead_sentence, side_leads

        judged = AnswerabilityEvaluator(self.cache).run(question, intent, evidence)
        span = judged.span
        if span is None or judged.verdict == "unanswerable":
            return []
        title = evidence[span.evidence - 1].metadata.title
        about = tuple(x for x in judged.focus.subjects if mentions(span.sentence, x) or mentions(title, x))
        about = about or judged.focus.subjects[:1]  # the value is said of the subject its sentence names, only
        period = (intent.constraints.time.text or "") if intent.constraints.time else ""
        if judged.sides:  # "... of the A320 and the B737": one value per side, each said of its own side
            return side_leads(question, judged.sides, judged.focus.attribute, period)
        if span.value and span.value not in span.sentence and span.quotable:
            # the value is its section's ("## [0.10.0]" over "Remove support for Python 3.7"): said with the entry
            entry = with_citation(readable_record(span.sentence), [span.evidence])
            body[:] = [b for b in body if strip_citations(b) != strip_citations(entry)]
            return [f"{span.value}: {entry}"]
        # the lead restates only the asked words its evidence uses: "when was 0.11.0 released" against the changelog
        # heading "[0.11.0] - 2024-03-07" says "0.11.0: 2024-03-07", not a "release" the document never states
        used = {stem(w) for w in words(f"{title} {evidence[span.evidence - 1].text}")}
        asked = tuple(w for w in judged.focus.attribute if fuzzy_in(stem(w), used))  # as the reviewer reads it
        out = [lead_sentence(question, span, about, asked, period)] if span.value else []
        if not span.quotable:
            return out  # a heading or flattened table: the cited value says it, quoting the cells would not
        source = with_citation(readable_record(span.sentence), [span.evidence])
        if not any(strip_citations(source) == strip_citations(b) for b in body):
            out.append(source)
        elif not span.value:
            body.remove(next(b for b in body if strip_citations(source) == strip_citations(b)))
            out.append(source)  # the best sentence leads
        return out

    def revise(self, question: str, evidence: Sequence[Evidence], answer: str, review: Review) -> str:
        """Apply ``review``: corrections, drop unsupported sentences, re-cite to supporting evidence.

        Absolute wording flagged as overconfident is kept as written (a correction quoting the
        evidence may replace it): rewording it into a hedge would change what the answer says.

        Sentences about another code than the one asked are dropped, and when the answer does
        not name what the question is about, the best units that do are added.
        """
        index = EvidenceIndex(evidence, self.cache, extra=[question]) if evidence else None
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
            out.append(fixed)
        if index is not None:
            out = self._refocus(question, index, out)
        return " ".join(out) or NO_ANSWER

    def _refocus(self, question: str, index: EvidenceIndex, sentences: list[str]) -> list[str]:
        """``sentences`` without those about other codes, plus units that name what the answer misses."""
        focus = question_focus(question)
        if not focus:
            return sentences
        kept = [s for s in sentences if not match(focus, strip_citations(s), _cited_titles(index, s)).off_topic]
        missing = missing_from(focus, " ".join(kept), [_cited_titles(index, s) for s in kept])
        if not missing:
            return kept
        candidates = self._rank(question, index, Intent(action="unknown", raw_query=question), focus)
        wanted = set(content_words(question))
        for token in missing:
            single = Focus((token,)) if token in focus.codes else Focus((), (token,))
            found = next((c for c in candidates if not match(single, c.text, _title(index, c)).missing), None)
            if found is not None:
                sentence = found.quote(wanted)
                if sentence not in kept:
                    kept.append(sentence)
        return kept

    def _rank(self, question: str, index: EvidenceIndex, intent: Intent, focus: Focus) -> list[_Candidate]:
        ask = Ask.of(question, intent, focus)
        q_vector = self.cache.encode([question])[0]
        dates = sorted({c.evidence.metadata.update_date for c in index.chunks if c.evidence.metadata.update_date})
        ranked: list[_Candidate] = []
        for chunk in index.chunks:
            meta = chunk.evidence.metadata
            newer = newer_revision(index, chunk.number)
            asked = newer is not None and asks_for(question, meta, intent, index.chunk(newer).evidence.metadata.update_date)
            if newer is not None and not asked:
                continue  # a newer revision of this document was retrieved, and the question does not ask for this one
            recency = (dates.index(meta.update_date) / max(len(dates) - 1, 1)) if meta.update_date in dates else 0.0
            prior = chunk_prior(chunk.evidence.credibility, meta, recency, intent) + (0.1 if asked else 0.0)
            sims = chunk.vectors @ q_vector
            context = ""  # the last unit in this chunk that names a code of an asked kind
            for position, (text, kind) in enumerate(zip(chunk.sentences, chunk.kinds)):
                if focus.kinds & {code_kind(c) for c in codes_in(text)}:
                    context = text
                if kind not in QUOTABLE or len(text.split()) < 4 or not content_words(text):
                    continue
                overlap = len(set(content_words(text)) & ask.words) / len(ask.words) if ask.words else 0.0
                bonus, share, direct = unit_bonus(ask, text, kind, f"{context} | {meta.title}", overlap)
                score = 0.65 * float(sims[position]) + 0.35 * overlap + prior + bonus
                ranked.append(_Candidate(chunk.number, text, score, chunk.vectors[position], kind, share,
                                         prior + bonus, float(sims[position]), overlap, direct, asked))
        ranked.sort(key=lambda c: (-c.score, c.chunk))
        return ranked

    def _answer_part(self, part: str, candidates: list[_Candidate], chosen: list[_Candidate], index: EvidenceIndex,
                     focus: Focus) -> None:
        """Add the best unit for one part of the question, unless a chosen unit already is the best."""
        if len(chosen) >= max(self.max_sentences, 4):
            return
        ranked = [c for c in self._rescore(candidates, part, focus) if not focus or c.share > 0]
        for best in ranked[:5]:
            if best.score < self.min_relevance:
                return
            if any(c.chunk == best.chunk and c.text == best.text for c in chosen):
                return
            before = len(chosen)
            self._add(next(c for c in candidates if c.text == best.text and c.chunk == best.chunk), chosen, index)
            if len(chosen) > before:
                return

    def _rescore(self, candidates: list[_Candidate], part: str, focus: Focus) -> list[_Candidate]:
        """``candidates`` ranked for one part of the question."""
        vector = self.cache.encode([part])[0]
        wanted = set(content_words(part))
        rescored = [c.rescored(float(c.vector @ vector), len(set(content_words(c.text)) & wanted) / len(wanted)
                               if wanted else 0.0, definition_bonus(part, focus, c.text)) for c in candidates]
        return sorted(rescored, key=lambda c: (-c.score, c.chunk))

    def _add(self, candidate: _Candidate, chosen: list[_Candidate], index: EvidenceIndex, force: bool = False) -> None:
        """Add ``candidate`` unless it repeats a chosen sentence or is contradicted by preferred evidence."""
        for position, other in enumerate(chosen):
            if other.text == candidate.text or _repeats(candidate, other):
                return
            if _contradicts(index, candidate, other):
                if candidate.asked != other.asked:
                    wins = candidate.asked  # the revision the question asks about
                else:
                    wins = preferred(index, other.chunk, candidate.chunk)
                if wins:
                    chosen[position] = candidate
                return
        if force or candidate.asked:
            chosen.append(candidate)  # an asked revision's figures are what the question wants, newer or not
            return
        found = figures(candidate.text)
        single = [f for f in found if f.unit and sum(g.unit == f.unit for g in found) == 1]  # a claim of one value
        if any(find_conflict(index, f, candidate.chunk, candidate.vector) for f in single):
            return
        chosen.append(candidate)


def _window_years(intent: Intent) -> frozenset[int]:
    """The years of the question's time window (empty without one, or when it spans more than a decade)."""
    window = intent.constraints.time
    if window is None or window.start is None or window.end is None or window.end.year - window.start.year > 10:
        return frozenset()
    return frozenset(range(window.start.year, window.end.year + 1))


def _window_fields(record: str, years: frozenset[int]) -> str:
    """``record`` without the fields whose label names only years outside ``years``."""
    if not years:
        return record
    kept = []
    for field in record.rstrip(".").split(";"):
        label = field.split(":", 1)[0]
        named = {int(y) for y in re.findall(r"(?<!\d)(?:19|20)\d{2}(?!\d)", label)}
        if not named or named & years:
            kept.append(field.strip())
    return "; ".join(kept) if kept else record


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


def _names(candidate: _Candidate, token: str, focus: Focus, index: EvidenceIndex) -> bool:
    single = Focus((token,)) if token in focus.codes else Focus((), (token,))
    return not match(single, candidate.text, _title(index, candidate)).missing


def _title(index: EvidenceIndex, candidate: _Candidate) -> str:
    return index.chunk(candidate.chunk).evidence.metadata.title


def _titles(index: EvidenceIndex, chosen: list[_Candidate]) -> list[str]:
    return [_title(index, c) for c in chosen]


def _cited_titles(index: EvidenceIndex, sentence: str) -> str:
    return " ".join(index.chunk(n).evidence.metadata.title for n in citations(sentence) if 1 <= n <= len(index))


def _mentions(candidate: _Candidate, entity: str, index: EvidenceIndex) -> bool:
    return mentions(candidate.text, entity) or mentions(index.chunk(candidate.chunk).evidence.metadata.title, entity)


def _about(location: str, sentence: str) -> bool:
    """True when an issue's location points at ``sentence``."""
    if not location:
        return False
    a, b = strip_citations(location).strip().lower(), strip_citations(sentence).strip().lower()
    return bool(a) and (a == b or a in b or (len(a) > 20 and b in a))

