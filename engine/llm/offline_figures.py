"""The figure a "convert it to ..." step converts, taken from the previous step's result (offline planner).

After "find the A320 axle nut torque and convert it to lbf.ft", the conversion needs one number with a unit
from what the search found. Candidates are the figures, in the passages or the answer, whose unit converts
to the unit asked for (engine/units.py). The one converted comes from the most authoritative source; among
equal sources, the sentence sharing most words with the search, then the newest document, then the
best-ranked passage. The result names the figure and its source, so the person sees what was converted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from engine.language.quantities import located_figures
from engine.language.sentences import split_sentences
from engine.language.tokens import STOP_WORDS, words
from engine.units import convertible

DEFAULT_AUTHORITY = 3
"""A source that states no authority ranks in the middle of the 1-5 scale (as in retrieval's credibility)."""


@dataclass(frozen=True)
class Found:
    """A figure to convert: its value, unit and text as written, and where it came from (its label and source)."""

    value: float
    unit: str
    text: str
    source: str


def _content(text: str) -> set[str]:
    return {w for w in words(text) if w not in STOP_WORDS}


def _candidates(text: str, to_unit: str, asked: set[str]) -> list[tuple[int, str, Any]]:
    """(words its label shares with the request, label, figure) for each convertible figure in ``text``. A
    figure's label is the text before it, back to the previous figure or the start of its sentence ("Final
    torque: ... torque the axle nut to" for "325 N.m"), so two figures of one sentence are told apart."""
    found = []
    for sentence in split_sentences(text or ""):
        start = 0
        for at, figure in located_figures(sentence):
            label = " ".join(sentence[start:at].split()).strip(" -:;,(")
            start = at + len(figure.text)
            if figure.unit and convertible(figure.unit, to_unit):
                found.append((len(asked & _content(label)), label, figure))
    return found


def _labelled(figure: Any, label: str, source: str) -> str:
    short = label if len(label) <= 80 else "…" + label[-79:]
    return f"{figure.text} ({short}) in {source}" if short else f"{figure.text} in {source}"


def figure_to_convert(tool: str, result: dict[str, Any], to_unit: str, request: str) -> Found | None:
    """The figure in ``result`` (of ``tool``) to convert to ``to_unit``; None when it holds none."""
    asked = _content(request)
    ranked: list[tuple[tuple, Found]] = []
    if tool == "search_knowledge_base":
        for rank, hit in enumerate(result.get("results") or []):
            source = f"{hit.get('title')} ({hit.get('doc_id')}, {hit.get('update_date')})"
            for shared, label, figure in _candidates(str(hit.get("text") or ""), to_unit, asked):
                key = (-int(hit.get("authority") or DEFAULT_AUTHORITY), -shared,
                       _newest_first(hit.get("update_date")), rank)
                ranked.append((key, Found(figure.value, _written_unit(figure), figure.text,
                                          _labelled(figure, label, source))))
    elif tool == "answer_with_review" and result.get("status") == "success":
        cites = result.get("citations") or []
        source = f"the reviewed answer, citing {cites[0].get('title')}" if cites else "the reviewed answer"
        for n, (shared, label, figure) in enumerate(_candidates(str(result.get("final") or ""), to_unit, asked)):
            ranked.append(((0, -shared, "", n), Found(figure.value, _written_unit(figure), figure.text,
                                                      _labelled(figure, label, source))))
    elif tool == "compare_values":
        for n, item in enumerate(result.get("values") or []):
            for figure in (item.get("figures") or [])[:1]:
                if figure.get("unit") and convertible(str(figure["unit"]), to_unit):
                    ranked.append(((0, 0, "", n), Found(float(figure["value"]), str(figure["unit"]),
                                                        str(figure.get("text")), str(figure.get("title")))))
    elif tool == "convert_units" and convertible(str(result.get("to_unit") or ""), to_unit):
        ranked.append(((0, 0, "", 0), Found(float(result["result"]), str(result["to_unit"]),
                                            f"{result['result']:.4g} {result['to_unit']}", "the previous conversion")))
    return min(ranked, key=lambda pair: pair[0])[1] if ranked else None


def _written_unit(figure: Any) -> str:
    """The figure's unit as the document writes it ("N.m"), not its lower-cased form."""
    return re.sub(r"^[-+\d.,\s]+", "", figure.text) or figure.unit


def _newest_first(update_date: Any) -> str:
    """A sort key that puts later ISO dates first (an unknown date last)."""
    text = str(update_date or "")
    if not text[:4].isdigit():
        return "~"
    return "".join(chr(ord("9") - int(c) + ord("0")) if c.isdigit() else c for c in text)
