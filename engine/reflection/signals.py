"""Signals for ranking evidence units against a question, without a model call.

The offline generator scores each quotable unit by embedding similarity and word overlap with
the question, plus the signals here: how much of the question's focus it names (directly, by
the unit before it in the same chunk, or by its document title) and whether it names another
code of the asked kind instead; whether it defines an asked code when the question asks what
the code means; figures when the question asks for a quantity; superseded values when the
question asks for current ones; dates inside or outside the question's time window; and
penalties for first-person chatter, banners and cut-off fragments.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.reflection.focus import Focus, match
from engine.reflection.text import content_words, figures, numbers
from engine.results import EvidenceMeta, Intent

_QUANTITY = re.compile(
    r"\b(how (?:much|many|long|often|far|high|low)|what (?:is|are|was|were) the (?:[\w-]+ ){0,4}(?:limit|value|"
    r"torque|pressure|interval|quantity|rate|amount|threshold|consumption|temperature|life|burn|weight|time)s?\b|"
    r"minimum|maximum|average|percent|rate)\b", re.IGNORECASE)
_VERB_MEAN = re.compile(r"\bwhat (?:does|do|did)\b[^?]*\bmean\b", re.IGNORECASE)
_FIRST_PERSON = re.compile(r"(?i:\b(?:I'm|I've|we|we're|my|our)\b)|\bI\b|\bus\b")
_STALE = re.compile(r"\b(?:superseded|obsolete|withdrawn|cancell?ed|out of date|no longer (?:valid|used|applicable|be used)|"
                    r"do not use|must not be used)\b", re.IGNORECASE)
_RETIRED = re.compile(r"(?:^|;\s*)status:\s*(?:superseded|cancell?ed|withdrawn|obsolete|revoked)\b", re.IGNORECASE)
_YEAR = re.compile(r"(?<![\d-])(?:19|20)\d{2}(?![\d,])")
_PAST = re.compile(r"\b(?:still|valid|old|older|previous|earlier|superseded|history|histor(?:y|ical)|chang\w*|"
                   r"was|were|before|used to|revisions?|rev\.?\s*\d+)\b", re.IGNORECASE)
FOCUS_WEIGHT = 0.3
"""Score added for a unit that names everything the question is specifically about."""
OFF_TOPIC_PENALTY = 0.35
"""Score taken from a unit that names another code of the asked kind (E4031 when E4027 is asked) and not the asked one."""


def shouting(text: str) -> bool:
    """Mostly capital letters: a page header or banner rather than a statement."""
    letters = [ch for ch in text if ch.isalpha()]
    return len(letters) >= 12 and sum(ch.isupper() for ch in letters) / len(letters) > 0.6


def asks_quantity(question: str, intent: Intent) -> bool:
    """A question for a figure ("what is the final torque", "how many"), not "what does E4027 mean"."""
    quant = intent.constraints.quantitative
    if quant is not None and not (quant.text.lower() == "mean" and _VERB_MEAN.search(question)):
        return True
    return bool(_QUANTITY.search(question))


def in_window(meta: EvidenceMeta, intent: Intent) -> float:
    """+0.08 for evidence about the question's time window ("2023 reports"), -0.08 for evidence about another time.

    The years in a document's title ("2024 Fleet Report") say what period it covers; without
    them, its update date does.
    """
    window = intent.constraints.time
    if window is None or (window.start is None and window.end is None):
        return 0.0
    first = window.start.year if window.start else 1900
    last = window.end.year if window.end else 2100
    years = {int(n) for n in numbers(meta.title) if 1900 <= n <= 2100 and float(n).is_integer()}
    if years:
        return 0.08 if any(first <= y <= last for y in years) else -0.08
    if meta.update_date is None:
        return 0.0
    inside = (window.start is None or window.start <= meta.update_date) and (
        window.end is None or meta.update_date <= window.end)
    return 0.08 if inside else -0.08


def years_in_window(text: str, intent: Intent) -> float:
    """+0.05 for a unit that dates itself inside the question's time window, -0.1 for one dated only outside it."""
    window = intent.constraints.time
    years = {int(y) for y in _YEAR.findall(text)}
    if window is None or not years or (window.start is None and window.end is None):
        return 0.0
    first = window.start.year if window.start else 1900
    last = window.end.year if window.end else 2100
    return 0.05 if any(first <= y <= last for y in years) else -0.1


