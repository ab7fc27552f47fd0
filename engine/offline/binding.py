"""Which subject each figure of a sentence is said of: "The B737 limit is 300 N.m, the A320 limit is 270 N.m"
binds 300 N.m to the B737 and 270 N.m to the A320.

A sentence is cut into segments at ";", "," and dashes; a segment without a figure joins the next
one ("For the A320, the limit is 300 N.m"). The only figure of a segment is said of every name
(codes and capitalised names, see ``text.name_spans``) in it. Where a segment holds several, a
figure is said of the names between it and the figure before it, and of a name introduced right
after it by a preposition ("300 N.m for the B737 and 270 N.m for the A320"). A figure with no
name in its segment takes the nearest name in the sentence; one in a sentence without names is
bound to nothing, and then any subject may hold it; so is a figure said of an unnamed thing the sentence
describes ("designed by a woman born in 1931").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.language.codes import code_kind, names
from engine.language.layout import record_fields
from engine.language.citations import strip_citations
from engine.language.names import name_spans
from engine.language.tokens import STOP_WORDS
from engine.language.quantities import Figure, located_figures

_CUT = re.compile(r";\s*|,\s+|\s+[-–—]\s+")
_DESCRIBED = re.compile(r"\b(?:a|an)\s+(?:[a-z][\w-]*\s+){0,3}?[a-z][\w-]*\s+(?:who|whose|that|which|born|[a-z]+ed)\b"
                        r"[^;]*$")
"""An unnamed thing described right before a figure ("designed by a woman born in 1931"): the figure is said of that
thing, not of the name before it."""
_ATTACHED = re.compile(r"\s*(?:for|of|on|in|at|by|from|with|per)\s+(?:the\s+|a\s+|an\s+)?")


@dataclass(frozen=True)
class Bound:
    """A figure, where it starts in the sentence, and the names it is said of (lower case)."""

    figure: Figure
    start: int
    subjects: frozenset[str]


def bind(sentence: str) -> list[Bound]:
    """Each figure of ``sentence`` with the subjects it is said of."""
    clean = strip_citations(sentence)
    figures = located_figures(clean)
    if not figures:
        return []
    spans = name_spans(clean)
    if record_fields(clean) is not None:
        return _bind_record(clean, figures, spans)
    out: list[Bound] = []
    for start, end in _segments(clean, [at for at, _ in figures]):
        inside = [(at, f) for at, f in figures if start <= at < end]
        local = [n for n in spans if start <= n[0] and n[1] <= end]
        boundary = start
        for position, (at, figure) in enumerate(inside):
            stop = at + len(figure.text)
            following = inside[position + 1][0] if position + 1 < len(inside) else end
            if len(inside) == 1:  # the only figure of its segment: said of every name there
                chosen = {n[2] for n in local}
            else:
                chosen = {n[2] for n in local if boundary <= n[0] and n[1] <= at}
            attached = _ATTACHED.match(clean, stop)
            claimed = stop
            if attached is not None:
                after = next((n for n in local if n[0] == attached.end()), None)
                if after is not None:
                    chosen.add(after[2])
                    claimed = after[1]
            if not chosen:
                chosen = {n[2] for n in local if stop <= n[0] and n[1] <= following}
            if not chosen and spans:
                chosen = {min(spans, key=lambda n: min(abs(n[0] - stop), abs(at - n[1])))[2]}
            if _DESCRIBED.search(clean[max([n[1] for n in spans if n[1] <= at] + [0]): at]):
                chosen = set()  # "... was designed by a woman born in 1931": not said of the bridge
            out.append(Bound(figure, at, frozenset(chosen)))
            boundary = claimed
    return out


def _bind_record(record: str, figures: list[tuple[int, Figure]], spans: list[tuple[int, int, str]]) -> list[Bound]:
    """A "key: value; key: value" record (a table row, a CSV row): each figure is said of the row and of the names in
    its own field's key, not of a name in a neighbouring field ("Depot: Leeds; Return to Stores - North Bay: 35;
    Totals: 1,235": 1,235 is the Leeds depot's total). The row is named by its label (the names in its first field's
    value, or in the label written before its fields; the label as written when the name reader finds none in it but
    it is written as a proper name, as a lone word after a colon is) and by the names in the values of its fields
    without figures ("aircraft: A320neo")."""
    cuts = [0] + [m.end() for m in re.finditer(r";\s*", record)] + [len(record) + 1]
    fields = list(zip(cuts, cuts[1:]))
    first_start, first_end = fields[0]
    label, dash, _ = record[first_start:first_end].partition(" - ")
    colon = record.find(":", first_start, first_end)
    label_span = (first_start, first_start + len(label)) if dash and ":" not in label else (colon + 1, first_end)

    def names_in(start: int, end: int) -> set[str]:
        return {n[2] for n in spans if start <= n[0] and n[1] <= end}

    written = record[label_span[0]:label_span[1]].strip(" ;")
    row = names_in(*label_span) or ({" ".join(written.split()).lower()} if _proper(written) else set())
    for start, end in fields[1:]:  # a field without figures describes the row too ("aircraft: A320neo")
        colon = record.find(":", start, end)
        if colon > 0 and not any(start <= at < end for at, _ in figures):
            row |= names_in(colon + 1, end)
    out = []
    for at, figure in figures:
        start, end = next(((a, b) for a, b in fields if a <= at < b), fields[-1])
        key_end = record.find(":", start, end)
        own = names_in(start, key_end) if key_end > start and key_end < at else set()
        out.append(Bound(figure, at, frozenset(row | own)))
    return out


def _proper(label: str) -> bool:
    """A row's label written as a proper name: each of its words but the small ones capitalised ("Leeds", "Isle of
    Man"), not a description ("Hydraulic reservoir usable volume")."""
    return bool(label) and all(w[0].isupper() or w.lower() in STOP_WORDS for w in label.split()) and \
        label.split()[0][0].isupper()


