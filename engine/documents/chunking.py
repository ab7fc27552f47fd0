"""Split text into overlapping chunks on paragraph and sentence boundaries.

Chunks never cross a section (so a PDF chunk keeps its exact page), prefer to end
at a paragraph break, never cut a sentence unless the sentence alone is longer than
the chunk size, and start with the tail sentences of the previous chunk (the overlap).
A Markdown chunk also starts with the heading lines above it that it does not hold itself.
"""

from __future__ import annotations

import re
from typing import Iterable

from engine.documents.headings import HeadingMap
from engine.documents.types import Chunk, Section

# A sentence ends at . ! ? (optionally followed by quotes/brackets) + whitespace + an
# upper-case letter, digit or opening quote; common abbreviations do not end sentences.
_BOUNDARY = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])")
_ABBREVIATIONS = frozenset(
    "fig figs no nos e.g i.e approx etc ref refs para rev vol mr mrs ms dr vs cf st max min incl "
    "lbf.in lbf.ft n.m in ft lb sec chap sect p/n s/n jan feb mar apr jun jul aug sep sept oct nov dec".split()
)
_PARAGRAPH = re.compile(r"\n\s*\n")


def split_sentences(text: str) -> list[str]:
    """Sentences of one paragraph, keeping their punctuation."""
    text = " ".join(text.split())
    if not text:
        return []
    sentences: list[str] = []
    start = 0
    for match in _BOUNDARY.finditer(text):
        candidate = text[start:match.start()].rstrip()
        last_word = candidate.rsplit(" ", 1)[-1].rstrip(".!?\"')]").lower()
        if last_word in _ABBREVIATIONS or (len(last_word) == 1 and last_word.isalpha()):
            continue
        sentences.append(text[start:match.end()].strip())
        start = match.end()
    tail = text[start:].strip()
    if tail:
        sentences.append(tail)
    return sentences


def _hard_split(sentence: str, size: int) -> list[str]:
    """Split an over-long sentence on whitespace into pieces of at most ``size`` characters."""
    pieces, current = [], ""
    for word in sentence.split(" "):
        while len(word) > size:  # a single enormous token
            if current:
                pieces.append(current)
                current = ""
            pieces.append(word[:size])
            word = word[size:]
        if current and len(current) + 1 + len(word) > size:
            pieces.append(current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    if current:
        pieces.append(current)
    return pieces


def _units(text: str, size: int) -> list[tuple[str, bool]]:
    """(sentence, starts_paragraph) pairs, with over-long sentences pre-split."""
    units: list[tuple[str, bool]] = []
    for paragraph in _PARAGRAPH.split(text):
        first = True
        for sentence in split_sentences(paragraph):
            for piece in _hard_split(sentence, size) if len(sentence) > size else [sentence]:
                units.append((piece, first))
                first = False
    return units


def chunk_sections(sections: Iterable[Section], size: int = 800, overlap: int = 120) -> list[Chunk]:
    """Chunk every section; positions run across the whole document."""
    if size < 50:
        raise ValueError("chunk size must be at least 50 characters")
    if not 0 <= overlap < size:
        raise ValueError("overlap must be >= 0 and smaller than the chunk size")
    chunks: list[Chunk] = []
    for section in sections:
        texts = _chunk_text(section.text, size, overlap)
        if section.headed:
            texts = _with_headings(section.text, texts)
        for text in texts:
            chunks.append(Chunk(text=text, position=len(chunks), page=section.page))
    return chunks


def _with_headings(source: str, texts: list[str]) -> list[str]:
    """Each chunk with the heading lines in effect where it starts that it does not hold itself, at its top."""
    headings = HeadingMap(source)
    out: list[str] = []
    cursor = 0
    for text in texts:
        lead = r"\s+".join(re.escape(w) for w in text.split()[:6])
        found = re.compile(lead).search(source, cursor) if lead else None
        if found is None:
            out.append(text)
            continue
        cursor = found.start()
        missing = [line for line in headings.at(cursor) if line not in text]
        out.append("\n\n".join([*missing, text]))
    return out


def _join(parts: list[tuple[str, bool]]) -> str:
    out = ""
    for sentence, new_paragraph in parts:
        if not out:
            out = sentence
        else:
            out += ("\n\n" if new_paragraph else " ") + sentence
    return out


def _chunk_text(text: str, size: int, overlap: int) -> list[str]:
    units = _units(text, size)
    chunks: list[str] = []
    current: list[tuple[str, bool]] = []
    length = 0
    fresh = 0  # sentences in `current` not already emitted in a previous chunk
    for sentence, starts_paragraph in units:
        added = len(sentence) + (2 if current else 0)
        # Close the chunk when this sentence would overflow it, or when a new paragraph
        # starts and the chunk is already more than half full.
        if current and (length + added > size or (starts_paragraph and length > size // 2)):
            chunks.append(_join(current))
            tail: list[tuple[str, bool]] = []
            tail_len = 0
            for prev in reversed(current):
                if tail_len + len(prev[0]) + 1 > overlap:
                    break
                tail.insert(0, prev)
                tail_len += len(prev[0]) + 1
            if tail_len + len(sentence) + 2 > size:
                tail, tail_len = [], 0
            current, length, fresh = list(tail), tail_len, 0
            added = len(sentence) + (2 if current else 0)
        current.append((sentence, starts_paragraph))
        length += added
        fresh += 1
    if current and fresh:
        chunks.append(_join(current))
    return chunks
