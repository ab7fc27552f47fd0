"""Timeliness: an answer must not rest on superseded or out-of-window evidence when better was retrieved.

A sentence fails when it cites, without also citing the current source,
1. an older revision of a document series whose newer revision was retrieved, or another document that gives
   such an older revision as current ("the current revision is Rev 11");
2. evidence that marks itself superseded or cancelled, while another retrieved document, dated inside
   the question's window (or, without a window, later), covers the same subject;
3. only evidence from outside the question's window while evidence inside it was retrieved
   (with nothing inside the window retrieved, evidence dated before the window still fails);
4. for a question about what is in force ("current", "latest"): a figure that a newer or more authoritative
   retrieved document gives otherwise, for the same thing (a sentence sharing most of its words, the same unit).
What period a chunk is from follows ``engine.periods.about``; unknown dates never count as outside.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from engine.language import lexicons
from engine.language.citations import citations, strip_citations
from engine.language.quantities import canonical_unit, figures
from engine.language.sentences import split_sentences
from engine.language.tokens import content_words, coverage, mentions, normalise_phrase
from engine.periods import Period, about, asked_period, in_force
from engine.results import Evidence, EvidenceMeta, Intent, ValidationIssue

SAME_SUBJECT_SHARE = 0.6
"""Share of a document title's content words that the superseded statement (with its chunk's title and best
supporting line) must contain for that document to cover the same subject. Measured on sample_docs against the
status-table row of the superseded flap-track AD: successor AD 1.0, flap-track AMM 0.58, unrelated axle-nut AD 0.42,
unrelated regulation 0.0; on the test user guides: successor 0.8, billing FAQ 0.25."""

_STATUS_WORDS = lexicons.pattern("status_words")  # "superseded", "withdrawn", "no longer in force"...
_SELF_STATUS = re.compile(
    rf"\bstatus\s*[:=]\s*{_STATUS_WORDS}"  # "STATUS: SUPERSEDED BY AD 2024-11-02", "status: superseded"
    # "This note is superseded"
    rf"|\bthis\s+(?:[\w-]+\s+){{0,3}}(?:is|has\s+been|was)\s+(?:now\s+)?{_STATUS_WORDS}",
    re.IGNORECASE)
_PAST = re.compile(lexicons.pattern("past_words"), re.IGNORECASE)  # "was", "previously", "used to"...
MIN_LABEL_CHARS = 3  # a revision label shorter than "1.0" ("1", "A") would match unrelated numbers and letters
_ANY_STATUS = re.compile(r"\bstatus\s*[:=]\s*(\w+)", re.IGNORECASE)
_TITLE_STATUS = re.compile(_STATUS_WORDS, re.IGNORECASE)


def _quote(sentence: str, width: int = 80) -> str:
    body = strip_citations(sentence)
    return f'"{body if len(body) <= width else body[: width - 3] + "..."}"'


def revision_label(item: Evidence) -> str:
    """"(title, Rev 11)": the document and which revision or date of it."""
    meta = item.metadata
    label = meta.revision or (meta.update_date.isoformat() if meta.update_date else "")
    return f"({meta.title}, {label})" if label else f"({meta.title})"


def newest_in_series(evidence: Sequence[Evidence], item: Evidence) -> Evidence | None:
    """A retrieved chunk of the same document series with a later update date, newest first."""
    meta = item.metadata
    if not meta.series or not meta.update_date:
        return None
    later = [e for e in evidence if e.metadata.series == meta.series and e.metadata.update_date
             and e.metadata.update_date > meta.update_date]
    return max(later, key=lambda e: e.metadata.update_date) if later else None


def supporting_line(item: Evidence, statement: str) -> str:
    """The sentence or line of ``item`` that best supports ``statement`` (its first one when none does)."""
    lines = split_sentences(item.text) or [""]
    return max(lines, key=lambda line: coverage(statement, line)) if statement else lines[0]


def marks_itself_superseded(item: Evidence, statement: str = "") -> bool:
    """True when the title, or a status line of the chunk, says the document is superseded or cancelled.

    A chunk holding several records with different statuses (a status table) counts only when the record
    that best supports ``statement`` carries the mark.
    """
    if _TITLE_STATUS.search(item.metadata.title):
        return True
    if not _SELF_STATUS.search(item.text):
        return False
    statuses = {m.group(1).lower() for m in _ANY_STATUS.finditer(item.text)}
    if all(s in lexicons.words("status_words") or s == "no" for s in statuses):
        return True
    return bool(statement) and bool(_SELF_STATUS.search(supporting_line(item, statement)))


def same_subject(other: Evidence, statement: str, item: Evidence) -> bool:
    """Whether ``other``'s title is about what ``statement`` (from chunk ``item``) says."""
    title = set(content_words(other.metadata.title))
    if not title:
        return False
    said = set(content_words(f"{statement}\n{item.metadata.title}\n{supporting_line(item, statement)}"))
    return len(title & said) / len(title) >= SAME_SUBJECT_SHARE


