"""The review loop: draft -> review -> correct or revise -> review ..., capped, ending in an answer or a refusal.

While it works the loop reports to the listeners given to :meth:`ReflectionLoop.observe`, with the
``(stage, info)`` signature of the pipeline's ``progress`` callback:

- ``draft_delta`` ``{"step": "draft" | "revise", "text"}``: more of the answer being written, in order
  (the model's stream; an offline part's answer sentence by sentence);
- ``draft_reset`` ``{"step", "reason"}``: the stream broke and was started again, the text so far is void;
- ``draft_done`` ``{"step", "text"}``: the answer as written, with its [n] markers;
- ``review`` ``{"round", "review"}``: a review round's verdict, as soon as the reviewer returns.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Literal, Sequence

from pydantic import Field

from engine.llm.streaming import StreamEvent, StreamRestart, TextDelta
from engine.llm.usage import AskUsage, UsageMeter
from engine.reflection.citing import CitedSpan
from engine.reflection.protocols import Generator, Reviewer
from engine.language.sentences import split_sentences
from engine.language.tokens import words
from engine.results import Answerability, Correction, Evidence, Frozen, Intent, Review

Listener = Callable[[str, dict[str, Any]], None]
RoundAction = Literal["accepted", "corrected", "revised", "refused"]
Mode = Literal["dual", "single"]
REFUSAL_PREFIX = "I could not verify an answer from the documents"
NO_EVIDENCE = f"{REFUSAL_PREFIX}: no evidence was retrieved for this question."


class RoundRecord(Frozen):
    """One review and what the loop did about it."""

    round: int
    answer: str
    review: Review
    action: RoundAction
    applied_corrections: tuple[Correction, ...] = ()
    timings: dict[str, float] = Field(default_factory=dict)


class ReflectionResult(Frozen):
    """Everything the loop produced: draft, every review and round, the final answer or the refusal."""

    draft: str = ""
    reviews: tuple[Review, ...] = ()
    revised: str = ""
    final: str = ""
    status: Literal["success", "refused"]
    iterations: int = 0
    refusal_reason: str = ""
    rounds: tuple[RoundRecord, ...] = ()
    timings: dict[str, float] = Field(default_factory=dict)
    mode: Mode = "dual"
    citations: tuple[CitedSpan, ...] = Field(default=(), description="passages the model cited for the final "
                                             "answer (Claude's own citations); empty for typed [n] markers")

    @property
    def last_review(self) -> Review | None:
        return self.reviews[-1] if self.reviews else None


def apply_corrections(answer: str, corrections: Sequence[Correction]) -> tuple[str, tuple[Correction, ...]]:
    """Replace each correction's ``original`` (when it occurs in the answer); returns the text and those applied."""
    applied: list[Correction] = []
    for correction in corrections:
        if correction.original and correction.original in answer and correction.original != correction.corrected:
            answer = answer.replace(correction.original, correction.corrected)
            applied.append(correction)
    return answer, tuple(applied)


def usable_corrections(corrections: Sequence[Correction], evidence: Sequence[Evidence]) -> tuple[Correction, ...]:
    """``corrections`` without the ``overconfidence`` ones that bring in words the evidence does not use.

    Absolute wording may only be replaced by the evidence's own wording; a hedge made up by a
    reviewer ("never" -> "rarely") changes what the answer claims, so the statement stays
    flagged instead, and the loop revises or refuses.
    """
    vocabulary = {w for item in evidence for w in words(item.text)}
    return tuple(c for c in corrections
                 if c.type != "overconfidence" or set(words(c.corrected)) - set(words(c.original)) <= vocabulary)


def refusal_message(review: Review | None, limit: int = 3) -> str:
    """The refusal text, naming the main issues of the last review."""
    if review is None or not review.issues:
        detail = "the review did not reach the required confidence"
        if review is not None:
            detail += f" ({review.confidence:.2f})"
        return f"{REFUSAL_PREFIX}: {detail}."
    order = ("injection", "fact", "citation", "logic", "overconfidence", "format")
    ranked = sorted(review.issues, key=lambda i: order.index(i.type))
    seen: list[str] = []
    for issue in ranked:
        if issue.type == "injection" and not issue.location:  # a note about planted text: never repeat its words
            text = "injection: " + issue.description.split(" (", 1)[0] + " and was not followed"
            if text not in seen:
                seen.append(text)
            continue
        where = issue.location if len(issue.location) <= 60 else issue.location[:57] + "..."
        text = f"{issue.type}" + (f" in \"{where}\"" if where else "") + f": {issue.description.rstrip('.')}"
        if text not in seen:
            seen.append(text)
    more = f" (and {len(seen) - limit} more)" if len(seen) > limit else ""
    return f"{REFUSAL_PREFIX}: " + "; ".join(seen[:limit]) + more + "."


