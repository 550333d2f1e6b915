"""Lag: wait and daze in pulses, in dense numpy arrays indexed by creature slot.

Counting every creature's lag down is the idle pulse's whole cost, so it is one numpy
operation over all slots (R-LAG-1), not a Python loop.
"""

from __future__ import annotations

import numpy as np


class LagTable:
    """wait and daze per creature slot; slots are handed out in spawn order."""

    __slots__ = ("count", "daze", "wait")

    def __init__(self, capacity: int = 64) -> None:
        self.count = 0
        self.wait = np.zeros(capacity, dtype=np.int32)
        self.daze = np.zeros(capacity, dtype=np.int32)

    def new_slot(self) -> int:
        """A fresh slot with wait and daze 0; the arrays double when full."""
        if self.count == len(self.wait):
            grow = max(64, len(self.wait))
            self.wait = np.concatenate((self.wait, np.zeros(grow, dtype=np.int32)))
            self.daze = np.concatenate((self.daze, np.zeros(grow, dtype=np.int32)))
        self.count += 1
        return self.count - 1

    def count_down(self) -> None:
        """R-LAG-1: wait and daze go down by one each pulse, never below 0."""
        n = self.count
        for column in (self.wait[:n], self.daze[:n]):
            np.subtract(column, 1, out=column, where=column > 0)

    def raise_wait(self, slot: int, pulses: int) -> None:
        """Keep the larger of the current wait and `pulses` (R-LAG-4)."""
        if pulses > self.wait[slot]:
            self.wait[slot] = pulses
