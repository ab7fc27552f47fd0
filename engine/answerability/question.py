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
from functools import lru_cache

from engine.reflection.focus import codes_in
from engine.reflection.signals import asks_quantity
from engine.reflection.text import STOPWORDS, normalise_phrase, stem, words
from engine.results import Intent

AnswerType = str
"""One of: number, date, person, place, organisation, work, code, definition, reason, procedure, choice, yes_no, other."""

# Expected answer types by the wording of the question, tried in order (first match wins).
_TYPE_RULES: tuple[tuple[AnswerType, re.Pattern[str]], ...] = tuple((kind, re.compile(pattern, re.IGNORECASE)) for kind, pattern in (
    ("choice", r"\b(?:which|who)\b[^?]*\b(?:first|earlier|older|younger|larger|bigger|smaller|more|less|"
               r"higher|lower|longer|shorter)\b[^?]*\bor\b|\b(?:first|earlier)\b[^?]*\bor\b|\b(?:which|who)\s+"
               r"(?:\w+\s+){0,3}(?:is|was|are|were)\b[^?]*,\s*[^?]*\bor\b"),
    ("date", r"^\W*when\b|\bwhen\W*$|\b(?:what|which|in what|in which)\s+(?:year|years|date|month|day|decade|century)\b"
             r"|\bhow long ago\b|\bsince when\b"),
    ("number", r"\bhow\s+(?:much|many|long|often|far|high|low|old|big|large|heavy|fast|tall|deep|wide)\b"
               r"|\b(?:what|which)\s+(?:is|are|was|were)\s+the\s+"
               r"(?:number|amount|total|count|percentage|rate|price|cost|fee)s?\b"),
    ("person", r"^\W*(?:\w+\s+)?who(?:m|se)?\b|\bwho(?:m|se)?\W*$|\b(?:what|which)\s+(?:person|man|woman|actor|actress|author|writer|singer|"
               r"player|director|producer|artist|musician|president|founder|inventor|engineer|officer|chief)\b"),
    ("place", r"^\W*(?:\w+\s+)?where\b|\bwhere\W*$|\b(?:what|which|in what|in which)\s+(?:city|town|country|state|county|province|"
              r"region|place|location|continent|island|village|district)\b"),
    ("organisation", r"\b(?:what|which)\s+(?:company|organi[sz]ation|firm|agency|label|network|band|team|club|"
                     r"university|school|manufacturer|publisher|airline|operator|group)\b"),
    ("reason", r"^\W*why\b|\bwhat\s+(?:causes|caused|is the cause|are the causes)\b|\breasons?\s+(?:for|why)\b"),
    ("procedure", r"\bhow\s+(?:do|can|should|would|must|to)\b|\bwhat\s+(?:are\s+)?the\s+steps\b|\bprocedure\b"),
    ("definition", r"\bwhat\s+(?:does|do|did)\b[^?]*\bmean\b|\bmeaning\s+of\b|\bdefin(?:e|ition)\b|"
                   r"^\W*what\s+(?:is|are)\s+(?:a|an)\s+\w+\W*$"),
    ("yes_no", r"^\W*(?:is|are|was|were|does|do|did|can|could|should|must|may|has|have|had|will|would)\b"),
))
_ASKS_CODE = re.compile(r"^\W*(?:which|what)\s+(?:\w+\s+)?(?:codes?|numbers?|part\s+numbers?|p/n|references?|"
                        r"identifiers?|ids?|versions?|releases?|revisions?|models?|standards?|directives?|bulletins?|documents?|"
                        r"regulations?|sections?|chapters?|forms?)\b", re.IGNORECASE)
VERSION = re.compile(r"(?<![\w.])v?\d+(?:\.\d+){1,3}(?!\w|\.\d)")
"""A version or section number ("0.11.0", "v2.1", "3.4.2"): it names what is asked about."""
_VERSION_KIND = re.compile(rf"\b(?:version|release|revision|build)\s+(?={VERSION.pattern})", re.IGNORECASE)
"""The word naming a version's kind ("version 0.11.0"): part of the subject's name, not something asked about it."""
_CHOICE_FIRST = re.compile(r"\bor\b", re.IGNORECASE)