class ReflectionLoop:
    """Drafts with ``generator``, reviews with ``reviewer``, and fixes up to ``max_rounds`` times.

    An answer is accepted when the review is valid with confidence >= ``threshold``. Otherwise the
    corrections whose ``original`` occurs in the answer are applied (absolute wording only with the
    evidence's own words: see :func:`usable_corrections`); when none apply, the generator
    revises with the review as feedback. Still failing after ``max_rounds`` fixes, or when a fix
    changes nothing, the loop refuses.
    """

    def __init__(
        self, generator: Generator, reviewer: Reviewer, max_rounds: int = 2, threshold: float = 0.9,
        *, mode: Mode = "dual",
    ) -> None:
        if not isinstance(generator, Generator):
            raise TypeError("generator must implement draft() and revise() (see engine.reflection.protocols)")
        if not isinstance(reviewer, Reviewer):
            raise TypeError("reviewer must implement review() (see engine.reflection.protocols)")
        if isinstance(max_rounds, bool) or not isinstance(max_rounds, int) or not 0 <= max_rounds <= 10:
            raise ValueError(f"max_rounds must be an integer from 0 to 10, got {max_rounds!r}")
        if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0 <= threshold <= 1:
            raise ValueError(f"threshold must be a number in [0, 1], got {threshold!r}")
        if mode not in ("dual", "single"):
            raise ValueError(f"mode must be 'dual' or 'single', got {mode!r}")
        self.generator = generator
        self.reviewer = reviewer
        self.max_rounds = max_rounds
        self.threshold = float(threshold)
        self.mode = mode
        self._listeners: list[Listener] = []

    def observe(self, listener: Listener) -> None:
        """Report the loop's progress (streamed answer text, review verdicts) to ``listener(stage, info)``."""
        self._listeners.append(listener)

    def _emit(self, stage: str, info: dict[str, Any]) -> None:
        for listener in self._listeners:
            listener(stage, info)

    def usage(self) -> AskUsage:
        """Tokens and estimated cost of the model calls its parts made, per stage; zero for offline parts."""
        meters = list({id(m): m for m in (getattr(self.generator, "meter", None),
                                          getattr(self.reviewer, "meter", None))
                       if isinstance(m, UsageMeter)}.values())
        if len(meters) == 1:
            return meters[0].summary()
        merged = UsageMeter(meters[0].prices if meters else None)
        for meter in meters:
            for call in meter.calls:
                merged.record(call.stage, call.model, call.usage)
        return merged.summary()

    def draft(self, question: str, evidence: Sequence[Evidence], intent: Intent,
              *context: Any) -> tuple[str, tuple[CitedSpan, ...]]:
        """A first answer and the passages it cites; its text goes to the listeners as it is written.

        ``context`` goes on to a generator's ``draft`` that takes more than the three arguments.
        """
        compose = getattr(self.generator, "compose", None)
        if callable(compose):
            written = compose(question, evidence, intent, on_event=self._streamer("draft"))
            text, cited = written.text, tuple(written.citations)
        else:
            text, cited = self.generator.draft(question, evidence, intent, *context), ()
            self._sentences("draft", text)
        self._emit("draft_done", {"step": "draft", "text": text})
        return text, cited

    def _revise(self, question: str, evidence: Sequence[Evidence], answer: str,
                review: Review) -> tuple[str, tuple[CitedSpan, ...] | None]:
        """The revised answer and its cited passages (None: the generator does not cite them itself)."""
        rewrite = getattr(self.generator, "rewrite", None)
        if callable(rewrite):
            written = rewrite(question, evidence, answer, review, on_event=self._streamer("revise"))
            text, cited = written.text, tuple(written.citations)
        else:
            text, cited = self.generator.revise(question, evidence, answer, review), None
            self._sentences("revise", text)
        self._emit("draft_done", {"step": "revise", "text": text})
        return text, cited

    def _streamer(self, step: str) -> Callable[[StreamEvent], None]:
        def report(event: StreamEvent) -> None:
            if isinstance(event, TextDelta):
                self._emit("draft_delta", {"step": step, "text": event.text})
            elif isinstance(event, StreamRestart):
                self._emit("draft_reset", {"step": step, "reason": event.reason})
        return report

    def _sentences(self, step: str, text: str) -> None:
        """An answer written in one go (the offline parts), reported sentence by sentence."""
        if not self._listeners:
            return
        sentences = split_sentences(text) or ([text] if text.strip() else [])
        for number, sentence in enumerate(sentences):
            self._emit("draft_delta", {"step": step, "text": sentence + (" " if number < len(sentences) - 1 else "")})

    def __repr__(self) -> str:
        return (f"ReflectionLoop(mode={self.mode!r}, generator={_name(self.generator)!r}, "
                f"reviewer={_name(self.reviewer)!r}, max_rounds={self.max_rounds}, threshold={self.threshold})")

    def describe(self) -> dict[str, object]:
        """Mode, parts and settings, for display."""
        return {"mode": self.mode, "generator": _name(self.generator), "reviewer": _name(self.reviewer),
                "max_rounds": self.max_rounds, "threshold": self.threshold}

    def provider_label(self, default: str) -> str:
        """Who answers: the parts' ``provider:model`` ids joined by " / " (one id when both are the same).

        ``default`` when neither part names a model (the offline parts, a scripted provider).
        """
        parts = (self.generator, self.reviewer)
        if not any(isinstance(getattr(part, "model", None), str) and part.model for part in parts):
            return default
        return " / ".join(dict.fromkeys(_name(part) for part in parts))

    def run(self, question: str, evidence: Sequence[Evidence], intent: Intent,
            answerability: Answerability | None = None) -> ReflectionResult:
        """Draft, review and fix until accepted or out of rounds.

        ``answerability``, the pipeline's verdict on the evidence, goes to a generator that declares
        ``uses_answerability`` (the offline one leads with its value).
        """
        evidence = tuple(evidence)
        if not evidence:
            return ReflectionResult(status="refused", refusal_reason=NO_EVIDENCE, final=NO_EVIDENCE, mode=self.mode)
        totals = {"draft": 0.0, "review": 0.0, "revise": 0.0}
        started = time.perf_counter()
        uses = answerability is not None and getattr(self.generator, "uses_answerability", False)
        answer, cited = self.draft(question, evidence, intent, *((answerability,) if uses else ()))
        draft = answer
        totals["draft"] = _ms(started)
        reviews: list[Review] = []
        rounds: list[RoundRecord] = []
        iterations = 0
        revised = ""
        while True:
            started = time.perf_counter()
            review = self.reviewer.review(question, evidence, answer)
            review_ms = _ms(started)
            totals["review"] += review_ms
            reviews.append(review)
            number = len(reviews)
            self._emit("review", {"round": number, "review": review})
            if review.valid and review.confidence >= self.threshold:
                rounds.append(RoundRecord(round=number, answer=answer, review=review, action="accepted",
                                          timings={"review": review_ms}))
                return ReflectionResult(draft=draft, reviews=tuple(reviews), revised=revised, final=answer,
                                        status="success", iterations=iterations, rounds=tuple(rounds),
                                        timings=_rounded(totals), mode=self.mode, citations=cited)
            fixed, applied, fix_ms = answer, (), 0.0
            if iterations < self.max_rounds:
                started = time.perf_counter()
                usable = usable_corrections(review.corrections, evidence)
                fixed, applied = apply_corrections(answer, usable)
                if not applied:
                    kept = review if usable == review.corrections else review.model_copy(update={"corrections": usable})
                    fixed, recited = self._revise(question, evidence, answer, kept)
                    cited = cited if recited is None else recited
                fix_ms = _ms(started)
                totals["revise"] += fix_ms
            if iterations >= self.max_rounds or fixed.strip() == answer.strip():
                reason = refusal_message(review)
                rounds.append(RoundRecord(round=number, answer=answer, review=review, action="refused",
                                          timings={"review": review_ms, "revise": fix_ms}))
                return ReflectionResult(draft=draft, reviews=tuple(reviews), revised=revised, final=reason,
                                        status="refused", iterations=iterations, refusal_reason=reason,
                                        rounds=tuple(rounds), timings=_rounded(totals), mode=self.mode)
            action: RoundAction = "corrected" if applied else "revised"
            rounds.append(RoundRecord(round=number, answer=answer, review=review, action=action,
                                      applied_corrections=applied, timings={"review": review_ms, "revise": fix_ms}))
            iterations += 1
            answer = revised = fixed


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000.0


def _rounded(values: dict[str, float]) -> dict[str, float]:
    return {k: round(v, 3) for k, v in values.items()}


def _name(part: object) -> str:
    return str(getattr(part, "name", type(part).__name__))
