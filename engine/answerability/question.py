"""What a question asks for: the expected answer type, the subject it is about, and the asked attribute.

"What is the final torque for the A320 main wheel axle nut?" asks for a *number* (with a unit);
its subject is "A320" (a named thing the evidence must mention) and its attribute words are
"final torque main wheel axle nut" (what the evidence must say about the subject). Built from
the Intent that Perception already made (spaCy entities, codes, constraints) plus wh-word rules;
no model call.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from engine.reflection.focus import codes_in
from engine.reflection.signals import asks_quantity
from engine.reflection.text import STOPWORDS, normalise_phrase, stem, words
from engine.results import Intent

AnswerType = str
"""One of: number, date, person, place, organisation, code, definition, reason, procedure, choice, yes_no, other."""

# Expected answer types by the wording of the question, tried in order (first match wins).
_TYPE_RULES: tuple[tuple[AnswerType, re.Pattern[str]], ...] = tuple((kind, re.compile(pattern, re.IGNORECASE)) for kind, pattern in (
    ("date", r"\bwhen\b|\b(?:what|which|in what|in which)\s+(?:year|years|date|month|day|decade|century)\b"
             r"|\bhow long ago\b|\bsince when\b"),
    ("number", r"\bhow\s+(?:much|many|long|often|far|high|low|old|big|large|heavy|fast|tall|deep|wide)\b"
               r"|\b(?:what|which)\s+(?:is|are|was|were)\s+the\s+(?:number|amount|total|count|percentage|rate)\b"),
    ("person", r"\bwho(?:m|se)?\b|\b(?:what|which)\s+(?:person|man|woman|actor|actress|author|writer|singer|"
               r"player|director|producer|artist|musician|president|founder|inventor|engineer|officer|chief)\b"),
    ("place", r"\bwhere\b|\b(?:what|which|in what|in which)\s+(?:city|town|country|state|county|province|"
              r"region|place|location|continent|island|village|district)\b"),
    ("organisation", r"\b(?:what|which)\s+(?:company|organi[sz]ation|firm|agency|label|network|band|team|club|"
                     r"university|school|manufacturer|publisher|airline|operator|group)\b"),
    ("reason", r"^\W*why\b|\bwhat\s+(?:causes|caused|is the cause|are the causes)\b|\breasons?\s+(?:for|why)\b"),
    ("procedure", r"\bhow\s+(?:do|can|should|would|must|to)\b|\bwhat\s+(?:are\s+)?the\s+steps\b|\bprocedure\b"),
    ("definition", r"\bwhat\s+(?:does|do|did)\b[^?]*\bmean\b|\bmeaning\s+of\b|\bdefin(?:e|ition)\b|"
                   r"^\W*what\s+(?:is|are)\s+(?:a|an)\s+\w+\W*$"),
    ("choice", r"\b(?:which|who)\b[^?]*\b(?:first|earlier|older|younger|larger|bigger|smaller|more|less|"
               r"higher|lower|longer|shorter)\b[^?]*\bor\b|\b(?:first|earlier)\b[^?]*\bor\b"),
    ("yes_no", r"^\W*(?:is|are|was|were|does|do|did|can|could|should|must|may|has|have|had|will|would)\b"),
))
_CHOICE_FIRST = re.compile(r"\bor\b", re.IGNORECASE)

# Words that frame a question but say nothing about what is asked.
QUESTION_WORDS = frozenset({
    "what", "which", "who", "whom", "whose", "when", "where", "why", "how", "tell", "give", "list", "name",
    "called", "know", "explain", "describe", "please", "according", "document", "documents", "say", "says",
    "said", "mention", "mentioned", "state", "stated", "find", "show", "does", "did", "doe", "answer",
    "question", "information", "info", "detail", "details", "kind", "type", "sort", "exactly", "specific",
    "current", "currently", "latest", "new", "newest", "recent", "old", "value", "both",
})
# Entity labels that describe rather than name a subject ("American", "two", "2019"): never required.
WEAK_LABELS = frozenset({"NORP", "CARDINAL", "ORDINAL", "QUANTITY", "PERCENT", "MONEY", "DATE", "TIME", "LANGUAGE"})
_QUOTED = re.compile(r"[\"“”]([^\"“”]{2,80})[\"“”]")
_PROPER_RUN = re.compile(r"(?<![\w'’])(?:[A-Z][\w'’.&-]*|of|the|de|and|&)(?:\s+(?:[A-Z][\w'’.&-]*|of|the|de|and|&))*")


@dataclass(frozen=True)
class QuestionFocus:
    """What a question asks: the answer type, its subject phrases and its attribute words (stems)."""

    answer_type: AnswerType
    subjects: tuple[str, ...] = ()
    attribute: tuple[str, ...] = ()
    attribute_words: tuple[str, ...] = ()
    options: tuple[str, ...] = field(default=())  # for "X or Y" questions: the choices

    @property
    def specific(self) -> bool:
        """True when the answer type can be recognised in text (a number, a date, a name, a code)."""
        return self.answer_type in ("number", "date", "person", "place", "organisation", "code")

    def describe(self) -> str:
        """The focus in words, for the trace and the refusal message."""
        parts = [f"a {self.answer_type.replace('_', '/')}"]
        if self.attribute_words:
            parts.append(f"for '{' '.join(self.attribute_words)}'")
        if self.subjects:
            parts.append(f"of {', '.join(repr(s) for s in self.subjects)}")
        return " ".join(parts)


def answer_type(question: str, intent: Intent | None = None) -> AnswerType:
    """The kind of answer ``question`` expects."""
    for kind, pattern in _TYPE_RULES:
        if pattern.search(question):
            if kind == "choice" and not _CHOICE_FIRST.search(question):
                continue
            return kind
    if intent is not None and asks_quantity(question, intent):
        return "number"
    if re.search(r"\b(?:which|what)\b", question, re.IGNORECASE) and codes_in(question):
        return "code"
    return "other"


def analyse(question: str, intent: Intent) -> QuestionFocus:
    """The focus of ``question``, from its wording and Perception's ``intent``."""
    kind = answer_type(question, intent)
    subjects = _subjects(question, intent)
    covered = {stem(w) for s in subjects for w in words(s)}
    time_text = (intent.constraints.time.text if intent.constraints.time else "") or ""
    time_words = {stem(w) for w in words(time_text)}
    attribute: list[str] = []
    shown: list[str] = []
    for word in words(question):
        if word in STOPWORDS or word in QUESTION_WORDS or len(word) < 2 or word.isdigit():
            continue
        token = stem(word)
        if token in covered or token in time_words or token in attribute:
            continue
        attribute.append(token)
        shown.append(word)
    options: tuple[str, ...] = ()
    if kind == "choice":
        options = tuple(subjects[:2]) if len(subjects) >= 2 else ()
    return QuestionFocus(kind, tuple(subjects), tuple(attribute), tuple(shown), options)


