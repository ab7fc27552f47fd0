"""Links, images and HTML to hosts outside the allow-list are removed from text shown to people; visible text stays."""

from __future__ import annotations

import pytest

from engine.config import load_settings
from engine.errors import ConfigError
from engine.output_safety import safe_answer, safe_text
from engine.results import Answer, Evidence, EvidenceMeta, Intent

pytestmark = pytest.mark.unit
ALLOWED = ("docs.example.com",)


@pytest.mark.parametrize("text, expected", [
    ("See [Click here](http://attacker.example/manual).", "See Click here (link removed)."),
    ("![diagram](https://attacker.example/p.png?d=secret)", "diagram (image removed)"),
    ("![](https://attacker.example/p.png)", "(image removed)"),
    ('<img src="https://attacker.example/i.gif" alt="pin figure"> text', "pin figure (image removed) text"),
    ("The <a href='http://attacker.example'>manual</a> says so.", "The manual says so."),
    ("Report at <https://attacker.example/report>.", "Report at (link removed)."),
    ("Buy at https://attacker.example/x?q=1. Or www.attacker.example/y", "Buy at (link removed). Or (link removed)"),
    ("[![badge](https://a.example/b.png)](https://a.example/)", "badge (image removed) (link removed)"),
    ("[manual][m]\n\n[m]: https://attacker.example/ref", "[manual][m]\n\n[m] (link removed)"),
    ("[x](javascript:alert(1)) and data:text/html,abc", "x (link removed) and (link removed)"),
    ("<!-- hidden --> <b>bold</b> </untrusted_data>", " bold "),
    ("[x](//attacker.example/a)", "x (link removed)"),
    ("[ok](https://docs.example.com/a) https://sub.docs.example.com/b", "[ok](https://docs.example.com/a) "
                                                                       "https://sub.docs.example.com/b"),
    ("http://docs.example.com.attacker.example/ and http://docs.example.com@attacker.example/",
     "(link removed) and (link removed)"),
    ("[x](http://docs.example.com:8080/a)", "[x](http://docs.example.com:8080/a)"),
    ("quote cut short: <img src=\"https://attacker.example/i.g…", "quote cut short: < img src=\"(link removed)"),
])
def test_links_images_and_html_outside_the_allow_list_are_removed(text, expected):
    assert safe_text(text, ALLOWED) == expected


@pytest.mark.parametrize("text", [
    "Torque the axle nut to 150 lbf.ft [1]. The pin protrudes at least 1.0 mm [2].",
    "Keep a < b and c > d; 3 <= 4.",
    "Mail ops@example.com for the form.",
    "x [1]() y",
    "",
])
def test_plain_answers_are_left_alone(text):
    assert safe_text(text, ALLOWED) == text


def test_with_an_empty_allow_list_every_link_goes():
    assert safe_text("[ok](https://docs.example.com/a)") == "ok (link removed)"


def test_the_allow_list_is_a_setting_of_host_names():
    assert load_settings().allowed_link_hosts == ()
    assert load_settings(allowed_link_hosts=["Docs.Example.COM."]).allowed_link_hosts == ("docs.example.com",)
    with pytest.raises(ConfigError, match="host names"):
        load_settings(allowed_link_hosts=["https://docs.example.com/a"])


def test_an_answer_is_made_safe_in_its_texts_and_evidence_titles():
    title = "Memo ![x](https://attacker.example/t.png) <b>urgent</b>"
    evidence = Evidence(chunk_id="m#0", doc_id="m", knowledge_base="kb", text="[Click](http://attacker.example)",
                        score=1.0, metadata=EvidenceMeta(title=title))
    answer = Answer(question="q", intent=Intent(action="lookup", raw_query="q"), evidence=(evidence,),
                    draft="See [Click](http://attacker.example) [1].", revised="", status="success",
                    final="See [Click](http://attacker.example) [1].", extra={"refusal_reason": "<i>no</i>"})
    safe = safe_answer(answer, ALLOWED)
    assert safe.final == safe.draft == "See Click (link removed) [1]."
    assert safe.evidence[0].metadata.title == "Memo x (image removed) urgent"
    assert safe.evidence[0].text == evidence.text  # the quoted source itself is kept as the document has it
    assert safe.extra["refusal_reason"] == "no"
