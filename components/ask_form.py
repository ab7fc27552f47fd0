"""The Ask page's inputs: sample questions, the question form with its options, and this session's history."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import streamlit as st

from components.safe_text import label
from components.session import (
    ASK_ACCURACY, ASK_DEFAULTS, ASK_KBS, ASK_MODE, ASK_QUESTION, ASK_REFLECTION, ASK_ROUNDS, ASK_SELECTED, kept, remember, restore,
    set_kept,
)
from components.answer_panels import STATUS_LOOK
from engine.config import Settings
from engine.pipeline import AskOptions
from engine.results import Answer

Reflection = Literal["auto", "on", "off"]
REFLECTION_LABELS = {"auto": "Auto", "on": "On", "off": "Off"}
SAMPLE_KEY = "ask.sample"


@dataclass(frozen=True)
class AskRequest:
    """What the user submitted."""

    question: str
    knowledge_bases: tuple[str, ...]
    reflection: Reflection
    mode: Literal["dual", "single"]
    max_rounds: int
    target_accuracy: float | None = None
    """None: the answer_accuracy setting; 0: best guesses."""


ACCURACY_CHOICES = {"setting": None, "best guess": 0.0, "70%": 0.7, "80%": 0.8, "90%": 0.9}
"""The Ask form's "Answer only when" choices: the target answered accuracy each stands for."""


@st.cache_data(show_spinner=False)
def sample_question_list() -> list[str]:
    """The demo questions shipped with the sample corpus (empty when the file is missing)."""
    try:
        from engine.experiments import sample_questions

        return list(sample_questions().questions)
    except Exception:  # noqa: BLE001 - the picker is a convenience; without the file it simply hides
        return []


def _use_sample() -> None:
    choice = st.session_state.get(SAMPLE_KEY)
    if choice:
        set_kept(ASK_QUESTION, choice)


def sample_picker() -> None:
    """A picker that copies a sample question into the question box."""
    samples = sample_question_list()
    if samples:
        st.selectbox("Sample questions", samples, index=None, key=SAMPLE_KEY, on_change=_use_sample,
                     placeholder="Pick a sample question to fill the box (optional)",
                     help="Questions written for the sample corpus; each exercises a known trap.")


def _keep_known_bases(knowledge_bases: Sequence[str]) -> None:
    """Drop picked bases that no longer exist (deleted since), so the picker never holds an unknown option."""
    state = st.session_state
    for key in (ASK_KBS, kept(ASK_KBS)):
        if key in state:
            state[key] = [kb for kb in state[key] if kb in knowledge_bases]


