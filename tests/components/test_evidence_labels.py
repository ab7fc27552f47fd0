"""Evidence metadata says plainly when a date is unknown or the authority is the default."""

from __future__ import annotations

import html
import re
from datetime import date

import pytest
from streamlit.testing.v1 import AppTest

from components.answer_text import evidence_title
from engine.results import Evidence, EvidenceMeta

pytestmark = pytest.mark.unit


def upload(**meta) -> Evidence:
    return Evidence(chunk_id="u1", doc_id="note", knowledge_base="uploads", text="Refill below 360 psi.", score=1.0,
                    credibility=0.65, metadata=EvidenceMeta(title="Suppression note", **meta))


def title(n: int, ev: Evidence) -> str:
    return evidence_title(n, ev).replace("\\", "")  # as shown: without the Markdown escapes


def test_the_title_line_names_an_unknown_date_and_the_default_authority():
    assert "date unknown" in title(1, upload()) and "authority: default (3/5)" in title(1, upload())
    dated = title(2, upload(update_date=date(2025, 3, 3), authority=5))
    assert "2025-03-03" in dated and "authority 5/5" in dated and "unknown" not in dated and "default" not in dated


def _details(payload: dict) -> None:
    from components.answer_text import evidence_details
    from engine.results import Evidence

    evidence_details(Evidence.model_validate(payload))


def test_the_details_say_date_unknown_and_default_authority():
    at = AppTest.from_function(_details, kwargs={"payload": upload().model_dump(mode="json")}, default_timeout=30).run()
    assert not at.exception
    seen = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", m.value)) for m in at.markdown)
    assert "Date : date unknown" in " ".join(seen.split()) and "Authority : default (3/5)" in " ".join(seen.split())


def test_a_passage_the_graph_reached_says_through_which_name_and_from_which_passage():
    from engine.results import Hop

    source = upload()
    reached = Evidence(chunk_id="u2", doc_id="vasseur", knowledge_base="uploads", text="She studied in Brennhaven.",
                       score=0.5, metadata=EvidenceMeta(title="Oriane Vasseur"),
                       hop=Hop(mention="Oriane Vasseur", from_chunk="u1", from_title="Suppression note"))
    shown = evidence_title(2, reached, [source, reached]).replace("\\", "")
    assert shown.endswith("graph: via 'Oriane Vasseur' from [1]")
    alone = evidence_title(1, reached, [reached]).replace("\\", "")
    assert alone.endswith("graph: via 'Oriane Vasseur' from 'Suppression note'")
    asked = reached.model_copy(update={"hop": Hop(mention="Oriane Vasseur")})
    assert evidence_title(1, asked, [asked]).replace("\\", "").endswith("via 'Oriane Vasseur' named in the question")
    assert "graph" not in title(1, source)
