"""The Claude path against recorded responses: streamed drafts, Claude's own citations, prompt caching, usage.

Every request goes through the real SDK (``messages.stream`` for drafts and revisions) to a
MockTransport serving recordings of what the Messages API sends: server-sent events, text blocks
with ``search_result_location`` citations, usage with cache reads and writes, a stream that drops
mid-way and one the API ends with an ``overloaded_error`` event.
"""

from __future__ import annotations

import pytest

from engine.errors import ProviderError
from engine.llm.base import ChatResponse, Citation, TextBlock, Usage
from engine.llm.capabilities import ModelCapabilities
from engine.llm.scripted import ScriptedProvider
from engine.llm.streaming import StreamDone, StreamRestart, TextDelta, stream_chat
from engine.reflection import LLMGenerator, LLMReviewer, ReflectionLoop
from engine.reflection.citing import cited_answer, search_results
from engine.validation import Validator
from engine.validation.cited import check_cited_texts
from tests.llm.conftest import load_recording
from tests.reflection.builders import AMM_REV12, SHOP_NOTE, intent

pytestmark = pytest.mark.unit

QUESTION = "What is the final torque of the A320 main wheel axle nut?"
EVIDENCE = (AMM_REV12, SHOP_NOTE)
ANSWER = ("The current manual gives a final axle nut torque of 150 lbf.ft, with the nut safetied by the lock bolt "
          "[1]. An older shop note gave 120 lbf.ft, but it is superseded [2].")


def sonnet(replay, recording, **options):
    return replay(recording, model="claude-sonnet-5-5", models="models_list_current", **options)


# --- the request: evidence as search results, cached, streamed --------------------------------------

def test_a_draft_sends_the_evidence_as_search_results_with_citations_and_a_cache_breakpoint(replay):
    provider, api = sonnet(replay, "draft_cited_sonnet_5_5")

    LLMGenerator(provider, "claude-sonnet-5-5").draft(QUESTION, EVIDENCE, intent(QUESTION))

    (body,) = api.bodies
    assert body["stream"] is True
    first, second, ask = body["messages"][0]["content"]
    assert first == {"type": "search_result", "source": "amm-rev12", "title": "A320 AMM 32-41-11 MLG wheel (Rev 12)",
                     "content": [{"type": "text", "text": "Wheel installation."},
                                 {"type": "text", "text": "Torque the axle nut to 150 lbf.ft and safety it with the "
                                                          "lock bolt."}],
                     "citations": {"enabled": True}}
    assert second["source"] == "shop-note" and second["cache_control"] == {"type": "ephemeral"}
    assert ask["type"] == "text" and QUESTION in ask["text"] and "cache_control" not in ask
    assert "[n]" not in body["system"] and "never type citation markers" in body["system"]
    assert "cache_control" not in body  # one explicit breakpoint, at the end of the evidence


def test_search_result_sources_name_the_page_when_known():
    paged = AMM_REV12.model_copy(update={"metadata": AMM_REV12.metadata.model_copy(update={"page": 4})})
    assert search_results([paged])[0]["source"] == "amm-rev12 p.4"
    assert "cache_control" not in search_results([paged])[0]


# --- the reply: Claude's citations become [n] and are checked -----------------------------------------

def test_the_cited_reply_becomes_an_answer_with_markers_and_traceable_passages(replay):
    provider, _ = sonnet(replay, "draft_cited_sonnet_5_5")
    generator = LLMGenerator(provider, "claude-sonnet-5-5")

    written = generator.compose(QUESTION, EVIDENCE, intent(QUESTION))

    assert written.text == ANSWER
    assert [(c.n, c.chunk_id) for c in written.citations] == [(1, "amm-rev12#3"), (2, "shop-note#1")]
    assert written.citations[1].statement == "An older shop note gave 120 lbf.ft, but it is superseded"
    assert check_cited_texts(written.citations, EVIDENCE) == []  # a range joined without spaces still matches
    validation = Validator().run(written.text, EVIDENCE, intent(QUESTION), citations=written.citations)
    assert not [i for i in validation.issues if i.check == "citation"]


def test_a_cited_text_that_is_not_in_its_chunk_fails_validation():
    made_up = ChatResponse((TextBlock("Torque it to 200 lbf.ft", citations=(
        Citation(0, "Torque the axle nut to 200 lbf.ft."),)), TextBlock(".")), "end_turn")
    text, cited = cited_answer(made_up, EVIDENCE)
    stray = ChatResponse((TextBlock("Check it", citations=(Citation(5, "anything"),)),), "end_turn")

    issues = Validator().run(text, EVIDENCE, intent(QUESTION), citations=cited).issues
    assert text == "Torque it to 200 lbf.ft [1]."
    assert [i.check for i in issues] == ["citation"] and issues[0].chunk_id == "amm-rev12#3"
    assert "does not occur in that evidence" in issues[0].message
    assert "only [1]..[2] were sent" in check_cited_texts(cited_answer(stray, EVIDENCE)[1], EVIDENCE)[0].message


