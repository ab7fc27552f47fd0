"""Estimate what the sample questions cost on Claude, from the size of the requests the engine would send.

For each sample question (``engine.experiments.sample_questions``) the offline pipeline runs over the
sample corpus; its evidence and answer stand in for Claude's. The Claude requests are then built by
the real generator and reviewer (search-result blocks, the review prompt with its documents, the
structured-output schema) through a provider that only measures them. Tokens are estimated from
characters (``CHARS_PER_TOKEN``; no Claude tokenizer runs offline: count exactly with a key through
``client.messages.count_tokens``), and priced with ``engine/llm/prices.toml``.

Questions the offline answerability check refuses make no Claude call at all (that check runs before
drafting whatever the provider). Two cases are priced per answered question: accepted at the first
review (draft + review), and one revision (draft + review + revision + review), where the revision
reads the draft's cached prefix and the second review the first one's.

    .venv/bin/python bench/claude_cost_estimate.py [--data-dir DIR] [--limit N] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.llm.base import ChatResponse, TextBlock, Usage  # noqa: E402
from engine.llm.capabilities import CURRENT_CLAUDE  # noqa: E402
from engine.llm.pricing import default_prices  # noqa: E402

CHARS_PER_TOKEN = 3.2
"""English prose per token on the tokenizer of Claude 4.7 and later (about 4 characters per token on the older
one, which the Haiku 5.5 overview says counts about 30% fewer tokens for the same text). An estimate: within
about a quarter either way for this corpus; count exactly with a key."""
BLOCK_OVERHEAD = 12
"""Tokens a search_result block's structure (type, source, title, citations flag) is assumed to add."""
GENERATOR, REVIEWER = "claude-sonnet-5-5", "claude-haiku-5-5"


def tokens(text: str) -> int:
    return max(1, round(len(text) / CHARS_PER_TOKEN))


def content_tokens(content: Any) -> tuple[int, int]:
    """(tokens of the cached prefix, tokens after it) of a message content (string or blocks)."""
    if isinstance(content, str):
        return 0, tokens(content)
    prefix = rest = 0
    seen_breakpoint = False
    for block in content:
        if block["type"] == "search_result":
            size = BLOCK_OVERHEAD + tokens(block["title"] + block["source"]) + sum(
                tokens(part["text"]) for part in block["content"])
        else:
            size = tokens(block["text"])
        if seen_breakpoint:
            rest += size
        else:
            prefix += size
        seen_breakpoint = seen_breakpoint or bool(block.get("cache_control"))
    return (prefix, rest) if seen_breakpoint else (0, prefix)


class Measure:
    """A provider that answers with a prepared text and keeps each request's estimated size."""

    name = "anthropic"

    def __init__(self, reply: str) -> None:
        self.reply = reply
        self.requests: list[dict[str, int]] = []

    def capabilities(self, model: str | None = None):
        return CURRENT_CLAUDE

    def chat(self, messages, *, system=None, tools=(), tool_choice=None, max_tokens=1024, model=None,
             output_format=None) -> ChatResponse:
        prefix, rest = content_tokens(messages[-1]["content"])
        fixed = tokens(system or "") + (tokens(json.dumps(output_format)) if output_format else 0)
        self.requests.append({"cached_prefix": fixed + prefix if prefix else 0,
                              "input": rest + (0 if prefix else fixed), "output": tokens(self.reply)})
        return ChatResponse((TextBlock(self.reply),), "end_turn", Usage(), model or "")


def price(model: str, input_tokens: int, output: int, written: int = 0, read: int = 0, batch: bool = False) -> float:
    usage = Usage(input_tokens, output, cache_read_input_tokens=read, cache_creation_input_tokens=written,
                  service_tier="batch" if batch else "standard")
    return default_prices().cost(model, usage) or 0.0


