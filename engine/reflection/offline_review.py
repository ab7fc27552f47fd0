"""The offline reviewer: checks each answer sentence against the numbered evidence, deterministically.

Checks: citations present and in range; support by the cited chunk (embedding similarity and
content-word coverage); numbers, dates and codes that must appear in the cited chunk; absolute
wording the evidence does not use; figures contradicted by a newer or more authoritative chunk;
citations to a superseded revision when a newer one was retrieved (unless the question asks for
that revision). Then relevance: an answer that does not name the codes, part numbers or models
the question asks about, or that mostly talks about another one of the same kind, gets a
``logic`` issue. It emits the same JSON as the LLM reviewer, validated against the same schema.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from engine.reflection.focus import Focus, as_written, asks_for, match, missing_from, question_focus
from engine.reflection.schema import review_from_payload
from engine.reflection.support import (
    SUPPORT_THRESHOLD,
    Embedder,
    EvidenceIndex,
    Support,
    VectorCache,
    find_conflict,
    newer_revision,
)
from engine.reflection.text import (
    absolute_words,
    citations,
    content_words,
    figures,
    is_key_statement,
    split_sentences,
    strip_citations,
    with_citation,
)
from engine.results import Evidence, Review

_PENALTY = {"fact": 0.5, "citation": 0.75, "overconfidence": 0.8, "logic": 0.6, "format": 0.3}


@dataclass
class _Sentence:
    """Findings for one answer sentence."""

    text: str
    issues: list[dict[str, str]] = field(default_factory=list)
    fixes: list[tuple[str, str, str]] = field(default_factory=list)  # (type, old, new)
    strength: float = 1.0
    checked: bool = False
    basis: list[int] = field(default_factory=list)  # the chunks the sentence was judged against

    def issue(self, kind: str, description: str) -> None:
        self.issues.append({"type": kind, "description": description, "location": self.text})

    def fix(self, kind: str, old: str, new: str) -> None:
        if old and old != new and all(f[1] != old for f in self.fixes):
            self.fixes.append((kind, old, new))


class OfflineReviewer:
    """Reviews answers against evidence without a model call.

    ``require_citations=False`` judges each statement against all the evidence and does not
    ask for [n] markers (for datasets whose answers carry none).
    """

    def __init__(
        self,
        embedder: Embedder | None = None,
        *,
        model_name: str | None = None,
        require_citations: bool = True,
        cache: VectorCache | None = None,
    ) -> None:
        if embedder is not None and not callable(getattr(embedder, "encode", None)):
            raise TypeError("embedder must have an encode(texts) method returning normalised vectors")
        self.cache = cache or VectorCache.shared(embedder, model_name=model_name)
        self.require_citations = require_citations
        self.name = "offline-reviewer"

    def warm_up(self) -> None:
        """Load the embedding model now rather than on the first review."""
        _ = self.cache.embedder

    def prepare(self, items: Sequence[tuple[Sequence[Evidence], str]]) -> None:
        """Embed the texts of many (evidence, answer) pairs in one batch before reviewing them."""
        texts: list[str] = []
        for evidence, answer in items:
            texts.extend(strip_citations(s) for s in split_sentences(answer))
            texts.extend(EvidenceIndex.texts(evidence))
        self.cache.prime(texts)

    def review(self, question: str, evidence: Sequence[Evidence], answer: str) -> Review:
        """The review of ``answer`` (validated against the review schema)."""
        return review_from_payload(self.review_payload(question, evidence, answer))

    def review_payload(self, question: str, evidence: Sequence[Evidence], answer: str) -> dict[str, Any]:
        """The review as the JSON object the schema describes."""
        sentences = split_sentences(answer)
        if not sentences:
            return _payload([], [_issue("format", "The answer is empty.")], [], 0.0, "Nothing to check.")
        if not evidence:
            return _payload([], [_issue("fact", "No evidence was retrieved, so no statement can be verified.")],
                            [], 0.0, "No evidence.")
        bodies = [strip_citations(s) for s in sentences]
        index = EvidenceIndex(evidence, self.cache, extra=bodies)
        vectors = self.cache.encode(bodies)
        found = [self._check(question, s, b, v, index) for s, b, v in zip(sentences, bodies, vectors)]
        checked = [f for f in found if f.checked]
        issues = [i for f in found for i in f.issues]
        if checked:
            issues.extend(_relevance(question, checked, index))
        if not checked:
            issues.append(_issue("format", "The answer makes no statement that can be checked against the evidence."))
        corrections = _corrections(found, answer)
        confidence = _confidence(checked, issues)
        supported = sum(1 for f in checked if not f.issues)
        reasoning = (f"Checked {len(checked)} statement(s) against {len(evidence)} evidence chunk(s): "
                     f"{supported} supported, {len(issues)} issue(s).")
        return _payload(checked, issues, corrections, confidence, reasoning)

    def _check(self, question: str, sentence: str, body: str, vector: np.ndarray, index: EvidenceIndex) -> _Sentence:
        result = _Sentence(sentence)
        if not content_words(body) and not figures(body):
            return result  # "Yes." / "Sure!": nothing to verify
        result.checked = True
        n = len(index)
        cited = citations(sentence)
        valid = [c for c in cited if 1 <= c <= n]
        best: Support | None = None
        if not self.require_citations and not cited:
            support = index.support(body, vector=vector)
            valid = [c.number for c in index.chunks]  # judged against all the evidence
        else:
            for c in cited:
                if not 1 <= c <= n:
                    best = best or index.best_single(body, vector=vector, current_only=True)
                    result.issue("citation", f"Cites [{c}] but only {n} evidence chunk(s) were retrieved.")
                    if best.supported:
                        result.fix("citation", f"[{c}]", f"[{best.chunk}]")
            if not valid:
                if not cited and is_key_statement(body):
                    best = best or index.best_single(body, vector=vector, current_only=True)
                    result.issue("citation", "This statement has no [n] citation.")
                    if best.supported:
                        result.fix("citation", sentence, with_citation(sentence, [best.chunk]))
                support = best or index.best_single(body, vector=vector)
            else:
                support = index.support(body, valid, vector=vector)
        result.strength = _strength(support)
        basis = valid or ([support.chunk] if support.chunk else [])
        result.basis = basis
        if not support.supported:
            self._unsupported(result, body, vector, index, [c for c in valid if c in cited], support)
        self._absolutes(result, body, index, basis)
        self._conflicts(result, body, vector, index, [c for c in basis if not _asked(question, index, c)])
        return result

    def _unsupported(self, result: _Sentence, body: str, vector: np.ndarray, index: EvidenceIndex,
                     cited: list[int], support: Support) -> None:
        where = _cite_text(cited) or "the evidence"
        if support.missing_numbers and support.score >= SUPPORT_THRESHOLD - 0.1:
            wrong = [f for f in figures(body) if f.value in support.missing_numbers]
            right = _replacement_figures(wrong, support.best_sentence)
            shown = ", ".join(f.text for f in wrong)
            result.issue("fact", f"{shown} does not appear in {where}, which says: \"{support.best_sentence}\"")
            for old, new in right:
                result.fix("fact", old, new)
            return
        if cited:
            other = index.best_single(body, vector=vector, current_only=True)
            if other.supported and other.chunk not in cited:
                result.issue("citation", f"{where} does not support this statement; [{other.chunk}] does.")
                if len(cited) == 1:
                    result.fix("citation", f"[{cited[0]}]", f"[{other.chunk}]")
                return
        if support.missing_tokens:
            names = ", ".join(_as_written(token, body) for token in sorted(support.missing_tokens))
            result.issue("fact", f"{names} does not appear in {where}.")
            return
        result.issue("fact", f"Not supported by {where} (support {support.score:.2f}, "
                             f"coverage {support.coverage:.2f}, similarity {support.similarity:.2f}).")

    def _absolutes(self, result: _Sentence, body: str, index: EvidenceIndex, cited: list[int]) -> None:
        pool = set().union(*(index.chunk(c).raw_words for c in cited)) if cited else set()
        for word in absolute_words(body):
            if word.lower() not in pool:
                result.issue("overconfidence", f"\"{word}\" is not backed by the evidence.")

    def _conflicts(self, result: _Sentence, body: str, vector: np.ndarray, index: EvidenceIndex,
                   cited: list[int]) -> None:
        reported = False
        found = figures(body)
        for c in cited:
            for figure in found:
                if figure.value not in index.chunk(c).numbers or sum(f.unit == figure.unit for f in found) > 1:
                    continue
                conflict = find_conflict(index, figure, c, vector)
                if conflict is None:
                    continue
                reported = True
                if conflict.other_chunk == c:
                    result.issue("fact", f"[{c}] lists {figure.text} only among other values (a table or revision "
                                         f"history); it states {conflict.alternative.text}.")
                else:
                    result.issue("fact", f"{figure.text} comes from [{c}], but the newer or more authoritative "
                                         f"[{conflict.other_chunk}] gives {conflict.alternative.text}.")
                result.fix("fact", figure.text, conflict.alternative.text)
                if c in citations(result.text) and conflict.other_chunk != c:
                    result.fix("citation", f"[{c}]", f"[{conflict.other_chunk}]")
            newer = newer_revision(index, c)
            if newer is not None and newer not in cited and not reported:
                title = index.chunk(c).evidence.metadata
                result.issue("citation", f"[{c}] is a superseded revision ({title.revision or title.update_date}) "
                                         f"of {title.title!r}; [{newer}] is newer.")
                if index.support(body, [newer], vector=vector).supported and c in citations(result.text):
                    result.fix("citation", f"[{c}]", f"[{newer}]")


def _asked(question: str, index: EvidenceIndex, number: int) -> bool:
    """True when chunk ``number`` is an older revision that the question explicitly asks about."""
    newer = newer_revision(index, number)
    if newer is None:
        return False
    return asks_for(question, index.chunk(number).evidence.metadata, None,
                    index.chunk(newer).evidence.metadata.update_date)


def _relevance(question: str, checked: list[_Sentence], index: EvidenceIndex) -> list[dict[str, str]]:
    """A ``logic`` issue when the answer misses the codes the question asks about, or mostly names others.

    A sentence also counts as naming a code when the title of the evidence it was judged against
    does ("Final torque: 325 N.m [2]" from the A320 manual addresses the A320).
    """
    focus = Focus(question_focus(question).codes)
    if not focus:
        return []
    titles = [" ".join(index.chunk(n).evidence.metadata.title for n in f.basis) for f in checked]
    bodies = [strip_citations(f.text) for f in checked]
    missing = missing_from(focus, " ".join(bodies), titles)
    if missing:
        names = " or ".join(as_written(m, question) for m in missing)
        return [_issue("logic", f"The answer does not address {names}, which the question asks about.")]
    off = [b for b, t in zip(bodies, titles) if match(focus, b, t).off_topic]
    if len(off) * 2 > len(bodies):
        asked = ", ".join(as_written(c, question) for c in focus.codes)
        return [_issue("logic", f"The answer mostly talks about something other than {asked}.")]
    return []


def _replacement_figures(wrong: list, sentence: str) -> list[tuple[str, str]]:
    """Pairs (wrong figure text, figure in ``sentence`` with the same unit)."""
    pairs = []
    candidates = figures(sentence)
    for figure in wrong:
        same = [c for c in candidates if c.unit == figure.unit and c.value != figure.value]
        if figure.unit and len(same) >= 1:
            pairs.append((figure.text, same[0].text))
        elif not figure.unit and len(candidates) == 1 and not candidates[0].unit:
            pairs.append((figure.text, candidates[0].text))
    return pairs


def _corrections(found: list[_Sentence], answer: str) -> list[dict[str, str]]:
    """Per-fix corrections when each original is unique in the answer, else one per sentence."""
    out: list[dict[str, str]] = []
    seen: set[str] = set()
    for item in found:
        if not item.fixes:
            continue
        if all(answer.count(old) == 1 and old not in seen for _, old, _ in item.fixes):
            for kind, old, new in item.fixes:
                out.append({"type": kind, "original": old, "corrected": new})
                seen.add(old)
        elif answer.count(item.text) == 1:
            fixed = item.text
            for _, old, new in item.fixes:
                fixed = fixed.replace(old, new)
            if fixed != item.text:
                out.append({"type": item.fixes[0][0], "original": item.text, "corrected": fixed})
                seen.add(item.text)
    return out


def _as_written(token: str, text: str) -> str:
    """``token`` with the capitalisation it has in ``text``."""
    at = text.lower().find(token)
    return text[at: at + len(token)] if at >= 0 else token


def _strength(support: Support) -> float:
    return float(min(1.0, max(0.0, (support.score - SUPPORT_THRESHOLD) / (1 - SUPPORT_THRESHOLD))))


def _confidence(checked: list[_Sentence], issues: list[dict[str, str]]) -> float:
    """0.9-1.0 for a clean answer (by its weakest statement), at most 0.6 with issues."""
    if not issues:
        return round(0.9 + 0.1 * min(f.strength for f in checked), 3)
    clean = sum(1 for f in checked if not f.issues) / len(checked) if checked else 0.0
    penalty = float(np.prod([_PENALTY[i["type"]] for i in issues]))
    return round(max(0.01, 0.6 * (0.5 + 0.5 * clean) * penalty), 3)


def _cite_text(cited: list[int]) -> str:
    return "".join(f"[{c}]" for c in cited)


def _issue(kind: str, description: str, location: str = "") -> dict[str, str]:
    return {"type": kind, "description": description, "location": location}


def _payload(checked: list, issues: list, corrections: list, confidence: float, reasoning: str) -> dict[str, Any]:
    return {
        "valid": not issues,
        "issues": issues,
        "corrections": corrections,
        "confidence": confidence,
        "reasoning": reasoning,
    }
