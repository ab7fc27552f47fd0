"""Sentences: the one splitter, for evidence, answers and documents alike.

Prose is cut at sentence punctuation (not after an abbreviation listed in ``en/abbreviations.txt``, nor after a
single letter); a line break ends a sentence too (headings, list items, table rows), except a hard wrap inside a
sentence: a line without end punctuation followed by one starting in lower case. A trailing [n] citation stays
with its sentence.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from engine.language.citations import strip_citations

_SENTENCE_END = re.compile(r"(?<=[.!?])(?:\s*(?:\[\d+(?:\s*[,–-]\s*\d+)*\])+)?(?=\s+|$)")
_ABBREVIATIONS = Path(__file__).with_name("en") / "abbreviations.txt"
_WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz.")


@lru_cache(maxsize=1)
def abbreviations() -> frozenset[str]:
    """Words whose full stop does not end a sentence (from ``en/abbreviations.txt``)."""
    lines = _ABBREVIATIONS.read_text(encoding="utf-8").splitlines()
    return frozenset(line.strip().lower() for line in lines if line.strip() and not line.startswith("#"))


def split_sentences(text: str) -> list[str]:
    """Split prose into sentences; a trailing [n] citation stays with its sentence.

    Line breaks end a sentence too (headings, list items, table rows), except a hard wrap
    inside a sentence: a line without end punctuation followed by one starting in lower case.
    """
    sentences: list[str] = []
    for block in _blocks(text or ""):
        sentences.extend(_split_block(block))
    return _merge_citation_only(sentences)


def _blocks(text: str) -> list[str]:
    """Lines joined into blocks: a line continues the one before when that one has no end punctuation and this
    one starts in lower case (a hard wrap); a blank line always ends a block. Linear in the text."""
    blocks: list[list[str]] = []
    after_blank = True
    for line in (raw.strip() for raw in text.splitlines()):
        if not line:
            after_blank = True
            continue
        if not after_blank and blocks[-1][-1][-1] not in ".!?:;]" and re.match(r"[a-z0-9(]", line):
            blocks[-1].append(line)
        else:
            blocks.append([line])
        after_blank = False
    return [" ".join(block) for block in blocks]


def _split_block(text: str) -> list[str]:
    text = re.sub(r"\s+", " ", text).strip()
    if not text:
        return []
    sentences: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        end = match.end()
        word = _word_before(text, match.start() - 1, start)
        if word and (word.lower().rstrip(".") in abbreviations() or len(word) == 1):
            continue
        head = text[start:end]  # sliced only here: slicing at every stop that ends nothing is quadratic
        if head.strip():
            sentences.append(head.strip())
        start = end
    if text[start:].strip():
        sentences.append(text[start:].strip())
    return sentences


def _word_before(text: str, stop: int, start: int) -> str:
    """The run of letters and dots that ends right before the stop at ``stop`` ("Fig" of "Fig.", "e.g" of "e.g.").

    Read backwards from the stop, so a paragraph of abbreviations that never ends a sentence ("Fig. 1 Fig. 2 ...")
    is not rescanned from its start at every stop.
    """
    first = stop
    while first > start and text[first - 1] in _WORD_CHARS:
        first -= 1
    return text[first:stop]


def _merge_citation_only(sentences: list[str]) -> list[str]:
    """Glue a sentence that is only citations ("[2].") onto the one before it."""
    merged: list[str] = []
    for sentence in sentences:
        if merged and not strip_citations(sentence).strip(" .;,"):
            merged[-1] = f"{merged[-1]} {sentence}"
        else:
            merged.append(sentence)
    return merged