def test_a_cited_part_of_several_sentences_marks_each_of_them():
    long = ChatResponse((TextBlock("Per the manual: wheel installation comes first. Torque to 150 lbf.ft",
                                   citations=(Citation(0, "Wheel installation."),)), TextBlock(".")), "end_turn")
    assert cited_answer(long, EVIDENCE)[0] == ("Per the manual: wheel installation comes first [1]. "
                                               "Torque to 150 lbf.ft [1].")


def test_markers_typed_by_the_model_give_way_to_its_citations_and_are_kept_when_it_attached_none():
    typed = ChatResponse((TextBlock("Torque to 150 lbf.ft [2]", citations=(Citation(0, "Torque"),)),
                          TextBlock(".")), "end_turn")
    plain = ChatResponse((TextBlock("Torque to 150 lbf.ft [1]."),), "end_turn")
    assert cited_answer(typed, EVIDENCE)[0] == "Torque to 150 lbf.ft [1]."
    assert cited_answer(plain, EVIDENCE) == ("Torque to 150 lbf.ft [1].", ())


def test_a_model_without_citations_still_gets_numbered_documents():
    provider = ScriptedProvider(["Torque the axle nut to 150 lbf.ft [1]."])
    LLMGenerator(provider, "m").draft(QUESTION, EVIDENCE, intent(QUESTION))
    prompt = provider.calls[0]["messages"][0]["content"]
    assert isinstance(prompt, str) and '<document index="1"' in prompt


# --- streaming ------------------------------------------------------------------------------------

def test_the_stream_reports_text_as_it_arrives_then_the_whole_response(replay):
    provider, api = sonnet(replay, "stream_draft_cited_sonnet_5_5")
    events = list(provider.stream([{"role": "user", "content": "q"}], max_tokens=600))

    deltas = [e.text for e in events if isinstance(e, TextDelta)]
    done = events[-1]
    assert isinstance(done, StreamDone) and len(deltas) > 3
    assert "".join(deltas) == done.response.text
    assert done.response.citations[0].search_result_index == 0 and len(done.response.citations) == 2
    assert done.response.usage == Usage(412, 61, 0, 1830, 0, "standard")
    assert api.bodies[0]["stream"] is True


def test_a_stream_that_drops_mid_way_is_started_again_and_the_reader_is_told(replay):
    provider, api = sonnet(replay, "stream_broken_then_ok")
    seen = []

    response = stream_chat(provider, [{"role": "user", "content": "q"}], on_event=seen.append, max_tokens=600)

    restarts = [e for e in seen if isinstance(e, StreamRestart)]
    assert len(restarts) == 1 and restarts[0].attempt == 1 and restarts[0].received > 0
    assert "RemoteProtocolError" in restarts[0].reason
    after = seen[seen.index(restarts[0]) + 1:]
    assert "".join(e.text for e in after if isinstance(e, TextDelta)) == response.text
    assert api.calls == 2 and response.stop_reason == "end_turn"


def test_a_stream_that_keeps_breaking_is_reported_with_how_far_it_got(replay):
    provider, api = sonnet(replay, "stream_overloaded", stream_retries=1)
    seen = []

    with pytest.raises(ProviderError, match=r"broke after \d+ characters \(overloaded_error: Overloaded\), 2 time"):
        stream_chat(provider, [{"role": "user", "content": "q"}], on_event=seen.append, max_tokens=600)
    assert api.calls == 2 and sum(isinstance(e, StreamRestart) for e in seen) == 1


def test_a_stream_the_api_refuses_before_it_starts_is_not_retried(replay):
    provider, api = sonnet(replay, "invalid_request_400")
    with pytest.raises(ProviderError, match="rejected the request with 400"):
        list(provider.stream([{"role": "user", "content": "q"}]))
    assert api.calls == 1


def test_providers_without_a_stream_report_their_text_as_one_delta():
    class Plain:
        name = "plain"

        def chat(self, messages, **request):
            return ChatResponse((TextBlock("Whole answer."),), "end_turn")

    seen = []
    assert stream_chat(Plain(), [], on_event=seen.append).text == "Whole answer."
    assert [type(e).__name__ for e in seen] == ["TextDelta", "StreamDone"]


# --- prompt caching and usage per stage -------------------------------------------------------------

