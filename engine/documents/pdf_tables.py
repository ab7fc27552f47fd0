"""Tables of figures in PDF pages, read as one record per row with each figure named by its column's headers.

A PDF has no tables, only words at positions. Its plain text (pypdf's, engine/documents/parsers.py) flattens a
table row into a run of figures that no reader can tell apart: "Leeds 1,200 35 980 41 ...". A page whose
text looks like that (``looks_tabular``) is read again from its words and their positions (pdfplumber):

- lines are words that share a baseline; a **row** is a line of at least ``MIN_FIGURES`` figures, and a **table** a
  run of at least ``MIN_ROWS`` rows one after the other;
- **columns** are the figures' right edges (figures are set flush right), grouped where they line up;
- the line just above the first row holds the **column headers**: each phrase (words set close together) names the
  column under it, the nearest one when several phrases stand over one column; a line just above that one holds
  **group headers** ("North" over "Parts", "Hours"), each naming the headers nearest to it;
- each row becomes a record like a CSV row's ("Site: Leeds; North Parts: 1,200; North Hours: 35"), the row's
  words before its first figure as its label, blank cells left out.

The rest of the page keeps its plain text (``read_page``). A page where the words do not line up into such a table
keeps all of it: nothing is guessed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from statistics import median

FIGURE = re.compile(r"^[(\-+$€£*]?\d[\d,.]*%?\)?$")
"""A word that is a figure: digits with separators, an optional sign, currency or percent."""
MIN_FIGURES = 3
"""Figures a line needs to be a table row."""
MIN_ROWS = 3
"""Rows one after the other that make a table."""
FIGURE_SHARE = 0.6
"""Share of a table's cell words (right of the rows' labels) that must be figures: a table of text, whose cells
hold ranges and units ("5 to 60 min"), is not cut into columns of figures."""
LINE_TOLERANCE = 3.0
"""Points by which words of one line may differ in height on the page."""
COLUMN_TOLERANCE = 4.0
"""Points by which the right edges of one column's figures may differ."""
PAGE_SHARE = 0.6
"""Share of a page's words its tables must hold for the page to be rebuilt from its lines when the plain text does
not hold the tables' lines as they stand (it ran their figures together)."""
FOOTNOTE_MARKS = "*†‡§¹²³"
"""Marks a header carries to point to a footnote; they are not part of the column's name."""
HEADER_GAP = 15.0
"""Most points between a header line and the line below it."""


@dataclass(frozen=True)
class Word:
    text: str
    x0: float
    x1: float
    top: float
    bottom: float

    @property
    def centre(self) -> float:
        return (self.x0 + self.x1) / 2

    @property
    def figure(self) -> bool:
        return bool(FIGURE.match(self.text))


def looks_tabular(text: str) -> bool:
    """Whether a page's plain text holds ``MIN_ROWS`` lines of ``MIN_FIGURES`` or more figures each, figures being
    at least half of each line's words, as a flattened table has (then the page is read again from its words'
    positions; a line of prose with a date and a reference has figures too, but fewer than words)."""
    rows = 0
    for line in text.splitlines():
        words = line.split()
        figures = sum(bool(FIGURE.match(w)) for w in words)
        rows += figures >= MIN_FIGURES and figures * 2 >= len(words)
        if rows >= MIN_ROWS:
            return True
    return False


@dataclass(frozen=True)
class Table:
    """A table found on a page: the page lines it takes (its header lines first) and a record per row."""

    first: int
    last: int
    lines: tuple[str, ...]
    records: tuple[str, ...]
    words: int


def read_page(text: str, words: Sequence[Word]) -> str | None:
    """The page's plain ``text`` with the lines of each table of figures replaced by its records, or None when the
    page holds no such table.

    The plain text keeps the page's reading order (columns of prose, cells that wrap), so only a table's own lines
    are replaced, where they are found in it as they stand on the page. Where they are not (the plain text ran the
    figures together), the page is rebuilt from its lines only when its tables hold most of its words (a page that
    is one table); otherwise the plain text is kept."""
    lines = _lines(words)
    tables = _tables(lines)
    if not tables:
        return None
    plain = text.splitlines()
    places = _places(tables, plain)
    if places is not None:
        out: list[str | None] = list(plain)
        for table, where in zip(tables, places):
            for at in where:
                out[at] = None
            out[where[-1]] = _records(table)
        return "\n".join(line for line in out if line is not None)
    if sum(t.words for t in tables) < PAGE_SHARE * len(words):
        return None
    rebuilt: list[str] = []
    at = 0
    for table in tables:
        rebuilt.extend(_line_text(line) for line in lines[at:table.first])
        rebuilt.append(_records(table))
        at = table.last + 1
    rebuilt.extend(_line_text(line) for line in lines[at:])
    return "\n".join(rebuilt)


