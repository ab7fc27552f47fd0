"""The headings in effect at each point of a Markdown text, so a chunk can carry the headings above it.

A chunk cut from the middle of a section loses the heading that says what it is about: the
"## Changed" entries of a changelog do not say which version they belong to once the
"## [0.11.0] - 2024-03-07" line falls into the previous chunk. ``headings_at`` gives the
heading lines in effect at an offset; the chunker puts those missing from a chunk at its top.

Nesting follows the heading levels, with one repair for a common shape: a heading whose own
section is empty, followed by same-level headings with text ("## [0.11.0]" / "## Added" /
"## Changed"), contains them (it is a group heading written at the wrong level).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

_HEADING = re.compile(r"^(#{1,6})[ \t].+$", re.MULTILINE)  # the whole line; no nested quantifiers, so linear


@dataclass(frozen=True)
class _Open:
    real: int
    level: float
    grouped: bool  # placed under an empty same-level heading
    line: str


class HeadingMap:
    """The heading path after each heading of a text."""

    def __init__(self, text: str) -> None:
        found = list(_HEADING.finditer(text))
        stack: list[_Open] = []
        self.starts: list[int] = []
        self.paths: list[tuple[str, ...]] = []
        for i, match in enumerate(found):
            real = len(match.group(1))
            before = text[found[i - 1].end(): match.start()].strip() if i else ""
            after = text[match.end(): found[i + 1].start() if i + 1 < len(found) else len(text)].strip()
            top = stack[-1] if stack else None
            if top is not None and top.real == real and i and not before and after:
                level, grouped = top.level + 0.5, True  # "## [0.11.0]" (empty) then "## Added"
            elif top is not None and top.real == real and top.grouped and after:
                level, grouped = top.level, True  # "## Changed" after "## Added", both under the version
            else:
                level, grouped = float(real), False
            while stack and stack[-1].level >= level:
                stack.pop()
            stack.append(_Open(real, level, grouped, match.group(0).strip()))
            self.starts.append(match.start())
            self.paths.append(tuple(o.line for o in stack if o.real > 1))  # a level-1 heading is the title

    def at(self, offset: int) -> tuple[str, ...]:
        """The heading lines (outermost first) in effect at ``offset``."""
        index = bisect.bisect_right(self.starts, offset) - 1
        return self.paths[index] if index >= 0 else ()