# Words that frame a question but say nothing about what is asked.
QUESTION_WORDS = frozenset({
    "what", "which", "who", "whom", "whose", "when", "where", "why", "how", "tell", "give", "list", "name",
    "called", "know", "explain", "describe", "please", "according", "document", "documents", "say", "says",
    "said", "mention", "mentioned", "state", "stated", "find", "show", "does", "did", "doe", "answer",
    "question", "information", "info", "detail", "details", "kind", "type", "sort", "exactly", "specific",
    "current", "currently", "latest", "new", "newest", "recent", "old", "value", "both",
    # the action a question asks for, not what it asks about
    "summarise", "summarize", "summary", "summarised", "summarized", "overview", "outline", "compare",
    "comparison", "compared", "difference", "differences", "differ", "list", "describe", "explain", "refer",
    "refers", "relate", "relates", "related", "mean", "means", "meaning",
})
# Entity labels that describe rather than name a subject ("American", "two", "2019"): never required.
WEAK_LABELS = frozenset({"NORP", "CARDINAL", "ORDINAL", "QUANTITY", "PERCENT", "MONEY", "DATE", "TIME", "LANGUAGE"})
_QUOTED = re.compile(r"[\"“”]([^\"“”]{2,80})[\"“”]")
_PROPER_RUN = re.compile(r"(?<![\w'’])(?:[A-Z][\w'’.&-]*|of|the|de|and|&)"
                         r"(?:\s+(?:[A-Z][\w'’.&-]*|of|the|de|and|&|\d{1,3}(?:-\d{1,3})?(?![\w.,-])))*")
"""A capitalised name, with the model number that ends it ("Heinkel HD 23", "Falcon 9"; not a year)."""


@dataclass(frozen=True)
class QuestionFocus:
    """What a question asks: the answer type, its subject phrases and its attribute words (stems)."""

    answer_type: AnswerType
    subjects: tuple[str, ...] = ()
    attribute: tuple[str, ...] = ()
    attribute_words: tuple[str, ...] = ()
    options: tuple[str, ...] = field(default=())  # for "X or Y" questions: the choices
    relation: str = ""  # stem of the word an in-place question asks through ("born" in "a man born in what year")
    head: str = ""  # the asking phrase's head noun ("actress" in "starred which Canadian actress")
    bridge: str = ""  # the noun of an unnamed thing the question asks about through ("man" in "by a man born in")

    @property
    def specific(self) -> bool:
        """True when the answer type can be recognised in text (a number, a date, a name, a code)."""
        return self.answer_type in ("number", "date", "person", "place", "organisation", "work", "code")

    def describe(self) -> str:
        """The focus in words, for the trace and the refusal message."""
        kind = self.answer_type.replace("_", "/")
        parts = [f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}"]
        if self.attribute_words:
            parts.append(f"for '{' '.join(self.attribute_words)}'")
        if self.subjects:
            parts.append(f"of {', '.join(repr(s) for s in self.subjects)}")
        return " ".join(parts)


_MEASURE = re.compile(r"^\W*(?i:what|which)\s+(?i:is|was|are|were)\s+(?i:the)\s+([A-Z]{3,}s?)\s+(?i:of|for|on|at)\b")
"""An acronym asked for "of" something names a measure (MTBUR, MTBF, EGT), not what the question is about."""
_WH = re.compile(r"\b(?:what|which|who|whom|whose|when|where|why|how)\b", re.IGNORECASE)
_LEADS = frozenset({"in", "by", "for", "from", "to", "with", "at", "on", "of", "under", "during", "since", "until",
                    "and", "but", "so", "then", "or"})
_VERBS_AFTER_WHICH = re.compile(r"^which\s+(?:is|are|was|were|has|have|had|can|could|will|would|did|does)\b",
                                re.IGNORECASE)


