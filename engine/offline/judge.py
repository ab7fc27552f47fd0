"""Does a set of evidence sentences back one statement? The reviewer's own judgement, pluggable.

The offline reviewer asks a :class:`SupportJudge` about each answer sentence; the generator
ranks evidence with its own scores (``support``), so in dual mode the draft and the review are
two independent judgements. :class:`OfflineJudge` is the default; an LLM judge
(``llm_judge.LLMJudge``) or a stronger local model can take its place through
``OfflineReviewer(judge=...)``.

The offline judge blends three signals into a score: content-word coverage (the share of the
statement's content words found in the evidence), embedding similarity to the closest evidence
sentence, and token alignment (the share of the statement's words that the closest evidence
sentence has in the same order, from difflib). A statement is supported when the score reaches
the threshold and no hard check fails: every figure must appear with an agreeing unit and be
said of the same subject (``binding``), every code and date word must appear, and the statement
must not negate what its best-matching evidence sentence states (or drop its negation).
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from engine.reflection.judgement import Finding, FindingKind, Judgement, SupportJudge  # noqa: F401

from engine.offline.binding import bind, Bound, subjects_agree
from engine.offline.focus import as_written
from engine.embeddings import TextEncoder as Embedder, VectorCache
from engine.language.citations import strip_citations
from engine.language.names import named_tokens
from engine.language.negation import negated_words
from engine.language.quantities import canonical_unit, numbers, units_agree
from engine.language.tokens import content_words, words

# The blend below was chosen by `python bench/tune_judge.py grid`: every weight in steps of 0.05 and
# every threshold from 0.50 to 0.90 in steps of 0.01, on the tuning half of review_dev (587 rows,
# sha256(id) % 2 == 0); the best balanced accuracy there. docs/benchmarks.md gives the held-out half.
COVERAGE_WEIGHT = 0.3
"""Weight of content-word coverage: does the evidence hold the statement's words at all."""
SIMILARITY_WEIGHT = 0.25
"""Weight of embedding similarity to the closest evidence sentence: does it mean the same."""
ALIGNMENT_WEIGHT = 0.45
"""Weight of in-order token alignment with the closest sentence: is it said the same way, not a word salad."""
SUPPORT_THRESHOLD = 0.62
"""Score from which a statement counts as supported."""
NEGATION_OVERLAP = 0.5
"""Share of a statement's content words an evidence sentence must hold to be "about the same thing"
for the negation check. Set a priori (half); the verdicts on tests/reflection/general_cases.jsonl
(0.3 to 0.9) and on review_dev's tuning half (0.3, 0.5, 0.7) do not change with it."""


@dataclass(frozen=True)
class JudgeConfig:
    """The offline judge's weights and thresholds (weights sum to 1)."""

    coverage_weight: float = COVERAGE_WEIGHT
    similarity_weight: float = SIMILARITY_WEIGHT
    alignment_weight: float = ALIGNMENT_WEIGHT
    threshold: float = SUPPORT_THRESHOLD
    negation_overlap: float = NEGATION_OVERLAP

    def __post_init__(self) -> None:
        weights = (self.coverage_weight, self.similarity_weight, self.alignment_weight)
        if any(w < 0 for w in weights) or abs(sum(weights) - 1.0) > 1e-6:
            raise ValueError(f"judge weights must be non-negative and sum to 1, got {weights}")
        if not 0 < self.threshold < 1:
            raise ValueError(f"threshold must be in (0, 1), got {self.threshold}")
        if not 0 < self.negation_overlap <= 1:
            raise ValueError(f"negation_overlap must be in (0, 1], got {self.negation_overlap}")


@dataclass(frozen=True)
class _Digest:
    """What the judge needs from one text, worked out once."""

    text: str
    content: frozenset[str]
    words: tuple[str, ...]
    bound: tuple[Bound, ...]
    spelled: frozenset[float]
    tokens: frozenset[str]
    negated: frozenset[str]


