"""Upload pieces of the Documents page: the upload form, per-file progress bars and the outcome table."""

from __future__ import annotations


from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from components.safe_text import label, neutralise_markdown
from engine.documents.metadata import is_sidecar
from engine.documents.types import SUPPORTED_EXTENSIONS
from engine.errors import EngineError
from engine.ingest import FileResult, IngestReport, Ingestor, IngestStep
from engine.ingest_progress import IngestProgress

UPLOAD_TYPES = sorted({ext.lstrip(".") for ext in SUPPORTED_EXTENSIONS})
SIDECAR_TYPES = ("yaml", "yml", "json")  # NAME.meta.yaml / NAME.meta.json uploaded beside a file
STATUS_LABEL = {
    "added": "✅ added",
    "unchanged": "⏸️ unchanged",
    "replaced": "🔁 replaced",
    "rejected": "⛔ rejected",
    "skipped": "⏭️ skipped",
}
ON_CONFLICT_LABEL = {  # the upload form's choice for a file name the base already holds
    "replace": "Replace the stored document",
    "keep-both": "Keep both (the new one gets a “(2)” title)",
    "skip": "Skip the new file",
}
FROM_FILE = "from the file"
NEW_BASE = "➕ new knowledge base…"
REPORT_KEY = "documents.last_report"

@dataclass(frozen=True)
class UploadRequest:
    """What the user asked to ingest: files as (name, bytes), a target base and metadata overrides."""

    files: tuple[tuple[str, bytes], ...]
    knowledge_base: str
    metadata: dict[str, Any] = field(default_factory=dict)
    on_conflict: str = "replace"


def metadata_overrides(update_date: date | None, authority: Any, doc_type: str | None, series: str | None = None,
                       revision: str | None = None) -> dict[str, Any]:
    """Only the fields the user filled in; blank fields are taken from each file."""
    meta: dict[str, Any] = {}
    if update_date is not None:
        meta["update_date"] = update_date.isoformat()
    if authority not in (None, "", FROM_FILE):
        meta["authority"] = int(authority)
    for key, value in (("doc_type", doc_type), ("series", series), ("revision", revision)):
        if value and value.strip():
            meta[key] = value.strip()
    return meta


def target_base(kb_names: Sequence[str]) -> str:
    """The base picker, outside the form so that the name box appears only once "new" is picked: a name typed
    there always creates (or adds to) that base, and no existing base can be picked beside it. Returns the
    base's name ("" while a new base has no name yet)."""
    options = [*kb_names, NEW_BASE]
    left, right = st.columns(2)
    chosen = left.selectbox("Knowledge base", options, key="documents.kb",
                            help="Pick an existing base, or the last entry to create a new one.")
    if chosen != NEW_BASE and kb_names:
        return chosen
    return right.text_input("New knowledge base name", key="documents.new_kb",
                            placeholder="e.g. manuals (lower-case, digits, - or _)",
                            help="The files go into a new base of this name (or into the base of this name, "
                                 "when one exists).").strip()


def upload_form(kb_names: Sequence[str]) -> UploadRequest | None:
    """Render the base picker and the upload form; return the request when it is submitted with files."""
    kb = target_base(kb_names)
    with st.form("documents.upload", clear_on_submit=False, border=True):
        files = st.file_uploader(
            "Files to index", type=UPLOAD_TYPES + list(SIDECAR_TYPES), accept_multiple_files=True,
            key="documents.files",
            help="PDF, Word (.docx), Markdown, HTML, plain text or CSV. Several files at once are fine. A file's own "
                 "metadata can come along as a sidecar named after it: NAME.meta.yaml or NAME.meta.json.",
        )
        st.caption("Metadata below applies to every file in this upload, unless a sidecar uploaded with a file "
                   "(NAME.meta.yaml) sets that field. Leave a field blank to take it from each file (sidecar, "
                   "front matter or title); a file with no date is shown as “date unknown” and ranked as neither "
                   "new nor old, and one with no authority gets the default (3), ranked as neutral.")
        c1, c2, c3 = st.columns(3)
        update_date = c1.date_input("Update date", value=None, key="documents.update_date", format="YYYY-MM-DD",
                                    min_value=date(1900, 1, 1), max_value=date.today())
        authority = c2.selectbox("Authority (1 low – 5 high)", [FROM_FILE, 1, 2, 3, 4, 5], key="documents.authority")
        doc_type = c3.text_input("Document type", key="documents.doc_type", placeholder="e.g. manual, regulation")
        c4, c5 = st.columns(2)
        series = c4.text_input("Series", key="documents.series", placeholder="e.g. budget-report",
                               help="Revisions of one document share a series; the newest revision supersedes "
                                    "the others in answers.")
        revision = c5.text_input("Revision", key="documents.revision", placeholder="e.g. Rev 12, 2.0")
        on_conflict = st.radio(
            "When the base already holds a file of the same name", list(ON_CONFLICT_LABEL),
            format_func=ON_CONFLICT_LABEL.__getitem__, key="documents.on_conflict", horizontal=True,
            help="A base keeps one document per file name. Replace: the new file replaces it (the outcome says what "
                 "it replaced). Keep both: the new one is stored beside it under its own id, its title marked (2). "
                 "Skip: the stored one stays and the new file is not written.")
        submitted = st.form_submit_button("Index files", type="primary", key="documents.submit")
    if not submitted:
        return None
    if not files:
        st.warning("No file has reached the app yet. Choose files above; if you just did, wait until each one "
                   "is listed without a spinner (still being sent), then click Index files again.")
        return None
    if not kb:
        st.warning("Type a name for the new knowledge base, or pick an existing one.")
        return None
    return UploadRequest(
        files=tuple((f.name, f.getvalue()) for f in files),
        knowledge_base=kb,
        metadata=metadata_overrides(update_date, authority, doc_type, series, revision),
        on_conflict=on_conflict,
    )


