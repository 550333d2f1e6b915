"""The lag table's `clear` flag (issue 11) over pulses in a row: a countdown that leaves
some lag must leave the table not clear, so the next countdown, with nobody touching the
arrays between them, still counts (R-LAG-1). tests/test_lag_table.py reads the arrays
between countdowns, which unsets the flag; these do not. Both the slot-by-slot path (a
few creatures) and the numpy path (a crowd) are checked, and a daze column set whole,
as a load sets it.
"""

from __future__ import annotations

import numpy as np
import pytest

from affray.systems.rules.lag import SMALL_TABLE, LagTable

SIZES = (3, SMALL_TABLE + 2)  # the slot-by-slot path and the numpy path


def _table(size: int, wait: dict[int, int], daze: dict[int, int]) -> LagTable:
    table = LagTable()
    for _ in range(size):
        table.new_slot()
    for slot, pulses in wait.items():
        table.wait[slot] = pulses
    for slot, pulses in daze.items():
        table.daze[slot] = pulses
    return table


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize(("wait", "daze"), [
    ({1: 5}, {}),          # only a wait left: not dazed, still not clear
    ({}, {2: 5}),          # only a daze left
    ({0: 5}, {2: 7}),
])
def test_r_lag_1_countdowns_in_a_row_keep_counting(size, wait, daze):
    """R-LAG-1: wait and daze of 5 (and 7) go down one a pulse over pulses in a row,
    nobody reading the arrays between: 5 -> 2 after three pulses, 7 -> 4; then to 0
    (the table clear again, nobody dazed)."""
    table = _table(size, wait, daze)
    for _ in range(3):
        table.count_down()
    assert table.dazed == bool(daze)
    assert not table.clear
    assert {slot: int(table.wait[slot]) for slot in wait} == {
        slot: pulses - 3 for slot, pulses in wait.items()}
    assert {slot: int(table.daze[slot]) for slot in daze} == {
        slot: pulses - 3 for slot, pulses in daze.items()}
    for _ in range(4):
        table.count_down()
    assert table.clear and not table.dazed
    assert not table.wait[:size].any() and not table.daze[:size].any()


@pytest.mark.parametrize("size", SIZES)
def test_r_lag_1_a_daze_column_set_whole_is_counted_down(size):
    """R-LAG-1: a clear table given a whole daze column (as a load sets it) counts it
    down from the next pulse: 4 -> 3, and a whole wait column likewise."""
    table = _table(size, {}, {})
    table.count_down()
    assert table.clear
    daze = np.zeros(64, dtype=np.int32)
    daze[1] = 4
    table.daze = daze
    table.count_down()
    assert table.dazed
    assert table.daze[:3].tolist() == [0, 3, 0]
    table.count_down(3)
    assert table.clear and not table.dazed
    wait = np.zeros(64, dtype=np.int32)
    wait[0] = 2
    table.wait = wait
    table.count_down()
    assert table.wait[:2].tolist() == [1, 0]