@lru_cache(maxsize=16384)
def _digest(text: str) -> _Digest:
    return _Digest(text, frozenset(content_words(text)), tuple(words(text)), tuple(bind(text)),
                   frozenset(numbers(text, spelled=True) - numbers(text)),
                   frozenset(named_tokens(text) | set(words(text))), negated_words(text))


class OfflineJudge:
    """The default judge: coverage, similarity and alignment blended, plus figure, name and negation checks.

    ``cache`` (or ``embedder`` / ``model_name``) gives the sentence vectors; pass another model
    name to judge with a different embedding model than the generator ranks with.
    """

    def __init__(self, embedder: Embedder | None = None, *, model_name: str | None = None,
                 cache: VectorCache | None = None, config: JudgeConfig | None = None) -> None:
        if embedder is not None and not callable(getattr(embedder, "encode", None)):
            raise TypeError("embedder must have an encode(texts) method returning normalised vectors")
        self.cache = cache or VectorCache.shared(embedder, model_name=model_name)
        self.config = config or JudgeConfig()
        self.name = "offline-judge"

    @property
    def threshold(self) -> float:
        return self.config.threshold

    def prepare(self, texts: Sequence[str]) -> None:
        """Embed many texts in one batch ahead of judging."""
        self.cache.prime(texts)

    def judge(self, statement: str, evidence_sentences: Sequence[str]) -> Judgement:
        """Whether ``evidence_sentences`` together back ``statement`` (see the module docstring)."""
        body = strip_citations(statement).strip()
        sentences = [s for s in dict.fromkeys(evidence_sentences) if s and s.strip()]
        if not sentences:
            return Judgement(False, 0.0, "", ("There is no evidence to check this statement against.",))
        mine = _digest(body)
        theirs = [_digest(s) for s in sentences]
        vectors = self.cache.encode([body, *sentences])
        sims = np.clip(vectors[1:] @ vectors[0], 0.0, 1.0)
        covers = [_share(mine.content, d.content) for d in theirs]
        aligns = [_alignment(mine.words, d.words) for d in theirs]
        pool = frozenset().union(*(d.content for d in theirs))
        coverage = _share(mine.content, pool)
        similarity, alignment = float(np.max(sims)), max(aligns)
        cfg = self.config
        score = cfg.coverage_weight * coverage + cfg.similarity_weight * similarity + cfg.alignment_weight * alignment
        best = int(np.argmax([float(s) + c for s, c in zip(sims, covers)]))
        findings = [*self._figures(mine, theirs, best), *_names(body, theirs)]
        findings.extend(self._negation(mine, theirs, covers, sims))
        supported = score >= cfg.threshold and not findings
        reasons = tuple(f.detail for f in findings)
        if score < cfg.threshold:
            reasons += (f"support {score:.2f} is below {cfg.threshold:.2f} (coverage {coverage:.2f}, "
                        f"similarity {similarity:.2f}, alignment {alignment:.2f})",)
        signals = {"coverage": round(coverage, 4), "similarity": round(similarity, 4), "alignment": round(alignment, 4)}
        return Judgement(supported, round(float(score), 4), sentences[best], reasons, tuple(findings), signals)

    def _figures(self, mine: _Digest, theirs: list[_Digest], best: int) -> list[Finding]:
        """Each figure of the statement must appear with an agreeing unit, said of the same subject."""
        out: list[Finding] = []
        for claim in mine.bound:
            value, unit = claim.figure.value, claim.figure.unit
            found = [(d.text, e) for d in theirs for e in d.bound if e.figure.value == value]
            spelled = any(value in d.spelled for d in theirs)
            if not found and not spelled:
                out.append(Finding("number", f"{claim.figure.text} does not appear in the evidence",
                                   theirs[best].text, claim.figure.text, _same_unit(claim, [theirs[best]])))
                continue
            units = [(s, e) for s, e in found if units_agree(unit, e.figure.unit)]
            if not units and not spelled:
                text, other = found[0]
                out.append(Finding("unit", f"{claim.figure.text} is not in the evidence, which gives "
                                           f"{other.figure.text}: \"{text}\"", text, claim.figure.text,
                                   _same_unit(claim, [_digest(text)], subject_only=False)))
                continue
            if spelled or any(subjects_agree(claim.subjects, e.subjects) for _, e in units):
                continue
            text, other = units[0]
            said_of = ", ".join(sorted(as_written(s, text) for s in other.subjects))
            out.append(Finding("subject", f"the evidence gives {other.figure.text} for {said_of}, not for "
                                          f"{_subjects(claim, mine.text)}: \"{text}\"", text, claim.figure.text,
                               _same_unit(claim, theirs)))
        return out

    def _negation(self, mine: _Digest, theirs: list[_Digest], covers: list[float], sims: np.ndarray) -> list[Finding]:
        """The statement must not negate what its best-matching evidence sentence states, nor drop its negation."""
        about = [i for i, c in enumerate(covers) if c >= self.config.negation_overlap]
        if not about:
            return []
        ranked = sorted(about, key=lambda i: (covers[i], float(sims[i])), reverse=True)
        first = ranked[0]
        polarity = [_polarity(mine, theirs[i]) for i in ranked]
        if polarity[0][0] == polarity[0][1]:
            return []
        if any(p[0] == p[1] for i, p in zip(ranked, polarity) if covers[i] >= covers[first]):
            return []  # another sentence about the same thing agrees
        text = theirs[first].text
        if polarity[0][0]:
            detail = f"the statement negates what the evidence states (the opposite of \"{text}\")"
        else:
            detail = f"the evidence says the opposite, with a negation the statement drops: \"{text}\""
        return [Finding("negation", detail, text)]


