"""Answerability from the reader: does the evidence answer the question, with which value, and how sure is it?

The question is read (``engine.language.question``), the evidence sentences ranked, candidates found and scored by
the learned ranker (``engine.offline.reader``); the selector (``engine.offline.selector``) turns the best
candidate's score and the evidence signals into P(the answer is right), and the question is answered only when P
reaches the threshold for the target answered accuracy. The reason shown is built from what was measured, so it
never claims more than the evidence shows.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import date

import numpy as np

from engine.language.question import VALUE_TYPES, QuestionReading, read_question
from engine.offline.conflicts import current_only, resolve
from engine.offline.model import packaged
from engine.offline.reader import Candidate, candidates
from engine.offline.sentences import rank_sentences
from engine.offline.selector import Selector, default_passage, default_selector, selector_features
from engine.offline.signals import found_subjects, names_subject, question_signals
from engine.periods import in_force
from engine.validation.comparison import compared_entities
from engine.results import AnswerCandidate, AnswerFocus, Answerability, AnswerSpan, Evidence, Intent
from engine.units import with_equivalent

CLOSEST = 3
"""Documents listed with a refusal."""
SHOWN_CANDIDATES = 5
"""Candidates kept in the result for the Ask page."""


class ReaderAnswerability:
    """The offline answerability stage: ``run(question, intent, evidence)`` -> :class:`Answerability`."""

    name = "reader"

    def __init__(self, cache=None, *, model_name: str | None = None, selector: Selector | None = None,
                 accuracy: float | None = None, today=date.today, passage: Selector | None = None) -> None:
        if accuracy is not None and not 0 <= accuracy < 1:
            raise ValueError("accuracy must be a target answered accuracy from 0 up to 1, e.g. 0.8 (0: best guesses)")
        if cache is None:
            from engine.embeddings import VectorCache

            cache = VectorCache.shared(model_name=model_name)
        self.cache = cache
        self.selector = selector or default_selector()
        self.passage = passage or default_passage()
        self.accuracy = accuracy
        self.today = today

    def prepare(self, question: str) -> None:
        """Read the question ahead (the pipeline calls this while retrieval waits on the store)."""
        from engine.language import nlp

        nlp.parse_ahead([" ".join(question.split())])

    def run(self, question: str, intent: Intent, evidence: Sequence[Evidence],
            known_vectors: Mapping[str, np.ndarray] | None = None, *, accuracy: float | None = None,
            selector: Selector | None = None) -> Answerability:
        """The verdict for ``question`` over ``evidence`` (numbered [1]..[n] in this order)."""
        if known_vectors:
            self.cache.remember(known_vectors)
        reading = read_question(" ".join(question.split()), tuple(e.text for e in intent.entities))
        selector = selector or self.selector
        target = accuracy if accuracy is not None else self.accuracy
        threshold = selector.threshold_for(target)
        focus = AnswerFocus(answer_type=reading.answer_type, subjects=reading.subjects, attribute=reading.attribute)
        base = {"focus": focus, "threshold": round(threshold, 4), "selector": selector.name,
                "target_accuracy": target}
        if not evidence:
            return Answerability(verdict="unanswerable", reason="No evidence was retrieved for this question.",
                                 signals={"evidence": 0.0}, **base)
        sentences = rank_sentences(reading, evidence, self.cache.encode, intent)
        ranked = current_only(rank(candidates(reading, evidence, sentences, today=self.today())), evidence,
                              question, intent)
        if pinned(reading, intent):  # a named revision or a past period: older sources are what is asked
            conflicts = []
        else:
            ranked, conflicts = resolve(ranked, evidence, lambda c: _sigmoid(c.score), named=bool(reading.subjects))
        signals = question_signals(reading, evidence, sentences)
        closest = tuple(dict.fromkeys(evidence[s.evidence - 1].metadata.title for s in sentences))[:CLOSEST]
        shown = tuple(AnswerCandidate(value=said(c), probability=round(_sigmoid(c.score), 4),
                                      evidence=c.sentence.evidence, sentence=c.sentence.text)
                      for c in _distinct(ranked)[:SHOWN_CANDIDATES])
        base.update(signals=signals, closest=closest, candidates=shown,
                    best_evidence=tuple(dict.fromkeys(evidence[s.evidence - 1].chunk_id for s in sentences[:3])))
        entities = compared_entities(intent)
        if len(entities) >= 2:  # "compare A and B on X": one lookup per side, each decided by the selector
            return self._compare(reading, entities, evidence, sentences, ranked, selector, threshold, target, base)
        features = selector_features(reading, signals, ranked)
        p = selector.probability(features)
        _, missing = found_subjects(reading, evidence)
        best = ranked[0] if ranked else None
        span = _span(best, reading, evidence) if best is not None else None
        signals = {**signals, "confidence": round(p, 4), "threshold": round(threshold, 4)}
        disputed = tuple(AnswerCandidate(value=said(c.rival), probability=round(_sigmoid(c.rival.score), 4),
                                         evidence=c.rival.sentence.evidence, sentence=c.rival.sentence.text,
                                         note=c.preferred_because) for c in conflicts)
        base.update(signals=signals, confidence=round(p, 4), span=span, conflicts=disputed, missing=tuple(missing),
                    features={k: round(v, 5) for k, v in features.items()})
        if best is not None and p >= threshold and not (threshold <= 0 and missing):  # a guess needs its subjects
            even = [c for c in disputed if not c.note]
            if even:  # sources of equal standing disagree: answer with both, as a caveat
                others = "; ".join(f"[{c.evidence}] gives '{c.value}'" for c in even)
                return Answerability(verdict="ambiguous", reason=f"The sources disagree: [{best.sentence.evidence}] "
                                     f"gives '{said(best)}'; {others}.", **base)
            return Answerability(verdict="answerable", reason=_yes(best, p, threshold, target), **base)
        if best is not None and reading.wants_value and self.passage is not None:
            # not sure of the value itself: answer with the sentence that holds it, when that is sure enough
            q, bar = self.passage.probability(features), self.passage.threshold_for(target)
            signals = {**signals, "passage_confidence": round(q, 4), "passage_threshold": round(bar, 4)}
            base.update(signals=signals)
            if q >= bar and not [c for c in disputed if not c.note]:
                base.update(span=span.model_copy(update={"value": ""}), confidence=round(q, 4), threshold=round(bar, 4))
                return Answerability(verdict="answerable", reason=(
                    f"Evidence [{best.sentence.evidence}] holds the answer in the sentence quoted "
                    f"({_sure(q, bar, target)} that the sentence holds it; the value alone, '{said(best)}', "
                    f"is less sure: {p:.0%}), so the answer quotes the sentence."), **base)
        return Answerability(verdict="unanswerable", reason=_no(best, p, threshold, target, missing, reading), **base)


    def _compare(self, reading: QuestionReading, entities: Sequence[str], evidence: Sequence[Evidence],
                 sentences, ranked: list[Candidate], selector: Selector, threshold: float, target: float | None,
                 base: dict) -> Answerability:
        """One value per compared side, each from a sentence naming that side (not the others, when one does),
        each decided by the selector as a question about that side alone; answered only when every side is."""
        sides, probabilities, missing = [], [], []
        for entity in entities:
            others = [e for e in entities if e != entity]
            own = [c for c in ranked if c.sentence.states and names_subject(
                f"{c.sentence.text} {evidence[c.sentence.evidence - 1].metadata.title}", entity)]
            # sentences that name this side themselves, and not the others, first (stable: score order kept)
            own.sort(key=lambda c: (any(names_subject(c.sentence.text, o) for o in others),
                                    not names_subject(c.sentence.text, entity)))
            side = replace(reading, subjects=(entity,))
            p = selector.probability(selector_features(side, question_signals(side, evidence, sentences), own))
            probabilities.append(p)
            if not own:
                missing.append(entity)
                continue
            best = own[0]
            sides.append(AnswerSpan(value=best.text if reading.wants_value else "", sentence=best.sentence.text,
                                    evidence=best.sentence.evidence, subject=entity,
                                    chunk_id=evidence[best.sentence.evidence - 1].chunk_id))
        p = min(probabilities)
        signals = {**base["signals"], **{f"confidence[{e}]": round(q, 4) for e, q in zip(entities, probabilities)},
                   "confidence": round(p, 4), "threshold": round(threshold, 4)}
        base = {**base, "signals": signals, "confidence": round(p, 4), "sides": tuple(sides),
                "span": sides[0] if sides else base.get("span"), "missing": tuple(missing)}
        if not missing and p >= threshold:
            found = "; ".join(f"{s.subject}: '{s.value or s.sentence[:60]}' [{s.evidence}]" for s in sides)
            return Answerability(verdict="answerable", reason=f"Each side is answered: {found} "
                                 f"({_sure(p, threshold, target)} for the least sure side).", **base)
        weakest = entities[probabilities.index(p)]
        why = (f"no retrieved sentence names {', '.join(repr(m) for m in missing)}" if missing else
               f"the engine is not sure enough of the value for '{weakest}' ({_sure(p, threshold, target)})")
        return Answerability(verdict="unanswerable", reason=f"The comparison needs a value for each side, but {why}.",
                             **base)


_REVISION = re.compile(r"\b(?:rev|revision|issue|version|edition|amendment)\b\.?\s*[\w.-]+", re.IGNORECASE)


def pinned(reading: QuestionReading, intent: Intent) -> bool:
    """The question names a revision ("in Rev 10") or asks about a past period ("in 2021"): a newer source giving
    another value is then not a conflict, and the newer one is not preferred."""
    if any(_REVISION.search(s) for s in reading.subjects) or _REVISION.search(reading.text):
        return True
    time = intent.constraints.time
    return time is not None and bool(time.start or time.end) and not in_force(time)


def rank(found: Sequence[Candidate]) -> list[Candidate]:
    """``found`` scored by the packaged ranker, best first."""
    model = packaged("ranker")
    return sorted((replace(c, score=model.logit(c.features)) for c in found),
                  key=lambda c: (-c.score, c.sentence.rank, c.start))


def _distinct(ranked: Sequence[Candidate]) -> list[Candidate]:
    seen, out = set(), []
    for c in ranked:
        if c.key not in seen:
            seen.add(c.key)
            out.append(c)
    return out


def _sigmoid(z: float) -> float:
    return float(1.0 / (1.0 + np.exp(-max(min(z, 40.0), -40.0))))


def said(candidate: Candidate) -> str:
    """A candidate's value as the answer and the panel state it: with the equivalent in another unit its sentence
    gives beside it ("325 N.m (240 lbf.ft)"), so that an answer never gives a conversion alone."""
    return with_equivalent(candidate.sentence.text, candidate.text)


def _span(best: Candidate, reading: QuestionReading, evidence: Sequence[Evidence]) -> AnswerSpan:
    """The answer's lead: the value (for a question that asks for one) and the sentence it stands in."""
    value = said(best) if reading.wants_value else ""
    item = evidence[best.sentence.evidence - 1]
    return AnswerSpan(value=value, sentence=best.sentence.text, evidence=best.sentence.evidence,
                      chunk_id=item.chunk_id, quotable=best.sentence.kind in ("prose", "code"))


