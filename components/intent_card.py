"""What Perception understood: action, entities as chips, constraints with resolved dates (Ask, Traces, Strategy)."""

from __future__ import annotations

import streamlit as st

from components.safe_text import encode, show
from engine.results import Intent

CHIP_STYLE = ("display:inline-block;margin:0 6px 6px 0;padding:2px 10px;border-radius:12px;"
              "background:rgba(28,131,225,0.12);border:1px solid rgba(28,131,225,0.35);font-size:0.9em")
ACTION_HELP = {
    "compare": "compare two or more things", "explain": "explain why or how something works",
    "how_to": "give steps to do something", "list": "list items", "summarize": "summarise a topic",
    "lookup": "look up a fact", "unknown": "no specific action recognised",
}


def chips(items: list[tuple[str, str]]) -> str:
    """(text, kind) pairs as inline chips; both parts are encoded."""
    return "".join(f'<span style="{CHIP_STYLE}">{encode(text)} <small style="opacity:0.65">{encode(kind)}</small>'
                   "</span>" for text, kind in items)


def render_intent(intent: Intent) -> None:
    """The intent card."""
    st.markdown("**Intent**")
    st.caption("How the question was read: what it asks for, the things it names, and any limits on time, "
               "source or quantity. Retrieval is planned from this.")
    show(f"<b>Action</b>: <code>{encode(intent.action)}</code> "
         f"<small style='opacity:0.7'>({encode(ACTION_HELP.get(intent.action, ''))})</small>")
    if intent.entities:
        show("<b>Entities</b><br>" + chips([(e.text, e.label) for e in intent.entities]))
    else:
        show("<b>Entities</b>: none recognised")
    c = intent.constraints
    rows = []
    if c.time is not None:
        window = f"{c.time.start or 'open'} → {c.time.end or 'open'}"
        rows.append(f"<b>Time</b>: “{encode(c.time.text)}” resolved to <code>{encode(window)}</code>")
    if c.source:
        rows.append(f"<b>Source</b>: {encode(c.source)}")
    if c.quantitative is not None:
        rows.append(f"<b>Quantity</b>: “{encode(c.quantitative.text)}” ({encode(c.quantitative.kind)})")
    show("<br>".join(rows) if rows else "<b>Constraints</b>: none")
    if intent.spelling:
        fixes = ", ".join(f"<del>{encode(c.original)}</del> → <ins>{encode(c.corrected)}</ins>" for c in intent.spelling)
        show(f"<b>Spelling</b>: {fixes} <small style='opacity:0.7'>(words not in the searched documents, "
             f"searched as the closest words they contain)</small>")
