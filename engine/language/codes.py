"""Codes and identifiers: "A320", "E4027", "CFM56-7B", "201-587-3", versions such as "0.11.0".

A question about "fault code E4027" is answered by text that names E4027, not by text about a
code of the same kind (same shape of letters, digits and separators) that merely sounds similar.
"""

from __future__ import annotations

import re

from engine.language.en.lex_attrs import MONTHS
from engine.language.tokens import normalise_phrase

CODE = re.compile(
    r"\b(?:[A-Za-z]+[-/]?\d[A-Za-z0-9]*(?:[-/][A-Za-z0-9]+)*"  # A320, E4027, ATA-32, B737-800
    r"|\d+[A-Za-z]+\d[A-Za-z0-9]*(?:[-/][A-Za-z0-9]+)*"  # 3A2, 12B4
    r"|\d+(?:-\d+){2,})\b"  # 201-587-3
)
VERSION = re.compile(r"(?<![\w.])v?\d+(?:\.\d+){1,3}(?!\w|\.\d)")
"""A version or section number ("0.11.0", "v2.1", "3.4.2")."""


def identifier(token: str) -> bool:
    """A code of four or more letters and digits (A320, E4027, LEAP-1A, 201-587-3), not "4th" or "A4"."""
    return any(ch.isdigit() for ch in token) and sum(ch.isalnum() for ch in token) >= 4


def codes_in(text: str) -> set[str]:
    """The identifiers ``text`` names, lower case."""
    from engine.language.citations import strip_citations

    return {m.group(0).lower() for m in CODE.finditer(strip_citations(text))
            if m.group(0).lower() not in MONTHS and identifier(m.group(0))}


def code_kind(token: str) -> str:
    """The shape of a code: letter runs -> "a", digits -> "9", separators kept ("E4027" -> "a9999")."""
    shape = re.sub(r"\d", "9", token.lower())
    return re.sub(r"[a-z]+", "a", shape)


def names(text: str, token: str) -> bool:
    """True when ``text`` names ``token``, also as the stem of a variant (A320 -> A320neo, B737 -> B737-800)."""
    needle = normalise_phrase(token)
    if not needle:
        return False
    return re.search(rf"(?<![a-z0-9]){re.escape(needle)}(?![0-9])", normalise_phrase(text)) is not None