def _share(mine: frozenset[str], theirs: frozenset[str]) -> float:
    return len(mine & theirs) / len(mine) if mine else 1.0


def _alignment(mine: tuple[str, ...], theirs: tuple[str, ...]) -> float:
    """Share of ``mine``'s words that ``theirs`` has in the same order."""
    if not mine:
        return 1.0
    matcher = difflib.SequenceMatcher(None, mine, theirs, autojunk=False)
    return sum(block.size for block in matcher.get_matching_blocks()) / len(mine)


def _polarity(mine: _Digest, theirs: _Digest) -> tuple[bool, bool]:
    """Whether each side negates the words the two share (numbers aside)."""
    shared = {w for w in mine.content & theirs.content if not any(ch.isdigit() for ch in w)}
    return bool(mine.negated & shared), bool(theirs.negated & shared)


def _names(body: str, theirs: list[_Digest]) -> list[Finding]:
    """Codes and month names of the statement must appear in the evidence."""
    have = frozenset().union(*(d.tokens for d in theirs))
    missing = sorted(named_tokens(body, capitalised=False) - have)
    if not missing:
        return []
    shown = ", ".join(as_written(token, body) for token in missing)
    return [Finding("name", f"{shown} does not appear in the evidence")]


def _same_unit(claim: Bound, digests: list[_Digest], *, subject_only: bool = True) -> str:
    """The evidence's figure for the statement's quantity: same unit, said of an agreeing subject ("" when none)."""
    candidates = [e for d in digests for e in d.bound if e.figure.value != claim.figure.value]
    if not claim.figure.unit:
        return candidates[0].figure.text if len(candidates) == 1 and not candidates[0].figure.unit else ""
    wanted = canonical_unit(claim.figure.unit)
    same = [e for e in candidates if e.figure.unit and canonical_unit(e.figure.unit) == wanted]
    if not subject_only:
        return same[0].figure.text if same else ""
    named = [e for e in same if claim.subjects and e.subjects and subjects_agree(claim.subjects, e.subjects)]
    loose = [e for e in same if subjects_agree(claim.subjects, e.subjects)]
    return (named or loose)[0].figure.text if (named or loose) else ""


def _subjects(claim: Bound, text: str) -> str:
    return ", ".join(sorted(as_written(s, text) for s in claim.subjects)) or "the statement's subject"
