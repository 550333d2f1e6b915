"""Integer arithmetic as the source game's C++ does it, for one value or many at once.

C++ `/` truncates toward zero; Python's `//` floors. Every rule that divides a value that
can be negative (level differences, thac0, AC compression, stat terms) goes through
`tdiv` (SPEC intro, R-PROT-9), keeping the source's multiply-before-divide order.

Each function here takes Python numbers or numpy arrays alike (issue 12: one definition
of each rule, used by the scalar blow and by the vectorised round): a rule's formula is
written once with operators and these primitives, and `f(37)` and `f(np.array([37]))`
give the same numbers. Python ints take a fast path first (the duel calls these on every
blow); arrays take numpy's element-wise forms, with the same results element for element.
"""

from __future__ import annotations

from typing import Any

import numpy as np

_EXACT = 2 ** 53  # below this in magnitude, int64 -> float64 -> int64 loses nothing


def tdiv(numerator: Any, denominator: Any) -> Any:
    """Divide and truncate toward zero, as C++ does: tdiv(-7, 2) == -3, not -4.

    Ints (the fast path) or int arrays, by whole numbers above 0 for arrays (an int or an
    array of them). The array fast paths are exact: no negative numerator, floor division
    (a shift for a power of two); every numerator below 2**53 in magnitude, the float
    quotient truncated (its rounding error, under `|q| / 2**53`, is below the 1/denominator
    between q and the next whole number, so truncation never crosses one)."""
    if type(numerator) is int and type(denominator) is int:
        quotient = numerator // denominator  # floors; ZeroDivisionError on 0
        if quotient < 0 and quotient * denominator != numerator:
            quotient += 1  # a negative inexact quotient: floor went one too far down
        return quotient
    if not isinstance(numerator, np.ndarray) and not isinstance(denominator, np.ndarray):
        quotient = numerator // denominator  # another scalar (bool, numpy integer)
        if quotient < 0 and quotient * denominator != numerator:
            quotient += 1
        return quotient
    return _tdiv_array(np.asarray(numerator), denominator)


def _tdiv_array(numerator: np.ndarray, denominator: Any) -> np.ndarray:
    if numerator.dtype != np.int64:
        numerator = numerator.astype(np.int64)
    if not numerator.size:
        return numerator
    low = numerator.min()
    if low >= 0:
        if type(denominator) is int and denominator > 0 and not denominator & (denominator - 1):
            return numerator >> (denominator.bit_length() - 1)  # a power of two: a shift
        return numerator // denominator
    if low > -_EXACT and numerator.max() < _EXACT:
        quotient = numerator / denominator
        np.trunc(quotient, out=quotient)
        return quotient.astype(np.int64)
    return np.where(numerator >= 0, numerator // denominator, -((-numerator) // denominator))


def select(condition: Any, if_true: Any, if_false: Any) -> Any:
    """`if_true if condition else if_false`, element by element for arrays (np.where).
    Both values are computed: keep a costly or failing one behind a scalar `if`."""
    if type(condition) is bool:
        return if_true if condition else if_false
    if isinstance(condition, np.ndarray):
        return np.where(condition, if_true, if_false)
    return if_true if condition else if_false


def any_of(condition: Any) -> bool:
    """Whether the condition holds (for arrays: for any element): lets a formula skip a
    branch nobody takes, as the scalar `if` does."""
    if isinstance(condition, np.ndarray):
        return bool(condition.any())
    return bool(condition)


def maximum(a: Any, b: Any) -> Any:
    """The larger, as the builtin `max(b, a)` chooses (`a if a > b else b`, NaN too)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.where(a > b, a, b)
    return a if a > b else b


def minimum(a: Any, b: Any) -> Any:
    """The smaller, as the builtin `min(b, a)` chooses (`a if a < b else b`, NaN too)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.where(a < b, a, b)
    return a if a < b else b


def truncate(value: Any) -> Any:
    """A float to a whole number toward zero, as C++'s (int) cast: int(x), or per element."""
    if isinstance(value, np.ndarray):
        return np.trunc(value).astype(np.int64)
    return int(value)


def interpolate(level: Any, value_at_0: Any, value_at_32: Any) -> Any:
    """The source's `interpolate`: linear in level through level 0 and 32, truncated."""
    return value_at_0 + tdiv(level * (value_at_32 - value_at_0), 32)


def clamp(value: Any, low: Any, high: Any) -> Any:
    """Clamp value into [low, high]."""
    if isinstance(value, np.ndarray):
        return np.where(value < low, low, np.where(value > high, high, value))
    return low if value < low else high if value > high else value
