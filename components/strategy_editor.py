"""The Strategy editor: widgets for every tunable field, kept in session state, turned back into a Strategy.

The editor is loaded from one stored version (``load_into_editor``); the widgets then hold the draft.
``build_strategy`` validates the draft with the engine's own model and returns readable problems.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd
import streamlit as st
from pydantic import ValidationError

from engine.orchestration import Strategy
from engine.orchestration.strategy import MAX_CREDIBILITY_BAND

BASE_KEY = "strategy.base"  # {"version": str, "strategy": Strategy}: what the draft was loaded from
NONCE_KEY = "strategy.routes_nonce"
DRAFT_KEY = "strategy.draft"  # the last draft, kept outside widget state
SEARCH_TYPES = ("vector", "keyword", "hybrid")
CONSTRAINTS = {
    "time": "Time rule (dated keyword search)",
    "quantitative": "Quantity rule (figures)",
    "entity": "Entity fan-out",
    "source": "Source constraint",
}
CREDIBILITY = ("w_task", "w_authority", "w_recency")
INT_FIELDS = ("top_k", "entity_fanout_limit", "max_evidence", "context_chars", "rrf_k", "follow_links")
GRAPH_FLOATS = ("weight", "damping")
GRAPH_INTS = ("top_k", "seed_hits")
K = "strategy."  # widget key prefix


def load_into_editor(version: str, strategy: Strategy) -> None:
    """Put ``strategy`` into the editor's widgets (call before they render, or from a callback)."""
    st.session_state[BASE_KEY] = {"version": version, "strategy": strategy}
    _set_widgets(strategy.model_dump(mode="json"))


def restore_draft() -> None:
    """Refill the widgets from the last draft (Streamlit drops widget state while another page is shown)."""
    ss = st.session_state
    _set_widgets(ss.get(DRAFT_KEY) or ss[BASE_KEY]["strategy"].model_dump(mode="json"))


def _set_widgets(values: dict[str, Any]) -> None:
    ss = st.session_state
    ss[K + "name"] = values["name"]
    ss[K + "description"] = values["description"]
    ss[K + "base_type"] = values["base_search_type"]
    for t in SEARCH_TYPES:
        ss[K + f"w.{t}"] = float(values["search_weights"][t])
    for c in CONSTRAINTS:
        ss[K + f"c.{c}"] = float(values["constraint_weights"][c])
    ss[K + "defaults"] = list(values["default_knowledge_bases"])
    ss[K + "regulations_kb"] = values["regulations_kb"]
    for field in INT_FIELDS:
        ss[K + field] = int(values[field])
    graph = values.get("graph") or Strategy().graph.model_dump()
    for field in GRAPH_FLOATS:
        ss[K + f"graph.{field}"] = float(graph[field])
    for field in GRAPH_INTS:
        ss[K + f"graph.{field}"] = int(graph[field])
    ss[K + "graph.rerank"] = bool(graph.get("rerank", False))
    ss[K + "graph.synonyms"] = bool(graph.get("synonyms", False))
    cred = values["credibility"]
    for field in (*CREDIBILITY, "unknown_date_recency", "credibility_band"):
        ss[K + f"cred.{field}"] = float(cred[field])
    ss[K + "cred.half_life_days"] = int(cred["half_life_days"])
    rows = [{"pattern": r["pattern"], "knowledge_bases": list(r["knowledge_bases"]), "exclusive": bool(r["exclusive"])}
            for r in values["routes"]]
    ss[K + "routes_df"] = pd.DataFrame(rows, columns=["pattern", "knowledge_bases", "exclusive"])
    ss.pop(f"{K}routes.{ss.get(NONCE_KEY, 0)}", None)
    ss[NONCE_KEY] = ss.get(NONCE_KEY, 0) + 1  # a fresh data_editor, so old cell edits do not linger


def normalise_credibility() -> None:
    """Scale w_task, w_authority and w_recency so they sum to 1 (a button callback)."""
    ss = st.session_state
    values = [float(ss[K + f"cred.{f}"]) for f in CREDIBILITY]
    total = sum(values)
    if total <= 0:
        values, total = [1.0, 1.0, 1.0], 3.0
    scaled = [round(v / total, 3) for v in values[:2]]
    scaled.append(round(1.0 - sum(scaled), 3))
    for field, value in zip(CREDIBILITY, scaled):
        ss[K + f"cred.{field}"] = value
    ss[K + "normalised_note"] = (f"Normalised the credibility weights (their sum was {total:.3f}): "
                                 + ", ".join(f"{f} = {v:.3f}" for f, v in zip(CREDIBILITY, scaled)) + ".")


