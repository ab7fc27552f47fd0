"""What a question is specifically about: its codes, identifiers and numbers, and the revisions it asks for.

A question about "fault code E4027" is answered by text that names E4027, not by text about
E4031 or F2214 that merely sounds similar. The focus of a question is:

- ``codes``: tokens such as "E4027", "A320", "CFM56-7B", "201-587-3" (see ``text.named_tokens``);
- ``phrases``: Intent entity texts that contain a digit ("AD 2022-0193", "B737 MAX 8");
- ``numbers``: other numbers in the question ("250 N.m", "2019").

Two codes are of the same kind when they have the same shape (letters / digits / separators):
E4027 and F2214 are, as are A320 and B737, or two part numbers 201-587-3 and 201-587-5.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date

from engine.language.codes import code_kind, codes_in, identifier as _identifier, names
from engine.language.names import MONTHS, named_tokens
from engine.language.quantities import numbers
from engine.language.tokens import mentions, normalise_phrase
from engine.results import EvidenceMeta, Intent


@dataclass(frozen=True)
class Focus:
    codes: tuple[str, ...] = ()
    phrases: tuple[str, ...] = ()
    numbers: frozenset[float] = field(default_factory=frozenset)

    def __bool__(self) -> bool:
        return bool(self.codes or self.phrases)

    @property
    def kinds(self) -> frozenset[str]:
        return frozenset(code_kind(c) for c in self.codes)


def question_focus(question: str, intent: Intent | None = None) -> Focus:
    """The codes, identifier phrases and numbers of ``question`` (and of its Intent's entities)."""
    lowered = question.lower()
    found = sorted((t for t in named_tokens(question, capitalised=False) if t not in MONTHS and _identifier(t)),
                   key=lambda t: (lowered.find(t), t))  # in the order the question names them
    phrases: list[str] = []
    for entity in (intent.entities if intent is not None else ()):
        text = entity.text.strip()
        if not any(ch.isdigit() for ch in text):
            continue
        tokens = [t for t in named_tokens(text, capitalised=False) if _identifier(t)]
        if len(tokens) == 1 and normalise_phrase(tokens[0]) == normalise_phrase(text):
            found.append(tokens[0])
        else:
            phrases.append(text)
    codes = tuple(dict.fromkeys(c.lower() for c in found))
    in_codes = {float(n) for c in codes for n in re.findall(r"\d+", c)} | {n for p in phrases for n in numbers(p)}
    return Focus(codes, tuple(dict.fromkeys(phrases)), frozenset(numbers(question) - in_codes))


@dataclass(frozen=True)
class Match:
    """How a piece of text relates to a focus: the share of codes it names, and whether it names others instead."""

    share: float
    off_topic: bool
    missing: tuple[str, ...]


def match(focus: Focus, text: str, title: str = "") -> Match:
    """``text`` (or, for kinds of code it does not name, its document ``title``) against ``focus``."""
    wanted = list(focus.codes) + list(focus.phrases)
    if not wanted:
        return Match(1.0, False, ())
    own = codes_in(text)
    titled = codes_in(title)
    missing: list[str] = []
    off = False
    for kind in dict.fromkeys(code_kind(c) for c in focus.codes):
        asked = [c for c in focus.codes if code_kind(c) == kind]
        named = {c for c in own if code_kind(c) == kind}
        basis, pool = (text, named) if named else (title, {c for c in titled if code_kind(c) == kind})
        hits = [c for c in asked if names(basis, c)]
        missing.extend(c for c in asked if c not in hits)
        others = {c for c in pool if not any(names(c, a) for a in asked)}
        if not hits and others:
            off = True
    for phrase in focus.phrases:
        if not (mentions(text, phrase) or mentions(title, phrase)):
            missing.append(phrase)
    share = 1 - len(missing) / len(wanted)
    return Match(share, off, tuple(missing))


def missing_from(focus: Focus, answer: str, titles: Iterable[str] = ()) -> list[str]:
    """The focus codes and phrases that neither ``answer`` nor any of ``titles`` names."""
    titles = list(titles)
    out = []
    for code in focus.codes:
        if not names(answer, code) and not any(names(t, code) for t in titles):
            out.append(code)
    for phrase in focus.phrases:
        if not mentions(answer, phrase) and not any(mentions(t, phrase) for t in titles):
            out.append(phrase)
    return out


def as_written(token: str, text: str) -> str:
    """``token`` as the question spells it ("e4027" -> "E4027")."""
    found = re.search(re.escape(token), text, re.IGNORECASE)
    return found.group(0) if found else token


def asks_for(question: str, meta: EvidenceMeta, intent: Intent | None = None, newer: date | None = None) -> bool:
    """True when the question explicitly asks about this (older) revision: its label, its year, or a time window.

    "in Rev 10", "the 2022 AMM revision" (the revision's date or title year), or an Intent time
    window that covers the revision's date but not ``newer`` (the date of the newest revision).
    """
    label = _revision_label(meta.revision)
    if label and re.search(rf"\b(?:rev(?:ision)?\.?\s*){re.escape(label)}\b", question, re.IGNORECASE):
        return True
    years = {int(n) for n in numbers(question) if 1900 <= n <= 2100 and float(n).is_integer()}
    if years and meta.update_date is not None and meta.update_date.year in years:
        return True
    if years & {int(n) for n in numbers(meta.title) if 1900 <= n <= 2100 and float(n).is_integer()}:
        return True
    window = intent.constraints.time if intent is not None else None
    if window is not None and meta.update_date is not None:
        inside = (window.start is None or window.start <= meta.update_date) and (
            window.end is None or meta.update_date <= window.end)
        newer_inside = newer is not None and (window.start is None or window.start <= newer) and (
            window.end is None or newer <= window.end)
        return inside and not newer_inside
    return False


def _revision_label(revision: str | None) -> str:
    """"Rev 10" -> "10", "Revision 3A" -> "3A"; "" when the label is not a revision number."""
    if not revision:
        return ""
    found = re.match(r"^\s*(?:rev(?:ision)?\.?)\s*([0-9]+[A-Za-z]?)\s*$", revision, re.IGNORECASE)
    return found.group(1) if found else ""