_LEADING_CLAUSE = re.compile(
    r"^\W*(?:when|where|if|while|after|before|once)\s+"
    r"(?!(?:is|are|was|were|do|does|did|has|have|had|can|could|will|would|should|must|may)\b)[^,?]+,\s*"
    r"(?=(?:and\s+)?(?:what|which|who|whom|whose|when|where|why|how|in\s+what|in\s+which)\b)", re.IGNORECASE)
"""A clause setting the scene before the question ("When X upgraded Y, what version ...?"): its wh-word does not ask."""


def interrogative(question: str) -> str:
    """The question from its asking wh-word on ("... was produced by a man born in what year?" -> "what year?").

    A wh-word asks when it opens the question (after a preposition or conjunction at most), comes
    at its end ("created by who?"), or is "what"/"which" before a noun; "the actor who starred",
    "when he released" and "the band which was formed" are relative clauses, not the question.
    """
    clause = _LEADING_CLAUSE.match(question)
    if clause:  # "When pdfplumber 0.11.0 upgraded pdfminer.six, what version did it move to?"
        return interrogative(question[clause.end():])
    tokens = list(re.finditer(r"[\w'’-]+|[?,;]", question))
    for index, token in enumerate(tokens):
        word = token.group(0).lower()
        if not _WH.fullmatch(word):
            continue
        before = [t.group(0).lower() for t in tokens[:index] if t.group(0) not in "?,;"]
        rest = question[token.start():]
        opening = not before or all(b in _LEADS for b in before) or tokens[index - 1].group(0) in ",;"
        closing = len([t for t in tokens[index + 1:] if t.group(0) not in "?,;"]) <= 2
        determiner = word in ("what", "which") and not _VERBS_AFTER_WHICH.match(rest)
        if opening or closing or determiner:
            return rest
    return question


def answer_type(question: str, intent: Intent | None = None) -> AnswerType:
    """The kind of answer ``question`` expects."""
    asking = interrogative(question)
    for kind, pattern in _TYPE_RULES:
        text = question if kind in ("choice", "yes_no") else asking
        if pattern.search(text):
            if kind == "choice" and not _CHOICE_FIRST.search(question):
                continue
            return kind
    if intent is not None and asks_quantity(asking, intent):
        return "number"
    if _ASKS_CODE.search(asking):
        return "code"
    named = _NAME_OF.match(asking)
    if named:  # "What is the name of the pop band ..." asks which band
        return head_type(f"what {asking[named.end():]}")
    return head_type(asking)


_NAME_OF = re.compile(r"^\W*what\s+(?:is|was|are|were)\s+the\s+names?\s+of\s+"
                      r"(?:the\s+|a\s+|an\s+|his\s+|her\s+|its\s+|their\s+)?", re.IGNORECASE)


_HEAD_TYPES: dict[str, AnswerType] = {
    **dict.fromkeys("person people man woman men women actor actress actors actresses author writer novelist poet "
                    "singer rapper musician guitarist drummer bassist composer songwriter painter sculptor artist "
                    "player footballer athlete boxer coach manager politician senator president king queen prince "
                    "princess earl duke emperor leader founder inventor scientist director producer presenter host "
                    "comedian model journalist dj mother father wife husband son daughter brother sister "
                    "biographer killer".split(), "person"),
    **dict.fromkeys("city town country state county province region place location continent island village "
                    "district capital".split(), "place"),
    **dict.fromkeys("company organisation organization firm agency label network station channel magazine "
                    "newspaper band team club university college school academy publisher airline studio party "
                    "manufacturer family".split(), "organisation"),
    **dict.fromkeys("year date month decade century".split(), "date"),
    **dict.fromkeys("show series sitcom film movie album song single book novel game episode programme "
                    "program".split(), "work"),
}
"""The head noun of a "what/which ..." phrase names the type of thing asked ("which Canadian actress" -> person)."""
_PHRASE_END = frozenset({"is", "was", "are", "were", "did", "does", "do", "has", "have", "had", "can", "could",
                         "will", "would", "should", "must", "may", "of", "in", "on", "at", "for", "from", "by",
                         "with", "to", "that", "who", "which", "whose", "and", "or", "the", "a", "an"})