def _subjects(question: str, intent: Intent) -> list[str]:
    """Named things the evidence must mention: entities, codes, quoted titles and capitalised names."""
    found: list[str] = []
    for entity in intent.entities:
        if entity.label not in WEAK_LABELS:
            found.append(entity.text.strip())
    found.extend(m.group(1).strip() for m in _QUOTED.finditer(question))
    found.extend(sorted(codes_in(question), key=lambda c: question.lower().find(c)))
    for match in _PROPER_RUN.finditer(question):
        phrase = _trim_run(match.group(0))
        start = match.start() + match.group(0).find(phrase) if phrase else match.start()
        if not phrase or start == _first_word_start(question):
            continue  # "What ..." / "Which ...": a capitalised first word is not a name
        if phrase.lower() in QUESTION_WORDS or phrase.lower() in STOPWORDS:
            continue
        found.append(phrase)
    out: list[str] = []
    for phrase in found:
        key = normalise_phrase(phrase)
        if not key or any(key == normalise_phrase(o) for o in out):
            continue
        out.append(phrase)
    # A phrase inside a longer one ("Williams" in "Audrey Williams") adds nothing.
    keys = [normalise_phrase(p) for p in out]
    return [p for p, k in zip(out, keys) if not any(k != o and f" {k} " in f" {o} " for o in keys)]


def _trim_run(text: str) -> str:
    tokens = text.split()
    while tokens and tokens[0].lower() in ("of", "the", "de", "and", "&"):
        tokens.pop(0)
    while tokens and tokens[-1].lower() in ("of", "the", "de", "and", "&"):
        tokens.pop()
    return " ".join(tokens).strip(" .,'’")


def _first_word_start(question: str) -> int:
    found = re.search(r"[A-Za-z]", question)
    return found.start() if found else 0