def run_ingest(ingestor: Ingestor, request: UploadRequest) -> IngestReport | None:
    """Ingest the request with an overall bar and one bar per file, each moving as chunks are embedded;
    EngineError is shown, not raised."""
    documents = [name for name, _ in request.files if not is_sidecar(Path(name))]
    st.markdown(f"**Indexing {len(documents)} file(s) into {label(request.knowledge_base, limit=70)}**")
    tally = IngestProgress(documents)
    overall = st.progress(0.0, text=f"Overall: {tally.overall().describe()}")
    bars = [st.progress(0.0, text=f"{label(name)}: waiting…") for name in documents]

    def redraw(*_: object) -> None:
        for bar, item in zip(bars, tally.files()):
            text = STATUS_LABEL.get(item.status or "", item.describe())
            bar.progress(item.fraction, text=f"{label(item.name)}: {text}")
        now = tally.overall()
        overall.progress(now.fraction, text=f"Overall: {now.describe()}")

    def progress(result: FileResult) -> None:
        tally.file(result)
        redraw()

    def step(update: IngestStep) -> None:
        tally.step(update)
        redraw()

    try:
        report = ingestor.ingest_bytes(list(request.files), request.knowledge_base, request.metadata,
                                       progress=progress, on_step=step, on_conflict=request.on_conflict)
    except EngineError as exc:
        st.error("Nothing was indexed: " + label(str(exc), limit=600))
        return None
    redraw()
    return report


def outcome_frame(report: IngestReport) -> pd.DataFrame:
    """One row per file: its outcome, title, chunk count and the reason for a rejection."""
    rows = [{
        "file": neutralise_markdown(f.name),
        "outcome": STATUS_LABEL[f.status],
        "title": neutralise_markdown(f.title),
        "chunks": f.chunks,
        "reason": neutralise_markdown(f.reason or " ".join([*([f.note] if f.note else []), *f.warnings]) or None),
        "doc_id": f.doc_id or "",
    } for f in report.files]
    return pd.DataFrame(rows, columns=["file", "outcome", "title", "chunks", "reason", "doc_id"])


def outcome_summary(report: IngestReport) -> str:
    parts = [f"{report.count(s)} {s}" for s in ("added", "unchanged", "replaced", "rejected", "skipped")
             if s != "skipped" or report.count(s)]
    return f"{', '.join(parts)} · {report.chunks_written} chunks written in {report.seconds:.1f} s"


def render_outcome(report: IngestReport) -> None:
    """The outcome of the last upload: a summary line and a table (text shown as plain cells)."""
    st.subheader("Last upload")
    st.caption("Added: new document (or a second one kept beside a document of the same name). Unchanged: same "
               "content and metadata as before, not written again. Replaced: a changed version replaced the stored "
               "one, named in the reason column. Skipped: a file of that name was stored already and kept. "
               "Rejected: nothing written; see the reason.")
    summary = outcome_summary(report)
    for result in report.files:
        if result.status == "rejected":  # the reason in full: the table's column cuts long ones
            st.error(label(f"{result.name} was not indexed: {result.reason}", limit=600), icon=":material/block:")
        for warning in result.warnings:
            st.warning(label(f"{result.name}: {warning}", limit=600), icon=":material/warning:")
    if report.count("rejected"):
        st.warning(f"`{report.knowledge_base}`: {summary}")
    else:
        st.success(f"`{report.knowledge_base}`: {summary}")
    st.dataframe(outcome_frame(report), hide_index=True, width="stretch", key="documents.outcome",
                 column_config={"reason": st.column_config.TextColumn("reason", width="large")})

