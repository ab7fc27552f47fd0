"""Resolving a document named loosely in a request."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from engine.agent.actions import match_documents

pytestmark = pytest.mark.unit

DOCS = [
    SimpleNamespace(doc_id="a", title="Shop Note SN-19-007 - A320 MLG Wheel Change Tips", file_name="shop-note-2019-mlg-axle-nut.txt"),
    SimpleNamespace(doc_id="b", title="A320 AMM 32-41 Rev 12", file_name="a320-amm-32-41-rev12.pdf"),
    SimpleNamespace(doc_id="c", title="A320 AMM 32-41 Rev 11", file_name="a320-amm-32-41-rev11.docx"),
]


def test_exact_and_contained_titles_win():
    assert [d.doc_id for d in match_documents(DOCS, "a320 amm 32-41 rev 12")] == ["b"]
    assert [d.doc_id for d in match_documents(DOCS, "Rev 11")] == ["c"]


def test_loose_request_matches_by_shared_words():
    assert [d.doc_id for d in match_documents(DOCS, "the shop note about the 2019 axle nut")] == ["a"]


def test_ties_and_weak_matches_are_not_guessed():
    assert len(match_documents(DOCS, "the amm 32-41 manual")) == 2  # ambiguous: both revisions
    assert match_documents(DOCS, "the tyre bulletin") == []