def _places(tables: Sequence[Table], plain: Sequence[str]) -> list[list[int]] | None:
    """For each table, the plain text's line numbers of its lines; None when any of them is not found as it
    stands on the page."""
    flat = [" ".join(line.split()) for line in plain]
    used: set[int] = set()
    places = []
    for table in tables:
        where = []
        for line in table.lines:
            at = next((i for i, f in enumerate(flat) if f == line and i not in used), None)
            if at is None:
                return None
            used.add(at)
            where.append(at)
        places.append(where)
    return places


def _records(table: Table) -> str:
    """A table's records as paragraphs of their own, as a CSV file's are."""
    return "\n" + "\n\n".join(table.records) + "\n"


def _lines(words: Sequence[Word]) -> list[list[Word]]:
    lines: list[list[Word]] = []
    for word in sorted(words, key=lambda w: (w.top, w.x0)):
        if lines and abs(word.top - lines[-1][0].top) <= LINE_TOLERANCE:
            lines[-1].append(word)
        else:
            lines.append([word])
    return [sorted(line, key=lambda w: w.x0) for line in lines]


def _line_text(line: Sequence[Word]) -> str:
    return " ".join(w.text for w in line)


def _is_row(line: Sequence[Word]) -> bool:
    return sum(w.figure for w in line) >= MIN_FIGURES


def _tables(lines: list[list[Word]]) -> list[Table]:
    """Each table of the page, in page order."""
    found = []
    index = 0
    while index < len(lines):
        if not _is_row(lines[index]):
            index += 1
            continue
        end = index
        while end + 1 < len(lines) and _is_row(lines[end + 1]):
            end += 1
        if end - index + 1 >= MIN_ROWS:
            table = _read_table(lines, index, end)
            if table is not None:
                found.append(table)
        index = end + 1
    return found


def _columns(rows: Sequence[Sequence[Word]]) -> list[tuple[float, float]] | None:
    """Each column of figures as (left, right): the leftmost start and the usual right edge of its figures, left to
    right; None unless most figures line up in columns that most rows fill (not so for figures set flush left, or
    lines of prose that happen to hold figures)."""
    figures = sorted(((w.x1, w.x0, n) for n, row in enumerate(rows) for w in row if w.figure))
    groups: list[list[tuple[float, float, int]]] = []
    for figure in figures:
        if groups and figure[0] - groups[-1][-1][0] <= COLUMN_TOLERANCE:
            groups[-1].append(figure)
        else:
            groups.append([figure])
    filled = [g for g in groups if len({n for _, _, n in g}) * 2 >= len(rows)]
    sparse = len(figures) - sum(len(g) for g in filled)  # a column most rows leave blank (a total's own figures)
    if len(filled) < MIN_FIGURES or sparse * 5 > len(figures):
        return None
    start = groups.index(filled[0])  # a figure left of every filled column is part of a row's label ("MAX 8")
    return [(min(x0 for _, x0, _ in g), median(x1 for x1, _, _ in g)) for g in groups[start:]]


def _phrases(line: Sequence[Word]) -> list[Word]:
    """Words set close together (less than about half a letter's height apart) joined into phrases, without the
    marks that point to a footnote ("*Spares", "**Mixed", "Total†")."""
    phrases: list[Word] = []
    for word in line:
        last = phrases[-1] if phrases else None
        if last is not None and word.x0 - last.x1 <= max(3.0, 0.45 * (word.bottom - word.top)):
            phrases[-1] = Word(f"{last.text} {word.text}", last.x0, word.x1, last.top, max(last.bottom, word.bottom))
        else:
            phrases.append(word)
    return [replace(p, text=p.text.strip(FOOTNOTE_MARKS + " ")) for p in phrases
            if p.text.strip(FOOTNOTE_MARKS + " ")]


