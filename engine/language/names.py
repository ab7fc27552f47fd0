"""Names in text: codes, month names and capitalised names that a statement must find in its evidence."""

from __future__ import annotations

import re

from engine.language.citations import strip_citations
from engine.language.codes import CODE
from engine.language.en.lex_attrs import MONTHS as _MONTH_LIST
from engine.language.en.stop_words import STOP_WORDS
from engine.language.quantities import located_figures
from engine.language.tokens import words

MONTHS = frozenset(_MONTH_LIST)
MONTH_WORDS = MONTHS | frozenset(m[:3] for m in MONTHS) | {"sept"}
"""Month names and their short forms ("mar", "sept"), lower case."""
_CAPITALISED = re.compile(r"(?<![\w'’])[A-Z][a-z]+(?:[-'][A-Za-z]+)?\b")


def named_tokens(text: str, *, capitalised: bool = True) -> set[str]:
    """Tokens that must be backed by evidence: codes, month names and (optionally) capitalised names.

    A capitalised word that opens the text or a sentence is skipped, as are stop words.
    """
    clean = strip_citations(text)
    tokens = {m.group(0).lower() for m in CODE.finditer(clean)}
    tokens |= {w for w in words(clean) if w in MONTHS}
    if capitalised:
        for match in _CAPITALISED.finditer(clean):
            before = clean[: match.start()].rstrip()
            if not before or before[-1] in ".!?:;\"“(":
                continue
            word = match.group(0).lower()
            if word not in STOP_WORDS and word not in MONTHS:
                tokens.add(word)
    return tokens


_NAME_TOKEN = re.compile(r"[A-Z][\w'’]*(?:-[\w'’]+)*")


def name_spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, lower-case name) of the codes and capitalised names in ``text`` (citations stripped).

    Consecutive capitalised words make one name ("Roads Department", "Beth Okafor"); leading and
    trailing stop words ("The"), month names and one-word names that open a sentence are dropped,
    and so are units written after a number ("300 N.m", "50 MB").
    """
    clean = strip_citations(text)
    units = [(at, at + len(f.text)) for at, f in located_figures(clean)]
    found: list[tuple[int, int, str]] = []
    for match in CODE.finditer(clean):
        if not any(s <= match.start() < e for s, e in units):
            found.append((match.start(), match.end(), match.group(0).lower()))
    run: list[re.Match[str]] = []
    for match in [*_NAME_TOKEN.finditer(clean), None]:
        if match is not None and run and clean[run[-1].end(): match.start()] == " " and not _digit(match.group(0)):
            run.append(match)
            continue
        if run:
            found.extend(_name_run(clean, run, units))
        run = [match] if match is not None and not _digit(match.group(0)) else []
    return sorted(found)


def _digit(token: str) -> bool:
    return any(ch.isdigit() for ch in token)


def _name_run(clean: str, run: list[re.Match[str]], units: list[tuple[int, int]]) -> list[tuple[int, int, str]]:
    kept = [m for m in run if not any(s <= m.start() < e for s, e in units)]
    while kept and (kept[0].group(0).lower() in STOP_WORDS or kept[0].group(0).lower() in MONTHS):
        kept.pop(0)
    while kept and (kept[-1].group(0).lower() in STOP_WORDS or kept[-1].group(0).lower() in MONTHS):
        kept.pop()
    if not kept or (len(kept) == 1 and len(kept[0].group(0)) < 2):
        return []
    before = clean[: kept[0].start()].rstrip()
    if len(kept) == 1 and (not before or before[-1] in ".!?:;\"“("):
        return []  # one capitalised word opening a sentence: not evidently a name
    start, end = kept[0].start(), kept[-1].end()
    return [(start, end, " ".join(clean[start:end].lower().split()))]


