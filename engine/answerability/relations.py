"""What a question asks through: the relation word, the asking phrase's head noun, a thing described, not named.

"The soundtrack of X was produced by a man born in what year?" asks through "born" (the relation),
has no head noun ("what year" names only the answer type) and describes "a man" it does not name
(the bridge: the year is his, not the film's). "Charles Andrews graduated from what college
preparatory boys' school?" asks through "graduated", and its head noun is "school". Rules and
spaCy's part-of-speech tagger (loaded once, about 3 ms a question); no model call.

``cued`` then asks of an evidence sentence whether it says what the question asks through: a name
said without "graduated" or "school" is said of something else.
"""

from __future__ import annotations

import os
import re
import threading
from functools import lru_cache

from engine.answerability.question import (HEAD_WORDS, QUESTION_WORDS, QuestionFocus, interrogative, noun_type,
                                           outside_subjects, wh_phrase)
from engine.fork_safe import Ahead
from engine.reflection.text import STOPWORDS, stem, verb_stem, words


def tagged(question: str):
    """``question`` tagged for part of speech (a spaCy Doc), once per question for the three readings below;
    waits for the tagging :func:`tag_ahead` started, if any."""
    ahead = _TAGGING.take(question)
    return ahead.result() if ahead is not None else _tagged(question)


def tag_ahead(question: str) -> None:
    """Start tagging ``question`` on a background thread. The pipeline calls this before retrieval, whose time
    is mostly spent waiting on the store, so the check finds the question tagged (about 3 ms a question)."""
    _TAGGING.start(question, _tagged, question)


@lru_cache(maxsize=256)
def _tagged(question: str):
    from engine.perception.entities import load_tagger

    with _TAGGER_LOCK:  # one shared pipeline per process, as for NER: calls are serialised
        return load_tagger()(question)


_TAGGER_LOCK = threading.Lock()
_TAGGING = Ahead("tag-ahead")


def _reset_after_fork() -> None:
    """In a forked child: the parent's tagging thread is gone, and it may have held the lock."""
    global _TAGGER_LOCK
    _TAGGER_LOCK = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_after_fork)


_RELATIVE = frozenset({"who", "whom", "whose", "that", "which", "where"})
_ASKS_WHAT_IT_IS = re.compile(r"^\W*(?:(?:what|which|who)\s+(?:is|was|are|were)(?:\s+the\s+names?\s+of)?|summari[sz]e|"
                              r"list|describe|name|give|show|explain)\s*$", re.IGNORECASE)
"""A description right after these is what is asked ("What is the name of the band founded by ..."), not a bridge."""
_COPULA = frozenset({"is", "was", "are", "were", "be", "been"})


def bridge_noun(question: str) -> str:
    """The noun of a thing the question describes instead of naming, when the answer is said of that thing.

    "The soundtrack of X was produced by a man born in what year?" asks the year of "a man" the question
    does not name; "the population of the city where X was born" the population of "the city". The
    description is a determiner, a noun and then a relative word or a past participle ("a network founded
    by", "a series that"), read with spaCy's tagger. A description that is itself what is asked
    ("What is an American company that designs ...?") is no bridge. Empty when there is none.
    """
    doc = list(tagged(question))
    for index, token in enumerate(doc):
        if token.lower_ not in ("a", "an", "the"):
            continue
        if _ASKS_WHAT_IT_IS.match(question[: token.idx]) or (index and doc[index - 1].lower_ in _COPULA):
            continue  # "X is a series that ...": a description of the named subject, not another thing
        head = ""
        for nxt in doc[index + 1: index + 1 + HEAD_WORDS]:
            common = nxt.pos_ == "NOUN" and nxt.text.islower() and nxt.lower_ not in _RELATIVE  # not a name
            if nxt.pos_ in ("ADJ", "NUM") or common:
                head = nxt.lower_ if nxt.pos_ == "NOUN" else head
                continue
            if head and (nxt.lower_ in _RELATIVE or nxt.tag_ == "VBN"):
                return head
            break
    return ""


_HEAD_RUN = frozenset({"ADJ", "NOUN", "PROPN", "NUM", "PART", "VERB"})
"""Parts of speech a "what/which" phrase runs through up to its head noun ("what recurring character",
"which Native American tribes", "what college preparatory boys' school")."""