def _segments(text: str, figure_starts: list[int]) -> list[tuple[int, int]]:
    """Segment bounds; a segment holding no figure is merged into the next (or, last, the previous)."""
    cuts = [0] + [m.end() for m in _CUT.finditer(text)] + [len(text)]
    pieces = [(a, b) for a, b in zip(cuts, cuts[1:]) if b > a]
    merged: list[tuple[int, int]] = []
    pending: int | None = None
    for a, b in pieces:
        a = pending if pending is not None else a
        if any(a <= at < b for at in figure_starts):
            merged.append((a, b))
            pending = None
        else:
            pending = a
    if pending is not None:
        if merged:
            merged[-1] = (merged[-1][0], len(text))
        else:
            merged.append((pending, len(text)))
    return merged


def subjects_agree(mine: frozenset[str] | set[str], theirs: frozenset[str] | set[str]) -> bool:
    """True unless, for a kind of subject both sides name, none of one side is one of the other.

    Kinds: capitalised names, and codes by their shape (``focus.code_kind``: "A320" and "B737" are
    one kind, a part number "3-1612-7" another). A name that contains, is contained in or is a
    variant of the other matches ("Okafor" / "Beth Okafor", "A320" / "A320neo"). An aircraft
    type on one side and only a part number on the other say nothing against each other.
    """
    if not mine or not theirs:
        return True
    ours, others = _by_kind(mine), _by_kind(theirs)
    return all(any(_same(a, b) for a in ours[kind] for b in others[kind]) for kind in ours.keys() & others.keys())


def _by_kind(subjects: frozenset[str] | set[str]) -> dict[str, list[str]]:
    kinds: dict[str, list[str]] = {}
    for subject in subjects:
        kind = code_kind(subject) if any(ch.isdigit() for ch in subject) else "name"
        kinds.setdefault(kind, []).append(subject)
    return kinds


def _same(a: str, b: str) -> bool:
    if a == b:
        return True
    wa, wb = set(a.split()), set(b.split())
    return wa <= wb or wb <= wa or names(a, b) or names(b, a)
