"""Claude's own citations: evidence sent as ``search_result`` blocks, cited passages read back as [n].

For a model that cites search results itself (``ModelCapabilities.citations``), each evidence chunk
goes as one ``search_result`` block (source: document id and page; title; the chunk's sentences as
its text blocks, so a citation points at sentences, not at a whole chunk) with citations enabled.
The reply's text blocks carry ``search_result_location`` citations; :func:`cited_answer` turns them
into the answer text with [n] markers (n = the cited block's position + 1, the evidence number the
UI and validation use) and keeps each cited passage as a :class:`CitedSpan`, which validation checks
against its chunk (:func:`engine.validation.checks.check_cited_texts`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from engine.llm.base import ChatResponse, TextBlock
from engine.language.citations import CITATION
from engine.language.sentences import split_sentences
from engine.results import Evidence, Frozen

CACHE_BREAKPOINT = {"type": "ephemeral"}
_END = re.compile(r"([.!?]+)(\s*)$")


class CitedSpan(Frozen):
    """A passage the model cited for part of its answer.

    ``n`` is the evidence number ([n], 1-based); ``chunk_id`` is empty when n points at no evidence.
    ``cited_text`` is the passage as the API quotes it; ``statement`` the answer text it supports.
    """

    n: int
    chunk_id: str = ""
    cited_text: str
    statement: str = ""


def source_of(item: Evidence) -> str:
    """The search result's ``source``: the document id, with the page when known."""
    page = item.metadata.page
    return f"{item.doc_id} p.{page}" if page else item.doc_id


def passages(text: str) -> list[str]:
    """A chunk's sentences, the units a citation can point at (the whole text when it has none)."""
    found = [s for s in split_sentences(text) if s.strip()]
    return found or [text.strip() or "(empty)"]


def search_results(evidence: Sequence[Evidence], *, cache: bool = False) -> list[dict[str, Any]]:
    """One ``search_result`` block per evidence chunk, citations enabled, in evidence order.

    With ``cache`` the last block ends the cached prefix (system prompt and evidence).
    """
    blocks: list[dict[str, Any]] = []
    for item in evidence:
        blocks.append({
            "type": "search_result", "source": source_of(item),
            "title": (item.metadata.title or item.doc_id).strip()[:500],
            "content": [{"type": "text", "text": sentence} for sentence in passages(item.text)],
            "citations": {"enabled": True},
        })
    if cache and blocks:
        blocks[-1]["cache_control"] = dict(CACHE_BREAKPOINT)
    return blocks


def cited_answer(response: ChatResponse, evidence: Sequence[Evidence]) -> tuple[str, tuple[CitedSpan, ...]]:
    """The reply's text with an [n] marker after each cited part, and the cited passages.

    When the reply carries citations, markers the model typed itself are removed: the citations it
    attached are the ones that count. A reply without any is kept as written (validation then finds
    its statements uncited, or checks the markers it typed). A marker goes before the part's closing
    punctuation ("... 150 lbf.ft [2]."), as in answers written with typed markers.
    """
    if not response.citations:
        return response.text.strip(), ()
    parts: list[str] = []
    spans: list[CitedSpan] = []
    for block in response.content:
        if not isinstance(block, TextBlock):
            continue
        text = CITATION.sub("", block.text)
        numbers = list(dict.fromkeys(c.search_result_index + 1 for c in block.citations))
        for citation in block.citations:
            n = citation.search_result_index + 1
            chunk = evidence[n - 1].chunk_id if 1 <= n <= len(evidence) else ""
            spans.append(CitedSpan(n=n, chunk_id=chunk, cited_text=citation.cited_text,
                                   statement=" ".join(text.split())))
        parts.append(_marked(text, numbers) if numbers else text)
    answer = re.sub(r"[ \t]+([.!?,;:])", r"\1", "".join(parts))
    return re.sub(r"[ \t]{2,}", " ", answer).strip(), tuple(spans)


def _marked(text: str, numbers: list[int]) -> str:
    """``text`` with "[n]" markers before the closing punctuation of each of its sentences (or at its end).

    A cited part that runs over several sentences marks each, so every statement carries its citation.
    """
    markers = "".join(f"[{n}]" for n in numbers)
    body = text.strip()
    lead, tail = text[:len(text) - len(text.lstrip())], text[len(text.rstrip()):]
    sentences = split_sentences(body) or [body]
    return lead + " ".join(_before_end(sentence, markers) for sentence in sentences) + tail


def _before_end(sentence: str, markers: str) -> str:
    end = _END.search(sentence)
    if end:
        return f"{sentence[:end.start()].rstrip()} {markers}{end.group(1)}"
    return f"{sentence} {markers}"
