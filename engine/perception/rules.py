"""Load, check and compile the Perception rules file (``rules.toml``).

Every mistake in the file raises :class:`~engine.errors.ConfigError` naming the
key (and, where it can be found, the line) to fix.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args

from engine.errors import ConfigError
from engine.language.en.lex_attrs import COUNT_PATTERN
from engine.perception.dates import RESOLVERS
from engine.results import Action

DEFAULT_RULES_PATH = Path(__file__).with_name("rules.toml")
ACTIONS: frozenset[str] = frozenset(get_args(Action))
QUANT_KINDS = frozenset({"count", "amount", "percentage", "rate", "average", "min", "max"})
_MACRO = re.compile(r"\{\{(\w+)\}\}")
_FLAGS = re.IGNORECASE
_TOP_LEVEL = (
    "version", "macros", "actions", "time", "sources", "quantitative", "entities", "entities_filter", "followup",
)


@dataclass(frozen=True)
class ActionRule:
    action: str
    patterns: tuple[re.Pattern[str], ...]


@dataclass(frozen=True)
class TimeRule:
    name: str
    resolve: str
    pattern: re.Pattern[str]
    offset: int = 0


@dataclass(frozen=True)
class QuantRule:
    kind: str
    pattern: re.Pattern[str]


@dataclass(frozen=True)
class EntityRule:
    label: str
    pattern: re.Pattern[str]
    replace: tuple[tuple[re.Pattern[str], str], ...] = ()
    key_strip: re.Pattern[str] | None = None


@dataclass(frozen=True)
class FollowupRules:
    """When a question is a follow-up to the previous one (see ``[followup]`` in rules.toml)."""

    leads: tuple[re.Pattern[str], ...] = ()
    max_words: int = 0
    vague: frozenset[str] = frozenset()
    predicates: frozenset[str] = frozenset()
    references: frozenset[str] = frozenset()
    prepositions: frozenset[str] = frozenset()
    preposition: str = "for"


@dataclass(frozen=True)
class Rules:
    """The compiled contents of one rules file."""

    path: Path
    actions: tuple[ActionRule, ...]
    time: tuple[TimeRule, ...]
    sources: tuple[re.Pattern[str], ...]
    source_names: dict[str, str]  # lower-cased name or alias -> name to report
    quantitative: tuple[QuantRule, ...]
    entities: tuple[EntityRule, ...]
    drop_labels: frozenset[str]
    drop_texts: frozenset[str]
    followup: FollowupRules = FollowupRules()


class _Reader:
    """Walks the parsed TOML, turning every problem into a ConfigError with a location."""

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.lines = text.splitlines()

    def fail(self, where: str, message: str) -> ConfigError:
        line = self._locate(where)
        at = f"{where} (line {line})" if line else where
        return ConfigError(f"Rules file {self.path}: {at}: {message}. Fix it and reload the rules.")

    def _locate(self, where: str) -> int | None:
        """Best-effort line number for a key path such as ``time[3].pattern`` or ``macros.date``."""
        tokens = re.findall(r"[^.\[\]\s]+|\[\d+\]", where)
        names: list[str] = []
        header, rest = None, 0
        for i, token in enumerate(tokens):
            if token.startswith("["):
                continue
            names.append(token)
            has_index = i + 1 < len(tokens) and tokens[i + 1].startswith("[")
            index = int(tokens[i + 1][1:-1]) if has_index else 0
            dotted = re.escape(".".join(names))
            hits = [n for n, line in enumerate(self.lines) if re.match(rf"\s*\[\[?\s*{dotted}\s*\]\]?\s*(#.*)?$", line)]
            if hits:
                header, rest = hits[min(index, len(hits) - 1)], i + 1 + has_index
        key = next((t for t in tokens[rest:] if not t.startswith("[")), None)
        first = header + 1 if header is not None else 0
        if key is not None:
            for n in range(first, len(self.lines)):
                if n > first and header is not None and re.match(r"\s*\[", self.lines[n]):
                    break
                if re.match(rf"\s*[\"']?{re.escape(key)}[\"']?\s*=", self.lines[n]):
                    return n + 1
        return header + 1 if header is not None else None

    def get(
        self, table: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str, default: Any = ...
    ) -> Any:
        if key not in table:
            if default is ...:
                raise self.fail(where, f"missing key {key!r}")
            return default
        value = table[key]
        if not isinstance(value, kind) or isinstance(value, bool) and kind is int:
            expected = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
            path = key if where == "top level" else f"{where}.{key}"
            raise self.fail(path, f"expected {expected}, got {type(value).__name__}")
        return value

    def only(self, table: dict[str, Any], allowed: set[str], where: str) -> None:
        extra = sorted(set(table) - allowed)
        if extra:
            raise self.fail(where, f"unknown key {extra[0]!r} (allowed: {', '.join(sorted(allowed))})")

    def tables(self, data: dict[str, Any], key: str, prefix: str = "") -> list[dict[str, Any]]:
        """The array of tables ``[[prefix.key]]``; empty when absent."""
        value = self.get(data, key, list, prefix.rstrip(".") or "top level", [])
        for i, item in enumerate(value):
            if not isinstance(item, dict):
                got = type(item).__name__
                raise self.fail(f"{prefix}{key}[{i}]", f"expected a table ([[{prefix}{key}]]), got {got}")
        return value

    def compile(self, pattern: str, where: str, macros: dict[str, str]) -> re.Pattern[str]:
        expanded = expand_macros(pattern, macros, lambda msg: self.fail(where, msg))
        try:
            return re.compile(expanded, _FLAGS)
        except re.error as exc:
            raise self.fail(where, f"invalid regular expression ({exc})") from None


def expand_macros(pattern: str, macros: dict[str, str], fail: Any) -> str:
    """Replace ``{{name}}`` with the macro's text, recursively (at most 10 levels)."""
    for _ in range(10):
        names = _MACRO.findall(pattern)
        if not names:
            return pattern
        for name in names:
            if name not in macros:
                raise fail(f"unknown macro {{{{{name}}}}} (defined: {', '.join(sorted(macros))})")
        pattern = _MACRO.sub(lambda m: macros[m.group(1)], pattern)
    raise fail("macros nest more than 10 levels deep (a macro refers to itself?)")


