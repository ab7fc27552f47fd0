"""Safe arithmetic and figure extraction."""

from __future__ import annotations

import pytest

from engine.agent import ToolError
from engine.agent.calculator import evaluate
from engine.agent.figures import extract_figures, relevant_figures

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("expression, value", [
    ("2 * (3 + 4)", 14), ("7 // 2", 3), ("7 % 4", 3), ("-3 ** 2", -9), ("2 ** 10", 1024), ("10 / 4", 2.5),
    ("sqrt(16) + abs(-2)", 6.0), ("max(1, 5, 3) - min(4, 2)", 3), ("round(3.14159, 2)", 3.14), ("+5", 5),
])
def test_arithmetic(expression, value):
    assert evaluate(expression) == pytest.approx(value)


@pytest.mark.parametrize("expression, message", [
    ("__import__('os').system('ls')", "not allowed"),
    ("open('/etc/passwd')", "not allowed"),
    ("(1).__class__", "not allowed"),
    ("'a' * 3", "Only numbers"),
    ("[1, 2]", "not allowed"),
    ("x + 1", "not allowed"),
    ("lambda: 1", "not allowed"),
    ("9 ** 9 ** 9", "too large"),
    ("10 ** 400", "digits"),
    ("2.0 ** 5000", "too large"),
    ("1 / 0", "Division by zero"),
    ("sqrt(-1)", "Cannot compute"),
    ("(-8) ** 0.5", "not a real number"),
    ("1 +", "not an arithmetic expression"),
    ("True + 1", "Only numbers"),
    ("round(1.5, ndigits=1)", "plain arguments"),
])
def test_rejected_expressions(expression, message):
    with pytest.raises(ToolError, match=message):
        evaluate(expression)


def test_figures_need_a_unit():
    found = [(f.value, f.unit) for f in extract_figures(
        "In 2024 the A320 took 5.7 qt. Torque to 150 lbf.ft; cost $1,200 or 45%. Rev 12, P/N 201-587-3.")]
    assert found == [(5.7, "qt"), (150.0, "lbf.ft"), (1200.0, "$"), (45.0, "%")]


def test_relevant_figures_follow_the_entity():
    text = "APU oil servicing\nService within 15 minutes of shutdown.\nOil quantity: A320 5.7 qt, B737 6.1 qt"
    assert [f.text for f in relevant_figures(text, "A320", "oil quantity")] == ["5.7 qt"]
    assert [f.text for f in relevant_figures(text, "B737", "oil quantity")] == ["6.1 qt"]
    assert relevant_figures(text, "A350", "oil quantity") == []
