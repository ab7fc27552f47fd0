"""Answer-or-refuse evaluation: ask each question through the pipeline and score answers and refusals.

Input rows: ``{"id", "question", "answers": [str], "answerable": bool}``. A question counts as
answered correctly when the final answer (not refused) contains one of the gold answers after
case and whitespace normalisation, as whole words and whole numbers ("73" is not in "737-8", nor
"6" in "6.5"). Refusing everything or answering everything is easy; the
report gives coverage, answered accuracy and refusal recall together so neither can hide.
"""

from __future__ import annotations

import re
import tempfile
import time
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from engine.config import Settings, load_settings
from engine.errors import EngineError
from engine.evaluation.retrieval import EVAL_KB, read_jsonl
from engine.evaluation.rows import require_fields, string_list

METRIC_KEYS = ("coverage", "answered_accuracy", "first_sentence_accuracy", "correct_answerable", "refusal_recall",
               "false_answer_rate", "mean_answer_chars", "p50_s", "p95_s")
SELECTIVE_KEYS = ("coverage_at_80", "coverage_at_90", "accuracy_at_coverage_0.2", "accuracy_at_coverage_0.4", "aurc",
                  "roc_auc")


@dataclass(frozen=True)
class QARow:
    id: str
    question: str
    answers: tuple[str, ...]
    answerable: bool


def read_qa_rows(path: str | Path, limit: int | None = None) -> list[QARow]:
    """Rows of ``{"id","question","answers":[...],"answerable":bool}``; a bad row raises EngineError."""
    file = Path(path)
    if not file.is_file():
        raise EngineError(f"{file} does not exist; pass a JSONL file of questions.")
    rows: list[QARow] = []
    for number, data in enumerate(read_jsonl(file), start=1):
        rows.append(qa_row(data, f"{file} row {number}"))
        if limit is not None and len(rows) >= limit:
            break
    if not rows:
        raise EngineError(f"{file} holds no questions.")
    return rows


def qa_row(data: Any, where: str) -> QARow:
    """One ``{"id","question","answers":[...],"answerable":bool}`` row checked; EngineError says what is wrong."""
    data = require_fields(data, ("id", "question", "answers", "answerable"), where)
    answers = string_list(data["answers"], "answers", where)
    if not isinstance(data["answerable"], bool):
        raise EngineError(f"{where}: answerable must be true or false.")
    return QARow(str(data["id"]), str(data["question"]), tuple(answers), data["answerable"])


DASHES = str.maketrans({c: "-" for c in "\u2010\u2011\u2012\u2013\u2014\u2212"})


def normalise(text: str) -> str:
    """Lower case, accents folded, dashes made "-", punctuation around words dropped, whitespace collapsed."""
    folded = unicodedata.normalize("NFKD", text.translate(DASHES)).encode("ascii", "ignore").decode()
    return " ".join(re.sub(r"[^\w\s.,'-]", " ", folded.lower()).split())


def first_sentence(final: str) -> str:
    """The answer's first sentence: the one that must state the asked value."""
    from engine.language.sentences import split_sentences

    found = split_sentences(final or "")
    return found[0] if found else ""


def contains_answer(final: str, answers: Sequence[str]) -> bool:
    """True when ``final`` contains one of ``answers`` after normalisation (trailing punctuation ignored), as whole
    words: not inside a longer word or number ("73" is not in "737", "6" not in "6.5", "1315" not in "07-1315")."""
    body = normalise(final)
    for answer in answers:
        gold = normalise(answer).strip(" .,;:'")
        if gold and re.search(rf"(?<![\w-])(?<!\d[.,]){re.escape(gold)}(?![\w-])(?![.,]\d)", body):
            return True
    return False


@dataclass(frozen=True)
class QAReport:
    questions: int
    metrics: dict[str, float]
    rows: tuple[dict[str, Any], ...] = field(repr=False, default=())
    selective: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out = {"questions": self.questions, **self.metrics}
        if self.selective:
            out["selective"] = self.selective
        return out


def score(rows: Sequence[dict[str, Any]]) -> dict[str, float]:
    """The report's metrics from per-question rows (``answerable``, ``answered``, ``correct``, ``chars``, ``seconds``)."""
    answerable = [r for r in rows if r["answerable"]]
    unanswerable = [r for r in rows if not r["answerable"]]
    answered_ok = [r for r in answerable if r["answered"]]
    correct = sum(1 for r in answered_ok if r["correct"])
    first = sum(1 for r in answered_ok if r.get("first_correct"))
    answered = [r for r in rows if r["answered"]]
    seconds = [r["seconds"] for r in rows] or [0.0]
    return {
        "coverage": round(len(answered_ok) / len(answerable), 4) if answerable else 0.0,
        "answered_accuracy": round(correct / len(answered_ok), 4) if answered_ok else 0.0,
        "first_sentence_accuracy": round(first / len(answered_ok), 4) if answered_ok else 0.0,
        "correct_answerable": correct,
        "refusal_recall": round(sum(1 for r in unanswerable if not r["answered"]) / len(unanswerable), 4)
        if unanswerable else 0.0,
        "false_answer_rate": round(sum(1 for r in unanswerable if r["answered"]) / len(unanswerable), 4)
        if unanswerable else 0.0,
        "mean_answer_chars": round(float(np.mean([r["chars"] for r in answered])), 1) if answered else 0.0,
        "p50_s": round(float(np.percentile(seconds, 50)), 3),
        "p95_s": round(float(np.percentile(seconds, 95)), 3),
    }


Asker = Callable[[str], Any]


