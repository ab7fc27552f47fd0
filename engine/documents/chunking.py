"""Split text into overlapping chunks on paragraph and sentence boundaries.

Chunks never cross a section (so a PDF chunk keeps its exact page), prefer to end
at a paragraph break, never cut a sentence unless the sentence alone is longer than
the chunk size, and start with the tail sentences of the previous chunk (the overlap).
Sentences are those of ``engine.language.sentences.split_sentences``, the splitter every
later stage reads chunks with; the sentences of a paragraph are joined by single spaces.
A Markdown chunk also starts with the heading lines above it that it does not hold itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from engine.documents.headings import HeadingMap
from engine.documents.types import Chunk, Section
from engine.language.sentences import split_sentences

_PARAGRAPH = re.compile(r"\n\s*\n")
LEAD_CHARS = 100
"""How much of a chunk's opening is searched for in the source to place it under its headings."""


def _hard_split(sentence: str, size: int) -> list[str]:
    """Split an over-long sentence on whitespace into pieces of at most ``size`` characters."""
    pieces, current = [], ""
    for word in sentence.split(" "):
        if len(word) > size:  # a single enormous token: whole pieces of it, the rest carries on
            if current:
                pieces.append(current)
                current = ""
            whole = (len(word) - 1) // size
            pieces.extend(word[i * size:(i + 1) * size] for i in range(whole))
            word = word[whole * size:]
        if current and len(current) + 1 + len(word) > size:
            pieces.append(current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    if current:
        pieces.append(current)
    return pieces


def _units(text: str, size: int) -> Iterator[tuple[str, bool]]:
    """(sentence, starts_paragraph) pairs, with over-long sentences pre-split."""
    for paragraph in _PARAGRAPH.split(text):
        first = True
        for sentence in split_sentences(paragraph):
            for piece in _hard_split(sentence, size) if len(sentence) > size else [sentence]:
                yield piece, first
                first = False


def chunk_sections(sections: Iterable[Section], size: int = 800, overlap: int = 120) -> list[Chunk]:
    """Chunk every section; positions run across the whole document."""
    return list(iter_chunks(sections, size, overlap))


def iter_chunks(sections: Iterable[Section], size: int = 800, overlap: int = 120) -> Iterator[Chunk]:
    """The chunks of ``chunk_sections`` one at a time, so a caller can stop early (time is linear in the text)."""
    if size < 50:
        raise ValueError("chunk size must be at least 50 characters")
    if not 0 <= overlap < size:
        raise ValueError("overlap must be >= 0 and smaller than the chunk size")
    position = 0
    for section in sections:
        texts = _chunk_text(section.text, size, overlap)
        if section.headed:
            texts = _with_headings(section.text, texts)
        for text in texts:
            yield Chunk(text=text, position=position, page=section.page)
            position += 1


def _lead(text: str) -> str:
    """A pattern for the first words of ``text`` (at most LEAD_CHARS of them), whatever whitespace is between."""
    parts: list[str] = []
    total = 0
    for word in text.split(maxsplit=6)[:6]:
        if total + len(word) > LEAD_CHARS:
            if total < LEAD_CHARS:
                parts.append(re.escape(word[:LEAD_CHARS - total]))
            break
        parts.append(re.escape(word))
        total += len(word)
    return r"\s+".join(parts)


def _with_headings(source: str, texts: Iterable[str]) -> Iterator[str]:
    """Each chunk with the heading lines in effect where it starts that it does not hold itself, at its top."""
    headings = HeadingMap(source)
    cursor = 0
    for text in texts:
        lead = _lead(text)
        found = re.compile(lead).search(source, cursor) if lead else None
        if found is None:
            yield text
            continue
        cursor = found.start()
        missing = [line for line in headings.at(cursor) if line not in text]
        yield "\n\n".join([*missing, text])


def _join(parts: list[tuple[str, bool]]) -> str:
    out = ""
    for sentence, new_paragraph in parts:
        if not out:
            out = sentence
        else:
            out += ("\n\n" if new_paragraph else " ") + sentence
    return out


def _chunk_text(text: str, size: int, overlap: int) -> Iterator[str]:
    units = _units(text, size)
    current: list[tuple[str, bool]] = []
    length = 0
    fresh = 0  # sentences in `current` not already emitted in a previous chunk
    for sentence, starts_paragraph in units:
        added = len(sentence) + (2 if current else 0)
        # Close the chunk when this sentence would overflow it, or when a new paragraph
        # starts and the chunk is already more than half full.
        if current and (length + added > size or (starts_paragraph and length > size // 2)):
            yield _join(current)
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
        yield _join(current)
