"""Evidence layout: text cut into quotable units: sentences, table rows and "key: value" records.

Documents arrive as prose, flattened tables (markdown rows on one line, PDF tables without
delimiters) and CSV exports ("key: value; key: value" records, several per chunk). Each unit
gets a kind so that the generator quotes only statements and records:

- ``prose``: a sentence; ``record``: one table row or CSV record ("Header: cell; Header: cell");
- ``heading``: a title or caption with no statement; ``table``: a run of table cells without
  structure; ``question``: a question (FAQ entries); ``fragment``: text cut off mid-sentence;
  ``long``: a prose sentence too long to quote (kept whole, so that it can still support a statement);
  ``code``: the content of a fenced code block ("pip install pdfplumber"), quoted as written.

Every unit but code ends with sentence punctuation, so a quoted unit reads the same as the text it came
from and its embedding is reused when the answer is reviewed.
"""

from __future__ import annotations

import re
from functools import lru_cache
from dataclasses import dataclass

from engine.language import lexicons
from engine.language.citations import strip_citations
from engine.language.en.lex_attrs import MONTHS
from engine.language.en.stop_words import STOP_WORDS
from engine.language.names import named_tokens
from engine.language.quantities import figures
from engine.language.sentences import split_sentences
from engine.language.tokens import content_words

UNIT_CHARS = 300
"""Longest prose unit; longer runs are cut at clause boundaries (records are trimmed when quoted)."""
QUOTABLE = frozenset({"prose", "record", "fragment", "code"})
_FENCE = re.compile(r"```[\w+.-]*[ \t]*\n?(.*?)```", re.DOTALL)
"""A fenced code block, also when the chunker has put it on one line ("```sh pip install x ```")."""
_FENCE_LANGUAGE = re.compile(r"^(?:sh|bash|shell|console|python|py|text|json|yaml|toml|ini|cmd|powershell)\s+")

_MARKUP = re.compile(r"^[\s#>*|•-]+|[\s|]+$")
_EMPHASIS = re.compile(r"\*\*|__|`")
_TABLE_RULE = re.compile(r"\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)+\|?")
_RULE_CELL = re.compile(r"^:?-{3,}:?$")
_KEY = r"[A-Za-z][\w ()/%.,'-]{0,48}?"
_RECORD_START = re.compile(rf"^({_KEY}):\s+\S")
_NEXT_KEY = re.compile(rf";\s+{_KEY}:\s")
_LABEL_START = re.compile(r"^[A-Z][A-Za-z ()/-]{0,30}:\s")
_TITLE_WORD = re.compile(r"^[A-Z][a-z]{2,}[:,]?$")
_END = re.compile(r"[.!?]$")
_STATUS = re.compile(r"^status\b|" + lexicons.pattern("status_words"), re.IGNORECASE)
_MONTHS = frozenset(month[:3] for month in MONTHS)
_CAPS_RUN = re.compile(r"(?:\b[A-Z][A-Z/&-]*[A-Z]\b[.,)]?\s+){3}")
_UNIT_SIGNS = frozenset({"%", "‰", "°", "°C", "°F"})
"""Signs that end a table cell ("-2.3 %") as a number does."""
_BANNER = re.compile(r"^(?:[A-Z0-9][A-Z0-9/&.,()-]*\s+){3}")


@dataclass(frozen=True)
class Unit:
    text: str
    kind: str


def evidence_units(text: str, limit: int = UNIT_CHARS) -> tuple[Unit, ...]:
    """``text`` as units (see the module docstring), in reading order. Remembered for the most recent texts: the
    same evidence is read by the answerability check, the generator and the reviewer, and again by later asks."""
    return _units(text or "", limit)


@lru_cache(maxsize=4096)
def _units(text: str, limit: int) -> tuple[Unit, ...]:
    units: list[Unit] = []
    at = 0
    for fence in _FENCE.finditer(text or ""):
        units.extend(_prose_units(text[at: fence.start()], limit))
        code = _FENCE_LANGUAGE.sub("", fence.group(1).strip()).strip()
        if code and len(code) <= limit:
            units.append(Unit(code, "code"))
        at = fence.end()
    units.extend(_prose_units((text or "")[at:], limit))
    return tuple(units)


READ_KINDS = ("long", "table", "heading")
"""Unit kinds read as sentences besides quotable ones: long sentences, flattened tables, headings
("## [0.11.0] - 2024-03-07")."""


def is_read(unit: Unit) -> bool:
    """Whether the answerability check reads ``unit`` as one of its evidence's sentences."""
    return unit.kind in QUOTABLE or unit.kind in READ_KINDS


