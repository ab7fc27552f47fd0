"""File names and titles are stored and printed with control characters escaped."""

from __future__ import annotations

import pytest

from engine.documents.metadata import resolve_metadata
from engine.documents.names import escape_controls, one_line, safe_name
from engine.documents.parsers import parse_bytes

pytestmark = pytest.mark.unit


def test_terminal_escapes_nul_and_bidi_overrides_are_escaped_not_passed_through():
    assert safe_name("\x1b[31mred\x1b[0m.txt") == "\\x1b[31mred\\x1b[0m.txt"
    assert safe_name("nul\x00.md") == "nul\\x00.md"
    assert safe_name("invoice\u202etxt.exe") == "invoice\\u202etxt.exe"
    assert safe_name("two\nlines.txt") == "two\\x0alines.txt"
    assert safe_name("Plain name (v2).pdf") == "Plain name (v2).pdf"
    assert escape_controls("Ünïcode ok") == "Ünïcode ok"


def test_long_names_are_cut_keeping_their_extension():
    name = safe_name("x" * 400 + ".pdf")
    assert len(name) == 255 and name.endswith("….pdf")


def test_titles_and_sources_are_one_clean_line():
    assert one_line("A\ttitle\n\nover lines \x1b[2J") == "A title over lines \\x1b[2J"
    parsed = parse_bytes("n.txt", b"Body.")
    meta = resolve_metadata("\x1b]0;pwned\x07n.txt", parsed, "kb",
                            sidecar={"title": "Red \x1b[31mtitle\x1b[0m", "series": "s\x00", "team": "a\nb"})
    assert meta.title == "Red \\x1b[31mtitle\\x1b[0m" and meta.series == "s\\x00" and meta.extra == {"team": "a b"}
    assert meta.source == "\\x1b]0;pwned\\x07n.txt"
    assert not any(ch in meta.title + meta.source for ch in "\x1b\x00\x07")
