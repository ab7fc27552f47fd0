"""The document list of the Documents page: filters, the table, delete with confirmation, corpus charts."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

import pandas as pd
import plotly.express as px
import streamlit as st

from components.safe_text import encode, label, neutralise_markdown, show
from engine.errors import EngineError
from engine.store import DocumentInfo, KnowledgeBaseInfo, KnowledgeBaseStore
from engine.store.stats import CorpusStats, summarise

COLUMNS = ["knowledge_base", "title", "file_name", "update_date", "authority", "doc_type", "revision", "chunks",
           "doc_id"]
PENDING_KEY = "documents.pending_delete"
NOTICE_KEY = "documents.notice"
STALE_KEY = "documents.stale"


@dataclass(frozen=True)
class DocFilters:
    """The table filters; empty values mean "no filter"."""

    bases: tuple[str, ...] = ()
    doc_types: tuple[str, ...] = ()
    since: date | None = None
    until: date | None = None
    include_undated: bool = True
    authority: tuple[int, int] = (1, 5)
    title_text: str = ""


def documents_frame(docs: list[DocumentInfo]) -> pd.DataFrame:
    """Documents as a table; ``update_date`` becomes a date (NaT when unknown)."""
    frame = pd.DataFrame([{c: getattr(d, c) for c in COLUMNS} for d in docs], columns=COLUMNS)
    for column in ("title", "file_name", "doc_type", "revision"):  # text from the files themselves
        frame[column] = frame[column].map(lambda v: None if v is None else neutralise_markdown(v))
    frame["update_date"] = pd.to_datetime(frame["update_date"], errors="coerce").dt.date
    frame["authority"] = frame["authority"].astype("Int64")
    frame["chunks"] = frame["chunks"].astype("Int64")
    return frame


def filter_controls(frame: pd.DataFrame) -> DocFilters:
    """Render the filter widgets above the table and return what they select."""
    c1, c2, c3 = st.columns([2, 2, 3])
    bases = c1.multiselect("Knowledge bases", sorted(frame["knowledge_base"].unique()), key="documents.f_kb",
                           placeholder="all")
    types = c2.multiselect("Document types", sorted(t for t in frame["doc_type"].unique() if t), key="documents.f_type",
                           placeholder="all")
    text = c3.text_input("Title contains", key="documents.f_title", placeholder="e.g. torque")
    c4, c5, c6 = st.columns([3, 2, 2])
    dated = frame["update_date"].dropna()
    low = min(dated) if len(dated) else date(2000, 1, 1)
    high = max(dated) if len(dated) else date.today()
    span = c4.date_input("Updated between", value=(), min_value=date(1900, 1, 1), max_value=date(2100, 12, 31),
                         key="documents.f_dates", format="YYYY-MM-DD",
                         help=f"Dates in the table run from {low} to {high}. Leave empty for any date.")
    undated = c5.checkbox("Include undated", value=True, key="documents.f_undated",
                          help="Documents without an update date, when a date range is set.")
    authority = c6.slider("Authority", 1, 5, (1, 5), key="documents.f_auth")
    span = tuple(span or ())
    return DocFilters(
        bases=tuple(bases), doc_types=tuple(types), since=span[0] if span else None,
        until=span[1] if len(span) > 1 else None, include_undated=undated,
        authority=(int(authority[0]), int(authority[1])), title_text=text.strip(),
    )


def apply_filters(frame: pd.DataFrame, f: DocFilters) -> pd.DataFrame:
    """Rows of ``frame`` that pass every filter."""
    keep = pd.Series(True, index=frame.index)
    if f.bases:
        keep &= frame["knowledge_base"].isin(f.bases)
    if f.doc_types:
        keep &= frame["doc_type"].isin(f.doc_types)
    if f.title_text:
        keep &= frame["title"].str.contains(f.title_text, case=False, regex=False, na=False)
    keep &= frame["authority"].between(*f.authority).fillna(False).astype(bool)
    if f.since or f.until:
        dates = frame["update_date"]
        in_range = dates.map(lambda d: d is not None and not pd.isna(d)
                             and (f.since is None or d >= f.since) and (f.until is None or d <= f.until))
        keep &= in_range | (dates.isna() & f.include_undated)
    return frame[keep]


def render_table(frame: pd.DataFrame) -> None:
    st.dataframe(
        frame, hide_index=True, width="stretch", key="documents.table",
        column_config={
            "knowledge_base": st.column_config.TextColumn("base"),
            "update_date": st.column_config.DateColumn("updated", format="YYYY-MM-DD"),
            "authority": st.column_config.NumberColumn("authority", help="1 (low) to 5 (high)"),
            "doc_id": st.column_config.TextColumn("id"),
        },
    )


def _label(row: dict[str, Any]) -> str:
    return f"{row['title']} · {row['knowledge_base']}/{row['doc_id']}"


def delete_picker(frame: pd.DataFrame) -> None:
    """Pick a document from the filtered table and ask for confirmation before deleting it."""
    if frame.empty:
        return
    rows = {_label(r): r for r in frame.to_dict("records")}
    left, right = st.columns([4, 1], vertical_alignment="bottom")
    choice = left.selectbox("Document to delete", list(rows), index=None, key="documents.delete_choice",
                            placeholder="pick a document from the filtered table")
    if right.button("Delete…", key="documents.delete", disabled=choice is None):
        row = rows[choice]
        st.session_state[PENDING_KEY] = {k: row[k] for k in ("doc_id", "knowledge_base", "title", "chunks")}


def _cancel_delete() -> None:
    st.session_state.pop(PENDING_KEY, None)


@st.dialog("Delete this document?", on_dismiss=_cancel_delete)
def confirm_delete(store: KnowledgeBaseStore) -> None:
    """The confirmation dialog; open while a delete is pending (so it survives reruns)."""
    target = st.session_state.get(PENDING_KEY)
    if not target:
        return
    show(f"<b>{encode(target['title'])}</b><br><small>id {encode(target['doc_id'])} in "
         f"{encode(target['knowledge_base'])} · {target['chunks']} chunks</small>")
    st.warning("Its chunks are removed from the knowledge base and answers stop citing it. "
               "This cannot be undone; upload the file again to bring it back.")
    yes, no = st.columns(2)
    if yes.button("Delete", type="primary", key="documents.confirm_delete", width="stretch"):
        st.session_state.pop(PENDING_KEY, None)
        try:
            removed = store.delete_document(target["doc_id"], target["knowledge_base"])
        except EngineError as exc:
            st.session_state[NOTICE_KEY] = ("error", f"Delete failed: {exc}")
        else:
            st.session_state[NOTICE_KEY] = ("success", f"Deleted {target['title']} ({removed} chunks).")
            st.session_state[STALE_KEY] = True
            st.session_state.pop("documents.delete_choice", None)
        st.rerun()
    if no.button("Cancel", key="documents.cancel_delete", width="stretch"):
        st.session_state.pop(PENDING_KEY, None)
        st.rerun()


def show_notice() -> None:
    """A one-off message left by the last delete."""
    notice = st.session_state.pop(NOTICE_KEY, None)
    if notice:
        kind, text = notice
        (st.error if kind == "error" else st.success)(label(text, limit=600))


def render_charts(stats: CorpusStats) -> None:
    """Corpus statistics from the engine: documents and chunks per base, by year and by authority."""
    per_base = pd.DataFrame(stats.per_base)
    if per_base.empty:
        return
    long = per_base.melt(id_vars="base", var_name="count of", value_name="n")
    by_year = pd.DataFrame(stats.by_year)
    by_auth = pd.DataFrame(stats.by_authority).astype({"authority": str})
    c1, c2, c3 = st.columns(3)
    with c1:
        fig = px.bar(long, x="base", y="n", color="base", facet_col="count of", text="n",
                     title="Documents and chunks per base")
        fig.update_yaxes(matches=None, showticklabels=True, title=None)
        fig.for_each_annotation(lambda a: a.update(text=a.text.split("=")[-1]))
        fig.update_layout(showlegend=False)
        st.plotly_chart(fig, key="documents.chart_bases", config={"displayModeBar": False})
    with c2:
        fig = px.bar(by_year, x="year", y="documents", color="base", title="Documents by update year")
        fig.update_xaxes(type="category", categoryorder="category ascending")
        st.plotly_chart(fig, key="documents.chart_years", config={"displayModeBar": False})
    with c3:
        fig = px.bar(by_auth, x="authority", y="documents", color="base", title="Documents by authority (1 low – 5 high)")
        fig.update_xaxes(type="category", categoryorder="category ascending")
        st.plotly_chart(fig, key="documents.chart_authority", config={"displayModeBar": False})


@dataclass(frozen=True)
class Corpus:
    """A snapshot of the knowledge bases and their documents, kept in session state between reruns."""

    bases: list[KnowledgeBaseInfo]
    frame: pd.DataFrame
    stats: CorpusStats


def load_corpus(store: KnowledgeBaseStore) -> Corpus:
    bases = store.list_knowledge_bases()
    docs = [d for b in bases for d in store.list_documents(b.name)]
    return Corpus(bases, documents_frame(docs), summarise(bases, docs))