def _weights_section() -> None:
    st.markdown("**Search types**")
    st.caption("Weight of each search type when results are fused (0 switches a type off). "
               "The base type runs on every routed knowledge base.")
    st.selectbox("Base search type", SEARCH_TYPES, key=K + "base_type")
    cols = st.columns(3)
    for col, t in zip(cols, SEARCH_TYPES):
        col.slider(f"{t} weight", 0.0, 5.0, step=0.05, key=K + f"w.{t}")
    st.markdown("**Constraint rules**")
    st.caption("Multipliers for the extra tasks a rule adds when the question has that constraint.")
    cols = st.columns(4)
    for col, (c, label) in zip(cols, CONSTRAINTS.items()):
        col.slider(label, 0.0, 5.0, step=0.05, key=K + f"c.{c}")


def _routing_section(kb_names: Sequence[str]) -> pd.DataFrame:
    ss = st.session_state
    st.markdown("**Knowledge-base routing**")
    st.caption("Rules are tried in order: the first whose pattern (a case-insensitive regular expression) matches "
               "the question's source constraint, or else the question, searches its bases first. "
               "Exclusive: search only those bases. Add or delete rows freely.")
    base = ss[BASE_KEY]["strategy"]
    known = sorted({*kb_names, *(kb for r in base.routes for kb in r.knowledge_bases)})
    edited = st.data_editor(
        ss[K + "routes_df"], key=f"{K}routes.{ss[NONCE_KEY]}", num_rows="dynamic", hide_index=True,
        width="stretch",
        column_config={
            "pattern": st.column_config.TextColumn("pattern", width="large", required=True),
            "knowledge_bases": st.column_config.MultiselectColumn(
                "knowledge bases", options=known, accept_new_options=True, width="medium"),
            "exclusive": st.column_config.CheckboxColumn("exclusive", default=False),
        },
    )
    options = sorted({*kb_names, *ss[K + "defaults"]})
    st.multiselect("Default knowledge bases", options, key=K + "defaults", placeholder="every knowledge base",
                   help="Searched, in this order, when no rule matches. Empty means every base.")
    reg_options = sorted({*kb_names, ss[K + "regulations_kb"]})
    st.selectbox("Base for dated (time-rule) searches", reg_options, key=K + "regulations_kb")
    return edited


def _limits_section() -> None:
    st.markdown("**Limits**")
    c1, c2, c3 = st.columns(3)
    c1.number_input("top_k (hits per task)", 1, 100, step=1, key=K + "top_k")
    c2.slider("Entity fan-out limit", 0, 10, key=K + "entity_fanout_limit",
              help="At most this many entities get their own search task (0: none).")
    c3.number_input("Max evidence chunks", 1, 50, step=1, key=K + "max_evidence")
    c4, c5 = st.columns(2)
    c4.number_input("Context budget (characters)", 500, 100_000, step=500, key=K + "context_chars")
    c5.number_input("RRF k (fusion smoothing)", 1, 1000, step=1, key=K + "rrf_k")
    st.number_input("Linked documents (one hop)", 0, 10, step=1, key=K + "follow_links",
                    help="Add up to this many documents that the best evidence names by title; 0: off.")
    st.markdown("**Entity graph**")
    st.caption("A graph task per base walks from the question's names and the best passages of the other searches "
               "to the passages that mention the same names (the second passage of a two-step question), and is "
               "fused like the other tasks. The evidence it adds says through which name it came.")
    g1, g2, g3, g4 = st.columns(4)
    g1.number_input("Graph weight", 0.0, 5.0, step=0.1, key=K + "graph.weight", help="0 turns the graph task off.")
    g2.number_input("Graph passages (k)", 1, 100, step=1, key=K + "graph.top_k")
    g3.number_input("Damping", 0.05, 0.95, step=0.05, format="%.2f", key=K + "graph.damping",
                    help="Share of the walk's mass that moves on at each step; higher reaches further.")
    g4.number_input("Seed passages", 0, 20, step=1, key=K + "graph.seed_hits",
                    help="Best passages of the base's other searches that the walk starts from.")
    st.checkbox("Let the graph reorder what the searches found", key=K + "graph.rerank",
                help="On (the default): the walk's ranking also moves the searched passages (better recall on "
                     "multi-hop questions). Off: the walk only adds passages no search found, each placed after the "
                     "passage that names it.")
    st.checkbox("Join names written differently", key=K + "graph.synonyms",
                help="Also walk from a name to the names whose vectors are close ('Obama' and 'Barack Obama'); codes "
                     "such as 'A320' are never joined. Needs bases ingested with WORKBENCH_GRAPH_SYNONYMS on. Off by "
                     "default: on the evaluation sets it moved recall by at most one passage either way.")


