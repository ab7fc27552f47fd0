"""A line at the top of a page that says what is still loading in the background, updated every second."""

from __future__ import annotations

import streamlit as st

from components.factories import get_warmup


@st.fragment(run_every=1.0)
def _loading_line() -> None:
    warmup = get_warmup()
    if warmup.done and not any(s.status == "failed" for s in warmup.states()):
        st.rerun()  # one full rerun draws the page without this line, which stops the timer
    states = warmup.states()
    busy = [s for s in states if s.status in ("pending", "loading")]
    failed = [s for s in states if s.status == "failed"]
    for state in failed:
        st.caption(f":material/error: Loading the {state.name} failed: {state.error}")
    if busy:
        ready = ", ".join(f"{s.name} ({s.seconds:.1f} s)" for s in states if s.status == "ready")
        st.caption(f":material/hourglass_top: Loading in the background: {', '.join(s.name for s in busy)}. "
                   "The first question waits for it." + (f" Ready: {ready}." if ready else ""))


def loading_status() -> None:
    """Show what is still loading; shows nothing once everything is ready."""
    if not get_warmup().done:
        _loading_line()
