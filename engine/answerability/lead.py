"""The first sentence of an offline answer: the asked value, with its subject and citation.

"What is the final torque for the A320 main wheel axle nut?" with the span "325 N.m" from
evidence [2] gives "The final torque for the A320 main wheel axle nut is 325 N.m [2]." A question
that cannot be turned round that simply gives "<subject>: <value> [n]." The supporting
sentence follows it in the answer, so the reader sees where the value stands.
"""

from __future__ import annotations

import re

from engine.results import AnswerSpan

_WHAT_IS = re.compile(r"^\W*(?:what|which)\s+(is|are|was|were)\s+(the\s+.+?|.+?)\s*\??\s*$", re.IGNORECASE)
_HOW_MANY = re.compile(r"^\W*how\s+(?:many|much)\s+(.+?)\s+(is|are|was|were|did|does|do|have|has|had|must|may|can)\b"
                       r"(.*?)\s*\??\s*$", re.IGNORECASE)
_WHICH_DID = re.compile(r"^\W*(?:which|what)\s+((?:[\w/-]+\s+){0,6}?[\w/-]+)\s+(\w+ed)\s+(.+?)\s*\??\s*$",
                        re.IGNORECASE)
""""Which directive superseded AD 2022-0193?" -> "The directive that superseded AD 2022-0193 is ..."."""
_HOW_OFTEN = re.compile(r"^\W*how\s+(?:often|frequently)\s+(must|should|shall|can|may|will|is|are)\s+(.+?)\s+"
                        r"(be\s+\w+|\w+ed)\b(.*?)\s*\??\s*$", re.IGNORECASE)
""""How often must tyre pressures be checked under X?" -> "Tyre pressures must be checked under X: 48 hours"."""
_TRAILING = re.compile(r"\s*(?:,\s*)?(?:according to|as per|per)\s+the\s+[\w\s-]+$|\s*,.*$", re.IGNORECASE)


def lead_sentence(question: str, span: AnswerSpan, subjects: tuple[str, ...] = (), asked: tuple[str, ...] = (),
                  period: str = "") -> str:
    """A sentence that states ``span.value`` as the answer to ``question``, citing ``span.evidence``.

    ``period`` is the question's time phrase ("since 2024"): restated only when the cited sentence
    gives its years, so the lead never claims a period its evidence does not state.
    """
    cite = f"[{span.evidence}]"
    value = span.value.strip()
    question = _without_period(question, period, span.sentence)
    in_place = _in_place(question, value, cite)
    if in_place:
        return in_place
    found = _WHAT_IS.match(question.strip())
    if found:
        verb, topic = found.group(1).lower(), _TRAILING.sub("", found.group(2)).strip()
        topic = topic[0].upper() + topic[1:] if topic else topic
        if topic and not topic.lower().startswith("the "):
            topic = f"The {topic[0].lower()}{topic[1:]}"
        if topic:
            return f"{topic} {verb} {value} {cite}."
    found = _HOW_OFTEN.match(re.split(r"\s*,\s*(?:and|or)\s+|\s+and\s+what\b", question.strip(), maxsplit=1)[0])
    if found:
        aux, thing, verb, rest = found.group(1).lower(), found.group(2), found.group(3), found.group(4).strip()
        thing = re.sub(r"^(?:the\s+)", "", thing, flags=re.IGNORECASE)
        said = f"{thing[0].upper()}{thing[1:]} {aux} {verb}{' ' + rest if rest else ''}"
        return f"{said}: {value} {cite}."
    first = re.split(r"\s*,\s*(?:and|or)\s+|\s*;\s*", question.strip(), maxsplit=1)[0]
    found = _WHICH_DID.match(first)
    if found and not re.search(r"\b(?:is|are|was|were|do|does|did|has|have|had)\b", found.group(1), re.IGNORECASE):
        thing, verb, rest = found.group(1), found.group(2), _TRAILING.sub("", found.group(3)).strip()
        if " " not in thing or not thing[:1].isupper():  # "Which Danish band": a modifier keeps its capital
            thing = f"{thing[0].lower()}{thing[1:]}"
        return f"The {thing} that {verb} {rest} is {value} {cite}."
    found = _HOW_MANY.match(question.strip())
    if found:
        thing, rest = found.group(1).strip(), _TRAILING.sub("", found.group(3)).strip()
        tail = f" ({rest})" if rest else ""
        return f"{thing[0].upper()}{thing[1:]}{tail}: {value} {cite}."
    about = ", ".join(subjects[:2])
    what = " ".join(asked)
    what = f"{what[:1].upper()}{what[1:]}" if what else ""
    if what and about:
        return f"{what} for {about}: {value} {cite}."  # "Airworthiness directive superseded for AD 2022-0193: ..."
    return f"{what or about}: {value} {cite}." if (what or about) else f"Answer: {value} {cite}."


def _in_place(question: str, value: str, cite: str) -> str:
    """A question that asks in place ("X graduated from what school?") answered by putting the value in its place
    ("X graduated from Hebron Academy [1]."); empty when the question opens with its wh-phrase."""
    from engine.answerability.question import _LEADS, _WH, wh_phrase

    found = wh_phrase(question)
    if not found or not value:
        return ""
    start, end, _ = found
    before = question[:start].strip()
    if len(before.split()) < 2 or re.search(r"[.?!;]\s", before) or all(w.lower() in _LEADS for w in before.split()):
        return ""
    # "How many nuts cracked, and which part number replaces it?" is asked up front
    if _WH.search(before) or _AUX_FIRST.match(before):
        return ""
    after = re.sub(r"\s*\?\s*$", "", question[end:]).rstrip()
    said = f"{before} {value}{after}"
    return f"{said[0].upper()}{said[1:]} {cite}."


_AUX_FIRST = re.compile(r"^\W*(?:is|are|was|were|do|does|did|can|could|has|have|had|should|must|will|would)\b",
                        re.IGNORECASE)
"""A question opening with an auxiliary asks up front (yes/no), never in place."""


def _without_period(question: str, period: str, sentence: str) -> str:
    """``question`` less its time phrase when ``sentence`` does not state the phrase's years."""
    years = re.findall(r"\d{4}", period)
    if not period or not years or all(y in sentence for y in years):
        return question
    preposition = r"(?:(?:in|during|for|since|from|after|before|by|of)\s+)?"
    return re.sub(rf"\s*,?\s*{preposition}{re.escape(period)}", "", question, count=1, flags=re.IGNORECASE)


def side_leads(question: str, spans: tuple[AnswerSpan, ...], asked: tuple[str, ...] = (), period: str = "") -> list[str]:
    """One lead per side: "... of the A320 and B737 fleets" -> "... of the A320 fleets is 2,050 landings [6]." and so on."""
    from engine.answerability.sides import sides

    _, joined = sides(question, [s.subject for s in spans])
    out = []
    for span in spans:
        asked_of_side = question.replace(joined, span.subject, 1) if joined else question
        out.append(lead_sentence(asked_of_side, span, (span.subject,), asked, period))
    return out