def _alternation(names: list[str]) -> str:
    ordered = sorted(set(names), key=lambda n: (-len(n), n.lower()))
    return "(?:" + "|".join(re.escape(n).replace(r"\ ", r"\s+") for n in ordered) + ")" if ordered else "(?!)"


def load_rules(path: str | Path | None = None) -> Rules:
    """Read and compile a rules file; the packaged ``rules.toml`` when ``path`` is None."""
    path = Path(path).expanduser() if path is not None else DEFAULT_RULES_PATH
    try:
        text = path.read_text(encoding="utf-8")
    except (FileNotFoundError, IsADirectoryError):
        raise ConfigError(f"Rules file {path} not found; pass an existing rules.toml path.") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"Rules file {path} cannot be read ({exc}); check its permissions and encoding.") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"Rules file {path} is not valid TOML: {exc}. Fix that line and reload the rules.") from None
    return _build(_Reader(path, text), data)


def _build(r: _Reader, data: dict[str, Any]) -> Rules:
    r.only(data, set(_TOP_LEVEL), "top level")
    if r.get(data, "version", int, "top level", 1) != 1:
        raise r.fail("version", "only version = 1 is understood")

    raw_macros = r.get(data, "macros", dict, "top level", {})
    macros: dict[str, str] = {}
    for name, value in raw_macros.items():
        if not isinstance(value, str):
            raise r.fail(f"macros.{name}", f"expected a string, got {type(value).__name__}")
        macros[name] = value

    sources = r.get(data, "sources", dict, "top level", {})
    r.only(sources, {"documents", "organisations", "aliases", "patterns"}, "sources")
    documents = _strings(r, r.get(sources, "documents", list, "sources", []), "sources.documents")
    organisations = _strings(r, r.get(sources, "organisations", list, "sources", []), "sources.organisations")
    aliases = r.get(sources, "aliases", dict, "sources", {})
    for alias, short in aliases.items():
        if not isinstance(short, str) or not short.strip():
            raise r.fail(f"sources.aliases.{alias}", "expected a non-empty string (the short name to report)")
    macros.setdefault("document", _alternation(documents + list(aliases)))
    macros.setdefault("source", _alternation(documents + organisations + list(aliases)))
    macros.setdefault("number", COUNT_PATTERN)
    for name, value in list(macros.items()):  # check each macro expands on its own
        expand_macros(value, macros, lambda msg, n=name: r.fail(f"macros.{n}", msg))

    source_names = {n.lower(): n for n in documents + organisations}
    source_names.update({a.lower(): s for a, s in aliases.items()})
    source_patterns = []
    for i, table in enumerate(r.tables(sources, "patterns", "sources.")):
        where = f"sources.patterns[{i}]"
        r.only(table, {"pattern"}, where)
        compiled = r.compile(r.get(table, "pattern", str, where), f"{where}.pattern", macros)
        if "source" not in compiled.groupindex:
            raise r.fail(f"{where}.pattern", "needs a named group (?P<source>...)")
        source_patterns.append(compiled)

    return Rules(
        path=r.path,
        actions=_actions(r, data, macros),
        time=_time(r, data, macros),
        sources=tuple(source_patterns),
        source_names=source_names,
        quantitative=_quantitative(r, data, macros),
        entities=_entities(r, data, macros),
        drop_labels=frozenset(_strings(r, _filter(r, data).get("drop_labels", []), "entities_filter.drop_labels")),
        drop_texts=frozenset(
            t.lower() for t in _strings(r, _filter(r, data).get("drop_texts", []), "entities_filter.drop_texts")
        ),
        followup=_followup(r, data, macros),
    )


