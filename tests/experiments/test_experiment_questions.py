"""Question sets from text files, JSONL, uploads, the samples and past traces."""

from __future__ import annotations

import json

import pytest

from engine.experiments import (
    ExperimentError, QuestionSet, load_question_set, load_questions_file, parse_questions, questions_from_traces,
    sample_questions,
)
from engine.tracing import TraceStore

pytestmark = pytest.mark.unit


def test_text_lines_skip_comments_and_blanks(tmp_path):
    path = tmp_path / "qs.txt"
    path.write_text("# header\n\nWhat is X?\n   # indented comment\n  What is Y?  \n", encoding="utf-8")
    qs = load_questions_file(path)
    assert qs == QuestionSet("file:qs.txt", ("What is X?", "What is Y?"))


def test_jsonl_by_suffix_or_content(tmp_path):
    rows = [{"question": "First?", "id": 1}, {"question": " Second? "}]
    text = "\n".join(json.dumps(r) for r in rows) + "\n\n"
    path = tmp_path / "qs.jsonl"
    path.write_text(text, encoding="utf-8")
    assert load_questions_file(path).questions == ("First?", "Second?")
    assert parse_questions(text, "upload.txt") == ["First?", "Second?"]


def test_jsonl_errors_name_the_line():
    with pytest.raises(ExperimentError, match=r"qs.jsonl:2 is not valid JSON"):
        parse_questions('{"question": "a"}\n{broken\n', "qs.jsonl")
    with pytest.raises(ExperimentError, match=r'qs.jsonl:1 has no "question"'):
        parse_questions('{"text": "a"}\n', "qs.jsonl")


def test_empty_and_missing_files_say_what_to_do(tmp_path):
    with pytest.raises(ExperimentError, match="one question per line"):
        parse_questions("# only a comment\n\n", "empty.txt")
    with pytest.raises(ExperimentError, match="'samples' or 'traces'"):
        load_questions_file(tmp_path / "nope.txt")


def test_upload_bytes_with_bom_and_bad_encoding():
    qs = QuestionSet.from_upload("up.txt", "\ufeffOne?\nTwo?\n".encode("utf-8"))
    assert qs.source == "file:up.txt" and qs.questions == ("One?", "Two?")
    with pytest.raises(ExperimentError, match="UTF-8"):
        QuestionSet.from_upload("up.txt", b"\xff\xfe\x00bad")


def test_limit():
    qs = QuestionSet("x", ("a", "b", "c"))
    assert qs.limited(2).questions == ("a", "b") and qs.limited(None) is qs and len(qs.limited(10)) == 3
    with pytest.raises(ExperimentError, match="at least 1"):
        qs.limited(0)


def test_sample_questions_shipped():
    qs = sample_questions()
    assert qs.source == "samples" and len(qs) >= 10
    assert not any(q.startswith("#") for q in qs.questions)
    assert load_question_set("samples", limit=3).questions == qs.questions[:3]


def _save(store: TraceStore, n: int, question: str, created_at: str) -> None:
    store.save({"trace_id": f"tr{n}", "question": question, "status": "success", "created_at": created_at,
                "timings": {"total": 1.0}, "extra": {}})


def test_trace_questions_distinct_newest_first(tmp_path):
    store = TraceStore(tmp_path)
    _save(store, 1, "Oldest?", "2024-01-01T00:00:00+00:00")
    _save(store, 2, "Repeated?", "2024-01-02T00:00:00+00:00")
    _save(store, 3, "Middle?", "2024-01-03T00:00:00+00:00")
    _save(store, 4, "Repeated?", "2024-01-04T00:00:00+00:00")
    _save(store, 5, "  Newest?  ", "2024-01-05T00:00:00+00:00")
    assert questions_from_traces(store, limit=10).questions == ("Newest?", "Repeated?", "Middle?", "Oldest?")
    two = load_question_set("traces", tmp_path, limit=2)
    assert two == QuestionSet("traces", ("Newest?", "Repeated?"))


def test_trace_questions_look_past_many_duplicates(tmp_path):
    store = TraceStore(tmp_path)
    for n in range(130):
        _save(store, n, "Same?", f"2024-02-01T00:00:{n % 60:02d}+00:00" if n < 60 else
              f"2024-02-01T00:{n // 60:02d}:{n % 60:02d}+00:00")
    _save(store, 999, "Rare?", "2024-01-01T00:00:00+00:00")
    assert questions_from_traces(store, limit=2).questions == ("Same?", "Rare?")


def test_no_traces_says_what_to_do(tmp_path):
    with pytest.raises(ExperimentError, match="ask some questions first"):
        load_question_set("traces", tmp_path)
