"""The retrieval evaluator: does the retrieved evidence answer the question? (answerable / ambiguous / unanswerable)

In the spirit of CRAG's retrieval evaluator and Self-RAG's relevance judgement, decided before
anything is drafted, from signals that are each shown to the user:

- ``subject_coverage``: share of the question's named subjects (entities, codes, quoted titles,
  capitalised names) that some evidence mentions, in its text or title; typos tolerated;
- ``attribute_coverage``: share of the asked attribute's words ("final torque", "takeoff weight")
  found in the evidence;
- ``best_sentence``: the evidence sentence that best fits the question (embedding similarity,
  attribute words, subject named in it or its document's title);
- ``typed_answer``: whether that sentence (or one close to it) holds a value of the expected
  type that the question does not already contain (a number with a unit for "how much", a date
  for "when", a person for "who", ...).

A named subject that no evidence mentions, or an attribute the evidence never speaks of, means
the documents do not answer the question: the pipeline refuses and shows the closest documents.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from engine.answerability.question import QuestionFocus, analyse
from engine.answerability.spans import prime, typed_values
from engine.reflection.focus import codes_in, names
from engine.reflection.support import VectorCache
from engine.reflection.text import STOPWORDS, normalise_phrase, stem, words
from engine.reflection.units import QUOTABLE, evidence_units
from engine.results import AnswerFocus, Answerability, AnswerSpan, Evidence, Intent

ATTRIBUTE_MIN = 0.5
"""Below this share of the attribute's words in the evidence, the evidence is about something else."""
ATTRIBUTE_CLEAR = 0.75
"""At or above this share the attribute is clearly covered (with every subject found: answerable)."""
SENTENCE_MIN = 0.35
"""A best-sentence fit below this means no sentence speaks to the question (fit = 0.5 sim + 0.35 attr + 0.15 subj)."""
SENTENCE_CLEAR = 0.45
"""A best-sentence fit at or above this, with a typed value, makes the evidence answer the question."""
SIMILARITY_MIN = 0.25
"""Cosine similarity (all-MiniLM-L6-v2) below which a sentence is unrelated to the question."""
FIT_WEIGHTS = (0.5, 0.35, 0.15)
"""How a sentence's fit is blended: similarity to the question, attribute words it holds, subject named."""
CLOSEST = 3
"""Documents listed with a refusal."""


def _fuzzy_limit(word: str) -> int:
    """Edit distance tolerated for a typo: none under 5 letters or with digits, 1 up to 8 letters, 2 beyond."""
    if len(word) < 5 or any(ch.isdigit() for ch in word):
        return 0
    return 1 if len(word) <= 8 else 2


def fuzzy_in(word: str, vocabulary: Sequence[str] | set[str]) -> bool:
    """True when ``word`` or a spelling within its typo limit is in ``vocabulary``."""
    if word in vocabulary:
        return True
    limit = _fuzzy_limit(word)
    if not limit or not vocabulary:
        return False
    return process.extractOne(word, vocabulary, scorer=Levenshtein.distance, score_cutoff=limit) is not None


@dataclass(frozen=True)
class _Chunk:
    number: int
    evidence: Evidence
    body: str  # normalised title + text
    raw: frozenset[str]  # lower-case words
    stems: frozenset[str]
    sentences: tuple[str, ...]


@dataclass(frozen=True)
class _Fit:
    chunk: int
    sentence: str
    score: float
    similarity: float
    attribute: float
    subject: float
    values: tuple[str, ...]


