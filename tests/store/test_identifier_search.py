"""Keyword search finds a whole identifier (a version, a part number), not its pieces."""

from __future__ import annotations

import pytest

from engine.documents.identifiers import identifier_tokens

_FILLER = " ".join(f"Sheet handling note {n} keeps formulas, styles and merged cells as they were." for n in range(9))
NOTES = "# Release notes\n\n" + "\n\n".join(
    f"## [{version}] - {day}\n\n## Fixed\n\n- {change} {_FILLER}"
    for version, day, change in (("3.10.2", "2025-05-02", "Crash on 3 empty sheets, 10 times."),
                                 ("3.2.10", "2024-11-20", "Wrong totals for 10 rows and 3 columns."),
                                 ("2.10.3", "2024-02-01", "Export of 3 formats, 10 times faster, 2 new charts.")))


def test_identifier_tokens_join_dotted_hyphenated_and_slashed_numbers():
    assert identifier_tokens("v3.10.2, P/N 201-587-3 and NR 2023/061; 12 rows") == "id3p10p2 id201h587h3 id2023s061"
    assert identifier_tokens("no identifiers, only 12 and 3") == ""


@pytest.mark.integration
def test_a_version_query_ranks_its_own_release_first(tmp_path, ingestor, store):
    ingestor.ingest_bytes([("notes.md", NOTES.encode())], "software")
    for version in ("3.10.2", "3.2.10", "2.10.3"):
        hits = store.search(f"What was fixed in {version}?", "software", mode="keyword", k=3)
        assert hits and f"[{version}]" in hits[0].text, (version, [h.text[:40] for h in hits])
