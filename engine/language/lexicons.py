"""Named word lists kept as data: ``en/<name>.txt``, one word or phrase a line, ``#`` starting a comment.

A lexicon is what a reader of another domain edits to make a check fit their documents (the words that mark a
document superseded, the words that frame a comparison question), so it lives beside the other English data and
not in code. ``lexicon("status_words")`` reads ``en/status_words.txt`` once.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

_FOLDER = Path(__file__).with_name("en")


@lru_cache(maxsize=32)
def lexicon(name: str) -> tuple[str, ...]:
    """The entries of ``en/<name>.txt`` in file order, lower case, without comments or blank lines."""
    if not re.fullmatch(r"[a-z_]+", name):
        raise ValueError(f"lexicon name must be lower-case letters and underscores, not {name!r}")
    entries: list[str] = []
    for line in (_FOLDER / f"{name}.txt").read_text(encoding="utf-8").splitlines():
        entry = " ".join(line.split("#", 1)[0].split()).lower()
        if entry and entry not in entries:
            entries.append(entry)
    return tuple(entries)


def words(name: str) -> frozenset[str]:
    """The entries of lexicon ``name`` as a set, for membership tests."""
    return frozenset(lexicon(name))


def pattern(name: str) -> str:
    """A regular expression (no flags, no groups) matching any entry of lexicon ``name`` as whole words, the
    longest first; the words of a phrase may be separated by any whitespace ("no longer  valid")."""
    phrases = sorted(lexicon(name), key=len, reverse=True)
    return r"\b(?:" + "|".join(r"\s+".join(re.escape(w) for w in p.split()) for p in phrases) + r")\b"
