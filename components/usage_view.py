"""The model calls of one answer: tokens and estimated cost per stage, beside the timing chart."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from engine.llm.usage import AskUsage, TokenUsage

STAGE_LABELS = {"draft": "draft", "review": "review", "revise": "revision"}


def cost_text(cost: float | None) -> str:
    """Dollars with enough digits for a fraction of a cent; "not priced" for a model without a price."""
    if cost is None:
        return "not priced"
    return f"${cost:,.4f}" if cost < 1 else f"${cost:,.2f}"


def usage_frame(usage: AskUsage) -> pd.DataFrame:
    """One row per stage with calls, input, cache read and write, output tokens and cost; a total row last."""
    def row(name: str, used: TokenUsage) -> dict:
        return {"stage": name, "calls": used.calls, "input": used.input_tokens, "cache read": used.cache_read_tokens,
                "cache write": used.cache_write_tokens, "output": used.output_tokens, "cost": cost_text(used.cost_usd),
                "models": ", ".join(used.models) or "–"}

    rows = [row(STAGE_LABELS.get(stage, stage), used) for stage, used in usage.stages.items()]
    return pd.DataFrame([*rows, row("total", usage.total)])


def render_usage(usage: AskUsage, provider: str = "") -> None:
    """Tokens and estimated cost per stage, with the date of the prices; zero with a note for offline answers."""
    st.markdown("**Model usage and cost**")
    if not usage.total.calls:
        st.caption(f"No model was called{f' ({provider})' if provider else ''}: tokens 0, cost $0.00.")
        return
    st.caption("Tokens each stage sent and received, and what they cost at list prices"
               f"{f' of {usage.prices_as_of}' if usage.prices_as_of else ''}. Cache read: input served from the "
               "prompt cache (billed at a tenth or less); cache write: input stored there for the next call "
               "(billed at 1.25x).")
    st.dataframe(usage_frame(usage), hide_index=True, width="stretch",
                 column_config={"stage": st.column_config.TextColumn("Stage", width="small")})
    total = usage.total
    st.caption(f"This answer: {total.calls} call(s), {total.tokens:,} tokens, {cost_text(total.cost_usd)}.")
