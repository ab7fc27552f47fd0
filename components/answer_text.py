"""The answer's text: the final answer, draft vs revised with a word diff, citations, and the evidence list.

Citations [n] number the evidence in retrieval order; each cited number gets a popover that
shows that evidence, and the evidence list below repeats them all with question terms highlighted.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence

import streamlit as st

from components.safe_text import cite, diff_html, encode, label, show, show_text
from engine.documents.metadata import DEFAULT_AUTHORITY
from engine.language.citations import citations
from engine.language.tokens import STOP_WORDS, WORD
from engine.results import Answer, Evidence, EvidenceMeta, Intent


# -- evidence ---------------------------------------------------------------------------------------


def query_terms(intent: Intent) -> list[str]:
    """Words of the question worth highlighting (no stop words), plus the entities it names."""
    found = [w for w in WORD.findall(intent.raw_query) if len(w) > 2 and w.lower() not in STOP_WORDS]
    return list(dict.fromkeys([*intent.entity_texts, *found]))


def date_label(meta: EvidenceMeta) -> str:
    """The update date, or "date unknown" (ranked as neutral, never as old)."""
    return meta.update_date.isoformat() if meta.update_date else "date unknown"


def authority_label(meta: EvidenceMeta) -> str:
    """"authority 5/5", or "authority: default (3/5)" for the default level (ranked as neutral)."""
    return "authority: default (3/5)" if meta.authority == DEFAULT_AUTHORITY else f"authority {meta.authority}/5"


def evidence_title(n: int, ev: Evidence, evidence: Sequence[Evidence] = ()) -> str:
    """The expander label for evidence number ``n`` (escaped); for a passage the entity graph reached, how it came
    ("graph: via 'Ana Ruiz' from [1]", numbered as ``evidence`` is)."""
    meta = ev.metadata
    page = f" · p.{meta.page}" if meta.page else ""
    via = ""
    if ev.hop is not None:
        via = " · " + ev.hop.label({e.chunk_id: m for m, e in enumerate(evidence, start=1)})
    return label(f"[{n}] {meta.title} · {date_label(meta)} · {authority_label(meta)} · score {ev.score:.3f}{page}"
                 f"{via}", 240)


def evidence_details(ev: Evidence, terms: Iterable[str] = ()) -> None:
    """Metadata line and the chunk text with ``terms`` highlighted."""
    meta = ev.metadata
    authority = "default (3/5)" if meta.authority == DEFAULT_AUTHORITY else f"{meta.authority}/5"
    facts = [
        ("Document", meta.title), ("Knowledge base", ev.knowledge_base), ("Type", meta.doc_type or "–"),
        ("Revision", meta.revision or "–"), ("Date", date_label(meta)),
        ("Authority", authority), ("Page", str(meta.page) if meta.page else "–"),
        ("Score", f"{ev.score:.4f}"), ("Credibility", f"{ev.credibility:.3f}"),
        ("Found by", ", ".join(ev.found_by) or "–"), ("File", meta.file_name or "–"),
    ]
    show(" · ".join(f"<b>{encode(k)}</b>: {encode(v)}" for k, v in facts))
    if ev.scores:
        show("<small>" + encode("Per-mode scores: " + ", ".join(f"{k} {v:.3f}" for k, v in ev.scores.items()))
             + "</small>")
    show_text(ev.text, terms)


def render_evidence(evidence: Sequence[Evidence], intent: Intent, expanded: int = 2) -> None:
    """The evidence list, numbered as the answer's [n] citations."""
    st.markdown("**Evidence**")
    st.caption("Chunks retrieved from your documents, best first, numbered as the answer cites them. Open one to "
               "read the matched text (question terms highlighted), its date, authority (1-5), page and the task "
               "that found it.")
    if not evidence:
        st.info("No evidence was retrieved, so nothing could be cited.")
        return
    terms = query_terms(intent)
    for n, ev in enumerate(evidence, start=1):
        with st.expander(evidence_title(n, ev, evidence), expanded=n <= expanded):
            evidence_details(ev, terms)


# -- answers and citations --------------------------------------------------------------------------

_TOKEN = re.compile(r"\s+|[^\s]+")


def word_diff(old: str, new: str) -> list[tuple[str, str]]:
    """(op, text) pieces turning ``old`` into ``new`` word by word; op is equal, delete or insert."""
    a, b = _TOKEN.findall(old or ""), _TOKEN.findall(new or "")
    pieces: list[tuple[str, str]] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            pieces.append(("equal", "".join(a[i1:i2])))
            continue
        if i2 > i1:
            pieces.append(("delete", "".join(a[i1:i2])))
        if j2 > j1:
            pieces.append(("insert", "".join(b[j1:j2])))
    return pieces


def side(pieces: Sequence[tuple[str, str]], keep: str) -> list[tuple[str, str]]:
    """The pieces one side shows: the draft keeps deletions, the revision keeps insertions."""
    return [(op, text) for op, text in pieces if op in ("equal", keep)]


def cited_numbers(*texts: str) -> list[int]:
    """Citation numbers used in ``texts``, in order of first use, ranges expanded."""
    return list(dict.fromkeys(n for text in texts for n in citations(text or "")))


def render_citations(text_sources: Sequence[str], evidence: Sequence[Evidence], answer: Answer, key: str) -> None:
    """One popover per cited [n]; opening it shows that evidence."""
    numbers = sorted(cited_numbers(*text_sources))
    if not numbers:
        return
    st.caption("Citations: open one to see the evidence it points to.")
    terms = query_terms(answer.intent)
    with st.container(horizontal=True, gap="small"):
        for n in numbers:
            if 1 <= n <= len(evidence):
                ev = evidence[n - 1]
                with st.popover(f"[{n}]", help=label(ev.metadata.title), key=f"{key}.cite.{n}"):
                    st.markdown(f"**{label(ev.metadata.title)}**")
                    evidence_details(ev, terms)
            else:
                st.button(f"[{n}]", disabled=True, key=f"{key}.cite.{n}", help="No evidence with this number.")


def render_answers(answer: Answer, key: str) -> None:
    """The draft and the revised answer side by side, changes highlighted, then the citations."""
    st.markdown("**Draft and revised answer**")
    st.caption("The generator's first draft (left) and the answer after review (right). Words the review removed "
               "are struck through in red; words it added are green. [n] marks a citation of evidence n.")
    reflection_off = answer.extra.get("reflection") is False
    unchanged = not answer.revised and bool(answer.draft) and not reflection_off
    revised = answer.revised or (answer.draft if unchanged else "")
    pieces = word_diff(answer.draft, revised)
    left, right = st.columns(2, border=True)
    with left:
        st.markdown("*Draft*")
        if answer.draft:
            show(diff_html(side(pieces, "delete")))
        else:
            st.caption("No draft was written.")
    with right:
        st.markdown("*Revised*")
        if reflection_off:
            st.caption("Reflection was off for this run: the draft is the answer, unreviewed.")
        elif unchanged:
            st.caption("The first review accepted the draft, so it was not changed.")
        if revised:
            show(diff_html(side(pieces, "insert")))
        else:
            st.caption("No revision was made.")
    render_citations([answer.draft, answer.revised, answer.final], answer.evidence, answer, key)


def render_final(answer: Answer) -> None:
    """The answer as shown to the user (or the refusal / error message)."""
    if answer.status == "failure":
        st.error(answer.final or "The run failed.", icon=":material/error:")
        return
    with st.container(border=True):
        show(cite(answer.final) if answer.final else "<i>No answer.</i>")
