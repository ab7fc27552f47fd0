"""Untrusted text is shown inertly: no HTML, no Markdown images or links, no math or directives."""

from __future__ import annotations

import re

import pytest

from components.safe_text import chart_text, cite, diff_html, encode, highlight, label, neutralise_markdown

pytestmark = pytest.mark.unit

HOSTILE = ('<img src="https://evil.example/x.png" onerror="alert(1)"> ![tracker](https://evil.example/p.gif) '
           '[click me](javascript:alert(1)) see https://evil.example/a and www.evil.example :red[alarm] '
           '$x^2$ <script>alert(2)</script> **bold** `code` # heading')


def visible(markup: str) -> str:
    """The text a browser would show for markup built by safe_text (tags removed, entities decoded)."""
    import html

    return html.unescape(re.sub(r"<[^>]+>", "", markup.replace("<br>", "\n")))


def test_encode_leaves_no_tag_or_markdown_syntax():
    out = encode(HOSTILE)
    assert "<" not in out and ">" not in out
    for syntax in ("![", "](", "[", "]", "http://", "https:", "www.", ":red", "$", "**", "`", "#"):
        assert syntax not in out.replace("&#", "")  # only numeric entities remain
    assert visible(out) == HOSTILE


def test_encode_keeps_line_breaks_and_plain_words():
    assert encode("Torque 325 N.m\nthen lock") == "Torque 325 N&#46;m<br>then lock"
    assert encode(None) == ""


def test_highlight_marks_whole_terms_case_insensitively_and_stays_inert():
    out = highlight("The A320 axle nut torque <b>is</b> 325 N.m; torques vary.", ["torque", "a320", ""])
    assert out.count("<mark") == 2
    assert re.search(r"<mark[^>]*>A320</mark>", out) and re.search(r"<mark[^>]*>torque</mark>", out)
    assert "<b>" not in out and "&#60;b&#62;" in out
    assert visible(out) == "The A320 axle nut torque <b>is</b> 325 N.m; torques vary."


def test_highlight_escapes_terms_used_as_patterns():
    out = highlight("N.m and Nxm", ["N.m"])
    assert out.count("<mark") == 1 and "Nxm" in out


def test_highlight_inside_hostile_text_adds_only_mark_tags():
    out = highlight(HOSTILE, ["alert", "evil"])
    assert set(re.findall(r"<(/?\w+)", out)) == {"mark", "/mark"}


def test_cite_wraps_citations_in_superscript():
    out = cite("Torque is 325 N.m [1]. Old value 300 N.m [2, 3].")
    assert re.findall(r"<sup[^>]*>(.*?)</sup>", out) == ["&#91;1&#93;", "&#91;2, 3&#93;"]


def test_diff_html_marks_deletions_and_insertions():
    out = diff_html([("equal", "Torque "), ("delete", "300"), ("insert", "325"), ("equal", " N.m [1]")])
    assert re.search(r"<del[^>]*>300</del>", out) and re.search(r"<ins[^>]*>325</ins>", out)
    assert "<sup" in out


def test_neutralise_markdown_drops_images_links_and_urls():
    out = neutralise_markdown(HOSTILE)
    assert "![" not in out and "](" not in out
    assert "[image: tracker]" in out and "click me" in out
    assert "https:" not in out and "www." not in out and "javascript:" not in out


def test_chart_text_escapes_tags_for_plotly():
    out = chart_text('<a href="https://evil.example">x</a>')
    assert "<" not in out and "href" in out and "https:" not in out


def test_label_escapes_markdown_for_widget_labels():
    out = label("Rev 12 ![x](https://e.example/i.png) **AMM** :red[x] $1$ " + "long " * 40, limit=60)
    assert len(out.replace("\\", "")) <= 60 and out.endswith("…")
    assert "![" not in out and "\\*\\*AMM\\*\\*" in out and "\\:red\\[x\\]" in out and "\\$1\\$" in out
