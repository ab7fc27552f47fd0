"""Unit conversion (pint) for the agent and its offline planner, over the unit spellings documents use.

A unit as written in a document ("N.m", "Nm", "lbf.ft", "ft-lb", "psi") is first brought to its canonical
spelling by the language toolkit (``engine/language/en/units.toml``), then named for pint by
``pint_units.toml`` beside this module; anything else is handed to pint as written ("kN*m", "bar").
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from engine.errors import UnitError
from engine.language.citations import strip_citations
from engine.language.quantities import canonical_unit, located_figures

NAMES_FILE = Path(__file__).with_name("pint_units.toml")


@lru_cache(maxsize=1)
def _registry():
    import pint

    return pint.UnitRegistry()


def warm() -> None:
    """Load pint's unit registry now (a second or more, once per process) rather than in the first answer that
    states a figure with its equivalent."""
    _registry()


@lru_cache(maxsize=1)
def _names() -> dict[str, str]:
    return dict(tomllib.loads(NAMES_FILE.read_text(encoding="utf-8"))["units"])


def pint_unit(unit: str):
    """The pint unit for ``unit`` as a document or a person writes it; UnitError when pint does not know it."""
    text = " ".join(str(unit).split())
    name = _names().get(canonical_unit(text), text)
    try:
        return _registry().Unit(name)
    except Exception:  # noqa: BLE001 - pint raises several error types for a name it cannot parse
        raise UnitError(f"{unit!r} is not a unit I can convert; write it as e.g. 'N.m', 'lbf.ft', 'psi', 'kg'.") \
            from None


def convertible(unit: str, to_unit: str) -> bool:
    """Whether a value in ``unit`` can be converted to ``to_unit`` (same dimension)."""
    try:
        return pint_unit(unit).dimensionality == pint_unit(to_unit).dimensionality
    except UnitError:
        return False


@dataclass(frozen=True)
class Conversion:
    """``value`` ``from_unit`` is ``result`` ``to_unit`` (rounded to 4 significant digits in ``text``)."""

    value: float
    from_unit: str
    result: float
    to_unit: str

    @property
    def text(self) -> str:
        return f"{self.value:g} {self.from_unit} = {self.result:.4g} {self.to_unit}"

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "from_unit": self.from_unit, "result": self.result, "to_unit": self.to_unit,
                "text": self.text}


def convert(value: float, from_unit: str, to_unit: str) -> Conversion:
    """``value`` in ``from_unit`` expressed in ``to_unit``; UnitError when the units differ in kind."""
    source, target = pint_unit(from_unit), pint_unit(to_unit)
    if source.dimensionality != target.dimensionality:
        raise UnitError(f"Cannot convert {from_unit} to {to_unit}: they measure different things "
                        f"({source.dimensionality} and {target.dimensionality}).")
    result = _registry().Quantity(float(value), source).to(target).magnitude  # offsets (°C to °F) included
    return Conversion(float(value), from_unit, float(result), to_unit)


EQUIVALENT_WITHIN = 0.02
"""How close (relative) a converted figure must come to the figure beside it for the two to be one quantity."""


@lru_cache(maxsize=1024)
def with_equivalent(sentence: str, value: str) -> str:
    """``value`` stated with the equivalent its sentence gives right beside it, in the order written: "325 N.m (240
    lbf.ft)" whether ``value`` is the first figure or the second, so an answer never gives a conversion alone. Two
    figures are one quantity when nothing but a bracket separates them and the first, converted to the second's
    unit, comes within 2 % of it (a table's metric and imperial columns, or "325 N.m (240 lbf.ft)")."""
    clean = strip_citations(sentence)
    found = [(at, figure) for at, figure in located_figures(sentence) if figure.unit]
    for (first_at, first), (then_at, then) in zip(found, found[1:]):
        if value.strip() not in (first.text, then.text) or canonical_unit(first.unit) == canonical_unit(then.unit):
            continue
        between = clean[first_at + len(first.text): then_at].strip()
        if between not in ("", "(") or not convertible(first.unit, then.unit):
            continue
        result = convert(first.value, first.unit, then.unit).result  # convertible: same kind, both known to pint
        if abs(result - then.value) <= EQUIVALENT_WITHIN * max(abs(then.value), 1e-9):
            return f"{first.text} ({then.text})"
    return value