def estimate(data_dir: Path, limit: int | None) -> dict[str, Any]:
    from engine.config import load_settings
    from engine.experiments import sample_questions
    from engine.pipeline import AskOptions, Pipeline
    from engine.reflection.llm import LLMGenerator, LLMReviewer

    pipeline = Pipeline(load_settings(data_dir=data_dir))
    rows = []
    for question in list(sample_questions().questions)[:limit]:
        answer = pipeline.run(question, AskOptions(provider="offline"))
        if not answer.draft or not answer.evidence:
            rows.append({"question": question, "drafted": False})
            continue
        review_json = json.dumps(answer.reviews[0].model_dump(mode="json")) if answer.reviews else "{}"
        generator, reviewer = Measure(answer.draft), Measure(review_json)
        LLMGenerator(generator, GENERATOR).draft(question, answer.evidence, answer.intent)
        LLMReviewer(reviewer, REVIEWER).review(question, answer.evidence, answer.draft)
        draft, review = generator.requests[0], reviewer.requests[0]
        first = {  # accepted at the first review: each prefix written once, never read again
            "draft": price(GENERATOR, draft["input"], draft["output"], written=draft["cached_prefix"]),
            "review": price(REVIEWER, review["input"], review["output"], written=review["cached_prefix"]),
        }
        uncached = (price(GENERATOR, draft["input"] + draft["cached_prefix"], draft["output"])
                    + price(REVIEWER, review["input"] + review["cached_prefix"], review["output"]))
        revised = first["draft"] + first["review"] + price(  # a revision and a second review read the prefixes
            GENERATOR, draft["input"] + tokens(review_json), draft["output"], read=draft["cached_prefix"]) + price(
            REVIEWER, review["input"], review["output"], read=review["cached_prefix"])
        revised_uncached = 2 * uncached + price(GENERATOR, tokens(review_json), 0)  # the revision also reads the review
        batch = (price(GENERATOR, draft["input"] + draft["cached_prefix"], draft["output"], batch=True)
                 + price(REVIEWER, review["input"] + review["cached_prefix"], review["output"], batch=True))
        rows.append({"question": question, "drafted": True, "evidence": len(answer.evidence),
                     "draft_tokens": draft, "review_tokens": review, "accepted_first": sum(first.values()),
                     "accepted_first_uncached": uncached, "one_revision": revised,
                     "one_revision_uncached": revised_uncached, "batch_accepted_first": batch})
    drafted = [r for r in rows if r["drafted"]]

    def mean(key: str, nested: str | None = None) -> float:
        values = [r[key][nested] if nested else r[key] for r in drafted]
        return statistics.fmean(values) if values else 0.0

    return {
        "questions": len(rows), "drafted": len(drafted), "chars_per_token": CHARS_PER_TOKEN,
        "prices_as_of": default_prices().as_of, "generator": GENERATOR, "reviewer": REVIEWER,
        "mean_draft_input": round(mean("draft_tokens", "input") + mean("draft_tokens", "cached_prefix")),
        "mean_draft_output": round(mean("draft_tokens", "output")),
        "mean_review_input": round(mean("review_tokens", "input") + mean("review_tokens", "cached_prefix")),
        "mean_review_output": round(mean("review_tokens", "output")),
        "mean_usd_accepted_first": round(mean("accepted_first"), 5),
        "mean_usd_accepted_first_uncached": round(mean("accepted_first_uncached"), 5),
        "mean_usd_one_revision": round(mean("one_revision"), 5),
        "mean_usd_one_revision_uncached": round(mean("one_revision_uncached"), 5),
        "mean_usd_batch_accepted_first": round(mean("batch_accepted_first"), 5),
        "total_usd_accepted_first": round(sum(r["accepted_first"] for r in drafted), 4),
        "total_usd_one_revision": round(sum(r["one_revision"] for r in drafted), 4),
        "rows": rows,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=None, help="a store holding the sample corpus (default: build one)")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="claude-cost-") as tmp:
        data = Path(args.data_dir) if args.data_dir else Path(tmp) / "data"
        if not args.data_dir or not data.exists():
            import contextlib
            import io

            from engine.cli import main as cli

            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                cli(["bootstrap", "--data-dir", str(data), "--json"])
        report = estimate(data, args.limit)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(json.dumps({k: v for k, v in report.items() if k != "rows"}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
