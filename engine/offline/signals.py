"""Question-level signals of whether the evidence can answer a question: subjects and attribute words found, and
how well the best sentences fit. The answer selector reads them beside the ranker's scores; the Ask page shows them.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.language.codes import codes_in, names
from engine.language.question import QuestionReading
from engine.language.tokens import mentions, normalise_phrase, stem, words
from engine.offline.sentences import Sentence
from engine.results import Evidence


def found_subjects(reading: QuestionReading, evidence: Sequence[Evidence]) -> tuple[list[str], list[str]]:
    """(subjects some evidence names, in its text or title; subjects none names)."""
    bodies = [f"{e.metadata.title}\n{e.text}" for e in evidence]
    found, missing = [], []
    for subject in reading.subjects:
        if any(names_subject(body, subject) for body in bodies):
            found.append(subject)
        else:
            missing.append(subject)
    return found, missing


def names_subject(body: str, subject: str) -> bool:
    """``body`` names ``subject``: its codes, the phrase, or each of its words (by stem)."""
    if codes_in(subject):
        return all(names(body, code) for code in codes_in(subject))
    if mentions(body, subject):
        return True
    key = normalise_phrase(subject).split()  # "U.S." against "US", "the Normans" against "Norman"
    own = {stem(w) for w in words(body)}
    return bool(key) and all(stem(w) in own for w in key)


def question_signals(reading: QuestionReading, evidence: Sequence[Evidence],
                     sentences: Sequence[Sentence]) -> dict[str, float]:
    """Signals in [0, 1] (counts as logs): see the module docstring."""
    found, _ = found_subjects(reading, evidence)
    subject_cov = len(found) / len(reading.subjects) if reading.subjects else 1.0
    stems = {stem(w) for e in evidence for w in words(f"{e.metadata.title} {e.text}")}
    attribute = [stem(a) for a in reading.attribute]
    attr_cov = sum(1 for a in attribute if a in stems) / len(attribute) if attribute else 1.0
    top = list(sentences[:3])
    return {
        "subject_coverage": round(subject_cov, 3),
        "subjects": float(len(reading.subjects)),
        "attribute_coverage": round(attr_cov, 3),
        "best_similarity": round(top[0].similarity, 3) if top else 0.0,
        "best_overlap": round(top[0].overlap, 3) if top else 0.0,
        "top3_similarity": round(sum(s.similarity for s in top) / len(top), 3) if top else 0.0,
        "evidence": float(len(evidence)),
    }