def ask_form(knowledge_bases: Sequence[str]) -> AskRequest | None:
    """The question box and options; returns the request when submitted with a question.

    The inputs keep their values when the user visits another page and comes back.
    """
    _keep_known_bases(knowledge_bases)
    restore({k: v for k, v in ASK_DEFAULTS.items() if k != ASK_ROUNDS})
    st.session_state.setdefault(kept(ASK_ROUNDS), ASK_DEFAULTS[ASK_ROUNDS])
    # a number input set through session state shows its minimum in the browser; it takes its value instead
    rounds_value = None if ASK_ROUNDS in st.session_state else st.session_state[kept(ASK_ROUNDS)]
    with st.form("ask.form", border=True):
        st.text_area("Question", key=ASK_QUESTION, height=90,
                     placeholder="e.g. What is the current final torque for the A320 main landing gear axle nut?")
        kb_col, refl_col = st.columns(2)  # two rows of two: each control keeps its width from 1024 px up
        mode_col, rounds_col = st.columns(2)
        kbs = kb_col.multiselect("Knowledge bases", list(knowledge_bases), key=ASK_KBS,
                                 placeholder="All bases",
                                 help="Leave empty (all bases) to let the active strategy route the question to the bases it fits.")
        reflection = refl_col.segmented_control(
            "Reflection", list(REFLECTION_LABELS), required=True, key=ASK_REFLECTION,
            format_func=REFLECTION_LABELS.get,
            help="Review and revise the draft before showing it. Auto (rollout) follows the gradual rollout set on "
                 "the Experiments page, and the bucket this question landed in is recorded.")
        mode = mode_col.radio("Review mode", ["dual", "single"], horizontal=True, key=ASK_MODE,
                              help="Dual: a separate reviewer checks the generator. Single: the generator reviews "
                                   "its own draft.")
        rounds = rounds_col.number_input("Max rounds", min_value=0, max_value=6, step=1, key=ASK_ROUNDS,
                                         **({"value": rounds_value} if rounds_value is not None else {}),
                                         help="Review/revise rounds before the engine refuses.")
        st.segmented_control(
            "Answer only when", list(ACCURACY_CHOICES), required=True, key=ASK_ACCURACY,
            format_func=lambda c: "as set (answer_accuracy)" if c == "setting" else c,
            help="How sure the offline answerer must be before it answers: a target answered accuracy (the "
                 "selector's threshold fitted for it), or 'best guess' to see the best candidate with its "
                 "confidence whatever it is. Higher: fewer, surer answers; below the bar the answer is refused with "
                 "the closest candidate named.")
        submitted = st.form_submit_button("Ask", type="primary", icon=":material/send:")
    remember(ASK_DEFAULTS)
    if not submitted:
        return None
    question = (st.session_state.get(ASK_QUESTION) or "").strip()
    if not question:
        st.warning("Type a question first.", icon=":material/edit:")
        return None
    accuracy = ACCURACY_CHOICES.get(st.session_state.get(ASK_ACCURACY) or "setting")
    return AskRequest(question, tuple(kbs), reflection or "auto", mode, int(rounds), accuracy)


def previous_question(history: Sequence[Answer]) -> str | None:
    """The question this session asked last, as the engine understood it (a follow-up is read against it)."""
    return history[-1].question if history else None


def build_options(
    request: AskRequest, session_id: str, settings: Settings, previous: str | None = None
) -> AskOptions:
    """AskOptions for a request; with reflection on auto, the rollout (if the engine has one) decides.

    ``previous`` is the session's last question, against which a follow-up ("And on the 737?") is read.
    """
    options = AskOptions(knowledge_bases=request.knowledge_bases or None, reflection=request.reflection != "off",
                         mode=request.mode, max_rounds=request.max_rounds, previous_question=previous,
                         target_accuracy=request.target_accuracy)
    if request.reflection == "auto":
        from engine import experiments

        rollout = getattr(experiments, "rollout_options", None)
        if rollout is not None:
            options = rollout(options, request.question, session_id, settings)
    return options


def _select(index: int) -> None:
    st.session_state[ASK_SELECTED] = index


def understood_as(answer: Answer) -> None:
    """For a follow-up, the full question the engine answered and what it was read against."""
    followup = answer.extra.get("followup")
    if not followup:
        return
    st.info(label(f"Understood as: {followup['resolved']}", limit=400), icon=":material/subdirectory_arrow_right:")
    st.caption(label(f"You asked “{followup['asked']}” after “{followup['from']}”; {followup['explanation']}.",
                     limit=600))


def history_list(history: Sequence[Answer]) -> None:
    """This session's questions, newest first; clicking one shows its answer again."""
    st.markdown("**History**")
    st.caption("This session's questions. Click one to show its answer again; all runs are also kept on the "
               "Traces page.")
    if not history:
        st.caption("Nothing asked yet.")
        return
    current = st.session_state.get(ASK_SELECTED)
    for index in range(len(history) - 1, -1, -1):
        answer = history[index]
        icon = STATUS_LOOK.get(answer.status, ("", ":material/help:", ""))[1]
        st.button(label(answer.question, limit=70), key=f"ask.history.{index}", icon=icon, on_click=_select,
                  args=(index,), type="primary" if index == current else "tertiary", width="stretch",
                  help=f"{answer.status}, {answer.review_rounds} review round(s), {answer.revisions} revision(s), "
                       f"trace {answer.trace_id}")
