"""Lag: wait and daze in pulses, in dense numpy arrays indexed by creature slot.

Counting every creature's lag down is the idle pulse's whole cost, so over a crowd it is
one numpy operation per column (R-LAG-1), not a Python loop; a table of a few creatures
(a duel) is counted slot by slot, and one known to hold only zeros not at all.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from affray.core.world import World
    from affray.systems.rules.sheet import Sheet


LAG_MAX = int(np.iinfo(np.int32).max)  # the largest wait or daze a LagTable holds
# Up to this many slots, counting down loops over the slots in Python (cheaper than
# numpy's per-call overhead on tiny arrays); above it, whole-column numpy operations.
SMALL_TABLE = 8


class LagTable:
    """wait and daze per creature slot; slots are handed out in spawn order.

    Change lag through the setters below (or `World.set_wait` / `set_daze`), not by
    writing the arrays: a write to `daze` must also set `dazed`.

    `clear` is True while every wait and daze is known to be 0, so counting down has
    nothing to do (a duel never lags: the countdown was a tenth of its idle cost). Any
    use of the arrays through `wait` or `daze` may write them, so it sets `clear` False;
    the next countdown looks at every slot and sets it again. So keep no reference to
    the arrays across a pulse: read `wait` / `daze` again to write them.
    """

    __slots__ = ("_daze", "_wait", "clear", "count", "dazed")

    def __init__(self, capacity: int = 64) -> None:
        self.count = 0
        # True when some creature may be dazed: lets skill look-ups skip the array.
        self.dazed = True
        self.clear = True
        self._wait = np.zeros(capacity, dtype=np.int32)
        self._daze = np.zeros(capacity, dtype=np.int32)

    @property
    def wait(self) -> np.ndarray:
        """The wait column by slot (pulses); reading it may be to write it."""
        self.clear = False
        return self._wait

    @wait.setter
    def wait(self, column: np.ndarray) -> None:
        self.clear = False
        self._wait = column

    @property
    def daze(self) -> np.ndarray:
        """The daze column by slot (pulses); reading it may be to write it."""
        self.clear = False
        return self._daze

    @daze.setter
    def daze(self, column: np.ndarray) -> None:
        self.clear = False
        self._daze = column

    def new_slot(self) -> int:
        """A fresh slot with wait and daze 0; the arrays double when full."""
        if self.count == len(self._wait):
            grow = max(64, len(self._wait))
            self._wait = np.concatenate((self._wait, np.zeros(grow, dtype=np.int32)))
            self._daze = np.concatenate((self._daze, np.zeros(grow, dtype=np.int32)))
        self.count += 1
        return self.count - 1

    def count_down(self, pulses: int = 1) -> None:
        """R-LAG-1: wait and daze go down by one each pulse, never below 0; by `pulses`
        at once over a jump of idle pulses (`World.skip`). Sets `dazed` and `clear`.

        A few creatures (a duel) are counted down slot by slot: numpy's cost per call
        (several microseconds for the masks and the `any`) is then most of a pulse.
        A crowd is one numpy operation per column (the idle pulse's whole cost).
        """
        if self.clear:  # every slot is 0 already
            self.dazed = False
            return
        n = self.count
        pulses = min(pulses, LAG_MAX)  # a column holds no more than this anyway
        if n <= SMALL_TABLE:
            wait, daze = self._wait, self._daze
            waiting = dazed = False
            for slot in range(n):
                left = wait[slot]
                if left:
                    if left > pulses:
                        wait[slot] = left - pulses
                        waiting = True
                    else:
                        wait[slot] = 0
                left = daze[slot]
                if left:
                    if left > pulses:
                        daze[slot] = left - pulses
                        dazed = True
                    else:
                        daze[slot] = 0
            self.dazed = dazed
            self.clear = not (waiting or dazed)
            return
        for column in (self._wait[:n], self._daze[:n]):
            np.subtract(column, np.minimum(column, pulses), out=column)
        self.dazed = bool(self._daze[:n].any())
        self.clear = not self.dazed and not self._wait[:n].any()


# -- the setters (R-LAG-4..7, R-STAT-2) ------------------------------------------------
TIER_KEEPS = {0: (1, 1), 1: (1, 4), 2: (1, 3), 3: (1, 2)}  # R-LAG-6: fraction kept


def tier_cut(npc_tier: int, pulses: int) -> int:
    """R-LAG-6: a tier-1 NPC keeps a quarter of lag others put on it, tier 2 a third,
    tier 3 a half (truncated: 13 pulses on tier 1 -> 3)."""
    keep_num, keep_den = TIER_KEEPS[npc_tier]
    return pulses * keep_num // keep_den


def raise_lag(world: World, sheet: Sheet, column: str, pulses: int, *, own: bool) -> int:
    """The engine's setter for wait or daze: never lowers (R-LAG-4).

    An immortal's wait is always 1 (R-LAG-5). Lag that others put on an NPC of tier 1-3
    is cut (R-LAG-6); lag from its own actions is not. A Sluggish creature's own waits
    are raised by 2 pulses per degree (R-STAT-2). Returns the new value.

    A raise past what the 32-bit column holds saturates at LAG_MAX (2**31 - 1 pulses):
    content bounds each term (`world.limits.max_pulses`), not their sum, and Sluggish
    adds up to max_status_degree x wait_per_degree on top of a spell's beats.
    """
    array = world.lag.wait if column == "wait" else world.lag.daze
    slot = sheet.creature.slot
    if column == "wait" and sheet.creature.immortal:
        array[slot] = 1
        return 1
    if own:
        if column == "wait":
            sluggish = sheet.statuses.degrees.get("sluggish", 0)
            if sluggish:
                pulses += world.content.statuses["sluggish"].wait_per_degree * sluggish
    elif sheet.npc and sheet.creature.npc_tier:
        pulses = tier_cut(sheet.creature.npc_tier, pulses)
    if pulses > LAG_MAX:
        pulses = LAG_MAX
    if pulses > array[slot]:
        array[slot] = pulses
        if column == "daze":
            world.lag.dazed = True
    return int(array[slot])


def raise_lag_rounds(world: World, sheet: Sheet, column: str, rounds: int, *,
                     own: bool) -> int:
    """The combat-round variant (setWaitViolence): `rounds` x the round length (the
    product saturates with the raise, at LAG_MAX)."""
    return raise_lag(world, sheet, column, rounds * world.content.fight.round_pulses, own=own)


def script_set_lag(world: World, sheet: Sheet, column: str, pulses: int) -> int:
    """R-LAG-7: the scripting field assigns as given, so a script can shorten or clear
    lag; only a raise above the current value meets the NPC tier cut (and never ends
    below the current value)."""
    array = world.lag.wait if column == "wait" else world.lag.daze
    slot = sheet.creature.slot
    current = int(array[slot])
    value = max(0, pulses)
    if value > current and sheet.npc and sheet.creature.npc_tier:
        value = max(current, tier_cut(sheet.creature.npc_tier, value))
    array[slot] = value
    if column == "daze" and value:
        world.lag.dazed = True
    return value
