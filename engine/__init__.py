"""The reflective RAG workbench engine: ingest, search, reasoning pipeline and agent runtime.

Nothing in this package imports streamlit.
"""