def _read_table(lines: list[list[Word]], first: int, last: int) -> Table | None:
    rows = lines[first:last + 1]
    columns = _columns(rows)
    if columns is None:
        return None
    edges = [right for _, right in columns]
    spacing = median([b - a for a, b in zip(edges, edges[1:])])
    label_end = min(columns[0][0], edges[0] - spacing / 2)  # a row's words left of this are its label
    cells = [w for row in rows for w in row if w.x1 >= label_end]
    if sum(w.figure for w in cells) < FIGURE_SHARE * len(cells):  # a table of text with some figures in it
        return None
    header_from = first
    leaves: list[Word] = []
    groups: list[Word] = []
    if first > 0 and rows[0][0].top - lines[first - 1][0].bottom <= HEADER_GAP:
        header_from = first - 1
        leaves = _phrases(lines[first - 1])
        if first > 1 and lines[first - 1][0].top - lines[first - 2][0].bottom <= HEADER_GAP:
            groups = _phrases(lines[first - 2])
            if len(groups) >= 2:
                header_from = first - 2
            else:
                groups = []
    labelled = any(w.x1 < label_end for row in rows for w in row)
    label_name = " ".join(leaf.text for leaf in leaves if labelled and leaf.x1 < label_end)
    names = _column_names(columns, spacing, [leaf for leaf in leaves if leaf.x1 >= label_end], groups)
    if names is None:
        return None
    records = []
    for row in rows:
        label = " ".join(w.text for w in row if w.x1 < label_end)
        cells_of: dict[int, list[str]] = {}
        for word in (w for w in row if w.x1 >= label_end):
            column = min(range(len(edges)), key=lambda i: abs(edges[i] - word.x1))
            while names[column] is None and column > 0:  # a header over two columns ("14.5 bar (210 psi)")
                column -= 1
            cells_of.setdefault(column, []).append(word.text)
        fields = "; ".join(f"{names[i] or f'column {i + 1}'}: {' '.join(cells_of[i])}" for i in sorted(cells_of))
        if not label:
            records.append(fields)
        elif label_name:
            records.append(f"{label_name}: {label}; {fields}")
        else:
            records.append(f"{label} - {fields}")
    taken = lines[header_from:last + 1]
    return Table(header_from, last, tuple(_line_text(line) for line in taken), tuple(records),
                 sum(len(line) for line in taken))


def _column_names(columns: Sequence[tuple[float, float]], spacing: float, leaves: Sequence[Word],
                  groups: Sequence[Word]) -> list[str | None] | None:
    """Each figure column's name ("group header" + " " + "column header"; None for a column without a header, whose
    figures belong to the column before), or None when fewer than half the columns have a header above them. A
    header names the column its span overlaps most, or the nearest one within half the columns' spacing; of two
    headers over one column the nearer names it."""
    best: dict[int, tuple[float, Word]] = {}
    for leaf in leaves:
        def gap(i: int) -> float:  # negative: the overlap
            left, right = columns[i]
            return max(left, leaf.x0) - min(right, leaf.x1)

        column = min(range(len(columns)), key=gap)
        if gap(column) > spacing / 2:
            continue
        if column not in best or gap(column) < best[column][0]:
            best[column] = (gap(column), leaf)
    if len(best) * 2 < len(columns):
        return None
    group_of = _groups(leaves, groups)
    names: list[str | None] = []
    for i in range(len(columns)):
        leaf = best[i][1] if i in best else None
        group = group_of.get(id(leaf)) if leaf is not None else None
        names.append(None if leaf is None else f"{group} {leaf.text}" if group else leaf.text)
    return names


def _groups(leaves: Sequence[Word], groups: Sequence[Word]) -> dict[int, str]:
    """Each column header's group header: the nearest group, when it is nearer than half the usual distance
    between groups (a header under no group, such as a first column or a total, stays alone)."""
    if len(groups) < 2:
        return {}
    centres = [g.centre for g in groups]
    reach = median([b - a for a, b in zip(centres, centres[1:])]) / 2
    found = {}
    for leaf in leaves:
        nearest = min(groups, key=lambda g: abs(g.centre - leaf.centre))
        if abs(nearest.centre - leaf.centre) <= reach:
            found[id(leaf)] = nearest.text
    return found
