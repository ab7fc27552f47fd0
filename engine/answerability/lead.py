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
_TRAILING = re.compile(r"\s*(?:,\s*)?(?:according to|as per|per)\s+the\s+[\w\s-]+$|\s*,.*$", re.IGNORECASE)


def lead_sentence(question: str, span: AnswerSpan, subjects: tuple[str, ...] = (), asked: tuple[str, ...] = ()) -> str:
    """A sentence that states ``span.value`` as the answer to ``question``, citing ``span.evidence``."""
    cite = f"[{span.evidence}]"
    value = span.value.strip()
    found = _WHAT_IS.match(question.strip())
    if found:
        verb, topic = found.group(1).lower(), _TRAILING.sub("", found.group(2)).strip()
        topic = topic[0].upper() + topic[1:] if topic else topic
        if topic and not topic.lower().startswith("the "):
            topic = f"The {topic[0].lower()}{topic[1:]}"
        if topic:
            return f"{topic} {verb} {value} {cite}."
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
