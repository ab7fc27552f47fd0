"""The answer panels render every part of an Answer, and their helpers compute what they show."""

from __future__ import annotations

import html
import re

import pytest
from streamlit.testing.v1 import AppTest

from components.answer_panels import check_results, group_issues
from components.answer_text import cited_numbers, side, word_diff
from components.answer_view import answer_from_payload, timing_figure, timing_rows
from tests.components.answers import failed_validation, make_answer

pytestmark = pytest.mark.unit


def render(payload: dict) -> None:
    from components.answer_view import answer_from_payload, render_answer

    render_answer(answer_from_payload(payload), key="t")


def rendered(**changes) -> AppTest:
    payload = make_answer(**changes).model_dump(mode="json")
    payload["created_at"] = "2026-01-01T00:00:00+00:00"  # trace payloads carry it; it must be ignored
    at = AppTest.from_function(render, kwargs={"payload": payload}, default_timeout=30).run()
    assert not at.exception
    return at


def all_markdown(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


def visible(at: AppTest) -> str:
    """Markdown text as a reader sees it: tags dropped, entities decoded."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", all_markdown(at))).split())


def test_every_panel_is_shown():
    at = rendered()
    text, seen = all_markdown(at), visible(at)
    assert "current final torque" in at.subheader[0].value
    assert "A320" in seen and "AIRCRAFT" in seen and "2024-01-01" in seen  # intent chips and resolved date
    tasks = at.dataframe[0].value
    assert list(tasks["task"]) == ["T1", "T2"] and "keyword task for exact figures" in set(tasks["reason"])
    assert "<del" in text and "<ins" in text  # draft vs revised diff
    assert "250 N.m is superseded" in seen and "250 N.m → 325 N.m" in seen  # issue and correction
    assert "pass citation" in seen and "pass timeliness" in seen and "date filter 2024-01-01" in seen
    assert at.get("plotly_chart")
    assert any("A320 AMM 32-41-11 Rev 12" in e.label and "authority 5/5" in e.label for e in at.expander)
    assert "rollout:reflection@100%" in " ".join(c.value for c in at.caption).replace("\\", "")


def test_untrusted_text_stays_inert():
    text = all_markdown(rendered())
    assert "<img" not in text and "![" not in text and "https:" not in text


def test_refused_and_failed_answers():
    at = rendered(status="refused", validation=failed_validation(), extra={"reflection": False,
                                                                            "refusal_reason": "validation failed"})
    seen = visible(at)
    assert "fail timeliness" in seen and "before the asked window" in seen
    assert any("Reflection was off" in i.value for i in at.info)
    at = rendered(status="failure", final="Knowledge base 'x' does not exist; pick one of manuals.",
                  validation=None, reviews=(), evidence=(), tasks=())
    assert "does not exist" in at.error[0].value


def test_payload_with_unknown_keys_validates_back():
    payload = make_answer().model_dump(mode="json") | {"created_at": "2026-01-01"}
    assert answer_from_payload(payload) == make_answer()


def test_word_diff_sides():
    pieces = word_diff("torque is always 250 N.m [2].", "torque is 325 N.m [1].")
    assert ("delete", "always 250") in pieces and ("insert", "325") in pieces
    assert "".join(t for _, t in side(pieces, "delete")) == "torque is always 250 N.m [2]."
    assert "".join(t for _, t in side(pieces, "insert")) == "torque is 325 N.m [1]."


def test_cited_numbers_in_order_with_ranges():
    assert cited_numbers("a [2]. b [1, 3-4].", "c [2]") == [2, 1, 3, 4]


def test_issues_grouped_by_type_with_their_corrections():
    grouped = group_issues(make_answer().reviews)
    assert list(grouped) == ["fact", "overconfidence"]
    (round_no, issue, fixes), = grouped["fact"]
    assert round_no == 1 and issue.location == "sentence 2" and fixes[0].corrected == "325 N.m"


def test_check_results_pass_and_fail():
    assert [(c, ok) for c, ok, _ in check_results(failed_validation())] == [
        ("citation", True), ("timeliness", False), ("comparison", True)]


def test_timing_rows_order_and_total():
    rows = timing_rows(make_answer().timings)
    assert [r[0] for r in rows] == ["perception", "orchestration", "retrieval", "reflection", "  draft", "  review",
                                    "validation"]
    assert "total 260 ms" in timing_figure(make_answer().timings).layout.title.text


def test_every_review_issue_type_has_help_text():
    from typing import get_args

    from components.answer_panels import TYPE_HELP
    from engine.results import IssueType

    assert set(get_args(IssueType)) == set(TYPE_HELP)


def test_retrievals_parts_follow_it_in_the_order_they_ran():
    timings = {"perception": 5.0, "retrieval": 40.0, "retrieval.embed": 3.0, "retrieval.search": 30.0,
               "retrieval.fuse": 1.0, "retrieval.links": 2.0, "retrieval.sentences": 3.0, "reflection": 50.0,
               "reflection.draft": 10.0, "reflection.review": 40.0, "total": 100.0}
    rows = timing_rows(timings)
    assert [r[0] for r in rows] == ["perception", "retrieval", "  embed", "  search", "  fuse", "  links",
                                    "  sentences", "reflection", "  draft", "  review"]
    assert [r[2] for r in rows].count(True) == 7


def test_a_refusal_reason_is_shown_once():
    reason = "I could not verify the answer against the documents: " + "; ".join(
        f"sentence {n} names a figure the cited passage {n} does not give" for n in range(1, 15))
    at = rendered(status="refused", final=reason, extra={**make_answer().extra, "refusal_reason": reason})
    shown = " ".join([*(c.value for c in at.caption), all_markdown(at)])
    assert html.unescape(shown).count("sentence 3 names a figure the cited passage 3") == 1
    other = rendered(status="refused", final="No answer.",
                     extra={**make_answer().extra, "refusal_reason": "no evidence"})
    assert any("no evidence" in c.value for c in other.caption)
