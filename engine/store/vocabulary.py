"""The words a knowledge base holds: what a question's spelling is checked against.

A :class:`Vocabulary` is built from the text the keyword index searches (``search_text``),
so it knows exactly the words a keyword search can find. Words are letters only and
lower-cased (codes such as "A320" are never spelling-checked); each carries the number of
chunks it occurs in, and the Snowball stems of all words (``engine.language.tokens.stem``) are kept too, so that an
inflection the corpus does not contain ("inspections") still counts as known when the
index would match its stem. The store caches one vocabulary per table version.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from rapidfuzz import process
from rapidfuzz.distance import OSA

from engine.language.tokens import stem

_WORD = re.compile(r"(?<![^\W\d_])[^\W\d_]{2,}(?![^\W\d_])")
"""Runs of two or more letters; a run glued to digits ("A320") is still a run of its letters only."""


def text_words(text: str) -> list[str]:
    """Lower-cased letter-only words of ``text``, as the vocabulary counts them."""
    return [w.lower() for w in _WORD.findall(text)]


@dataclass(frozen=True)
class Vocabulary:
    """Known words with their chunk frequencies, the stems of those words, and a fuzzy lookup."""

    frequencies: Mapping[str, int] = field(default_factory=dict)
    stem_set: frozenset[str] = frozenset()
    _by_initial: dict[str, tuple[str, ...]] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        buckets: dict[str, list[str]] = {}
        for word in sorted(self.frequencies):
            buckets.setdefault(word[0], []).append(word)
        object.__setattr__(self, "_by_initial", {k: tuple(v) for k, v in buckets.items()})

    @classmethod
    def from_texts(cls, texts: Iterable[str]) -> "Vocabulary":
        """Count, for every word, the texts (chunks) it occurs in."""
        counts: Counter[str] = Counter()
        for text in texts:
            counts.update(set(text_words(text or "")))
        words = sorted(counts)
        return cls(dict(counts), frozenset(stem(w) for w in words))

    @classmethod
    def merge(cls, parts: Iterable["Vocabulary"]) -> "Vocabulary":
        """One vocabulary over several knowledge bases (frequencies add up)."""
        parts = list(parts)
        if len(parts) == 1:
            return parts[0]
        counts: Counter[str] = Counter()
        for part in parts:
            counts.update(part.frequencies)
        return cls(dict(counts), frozenset().union(*(p.stem_set for p in parts)))

    def __len__(self) -> int:
        return len(self.frequencies)

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and word.lower() in self.frequencies

    def frequency(self, word: str) -> int:
        return self.frequencies.get(word.lower(), 0)

    def has_stem(self, word: str) -> bool:
        """True when ``word`` stems to the stem of a known word (so the keyword index finds it)."""
        return bool(word) and stem(word) in self.stem_set

    def neighbours(self, word: str, max_distance: int, prefix_length: int = 1) -> list[tuple[str, int, int]]:
        """Known words within ``max_distance`` edits of ``word`` (a swap of adjacent letters is one edit)
        that share its first ``prefix_length`` letters, as (word, distance, frequency), closest first."""
        word = word.lower()
        if max_distance < 1 or prefix_length < 0 or len(word) <= prefix_length:
            return []
        prefix = word[:prefix_length]
        pool = self._by_initial.get(word[0], ()) if prefix else self.frequencies
        choices = [w for w in pool if w.startswith(prefix) and w != word]
        found = process.extract(word, choices, scorer=OSA.distance, score_cutoff=max_distance, limit=None)
        return sorted(((w, int(d), self.frequencies[w]) for w, d, _ in found), key=lambda t: (t[1], -t[2], t[0]))
