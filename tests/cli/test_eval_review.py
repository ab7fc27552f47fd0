"""``python -m engine eval review``: verdicts per row, detection metrics, JSON output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.cli import build_parser, main
from engine.evaluation.review import METRIC_KEYS, detection_metrics, evaluate_review, read_review_rows
from engine.results import Review, ReviewIssue

DATASET = Path(__file__).resolve().parents[2].parent / "shared" / "datasets" / "review_dev" / "begin_dev.jsonl"
WHEEL = "Torque the axle nut to 150 lbf.ft and safety it with the lock bolt."
ROWS = [
    {"id": "a", "question": "What torque?", "passages": [WHEEL], "answer": "Torque the axle nut to 150 lbf.ft.", "label": 0},
    {"id": "b", "question": "What torque?", "passages": [WHEEL],
     "answer": "Torque the axle nut to 95 lbf.ft while singing loudly in the hangar.", "label": 1},
    {"id": "c", "question": "Brakes?", "passages": ["The brake is serviceable while the pin protrudes at least 1.0 mm.",
                                                    "Replace the brake when the pin is flush."],
     "answer": "Replace the brake when the pin is flush.", "label": 0},
]


def write_rows(path: Path, rows=ROWS) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


class KeywordReviewer:
    """Flags any answer containing 'singing': enough to test the plumbing."""

    name = "keyword"

    def review(self, question, evidence, answer):
        assert [e.chunk_id.split("#")[1] for e in evidence] == [str(i) for i in range(1, len(evidence) + 1)]
        if "singing" in answer:
            return Review(valid=False, confidence=0.2, issues=(ReviewIssue(type="fact", description="made up"),))
        return Review(valid=True, confidence=0.95)


@pytest.mark.unit
def test_evaluate_review_writes_verdicts_and_metrics(tmp_path):
    out = tmp_path / "verdicts.jsonl"
    report = evaluate_review(write_rows(tmp_path / "rows.jsonl"), KeywordReviewer(), out=out)
    verdicts = [json.loads(line) for line in out.read_text().splitlines()]
    assert [v["id"] for v in verdicts] == ["a", "b", "c"]
    assert [v["hallucinated"] for v in verdicts] == [False, True, False]
    assert set(verdicts[1]) == {"id", "hallucinated", "confidence", "issues"}
    assert verdicts[1]["issues"][0]["type"] == "fact"
    assert report.metrics == {"accuracy": 1.0, "balanced_accuracy": 1.0, "precision": 1.0, "recall": 1.0, "f1": 1.0}
    assert report.to_dict()["rows_per_s"] > 0


@pytest.mark.unit
def test_unlabelled_rows_give_no_metrics_and_limit_applies(tmp_path):
    rows = [{k: v for k, v in r.items() if k != "label"} for r in ROWS]
    report = evaluate_review(write_rows(tmp_path / "rows.jsonl", rows), KeywordReviewer(), limit=2)
    assert report.rows == 2 and report.labelled == 0 and report.metrics is None


@pytest.mark.unit
def test_detection_metrics_for_the_hallucinated_class():
    metrics, confusion = detection_metrics([1, 1, 1, 0, 0], [1, 1, 0, 1, 0])
    assert tuple(metrics) == METRIC_KEYS
    assert metrics["precision"] == pytest.approx(2 / 3, abs=1e-4)
    assert metrics["recall"] == pytest.approx(2 / 3, abs=1e-4)
    assert metrics["balanced_accuracy"] == pytest.approx((2 / 3 + 1 / 2) / 2, abs=1e-4)
    assert confusion == {"tp": 2, "fp": 1, "tn": 1, "fn": 1}


@pytest.mark.unit
@pytest.mark.parametrize("line, message", [
    ("{not json", "not valid JSON"),
    ('{"id": 1, "question": "q", "answer": "a"}', "lacks passages"),
    ('{"id": 1, "question": "q", "passages": "p", "answer": "a", "label": 3}', "label must be 0"),
])
def test_bad_rows_fail_with_an_actionable_message(tmp_path, capsys, line, message):
    path = tmp_path / "bad.jsonl"
    path.write_text(line + "\n")
    assert main(["eval", "review", str(path), "--json"]) == 1
    payload = json.loads(capsys.readouterr().out)
    assert payload["ok"] is False and message in payload["error"]
    with pytest.raises(Exception, match="does not exist"):
        read_review_rows(tmp_path / "missing.jsonl")


@pytest.mark.unit
def test_eval_retrieval_is_still_registered():
    args = build_parser().parse_args(["eval", "retrieval", "--corpus", "c", "--queries", "q", "--qrels", "r"])
    assert args.eval_command == "retrieval" and args.mode == "hybrid"
    args = build_parser().parse_args(["eval", "review", "rows.jsonl", "--limit", "5", "--data-dir", "d"])
    assert args.eval_command == "review" and args.limit == 5 and args.provider == "offline"


@pytest.mark.integration
def test_eval_review_cli_offline_json_and_table(tmp_path, capsys):
    rows, out = write_rows(tmp_path / "rows.jsonl"), tmp_path / "out" / "verdicts.jsonl"
    assert main(["eval", "review", str(rows), "--out", str(out), "--json", "--data-dir", str(tmp_path)]) == 0
    stdout = capsys.readouterr().out
    payload = json.loads(stdout)
    assert stdout.count("\n") == 1
    assert set(payload["metrics"]) == set(METRIC_KEYS) and payload["rows"] == 3 and payload["rows_per_s"] > 0
    verdicts = [json.loads(line) for line in out.read_text().splitlines()]
    assert [v["hallucinated"] for v in verdicts] == [False, True, False]
    assert all("citation" not in {i["type"] for i in v["issues"]} for v in verdicts)

    assert main(["eval", "review", str(rows), "--limit", "1"]) == 0
    text = capsys.readouterr().out
    assert "balanced_accuracy" in text and "rows_per_s" in text and "rows=1" in text


@pytest.mark.integration
@pytest.mark.skipif(not DATASET.is_file(), reason="review_dev dataset not present")
def test_eval_review_on_the_first_rows_of_review_dev(capsys):
    assert main(["eval", "review", str(DATASET), "--limit", "40", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["rows"] == payload["labelled"] == 40
    assert set(payload["metrics"]) == {"accuracy", "balanced_accuracy", "precision", "recall", "f1"}
    assert "rows_per_s" in payload
