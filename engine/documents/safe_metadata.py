"""Load a metadata mapping (sidecar YAML/JSON or front matter) without letting it cost more than it says.

YAML aliases are refused (a few hundred bytes of them expand to gigabytes: the "billion laughs"),
dates stay text until ``metadata.parse_date`` checks them (so ``2024-02-30`` is a clear error, not a
crash inside the YAML library), and size, nesting and value length are capped by ``ParseLimits``.
"""

from __future__ import annotations

import json
from typing import Any, Literal

import yaml

from engine.documents.limits import DEFAULT_LIMITS, ParseLimits, metadata_depth
from engine.errors import DocumentError

_TIMESTAMP = "tag:yaml.org,2002:timestamp"


class AliasRefused(yaml.composer.ComposerError):
    """A YAML alias (``*name``) in metadata."""


class MetadataLoader(yaml.SafeLoader):
    """yaml.SafeLoader that refuses aliases and leaves timestamps as strings."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise AliasRefused(None, None, f"*{event.anchor}", event.start_mark)
        return super().compose_node(parent, index)


MetadataLoader.yaml_implicit_resolvers = {
    first: [(tag, pattern) for tag, pattern in resolvers if tag != _TIMESTAMP]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
MetadataLoader.add_constructor(_TIMESTAMP, yaml.SafeLoader.construct_yaml_str)


def _leaf_chars(value: Any) -> int:
    """Characters of all the scalars in ``value`` (bounded by the depth check that runs first)."""
    if isinstance(value, dict):
        return sum(len(str(k)) + _leaf_chars(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return sum(_leaf_chars(v) for v in value)
    return len(str(value)) if value is not None else 0


def check_metadata_size(size: int, where: str, limits: ParseLimits = DEFAULT_LIMITS) -> None:
    """DocumentError when metadata of ``size`` bytes is over ``limits.max_metadata_bytes``."""
    if size > limits.max_metadata_bytes:
        raise DocumentError(f"{where} is {size / 1024:,.0f} KB, over the {limits.max_metadata_bytes // 1024} KB limit "
                            "for metadata; metadata is a few 'key: value' lines, move long text into the document.")


def load_metadata(text: str, syntax: Literal["yaml", "json"], where: str,
                  limits: ParseLimits = DEFAULT_LIMITS) -> dict[str, Any]:
    """The mapping in ``text``; DocumentError naming ``where`` (e.g. "Sidecar a.meta.yaml") when it is not one,
    or when it is over a limit."""
    check_metadata_size(len(text.encode("utf-8", "surrogatepass")), where, limits)
    try:
        data = json.loads(text) if syntax == "json" else yaml.load(text, Loader=MetadataLoader)  # noqa: S506
    except RecursionError:
        raise DocumentError(f"{where} is nested too deeply to read; metadata is flat 'key: value' pairs.") from None
    except AliasRefused as exc:
        raise DocumentError(
            f"{where} uses the YAML alias {exc.problem[:40]} at line {exc.problem_mark.line + 1}; aliases are not "
            "allowed in metadata (a few of them can expand to gigabytes). Write the values out.") from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        place = f" at line {mark.line + 1}" if mark is not None else ""
        raise DocumentError(f"{where} is not valid YAML{place}: {exc.problem}. Fix it and retry.") from None
    except (yaml.YAMLError, json.JSONDecodeError, ValueError, OverflowError, TypeError) as exc:
        raise DocumentError(f"{where} is not valid {syntax.upper()}: {str(exc)[:200]}. Fix it and retry.") from None
    if data is None and syntax == "yaml":
        data = {}
    if not isinstance(data, dict):
        raise DocumentError(f"{where} must hold a mapping of metadata keys (key: value lines), e.g. 'authority: 4'.")
    depth = metadata_depth(data)
    if depth > limits.max_metadata_depth:
        raise DocumentError(f"{where} nests lists or mappings {depth} deep, over the limit of "
                            f"{limits.max_metadata_depth}; metadata is flat 'key: value' pairs.")
    for key, value in data.items():
        chars = len(str(key)) + _leaf_chars(value)
        if chars > limits.max_metadata_chars:
            raise DocumentError(
                f"{where}: {str(key)[:40]!r} holds {chars:,} characters, over the {limits.max_metadata_chars:,} "
                "limit for one metadata value (WORKBENCH_MAX_METADATA_CHARS); shorten it.")
    return data
