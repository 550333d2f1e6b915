"""The LagTable's countdown (R-LAG-1) gives the same numbers whether it loops over a few
slots in Python or runs numpy over many, by one pulse or over a jump; and `World.run`
asks only the systems that can have a pulse of their own."""

from __future__ import annotations

import numpy as np

from affray.systems.rules import lag
from affray.systems.rules.lag import LAG_MAX, SMALL_TABLE, LagTable


def _table(wait: list[int], daze: list[int]) -> LagTable:
    table = LagTable()
    for _ in wait:
        table.new_slot()
    table.wait[:len(wait)] = wait
    table.daze[:len(daze)] = daze
    return table


def _expected(column: np.ndarray, pulses: int) -> np.ndarray:
    """R-LAG-1 written plainly: down by `pulses`, never below 0."""
    return np.maximum(column.astype(np.int64) - min(pulses, LAG_MAX), 0).astype(np.int32)


def test_countdown_r_lag_1_is_the_same_for_few_and_many_slots():
    """R-LAG-1: random tables of 0..20 slots (both sides of SMALL_TABLE), counted down
    by 1, by a round, and by jumps past the int32 range: wait and daze drop by the
    pulses and stop at 0, slots past `count` are untouched, `dazed` says whether any
    daze is left, and the arrays stay int32."""
    rng = np.random.default_rng(11)
    sizes_seen = set()
    for _trial in range(400):
        size = int(rng.integers(0, 21))
        sizes_seen.add(size <= SMALL_TABLE)
        wait = rng.integers(0, 40, size) * rng.integers(0, 2, size)
        daze = rng.integers(0, 40, size) * rng.integers(0, 2, size)
        if size:
            wait[0] = LAG_MAX
        table = _table(wait.tolist(), daze.tolist())
        table.wait[size:] = 7  # beyond `count`: never touched
        for pulses in (1, 12, 3, 2**40):
            before_wait, before_daze = table.wait.copy(), table.daze.copy()
            table.count_down(pulses)
            assert table.wait.dtype == np.int32 and table.daze.dtype == np.int32
            assert np.array_equal(table.wait[:size], _expected(before_wait[:size], pulses))
            assert np.array_equal(table.daze[:size], _expected(before_daze[:size], pulses))
            assert (table.wait[size:] == 7).all()
            assert table.dazed == bool(table.daze[:size].any())
    assert sizes_seen == {True, False}


def test_countdown_r_lag_1_worked_example():
    """R-LAG-1: wait 3, 0, 1 and daze 0, 2, 5: one pulse gives 2, 0, 0 and 0, 1, 4
    (dazed); a jump of 4 gives all 0 (not dazed)."""
    table = _table([3, 0, 1], [0, 2, 5])
    table.count_down()
    assert table.wait[:3].tolist() == [2, 0, 0]
    assert table.daze[:3].tolist() == [0, 1, 4]
    assert table.dazed
    table.count_down(4)
    assert table.wait[:3].tolist() == [0, 0, 0]
    assert table.daze[:3].tolist() == [0, 0, 0]
    assert not table.dazed
    assert lag.SMALL_TABLE >= 3  # this example took the slot-by-slot path


def test_next_pulse_asks_only_systems_with_pulses_of_their_own(duel):
    """Arc, Burst and FloorItemLoss follow the casts of the same pulse: `next_pulse`
    does not ask them. A replaced `systems` tuple is looked at afresh."""
    from affray.systems.base import System

    asked = []

    class Spy(System):
        name = "Spy"

        def __init__(self, own: bool) -> None:
            self.own_pulses = own  # type: ignore[misc]

        def process(self, world) -> None:  # type: ignore[override]
            return None

        def next_pulse(self, world) -> int | None:
            asked.append(self.own_pulses)
            return world.pulse + 5 if self.own_pulses else world.pulse

    world = duel()
    names = [system.name for system in world.systems if not system.own_pulses]
    assert names == ["Arc", "Burst", "FloorItemLoss"]
    world.next_pulse()
    world.systems = (Spy(True), Spy(False))
    assert world.next_pulse() == world.pulse + 5
    assert asked == [True]


def test_countdown_r_lag_1_after_a_clear_table_is_written():
    """R-LAG-1: a table known clear skips its countdown, but a write through `wait` or
    `daze` (even by hand) is counted down from the next pulse; a save's arrays too."""
    table = _table([0, 0], [0, 0])
    table.count_down()
    assert table.clear and not table.dazed
    table.wait[1] = 3
    table.count_down()
    assert not table.clear  # (read before the arrays: reading them unsets it)
    assert table.wait[:2].tolist() == [0, 2]
    table.count_down(5)
    assert table.clear
    assert table.wait[:2].tolist() == [0, 0]
    table.daze[0] = 2
    table.count_down()
    assert table.dazed and not table.clear
    assert table.daze[:2].tolist() == [1, 0]
    table.count_down()
    assert table.clear and not table.dazed
    table.wait = np.array([4, 0], dtype=np.int32)  # as a load sets it
    table.count_down()
    assert table.wait.tolist() == [3, 0]


def test_a_world_counts_down_wait_set_by_hand_between_runs(duel):
    """R-LAG-1 through the World: a fight that never lags leaves the table clear; a wait
    written into the array by hand afterwards still counts down, pulse by pulse and
    over a jump."""
    world = duel()
    world.run(24)
    assert world.lag.clear
    slot = world.sheet("a").creature.slot
    world.lag.wait[slot] = 30
    world.tick()
    assert world.wait_of("a") == 29
    world.run(10)
    assert world.wait_of("a") == 19
