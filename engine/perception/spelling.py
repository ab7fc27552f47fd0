"""Spelling: question words the knowledge bases do not contain, corrected to close words they do.

Only a word that is neither in the vocabulary nor shares a stem with a word in it is
considered, so a word that exists in the documents is never changed. Nor is a word of the
language (given as spaCy's vocabulary): "users" asked of documents that only say "uses" is
a question about users, not a typo. Codes and numbers ("A320", "E4027"), acronyms ("AMM"),
mixed-case names and stop words are left alone.
The bounds follow LanceDB's fuzzy full-text matching (edit distance with a swap of adjacent
letters counted as one edit, and a fixed first letter like its ``prefix_length``), tightened
so that a nonsense word is not pulled onto a real one:

- words under ``MIN_FUZZY_LENGTH`` letters are never changed, except that words of
  ``SWAP_ONLY_LENGTH`` letters may have two adjacent letters swapped back ("axel" -> "axle");
- shorter words get at most ``SHORT_MAX_EDITS`` edit, words of ``LONG_WORD_LENGTH`` letters
  or more at most ``LONG_MAX_EDITS``;
- among candidates, the fewest edits wins, then the word found in more chunks.
"""

from __future__ import annotations

import re
from collections.abc import Container
from dataclasses import dataclass
from typing import Protocol

from engine.language.tokens import STOP_WORDS
from engine.results import SpellingCorrection

MIN_FUZZY_LENGTH = 5
"""Below this, one substitution/insertion/deletion too often turns one real word into another (nut/nit, pin/pen)."""
SWAP_ONLY_LENGTH = 4
"""Four-letter words may be corrected by an adjacent-letter swap only: the letters stay the same, so a swap
rarely turns a typo into a different real word, and it is the most common typo in short words."""
SHORT_MAX_EDITS = 1
"""Words of 5-7 letters: one edit, the budget LanceDB's automatic fuzziness gives 3-5 letter terms."""
LONG_WORD_LENGTH = 8
"""From this length two edits are allowed (LanceDB's automatic fuzziness allows two from 6 letters; we wait
longer because a 6-7 letter word two edits away from a corpus word is as often a different word as a typo)."""
LONG_MAX_EDITS = 2
PREFIX_LENGTH = 1
"""Letters that must match at the start of a word; first-letter typos are rare, and fixing the first letter
keeps unrelated words out (LanceDB's ``prefix_length``)."""

_TOKEN = re.compile(r"(?<![\w'’])(?<!\d-)[^\W\d_]+(?![\w'’])(?!-\d)")
"""A word of letters only, not glued to digits or apostrophes, nor hyphened to a number ("MAX-8", "32-41")."""


class Lexicon(Protocol):
    """The words spelling is checked against (the store's :class:`~engine.store.vocabulary.Vocabulary`)."""

    def __len__(self) -> int: ...

    def __contains__(self, word: object) -> bool: ...

    def has_stem(self, word: str) -> bool: ...

    def neighbours(self, word: str, max_distance: int, prefix_length: int = 1) -> list[tuple[str, int, int]]: ...


@dataclass(frozen=True)
class Spelling:
    """The text with its corrections applied, and the corrections in question order."""

    text: str
    corrections: tuple[SpellingCorrection, ...] = ()


def max_edits(word: str) -> int:
    """The edit budget for a word of this length (0: never corrected)."""
    if len(word) < SWAP_ONLY_LENGTH:
        return 0
    if len(word) < MIN_FUZZY_LENGTH:
        return 1  # adjacent swaps only, enforced in best_correction
    return LONG_MAX_EDITS if len(word) >= LONG_WORD_LENGTH else SHORT_MAX_EDITS


def _checkable(word: str) -> bool:
    """Lower-case words and capitalised words; acronyms and mixed case ("AMM", "iPad") are names."""
    return word.islower() or (word[0].isupper() and word[1:].islower())


def best_correction(
    word: str, lexicon: Lexicon, language: Container[str] | None = None
) -> tuple[str, int] | None:
    """The known word ``word`` should be read as, with its distance; None when it stays as written.

    ``language`` holds words that are real words even when the documents lack them (never corrected).
    """
    budget = max_edits(word)
    if budget == 0 or not _checkable(word):
        return None
    low = word.lower()
    if low in STOP_WORDS or low in lexicon or lexicon.has_stem(low):
        return None
    if language is not None and (word in language or low in language):
        return None
    for candidate, distance, _ in lexicon.neighbours(low, budget, PREFIX_LENGTH):
        if len(low) < MIN_FUZZY_LENGTH and sorted(candidate) != sorted(low):
            continue  # a short word may only have two letters swapped back
        return _same_case(candidate, word), distance
    return None


def correct_spelling(text: str, lexicon: Lexicon | None, language: Container[str] | None = None) -> Spelling:
    """Replace each word that neither the lexicon nor ``language`` knows by its closest lexicon word,
    within the bounds above."""
    if lexicon is None or not len(lexicon):
        return Spelling(text)
    corrections: list[SpellingCorrection] = []
    seen: dict[str, tuple[str, int] | None] = {}

    def fix(match: re.Match[str]) -> str:
        word = match.group(0)
        if word not in seen:
            seen[word] = best_correction(word, lexicon, language)
            if seen[word] is not None:
                corrected, distance = seen[word]
                corrections.append(SpellingCorrection(original=word, corrected=corrected, distance=distance))
        found = seen[word]
        return found[0] if found else word

    corrected = _TOKEN.sub(fix, text)
    return Spelling(corrected, tuple(corrections))


def _same_case(candidate: str, original: str) -> str:
    return candidate.capitalize() if original[0].isupper() else candidate