def _credibility_section() -> None:
    ss = st.session_state
    st.markdown("**Credibility formula**")
    st.caption("credibility = task weight × w_task + authority × w_authority + recency × w_recency (the three "
               "weights sum to 1); final score = relevance × (1 + band × (2 × credibility − 1)). Default authority "
               "and an unknown date are neutral.")
    cols = st.columns(3)
    for col, field in zip(cols, CREDIBILITY):
        col.number_input(field, 0.0, 1.0, step=0.05, format="%.3f", key=K + f"cred.{field}")
    total = sum(float(ss[K + f"cred.{f}"]) for f in CREDIBILITY)
    note = ss.pop(K + "normalised_note", None)
    if note:
        st.info(note)
    if abs(total - 1.0) > 1e-6:
        st.error(f"w_task + w_authority + w_recency = {total:.3f}, but they must sum to 1. "
                 "Adjust them, or press Normalise to scale them proportionally.")
        st.button("Normalise", key=K + "normalise", on_click=normalise_credibility)
    c1, c2, c3 = st.columns(3)
    c1.number_input("Recency half-life (days)", 1, 36500, step=30, key=K + "cred.half_life_days")
    c2.number_input("Recency of undated documents", 0.0, 1.0, step=0.05, key=K + "cred.unknown_date_recency",
                    help="0.5 is neutral: an unknown date is treated as neither new nor old.")
    c3.number_input("Credibility band", 0.0, MAX_CREDIBILITY_BAND, step=0.01, format="%.2f",
                    key=K + "cred.credibility_band",
                    help="Largest share of its relevance that credibility can add or remove (0.05: ±5 %). "
                         "Relevance decides the order; credibility only reorders near-ties. 0: relevance alone.")


def render_editor(kb_names: Sequence[str]) -> dict[str, Any]:
    """Render every editor widget; return the draft as a dict shaped like ``Strategy``."""
    ss = st.session_state
    c1, c2 = st.columns([1, 2])
    c1.text_input("Strategy name", key=K + "name")
    c2.text_input("Description", key=K + "description")
    weights, routing = st.tabs(["Weights", "Routing and limits"])
    with weights:
        _weights_section()
        _credibility_section()
    with routing:
        routes = _routing_section(kb_names)
        _limits_section()
    values = draft_values(routes)
    ss[DRAFT_KEY] = values
    return values


def _as_list(value: Any) -> list[str]:
    if value is None or (isinstance(value, float) and pd.isna(value)):
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    return [str(v).strip() for v in list(value) if str(v).strip()]


def draft_values(routes: pd.DataFrame) -> dict[str, Any]:
    """The draft in the editor's session state, as Strategy fields."""
    ss = st.session_state
    rules = []
    for row in routes.to_dict("records"):
        pattern = str(row.get("pattern") or "").strip()
        if pattern:
            rules.append({"pattern": pattern, "knowledge_bases": _as_list(row.get("knowledge_bases")),
                          "exclusive": bool(row.get("exclusive") or False)})
    return {
        "name": ss[K + "name"], "description": ss[K + "description"], "base_search_type": ss[K + "base_type"],
        "search_weights": {t: float(ss[K + f"w.{t}"]) for t in SEARCH_TYPES},
        "constraint_weights": {c: float(ss[K + f"c.{c}"]) for c in CONSTRAINTS},
        "routes": rules, "default_knowledge_bases": list(ss[K + "defaults"]),
        "regulations_kb": ss[K + "regulations_kb"],
        **{f: int(ss[K + f]) for f in INT_FIELDS},
        "graph": {**{f: float(ss[K + f"graph.{f}"]) for f in GRAPH_FLOATS},
                  **{f: int(ss[K + f"graph.{f}"]) for f in GRAPH_INTS}, "rerank": bool(ss[K + "graph.rerank"]),
                  "synonyms": bool(ss[K + "graph.synonyms"])},
        "credibility": {
            **{f: float(ss[K + f"cred.{f}"]) for f in (*CREDIBILITY, "unknown_date_recency", "credibility_band")},
            "half_life_days": int(ss[K + "cred.half_life_days"]),
        },
    }


def build_strategy(values: dict[str, Any]) -> tuple[Strategy | None, list[str]]:
    """Validate the draft with the engine model: the Strategy, or readable problems."""
    try:
        return Strategy.model_validate(values), []
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            where = ".".join(str(p) for p in err["loc"]) or "strategy"
            problems.append(f"{where}: {err['msg'].removeprefix('Value error, ')}")
        return None, problems
