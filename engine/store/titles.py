"""Document titles as names: which documents of a base a passage of text names.

A passage that names another document of the corpus ("... designed by the engineer Mara Lindqvist", in a
corpus holding a document titled "Mara Lindqvist") points at the evidence for the next step of a
question. The index maps each title, normalised, to its documents, and finds the titles a text names by
looking up its word runs (no scan of the titles), so it costs the same at a hundred documents or a million.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

MAX_TITLE_WORDS = 8
"""Longest title looked up, in words; longer titles (report names, manual tasks) are not used as names."""
MIN_TITLE_CHARS = 4
"""Shortest title looked up (normalised): "Ohio" is a name, "Q4" or "FAQ" is not."""

TITLE_QUALIFIER = re.compile(r"\s*\([^)]*\)\s*$")
"""A trailing qualifier in a title: "In Love and War (1996 film)" is named in text as "In Love and War"."""
_WORD = re.compile(r"[^\W_]+(?:['’.][^\W_]+)*\.?", re.UNICODE)
_EDGE_WORDS = frozenset({
    "a", "an", "the", "and", "or", "of", "in", "on", "at", "to", "for", "by", "with", "from", "is", "was", "are",
    "it", "this", "that", "he", "she", "they", "his", "her", "their", "its", "as", "be", "not", "no", "all",
})
"""Words a title may contain but not consist of, and with which a one-word title is never a name."""


def normalise_title(text: str) -> str:
    """Lower-case words joined by single spaces, without a trailing "(qualifier)" or punctuation."""
    return " ".join(w.rstrip(".").lower() for w in _WORD.findall(TITLE_QUALIFIER.sub("", text)))


@dataclass(frozen=True)
class NamedDocument:
    """A document whose title a text names, and where: the first word's offset in the text."""

    doc_id: str
    title: str
    offset: int


class TitleIndex:
    """Normalised title -> (doc_id, title) pairs, for the titles that can stand as names."""

    def __init__(self, titles: Iterable[tuple[str, str]]) -> None:
        self._docs: dict[str, list[tuple[str, str]]] = {}
        for doc_id, title in titles:
            key = normalise_title(title or "")
            words = key.split()
            if (len(key) < MIN_TITLE_CHARS or not words or len(words) > MAX_TITLE_WORDS
                    or all(w in _EDGE_WORDS or w.isdigit() for w in words)):
                continue
            self._docs.setdefault(key, []).append((doc_id, title))
        self._first = {key.split()[0] for key in self._docs}  # a word run is looked up only where a title starts

    def __len__(self) -> int:
        return len(self._docs)

    def named_in(self, text: str) -> list[NamedDocument]:
        """Documents whose titles ``text`` names, in order of first mention; the longest title wins at a word.

        A title counts only where it is a whole name in the text: its first word capitalised (not the common
        word: "a circus"), and no capitalised word run on to it on either side ("Circus" is not named in
        "Circus Diablo", nor "United" in "United States"). "Hank Williams Jr." is taken over "Hank Williams"
        where both are titles.
        """
        tokens = [(m.group().rstrip(".").lower(), m.group(), m.start()) for m in _WORD.finditer(text)]

        def joined(a: int, b: int) -> bool:  # token b follows token a with only spaces between: one name
            if a < 0 or b >= len(tokens):
                return False
            gap = text[tokens[a][2] + len(tokens[a][1]):tokens[b][2]]
            return not gap.strip() and tokens[a][1][:1].isupper() and tokens[b][1][:1].isupper()

        found: list[NamedDocument] = []
        seen: set[str] = set()
        i = 0
        while i < len(tokens):
            low, raw, start = tokens[i]
            match = None
            if (raw[:1].isupper() or raw[:1].isdigit()) and low in self._first:
                for n in range(min(MAX_TITLE_WORDS, len(tokens) - i), 0, -1):
                    key = " ".join(t[0] for t in tokens[i:i + n])
                    if key in self._docs and not (n == 1 and low in _EDGE_WORDS) \
                            and not joined(i - 1, i) and not joined(i + n - 1, i + n):
                        match = (key, n)
                        break
            if match is None:
                i += 1
                continue
            key, n = match
            for doc_id, title in self._docs[key]:
                if doc_id not in seen:
                    seen.add(doc_id)
                    found.append(NamedDocument(doc_id, title, start))
            i += n
        return found
