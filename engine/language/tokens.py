"""Words: the one tokenizer, the one stemmer, content words, phrases compared without case or punctuation.

``stem`` is the English Snowball stemmer of tantivy, the same one the full-text index stems with, so
that a word matched here is matched there too. Lemmas come from spaCy where a text is parsed anyway
(``engine.language.nlp``); stemming is for the many texts that are not.
"""

from __future__ import annotations

import re
from functools import lru_cache

from engine.language.citations import strip_citations
from engine.language.en.stop_words import STOP_WORDS

WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’./-]*[A-Za-z0-9]|[A-Za-z0-9]")
"""A word: letters and digits, with inner apostrophes, dots, slashes and hyphens ("A320-200", "N.m", "don't")."""

__all__ = ["STOP_WORDS", "WORD", "content_words", "coverage", "holds_words", "mentions", "names_model", "normalise_phrase", "stem",
           "stems", "words"]


def words(text: str) -> list[str]:
    """Lower-cased word tokens, citations left out."""
    return list(_words(text))


# The answer reader and the reviewer call these for every sentence, context and chunk they read, and the same
# evidence comes back across the rounds and questions of a session; 4,096 recent texts each (a few MB at most).
@lru_cache(maxsize=4096)
def _words(text: str) -> tuple[str, ...]:
    return tuple(w.lower().strip(".'’/-") for w in WORD.findall(strip_citations(text)))


@lru_cache(maxsize=1)
def _analyzer():
    import tantivy

    return (tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.raw())
            .filter(tantivy.Filter.lowercase()).filter(tantivy.Filter.stemmer("english")).build())


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The Snowball stem of one word ("torques", "torqued" -> "torqu"); words with digits are kept as written."""
    w = word.lower()
    if len(w) <= 3 or any(ch.isdigit() for ch in w):
        return w
    found = _analyzer().analyze(w)
    return found[0] if found else w


def stems(text: str) -> frozenset[str]:
    """The stems of ``text``'s words."""
    return frozenset(stem(w) for w in words(text))


def content_words(text: str) -> list[str]:
    """Stems of the words that carry meaning (no stop words, no bare punctuation)."""
    return [stem(w) for w in words(text) if w and w not in STOP_WORDS and (len(w) > 1 or w.isdigit())]


def coverage(text: str, support: str | set[str]) -> float:
    """Share of ``text``'s content words found in ``support`` (1.0 when ``text`` has none)."""
    mine = set(content_words(text))
    if not mine:
        return 1.0
    theirs = support if isinstance(support, set) else set(content_words(support))
    return len(mine & theirs) / len(mine)


@lru_cache(maxsize=4096)
def normalise_phrase(text: str) -> str:
    """Lower case, punctuation and hyphens as single spaces: "Wheel-Axle" and "wheel axle" match."""
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def holds_words(text: str, phrase: str) -> bool:
    """True when the words of ``phrase`` stand in ``text`` in a row, a number a whole word with its decimals: "6.5
    N.m" holds "6.5 N.m" but not "5 N.m" (``normalise_phrase`` splits "6.5" into "6 5")."""
    needle, hay = words(phrase), words(text)
    n = len(needle)
    return bool(n) and any(tuple(hay[i:i + n]) == tuple(needle) for i in range(len(hay) - n + 1))


def mentions(text: str, phrase: str) -> bool:
    """True when ``text`` contains ``phrase`` as whole words, ignoring case, hyphens and punctuation."""
    needle = normalise_phrase(phrase)
    return bool(needle) and f" {needle} " in f" {normalise_phrase(text)} "


_MODEL_TAIL = re.compile(r"(?<=\s)\S*\d\S*(?:\s\S+)*$")
"""From the first word holding a digit to the end of a normalised name: the model or version ("737 max" of
"boeing 737 max"), which a document names as written while the maker's name may stand elsewhere."""


def names_model(text: str, name: str) -> bool:
    """A maker-and-model name ("Boeing 737 MAX") is named by ``text`` when the model is written as a phrase and
    every word before it stands somewhere in ``text`` ("The Boeing Company Model 737-8 ... (737 MAX)")."""
    key = normalise_phrase(name)
    model = _MODEL_TAIL.search(key)
    if not model or model.start() == 0:
        return False
    body = f" {normalise_phrase(text)} "
    return f" {model.group(0)} " in body and all(f" {w} " in body for w in key[: model.start()].split())
