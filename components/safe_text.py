"""Show untrusted text (document chunks, model output, questions) without running any of it.

Streamlit's Markdown renders HTML only with ``unsafe_allow_html``, but it always turns
``![x](url)`` into a remote image, ``[x](url)`` and bare ``https://`` into links, ``$..$`` into
math and ``:red[..]`` into styled text. The helpers here escape HTML *and* encode every
character Markdown could read as syntax as a numeric entity, which CommonMark shows as a
literal character. The result is safe inside ``st.markdown(..., unsafe_allow_html=True)``
together with the few tags added here (``<mark>``, ``<del>``, ``<ins>``, ``<sup>``, ``<br>``).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence

import streamlit as st

from engine.language.citations import CITATION

# Every ASCII character that Markdown, GFM autolinks, Streamlit directives or math could treat
# as syntax. Letters, digits, spaces and ",;?%" stay as they are.
_SYNTAX = frozenset("\\`*_{}[]()#+-.!|<>~&:@$=^\"'/")
_MARKDOWN_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_MARKDOWN_LINK = re.compile(r"\[([^\]]*)\]\(([^)]*)\)")
_URL = re.compile(r"\b(?:https?|ftp|file|data|javascript)\s*:\S*|\bwww\.\S+", re.IGNORECASE)

MARK_STYLE = "background-color:rgba(255,214,0,0.45);padding:0 2px;border-radius:2px"
DEL_STYLE = "background-color:rgba(255,75,75,0.22);text-decoration:line-through"
INS_STYLE = "background-color:rgba(33,195,84,0.25);text-decoration:none"
CITE_STYLE = "color:#1c83e1;font-weight:600"


def encode(text: str | None) -> str:
    """``text`` as inert HTML: tags escaped, Markdown syntax encoded, line breaks kept as ``<br>``."""
    out: list[str] = []
    for char in str(text or ""):
        if char in _SYNTAX:
            out.append(f"&#{ord(char)};")
        elif char == "\n":
            out.append("<br>")
        elif char == "\r":
            continue
        else:
            out.append(char)
    return "".join(out)


def neutralise_markdown(text: str | None) -> str:
    """Plain text with Markdown images and links replaced by their labels and URLs defanged.

    For places that show plain strings (table cells, which show no Markdown): an image becomes
    ``[image: alt]``, a link keeps only its label, a bare URL loses the colon after its scheme
    (and ``www.`` its dot) so that nothing turns it back into a link.
    """
    value = str(text or "")
    value = _MARKDOWN_IMAGE.sub(lambda m: f"[image: {m.group(1).strip() or 'no description'}]", value)
    value = _MARKDOWN_LINK.sub(lambda m: m.group(1), value)
    return _URL.sub(lambda m: re.sub(r"^([a-z]+)\s*:", r"\1 ", m.group(0), flags=re.I).replace("www.", "www "), value)


def chart_text(text: str | None) -> str:
    """Untrusted text for a Plotly label or hover (Plotly reads a few tags, ``<a href>`` among them)."""
    return html.escape(neutralise_markdown(text), quote=False)


def label(text: str | None, limit: int = 120) -> str:
    """Untrusted text for a widget or expander label (which render Markdown): one line, syntax escaped."""
    value = neutralise_markdown(" ".join(str(text or "").split()))
    if len(value) > limit:
        value = value[: limit - 1].rstrip() + "…"
    return re.sub(r"([\\`*_{}\[\]()#+!|~:$<>])", r"\\\1", value)


def _spans(text: str, pattern: re.Pattern[str] | None) -> list[tuple[str, bool]]:
    """``text`` cut into (piece, matched) pairs."""
    if pattern is None:
        return [(text, False)]
    pieces: list[tuple[str, bool]] = []
    last = 0
    for match in pattern.finditer(text):
        if match.start() == match.end():
            continue
        pieces.append((text[last:match.start()], False))
        pieces.append((match.group(0), True))
        last = match.end()
    pieces.append((text[last:], False))
    return [p for p in pieces if p[0]]


def term_pattern(terms: Iterable[str]) -> re.Pattern[str] | None:
    """A case-insensitive pattern for whole-word ``terms`` (longest first), or None when there are none."""
    cleaned = sorted({t.strip() for t in terms if t and len(t.strip()) > 1}, key=len, reverse=True)
    if not cleaned:
        return None
    return re.compile(r"(?<!\w)(?:" + "|".join(re.escape(t) for t in cleaned) + r")(?!\w)", re.IGNORECASE)


def highlight(text: str | None, terms: Iterable[str]) -> str:
    """``text`` encoded like :func:`encode`, with every occurrence of ``terms`` wrapped in ``<mark>``."""
    parts = []
    for piece, matched in _spans(str(text or ""), term_pattern(terms)):
        body = encode(piece)
        parts.append(f'<mark style="{MARK_STYLE}">{body}</mark>' if matched else body)
    return "".join(parts)


def cite(text: str | None) -> str:
    """``text`` encoded like :func:`encode`, with ``[n]`` citations shown as bold blue superscripts."""
    parts = []
    for piece, matched in _spans(str(text or ""), CITATION):
        body = encode(piece)
        parts.append(f'<sup style="{CITE_STYLE}">{body}</sup>' if matched else body)
    return "".join(parts)


def diff_html(pieces: Sequence[tuple[str, str]]) -> str:
    """HTML for (op, text) pieces where op is ``equal``, ``delete`` or ``insert``; text is encoded."""
    out = []
    for op, text in pieces:
        body = cite(text)
        if op == "delete":
            out.append(f'<del style="{DEL_STYLE}">{body}</del>')
        elif op == "insert":
            out.append(f'<ins style="{INS_STYLE}">{body}</ins>')
        else:
            out.append(body)
    return "".join(out)


def show(markup: str) -> None:
    """Render markup built by this module (and only such markup)."""
    st.markdown(f'<div style="line-height:1.6">{markup}</div>', unsafe_allow_html=True)


def show_text(text: str | None, terms: Iterable[str] = ()) -> None:
    """Render untrusted ``text`` inertly, highlighting ``terms``."""
    show(highlight(text, terms))
