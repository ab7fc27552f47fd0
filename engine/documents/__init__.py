"""Parse, describe and chunk documents."""

from engine.documents.chunking import chunk_sections
from engine.documents.parsers import parse_bytes
from engine.documents.types import SUPPORTED_EXTENSIONS, Chunk, DocumentMetadata, ParsedFile, Section

__all__ = [
    "chunk_sections", "parse_bytes", "SUPPORTED_EXTENSIONS", "Chunk", "DocumentMetadata",
    "ParsedFile", "Section",
]
