"""Pinned draws for boundary tests: a World's generator whose `number_percent()` (and,
if asked, `random()`) returns a chosen value, so a rule comparing a roll with `<` or `<=`
is tested exactly at its boundary (an off-by-one fails).
"""

from __future__ import annotations

from affray.core.rng import Rng


class PinnedRng(Rng):
    """Rng whose percent() always returns `value`; every other draw is the seeded one."""

    __slots__ = ("draws", "value")

    def __init__(self, seed: int, value: int) -> None:
        super().__init__(seed)
        self.value = value
        self.draws = 0

    def percent(self) -> int:
        self.draws += 1
        return self.value


def fixed_percent(world, value: int) -> PinnedRng:
    """Make every number_percent() of `world` return `value`; returns the generator
    (its `draws` counts the percent draws made)."""
    pinned = PinnedRng(world.seed, value)
    world.rng = pinned
    return pinned


class SequenceRng(Rng):
    """Rng whose percent() returns the given values in turn (then the last again)."""

    __slots__ = ("values",)

    def __init__(self, seed: int, values: list[int]) -> None:
        super().__init__(seed)
        self.values = list(values)

    def percent(self) -> int:
        return self.values.pop(0) if len(self.values) > 1 else self.values[0]


class RangeRecordingRng(Rng):
    """Rng that records the bounds of every number_range(low, high) it draws, so a test
    can check which range a rule rolls in; the draws themselves are the seeded ones."""

    __slots__ = ("calls",)

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.calls: list[tuple[int, int]] = []

    def number_range(self, low: int, high: int) -> int:
        self.calls.append((low, high))
        return super().number_range(low, high)