HEAD_WORDS = 5
"""Most words read after "what"/"which" when looking for the head noun ("what college preparatory boys' school")."""


def wh_phrase(text: str) -> tuple[int, int, str] | None:
    """Where the asking "what/which <modifiers> <head noun>" phrase stands in ``text``, and its head noun."""
    for match in re.finditer(r"\b(?:what|which)\s+", text, re.IGNORECASE):
        run: list[tuple[str, int]] = []
        for token in list(re.finditer(r"[\w'’-]+|[^\w\s]", text[match.end():]))[:HEAD_WORDS]:
            word = token.group(0)
            if not re.match(r"\w", word) or word.lower() in _PHRASE_END:
                break
            run.append((word.lower().rstrip("'’"), match.end() + token.end()))
        known = [(w, end) for w, end in run if noun_type(w) != "other"]  # "what radio station first played"
        if known or run:
            head, end = (known or run)[-1] if known else run[-1]
            return match.start(), end, head
    return None


def noun_type(head: str) -> AnswerType:
    return _HEAD_TYPES.get(head) or _HEAD_TYPES.get(head[:-1] if head.endswith("s") else head, "other")


def head_type(asking: str) -> AnswerType:
    """The answer type named by the head noun of the asking "what/which" phrase, else "other"."""
    if not re.match(r"^\W*(?:\w+\s+)?(?:what|which)\s", asking, re.IGNORECASE):
        return "other"
    found = wh_phrase(asking)
    return noun_type(found[2]) if found else "other"


def analyse(question: str, intent: Intent) -> QuestionFocus:
    """The focus of ``question``, from its wording and Perception's ``intent``."""
    kind = answer_type(question, intent)
    subjects = _subjects(question, intent)
    measure = _MEASURE.match(interrogative(question))
    if measure:  # "what was the MTBUR of the sensor": the acronym is the asked measure, the sensor the subject
        subjects = [s for s in subjects if s != measure.group(1)]
    # The attribute is what the question says outside its subjects' names: "Natural Born Killers ... a man
    # born in what year" asks about "born", although the film's name holds the word too. A subject the
    # question does not spell out (a follow-up's, a corrected spelling) removes its words wherever they are.
    rest = outside_subjects(_VERSION_KIND.sub(" ", question), subjects)
    covered = {stem(w) for subject in subjects if not _named(subject).search(question) for w in words(subject)}
    time_text = (intent.constraints.time.text if intent.constraints.time else "") or ""
    time_words = {stem(w) for w in words(time_text)}
    attribute: list[str] = []
    shown: list[str] = []
    for word in words(rest):
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
    from engine.answerability.relations import asked_head, asked_relation, bridge_noun

    return QuestionFocus(kind, tuple(subjects), tuple(attribute), tuple(shown), options, asked_relation(question),
                         asked_head(question), bridge_noun(question))


def identifies(subject: str) -> bool:
    """A code or version ("E4027", "AD 2024-11-02", "0.11.0"): a sentence naming it is about one thing only."""
    return bool(codes_in(subject)) or VERSION.fullmatch(subject.strip()) is not None


@lru_cache(maxsize=1024)
def _named(subject: str) -> re.Pattern[str]:
    return re.compile(r"(?<!\w)" + re.escape(subject) + r"(?!\w)", re.IGNORECASE)


def outside_subjects(text: str, subjects: tuple[str, ...] | list[str]) -> str:
    """``text`` without the subjects' names (longest first), so the words left are what it says about them."""
    for subject in sorted(subjects, key=len, reverse=True):
        text = _named(subject).sub(" ", text)
    return text


