"""Pipeline: question -> perception -> orchestration -> retrieval -> draft/review -> validation -> Answer."""

from __future__ import annotations

import copy
import sys
import time
import uuid
from contextlib import nullcontext
from dataclasses import replace
from collections.abc import Callable
from datetime import date, datetime, timezone
from typing import Any

from engine import heap
from engine.config import Settings
from engine.offline.answerability import ReaderAnswerability
from engine.offline.calibrate import SelectorStore
from engine.offline.refusal import refusal_text
from engine.errors import EngineError, KnowledgeBaseError, SearchError
from engine.orchestration import StrategyRouter, StrategyStore
from engine.output_safety import safe_answer
from engine.orchestration.strategy import Strategy
from engine.perception.followup import resolve_followup
from engine.pipeline.events import ask_extras, first_draft, span_listener
from engine.pipeline.options import AskOptions
from engine.pipeline.replan import DEEPER, MOST_K, adjust_plan, widen
from engine.results import Answer, Answerability, Intent, Validation
from engine.retrieval import Retriever
from engine.retrieval.fusion import task_label
from engine.retrieval.retriever import AskMemo, RetrievalResult
from engine.store import KnowledgeBaseStore
from engine.tracing import RecordingTracer, TraceStore

Progress = Callable[[str, dict[str, Any]], None]
DISAGREE = "The sources disagree"
"""How an offline answer over disagreeing sources of equal standing begins (it needs no caveat after it)."""