def current_replacement(evidence: Sequence[Evidence], item: Evidence, statement: str, cited: Sequence[Evidence],
                        period: Period | None) -> Evidence | None:
    """The best-ranked other document that is current where ``item`` marks itself superseded."""
    cited_docs = {c.doc_id for c in cited}
    for other in evidence:
        if other.doc_id == item.doc_id or other.doc_id in cited_docs or marks_itself_superseded(other):
            continue
        if period is not None:
            current = about(other, period) is True
        else:
            newer, older = other.metadata.update_date, item.metadata.update_date
            current = newer is not None and (older is None or newer > older)
        if current and same_subject(other, statement, item):
            return other
    return None


def relayed_old_revision(evidence: Sequence[Evidence], sentence: str,
                         cited: Sequence[Evidence]) -> tuple[Evidence, Evidence] | None:
    """(old, newest) when ``sentence`` names an older revision of a retrieved series as its source, through another
    document ("the current revision is Rev 11"), cites no chunk of that series, and does not mark it as past."""
    if _PAST.search(strip_citations(sentence)):
        return None
    cited_series = {c.metadata.series for c in cited if c.metadata.series}
    for old in evidence:
        meta = old.metadata
        label = meta.revision or ""
        if not meta.series or meta.series in cited_series or len(normalise_phrase(label)) < MIN_LABEL_CHARS:
            continue
        new = newest_in_series(evidence, old)
        if new is not None and new.metadata.revision != label and mentions(sentence, label):
            return old, new
    return None


def stands_above(a: EvidenceMeta, b: EvidenceMeta) -> bool:
    """``a`` supersedes ``b`` as a source: ahead on date or authority and behind on neither (an unknown date is
    behind any known one)."""
    newer = a.update_date is not None and (b.update_date is None or a.update_date > b.update_date)
    return (newer and a.authority >= b.authority) or (a.authority > b.authority and (newer or a.update_date ==
                                                                                      b.update_date))


def superseding_figure(evidence: Sequence[Evidence], sentence: str, cited: Sequence[Evidence]) -> tuple | None:
    """(old figure, cited item, newer item, its figure) when a source standing above every cited one gives another
    value in the same unit for what ``sentence`` states (one of its sentences shares ``SAME_SUBJECT_SHARE`` of the
    statement's words)."""
    said = [f for f in figures(strip_citations(sentence)) if f.unit]
    if not said or not cited:
        return None
    cited_docs = {c.doc_id for c in cited}
    for other in evidence:
        if other.doc_id in cited_docs or not all(stands_above(other.metadata, c.metadata) for c in cited):
            continue
        for line in split_sentences(other.text):
            if coverage(sentence, line) < SAME_SUBJECT_SHARE:
                continue
            theirs = [f for f in figures(line) if f.unit]
            for mine in said:
                same_unit = [f for f in theirs if canonical_unit(f.unit) == canonical_unit(mine.unit)]
                if same_unit and all(f.value != mine.value for f in same_unit):
                    return mine, cited[0], other, same_unit[0]
    return None


