"""The question reader: what a question asks for, read from spaCy's parse and the patterns in en/questions.toml.

``read_question("Which city hosted the 2012 games?")`` gives the wh-word ("which"), the expected answer
type ("place", from the head noun "city"), the head noun, the subjects the question names (entities,
codes, quoted titles, proper names: "2012 games" is not one, it is a description), the attribute words
(the other content lemmas: "host", "game"), the main verb ("host") and, for "A or B" questions, the choices.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from engine.language import nlp
from engine.language.codes import VERSION, codes_in
from engine.language.tokens import STOP_WORDS, normalise_phrase, stem

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

_DATA = Path(__file__).with_name("en") / "questions.toml"
_WH_TAGS = frozenset({"WDT", "WP", "WP$", "WRB"})
_AUX_FIRST = frozenset({"is", "are", "was", "were", "do", "does", "did", "can", "could", "has", "have", "had",
                        "should", "must", "will", "would", "may", "might", "shall"})
_NAME_LABELS = frozenset({"PERSON", "ORG", "GPE", "LOC", "FAC", "PRODUCT", "EVENT", "WORK_OF_ART", "LAW", "NORP",
                          "LANGUAGE"})
"""Entity labels that name a subject; numbers, dates and quantities in a question are constraints, not subjects."""
_VALUE_LABELS = frozenset({"DATE", "TIME"})
_QUOTED = re.compile(r"[\"“”]([^\"“”]{2,80})[\"“”]")
ANSWER_TYPES = ("person", "place", "organisation", "date", "number", "quantity", "money", "percent", "duration",
                "code", "work", "reason", "manner", "other", "yes_no")
VALUE_TYPES = frozenset({"person", "place", "organisation", "date", "number", "quantity", "money", "percent",
                         "duration", "code", "work"})
"""Answer types that a short value answers (a name, a date, a figure); the others want a statement."""


@dataclass(frozen=True)
class QuestionReading:
    """What a question asks: see the module docstring."""

    text: str
    wh: str = ""
    answer_type: str = "other"
    head: str = ""
    subjects: tuple[str, ...] = ()
    attribute: tuple[str, ...] = ()
    relation: str = ""
    choices: tuple[str, ...] = ()
    lemmas: frozenset[str] = field(default_factory=frozenset)
    """Every content lemma of the question (subjects' words included), lower case."""
    wh_dep: str = ""
    """The syntactic role of the wh-phrase ("nsubj" in "Who designed X", "pobj" in "built by whom")."""
    wh_head: str = ""
    """The lemma of the word the wh-phrase hangs on ("design" in "Who designed X"): the answer hangs on it too."""
    determined: bool = False
    """The wh-word determines the asked noun ("which engine", "what vessel"): a thing is named in answer."""
    paths: tuple[tuple[str, str], ...] = ()
    """(stem, dependency path) of each content word outside the wh-phrase: the path from the word to the wh-phrase
    ("design": "nsubjv" in "Who designed X"). A candidate the same path away from the same word in a sentence
    stands where the wh-phrase stands (see ``engine.language.nlp.dep_path``)."""

    @property
    def wants_value(self) -> bool:
        """True when a short value (name, date, figure, code) answers the question: a value type, a choice, or a
        noun the wh-word determines that the head lexicon does not type ("which engine" is answered by a name)."""
        return (self.answer_type in VALUE_TYPES or bool(self.choices)
                or (self.determined and self.answer_type == "other"))

    def describe(self) -> str:
        """The asked thing in words, for reasons shown to the user ("the year", "a number for 'torque'")."""
        thing = self.head or {"person": "person", "place": "place", "date": "date", "reason": "reason",
                              "manner": "way", "organisation": "organisation"}.get(self.answer_type, "answer")
        about = f" of {', '.join(repr(s) for s in self.subjects[:2])}" if self.subjects else ""
        return f"the {thing}{about}"


@lru_cache(maxsize=1)
def _data() -> tuple[list[tuple[str, list]], dict[str, str], frozenset[str]]:
    with _DATA.open("rb") as handle:
        raw = tomllib.load(handle)
    asks = [(row["type"], row["pattern"]) for row in raw.get("asks", [])]
    heads = {word: kind for kind, words in raw.get("heads", {}).items() for word in words}
    return asks, heads, frozenset(raw.get("codes", {}).get("numbered", []))


@lru_cache(maxsize=1)
def _matcher():
    from spacy.matcher import Matcher

    matcher = Matcher(nlp.pipeline("full").vocab)
    for number, (kind, pattern) in enumerate(_data()[0]):
        matcher.add(f"{number}:{kind}", [pattern])
    return matcher


def head_type(lemma: str) -> str:
    """The answer type a head noun asks for ("city" -> "place"); "other" when the lexicon does not list it."""
    return _data()[1].get(lemma.lower(), "other")


@lru_cache(maxsize=2048)
def read_question(question: str, entities: tuple[str, ...] = ()) -> QuestionReading:
    """Read ``question``; ``entities`` are names perception found by its rules (codes, document numbers)."""
    text = " ".join(question.split())
    if not text:
        return QuestionReading(text="")
    doc = nlp.parse([text])[0]
    wh, answer_type, head, wh_tokens = _wh(doc)
    choices = _choices(doc) if wh or answer_type == "yes_no" else ()
    subjects = _subjects(doc, entities, wh_tokens)
    in_subjects = {w for s in subjects for w in normalise_phrase(s).split()}
    lemmas = frozenset(t.lemma_.lower() for t in doc if _content(t))
    attribute = tuple(dict.fromkeys(
        t.lemma_.lower() for t in doc
        if _content(t) and t.i not in wh_tokens and t.lower_ not in in_subjects and t.lemma_.lower() != head))
    relation = next((t.lemma_.lower() for t in doc if t.pos_ == "VERB" and t.dep_ not in ("aux", "prep")
                     and t.lemma_.lower() not in ("be", "have", "do")), "")
    anchor = _anchor(doc, wh_tokens)
    return QuestionReading(text=text, wh=wh, answer_type=answer_type, head=head, subjects=subjects,
                           attribute=attribute, relation=relation, choices=choices, lemmas=lemmas,
                           determined=bool(head) and any(doc[i].lemma_.lower() == head for i in wh_tokens
                                                         if doc[i].lower_ != wh),
                           wh_dep=anchor.dep_ if anchor is not None else "",
                           wh_head=anchor.head.lemma_.lower() if anchor is not None and anchor.head is not anchor
                           else "",
                           paths=tuple((stem(t.lower_), nlp.dep_path(t, anchor)) for t in doc
                                       if anchor is not None and _content(t) and t.i not in wh_tokens))


def _anchor(doc: "Doc", wh_tokens: set[int]) -> "Token | None":
    """The top token of the wh-phrase in the parse: the one whose head lies outside the phrase."""
    if not wh_tokens:
        return None
    inside = [doc[i] for i in sorted(wh_tokens) if i < len(doc)]
    return next((t for t in inside if t.head.i not in wh_tokens or t.head is t), inside[0])


def _content(token: "Token") -> bool:
    return (token.is_alpha or token.like_num or any(ch.isdigit() for ch in token.text)) and \
        token.lower_ not in STOP_WORDS and token.pos_ not in ("AUX", "PRON", "DET", "ADP", "CCONJ", "PART", "PUNCT")


def _wh(doc: "Doc") -> tuple[str, str, str, set[int]]:
    """(wh-word, answer type, head noun lemma, token indices of the wh-phrase)."""
    first = doc[0].lower_ if len(doc) else ""
    wh_token = next((t for t in doc if t.tag_ in _WH_TAGS or t.lower_ in ("how", "what", "which", "who", "when",
                                                                          "where", "why", "whom", "whose")), None)
    if wh_token is None:
        return ("", "yes_no" if first in _AUX_FIRST else "other", "", set())
    if first in _AUX_FIRST and wh_token.i > 2:  # "Is it true that ... which ...": asked up front
        return ("", "yes_no", "", set())
    taken = {wh_token.i}
    for match_id, start, end in sorted(_matcher()(doc), key=lambda m: (m[1], int(doc.vocab.strings[m[0]].split(":")[0]))):
        if start == wh_token.i:
            kind = doc.vocab.strings[match_id].split(":", 1)[1]
            # a pattern that reaches over the subject ("how much did <the fare> cost") takes "how much" alone
            if end - start > 4:
                end = start + 2
            taken |= set(range(start, end))
            head = ""
            if kind == "quantity" and end < len(doc) and doc[end].pos_ == "NOUN":  # "how much fuel": fuel is asked
                head = doc[end].lemma_.lower()
            return (doc[start:end].text.lower(), kind, head, taken)
    noun = _wh_noun(doc, wh_token)
    if noun is not None:
        taken |= {t.i for t in doc[wh_token.i: noun.i + 1]}
        return (wh_token.lower_, _noun_type(noun), noun.lemma_.lower(), taken)
    if wh_token.lower_ in ("what", "which"):
        # "What is the torque of ...": the subject of the copula names what is asked
        attr = _copula_noun(doc, wh_token)
        if attr is not None:
            return (wh_token.lower_, _noun_type(attr), attr.lemma_.lower(), taken)
    return (wh_token.lower_, "other", "", taken)


def _wh_noun(doc: "Doc", wh: "Token") -> "Token | None":
    """The noun a "what/which" determiner asks about ("which city", "what kind of car" -> car)."""
    if wh.lower_ not in ("what", "which", "whose"):
        return None
    head = wh.head
    while head.dep_ == "compound" and head.head.i > head.i and head.head.pos_ == "NOUN":  # "which axle nut torque"
        head = head.head
    if wh.dep_ == "det" and head.i > wh.i and head.pos_ == "NOUN" and \
            head.lemma_.lower() not in ("kind", "type", "sort", "name"):  # "which flight control software version"
        return head
    for token in doc[wh.i + 1: wh.i + 5]:
        if token.pos_ in ("NOUN", "PROPN") and token.dep_ not in ("compound",) or (
                token.pos_ == "NOUN" and token.head.i > token.i and token.head.pos_ not in ("NOUN", "PROPN")):
            if token.lemma_.lower() in ("kind", "type", "sort", "name") and token.i + 2 < len(doc) \
                    and doc[token.i + 1].lower_ == "of":
                return next((t for t in doc[token.i + 2: token.i + 6] if t.pos_ in ("NOUN", "PROPN")), token)
            return token
        if token.pos_ not in ("ADJ", "NOUN", "PROPN", "NUM", "ADV") and token.dep_ != "compound":
            return None
    return None


def _copula_noun(doc: "Doc", wh: "Token") -> "Token | None":
    """In "what is/was the X of Y", the noun X."""
    nxt = doc[wh.i + 1] if wh.i + 1 < len(doc) else None
    if nxt is None or nxt.lemma_ != "be":
        return None
    for token in doc[nxt.i + 1:]:
        if token.dep_ in ("compound", "poss", "case", "nmod") and token.head.pos_ == "NOUN" or \
                token.dep_ == "case" and token.head.dep_ == "poss":  # "Kentucky's total number", "U.S. rate"
            continue
        if token.pos_ in ("NOUN", "PROPN"):
            if token.lemma_.lower() in ("name", "kind", "type") and token.i + 2 < len(doc) and \
                    doc[token.i + 1].lower_ == "of":
                continue
            return token if token.pos_ == "NOUN" else None
        if token.pos_ not in ("DET", "ADJ", "ADV", "NUM", "ADP") and token.lower_ != "of":
            return None
    return None


def _noun_type(noun: "Token") -> str:
    lemma = noun.lemma_.lower()
    if lemma == "number":
        before = noun.doc[noun.i - 1].lemma_.lower() if noun.i else ""
        return "code" if before in _data()[2] else "number"
    return head_type(lemma)


def _choices(doc: "Doc") -> tuple[str, ...]:
    """The sides of "A or B" in a question ("Which came first, the radio or the telephone?" -> radio, telephone)."""
    conj = next((t for t in doc if t.lower_ == "or" and 0 < t.i < len(doc) - 1), None)
    if conj is None:
        return ()

    def side(tokens) -> str:
        kept: list["Token"] = []
        for token in tokens:
            if token.pos_ in ("PUNCT", "VERB", "AUX", "SCONJ") or token.tag_ in _WH_TAGS:
                break
            kept.append(token)
        return kept

    left = list(reversed(side(reversed(doc[: conj.i]))))
    right = side(doc[conj.i + 1:])
    out = []
    for tokens in (left, right):
        while tokens and tokens[0].pos_ in ("DET", "ADP", "PART"):
            tokens = tokens[1:]
        if tokens:
            out.append(doc[tokens[0].i: tokens[-1].i + 1].text)
    return tuple(out) if len(out) == 2 else ()


def _subjects(doc: "Doc", entities: tuple[str, ...], wh_tokens: set[int]) -> tuple[str, ...]:
    """Names the question is about: quoted titles, codes, named entities, runs of proper nouns."""
    text = doc.text  # rebuilt from the tokens on every read
    found: list[str] = [m.group(1).strip() for m in _QUOTED.finditer(text)]
    found += [e for e in entities if e.strip()]
    lowered = text.lower()
    found += [text[lowered.find(c): lowered.find(c) + len(c)]
              for c in sorted(codes_in(text), key=lowered.find)]  # as the question writes it
    found += [m.group(0) for m in VERSION.finditer(text)]
    for ent in doc.ents:
        if ent.label_ in _NAME_LABELS and not ({t.i for t in ent} & wh_tokens):
            found.append(ent.text.strip(" ?.,'\"").removeprefix("the ").removeprefix("The "))
    run: list["Token"] = []
    for token in [*doc, None]:
        if token is not None and token.pos_ == "PROPN" and token.i not in wh_tokens and \
                token.ent_type_ not in _VALUE_LABELS:  # "November" in "in November 2015" is a constraint
            run.append(token)
            continue
        if run:
            found.append(doc[run[0].i: run[-1].i + 1].text)
        run = []
    out: list[str] = []
    for name in found:
        key = normalise_phrase(name)
        if not key or key in STOP_WORDS:
            continue
        if any(key in normalise_phrase(o) for o in out):  # "Normandy" inside "the Duke of Normandy"
            continue
        out = [o for o in out if normalise_phrase(o) not in key]
        out.append(name)
    return tuple(out)


def coordinated(question: str, names: Sequence[str]) -> list[str]:
    """The ``names`` joined to another of them by "and", "or" or a comma in the question's parse ("the A320 and the
    B737"; "Which was first, X or Y"), in order. Names under "between" are left out: "the fare between Washington
    and New York" asks about one route, not about each city."""
    if len(names) < 2:
        return []
    doc = nlp.parse([question])[0]
    spans: dict[str, set[int]] = {}
    for name in names:
        at = question.lower().find(name.lower())
        if at >= 0:
            span = doc.char_span(at, at + len(name), alignment_mode="expand")
            if span is not None:
                spans[name] = {t.i for t in span}

    def reach(name: str) -> set[int]:
        """Tokens coordinated with the name: its conjuncts' subtrees, and the conjunct it is one of."""
        out: set[int] = set()
        for i in spans[name]:
            for token in (doc[i], *doc[i].ancestors):
                if token.dep_ == "conj":
                    out.update(t.i for t in token.head.subtree)
                for child in token.children:
                    if child.dep_ == "conj":
                        out.update(t.i for t in child.subtree)
                if token.dep_ in ("pobj",) and token.head.lower_ == "between":
                    return set()
                if token.dep_ not in ("compound", "conj", "appos", "poss", "amod", "det", "nmod"):
                    break
        return out

    joined = [name for name in names if name in spans and
              any(other != name and other in spans and spans[other] & reach(name) for other in names)]
    return joined if len(joined) >= 2 else []
