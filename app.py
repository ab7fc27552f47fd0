"""The workbench's Streamlit entry point: lists knowledge bases and their documents."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from components.factories import get_store

st.set_page_config(page_title="Reflective RAG workbench", layout="wide")
st.title("Reflective RAG workbench")
st.caption("Knowledge bases indexed from your documents. Every answer is checked against them before it is shown.")

store = get_store()
bases = store.list_knowledge_bases()
if not bases:
    st.info("No knowledge bases yet. Index documents with `python -m engine ingest PATH --kb NAME` or `make run`.")
for base in bases:
    dates = f"{base.earliest_date or 'unknown'} to {base.latest_date or 'unknown'}"
    with st.expander(f"{base.name}: {base.documents} documents, {base.chunks} chunks ({dates})", expanded=True):
        docs = store.list_documents(base.name)
        frame = pd.DataFrame([d.to_dict() for d in docs])
        st.dataframe(
            frame[["title", "file_name", "update_date", "authority", "doc_type", "revision", "chunks", "doc_id"]],
            hide_index=True, use_container_width=True,
        )