def _strings(r: _Reader, values: Any, where: str) -> list[str]:
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise r.fail(where, "expected a list of strings")
    return list(values)


def _filter(r: _Reader, data: dict[str, Any]) -> dict[str, Any]:
    table = r.get(data, "entities_filter", dict, "top level", {})
    r.only(table, {"drop_labels", "drop_texts"}, "entities_filter")
    return table


def _actions(r: _Reader, data: dict[str, Any], macros: dict[str, str]) -> tuple[ActionRule, ...]:
    rules = []
    for i, table in enumerate(r.tables(data, "actions")):
        where = f"actions[{i}]"
        r.only(table, {"action", "patterns"}, where)
        action = r.get(table, "action", str, where)
        if action not in ACTIONS:
            raise r.fail(f"{where}.action", f"unknown action {action!r} (use one of: {', '.join(sorted(ACTIONS))})")
        patterns = _strings(r, r.get(table, "patterns", list, where), f"{where}.patterns")
        if not patterns:
            raise r.fail(f"{where}.patterns", "needs at least one pattern")
        compiled = tuple(r.compile(p, f"{where}.patterns[{j}]", macros) for j, p in enumerate(patterns))
        rules.append(ActionRule(action, compiled))
    return tuple(rules)


def _time(r: _Reader, data: dict[str, Any], macros: dict[str, str]) -> tuple[TimeRule, ...]:
    rules = []
    for i, table in enumerate(r.tables(data, "time")):
        where = f"time[{i}]"
        r.only(table, {"name", "resolve", "pattern", "offset"}, where)
        name = r.get(table, "name", str, where, f"time{i}")
        resolve = r.get(table, "resolve", str, where)
        if resolve not in RESOLVERS:
            raise r.fail(f"{where}.resolve", f"unknown resolver {resolve!r} (use one of: {', '.join(RESOLVERS)})")
        pattern = r.compile(r.get(table, "pattern", str, where), f"{where}.pattern", macros)
        missing = [g for g in RESOLVERS[resolve] if g not in pattern.groupindex]
        if missing:
            groups = ", ".join(f"(?P<{g}>...)" for g in missing)
            raise r.fail(f"{where}.pattern", f"resolver {resolve!r} needs the named group(s) {groups}")
        offset = r.get(table, "offset", int, where, 0)
        if offset > 0:
            raise r.fail(f"{where}.offset", "must be 0 (this year/month) or negative (earlier ones)")
        rules.append(TimeRule(name, resolve, pattern, offset))
    return tuple(rules)