class AnswerabilityEvaluator:
    """Decides per question whether the evidence answers it; see the module docstring for the signals."""

    def __init__(self, cache: VectorCache | None = None, *, model_name: str | None = None) -> None:
        self.cache = cache or VectorCache.shared(model_name=model_name)
        self.name = "offline-answerability"

    def run(self, question: str, intent: Intent, evidence: Sequence[Evidence]) -> Answerability:
        """The verdict for ``question`` over ``evidence`` (numbered [1]..[n] in this order)."""
        focus = analyse(question, intent)
        shown = AnswerFocus(answer_type=focus.answer_type, subjects=focus.subjects, attribute=focus.attribute_words)
        evidence = tuple(evidence)
        if not evidence:
            return Answerability(verdict="unanswerable", focus=shown, signals={"evidence": 0.0},
                                 reason="No evidence was retrieved for this question.")
        chunks = [_chunk(n, e) for n, e in enumerate(evidence, start=1)]
        closest = tuple(dict.fromkeys(c.evidence.metadata.title for c in chunks))[:CLOSEST]

        found, missing_subjects = self._subjects(focus, chunks)
        subject_cov = found / len(focus.subjects) if focus.subjects else 1.0
        attr_hits = [a for a in focus.attribute if any(fuzzy_in(a, c.stems) for c in chunks)]
        attr_cov = len(attr_hits) / len(focus.attribute) if focus.attribute else 1.0
        missing_attr = [w for a, w in zip(focus.attribute, focus.attribute_words) if a not in attr_hits]
        fits = self._fits(question, focus, chunks)
        best = fits[0] if fits else None
        typed = next((f for f in fits if f.values), None) if focus.specific else best
        signals = {
            "subject_coverage": round(subject_cov, 3), "attribute_coverage": round(attr_cov, 3),
            "best_sentence": round(best.score, 3) if best else 0.0,
            "similarity": round(best.similarity, 3) if best else 0.0,
            "typed_answer": 1.0 if typed is not None and typed.values else 0.0,
            "typed_sentence": round(typed.score, 3) if typed is not None else 0.0,
        }
        span = None
        if typed is not None and typed.values:
            item = evidence[typed.chunk - 1]
            span = AnswerSpan(value=typed.values[0], sentence=typed.sentence, evidence=typed.chunk,
                              chunk_id=item.chunk_id)
        base = dict(focus=shown, signals=signals, closest=closest, span=span,
                    best_evidence=tuple(evidence[f.chunk - 1].chunk_id for f in fits[:3]))
        asked = focus.describe()

        if missing_subjects:
            names_ = ", ".join(repr(s) for s in missing_subjects)
            return Answerability(verdict="unanswerable", missing=tuple(missing_subjects), **base,
                                 reason=f"No retrieved document mentions {names_}, which the question is about.")
        if attr_cov < ATTRIBUTE_MIN:
            what = " ".join(missing_attr)
            about = f" about {', '.join(repr(s) for s in focus.subjects)}" if focus.subjects else ""
            return Answerability(verdict="unanswerable", missing=tuple(missing_attr), **base,
                                 reason=f"The retrieved documents{about} say nothing about '{what}'.")
        if best is None or best.score < SENTENCE_MIN or best.similarity < SIMILARITY_MIN:
            return Answerability(verdict="unanswerable", **base,
                                 reason=f"No sentence in the retrieved documents speaks to {asked}.")
        if focus.specific and (typed is None or typed.score < SENTENCE_MIN):
            return Answerability(verdict="unanswerable", **base,
                                 reason=f"The documents speak of the topic, but none states {asked}.")
        chosen = typed or best
        if attr_cov >= ATTRIBUTE_CLEAR and chosen.score >= SENTENCE_CLEAR:
            return Answerability(verdict="answerable", **base,
                                 reason=f"Evidence [{chosen.chunk}] states {asked}.")
        weak = [w for w in missing_attr] or []
        detail = f"; '{' '.join(weak)}' is not found" if weak else ""
        return Answerability(verdict="ambiguous", missing=tuple(weak), **base,
                             reason=f"The evidence only partly matches the question (best fit {chosen.score:.2f}"
                                    f"{detail}).")

    # -- signals --------------------------------------------------------------
    @staticmethod
    def _subjects(focus: QuestionFocus, chunks: list[_Chunk]) -> tuple[int, list[str]]:
        found, missing = 0, []
        for subject in focus.subjects:
            if any(_mentions(c, subject) for c in chunks):
                found += 1
            else:
                missing.append(subject)
        return found, missing

    def _fits(self, question: str, focus: QuestionFocus, chunks: list[_Chunk]) -> list[_Fit]:
        rows = [(c, s) for c in chunks for s in c.sentences]
        if not rows:
            return []
        vectors = self.cache.encode([question] + [s for _, s in rows])
        sims = vectors[1:] @ vectors[0]
        if focus.answer_type in ("person", "place", "organisation", "date"):
            prime([s for _, s in rows])
        wanted = set(focus.attribute)
        fits: list[_Fit] = []
        for (chunk, sentence), sim in zip(rows, sims):
            own = {stem(w) for w in words(sentence)}
            attr = len([a for a in wanted if a in own or fuzzy_in(a, own)]) / len(wanted) if wanted else 0.0
            title = chunk.evidence.metadata.title
            subj = (sum(1 for s in focus.subjects if _names_in(sentence, s) or _names_in(title, s))
                    / len(focus.subjects)) if focus.subjects else 0.0
            score = FIT_WEIGHTS[0] * float(sim) + FIT_WEIGHTS[1] * attr + FIT_WEIGHTS[2] * subj
            values = tuple(typed_values(sentence, focus.answer_type, question)) if focus.specific else ()
            fits.append(_Fit(chunk.number, sentence, round(score, 4), float(sim), attr, subj, values))
        fits.sort(key=lambda f: (-f.score, f.chunk))
        return fits


def _chunk(number: int, item: Evidence) -> _Chunk:
    text = f"{item.metadata.title}\n{item.text}"
    raw = frozenset(words(text))
    sentences = tuple(u.text for u in evidence_units(item.text) if u.kind in QUOTABLE or u.kind == "long")
    return _Chunk(number, item, f" {normalise_phrase(text)} ", raw, frozenset(stem(w) for w in raw),
                  sentences or (item.text.strip(),))


def _mentions(chunk: _Chunk, subject: str) -> bool:
    """``subject`` is named in the chunk's text or title: as a phrase, as a code variant, or word by word with typos."""
    key = normalise_phrase(subject)
    if not key:
        return True
    if f" {key} " in chunk.body:
        return True
    if codes_in(subject):
        return all(names(chunk.body, code) for code in codes_in(subject))
    tokens = [t for t in key.split() if t not in STOPWORDS and len(t) > 1]
    return bool(tokens) and all(fuzzy_in(t, chunk.raw) for t in tokens)


def _names_in(text: str, subject: str) -> bool:
    key = normalise_phrase(subject)
    return bool(key) and f" {key} " in f" {normalise_phrase(text)} "


def refusal_text(result: Answerability, searched: Sequence[str]) -> str:
    """The message shown instead of an answer: why, what was searched, and the closest documents."""
    where = ", ".join(dict.fromkeys(searched)) or "the knowledge bases"
    closest = "; ".join(f"'{t}'" for t in result.closest) or "none"
    return (f"I can't answer this from the documents: {result.reason} Searched: {where}. "
            f"Closest documents: {closest}.")


__all__ = ["AnswerabilityEvaluator", "fuzzy_in", "refusal_text"]