def focus_bonus(focus: Focus, text: str, context: str) -> tuple[float, float, float]:
    """(score bonus, focus share, direct share): naming the focus in the unit counts fully, by context 40 %."""
    bonus, share, direct = 0.0, 1.0, 1.0
    if focus:
        own, fit = match(focus, text), match(focus, text, context)
        share, direct = fit.share, own.share
        bonus += FOCUS_WEIGHT * (0.6 * direct + 0.4 * share) - (OFF_TOPIC_PENALTY if fit.off_topic else 0.0)
    if focus.numbers:
        bonus += 0.1 * len(numbers(text) & focus.numbers) / len(focus.numbers)
    return bonus, share, direct


_MEANING = re.compile(r"\bwhat (?:does|do|did)\b[^?]*\bmean\b|\bmeaning of\b|\bdefin(?:e|ition)\b|"
                      r"\bwhat (?:is|are) (?:a |an |the )?(?:\w+ ){0,2}\w*\d", re.IGNORECASE)


def definition_bonus(question: str, focus: Focus, text: str) -> float:
    """+0.15 for a unit that defines an asked code ("E4027 is ...", "Code E4027 - NAME Meaning: ...")."""
    if not focus.codes or not _MEANING.search(question):
        return 0.0
    for code in focus.codes:
        if re.search(rf"^(?:[A-Za-z]+ ){{0,3}}{re.escape(code)}\b\s*(?:is\b|means\b|indicates\b|[-–:(])", text,
                     re.IGNORECASE):
            return 0.15
    return 0.0


_WH = r"(?:(?:at|by|in|on|for|from|to|with|under)\s+)?(?:what|which|how|when|why|where|who|can|could|is|are|does|do|did|" \
      r"should|must|may)\b"
_PART = re.compile(rf"\s*(?:,\s*(?:and\s+)?|;\s*|\s+and\s+)(?={_WH})", re.IGNORECASE)
_ASKS = re.compile(rf"^{_WH}", re.IGNORECASE)


def question_parts(question: str) -> list[str]:
    """The sub-questions of a question that asks several things ("what does X mean, and can I dispatch?")."""
    pieces = [p.strip(" ?.,;") for p in _PART.split(question.strip()) if p.strip(" ?.,;")]
    parts: list[str] = []
    for piece in pieces:
        if parts and not _ASKS.match(parts[-1]):
            parts[-1] = f"{parts[-1]}, {piece}"  # "According to the AMM, what is ...": one part
        else:
            parts.append(piece)
    parts = [p for p in parts if content_words(p)]
    return parts if len(parts) >= 2 else []


@dataclass(frozen=True)
class Ask:
    """What a question asks for, worked out once per question."""

    question: str
    intent: Intent
    focus: Focus
    words: frozenset[str]
    quantity: bool
    current: bool

    @classmethod
    def of(cls, question: str, intent: Intent, focus: Focus) -> Ask:
        return cls(question, intent, focus, frozenset(content_words(question)), asks_quantity(question, intent),
                   not _PAST.search(question))


def chunk_prior(credibility: float, meta: EvidenceMeta, recency: float, intent: Intent) -> float:
    """Credible, authoritative, newer evidence, and evidence about the question's time window, first."""
    return (0.12 * min(max(credibility, 0.0), 1.0) + 0.04 * (meta.authority - 1) / 4 + 0.04 * recency
            + in_window(meta, intent))


def unit_bonus(ask: Ask, text: str, kind: str, context: str, overlap: float) -> tuple[float, float, float]:
    """(score bonus, focus share, direct focus share) of one unit; ``context`` is its preceding code and title."""
    bonus, share, direct = focus_bonus(ask.focus, text, context)
    bonus += definition_bonus(ask.question, ask.focus, text)
    if ask.quantity and any(f.unit for f in figures(text)):
        bonus += 0.06 + 0.1 * overlap
    bonus -= (0.2 if _FIRST_PERSON.search(text) else 0.0) + (0.1 if shouting(text) else 0.0)
    bonus -= 0.08 if kind == "fragment" else 0.0
    if ask.current and _STALE.search(text):
        bonus -= 0.3 if _RETIRED.search(text) else 0.15  # superseded, when the question wants current values
    return bonus + years_in_window(text, ask.intent), share, direct