def _quantitative(r: _Reader, data: dict[str, Any], macros: dict[str, str]) -> tuple[QuantRule, ...]:
    rules = []
    for i, table in enumerate(r.tables(data, "quantitative")):
        where = f"quantitative[{i}]"
        r.only(table, {"kind", "pattern"}, where)
        kind = r.get(table, "kind", str, where)
        if kind not in QUANT_KINDS:
            raise r.fail(f"{where}.kind", f"unknown kind {kind!r} (use one of: {', '.join(sorted(QUANT_KINDS))})")
        rules.append(QuantRule(kind, r.compile(r.get(table, "pattern", str, where), f"{where}.pattern", macros)))
    return tuple(rules)


def _entities(r: _Reader, data: dict[str, Any], macros: dict[str, str]) -> tuple[EntityRule, ...]:
    rules = []
    for i, table in enumerate(r.tables(data, "entities")):
        where = f"entities[{i}]"
        r.only(table, {"label", "pattern", "replace", "key_strip"}, where)
        label = r.get(table, "label", str, where).strip()
        if not label:
            raise r.fail(f"{where}.label", "must not be empty")
        pattern = r.compile(r.get(table, "pattern", str, where), f"{where}.pattern", macros)
        replace = []
        for j, pair in enumerate(r.get(table, "replace", list, where, [])):
            if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(p, str) for p in pair)):
                raise r.fail(f"{where}.replace[{j}]", "expected a pair ['regex', 'replacement']")
            try:
                replace.append((re.compile(pair[0]), pair[1]))
            except re.error as exc:
                raise r.fail(f"{where}.replace[{j}]", f"invalid regular expression ({exc})") from None
        strip = r.get(table, "key_strip", str, where, None)
        try:
            key_strip = re.compile(strip) if strip else None
        except re.error as exc:
            raise r.fail(f"{where}.key_strip", f"invalid regular expression ({exc})") from None
        rules.append(EntityRule(label, pattern, tuple(replace), key_strip))
    return tuple(rules)


def _followup(r: _Reader, data: dict[str, Any], macros: dict[str, str]) -> FollowupRules:
    table = r.get(data, "followup", dict, "top level", {})
    keys = {"leads", "max_words", "vague", "predicates", "references", "prepositions", "preposition"}
    r.only(table, keys, "followup")
    leads = _strings(r, r.get(table, "leads", list, "followup", []), "followup.leads")
    max_words = r.get(table, "max_words", int, "followup", 0)
    if max_words < 0:
        raise r.fail("followup.max_words", "must be 0 (only questions with a lead) or more")

    def words(key: str) -> frozenset[str]:
        return frozenset(w.lower() for w in _strings(r, r.get(table, key, list, "followup", []), f"followup.{key}"))

    preposition = r.get(table, "preposition", str, "followup", "for").strip()
    if not preposition:
        raise r.fail("followup.preposition", "must not be empty")
    return FollowupRules(
        leads=tuple(r.compile(p, f"followup.leads[{i}]", macros) for i, p in enumerate(leads)),
        max_words=max_words, vague=words("vague"), predicates=words("predicates"),
        references=words("references"), prepositions=words("prepositions"), preposition=preposition,
    )