def asked_head(question: str) -> str:
    """The head noun of the asking "what/which" phrase ("which Canadian actress" -> "actress").

    Read with spaCy's part-of-speech tagger: the phrase runs through adjectives and nouns and ends before
    the first verb after a noun ("What recurring character makes ..." -> "character"). Empty when the phrase
    names no kind of thing ("in what year" names only the answer type, "what for" nothing).
    """
    asking = interrogative(question)
    offset = len(question) - len(asking)
    doc = tagged(question)
    opener = next((t for t in doc if t.idx >= offset and t.lower_ in ("what", "which")), None)
    if opener is None:
        return ""
    head = ""
    for token in doc[opener.i + 1: opener.i + 1 + HEAD_WORDS + 1]:
        if token.pos_ not in _HEAD_RUN or (token.pos_ == "VERB" and head):
            break
        if token.pos_ == "NOUN":
            head = token.lower_
    return "" if not head or noun_type(head) == "date" else head


_TRAILING_WHO = re.compile(r"\b([A-Za-z]{3,})\s+(?:(?:by|to|with|for|from|of)\s+)?(?:who(?:m)?|when)\W*$",
                           re.IGNORECASE)
"""A question that asks "who" or "when" at its end asks through the word before it ("founded by who?",
"first developed when?")."""


def asked_relation(question: str) -> str:
    """The stem of the word a question asks through when it asks in place: "... produced by a man born in what
    year?" -> "born"; "X graduated from what school?" -> "graduat". Empty when the question opens with its
    wh-phrase ("What is ..."), where no one word carries the relation."""
    found = wh_phrase(question)
    trailing = _TRAILING_WHO.search(question)
    if trailing:  # "... is on a network founded by who?"
        return verb_stem(trailing.group(1).lower())
    if not found or len(question[: found[0]].split()) < 3:
        return _opening_relation(question)
    before = question[: found[0]]
    if re.search(r"[.?!;]\s", before):
        return ""
    for word in reversed(words(before)):
        if word not in STOPWORDS and word not in QUESTION_WORDS and len(word) >= 3 and word.isalpha():
            return verb_stem(word)
    return ""


def _opening_relation(question: str) -> str:
    """The verb a question that opens with its wh-word asks through: the verb right after "who" ("Who directed the
    film ...?" -> "direct"), or the verb that closes "In what year was the man ... born?" ("born").

    Read with spaCy's part-of-speech tagger; empty when neither stands there ("What is ...", "Who is ...").
    """
    doc = [t for t in tagged(question) if not t.is_punct]
    if len(doc) < 3:
        return ""
    if doc[0].lower_ in ("who", "whom") and doc[1].pos_ == "VERB":
        return verb_stem(doc[1].lower_)
    if doc[0].lower_ in ("what", "which", "when", "in", "where") and doc[-1].pos_ == "VERB" \
            and any(t.pos_ == "AUX" for t in doc[1:-1]) and doc[-1].lower_.isalpha():
        return verb_stem(doc[-1].lower_)
    return ""


def cued(sentence: str, focus: QuestionFocus) -> bool:
    """The sentence says what the question asks through, outside the subjects' names; True when it names nothing.

    A name (typed by NER) needs the relation word or the asking phrase's head noun ("graduated" or "school" for
    "X graduated from what college preparatory boys' school?"). A statement answering an untyped "which local
    tribe" needs the head noun itself: it is the only sign that the sentence names a tribe at all.
    """
    from engine.answerability.evaluator import fuzzy_in  # the same typo tolerance as every other word

    head = stem(focus.head) if focus.head else ""
    relation = "" if focus.answer_type == "other" and head else focus.relation
    if not head and not relation:
        return True
    return bool(head and fuzzy_in(head, said(sentence, focus))
                or relation and fuzzy_in(relation, said(sentence, focus, verbs=True)))


_TITLED = re.compile(r"[\"“][^\"“”]{1,120}[\"”]|(?<=[\w,;:)] )[A-Z][\w'’-]*")
"""Quoted titles and capitalised words within a sentence: "Born on the Fourth of July" says nothing of "born"."""


def said(sentence: str, focus: QuestionFocus, *, verbs: bool = False) -> set[str]:
    """Stems of what ``sentence`` says outside the subjects' names (irregular past forms read as their verb).

    ``verbs``: read as the relation a question asks through, so quoted titles and capitalised names do not count.
    """
    text = outside_subjects(sentence, focus.subjects)
    if verbs:
        text = _TITLED.sub(" ", text)
    return {verb_stem(w) for w in words(text)}
