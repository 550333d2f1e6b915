"""Integer arithmetic as the source game's C++ does it.

C++ `/` truncates toward zero; Python's `//` floors. Every rule that divides a value that
can be negative (level differences, thac0, AC compression, stat terms) goes through
`tdiv` (SPEC intro, R-PROT-9), keeping the source's multiply-before-divide order.
"""

from __future__ import annotations


def tdiv(numerator: int, denominator: int) -> int:
    """Divide and truncate toward zero, as C++ does: tdiv(-7, 2) == -3, not -4."""
    quotient = numerator // denominator  # floors; ZeroDivisionError on 0
    if quotient < 0 and quotient * denominator != numerator:
        quotient += 1  # a negative inexact quotient: floor went one too far down
    return quotient


def interpolate(level: int, value_at_0: int, value_at_32: int) -> int:
    """The source's `interpolate`: linear in level through level 0 and 32, truncated."""
    return value_at_0 + tdiv(level * (value_at_32 - value_at_0), 32)


def clamp(value: int, low: int, high: int) -> int:
    """Clamp value into [low, high]."""
    return low if value < low else high if value > high else value