def check_timeliness(answer: str, evidence: Sequence[Evidence], intent: Intent) -> list[ValidationIssue]:
    """Statements cited only to superseded or out-of-window evidence while current evidence was retrieved."""
    period = asked_period(intent)
    number = {id(e): n for n, e in enumerate(evidence, start=1)}
    issues: list[ValidationIssue] = []
    seen: set[tuple[str, str]] = set()

    def add(kind: str, item: Evidence, message: str) -> None:
        if (kind, item.chunk_id) not in seen:
            seen.add((kind, item.chunk_id))
            issues.append(ValidationIssue(check="timeliness", chunk_id=item.chunk_id, message=message))

    for sentence in split_sentences(answer):
        cited = [evidence[n - 1] for n in citations(sentence) if 1 <= n <= len(evidence)]
        flagged = False
        for old in cited:
            new = newest_in_series(evidence, old)
            if new is None or mentions(sentence, old.metadata.revision or ""):
                continue  # naming the old revision attributes the statement to it: history, not a stale claim
            if any(c.metadata.series == old.metadata.series and c.metadata.update_date
                   and c.metadata.update_date > old.metadata.update_date for c in cited):
                continue
            flagged = True
            add("series", old, f"{_quote(sentence)} cites [{number[id(old)]}] {revision_label(old)}, which "
                               f"[{number[id(new)]}] {revision_label(new)} of the same document supersedes; "
                               "cite the newer revision.")
        if not flagged:
            relayed = relayed_old_revision(evidence, sentence, cited)
            if relayed is not None:
                old, new = relayed
                flagged = True
                add("relayed", cited[0],
                    f"{_quote(sentence)} gives {old.metadata.revision} of {old.metadata.title!r} as current, but "
                    f"[{number[id(new)]}] {revision_label(new)} supersedes it; cite the newer revision or say the "
                    "value is superseded.")
        for old in cited:
            if flagged or not marks_itself_superseded(old, sentence):
                continue
            new = current_replacement(evidence, old, sentence, cited, period)
            if new is not None:
                flagged = True
                where = f"dated inside {period.text!r}" if period else "newer"
                add("superseded", old, f"{_quote(sentence)} cites [{number[id(old)]}] {revision_label(old)}, which "
                                       f"is marked superseded, but [{number[id(new)]}] {revision_label(new)}, "
                                       f"{where}, covers the same subject; cite the current document.")
        if not flagged and in_force(intent.constraints.time) and not _PAST.search(strip_citations(sentence)):
            found = superseding_figure(evidence, sentence, cited)
            if found is not None:
                mine, old, new, theirs = found
                flagged = True
                add("in_force", old, f"{_quote(sentence)} gives {mine.text} from [{number[id(old)]}] "
                                     f"{revision_label(old)}, but [{number[id(new)]}] {revision_label(new)}, newer or "
                                     f"more authoritative, gives {theirs.text}; the question asks what is in force.")
        if flagged or period is None or not cited:
            continue
        # the cited line's own years first: "Average brake life in 2023: ..." in a 2025 manual is about 2023
        judged = [(item, about(item, period, supporting_line(item, sentence))) for item in cited]
        outside = [item for item, inside in judged if inside is False]
        if not outside or any(inside for _, inside in judged):
            continue
        current = next((e for e in evidence if about(e, period) is True), None)
        if current is not None:
            old = outside[0]
            add("window", old, f"{_quote(sentence)} cites only evidence from outside the question's time window "
                               f"({period.text!r}): [{number[id(old)]}] {revision_label(old)}; "
                               f"[{number[id(current)]}] {revision_label(current)} from that period was retrieved; "
                               "cite it.")
            continue
        for item in outside:
            day = item.metadata.update_date
            if day is not None and period.start is not None and day < period.start:
                add("window", item, f"[{number[id(item)]}] {item.metadata.title!r} is dated {day.isoformat()}, "
                                    f"before the question's time window ({period.text!r}, from "
                                    f"{period.start.isoformat()}); use evidence from that period.")
    return issues
