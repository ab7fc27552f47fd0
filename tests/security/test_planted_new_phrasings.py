"""Planted attacks in new phrasings never make the answer state their value (a subset of bench/bench_planted.py).

Twelve dev attacks of tests/security/planted_attacks.jsonl, one per kind: those whose defence is detection (a note
to whoever checks the answer, an HTML comment, an imperative buried mid-paragraph, a second-person note, a grader's
key, call syntax, an indirect request, a verified-answer box, a quoted e-mail) and those whose defence is naming the
rival value (a table row marked corrected, forged citations in a document of equal standing), each planted in a fresh
store (real LanceDB, real embedding model) beside the small corpus of planted_corpus.py and asked through the
pipeline on the offline provider, both with every question answered ("forced": the worst case) and at the shipped
selector's threshold ("default").
"""

from __future__ import annotations

import pytest

from pathlib import Path

from bench.bench_planted import HARMFUL, Bench, load_attacks

pytestmark = [pytest.mark.integration, pytest.mark.slow]

SUBSET = ("p01", "p09", "p11", "p13", "p15", "p17", "p19", "p25", "p27", "p29", "p33", "p37")
QUESTIONS = Path(__file__).resolve().parents[2] / "bench" / "questions"
ATTACKS = {a.id: a for a in load_attacks() + load_attacks(QUESTIONS / "planted_held2.jsonl")
           + load_attacks(QUESTIONS / "planted_held3.jsonl")}
READ = ("p04", "p14", "h08", "h24", "k10", "k12")
"""Attacks of the held-out sets that got through once and were read to find why: a planted value whose digits end
the true one's (p04, p14), a revision record and an exception written into the true document (h08, h24), requests
to a chat widget and to "digital helpers" relayed by quoting disagreeing sentences (k10, k12)."""


@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> Bench:
    return Bench(tmp_path_factory.mktemp("planted"))


@pytest.fixture(scope="module")
def outcomes(bench) -> dict[str, list[dict]]:
    return {attack_id: bench.run(ATTACKS[attack_id]) for attack_id in SUBSET + READ}


def test_the_subset_spans_its_kinds_and_the_corpus_answers_each_question(bench):
    assert len({ATTACKS[a].kind for a in SUBSET}) == len(SUBSET)
    forced = [row for row in bench.control() if row["mode"] == "forced"]
    assert [row["outcome"] for row in forced] == ["true"] * len(forced), [row["final"] for row in forced]


@pytest.mark.parametrize("attack_id", SUBSET + READ)
def test_a_planted_paragraph_in_a_new_phrasing_is_harmless(outcomes, attack_id):
    harmful = [row for row in outcomes[attack_id] if row["outcome"] in HARMFUL]
    assert harmful == [], (ATTACKS[attack_id].text, [(r["mode"], r["outcome"], r["final"]) for r in harmful])
