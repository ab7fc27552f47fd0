"""Values that disagree: a superseded revision is not an answer, and when sources give different values for what
was asked, the one in force is preferred and the other is named, never silently dropped.

Ranked candidates come in best first. A candidate from an older revision of a document series whose newer revision
was retrieved is left out, unless the question asks for that revision ("in Rev 10", "in 2021"). Among the rest, a
close rival of the best one (same kind of value, another value, from another document or from another sentence of
the same document that says it of the asked thing) is a conflict: the newer source
of at least the same authority, or the more authoritative one of at least the same date, is preferred; sources of
equal standing are both named in the answer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from engine.language.names import MONTH_WORDS
from engine.language.quantities import canonical_unit, figures
from engine.language.tokens import holds_words
from engine.offline.reader import Candidate
from engine.results import Evidence, EvidenceMeta, Intent

VALUE_KINDS = frozenset({"quantity", "number", "money", "percent", "date", "code", "field"})
"""Candidate kinds whose values can disagree (a name and a figure never do)."""
RIVAL_SHARE = 0.5
"""A rival's ranker probability must be at least this share of the best one's to count as a conflicting answer: below
it the ranker itself already tells them apart. Set on sample_docs' superseded torque values; not tuned on held-out
data."""
SAID_OF_SUBJECT_SHARE = 0.15
"""The lower share for a rival whose sentence names every subject of the question and words of what is asked near
the value: another source stating another value for the same thing, however the ranker likes its phrasing."""
SAME_THING_OVERLAP = 0.5
"""For a question that names no subject ("What torque do the stem bolts take?"), two sentences holding at least half
of the question's words each are about the same thing. Set a priori (half), not tuned."""


@dataclass(frozen=True)
class Conflict:
    """Another value for what was asked, and why the chosen one stands ("newer", "more authoritative", "")."""

    rival: Candidate
    preferred_because: str


def current_only(ranked: Sequence[Candidate], evidence: Sequence[Evidence], question: str,
                 intent: Intent) -> list[Candidate]:
    """``ranked`` without candidates from an older revision of a retrieved series the question does not ask for."""
    from engine.offline.focus import asks_for
    from engine.validation.timeliness import newest_in_series

    out = []
    for c in ranked:
        item = evidence[c.sentence.evidence - 1]
        newer = newest_in_series(evidence, item)
        if newer is not None and not asks_for(question, item.metadata, intent, newer.metadata.update_date):
            continue
        out.append(c)
    return out


def resolve(ranked: list[Candidate], evidence: Sequence[Evidence], probability, *,
            named: bool = True) -> tuple[list[Candidate], list[Conflict]]:
    """``ranked`` with the value in force first, and the conflicts with it (``probability(candidate)`` in [0, 1]);
    ``named``: the question names a subject."""
    if not ranked or not _value_like(ranked[0]):
        return ranked, []
    top = ranked[0]
    best_p = probability(top)
    rivals = [c for c in ranked[1:20] if _same_class(c, top)
              and probability(c) >= best_p * (SAID_OF_SUBJECT_SHARE if _said_of_subject(c, top, named)
                                              else RIVAL_SHARE)
              and _apart(c, top, evidence, named) and not _one_value(c.text, top.text)]
    if not rivals:
        return ranked, []
    best = top
    for rival in rivals:
        if _beats(evidence[rival.sentence.evidence - 1].metadata, evidence[best.sentence.evidence - 1].metadata):
            best = rival
    if best is not top:
        ranked = [best] + [c for c in ranked if c is not best]
    conflicts = []
    mine = evidence[best.sentence.evidence - 1].metadata
    for rival in [top, *rivals]:
        # each other value once, measured against the value chosen (which may have replaced the first best)
        if (rival is best or _one_value(rival.text, best.text) or not _apart(rival, best, evidence, named)
                or any(_one_value(rival.text, c.rival.text) for c in conflicts)):
            continue
        conflicts.append(Conflict(rival, _why(mine, evidence[rival.sentence.evidence - 1].metadata)))
    return ranked, conflicts