class Pipeline:
    """Answers questions over the knowledge bases and stores a trace of every run."""

    def __init__(
        self, settings: Settings, store: KnowledgeBaseStore | None = None, *, perception=None,
        strategies: StrategyStore | None = None, traces: TraceStore | None = None, retriever: Retriever | None = None,
        reflection_factory: Callable[..., Any] | None = None, validator=None, provider=None, answerability=None,
        today: Callable[[], date] = date.today,
    ) -> None:
        self.settings = settings
        sys.setswitchinterval(settings.switch_interval_ms / 1000)  # for the process: see the setting
        self.store = store or KnowledgeBaseStore(settings)
        if perception is None:
            from engine.perception import get_perception

            perception = get_perception()
        if reflection_factory is None:
            from engine.assemble import build_reflection as reflection_factory
        if validator is None:
            from engine.validation import Validator

            validator = Validator()
        self.perception = perception
        self.strategies = strategies or StrategyStore(settings)
        self.traces = traces or TraceStore(settings)
        self.retriever = retriever or Retriever(self.store, today=today)
        self.reflection_factory = reflection_factory
        self.validator = validator
        self.provider = provider  # an explicit Provider object (tests: ScriptedProvider)
        self.answerability = answerability or ReaderAnswerability(model_name=settings.embedding_model)
        self.fixed_strategy: tuple[str, Strategy] | None = None  # (label, strategy) used instead of the store's
        self.selectors = SelectorStore(settings)
        self.fixed_selector = None  # a Selector used instead of the bases' calibrated one (eval --calibration)

    def with_store(self, store: KnowledgeBaseStore) -> "Pipeline":
        """This pipeline over another view of the store (e.g. limited to one user's bases); the rest is shared."""
        view = copy.copy(self)
        view.store = store
        view.retriever = copy.copy(self.retriever)
        view.retriever.store = store
        return view

    # -- helpers --------------------------------------------------------------
    def _provider_id(self, options: AskOptions) -> str:
        if self.provider is not None:
            return getattr(self.provider, "name", "custom")
        if options.provider:
            return options.provider
        from engine.llm.registry import default_provider_id

        return default_provider_id()

    def _reflection(self, options: AskOptions, provider_id: str):
        return self.reflection_factory(
            provider_id, options.mode, generator_model=options.generator_model, reviewer_model=options.reviewer_model,
            settings=self.settings, provider=self.provider, max_rounds=options.max_rounds, threshold=options.threshold,
        )

    # -- the run --------------------------------------------------------------
    def run(self, question: str, options: AskOptions | None = None, progress: Progress | None = None) -> Answer:
        """Answer ``question``; EngineErrors become a stored ``failure`` Answer, other errors are stored then raised."""
        filler = getattr(self.store, "sentence_filler", None)  # sentences an ingest left to the background
        try:
            with filler.held() if filler is not None else nullcontext():  # wait while the user waits on this ask
                return self._answer(question, options, progress)
        finally:
            heap.upkeep()  # when the ask has ended: a due collection of reference cycles (engine/heap.py)

    def _answer(self, question: str, options: AskOptions | None, progress: Progress | None) -> Answer:
        options = options or AskOptions()
        notify = progress or (lambda stage, info: None)
        tracer = RecordingTracer(listener=span_listener(notify))  # stage_started / stage_finished events
        state: dict[str, Any] = {"trace_id": uuid.uuid4().hex[:16], "question": question, "started": time.perf_counter(),
                                 "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds")}
        try:
            answer = self._run(question, options, tracer, state, notify)
        except EngineError as exc:
            answer = self._failure(state, options, tracer, exc)
            self.traces.save(self._payload(answer, state), error=str(exc))
            notify("failure", {"error": str(exc)})
            return answer
        except Exception as exc:
            failed = self._failure(state, options, tracer, exc)
            self.traces.save(self._payload(failed, state), error=f"{type(exc).__name__}: {exc}")
            raise
        self.traces.save(self._payload(answer, state))
        notify("done", {"status": answer.status})
        return answer

    def _run(self, question: str, options: AskOptions, tracer: RecordingTracer, state: dict, notify: Progress) -> Answer:
        if not question or not question.strip():
            raise EngineError("The question is empty; type a question about your documents.")
        with tracer.span("perception"):
            known = self.store.knowledge_base_names()  # listed once per ask: the vocabulary and the tasks read it
            resolved = resolve_followup(question, options.previous_question, self.perception)
            asked, question = question, resolved.text
            vocabulary = self.store.vocabulary(options.knowledge_bases, known)
            # the question is embedded while spaCy reads it; started after the store read above, which it slowed
            self.retriever.prepare(question)
            intent = self.perception.run(question, vocabulary=vocabulary)
        state["intent"] = intent
        followup = {"followup": {"asked": asked, "resolved": question, "from": resolved.resolved_from,
                                 "explanation": resolved.explanation}} if resolved.is_followup else {}
        notify("perception", {"intent": intent})

        with tracer.span("orchestration"):
            if self.fixed_strategy is not None and not options.strategy_version:
                version, strategy = self.fixed_strategy
            elif options.strategy_version:
                version, strategy = options.strategy_version, self.strategies.load(options.strategy_version)
            else:
                version, strategy = self.strategies.active()
            state["strategy_version"] = version
            bases = list(options.knowledge_bases or known)
            if not bases:
                raise KnowledgeBaseError("There are no knowledge bases yet; upload documents on the Documents page "
                                         "or run `python -m engine ingest PATH --kb NAME`.")
            for kb in bases:
                if kb not in known:
                    raise KnowledgeBaseError(f"Knowledge base {kb!r} does not exist; pick one of {', '.join(known)}.")
            tasks = StrategyRouter(strategy, bases).run(intent)
        state["tasks"] = tasks
        notify("orchestration", {"tasks": tasks, "strategy_version": version})

        provider_id = self._provider_id(options)
        state["provider"] = provider_id
        loop = self._reflection(options, provider_id)
        provider_id = state["provider"] = loop.provider_label(provider_id)  # the models actually called
        state["loop"] = loop  # its model calls' usage goes into the Answer, failed runs included
        if callable(getattr(loop, "observe", None)):
            loop.observe(notify)  # the draft as it is written, each review as it comes
        attempts: list[dict[str, Any]] = []
        widened = False
        excluded: set[str] = set()
        understood = intent.corrected_query or question  # with misspellings corrected
        self.answerability.prepare(understood)  # read while retrieval waits on the store
        # calibrated on the user's own questions for these bases, if any
        selector = self.fixed_selector or self.selectors.for_bases(bases)
        # the first searches fetch as deep as a widened retry asks, which then reads their rows instead of searching
        memo = AskMemo(depth=DEEPER, most=MOST_K)
        while True:
            with tracer.span("retrieval"):
                retrieved = self.retriever.run(tasks, intent, strategy, memo)
                parts = state.setdefault("retrieval_parts", {})  # summed over the attempts, as the stage is
                for name, ms in retrieved.timings.items():
                    part = name.removesuffix("_ms")
                    parts[part] = parts.get(part, 0.0) + ms
                if excluded:  # evidence a failed timeliness check named as outdated is not offered again
                    retrieved = replace(retrieved, evidence=tuple(e for e in retrieved.evidence
                                                                  if e.chunk_id not in excluded))
            state["evidence"] = retrieved.evidence
            notify("retrieval", {"evidence": retrieved.evidence, "runs": retrieved.runs})
            failed = [r.error for r in retrieved.runs if r.error]
            if failed and len(failed) == len(retrieved.runs):
                raise SearchError(f"Every retrieval task failed, e.g. {failed[0]}; check the knowledge bases.")

            with tracer.span("answerability"):
                judged = self.answerability.run(understood, intent, retrieved.evidence,
                                                known_vectors={**retrieved.query_vectors,
                                                               **retrieved.sentence_vectors},
                                                accuracy=(self.settings.answer_accuracy if options.target_accuracy is None
                                                          else options.target_accuracy),
                                                selector=selector)
            if (judged.verdict == "unanswerable" and retrieved.evidence and not judged.missing
                    and not getattr(getattr(loop, "generator", None), "uses_answerability", False)):
                # a model generator reads the evidence itself; the reader's doubt about one extracted value is no
                # reason to refuse before it has read. Its answer still goes through review and validation.
                judged = judged.model_copy(update={"verdict": "answerable", "reason": (
                    "The evidence names everything the question asks about; the model reads it and the reviewer and "
                    f"validation check the answer. (The offline reader alone would not answer: {judged.reason})")})
            state["answerability"] = judged
            notify("answerability", {"answerability": judged})
            # a target no confidence reaches refuses whatever the evidence: searching wider cannot change that
            reachable = (judged.threshold is None or judged.threshold <= 1
                         or judged.signals.get("passage_threshold", 2.0) <= 1)
            if judged.verdict == "unanswerable" and not widened and reachable:
                widened = True  # one wider search before refusing: more candidates per task, more evidence
                with tracer.span("orchestration"):
                    tasks, strategy = widen(tasks, strategy)
                attempts.append({"tasks": len(tasks), "evidence": [e.chunk_id for e in retrieved.evidence],
                                 "valid": False, "issues": [judged.reason], "status": "unanswerable",
                                 "changes": ["k doubled per task and evidence limit raised before refusing"]})
                state["tasks"] = tasks
                notify("replan", {"changes": attempts[-1]["changes"], "tasks": tasks})
                continue

            with tracer.span("reflection"):
                if judged.verdict == "unanswerable" or (judged.verdict == "ambiguous"
                                                        and options.when_ambiguous == "refuse"):
                    windows = [(t.filters.since, t.filters.until) for t in tasks if t.filters.since or t.filters.until]
                    dated = windows[0] if windows and len(windows) == len(tasks) else None
                    outcome = _refusal(refusal_text(judged, [t.knowledge_base for t in tasks], dated))
                else:
                    outcome = self._reflect(loop, understood, retrieved, intent, options, judged)
            state["outcome"] = outcome
            notify("reflection", {"outcome": outcome})

            with tracer.span("validation"):
                cited = outcome.get("citations") or ()  # Claude's own citations: their passages are checked too
                validation = self.validator.run(outcome["candidate"], retrieved.evidence, intent,
                                                **({"citations": cited} if cited else {}))
            notify("validation", {"validation": validation})
            attempts.append(self._attempt_record(tasks, retrieved, validation, outcome))
            retries = sum(1 for a in attempts if a["status"] != "unanswerable")
            if validation.is_valid or outcome["status"] == "refused" or retries > options.validation_retries:
                break
            with tracer.span("orchestration"):
                tasks, strategy, changes = adjust_plan(tasks, validation, intent, strategy)
                outdated = {i.chunk_id for i in validation.issues if i.check == "timeliness" and i.chunk_id}
                if outdated - excluded:
                    excluded |= outdated
                    changes.append(f"{len(outdated)} outdated chunk(s) named by the timeliness check left out")
            attempts[-1]["changes"] = changes
            state["tasks"] = tasks
            notify("replan", {"changes": changes, "tasks": tasks})

        status, final = outcome["status"], outcome["final"]
        if status == "success" and not validation.is_valid:
            status = "refused"
            problems = "; ".join(i.message.rstrip(". ") for i in validation.issues[:3])
            final = (f"I could not verify this answer against the documents: {problems}. "
                     "The unverified answer is kept in the trace.")
        elif status == "success" and judged.verdict == "ambiguous" and not final.startswith(DISAGREE):
            final = f"{final}\n\nCaveat: {judged.reason}"
        return safe_answer(Answer(
            question=question, intent=intent, tasks=tuple(tasks), evidence=retrieved.evidence, draft=outcome["draft"],
            reviews=outcome["reviews"], revised=outcome["revised"], final=final, validation=validation, status=status,
            answerability=judged,
            iterations=outcome["iterations"], timings=self._timings(tracer, state, outcome),
            trace_id=state["trace_id"], provider=provider_id, strategy_version=state["strategy_version"],
            extra={"reflection": options.reflection, "mode": options.mode, "attempts": attempts,
                   "rounds": outcome["rounds"], "refusal_reason": outcome.get("refusal_reason"),
                   **ask_extras(state.get("loop"), outcome),
                   "rollout_bucket": options.rollout_bucket, "task_runs": self._task_runs(retrieved),
                   **({"user": options.user} if options.user else {}), **followup},
        ), self.settings.allowed_link_hosts)  # links and images in documents never reach the answer as links

    def _reflect(self, loop, question: str, retrieved: RetrievalResult, intent: Intent, options: AskOptions,
                 judged: Answerability) -> dict:
        evidence = retrieved.evidence
        if not options.reflection:
            started = time.perf_counter()
            uses = getattr(loop.generator, "uses_answerability", False)
            draft, cited = first_draft(loop, question, evidence, intent,
                                       *((judged,) if uses else ())) if evidence else ("", ())
            ms = (time.perf_counter() - started) * 1000
            if not evidence:
                return {"draft": "", "reviews": (), "revised": "", "final": _NO_EVIDENCE, "candidate": "",
                        "status": "refused", "iterations": 0, "rounds": [], "refusal_reason": "no evidence",
                        "timings": {"draft": ms}}
            return {"draft": draft, "reviews": (), "revised": draft, "final": draft, "candidate": draft,
                    "status": "success", "iterations": 0, "rounds": [], "timings": {"draft": ms}, "citations": cited}
        result = loop.run(question, evidence, intent, judged)
        candidate = result.revised or result.draft
        return {"draft": result.draft, "reviews": tuple(result.reviews), "revised": result.revised,
                "final": result.final, "candidate": candidate, "status": result.status,
                "iterations": result.iterations, "rounds": [_jsonable(r) for r in result.rounds],
                "refusal_reason": result.refusal_reason, "timings": dict(result.timings),
                "citations": getattr(result, "citations", ())}

    @staticmethod
    def _attempt_record(tasks, retrieved: RetrievalResult, validation: Validation, outcome: dict) -> dict:
        return {"tasks": len(tasks), "evidence": [e.chunk_id for e in retrieved.evidence],
                "valid": validation.is_valid, "issues": [i.message for i in validation.issues],
                "status": outcome["status"], "changes": []}

    @staticmethod
    def _task_runs(retrieved: RetrievalResult) -> list[dict[str, Any]]:
        return [{"task": task_label(i, r.task), "hits": len(r.hits) if r.reached is None else r.reached,
                 "ms": round(r.ms, 2), "error": r.error}
                for i, r in enumerate(retrieved.runs)]

    @staticmethod
    def _timings(tracer: RecordingTracer, state: dict, outcome: dict | None) -> dict[str, float]:
        timings = tracer.timings()
        for key, value in (outcome or {}).get("timings", {}).items():
            timings[f"reflection.{key}"] = round(float(value), 2)
        for key, value in state.get("retrieval_parts", {}).items():  # query embedding, searches, fusion, ...
            timings[f"retrieval.{key}"] = round(float(value), 2)
        timings["total"] = round((time.perf_counter() - state["started"]) * 1000, 2)
        return timings

    def _failure(self, state: dict, options: AskOptions, tracer: RecordingTracer, exc: BaseException) -> Answer:
        intent = state.get("intent") or Intent(action="unknown", raw_query=state["question"] or "")
        outcome = state.get("outcome") or {}
        message = str(exc) if isinstance(exc, EngineError) else f"Internal error ({type(exc).__name__}); see the trace."
        return Answer(
            question=state["question"] or "", intent=intent, tasks=tuple(state.get("tasks", ())),
            evidence=tuple(state.get("evidence", ())), draft=outcome.get("draft", ""),
            reviews=outcome.get("reviews", ()), revised=outcome.get("revised", ""), final=message, status="failure",
            answerability=state.get("answerability"),
            iterations=outcome.get("iterations", 0), timings=self._timings(tracer, state, outcome),
            trace_id=state["trace_id"], provider=state.get("provider", ""),
            strategy_version=state.get("strategy_version", ""),
            extra={"reflection": options.reflection, "mode": options.mode, "error": message,
                   **ask_extras(state.get("loop"), outcome),
                   **({"user": options.user} if options.user else {})},
        )

    @staticmethod
    def _payload(answer: Answer, state: dict) -> dict[str, Any]:
        payload = answer.model_dump(mode="json")
        payload["created_at"] = state["created_at"]
        return payload


def _refusal(message: str) -> dict[str, Any]:
    """The reflection outcome for a question the evidence does not answer: nothing drafted."""
    return {"draft": "", "reviews": (), "revised": "", "final": message, "candidate": "", "status": "refused",
            "iterations": 0, "rounds": [], "refusal_reason": message, "timings": {}}


_NO_EVIDENCE = "I found no evidence in the knowledge bases for this question, so I cannot answer it."


def _jsonable(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    if hasattr(value, "__dataclass_fields__"):
        from dataclasses import asdict

        return {k: _jsonable(v) for k, v in asdict(value).items()}
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value
