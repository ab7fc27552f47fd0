"""The offline reviewer: checks each answer sentence against the numbered evidence, deterministically.

Whether the evidence backs a sentence is decided by a :class:`~engine.reflection.judgement.SupportJudge`
(the offline judge by default; any judge can be passed in), never by the scores the generator
ranks evidence with. Around that judgement the reviewer checks: citations present and in range;
support by the cited chunk (figures with their units and subjects, codes and dates, negation);
absolute wording the evidence does not use (flagged; a correction only ever quotes the evidence's
own wording, never a hedge); figures contradicted by a newer or more authoritative chunk;
citations to a superseded revision when a newer one was retrieved (unless the question asks for
that revision). Then relevance: an answer that does not name the codes, part numbers or models
the question asks about, or that mostly talks about another one of the same kind, gets a
``logic`` issue. It emits the same JSON as the LLM reviewer, validated against the same schema.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from engine.offline.focus import as_written, asks_for, Focus, match, missing_from, question_focus
from engine.offline.lead import added_claim
from engine.reflection.injection import injection_issues, is_note
from engine.offline.judge import OfflineJudge
from engine.reflection.judgement import Judgement, SupportJudge
from engine.reflection.schema import review_from_payload
from engine.embeddings import TextEncoder as Embedder, VectorCache
from engine.offline.support import _preference, EvidenceIndex, find_conflict, newer_revision
from engine.language.citations import citations, strip_citations, with_citation
from engine.language.layout import is_key_statement
from engine.language.negation import ABSOLUTE_WORDS, absolute_words
from engine.language.quantities import figures
from engine.language.sentences import split_sentences
from engine.language.tokens import content_words
from engine.results import Evidence, Review

_PENALTY = {"fact": 0.5, "citation": 0.75, "overconfidence": 0.8, "logic": 0.6, "format": 0.3, "injection": 0.3}
NEAR_SUPPORT = 0.1
"""A statement scoring within this of the judge's threshold, with a figure missing, is reported as a wrong
figure (with the evidence's figure as a correction) rather than as unsupported. It changes the wording
of the issue, never the verdict (carried over from the reviewer's earlier version; tests/reflection)."""
_TOKEN = re.compile(r"[\w'’.%°/-]+")


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


@dataclass
class _Context:
    """One review's evidence index and the judgements made so far (each asked once)."""

    index: EvidenceIndex
    judged: dict[tuple[str, tuple[int, ...]], Judgement] = field(default_factory=dict)


NAMED_REVISION = re.compile(r"\b(?:Rev(?:ision)?\.?|Issue|Edition)\s*\d+\b", re.IGNORECASE)
"""A statement naming the revision its figures belong to ("Rev 10", "Issue 2")."""


class OfflineReviewer:
    """Reviews answers against evidence without a model call.

    ``require_citations=False`` judges each statement against all the evidence and does not
    ask for [n] markers (for datasets whose answers carry none). ``judge`` decides whether
    evidence backs a statement (default: an :class:`OfflineJudge` on the same embedding cache).
    """

    def __init__(
        self,
        embedder: Embedder | None = None,
        *,
        model_name: str | None = None,
        require_citations: bool = True,
        cache: VectorCache | None = None,
        judge: SupportJudge | None = None,
    ) -> None:
        if embedder is not None and not callable(getattr(embedder, "encode", None)):
            raise TypeError("embedder must have an encode(texts) method returning normalised vectors")
        if judge is not None and not isinstance(judge, SupportJudge):
            raise TypeError("judge must have a judge(statement, evidence_sentences) method (see engine.reflection.judgement)")
        self.cache = cache or VectorCache.shared(embedder, model_name=model_name)
        self.judge: SupportJudge = judge if judge is not None else OfflineJudge(cache=self.cache)
        self.require_citations = require_citations
        self.name = "offline-reviewer"

    @property
    def _threshold(self) -> float:
        return float(getattr(self.judge, "threshold", 0.5))

    def warm_up(self) -> None:
        """Load the embedding model now rather than on the first review."""
        _ = self.cache.embedder

    def prepare(self, items: Sequence[tuple[Sequence[Evidence], str]]) -> None:
        """Embed the texts of many (evidence, answer) pairs in one batch before reviewing them."""
        texts: list[str] = []
        for evidence, answer in items:
            texts.extend(strip_citations(s) for s in split_sentences(answer))
            texts.extend(EvidenceIndex.texts(evidence))
            texts.extend(e.metadata.title for e in evidence if e.metadata.title)
        self.cache.prime(texts)
        prepare = getattr(self.judge, "prepare", None)
        if callable(prepare) and getattr(self.judge, "cache", None) is not self.cache:
            prepare(texts)

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
        bodies = [added_claim(question, strip_citations(s)) for s in sentences]
        context = _Context(EvidenceIndex(evidence, self.cache, extra=bodies))
        vectors = self.cache.encode(bodies)
        found = [self._check(question, s, b, v, context) for s, b, v in zip(sentences, bodies, vectors)]
        checked = [f for f in found if f.checked]
        issues = [i for f in found for i in f.issues]
        if checked:
            relevance = _relevance(question, checked, context.index)
            issues.extend(relevance)
            if self.require_citations:  # an answer to a question (not a dialogue turn): does it answer it?
                issues.extend(_issue("logic", reason) for reason in unaddressed(question, answer, evidence)
                              if not relevance)
        if not checked:
            issues.append(_issue("format", "The answer makes no statement that can be checked against the evidence."))
        planted, dropped = injection_issues(evidence, sentences, answer)
        issues.extend(planted)
        corrections = dropped + _corrections(found, answer)  # a relayed instruction goes before any other fix
        confidence = _confidence(checked, [i for i in issues if not is_note(i)])
        supported = sum(1 for f in checked if not f.issues)
        reasoning = (f"Checked {len(checked)} statement(s) against {len(evidence)} evidence chunk(s): "
                     f"{supported} supported, {len(issues)} issue(s).")
        return _payload(checked, issues, corrections, confidence, reasoning)

    def _judge(self, body: str, context: _Context, numbers_: Sequence[int]) -> Judgement:
        """The judge's verdict on ``body`` against chunks ``numbers_`` (their titles and units)."""
        key = (body, tuple(numbers_))
        if key not in context.judged:
            sentences: list[str] = []
            for n in numbers_:
                chunk = context.index.chunk(n)
                title = chunk.evidence.metadata.title
                sentences.extend(([title] if title and title.strip() else []) + list(chunk.sentences))
            context.judged[key] = self.judge.judge(body, sentences)
        return context.judged[key]

    def _best(self, body: str, context: _Context, *, current_only: bool = False) -> tuple[Judgement, int | None]:
        """The single chunk that best backs ``body`` (supported first, then by score, then newer and more authoritative).

        ``current_only`` skips chunks whose document has a newer revision among the evidence.
        """
        index = context.index
        options = [(self._judge(body, context, [c.number]), c.number) for c in index.chunks
                   if not (current_only and newer_revision(index, c.number) is not None)]
        if not options:
            return Judgement(False, 0.0, ""), None
        return max(options, key=lambda o: (o[0].supported, -len(o[0].of_kind("number")), o[0].score,
                                           _preference(index, o[1])))

    def _check(self, question: str, sentence: str, body: str, vector: np.ndarray, context: _Context) -> _Sentence:
        result = _Sentence(sentence)
        if not content_words(body) and not figures(body):
            return result  # "Yes." / "Sure!": nothing to verify
        result.checked = True
        index = context.index
        attributed = _attributions(sentence)
        if attributed:  # "[2] gives 16 °C and [1] gives 5 °C": each value is checked against the source named
            for number, value in attributed:
                if not 1 <= number <= len(index) or not _states(index.chunk(number), value):
                    result.issue("fact", f"[{number}] does not give {value}.")
            result.basis = sorted({n for n, _ in attributed})
            return result
        n = len(index)
        cited = citations(sentence)
        valid = [c for c in cited if 1 <= c <= n]
        best: tuple[Judgement, int | None] | None = None
        chunk: int | None = None
        if not self.require_citations and not cited:
            valid = [c.number for c in index.chunks]  # judged against all the evidence
            judged = self._judge(body, context, valid)
        else:
            for c in cited:
                if not 1 <= c <= n:
                    best = best or self._best(body, context, current_only=True)
                    result.issue("citation", f"Cites [{c}] but only {n} evidence chunk(s) were retrieved.")
                    if best[0].supported:
                        result.fix("citation", f"[{c}]", f"[{best[1]}]")
            if not valid:
                if not cited and is_key_statement(body):
                    best = best or self._best(body, context, current_only=True)
                    result.issue("citation", "This statement has no [n] citation.")
                    if best[0].supported:
                        result.fix("citation", sentence, with_citation(sentence, [best[1]]))
                judged, chunk = best or self._best(body, context)
            else:
                judged = self._judge(body, context, valid)
        result.strength = self._strength(judged)
        basis = valid or ([chunk] if chunk else [])
        result.basis = basis
        if not judged.supported:
            self._unsupported(result, body, context, [c for c in valid if c in cited], judged)
        self._absolutes(result, body, index, basis, judged)
        judged_figures = {f.original for f in judged.findings if f.original}
        self._conflicts(result, body, vector, context, [c for c in basis if not _asked(question, index, c)],
                        judged_figures)
        return result

    def _unsupported(self, result: _Sentence, body: str, context: _Context, cited: list[int],
                     judged: Judgement) -> None:
        where = _cite_text(cited) or "the evidence"
        missing = judged.of_kind("number")
        if missing and judged.score >= self._threshold - NEAR_SUPPORT:
            shown = ", ".join(f.original for f in missing)
            result.issue("fact", f"{shown} does not appear in {where}, which says: \"{judged.best}\"")
            for finding in missing:
                if finding.replacement:
                    result.fix("fact", finding.original, finding.replacement)
            return
        opposite = judged.of_kind("negation")
        if cited and not opposite:  # a cited chunk that states the opposite is a fact issue whatever else says
            other, chunk = self._best(body, context, current_only=True)
            if other.supported and chunk not in cited:
                result.issue("citation", f"{where} does not support this statement; [{chunk}] does.")
                if len(cited) == 1:
                    result.fix("citation", f"[{cited[0]}]", f"[{chunk}]")
                return
        precise = judged.of_kind("unit", "subject", "negation", "name")
        for finding in precise:
            result.issue("fact", f"{where}: {finding.detail}.")
            if finding.replacement:
                result.fix("fact", finding.original, finding.replacement)
        if precise:
            return
        why = "; ".join(judged.reasons) or f"support {judged.score:.2f}"
        result.issue("fact", f"Not supported by {where} ({why}).")

    def _absolutes(self, result: _Sentence, body: str, index: EvidenceIndex, cited: list[int],
                   judged: Judgement) -> None:
        """Absolute wording the cited evidence does not use: flagged; corrected only with the evidence's own words."""
        pool = set().union(*(index.chunk(c).raw_words for c in cited)) if cited else set()
        where = _cite_text(cited) or "the evidence"
        for word in absolute_words(body):
            if word.lower() in pool:
                continue
            result.issue("overconfidence", f"\"{word}\" is not backed by {where}, which has no such absolute wording; "
                                           "check the statement against the document.")
            quoted = _quoted_wording(body, word, judged.best)
            if quoted is not None:
                result.fix("overconfidence", *quoted)

    def _conflicts(self, result: _Sentence, body: str, vector: np.ndarray, context: _Context,
                   cited: list[int], judged_figures: set[str]) -> None:
        """Figures a newer or more authoritative chunk gives differently; citations to a superseded revision.

        Figures the judge already found missing, in another unit or said of another subject are skipped.
        """
        index = context.index
        reported = False
        # "torque 270 N.m ... from AMM Rev 10": a figure said of a named revision is history, not a stale claim
        stated = [] if NAMED_REVISION.search(body) else figures(body)
        for c in cited:
            for figure in stated:
                if (figure.text in judged_figures or figure.value not in index.chunk(c).numbers
                        or sum(f.unit == figure.unit for f in stated) > 1):
                    continue
                conflict = find_conflict(index, figure, c, vector, body)
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
                if self._judge(body, context, [newer]).supported and c in citations(result.text):
                    result.fix("citation", f"[{c}]", f"[{newer}]")

    def _strength(self, judged: Judgement) -> float:
        threshold = self._threshold
        return float(min(1.0, max(0.0, (judged.score - threshold) / (1 - threshold))))


_ATTRIBUTION = re.compile(r"\[(\d+)\] gives ([^\[\]]+?)(?=,? and \[\d+\] gives|, \[\d+\] gives|\s*\[[\d, ]+\]\.?\s*$|\.?\s*$)")
"""A clause that says which source gives which value ("[2] gives 16 °C")."""


def _attributions(sentence: str) -> list[tuple[int, str]]:
    """(source number, value) of each "[n] gives V" clause, when the sentence is a list of them ("The sources
    disagree: [2] gives X and [1] gives Y [1, 2]."); else empty."""
    head, colon, rest = sentence.partition(":")
    if not colon or "[" in head:
        return []
    found = [(int(n), v.strip().rstrip(".")) for n, v in _ATTRIBUTION.findall(rest)]
    return found if len(found) >= 2 else []


def _states(chunk, value: str) -> bool:
    """The chunk states ``value``: each of its figures, else each of its content words, is in the chunk."""
    wanted = figures(value)
    if wanted:
        return all(f.value in chunk.numbers for f in wanted)
    own = set(content_words(value))
    return bool(own) and own <= chunk.words


def _quoted_wording(body: str, word: str, evidence: str) -> tuple[str, str] | None:
    """(answer words, evidence words) when the evidence says the same thing with other wording in place of
    the absolute ``word`` ("All residents support" / "Most residents support"); None otherwise.

    The pair runs from ``word`` to the next word both texts share, so the original is not a bare
    "all" that also occurs inside other words.
    """
    mine = list(_TOKEN.finditer(body))
    theirs = list(_TOKEN.finditer(evidence))
    a = [m.group(0).lower().strip(".") for m in mine]
    b = [m.group(0).lower().strip(".") for m in theirs]
    at = next((i for i, t in enumerate(a) if t == word.lower()), None)
    if at is None or not b:
        return None
    ops = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    for position, (tag, i1, i2, j1, j2) in enumerate(ops):
        if not i1 <= at < i2:
            continue
        following = ops[position + 1] if position + 1 < len(ops) else None
        if tag != "replace" or i2 - i1 > 2 or not 1 <= j2 - j1 <= 3 or following is None or following[0] != "equal":
            return None
        if any(t in ABSOLUTE_WORDS for t in b[j1:j2]):
            return None
        end_mine, end_theirs = mine[i2].end(), theirs[j2].end()
        original = body[mine[i1].start(): end_mine]
        quoted = evidence[theirs[j1].start(): end_theirs]
        if original[:1].isupper() != quoted[:1].isupper():
            quoted = (quoted[:1].upper() if original[:1].isupper() else quoted[:1].lower()) + quoted[1:]
        return original, quoted
    return None


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


def unaddressed(question: str, answer: str, evidence: Sequence[Evidence]) -> list[str]:
    """Subjects of the question that the answer names nowhere: not in its text, nor in the title or the retrieved
    passages of a document it cites (spelling variants such as "U.S." and "US" count as named)."""
    from engine.language.question import read_question
    from engine.offline.signals import names_subject

    from engine.offline.sentences import bridges

    numbers = [n for n in citations(answer) if 1 <= n <= len(evidence)]
    if not numbers:
        return []  # nothing to check it against: the citation check reports the missing [n]
    hops = bridges(evidence)  # a passage reached through a name in another passage is said of what that one is about
    cited = [evidence[n - 1] for n in numbers] + [evidence[hops[n] - 1] for n in numbers if n in hops]
    documents = {e.doc_id for e in cited}  # a passage is about what its document is about: the subject named in
    said = " ".join([strip_citations(answer)] + [f"{e.metadata.title} {e.text}" for e in evidence  # another of its
                                                  if e.doc_id in documents])  # retrieved passages counts as named
    return [f"The answer does not name {subject!r}, which the question asks about."
            for subject in read_question(" ".join(question.split())).subjects if not names_subject(said, subject)]


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
        "valid": not [i for i in issues if not is_note(i)],  # a note on the evidence does not fail the answer
        "issues": issues,
        "corrections": corrections,
        "confidence": confidence,
        "reasoning": reasoning,
    }
