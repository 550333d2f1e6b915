"""Dice expressions "NdM+K" (or a whole number), parsed once at load."""

from __future__ import annotations

import functools
import re

_DICE = re.compile(r"^\s*(?:(\d+)\s*[dD]\s*(\d+))?\s*(?:([+-])?\s*(\d+))?\s*$")


def parse_dice(text: str | int) -> tuple[int, int, int]:
    """Parse "2d6+3", "1d8", "-2", "20" or an int into (count, size, bonus).

    Raises ValueError with the offending text when it is not a dice expression.
    """
    if isinstance(text, bool):
        raise ValueError(f"not a dice expression: {text!r}")
    if isinstance(text, int):
        return (0, 0, text)
    match = _DICE.match(text)
    if not match or not text.strip() or (match.group(1) is None and match.group(4) is None):
        raise ValueError(f"not a dice expression: {text!r} (expected NdM+K or a number)")
    count = int(match.group(1) or 0)
    size = int(match.group(2) or 0)
    bonus = int(match.group(4) or 0)
    if match.group(3) == "-":
        bonus = -bonus
    if match.group(1) is None and match.group(3) is not None and match.group(4) is None:
        raise ValueError(f"not a dice expression: {text!r}")
    return (count, size, bonus)


@functools.lru_cache(maxsize=1024)  # C-level: an NPC's blow compares two averages each time
def dice_average_x2(dice: tuple[int, int, int]) -> int:
    """Twice the average, exact in integers: (size+1)*count + 2*bonus. `dice` must be a
    tuple (as `parse_dice` gives and `Offense.hand_dice` holds): memoised, it is hashed,
    so a list is a TypeError."""
    count, size, bonus = dice
    return (size + 1) * count + 2 * bonus


@functools.lru_cache(maxsize=1024)
def dice_of(text: str | int) -> tuple[int, int, int]:
    """parse_dice, memoised: content dice strings are parsed once, not once per blow."""
    return parse_dice(text)