def read_sentences(text: str) -> tuple[str, ...]:
    """The sentences of ``text`` that the answerability check reads (the whole text when it has none). The store
    embeds these at ingest, so an ask finds their vectors instead of computing them."""
    found = tuple(u.text for u in evidence_units(text) if is_read(u))
    stripped = (text or "").strip()
    return found or ((stripped,) if stripped else ())


def _prose_units(text: str, limit: int) -> list[Unit]:
    units: list[Unit] = []
    for sentence in split_sentences(text):
        heading_line = sentence.lstrip().startswith("#")
        body = _readable(sentence)
        if not body:
            continue
        for piece, kind in _split(body, limit):
            if heading_line and kind in ("prose", "fragment"):
                kind = "heading"
            piece = _finish(piece)
            if piece != ".":
                units.append(Unit(piece, kind))
    return units


def clean(sentence: str) -> str:
    """Evidence text made readable: no citations, markdown emphasis, table rules or leading list markers."""
    return _strip(_TABLE_RULE.sub(" ", _readable(sentence)))


def _readable(sentence: str) -> str:
    return _strip(_EMPHASIS.sub("", strip_citations(sentence)))


def _strip(text: str) -> str:
    return re.sub(r"\s+", " ", _MARKUP.sub("", text)).strip()


def _finish(piece: str) -> str:
    piece = piece.strip().rstrip(";,|-– ").strip()
    return piece if _END.search(piece) else f"{piece}."


def _split(body: str, limit: int) -> list[tuple[str, str]]:
    if body.count("|") >= 2:
        rows = _table_rows(body)
        if rows:
            return rows
    body = _strip(_TABLE_RULE.sub(" ", body))
    if not body:
        return []
    if _is_record_run(body):
        return [(r, "record") for r in _records(body)]
    pieces = _at_boundaries(body)
    caps = _CAPS_RUN.search(body) is not None
    glued = _glue(pieces)
    if len(glued) >= 2 and not _tabular(body) and _tabular(" ".join(glued[:-1])):
        # a flattened table run into the sentence under it: the cells are table, the sentence is read on its own
        return [(piece, "table") for piece, _ in _cap(" ".join(glued[:-1]), limit)] + _split(glued[-1], limit)
    if _tabular(body) or (len(body) > limit and (caps or len(pieces) >= 4)) or (caps and len(pieces) >= 3):
        return [piece for part in glued for piece in _cap(part, limit)]
    if len(body) > limit:
        return [(body, "long")]  # plain prose: kept whole for checking, too long to quote
    if _BANNER.match(body):  # a page banner run into the first sentence of the page
        pieces = _at_boundaries(body)
        if len(pieces) > 1:
            head, rest = pieces[0], " ".join(pieces[1:])
            return [(head, "heading"), (rest, kind_of(rest))]
    return [(body, kind_of(body))]


def kind_of(text: str, piece: bool = False) -> str:
    """The kind of a prose text: question, heading, table, fragment or prose (``piece``: cut from a longer run)."""
    body = text.strip()
    if "?" in body:
        return "question"
    if len(re.findall(r"[A-Za-z]", body)) < 3:
        return "heading"
    if _is_record_run(body) or _RECORD_START.match(body) and ";" in body:
        return "record"
    tokens = body.split()
    ended = bool(re.search(r"[.!?]\)?$", body))
    if _figures_row(tokens) and not _LABEL_START.match(body):
        return "table"  # whatever capitals it starts with
    if not ended and _headline(tokens) and not _measured(body):
        return "heading"
    if _tabular(body):
        return "table"
    if piece and not ended and body.count("(") != body.count(")"):
        return "table"  # a cell cut in half when a flattened table was split
    return "prose" if ended else "fragment"


def _figures_row(tokens: list[str]) -> bool:
    """A table row of figures ("Ohio 9,338 34,878 31,817 ..."): ten or more cells, most of them numbers."""
    return len(tokens) >= 10 and sum(1 for t in tokens if _has_digit(t)) / len(tokens) >= 0.6


def _measured(text: str) -> bool:
    """A value with a unit ("Repeat interval 6,000 FC"): a table row, not a heading."""

    return any(f.unit and f.unit[:3] not in _MONTHS for f in figures(text))


def _headline(tokens: list[str]) -> bool:
    """A short line, or one where most longer words are capitalised (titles, captions, banners)."""
    if len(tokens) <= 5:
        return True
    long_words = [t.strip("()[],:;-") for t in tokens if len(t.strip("()[],:;-")) > 3 and t[0].isalpha()]
    if not long_words:
        return True
    capital = sum(1 for w in long_words if w[0].isupper())
    return capital / len(long_words) >= 0.6


_FUNCTION_WORDS = frozenset(STOP_WORDS - {"us"})


def _has_digit(token: str) -> bool:
    return any(map(str.isdigit, token))


