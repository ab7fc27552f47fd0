"""Mentions: the names, codes and titles a passage speaks of, as the keys the entity graph joins passages on
(engine/store/mentions.py, engine/retrieval/graph.py).

A passage mentions each name and code that ``names.name_spans`` reads in it (consecutive capitalised words, codes
such as "A320" or "AC 43.13-1B") and its document's title. A key is the mention in lower case with accents,
punctuation and hyphens dropped ("Beyoncé's" and "beyonce" meet); a title written with a qualifier in brackets
("Mercury (planet)") is also a mention of the name before it. Names come from the toolkit's name reader rather
than spaCy's entity recogniser because the reader costs 0.3 ms a passage against 10 ms (retrieval_dev's 994
passages: 0.28 s against 10.2 s on two cores), which would slow the ingest by half.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from engine.language.citations import strip_citations
from engine.language.names import name_spans
from engine.language.tokens import STOP_WORDS, normalise_phrase

MAX_KEY_CHARS = 80
"""Longer keys are not names (a heading or a flattened table row read as one capitalised run)."""
_POSSESSIVE = re.compile(r"(?<=\w)['’]s\s+")
_QUALIFIER = re.compile(r"\s*\([^()]*\)\s*$")


@dataclass(frozen=True)
class Mention:
    """One thing a text speaks of: its key, how it is written there, and whether it is a ``name``, a ``code`` or
    the document's ``title``."""

    key: str
    written: str
    kind: str


def mention_key(text: str) -> str:
    """The graph key of a name as written: lower case, accents dropped, punctuation and hyphens as single spaces,
    a leading article and a trailing possessive dropped ("The Beatles'" -> "beatles")."""
    plain = unicodedata.normalize("NFKD", text)
    plain = "".join(ch for ch in plain if not unicodedata.combining(ch))
    plain = re.sub(r"['’]s?\b(?=\s*$)", "", plain.strip())
    key = normalise_phrase(plain)
    words = key.split()
    while words and words[0] in ("the", "a", "an"):
        words.pop(0)
    key = " ".join(words)
    if len(key) < 2 or len(key) > MAX_KEY_CHARS or key in STOP_WORDS or key.isdigit():
        return ""
    return key


def title_mentions(title: str) -> list[Mention]:
    """A document's title as mentions: the title, and the name before a bracketed qualifier."""
    out: list[Mention] = []
    for written in dict.fromkeys([title.strip(), _QUALIFIER.sub("", title).strip()]):
        key = mention_key(written)
        if key and all(m.key != key for m in out):
            out.append(Mention(key, written, "title"))
    return out


def text_mentions(text: str) -> list[Mention]:
    """The names and codes of ``text``, each key once, in order of first appearance."""
    clean = strip_citations(text)  # name_spans's offsets are those of the text without its [n] markers
    seen: dict[str, Mention] = {}
    for start, end, _ in name_spans(clean):
        whole = clean[start:end]  # "Arthur's Magazine" is a name; so are "NASA" and "Messenger" in "NASA's Messenger"
        parts = _POSSESSIVE.split(whole)
        for written in [whole] + (parts if len(parts) > 1 else []):
            key = mention_key(written)
            if key and key not in seen:
                kind = "code" if any(ch.isdigit() for ch in key) else "name"
                seen[key] = Mention(key, written, kind)
    return list(seen.values())


@lru_cache(maxsize=4096)
def passage_mentions(title: str, text: str) -> tuple[Mention, ...]:
    """What a passage of a document titled ``title`` mentions: its title's keys, then its text's names and codes
    (remembered: the best passages of one ask are often those of the next)."""
    out = title_mentions(title)
    keys = {m.key for m in out}
    return tuple(out + [m for m in text_mentions(text) if m.key not in keys])


def question_mentions(question: str, entities: Sequence[str] = ()) -> list[Mention]:
    """The mentions a question seeds the graph with: the entities perception found in it, and the names and codes
    the name reader finds (a question opening with a name is read after its first word too, since the name reader
    skips a capitalised word that opens a sentence)."""
    seen: dict[str, Mention] = {}
    for entity in entities:
        key = mention_key(entity)
        if key:
            seen.setdefault(key, Mention(key, entity, "name"))
    for mention in text_mentions(f"x {question}"):
        seen.setdefault(mention.key, mention)
    return list(seen.values())
