"""Ingest reports a scanned PDF's warning and uses a PDF's first heading when its metadata title is a file name."""

from __future__ import annotations

import pytest

from tests import helpers
from tests.documents.test_pdf_checks import TRANSCRIPT, scanned_pdf

pytestmark = pytest.mark.integration


def test_ingest_reports_the_warning_and_the_better_title(store):
    from engine.ingest import Ingestor

    report = Ingestor(store).ingest_bytes([
        ("10811.pdf", helpers.make_pdf([TRANSCRIPT, TRANSCRIPT], title="10811.exe")),
        ("scan.pdf", scanned_pdf(4)),
    ], "court")
    by_name = {f.name: f for f in report.files}
    assert by_name["10811.pdf"].title == "IN THE SUPREME COURT OF THE UNITED STATES"
    assert by_name["10811.pdf"].warnings == ()
    assert by_name["scan.pdf"].status == "added" and "probably scanned images" in by_name["scan.pdf"].warnings[0]
    assert report.to_dict()["files"][1]["warnings"] == list(by_name["scan.pdf"].warnings)
