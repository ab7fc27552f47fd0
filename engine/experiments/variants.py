"""Experiment arms: a Variant is a named AskOptions, with presets for the usual A/B pairs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from engine.errors import EngineError
from engine.pipeline.options import AskOptions

VariantKind = Literal["reflection", "strategy", "mode"]
VARIANT_KINDS: tuple[str, ...] = ("reflection", "strategy", "mode")
ACTIVE_STRATEGY = "active"

_ON = {"on", "true", "yes", "1", "enabled"}
_OFF = {"off", "false", "no", "0", "disabled"}


class ExperimentError(EngineError):
    """An experiment cannot run or be loaded (no questions, bad variant, unknown id...)."""


@dataclass(frozen=True)
class Variant:
    """One arm of an experiment: a display name and the AskOptions every question runs with."""

    name: str
    options: AskOptions

    def __post_init__(self) -> None:
        if not self.name.strip():
            raise ExperimentError("A variant needs a name; pass e.g. 'reflection on'.")

    @classmethod
    def reflection(cls, on: bool, base: AskOptions | None = None) -> Variant:
        """Reflection (review loop) switched on or off."""
        options = (base or AskOptions()).model_copy(update={"reflection": bool(on)})
        return cls(f"reflection {'on' if on else 'off'}", options)

    @classmethod
    def strategy(cls, version: str | None, base: AskOptions | None = None) -> Variant:
        """A given strategy version; ``None`` or ``"active"`` means the active one at run time."""
        version = None if version in (None, "", ACTIVE_STRATEGY) else version
        options = (base or AskOptions()).model_copy(update={"strategy_version": version})
        return cls(f"strategy {version or ACTIVE_STRATEGY}", options)

    @classmethod
    def mode(cls, mode: str, base: AskOptions | None = None) -> Variant:
        """Dual-agent (separate reviewer) or single-agent (self-review) mode."""
        if mode not in ("dual", "single"):
            raise ExperimentError(f"Unknown mode {mode!r}; use 'dual' or 'single'.")
        options = (base or AskOptions()).model_copy(update={"mode": mode})
        return cls(f"{mode} mode", options)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "options": self.options.model_dump(mode="json")}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Variant:
        return cls(str(data["name"]), AskOptions.model_validate(data.get("options") or {}))


def parse_switch(value: str) -> bool:
    """'on'/'off' (also true/false, yes/no, 1/0) -> bool."""
    text = str(value).strip().lower()
    if text in _ON:
        return True
    if text in _OFF:
        return False
    raise ExperimentError(f"{value!r} is not on or off; use 'on' or 'off'.")


def variant_pair(kind: str, a: str | None = None, b: str | None = None,
                 base: AskOptions | None = None) -> tuple[Variant, Variant]:
    """Variants A and B for a preset kind.

    reflection: A=off, B=on unless given; mode: A=single, B=dual unless given;
    strategy: ``a`` and ``b`` are versions (or ``active``) and both are required.
    """
    if kind == "reflection":
        return (Variant.reflection(parse_switch(a) if a is not None else False, base),
                Variant.reflection(parse_switch(b) if b is not None else True, base))
    if kind == "mode":
        return Variant.mode(a or "single", base), Variant.mode(b or "dual", base)
    if kind == "strategy":
        if not a or not b:
            raise ExperimentError("A strategy experiment needs two versions: pass --a VERSION --b VERSION "
                                  "(or 'active'); list versions on the Strategy page.")
        return Variant.strategy(a, base), Variant.strategy(b, base)
    raise ExperimentError(f"Unknown variant kind {kind!r}; use one of {', '.join(VARIANT_KINDS)}.")