def _subjects(question: str, intent: Intent) -> list[str]:
    """Named things the evidence must mention: entities, codes, quoted titles and capitalised names."""
    found: list[str] = []
    weak = {e.text.strip() for e in intent.entities if e.label in WEAK_LABELS}
    source = normalise_phrase(intent.constraints.source or "")
    for entity in intent.entities:
        text = entity.text.strip()
        if entity.label in WEAK_LABELS or not re.search(r"[A-Z0-9]", text):
            continue  # a description, or a lower-case phrase the tagger took for a name ("wheel axle")
        found.append(text)
    found.extend(m.group(1).strip() for m in _QUOTED.finditer(question))
    found.extend(sorted(codes_in(question), key=lambda c: question.lower().find(c)))
    found.extend(m.group(0) for m in VERSION.finditer(question))
    for match in _PROPER_RUN.finditer(question):
        run = match.group(0)
        if re.search(r"(?:^|[.?!:;]\s+)\W*$", question[: match.start()]):
            first, _, rest = run.partition(" ")
            if first.lower() in STOPWORDS or first.lower() in QUESTION_WORDS or not rest:
                run = rest  # "What ...", "Both X", "Using ...": the word opening a sentence is not a name by itself
        phrase = _trim_run(run)
        for word in weak:  # "American A320": the nationality describes the subject, it is not its name
            tail = "" if word.isdigit() else rf"|\s+{re.escape(word)}$"  # the 23 of "Heinkel HD 23" names it
            phrase = re.sub(rf"^{re.escape(word)}\s+{tail}", "", phrase)
        if not phrase or phrase in weak:
            continue
        if phrase.lower() in QUESTION_WORDS or phrase.lower() in STOPWORDS:
            continue
        found.append(phrase)
    found = [re.sub(r"^(?:the|a|an)\s+", "", re.sub(r"['’]s$", "", part), flags=re.IGNORECASE)
             for phrase in found for part in _split_names(phrase)]  # "Jon Berg's", "the B737 MAX"
    out: list[str] = []
    for phrase in found:
        key = normalise_phrase(phrase)
        if len(key.replace(" ", "")) < 2 or any(key == normalise_phrase(o) for o in out):
            continue
        out.append(phrase)
    # The source constraint ("according to the AMM") picks documents; their text need not name it.
    out = [p for p in out if not source or normalise_phrase(p) != source]
    # A phrase inside a longer one ("Williams" in "Audrey Williams") adds nothing.
    keys = [normalise_phrase(p) for p in out]
    out = [p for p, k in zip(out, keys) if not any(k != o and f" {k} " in f" {o} " for o in keys)]
    return _unshared(out)


def _unshared(subjects: list[str]) -> list[str]:
    """"NEAA AD" beside the numbered "AD 2022-0193" (from "NEAA AD 2022-0193") keeps only "NEAA".

    Two readings of one stretch of the question overlap; the code names the document, and the
    words it shares are not a second thing the evidence must name.
    """
    coded = [s for s in subjects if re.search(r"\d", s)]
    out: list[str] = []
    for subject in subjects:
        if subject in coded:
            out.append(subject)
            continue
        shared = {w for c in coded for w in normalise_phrase(c).split()} & set(normalise_phrase(subject).split())
        rest = " ".join(w for w in subject.split() if normalise_phrase(w) not in shared)
        if shared and not any(w.lower() not in STOPWORDS and len(w) >= 2 for w in rest.split()):
            continue
        out.append(rest if shared else subject)
    return out


def _split_names(phrase: str) -> list[str]:
    """"E. B. White and Dan Masterson" -> both names; "Arts and Letters" (lower-case or one-word side) stays whole."""
    parts = re.split(r"\s+(?:and|or|&|vs\.?|versus)\s+", phrase)
    if len(parts) > 1 and (all(len(p.split()) >= 2 and p[:1].isupper() for p in parts)
                           or all(codes_in(p) for p in parts)):  # "A320 and B737": two codes
        return [p.strip() for p in parts]
    if len(parts) > 1 and re.search(r"\s+or\s+", phrase):
        return [p.strip() for p in parts if p.strip()]
    return [phrase]


def _trim_run(text: str) -> str:
    tokens = text.split()
    while tokens and tokens[0].lower() in ("of", "the", "de", "and", "&"):
        tokens.pop(0)
    while tokens and tokens[-1].lower() in ("of", "the", "de", "and", "&"):
        tokens.pop()
    return " ".join(tokens).strip(" .,'’")
