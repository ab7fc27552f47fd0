"""Negation and absolute wording: what a statement denies, and the words that claim more than evidence may."""

from __future__ import annotations

import re

from engine.language.citations import strip_citations
from engine.language.en.stop_words import STOP_WORDS
from engine.language.tokens import WORD, stem

ABSOLUTE_WORDS = frozenset(
    ["always", "never", "guaranteed", "guarantees", "guarantee", "definitely", "certainly", "undoubtedly", "all",
     "impossible"])
"""Absolute wording that needs explicit support; flagged when the evidence does not use it, never rewritten."""
NEGATIONS = frozenset(["not", "no", "never", "cannot", "nor", "neither", "none", "nothing", "nobody", "nowhere",
                       "without", "forbidden", "prohibited", "banned", "unable", "fail", "fails", "failed", "lacks",
                       "lacked", "lacking"])
"""Words that negate what follows them (with every "n't" contraction: isn't, doesn't, won't, can't...);
"forbidden from eating" says what "not allowed to eat" says."""
_ABSOLUTE = re.compile(r"(?<![\w-])(" + "|".join(sorted(ABSOLUTE_WORDS, key=len, reverse=True)) + r")(?![\w-])",
                       re.IGNORECASE)
_IDIOMS = re.compile(r"\b(?:of all time|at all|after all|above all|all but|all of)\b", re.IGNORECASE)


def absolute_words(text: str) -> list[str]:
    """Absolute wording ("always", "never", "guaranteed", ...) found in ``text``."""
    body = _IDIOMS.sub(lambda m: "_" * len(m.group(0)), strip_citations(text))
    return [m.group(0) for m in _ABSOLUTE.finditer(body)]


_NEGATION_TOKEN = re.compile(rf"{WORD.pattern}|[,;:!?()\"“”]|(?<=\s)[-–—](?=\s)|\.(?=\s|$)")
_SCOPE_END = frozenset(["and", "or", "but", "while", "whereas", "although", "though", "because", "since", "unless",
                        "however", "so", "yet", "then", "which", "who", "when", "if"])
_BOUND = frozenset(["more", "less", "fewer", "later", "earlier", "greater", "higher", "lower", "longer", "shorter",
                    "sooner", "older", "younger", "only", "doubt"])  # "no more than 5", "not only": not a negation


def _is_negation(token: str) -> bool:
    return token in NEGATIONS or token.endswith(("n't", "n’t"))


def negations(text: str) -> list[str]:
    """The negation words of ``text`` in order ("not", "never", "doesn't", ...), bounds such as "no more than" excluded."""
    tokens = [t.lower() for t in _NEGATION_TOKEN.findall(strip_citations(text))]
    return [t for i, t in enumerate(tokens) if _is_negation(t) and not _bound(tokens, i)]


def _bound(tokens: list[str], i: int) -> bool:
    after = tokens[i + 1] if i + 1 < len(tokens) else ""
    return tokens[i] in ("no", "not") and (after in _BOUND or (after.isdigit() and tokens[i] == "no"))


def negated_words(text: str) -> frozenset[str]:
    """Stems of the content words said only under a negation: from the negation word to the end of its clause.

    "The part is not approved for the wing spar, but the bolt is" -> {"approv", "wing", "spar"}. A
    scope ends at punctuation, at a conjunction ("and", "but", "while", ...) or at the next negation
    word. A word the text also says outside any negation ("passing the ball ... the team without
    control of the ball") is not counted: the text is not negative about it as a whole.
    """
    tokens = [t.lower().strip(".'’/-") for t in _NEGATION_TOKEN.findall(strip_citations(text))]
    negated: set[str] = set()
    plain: set[str] = set()
    inside = False
    for i, token in enumerate(tokens):
        if _is_negation(token) and not _bound(tokens, i):
            inside = True
            continue
        if not token or not token[0].isalnum() or token in _SCOPE_END:
            inside = False
            continue
        if token not in STOP_WORDS and not any(ch.isdigit() for ch in token) and len(token) > 1:
            (negated if inside else plain).add(stem(token))
    return frozenset(negated - plain)


