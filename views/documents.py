"""Documents: upload files into knowledge bases, browse and filter what is indexed, delete with confirmation."""

from __future__ import annotations

import streamlit as st

from components import document_table as table
from components.documents import REPORT_KEY, render_outcome, run_ingest, upload_form
from components import access

CORPUS_KEY = "documents.corpus"

st.title("Documents")
st.caption("Upload files into a knowledge base, see what happened to each file, and manage what is indexed. "
           "Answers on the Ask page only cite documents listed here.")

store = access.store()  # the bases this user may read; writes need a write grant
identity = access.current_identity()
if CORPUS_KEY not in st.session_state or st.session_state.pop(table.STALE_KEY, False):
    st.session_state[CORPUS_KEY] = table.load_corpus(store)
corpus: table.Corpus = st.session_state[CORPUS_KEY]

# -- upload ---------------------------------------------------------------------------------------
st.header("Upload", divider="gray")
request = None
if identity.can_change:
    request = upload_form([b.name for b in corpus.bases if identity.can_write(b.name)])
else:
    st.info(f"Your role ({identity.role}) may read documents but not upload or delete them.")
if request is not None and not identity.can_write(request.knowledge_base):
    st.error(f"You have no write grant for knowledge base {request.knowledge_base!r}; ask an admin for one.")
    request = None
if request is not None:
    report = run_ingest(access.ingestor(), request)
    if report is not None:
        st.session_state[REPORT_KEY] = report
        st.session_state[CORPUS_KEY] = corpus = table.load_corpus(store)
if st.session_state.get(REPORT_KEY) is not None:
    render_outcome(st.session_state[REPORT_KEY])

# -- indexed documents ------------------------------------------------------------------------------
st.header("Indexed documents", divider="gray")
head, refresh = st.columns([5, 1], vertical_alignment="bottom")
head.caption(f"{len(corpus.frame)} documents in {len(corpus.bases)} knowledge bases. "
             "Filter the table; below it, give a document a better title, or pick documents to delete.")
if refresh.button("Refresh", key="documents.refresh", help="Reload the list (e.g. after a CLI ingest)."):
    st.session_state[CORPUS_KEY] = corpus = table.load_corpus(store)
filling = store.sentence_filler.pending()  # sentences embedded after the ingest (engine/store/sentence_fill.py)
if filling:
    st.caption(f"The answer reader's sentence vectors are still being embedded for {filling} document(s) in the "
               "background. They are searchable and answerable now; an ask over them may take a little longer "
               "until that is done (Refresh to see).")

table.show_notice()
if corpus.frame.empty:
    st.info("No documents yet. Upload files above, or run `python -m engine bootstrap` to index the sample corpus.")
else:
    shown = table.apply_filters(corpus.frame, table.filter_controls(corpus.frame))
    st.caption(f"Showing {len(shown)} of {len(corpus.frame)} documents.")
    table.render_table(shown)
    if identity.can_change:  # only documents in bases this user may change can be picked to retitle or delete
        writable = shown[shown["knowledge_base"].map(identity.can_write)]
        table.title_editor(store, writable)
        table.delete_picker(writable)
    if st.session_state.get(table.PENDING_KEY):
        table.confirm_delete(store)

    # -- statistics ---------------------------------------------------------------------------------
    st.header("Corpus statistics", divider="gray")
    st.caption("How the corpus is spread across bases, years and source authority (all documents, not just the "
               "filtered ones).")
    table.render_charts(corpus.stats)
