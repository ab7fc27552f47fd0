"""The walk over the entity graph (engine/retrieval/graph.py) and the mentions it joins on
(engine/language/mentions.py), without a store."""

from __future__ import annotations

from engine.language.mentions import mention_key, passage_mentions, question_mentions, text_mentions
from engine.retrieval.graph import Neighbourhood, walk


def neighbourhood(edges: dict[str, list[str]]) -> Neighbourhood:
    near = Neighbourhood()
    rows = [(chunk, f"doc-{chunk}", key, key.title(), "title" if key == chunk else "name")
            for chunk, keys in edges.items() for key in keys]
    near.add(rows)
    return near


def test_keys_ignore_case_accents_articles_and_possessives():
    assert mention_key("Beyoncé") == mention_key("beyonce") == "beyonce"
    assert mention_key("The Beatles'") == "beatles"
    assert mention_key("Wheel-Axle") == "wheel axle"
    assert mention_key("The") == "" and mention_key("1998") == ""


def test_a_passage_mentions_its_title_and_the_names_in_it():
    found = passage_mentions("Mercury (planet)", "Mercury is visited by NASA's Messenger [2] and by BepiColombo.")
    keys = [m.key for m in found]
    assert keys[:2] == ["mercury planet", "mercury"] and {m.kind for m in found[:2]} == {"title"}
    assert {"nasa s messenger", "nasa", "messenger", "bepicolombo"} <= set(keys)
    assert [m.written for m in text_mentions("Flights of the A320 [1].")] == ["A320"]


def test_a_question_seeds_its_entities_and_its_names():
    keys = [m.key for m in question_mentions("Saltmarsh Hymns was written by whom?", ["Oriane Vasseur"])]
    assert keys[0] == "oriane vasseur" and "saltmarsh hymns" in keys
    assert "who" not in keys and "was" not in keys


def test_the_walk_reaches_the_passage_named_by_the_first_hop():
    near = neighbourhood({
        "novel": ["saltmarsh hymns", "oriane vasseur"],
        "author": ["oriane vasseur", "university of quillmoor"],
        "unrelated": ["brennhaven"],
        "other-novel": ["tidal island", "saltmarsh"],
    })
    result = walk(near, question_mentions("Where did the author of Saltmarsh Hymns study?"), [("novel", 1.0)], 10, 0.5)
    ranked = [c for c, _, _ in result.ranked]
    assert ranked[0] == "novel" and ranked[1] == "author"
    assert "unrelated" not in ranked and "other-novel" not in ranked
    assert result.reach["author"].mention == "Oriane Vasseur" and result.reach["author"].from_chunk == "novel"
    assert "novel" not in result.reach  # a seed came from the searches, not through the graph
    assert result.ranked[0][2] == 1.0


def test_a_name_many_passages_share_carries_less_than_a_rare_one():
    hub = {f"filler-{i}": ["united states"] for i in range(30)}
    near = neighbourhood({"seed": ["united states", "trent reznor"], "reznor": ["trent reznor"], **hub})
    result = walk(near, [], [("seed", 1.0)], 40, 0.5)
    score = {c: s for c, _, s in result.ranked}
    assert score["reznor"] > 5 * score["filler-0"]


def test_nothing_to_walk_from_gives_nothing():
    assert walk(Neighbourhood(), [], [], 10, 0.5).ranked == []
    near = neighbourhood({"a": ["x"], "b": ["y"]})
    assert walk(near, [], [("elsewhere", 1.0)], 10, 0.5).ranked == []


def test_a_name_leads_first_to_the_passage_written_about_it():
    near = neighbourhood({
        "seed": ["seed", "oriane vasseur"],
        "oriane vasseur": ["oriane vasseur"],  # the passage of the document titled by the name
        **{f"other-{i}": ["oriane vasseur"] for i in range(4)},  # passages that only mention her
    })
    result = walk(near, [], [("seed", 1.0)], 10, 0.5)
    score = {c: s for c, _, s in result.ranked}
    assert score["oriane vasseur"] > 3 * score["other-0"]
