"""Ask: a question in, every stage of the answer out (intent, plan, evidence, draft vs revised, checks, timing)."""

from __future__ import annotations

import streamlit as st

from components.answer_view import StageProgress, render_answer
from components.ask_form import ask_form, build_options, history_list, previous_question, sample_picker, understood_as
from components import access
from components.factories import get_settings
from components.model_choice import chosen_models
from components.session import ASK_HISTORY, ASK_SELECTED, SESSION_ID
from engine.errors import EngineError

st.title("Ask")
st.caption("Ask a question about your documents. The engine reads the question, plans weighted searches, drafts a "
           "cited answer, reviews it against the evidence, validates citations and dates, and shows every step "
           "below. Nothing is shown as an answer unless it passed those checks.")

history = st.session_state[ASK_HISTORY]
form_col, history_col = st.columns([2.2, 1], gap="medium")
with form_col:
    sample_picker()
    request = ask_form(access.store().knowledge_base_names())  # only the bases this user may read

if request is not None:
    problem = None
    with form_col:
        box = st.status("Answering…", expanded=True)
        live = st.empty()  # the draft streams here, marked as under review, until the reviewed answer replaces it
    with box:
        try:
            options = build_options(request, st.session_state[SESSION_ID], get_settings(), previous_question(history))
            options = options.model_copy(update={"user": access.current_identity().name, **chosen_models()})
            answer = access.pipeline().run(request.question, options, progress=StageProgress(box, live))
        except EngineError as exc:
            problem = str(exc)
            box.update(label="Could not answer", state="error", expanded=False)
        else:
            seconds = answer.timings.get("total", 0) / 1000
            done = {"success": f"Answered in {seconds:.1f} s",
                    "refused": f"Refused after {seconds:.1f} s: see why below",
                    "failure": f"Failed after {seconds:.1f} s: see below"}
            box.update(label=done[answer.status],
                       state="error" if answer.status == "failure" else "complete", expanded=False)
            history.append(answer)
            st.session_state[ASK_SELECTED] = len(history) - 1
    live.empty()
    if problem:
        st.error(problem, icon=":material/error:")

with history_col:
    history_list(history)

selected = st.session_state[ASK_SELECTED]
if selected is not None and 0 <= selected < len(history):
    st.divider()
    understood_as(history[selected])
    render_answer(history[selected], key=f"ask.answer.{selected}")
elif not history:
    st.info("Type a question above (or pick a sample) and press **Ask**. Results appear here, stage by stage.")
