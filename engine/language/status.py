"""What a sentence itself calls out of date: "Older cards that show 40 psi are out of date", "the withdrawn limit of
6,000 cycles", "The 2019 rate was superseded by 4.1 %".

A value said to be out of date is history, not an answer: a reader asked for a value (and not for an earlier one)
must not give a figure that its own sentence retires. The words that retire something are the ``status_words``
lexicon (en/status_words.txt, the words by which a document says it is no longer in force); what they retire is
read from spaCy's parse:
- a predicate ("X are out of date", "X was superseded by Y", "X is no longer valid"): the subject of the predicate's
  verb, with everything that hangs on it ("cards that show 40 psi"), but not the agent ("by Y") or the objects;
- a modifier ("the superseded limit of 6,000 cycles"): the noun it modifies, with what hangs on it.
A negated predicate ("X is not superseded") retires nothing. ``asks_former`` tells a question that asks for the
earlier value ("What was the previous limit?"), which such a sentence answers.
"""

from __future__ import annotations

import re
from functools import lru_cache

from engine.language import lexicons

_CLIMB = frozenset({"acomp", "attr", "prep", "pobj", "advmod", "xcomp", "oprd", "auxpass", "amod", "npadvmod"})
"""Dependencies by which a status phrase hangs on the verb it completes ("are" in "are out of date")."""
_SUBJECTS = frozenset({"nsubj", "nsubjpass", "csubj", "csubjpass"})
_NOUNS = frozenset({"NOUN", "PROPN", "NUM"})


@lru_cache(maxsize=1)
def _status() -> re.Pattern:
    return re.compile(lexicons.pattern("status_words"), re.IGNORECASE)


def retired_tokens(doc) -> frozenset[int]:
    """The indexes of the tokens of ``doc`` (a spaCy parse) that the sentence calls out of date."""
    out: set[int] = set()
    for match in _status().finditer(doc.text):
        span = doc.char_span(match.start(), match.end(), alignment_mode="expand")
        if span is None:
            continue
        root = span.root
        if root.dep_ in ("amod", "compound") and root.head.pos_ in _NOUNS and root.head.i not in range(span.start,
                                                                                                     span.end):
            out.update(t.i for t in root.head.subtree)  # "the superseded limit of 6,000 cycles"
            continue
        verb, steps = root, 0
        while verb.dep_ in _CLIMB and verb.head.i != verb.i and steps < 4:
            verb, steps = verb.head, steps + 1
        own = range(span.start, span.end)  # the "no" of "no longer valid" is the status, not its negation
        if any(child.dep_ == "neg" and child.i not in own for child in (*verb.children, *root.children)) \
                or any(t.lower_ == "not" for t in span):
            continue  # "is not superseded"
        for child in verb.children:
            if child.dep_ in _SUBJECTS:
                out.update(t.i for t in child.subtree)
    return frozenset(out)


def asks_former(lemmas: frozenset[str] | set[str]) -> bool:
    """True when a question's lemmas ask for an earlier or retired value ("previous", "old", "superseded")."""
    return bool(set(lemmas) & (lexicons.words("former_words") | lexicons.words("status_words")))