def run_questions(rows: Sequence[QARow], ask: Asker, progress: Callable[[int, int], None] | None = None) -> QAReport:
    """Ask every row with ``ask(question) -> Answer`` and score the results."""
    out: list[dict[str, Any]] = []
    for number, row in enumerate(rows, start=1):
        started = time.perf_counter()
        answer = ask(row.question)
        seconds = time.perf_counter() - started
        answered = answer.status == "success"
        judged = getattr(answer, "answerability", None)
        verdict = judged.verdict if judged else None
        span = judged.span if judged else None
        said = (span.value or span.sentence) if span is not None else ""
        out.append({
            "id": row.id, "question": row.question, "answerable": row.answerable, "gold": list(row.answers),
            "status": answer.status, "answered": answered,
            "correct": answered and contains_answer(answer.final, row.answers),
            "first_correct": answered and contains_answer(first_sentence(answer.final), row.answers),
            "confidence": judged.confidence if judged else None,
            "threshold": judged.threshold if judged else None,
            "best_right": bool(row.answerable and said and contains_answer(said, row.answers)),
            "features": dict(judged.features) if judged else {},
            "final": answer.final, "chars": len(answer.final) if answered else 0, "seconds": round(seconds, 3),
            "answerability": verdict, "trace_id": answer.trace_id,
        })
        if progress is not None:
            progress(number, len(rows))
    return QAReport(len(rows), score(out), tuple(out), selective_report(out))


def selective_report(rows: Sequence[dict[str, Any]], folds: int | None = None) -> dict[str, Any]:
    """Selective-QA figures of the recorded confidences (P that the best answer is right); with ``folds``, of a
    selector fitted on the other folds of these same questions, answering at the threshold those folds chose."""
    from engine.offline.calibration import SelectorRow, nested_decisions, selective_figures

    scored = [r for r in rows if r.get("confidence") is not None]
    if not scored:
        return {}
    out: dict[str, Any] = {}
    threshold = float(np.median([r["threshold"] for r in scored if r.get("threshold") is not None] or [0.5]))
    out["recorded"] = selective_figures([r["confidence"] for r in scored], [r["best_right"] for r in scored],
                                        [r["answerable"] for r in scored], threshold)
    if folds:
        fit_rows = [SelectorRow(r["features"], r["best_right"], r["answerable"], r["id"]) for r in scored
                    if r.get("features")]
        p, answered = nested_decisions(fit_rows, folds)
        out[f"{folds}_fold"] = selective_figures(p, [r.right for r in fit_rows], [r.answerable for r in fit_rows],
                                                 0.5, answered)
    return out


def evaluate_qa(
    questions: str | Path, *, corpus: str | Path | None = None, k: int | None = None,
    settings: Settings | None = None, limit: int | None = None, options: Any = None,
    progress: Callable[[int, int], None] | None = None, folds: int | None = None, selector: Any = None,
) -> QAReport:
    """Ask ``questions`` through the pipeline.

    With ``corpus`` (JSONL of ``{id, title, text}``) it is indexed into a fresh temporary store
    first; without it the knowledge bases already in ``settings.data_dir`` are used. ``k`` sets
    the strategy's top_k and evidence limit for this run. ``folds`` adds selective-QA figures of a selector fitted
    on the other folds of these questions; ``selector`` (a calibrated one) decides instead of the bases' own.
    """
    from engine.pipeline import AskOptions

    rows = read_qa_rows(questions, limit)
    base = settings or load_settings()
    options = options or AskOptions()
    if corpus is None:
        from engine.store import KnowledgeBaseStore

        store = KnowledgeBaseStore(base)
        if not store.list_knowledge_bases():  # every answer would "refuse" for want of documents
            raise EngineError(f"There are no knowledge bases in {base.data_dir}; index documents first "
                              "(python -m engine ingest PATH --kb NAME) or pass --corpus FILE.")
        return _with_folds(run_questions(rows, _asker(base, options, k, store, selector), progress), folds)
    corpus_rows = read_jsonl(corpus)
    with tempfile.TemporaryDirectory(prefix="rag-eval-qa-") as tmp:
        from engine.ingest import Ingestor
        from engine.store import KnowledgeBaseStore

        eval_settings = base.model_copy(update={"data_dir": Path(tmp), "store_uri": None})  # never the real store
        store = KnowledgeBaseStore(eval_settings)
        report = Ingestor(store).ingest_records(corpus_rows, EVAL_KB)
        store.sentence_filler.wait()  # the asks meet the base as a settled one (engine/store/sentence_fill.py)
        rejected = [f for f in report.files if f.status == "rejected"]
        if rejected:
            raise EngineError(f"{len(rejected)} corpus records were rejected, e.g. {rejected[0].name}: "
                              f"{rejected[0].reason}")
        return _with_folds(run_questions(rows, _asker(eval_settings, options, k, store, selector), progress), folds)


def _with_folds(report: QAReport, folds: int | None) -> QAReport:
    if not folds:
        return report
    return QAReport(report.questions, report.metrics, report.rows, selective_report(report.rows, folds))


def _asker(settings: Settings, options: Any, k: int | None, store: Any = None, selector: Any = None) -> Asker:
    from engine.pipeline import Pipeline

    pipeline = Pipeline(settings, store)
    pipeline.fixed_selector = selector
    if k is not None:
        if k < 1:
            raise EngineError("--k must be at least 1.")
        _, strategy = pipeline.strategies.active()
        pipeline.fixed_strategy = ("eval-k", strategy.model_copy(update={"top_k": k, "max_evidence": k}))
    return lambda question: pipeline.run(question, options)
