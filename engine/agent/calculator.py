"""Safe arithmetic: an expression is parsed with :mod:`ast` and only numbers and arithmetic are evaluated.

Allowed: int and float literals, ``+ - * / // % **``, unary ``+ -``, parentheses, the names
``pi`` and ``e``, and the functions below. Anything else (names, attributes, strings,
comprehensions, ``eval``...) is rejected before any evaluation. Exponents and results are bounded.
"""

from __future__ import annotations

import ast
import math
import operator
from typing import Any, Callable

from engine.agent.errors import ToolError

MAX_EXPONENT = 1000
MAX_INT_DIGITS = 300
Number = int | float

BINARY: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
}
UNARY: dict[type, Callable[[Any], Any]] = {ast.UAdd: operator.pos, ast.USub: operator.neg}
FUNCTIONS: dict[str, Callable[..., Any]] = {
    "sqrt": math.sqrt, "abs": abs, "round": round, "min": min, "max": max, "floor": math.floor, "ceil": math.ceil,
    "log": math.log, "log10": math.log10, "exp": math.exp,
}
CONSTANTS: dict[str, float] = {"pi": math.pi, "e": math.e}


def evaluate(expression: str) -> Number:
    """The value of an arithmetic expression; ToolError says what is not allowed or what went wrong."""
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise ToolError(f"{expression!r} is not an arithmetic expression; use numbers, + - * / // % ** and "
                        f"parentheses, or {', '.join(sorted(FUNCTIONS))}.") from None
    try:
        value = _eval(tree.body)
    except ZeroDivisionError:
        raise ToolError("Division by zero; check the expression.") from None
    except OverflowError:
        raise ToolError("The result is too large to compute; use smaller numbers.") from None
    except (ValueError, TypeError) as exc:
        raise ToolError(f"Cannot compute {expression!r}: {exc}.") from None
    return _check_size(value)


def _eval(node: ast.AST) -> Number:
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
            raise ToolError(f"Only numbers are allowed, not {node.value!r}.")
        return _check_size(node.value)
    if isinstance(node, ast.BinOp) and type(node.op) in BINARY:
        left, right = _eval(node.left), _eval(node.right)
        if isinstance(node.op, ast.Pow):
            _check_power(left, right)
        return _check_size(BINARY[type(node.op)](left, right))
    if isinstance(node, ast.UnaryOp) and type(node.op) in UNARY:
        return UNARY[type(node.op)](_eval(node.operand))
    if isinstance(node, ast.Name) and node.id in CONSTANTS:
        return CONSTANTS[node.id]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS:
        if node.keywords or not node.args or len(node.args) > 8:
            raise ToolError(f"{node.func.id}() takes 1 to 8 plain arguments.")
        return _check_size(FUNCTIONS[node.func.id](*[_eval(arg) for arg in node.args]))
    raise ToolError(f"{type(node).__name__} is not allowed in a calculation; use numbers, arithmetic operators, "
                    f"parentheses and {', '.join(sorted(FUNCTIONS))}.")


def _check_power(base: Number, exponent: Number) -> None:
    if abs(exponent) > MAX_EXPONENT:
        raise ToolError(f"Exponent {exponent} is too large (at most {MAX_EXPONENT}).")
    if isinstance(base, int) and isinstance(exponent, int) and abs(base) > 1 and exponent > 0:
        if exponent * math.log10(abs(base)) > MAX_INT_DIGITS:
            raise ToolError(f"{base} ** {exponent} has more than {MAX_INT_DIGITS} digits; use smaller numbers.")


def _check_size(value: Number) -> Number:
    if isinstance(value, complex):
        raise ToolError("The result is not a real number.")
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > MAX_INT_DIGITS * 3.33:
        raise ToolError(f"The result has more than {MAX_INT_DIGITS} digits; use smaller numbers.")
    if isinstance(value, float) and not math.isfinite(value):
        raise ToolError("The result is not a finite number; check the expression.")
    return value
