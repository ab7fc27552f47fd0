"""Question sets for experiments: a text or JSONL file, the sample questions, or past traces.

A JSONL file in the ``eval qa`` format (``{"id","question","answers":[...],"answerable":bool}``)
also carries its gold answers, so an experiment can score each arm's answers and refusals.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.errors import EngineError
from engine.evaluation.qa import QARow, qa_row
from engine.experiments.variants import ExperimentError

if TYPE_CHECKING:
    from engine.config import Settings

SAMPLE_QUESTIONS = Path(__file__).resolve().parents[2] / "sample_docs" / "questions.txt"
JSONL_SUFFIXES = (".jsonl", ".ndjson")
DEFAULT_TRACE_LIMIT = 50


@dataclass(frozen=True)
class QuestionSet:
    """Questions to run, in order, and where they came from (``samples``, ``traces``, ``file:NAME``).

    ``gold`` holds one row of gold answers per question, in the same order, or is empty.
    """

    source: str
    questions: tuple[str, ...]
    gold: tuple[QARow, ...] = ()

    def __post_init__(self) -> None:
        if self.gold and len(self.gold) != len(self.questions):
            raise ExperimentError("Gold answers must be given for every question or for none.")

    def __len__(self) -> int:
        return len(self.questions)

    def limited(self, limit: int | None) -> QuestionSet:
        """The first ``limit`` questions (all when ``limit`` is None)."""
        if limit is None:
            return self
        if limit < 1:
            raise ExperimentError(f"The question limit must be at least 1 (got {limit}); omit it to run all.")
        return QuestionSet(self.source, self.questions[:limit], self.gold[:limit])

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "questions": list(self.questions), "gold": [g.__dict__ for g in self.gold]}

    @classmethod
    def from_upload(cls, name: str, data: bytes | str) -> QuestionSet:
        """Parse an uploaded file's content (UTF-8 text lines or JSONL)."""
        if isinstance(data, bytes):
            try:
                data = data.decode("utf-8-sig")
            except UnicodeDecodeError:
                raise ExperimentError(f"{name} is not UTF-8 text; save it as UTF-8 and upload it again.") from None
        return question_set(f"file:{name}", data, name)


def _is_jsonl(text: str, name: str) -> bool:
    if name.lower().endswith(JSONL_SUFFIXES):
        return True
    for line in text.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            return stripped.startswith("{")
    return False


def question_set(source: str, text: str, name: str) -> QuestionSet:
    """The questions of file content and, for an ``eval qa`` JSONL file, their gold answers."""
    return QuestionSet(source, tuple(parse_questions(text, name)), tuple(parse_gold(text, name)))


def parse_gold(text: str, name: str = "questions") -> list[QARow]:
    """Gold rows of a JSONL file whose lines carry ``answers``/``answerable`` (empty for a file without gold).

    Either every line carries gold answers (in the ``eval qa`` format) or none does.
    """
    if not _is_jsonl(text, name):
        return []
    rows = [(n, json.loads(line)) for n, line in enumerate(text.lstrip("\ufeff").splitlines(), start=1)
            if line.strip() and not line.strip().startswith("#")]
    if not any(isinstance(row, dict) and {"answers", "answerable"} & set(row) for _, row in rows):
        return []
    try:
        return [qa_row(row, f"{name}:{n}") for n, row in rows]
    except EngineError as exc:
        raise ExperimentError(f"{exc} A question file with gold answers needs them on every line, as "
                              '{"id", "question", "answers": [...], "answerable": true|false}.') from None


def parse_questions(text: str, name: str = "questions") -> list[str]:
    """Questions from file content: one per line (blank and ``#`` lines skipped), or JSONL with ``question``."""
    jsonl = _is_jsonl(text, name)
    questions: list[str] = []
    for number, line in enumerate(text.lstrip("\ufeff").splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if not jsonl:
            questions.append(stripped)
            continue
        try:
            row = json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise ExperimentError(f"{name}:{number} is not valid JSON ({exc.msg}); fix that line.") from None
        question = row.get("question") if isinstance(row, dict) else None
        if not isinstance(question, str) or not question.strip():
            raise ExperimentError(f'{name}:{number} has no "question" text; '
                                  'each JSONL line needs {"question": "..."}.')
        questions.append(question.strip())
    if not questions:
        raise ExperimentError(f"{name} holds no questions; put one question per line (lines starting with # "
                              "are comments) or JSONL with a \"question\" field.")
    return questions


def load_questions_file(path: str | Path) -> QuestionSet:
    """Questions from a ``.txt`` or ``.jsonl`` file on disk."""
    path = Path(path)
    if not path.is_file():
        raise ExperimentError(f"Question file {path} not found; pass a .txt or .jsonl file, 'samples' or 'traces'.")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise ExperimentError(f"{path} is not UTF-8 text; save it as UTF-8 and retry.") from None
    return question_set(f"file:{path.name}", text, path.name)


def sample_questions(path: Path = SAMPLE_QUESTIONS) -> QuestionSet:
    """The demo questions shipped in ``sample_docs/questions.txt``."""
    if not path.is_file():
        raise ExperimentError(f"{path} is missing; restore sample_docs/ or pass a question file.")
    return QuestionSet("samples", load_questions_file(path).questions)


def questions_from_traces(traces: Any, limit: int = DEFAULT_TRACE_LIMIT) -> QuestionSet:
    """Distinct questions from stored runs (a ``TraceStore``), newest first, at most ``limit``."""
    if limit < 1:
        raise ExperimentError(f"The trace question limit must be at least 1 (got {limit}).")
    fetch = max(limit * 4, 100)
    while True:
        runs = traces.list(limit=fetch)
        seen: dict[str, None] = {}
        for run in runs:
            question = " ".join(str(run.question).split())
            if question:
                seen.setdefault(question, None)
            if len(seen) >= limit:
                break
        if len(seen) >= limit or len(runs) < fetch:
            break
        fetch *= 4
    if not seen:
        raise ExperimentError("There are no past traces yet; ask some questions first or use another question set.")
    return QuestionSet("traces", tuple(seen)[:limit])


def load_question_set(spec: str, data_dir: "Settings | Path | None" = None, limit: int | None = None) -> QuestionSet:
    """``samples``, ``traces`` (needs ``data_dir``: Settings or a data folder) or a file path -> QuestionSet, cut
    to ``limit``."""
    if spec == "samples":
        return sample_questions().limited(limit)
    if spec == "traces":
        if data_dir is None:
            raise ExperimentError("Past-trace questions need a data folder; pass --data-dir or set DATA_DIR.")
        from engine.tracing import TraceStore

        return questions_from_traces(TraceStore(data_dir), limit or DEFAULT_TRACE_LIMIT)
    return load_questions_file(spec).limited(limit)