def _tabular(body: str, short: bool = False) -> bool:
    """Many cells, few function words: a table flattened into one line (``short``: a piece of one)."""
    tokens = body.split()
    if len(tokens) < (10 if short else 22):
        return False
    function = sum(1 for t in tokens if (t.islower() or short) and t.strip(".,;:()").lower() in _FUNCTION_WORDS)
    data = sum(1 for t in tokens if _has_digit(t) or (t.isupper() and len(t.strip("(),.;:")) > 1))
    if short:
        return function / len(tokens) < 0.08 and data / len(tokens) > 0.25
    return function / len(tokens) < 0.15 and data / len(tokens) > 0.25


def _table_rows(body: str) -> list[tuple[str, str]]:
    """Markdown table rows as "Header: cell; Header: cell" records (rows without a header row: table cells)."""
    rule = _TABLE_RULE.search(body)
    if rule is None:
        rows = [r for r in re.split(r"\|\s*\|", body) if r.strip(" |")]
        if len(rows) < 2:
            return []
        return [(" | ".join(c.strip() for c in r.split("|") if c.strip()), "table") for r in rows]
    columns = len(re.findall(r"-{3,}", rule.group(0)))
    header = [c.strip() for c in body[: rule.start()].split("|") if c.strip()]
    if len(header) < 2 or len(header) > columns:
        return []
    header = [""] * (columns - len(header)) + header  # a blank corner cell was stripped with the markup
    out: list[tuple[str, str]] = []
    row: list[str] = []
    for cell in (c.strip() for c in body[rule.end():].split("|")):
        if not cell and not row:
            continue  # the "| |" between two rows
        row.append(cell)
        if len(row) == len(header):
            out.append((_record(header, row), "record"))
            row = []
    if any(row):
        out.append((" ".join(c for c in row if c), "table"))
    return out


def _record(header: list[str], row: list[str]) -> str:
    fields = "; ".join(f"{h}: {v or '-'}" for h, v in zip(header, row) if h)
    return f"{row[0]} - {fields}" if not header[0] and row[0] else fields


def _is_record_run(body: str) -> bool:
    return bool(_RECORD_START.match(body)) and len(_NEXT_KEY.findall(body)) >= 1


def _records(body: str) -> list[str]:
    """A run of CSV-style records cut where the first key comes back ("Task: ...; Change: ... Task: ...")."""
    first = _RECORD_START.match(body).group(1)
    starts = [0] + [m.start() + 1 for m in re.finditer(rf"(?<!;)\s{re.escape(first)}:\s", body)]
    return [body[a:b].strip() for a, b in zip(starts, starts[1:] + [len(body)]) if body[a:b].strip()]


def _at_boundaries(body: str) -> list[str]:
    """Cut a flattened table or page before a capitalised word that follows a code, number or all-caps word."""
    tokens = body.split(" ")
    pieces: list[list[str]] = [[]]
    for i, token in enumerate(tokens):
        if pieces[-1] and i + 1 < len(tokens) and _TITLE_WORD.match(token) and _datum(tokens[i - 1]):
            pieces.append([])
        pieces[-1].append(token)
    return [" ".join(p) for p in pieces if p]


def _datum(token: str) -> bool:
    bare = token.strip("(),;:")
    return bool(bare) and (any(ch.isdigit() for ch in bare) or (bare.isupper() and len(bare) > 1)
                           or token.endswith(")") or bare in _UNIT_SIGNS)


def _glue(pieces: list[str]) -> list[str]:
    """A heading directly followed by "Label: text" stays with it ("Fault Code X - NAME Meaning: ...")."""
    out: list[str] = []
    for piece in pieces:
        if out and _LABEL_START.match(piece) and kind_of(out[-1]) == "heading" and len(out[-1]) <= 120:
            out[-1] = f"{out[-1]} {piece}"
        else:
            out.append(piece)
    return out


def _cap(text: str, limit: int) -> list[tuple[str, str]]:
    """``text`` as pieces of at most ``limit`` characters, cut at ';', ' - ', ', ' or a space."""
    if len(text) <= limit:
        return [(text, kind_of(text, piece=True))]
    for pattern in (r"(?<=;)\s+", r"\s+[-–]\s+(?=[A-Z(])", r"(?<=,)\s+"):
        parts = [p for p in _split_outside_brackets(text, pattern) if p.strip()]
        if len(parts) > 1:
            out: list[str] = []
            for part in parts:
                if out and len(out[-1]) + len(part) + 1 <= limit:
                    out[-1] = f"{out[-1]} {part}"
                else:
                    out.append(part)
            return [piece for part in out for piece in _cap(part, limit)]
    cut = text.rfind(" ", 0, limit)
    head, tail = (text[:cut], text[cut + 1:]) if cut > 0 else (text[:limit], text[limit:])
    return [(head, "table" if kind_of(head, piece=True) == "table" else "fragment")] + _cap(tail, limit)