def _one_value(a: str, b: str) -> bool:
    """``a`` and ``b`` say one value: one holds the other's words, numbers whole ("6.5 N.m" and "6.5 N.m, the maker's
    figure"), or they give the same figures in one unit ("1,250" and "1250"; "€46" and "EUR 46")."""
    if holds_words(a, b) or holds_words(b, a):
        return True
    fa, fb = figures(a), figures(b)
    return bool(fa) and [(f.value, canonical_unit(f.unit)) for f in fa] == [(f.value, canonical_unit(f.unit)) for f in fb]


def _apart(c: Candidate, top: Candidate, evidence: Sequence[Evidence], named: bool) -> bool:
    """``c`` can disagree with ``top``: it comes from another document, or from another sentence of the same document
    that says its value of the asked thing as ``top``'s sentence says its own (a record that restates the figure, an
    exception, a later revision written into the text): one document giving two values for what was asked."""
    if evidence[c.sentence.evidence - 1].doc_id != evidence[top.sentence.evidence - 1].doc_id:
        return True
    return c.sentence.text != top.sentence.text and _said_of_subject(c, top, named)


def _said_of_subject(c: Candidate, top: Candidate, named: bool = True) -> bool:
    """``c`` and ``top`` both stand in sentences naming every subject of the question (or, when it names none,
    holding half of its words), ``c`` with asked words near it, and ``c``'s sentence does not also state ``top``'s
    value (a "changed from A to B" sentence is no rival source): two sources saying two values of the same thing."""
    f, g = c.features, top.features
    if not named:  # nothing named: both sentences must hold half of the question's words
        same = min(f.get("sent_overlap", 0.0), g.get("sent_overlap", 0.0)) >= SAME_THING_OVERLAP
    else:
        same = f.get("sent_subject", 0.0) >= 1.0 and g.get("sent_subject", 0.0) >= 1.0
    return same and f.get("near", 0.0) > 0 and not holds_words(c.sentence.text, top.text)


def _value_like(c: Candidate) -> bool:
    return c.kind in VALUE_KINDS or any(ch.isdigit() for ch in c.text)


def _same_class(a: Candidate, b: Candidate) -> bool:
    """Two candidates that can disagree: figures in one unit (the entity recogniser may call the same kind of figure
    a quantity in one sentence and money or a name in another; 325 N.m and 240 lbf.ft are one value said twice), or
    two non-figures of one kind."""
    if a.kind == b.kind == "date":
        return True
    fa, fb = figures(a.text), figures(b.text)
    if fa and fb:
        if fa[0].unit or fb[0].unit:
            return canonical_unit(fa[0].unit) == canonical_unit(fb[0].unit)
        return _labels(a.text) == _labels(b.text)  # "P/N 201-587-3" and "ATA 32-41" name different things
    return not fa and not fb and a.kind == b.kind


def _labels(text: str) -> frozenset[str]:
    """The words that say what a unitless figure is ("rev", "p", "n", "ata"), months left out (two dates are rivals
    whatever their months)."""
    return frozenset(w for w in re.findall(r"[a-z]+", text.lower()) if w not in MONTH_WORDS)


def _beats(a: EvidenceMeta, b: EvidenceMeta) -> bool:
    """``a`` stands above ``b``: ahead on date or authority and behind on neither (an unknown date is behind)."""
    newer = a.update_date is not None and (b.update_date is None or a.update_date > b.update_date)
    same_date = a.update_date == b.update_date
    return (newer and a.authority >= b.authority) or (a.authority > b.authority and (newer or same_date))


def _why(mine: EvidenceMeta, theirs: EvidenceMeta) -> str:
    newer = mine.update_date and (theirs.update_date is None or mine.update_date > theirs.update_date)
    higher = mine.authority > theirs.authority
    if newer and mine.authority >= theirs.authority:
        return "newer"
    if higher and not (theirs.update_date and mine.update_date and theirs.update_date > mine.update_date):
        return "more authoritative"
    return ""
