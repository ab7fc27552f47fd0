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
DELETE_CHOICE = "documents.delete_choice"
PICK_ALL_KEY = "documents.pick_all"
MAX_DELETE = 200
"""Documents one confirmation deletes at most (the dialog lists each)."""


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


UNKNOWN_DATE = "date unknown"
"""What the table shows for a document without an update date (as the upload form's help says)."""


def shown_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """The table as shown: dates as YYYY-MM-DD text, "date unknown" where a document has none."""
    dates = frame["update_date"].map(lambda d: UNKNOWN_DATE if d is None or pd.isna(d) else d.isoformat())
    return frame.assign(update_date=dates)


def render_table(frame: pd.DataFrame) -> None:
    st.dataframe(
        shown_frame(frame), hide_index=True, width="stretch", key="documents.table",
        column_config={
            "knowledge_base": st.column_config.TextColumn("base"),
            "update_date": st.column_config.TextColumn("updated", help="Update date (YYYY-MM-DD); "
                                                       f"“{UNKNOWN_DATE}” when the document states none."),
            "authority": st.column_config.NumberColumn("authority", help="1 (low) to 5 (high)"),
            "doc_id": st.column_config.TextColumn("id"),
        },
    )


def _label(row: dict[str, Any]) -> str:
    return f"{row['title']} · {row['knowledge_base']}/{row['doc_id']}"


def delete_picker(frame: pd.DataFrame) -> None:
    """Pick documents from the filtered table and ask once for confirmation before deleting them all."""
    if frame.empty:
        return
    rows = {_label(r): r for r in frame.to_dict("records")}
    state = st.session_state
    pick_all_pending()
    if DELETE_CHOICE in state:  # a filter change may have left picks that are no longer listed
        state[DELETE_CHOICE] = [c for c in state[DELETE_CHOICE] if c in rows]
    left, middle, right = st.columns([6, 1.4, 1.2], vertical_alignment="bottom")
    chosen = left.multiselect("Documents to delete", list(rows), key=DELETE_CHOICE,
                              placeholder="pick one or more documents from the filtered table")
    if middle.button("All shown", key="documents.delete_all_shown", width="stretch",
                     help="Pick every document the filters show (at most 200 at once)."):
        state[PICK_ALL_KEY] = list(rows)[:MAX_DELETE]
        st.rerun()
    count = len(chosen)
    if right.button(f"Delete {count}…" if count else "Delete…", key="documents.delete", disabled=not count,
                    width="stretch"):
        state[PENDING_KEY] = [{k: rows[c][k] for k in ("doc_id", "knowledge_base", "title", "chunks")}
                              for c in chosen[:MAX_DELETE]]


def pick_all_pending() -> None:
    """Apply an "All shown" pick (before the picker is drawn: a widget's value is set only before it exists)."""
    picked = st.session_state.pop(PICK_ALL_KEY, None)
    if picked is not None:
        st.session_state[DELETE_CHOICE] = picked


def _cancel_delete() -> None:
    st.session_state.pop(PENDING_KEY, None)


def _pending() -> list[dict[str, Any]]:
    """The documents waiting for confirmation (a list; one dict from an older session is one document)."""
    target = st.session_state.get(PENDING_KEY) or []
    return [target] if isinstance(target, dict) else list(target)


@st.dialog("Delete documents?", on_dismiss=_cancel_delete)
def confirm_delete(store: KnowledgeBaseStore) -> None:
    """One confirmation for every picked document; open while a delete is pending (so it survives reruns)."""
    targets = _pending()
    if not targets:
        return
    chunks = sum(int(t["chunks"] or 0) for t in targets)
    st.markdown(f"**{len(targets)} document(s)**, {chunks} chunks in all:")
    show("<ul>" + "".join(f"<li><b>{encode(t['title'])}</b> <small>id {encode(t['doc_id'])} in "
                          f"{encode(t['knowledge_base'])} · {t['chunks']} chunks</small></li>" for t in targets)
         + "</ul>")
    st.warning("Their chunks are removed from the knowledge bases and answers stop citing them. "
               "This cannot be undone; upload the files again to bring them back.")
    yes, no = st.columns(2)
    if yes.button(f"Delete {len(targets)}", type="primary", key="documents.confirm_delete", width="stretch"):
        st.session_state.pop(PENDING_KEY, None)
        deleted, removed, failed = [], 0, []
        for target in targets:
            try:
                removed += store.delete_document(target["doc_id"], target["knowledge_base"])
            except EngineError as exc:
                failed.append(f"{target['title']}: {exc}")
            else:
                deleted.append(target["title"])
        if failed:
            st.session_state[NOTICE_KEY] = ("error", f"Deleted {len(deleted)} of {len(targets)}; failed: "
                                            + "; ".join(failed))
        else:
            names = deleted[0] if len(deleted) == 1 else f"{len(deleted)} documents"
            st.session_state[NOTICE_KEY] = ("success", f"Deleted {names} ({removed} chunks).")
        if deleted:
            st.session_state[STALE_KEY] = True
            st.session_state.pop(DELETE_CHOICE, None)
        st.rerun()
    if no.button("Cancel", key="documents.cancel_delete", width="stretch"):
        st.session_state.pop(PENDING_KEY, None)
        st.rerun()


TITLE_CHOICE = "documents.title_choice"
TITLE_TEXT = "documents.title_text"


def title_editor(store: KnowledgeBaseStore, frame: pd.DataFrame) -> None:
    """Pick a document from the filtered table and give it a title of your own (the list, search results and
    citations show it)."""
    if frame.empty:
        return
    rows = {_label(r): r for r in frame.to_dict("records")}
    state = st.session_state

    def fill() -> None:  # the box starts from the picked document's title
        picked = rows.get(state.get(TITLE_CHOICE))
        state[TITLE_TEXT] = picked["title"] if picked else ""

    left, middle, right = st.columns([3, 3, 1], vertical_alignment="bottom")
    choice = left.selectbox("Document to retitle", list(rows), index=None, key=TITLE_CHOICE, on_change=fill,
                            placeholder="pick a document from the filtered table")
    title = middle.text_input("New title", key=TITLE_TEXT, max_chars=300, disabled=choice is None,
                              help="Titles come from the document itself (its PDF title, first heading or first "
                                   "prominent line); write a better one here.")
    if right.button("Save title", key="documents.title_save", disabled=choice is None, width="stretch"):
        row = rows[choice]
        try:
            info = store.set_title(row["doc_id"], row["knowledge_base"], title)
        except EngineError as exc:
            st.error(label(f"Title not saved: {exc}", limit=600))
            return
        state[NOTICE_KEY] = ("success", f"Retitled {row['doc_id']}: {info.title}.")
        state[STALE_KEY] = True
        state.pop(TITLE_CHOICE, None)
        state.pop(TITLE_TEXT, None)
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
