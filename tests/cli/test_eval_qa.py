"""``python -m engine eval qa``: answer-or-refuse metrics over a question set, JSON output, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.evaluation.qa import METRIC_KEYS, contains_answer, read_qa_rows, score
from engine.errors import EngineError
from tests.helpers import run_json

CORPUS = [
    {"id": "budget", "title": "Riverton City Budget 2024",
     "text": "The Riverton city council adopted the 2024 budget in December 2023. Total spending is 84.2 million "
             "dollars, of which 21.5 million dollars go to public transport."},
    {"id": "tablekit", "title": "Tablekit changelog",
     "text": "Tablekit version 2.0 was released on 3 March 2025. It removes the legacy CSV exporter."},
]
QUESTIONS = [
    {"id": "q1", "question": "When was Tablekit version 2.0 released?", "answers": ["3 March 2025"], "answerable": True},
    {"id": "q2", "question": "What is the capital of France?", "answers": ["Paris"], "answerable": False},
    {"id": "q3", "question": "Who wrote the novel Moby-Dick?", "answers": ["Herman Melville"], "answerable": False},
]


def write(path: Path, rows) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


@pytest.mark.unit
def test_containment_ignores_case_whitespace_and_trailing_punctuation():
    assert contains_answer("It was released on 3  March 2025 [1].", ["3 march 2025."])
    assert contains_answer("Written by Robert \"Throb\" Young.", ['Robert "Throb" Young'])
    assert not contains_answer("Released in 2025.", ["3 March 2025"])


@pytest.mark.unit
def test_containment_takes_whole_words_and_whole_numbers():
    assert not contains_answer("It applies to Model 737–8 airplanes [4].", ["73"])
    assert not contains_answer("Torque it to 6.5 N.m [1].", ["6"])
    assert not contains_answer("Case No. 07-1315 [1].", ["1315"])
    assert not contains_answer("The toolkit [1].", ["tool"])
    assert contains_answer("It affects 73 airplanes of U.S. registry [4].", ["73"])
    assert contains_answer("Torque it to 6 N.m, then 6.5 N.m [1].", ["6"])
    assert contains_answer("Case No. 07‑1315 [1].", ["07-1315"])
    assert contains_answer("It cost $618.00 [2].", ["$618.00"])
    assert contains_answer("It was 1,250 kg.", ["1,250"])


@pytest.mark.unit
def test_score_counts_answered_and_refused_separately():
    rows = [
        {"answerable": True, "answered": True, "correct": True, "chars": 40, "seconds": 1.0},
        {"answerable": True, "answered": True, "correct": False, "chars": 60, "seconds": 2.0},
        {"answerable": True, "answered": False, "correct": False, "chars": 0, "seconds": 1.0},
        {"answerable": False, "answered": False, "correct": False, "chars": 0, "seconds": 1.0},
        {"answerable": False, "answered": True, "correct": False, "chars": 100, "seconds": 3.0},
    ]
    metrics = score(rows)
    assert metrics["coverage"] == round(2 / 3, 4) and metrics["answered_accuracy"] == 0.5
    assert metrics["correct_answerable"] == 1 and metrics["refusal_recall"] == 0.5
    assert metrics["false_answer_rate"] == 0.5 and metrics["mean_answer_chars"] == round(200 / 3, 1)


@pytest.mark.unit
def test_bad_rows_say_what_to_fix(tmp_path):
    bad = tmp_path / "q.jsonl"
    bad.write_text('{"id": "x", "question": "Why?"}\n', encoding="utf-8")
    with pytest.raises(EngineError, match="answers, answerable"):
        read_qa_rows(bad)
    with pytest.raises(EngineError, match="does not exist"):
        read_qa_rows(tmp_path / "missing.jsonl")


@pytest.mark.integration
@pytest.mark.slow
def test_eval_qa_indexes_a_corpus_and_reports_every_metric(tmp_path, capsys):
    out = tmp_path / "rows.jsonl"
    args = ["eval", "qa", "--questions", str(write(tmp_path / "q.jsonl", QUESTIONS)),
            "--corpus", str(write(tmp_path / "c.jsonl", CORPUS)), "--data-dir", str(tmp_path / "data")]
    code, payload = run_json(capsys, *args, "--out", str(out))
    assert code == 0 and payload["questions"] == 3
    assert set(METRIC_KEYS) <= set(payload)
    assert payload["refusal_recall"] == 1.0  # neither out-of-corpus question is answered
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["id"] for r in rows] == ["q1", "q2", "q3"]
    assert rows[1]["answerability"] == "unanswerable" and not rows[1]["answered"]
    assert not (tmp_path / "data" / "lancedb").exists()  # the corpus went into a temporary store
    code, guesses = run_json(capsys, *args, "--accuracy", "0")  # best guesses: the answerable one is answered right
    assert code == 0 and guesses["coverage"] == 1.0 and guesses["answered_accuracy"] == 1.0
    assert guesses["refusal_recall"] == 1.0  # the reviewer still refuses what the documents do not say


@pytest.mark.integration
def test_eval_qa_on_an_empty_data_dir_says_to_index_first(tmp_path, capsys):
    code, payload = run_json(capsys, "eval", "qa", "--questions", str(write(tmp_path / "q.jsonl", QUESTIONS)),
                             "--data-dir", str(tmp_path / "empty"))
    assert code != 0 and "no knowledge bases" in json.dumps(payload).lower()
