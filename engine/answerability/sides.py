"""The sides of a question that asks one value of several things: "... of the A320 and B737 fleets".

"What was the mean brake life of the A320 and B737 fleets?" asks for two values, one per fleet:
a single figure said of both would be wrong for one of them. The sides are the question's
subjects joined by "and", "or", "vs" or "compared with" (each may carry a preposition and an
article: "on the A320 and on the B737"). The lead of an offline answer then states one value
per side, each from a sentence that names that side.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from engine.answerability.spans import label_distance

_JOIN = re.compile(r"^\s*,?\s*(?:and|or|vs\.?|versus|compared\s+(?:with|to)|with|to)\s+(?:(?:on|in|for|of|at)\s+)?"
                   r"(?:the\s+)?$", re.IGNORECASE)
"""What may stand between two sides: a conjunction, then a preposition and an article at most."""


def sides(question: str, subjects: Sequence[str]) -> tuple[tuple[str, ...], str]:
    """The joined subjects of ``question`` (two or more) and the stretch of text they span; else ((), "")."""
    lowered = question.lower()
    placed = sorted(((lowered.find(s.lower()), s) for s in subjects if lowered.find(s.lower()) >= 0))
    best: list[tuple[int, str]] = []
    run: list[tuple[int, str]] = []
    for at, subject in placed:
        if run and _JOIN.match(question[run[-1][0] + len(run[-1][1]): at]):
            run.append((at, subject))
        else:
            run = [(at, subject)]
        if len(run) > len(best):
            best = list(run)
    if len(best) < 2:
        return (), ""
    start, end = best[0][0], best[-1][0] + len(best[-1][1])
    return tuple(s for _, s in best), question[start:end]


def nearest_value(sentence: str, values: Sequence[str], side: str) -> str:
    """The value said of ``side`` in ``sentence``: the first one after its name, else the closest before."""
    lowered = sentence.lower()
    at = lowered.find(side.lower())
    if at < 0 or not values:
        return values[0] if values else ""

    def distance(value: str) -> int:
        where = sentence.find(value)
        return label_distance(where, at) if where >= 0 else 10 ** 6

    return min(values, key=distance)
