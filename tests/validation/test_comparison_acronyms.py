"""An acronym in the evidence stands for the words it abbreviates when the comparison's attribute is matched."""

from __future__ import annotations

import pytest

from engine.validation.comparison import Attribute, spelled_out, states_value
from engine.language.tokens import stem
from tests.reflection.builders import evidence

pytestmark = pytest.mark.unit


def test_an_acronym_spells_out_the_attribute_words_it_abbreviates():
    assert spelled_out("Top speed: XYZ is 3,200", "maximum rotation speed") == set()
    assert spelled_out("Model B: HVAC power is 4.2 kW", "heating ventilation air conditioning power") == \
        {stem(w) for w in ("heating", "ventilation", "air", "conditioning")}


def test_a_value_line_using_the_acronym_states_the_attribute():
    attribute = Attribute(frozenset(stem(w) for w in "heating ventilation air conditioning power draw".split()),
                          "heating ventilation air conditioning power draw")
    line = "Model B: HVAC is 4.2 kW at full load."
    assert states_value(evidence("spec#1", line, "Model B specification"), line, attribute)
    assert not states_value(evidence("spec#1", "Model B: weight is 42 kg.", "Model B specification"),
                            "Model B: weight is 42 kg.", attribute)
