"""Whole-identifier tokens for keyword search: "0.11.0" is one thing to find, not the words "0", "11", "0".

The full-text index splits text at punctuation, so a search for version 0.11.0 matches every
chunk with a 0 and an 11 in it, and a part number such as 201-587-3 matches any 3. Each dotted,
hyphenated or slashed number of a chunk is therefore also indexed as one alphanumeric token
("0.11.0" -> "id0p11p0"), and a query gets the same tokens, so BM25 ranks exact identifiers first.
"""

from __future__ import annotations

import re

_IDENTIFIER = re.compile(r"(?<![\w.\-/])v?(\d+(?:[.\-/]\d+){1,4})(?![\w]|[.\-/]\d)")
_JOINERS = str.maketrans({".": "p", "-": "h", "/": "s"})


def identifier_tokens(text: str) -> str:
    """The identifier tokens of ``text``, space-separated ("" when it has none)."""
    return " ".join(dict.fromkeys("id" + m.group(1).translate(_JOINERS) for m in _IDENTIFIER.finditer(text)))


def with_identifier_tokens(text: str) -> str:
    """``text`` followed by its identifier tokens (for the keyword side of a search)."""
    tokens = identifier_tokens(text)
    return f"{text}\n{tokens}" if tokens else text
