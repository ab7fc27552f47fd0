"""Question sets for experiments: a text or JSONL file, the sample questions, or past traces."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.experiments.variants import ExperimentError

SAMPLE_QUESTIONS = Path(__file__).resolve().parents[2] / "sample_docs" / "questions.txt"
JSONL_SUFFIXES = (".jsonl", ".ndjson")
DEFAULT_TRACE_LIMIT = 50


@dataclass(frozen=True)
class QuestionSet:
    """Questions to run, in order, and where they came from (``samples``, ``traces``, ``file:NAME``)."""

    source: str
    questions: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.questions)

    def limited(self, limit: int | None) -> QuestionSet:
        """The first ``limit`` questions (all when ``limit`` is None)."""
        if limit is None:
            return self
        if limit < 1:
            raise ExperimentError(f"The question limit must be at least 1 (got {limit}); omit it to run all.")
        return QuestionSet(self.source, self.questions[:limit])

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "questions": list(self.questions)}

    @classmethod
    def from_upload(cls, name: str, data: bytes | str) -> QuestionSet:
        """Parse an uploaded file's content (UTF-8 text lines or JSONL)."""
        if isinstance(data, bytes):
            try:
                data = data.decode("utf-8-sig")
            except UnicodeDecodeError:
                raise ExperimentError(f"{name} is not UTF-8 text; save it as UTF-8 and upload it again.") from None
        return cls(f"file:{name}", tuple(parse_questions(data, name)))


def _is_jsonl(text: str, name: str) -> bool:
    if name.lower().endswith(JSONL_SUFFIXES):
        return True
    for line in text.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            return stripped.startswith("{")
    return False


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
    return QuestionSet(f"file:{path.name}", tuple(parse_questions(text, path.name)))


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


def load_question_set(spec: str, data_dir: Path | None = None, limit: int | None = None) -> QuestionSet:
    """``samples``, ``traces`` (needs ``data_dir``) or a file path -> QuestionSet, cut to ``limit``."""
    if spec == "samples":
        return sample_questions().limited(limit)
    if spec == "traces":
        if data_dir is None:
            raise ExperimentError("Past-trace questions need a data folder; pass --data-dir or set DATA_DIR.")
        from engine.tracing import TraceStore

        return questions_from_traces(TraceStore(data_dir), limit or DEFAULT_TRACE_LIMIT)
    return load_questions_file(spec).limited(limit)
