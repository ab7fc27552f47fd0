"""Follow-up questions: "And on the 737?" read against the question asked before it.

The rules (``[followup]`` in rules.toml) say when a question is a follow-up; the
entities and the date it names replace those of the same kind in the previous
question, one for one, and what has no counterpart there is appended. A question
that names a subject of its own, or asks a full question of its own, is left as asked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.language.tokens import STOP_WORDS
from engine.perception.rules import FollowupRules
from engine.perception.stage import TIME_KIND, Mention, Perception

_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
_ANY_WORD = re.compile(r"\w[\w'’/-]*")
_BEFORE = re.compile(r"(?:\b(?P<prep>[^\W\d_]+)\s+)?(?P<article>(?:the|an?)\s+)?$", re.IGNORECASE)
_END = re.compile(r"[\s?.!]*$")


@dataclass(frozen=True)
class Resolved:
    """The question to answer: ``text`` is the follow-up rewritten against ``resolved_from``.

    ``resolved_from`` is None when the question was left as asked; ``explanation`` says why
    either way, in words for the user.
    """

    text: str
    resolved_from: str | None
    explanation: str

    @property
    def is_followup(self) -> bool:
        return self.resolved_from is not None


def resolve_followup(question: str, previous_question: str | None, perception: Perception | None = None) -> Resolved:
    """``question`` as a full question, using ``previous_question`` when it is a follow-up to it."""
    previous = (previous_question or "").strip()
    if not previous:
        return Resolved(question, None, "no previous question")
    if question.strip().casefold() == previous.casefold():
        return Resolved(question, None, "the same question as before")
    if perception is None:
        from engine.perception.stage import get_perception

        perception = get_perception()
    rules = perception.rules.followup
    rest_start = _lead_end(question, rules)
    if rest_start is None and len(_ANY_WORD.findall(question)) > rules.max_words:
        return Resolved(question, None, "not a follow-up: no opening such as 'and' or 'what about', and not short")
    rest_start = rest_start or 0
    mentions = [m for m in perception.mentions(question) if m.start >= rest_start]
    if not mentions:
        return Resolved(question, None, "not a follow-up: it names no entity or date to carry over")
    own = _own_words(question, rest_start, mentions, rules)
    if own:
        return Resolved(question, None, f"stands on its own: it names its own subject ({', '.join(own)})")
    if _asks_on_its_own(question[rest_start:], rules):
        return Resolved(question, None, "stands on its own: it asks a full question without referring back")
    return _rewrite(question, previous, mentions, perception.mentions(previous), rules)


def _lead_end(question: str, rules: FollowupRules) -> int | None:
    """Where the question's text starts after its lead ("And", "What about"), or None without one."""
    ends = [m.end() for p in rules.leads if (m := p.match(question))]
    return max(ends) if ends else None


def _own_words(question: str, start: int, mentions: list[Mention], rules: FollowupRules) -> list[str]:
    """Words after the lead that name a subject: not stop, vague or reference words, nor part of a mention."""
    own = []
    for match in _WORD.finditer(question, start):
        word = match.group(0).lower()
        if any(m.phrase_start <= match.start() < m.phrase_end for m in mentions):
            continue
        if word in STOP_WORDS or word in rules.vague or word in rules.references or word in rules.prepositions:
            continue
        own.append(match.group(0))
    return own


def _asks_on_its_own(rest: str, rules: FollowupRules) -> bool:
    words = {w.lower() for w in _WORD.findall(rest)}
    return bool(words & rules.predicates) and not words & rules.references


def _rewrite(question: str, previous: str, new: list[Mention], old: list[Mention], rules: FollowupRules) -> Resolved:
    swaps: list[tuple[Mention, Mention]] = []  # (old, new)
    appended: list[Mention] = []
    for kind in dict.fromkeys(m.kind for m in new):
        mine = _distinct([m for m in new if m.kind == kind])
        theirs = _distinct([m for m in old if m.kind == kind])
        if len(mine) == len(theirs):
            swaps += [(o, n) for o, n in zip(theirs, mine) if _key(o) != _key(n)]
        else:
            appended += [n for n in mine if _key(n) not in {_key(o) for o in theirs}]
    if not swaps and not appended:
        return Resolved(previous, previous, "follow-up naming only what the previous question named: asked again")
    text = previous
    every = [(o2, n) for o, n in swaps for o2 in old if _key(o2) == _key(o)]  # each time the old name occurs
    for o, n in sorted(every, key=lambda pair: pair[0].start, reverse=True):
        start, end, value = _replacement(o, n, question)
        text = text[:start] + value + text[end:]
    notes = [f"{_span_text(previous, o)} → {_span_text(question, n)}" for o, n in swaps]
    if appended:
        phrases = [_phrase(question, m, rules) for m in appended]
        end = _END.search(text)
        text = f"{text[:end.start()]} {' '.join(phrases)}{end.group(0).strip() or '?'}"
        notes += [f"added “{p}”" for p in phrases]
    return Resolved(text, previous, "follow-up to the previous question: " + "; ".join(notes))


def _key(mention: Mention) -> str:
    return re.sub(r"[\s-]+", "", mention.text.lower())


def _distinct(mentions: list[Mention]) -> list[Mention]:
    """Mentions with repeats of the same name dropped (the first one is kept)."""
    seen: dict[str, Mention] = {}
    for mention in mentions:
        seen.setdefault(_key(mention), mention)
    return list(seen.values())


def _span_text(text: str, mention: Mention) -> str:
    return text[mention.start:mention.end]


def _replacement(old: Mention, new: Mention, question: str) -> tuple[int, int, str]:
    """The span of the previous question to replace and the text to put there.

    A date replaces the core date of the old expression ("from 2023 reports" -> "from 2022 reports")
    when both have one; otherwise the whole old expression gives way to the whole new one.
    """
    if old.kind == TIME_KIND and not (old.has_core and new.has_core):
        return old.phrase_start, old.phrase_end, question[new.phrase_start:new.phrase_end]
    return old.start, old.end, _span_text(question, new)


def _phrase(question: str, mention: Mention, rules: FollowupRules) -> str:
    """The mention as it was asked, after its preposition ("on the 737"); ``rules.preposition`` when it had none.

    A date expression that carries its own relation ("since 2020") is taken as it is.
    """
    if mention.kind == TIME_KIND and mention.has_core and mention.phrase_start < mention.start:
        return question[mention.phrase_start:mention.phrase_end]
    before = _BEFORE.search(question[:mention.phrase_start])
    prep = before.group("prep") if before and before.group("prep") else ""
    if prep.lower() not in rules.prepositions:
        prep = rules.preposition
    article = (before.group("article") or "") if before else ""
    return f"{prep} {article}{question[mention.phrase_start:mention.phrase_end]}".strip()