def test_a_reviewed_and_revised_answer_records_cache_writes_then_reads_per_stage(replay, routed):
    from engine.llm.anthropic_provider import AnthropicProvider
    from engine.llm.models import ModelResolver

    client, api = routed({"/v1/models": "models_list_current",
                          "/v1/messages": [*load_recording("draft_cited_sonnet_5_5"),
                                           load_recording("review_rounds_cached_haiku_5_5")[0],
                                           *load_recording("revise_cited_sonnet_5_5"),
                                           load_recording("review_rounds_cached_haiku_5_5")[1]]})
    provider = AnthropicProvider(client=client, models=ModelResolver())
    loop = ReflectionLoop(LLMGenerator(provider, "claude-sonnet-5-5"), LLMReviewer(provider, "claude-haiku-5-5"))
    events = []
    loop.observe(lambda stage, info: events.append((stage, info)))

    result = loop.run(QUESTION, EVIDENCE, intent(QUESTION))

    assert result.status == "success" and [r.action for r in result.rounds] == ["revised", "accepted"]
    assert result.final == "The final axle nut torque is 150 lbf.ft [1]." and result.citations[0].n == 1
    bodies = [b for b in (__import__("json").loads(r.content) for r in api.requests if r.url.path == "/v1/messages")]
    review_block = bodies[1]["messages"][0]["content"][0]
    assert review_block["cache_control"] == {"type": "ephemeral"} and "Documents" in review_block["text"]
    assert "Answer to review" in bodies[1]["messages"][0]["content"][1]["text"]
    usage = loop.usage()
    assert list(usage.stages) == ["draft", "review", "revise"]
    assert (usage.stages["draft"].cache_write_tokens, usage.stages["revise"].cache_read_tokens) == (1830, 1830)
    assert (usage.stages["review"].cache_write_tokens, usage.stages["review"].cache_read_tokens) == (1411, 1411)
    assert usage.stages["review"].calls == 2 and usage.total.calls == 4
    draft_cost = (412 * 2 + 1830 * 2.5 + 61 * 10) / 1e6  # Sonnet 5.5: input, 5-minute cache write, output
    assert usage.stages["draft"].cost_usd == pytest.approx(draft_cost)
    assert usage.stages["revise"].cost_usd == pytest.approx((598 * 2 + 1830 * 0.10 + 23 * 10) / 1e6)
    assert usage.prices_as_of and usage.total.cost_usd == pytest.approx(
        sum(s.cost_usd for s in usage.stages.values()))
    kinds = [stage for stage, _ in events]
    assert kinds.count("review") == 2 and kinds.count("draft_done") == 2
    assert [i["step"] for s, i in events if s == "draft_done"] == ["draft", "revise"]


def test_prompt_caching_can_be_turned_off(replay, monkeypatch):
    provider, api = sonnet(replay, "draft_cited_sonnet_5_5", prompt_caching=False)
    LLMGenerator(provider, "claude-sonnet-5-5").draft(QUESTION, EVIDENCE, intent(QUESTION))
    assert "cache_control" not in str(api.bodies[0])
    monkeypatch.setenv("WORKBENCH_PROMPT_CACHE", "off")
    assert sonnet(replay, "draft_cited_sonnet_5_5")[0].prompt_caching is False
    monkeypatch.setenv("WORKBENCH_PROMPT_CACHE", "on")
    assert sonnet(replay, "draft_cited_sonnet_5_5")[0].prompt_caching is True


def test_a_conversation_of_several_turns_caches_what_came_before(replay):
    provider, api = sonnet(replay, "text_end_turn")
    provider.chat([{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"},
                   {"role": "user", "content": "c"}])
    provider.chat([{"role": "user", "content": "a"}])
    assert api.bodies[0]["cache_control"] == {"type": "ephemeral"} and "cache_control" not in api.bodies[1]


def test_scripted_replies_with_citations_stand_in_for_claude():
    reply = ChatResponse((TextBlock("Torque to 150 lbf.ft", citations=(Citation(0, "Torque the axle nut to 150 "
                                                                                   "lbf.ft"),)), TextBlock(".")),
                         "end_turn", Usage(10, 5))
    provider = ScriptedProvider([reply], capabilities=ModelCapabilities(citations=True))
    written = LLMGenerator(provider, "m").compose(QUESTION, EVIDENCE, intent(QUESTION))
    assert written.text == "Torque to 150 lbf.ft [1]." and provider.calls[0]["messages"][0]["content"][0]["type"] \
        == "search_result"
    assert "cache_control" not in str(provider.calls[0])  # a provider without prompt caching gets no breakpoints