def _split_outside_brackets(text: str, pattern: str) -> list[str]:
    """``re.split`` at the matches of ``pattern`` that stand outside brackets: "(wheel turning, dry threads)" is
    one table cell, and cutting it would give its value to the row before."""
    depth, read, at, out = 0, 0, 0, []
    for match in re.finditer(pattern, text):
        for ch in text[read: match.start()]:  # bracket depth at the match
            depth = depth + 1 if ch in "([" else max(depth - 1, 0) if ch in ")]" else depth
        read = match.start()
        if depth == 0:
            out.append(text[at: match.start()])
            at = match.end()
    return out + [text[at:]]


def trim_record(record: str, keep: set[str], limit: int = UNIT_CHARS) -> str:
    """A long record cut to its first field and the fields that share a word with ``keep`` (stems)."""

    record = record.rstrip(".")
    if len(record) <= limit:
        return _finish(record)
    fields = [f.strip() for f in record.split(";") if f.strip()]
    chosen = [fields[0]] + [f for f in fields[1:] if set(content_words(f)) & keep or _STATUS.search(f)]
    text = "; ".join(chosen)
    while len(text) > limit and len(chosen) > 2:
        drop = next((i for i in range(len(chosen) - 1, 0, -1) if not _STATUS.search(chosen[i])), len(chosen) - 1)
        chosen.pop(drop)
        text = "; ".join(chosen)
    return _finish(text if len(text) <= limit else text[: text.rfind(" ", 0, limit)])


_COLUMN = re.compile(r"^[A-Za-z][\w ()/%.,'-]{0,60}$")


def record_excerpt(record: str, value: str, asked: str = "") -> str:
    """The fields of a "key: value; ..." record that answer: the first field (it names the row) and the fields
    holding ``value`` or, without a value, the fields that share a word with the question ``asked``; read as a
    statement ("Item Brake housing bolts: torque nm is 95."). The whole row when no field qualifies; the text as
    written when it is not a plain record."""
    fields = record_fields(record)
    if fields is None:
        return record
    if value.strip():
        said = re.compile(rf"(?<![\w.,]){re.escape(value.strip())}(?![\w])")
        holding = [f for f in fields[1:] if said.search(f[1])]
    else:
        keep = set(content_words(asked))
        holding = [f for f in fields[1:] if set(content_words(f"{f[0]} {f[1]}")) & keep]
    return _said(fields[:1] + holding if holding else fields)


def readable_record(record: str) -> str:
    """A "key: value; key: value" record as a statement a person reads, not a column dump.

    "year: 2024; aircraft_type: A320neo; fuel_kg_per_block_hour: 2080" ->
    "Year 2024: aircraft type is A320neo; fuel kg per block hour is 2080." The first field names
    the row; the others are said of it.
    """
    fields = record_fields(record)
    return record if fields is None else _said(fields)


def record_fields(record: str) -> list[tuple[str, str]] | None:
    """(key, value) of each field of a plain record, None for any other text; a row's label written before its
    fields ("A320 family - 2023 kg/BH: 2,288") is the first field, with an empty value."""
    fields: list[tuple[str, str]] = []
    label, dash, rest = record.partition(" - ")
    if dash and ":" in rest and ":" not in label and ";" not in label and _COLUMN.match(label.strip()):
        fields.append((label.strip(), ""))  # "A320 family - 2023 kg/BH: 2,288": the row's label, then its fields
        record = rest
    for part in record.rstrip(".").split(";"):
        key, sep, value = part.partition(":")
        if sep and _COLUMN.match(key.strip()) and value.strip():
            fields.append((key.strip().replace("_", " "), value.strip()))
        elif fields and part.strip():  # "probable_cause: sensor defective; chafed harness": a list inside a value
            fields[-1] = (fields[-1][0], f"{fields[-1][1]}; {part.strip()}")
        else:
            return None  # not a plain record
    return fields if sum(1 for _, value in fields if value) >= 2 else None


def _said(fields: list[tuple[str, str]]) -> str:
    head = f"{fields[0][0]} {fields[0][1]}".strip()
    rest = "; ".join(f"{k} is {v}" for k, v in fields[1:])
    text = f"{head}: {rest}" if rest else head
    return _finish(text[0].upper() + text[1:])


def is_key_statement(sentence: str, min_content_words: int = 3) -> bool:
    """True for a sentence that states something (enough content words or any figure/code)."""
    body = strip_citations(sentence)
    return len(set(content_words(body))) >= min_content_words or bool(figures(body)) or bool(
        named_tokens(body, capitalised=False))
