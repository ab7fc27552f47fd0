"""The reflective RAG workbench engine: ingest, search, reasoning pipeline and agent runtime.

Nothing in this package imports streamlit.
"""

import os

# LanceDB's Rust core logs a deprecation warning on every hybrid query; keep real errors only
# (set LANCEDB_LOG=warn or debug to see more).
os.environ.setdefault("LANCEDB_LOG", "error")
