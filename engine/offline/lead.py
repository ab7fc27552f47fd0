"""The first sentence of an offline answer: the asked value, said of the question's subject, with its citation.

Read from the question's parse:
- "What is the final torque for the axle nut?" -> "The final torque for the axle nut is 325 N.m [2]."
- a wh-phrase that is the subject: "Which company built the bridge?" -> "Acme built the bridge [2]."
- a wh-phrase in place: "The bridge was built by whom?" -> "The bridge was built by Acme [2]."
- otherwise the question's own words label the value: "How many nuts cracked: 12 [2]."
The evidence sentence follows the lead in the answer, so the reader sees where the value stands.
"""

from __future__ import annotations

import re

from engine.language import nlp

_TRAILING = re.compile(r"\s*,?\s*(?:according to|as per|as stated in|per)\s+(?:the\s+)?[\w\s.-]+$", re.IGNORECASE)
_WH = frozenset({"what", "which", "who", "whom", "whose", "when", "where", "why", "how"})


def lead_sentence(question: str, value: str, evidence: int, sentence: str = "") -> str:
    """A sentence that states ``value`` as the answer to ``question``, citing evidence ``[evidence]``."""
    cite = f"[{evidence}]"
    value = value.strip().rstrip(".")
    text = question_label(question)
    doc = nlp.parse([text])[0] if text else None
    if doc is None or not len(doc):
        return f"{_capital(value)} {cite}."
    wh = next((t for t in doc if t.lower_ in _WH), None)
    if wh is None:
        return f"{_capital(value)} {cite}."
    phrase_end = _phrase_end(doc, wh)
    after = doc[phrase_end:].text if phrase_end < len(doc) else ""
    before = doc[: wh.i].text
    if wh.i > 1 and before:  # asked in place: "X graduated from what school" -> "X graduated from Hebron Academy"
        return f"{_capital(before)} {value}{(' ' + after) if after else ''} {cite}."
    nxt = doc[phrase_end] if phrase_end < len(doc) else None
    if wh.lower_ in ("what", "which", "who") and nxt is not None and nxt.lemma_ == "be" and phrase_end == wh.i + 1:
        topic = doc[nxt.i + 1:].text.strip()
        if topic:  # "What is the X of Y" -> "The X of Y is V"
            return f"{_capital(topic)} {nxt.text.lower()} {value} {cite}."
    if nxt is not None and nxt.pos_ == "VERB" and nxt.lemma_ != "do" and \
            wh.lower_ not in ("how", "when", "where", "why"):
        return f"{_capital(value)} {after} {cite}."  # the wh-phrase is the subject: "Who wrote X" -> "V wrote X"
    return f"{_capital(text)}: {value} {cite}."


def question_label(question: str) -> str:
    """The question's own words as a lead labels a value with them ("How many boilers does the plant run: four")."""
    return _TRAILING.sub("", " ".join(question.split()).rstrip(" ?")).strip()


def added_claim(question: str, body: str) -> str:
    """What a sentence states beyond the question: a lead of the form "<the question's words>: <value>" claims the
    value, not the question's own words (a figure or name the question gives is not the answer's to back)."""
    label = question_label(question)
    if label and body[: len(label) + 1].lower() == f"{label}:".lower():
        rest = body[len(label) + 1:].strip()
        return rest or body
    return body


def _phrase_end(doc, wh) -> int:
    """The token after the wh-phrase ("which city", "how many nuts", "what kind of car")."""
    end = wh.i + 1
    if wh.lower_ == "how" and end < len(doc) and doc[end].pos_ in ("ADJ", "ADV"):
        end += 1
        while end < len(doc) and doc[end].pos_ in ("NOUN", "PROPN", "ADJ", "NUM"):
            end += 1
        return end
    if wh.lower_ in ("what", "which", "whose") and wh.dep_ == "det" and wh.head.i > wh.i and \
            wh.head.pos_ in ("NOUN", "PROPN"):  # the whole phrase the wh-word determines ("which rapper and actor")
        return max(t.i for t in wh.head.subtree) + 1
    if wh.lower_ in ("what", "which", "whose"):
        while end < len(doc) and doc[end].pos_ in ("NOUN", "PROPN", "ADJ", "NUM") or \
                (end < len(doc) and doc[end].lower_ == "of" and end > wh.i + 1 and
                 doc[end - 1].lemma_ in ("kind", "type", "sort", "name")):
            end += 1
    return end


def _capital(text: str) -> str:
    text = text.strip()
    return text[:1].upper() + text[1:] if text else text
