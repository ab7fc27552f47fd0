"""Unit conversion (engine/units.py) and a figure stated with the equivalent its source gives beside it."""

import pytest

from engine.errors import UnitError
from engine.units import convert, convertible, with_equivalent


def test_a_torque_converts_between_metric_and_imperial_spellings():
    assert convertible("N.m", "lbf.ft") and not convertible("kg", "m")
    assert convert(325, "N.m", "lbf.ft").result == pytest.approx(239.7, abs=0.1)
    with pytest.raises(UnitError, match="measure different things"):
        convert(5, "kg", "m")


@pytest.mark.parametrize("sentence, value", [
    ("Tighten the nut to a final torque of 325 N.m (240 lbf.ft) and fit the lock bolt [2].", "240 lbf.ft"),
    ("Tighten the nut to a final torque of 325 N.m (240 lbf.ft) and fit the lock bolt [2].", "325 N.m"),
    ("Final torque (dry threads) 201-587-5 325 N.m 240 lbf.ft Locking bolt NAS1103-5 14 N.m 124 lbf.in", "240 lbf.ft"),
])
def test_a_figure_is_stated_with_the_equivalent_written_beside_it(sentence, value):
    assert with_equivalent(sentence, value) == "325 N.m (240 lbf.ft)"


@pytest.mark.parametrize("sentence, value", [
    ("It weighs 5 kg and is 3 m long.", "5 kg"),            # another kind of quantity
    ("Set 200 psi 20 bar on the gauge.", "20 bar"),        # same kind, not the same amount
    ("Inflate to 200 psi; the old limit was 190 psi.", "200 psi"),  # same unit: two values, not a conversion
    ("Use nut 201-587-5 at 325 N.m (240 lbf.ft).", "201-587-5"),  # not a figure with a unit
])
def test_figures_that_are_not_one_quantity_are_left_alone(sentence, value):
    assert with_equivalent(sentence, value) == value
