"""Evidence built from the real sample_docs files: parsed, described and chunked as ingest does, no index.

``sample_evidence("regulations/acaa-ad-2024-11-02-b737-flap-track.html", "4,500 FC")`` is the first chunk
of that file whose text contains the phrase, with the file's own metadata (sidecar or front matter).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from engine.config import Settings
from engine.documents.chunking import chunk_sections
from engine.documents.metadata import read_sidecar, resolve_metadata
from engine.documents.parsers import parse_bytes
from engine.ingest import make_doc_id
from engine.results import Evidence, EvidenceMeta

SAMPLE_DOCS = Path(__file__).resolve().parents[2] / "sample_docs"


@lru_cache(maxsize=None)
def sample_chunks(relative: str) -> tuple[Evidence, ...]:
    """Every chunk of one sample document, as Evidence in document order."""
    path = SAMPLE_DOCS / relative
    kb = path.parent.name
    size, overlap = (Settings.model_fields[name].default for name in ("chunk_size", "chunk_overlap"))
    parsed = parse_bytes(path.name, path.read_bytes())
    meta = resolve_metadata(path.name, parsed, kb, sidecar=read_sidecar(path))
    doc_id = make_doc_id(kb, path.name)
    chunks = chunk_sections(parsed.sections, size, overlap)
    return tuple(
        Evidence(chunk_id=f"{doc_id}:{c.position:04d}", doc_id=doc_id, knowledge_base=kb, text=c.text, score=1.0,
                 metadata=EvidenceMeta(title=meta.title, source=meta.source, update_date=meta.update_date,
                                       authority=meta.authority, doc_type=meta.doc_type, page=c.page,
                                       series=meta.series, revision=meta.revision, file_name=path.name))
        for c in chunks
    )


def sample_evidence(relative: str, phrase: str) -> Evidence:
    """The first chunk of ``relative`` (under sample_docs/) whose text contains ``phrase``."""
    for item in sample_chunks(relative):
        if phrase in item.text:
            return item
    raise AssertionError(f"no chunk of {relative} contains {phrase!r}")
