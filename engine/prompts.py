"""Every prompt the engine sends to a model, as named templates in one place.

A template declares the variables it needs; rendering fails when one is missing
or unexpected, so a typo never reaches a model silently.
"""

from __future__ import annotations

import string
from dataclasses import dataclass

from engine.errors import EngineError


@dataclass(frozen=True)
class PromptTemplate:
    """A named ``str.format`` template with a declared set of variables."""

    name: str
    text: str
    variables: frozenset[str]

    def __post_init__(self) -> None:
        used = {f for _, f, _, _ in string.Formatter().parse(self.text) if f}
        if used != set(self.variables):
            raise ValueError(f"template {self.name!r} uses {sorted(used)} but declares {sorted(self.variables)}")

    def render(self, **values: object) -> str:
        missing = self.variables - values.keys()
        extra = values.keys() - self.variables
        if missing or extra:
            raise EngineError(
                f"Prompt {self.name!r} needs {sorted(self.variables)}; missing {sorted(missing)}, unexpected {sorted(extra)}."
            )
        return self.text.format(**values)


TEMPLATES: dict[str, PromptTemplate] = {}


def register(name: str, text: str, *variables: str) -> PromptTemplate:
    """Add a template to the registry (names are unique)."""
    if name in TEMPLATES:
        raise ValueError(f"duplicate prompt template {name!r}")
    template = PromptTemplate(name, text, frozenset(variables))
    TEMPLATES[name] = template
    return template


def get(name: str) -> PromptTemplate:
    try:
        return TEMPLATES[name]
    except KeyError:
        raise EngineError(f"Unknown prompt template {name!r}; known: {sorted(TEMPLATES)}.") from None


# --- templates -------------------------------------------------------------
# (each part of the engine adds its templates below, grouped by stage)