def _sure(p: float, threshold: float, target: float | None) -> str:
    if target == 0:
        return f"confidence {p:.0%}; best guesses are on, so every candidate is answered"
    if threshold > 1:
        return (f"confidence {p:.0%}; at a target of {target or 0.8:.0%} answered accuracy nothing is answered, since "
                "on the questions the selector was fitted on no confidence reached that accuracy")
    aim = f" for about {target or 0.8:.0%} answered accuracy" if threshold <= 1 else ""
    return f"confidence {p:.0%}; answers need {min(threshold, 1):.0%}{aim}"


def _yes(best: Candidate, p: float, threshold: float, target: float | None) -> str:
    return f"Evidence [{best.sentence.evidence}] gives '{said(best)}' ({_sure(p, threshold, target)})."


def _no(best: Candidate | None, p: float, threshold: float, target: float | None, missing: Sequence[str],
        reading: QuestionReading) -> str:
    parts = []
    if missing:
        parts.append("no retrieved document mentions " + ", ".join(repr(m) for m in missing))
    if best is None:
        parts.append(f"no sentence in the evidence holds a candidate for {reading.describe()}")
        return "; ".join(parts).capitalize() + "."
    parts.append(f"the closest candidate is '{said(best)}' in [{best.sentence.evidence}], but the engine is not sure "
                 f"enough that it answers the question ({_sure(p, threshold, target)})")
    text = "; ".join(parts)
    return text[0].upper() + text[1:] + "."


__all__ = ["ReaderAnswerability", "rank", "VALUE_TYPES"]
