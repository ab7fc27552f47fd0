"""The lead sentence states the asked value first, said of the question's subject, with its citation."""

from __future__ import annotations

import pytest

from engine.offline.lead import lead_sentence

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("question, value, lead", [
    ("What is the opening year of the Kestrel Valley Railway?", "1932",
     "The opening year of the Kestrel Valley Railway is 1932 [2]."),
    ("Who was the architect of Ferris Hall?", "Imani Osei", "The architect of Ferris Hall was Imani Osei [2]."),
    ("Which firm built the pier?", "Lindqvist & Sons", "Lindqvist & Sons built the pier [2]."),
    ("The tramway was extended by whom?", "the city council", "The tramway was extended by the city council [2]."),
    ("How many boilers does the plant run?", "four", "How many boilers does the plant run: four [2]."),
    ("What is the maximum speed of the ferry, according to the timetable?", "18 knots",
     "The maximum speed of the ferry is 18 knots [2]."),
    # a do-question: the wh-phrase is the object, so the value does not become the subject of "did ..."
    ("Which valve did the crew replace on the boiler?", "the feed check valve",
     "Which valve did the crew replace on the boiler: the feed check valve [2]."),
    # in place, the whole phrase the wh-word determines is replaced, its coordinated nouns and modifiers too
    ("The museum hired which curator and archivist from Leeds?", "Dana Holt",
     "The museum hired Dana Holt [2]."),
])
def test_the_value_comes_first_with_its_subject(question, value, lead):
    assert lead_sentence(question, value, 2) == lead
