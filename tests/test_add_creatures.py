"""`World.add_creatures`: many creatures at once, as many `add_creature` calls give."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import affray
from affray.data.creatures import Copier, resolve
from affray.data.defs import CreatureFields


def _world() -> affray.World:
    return affray.World.new(["......", "......", "......"], seed=3)


def _creatures(content, count: int):
    kinds = [CreatureFields(level=5, hp=30, mind="brute", side="red"),
             CreatureFields(level=9, hp=44, side="blue", affects=["sanctuary"])]
    makers = [Copier(resolve(content, kind, None)) for kind in kinds]
    return [(f"c{i}", (i % 6, i // 6), makers[i % 2]()) for i in range(count)]


def test_add_creatures_is_add_creature_called_in_order():
    """Same entities, ids, cells, components, roster and minds; then the same run."""
    one, many = _world(), _world()
    try:
        singles = [one.add_creature(cid, at, values)
                   for cid, at, values in _creatures(one.content, 11)]
        bulk = many.add_creatures(_creatures(many.content, 11))
        assert bulk == singles
        assert many.by_id == one.by_id
        assert many.snapshot() == one.snapshot()
        assert np.array_equal(many.grid.occupant, one.grid.occupant)
        n = one.roster.count
        assert many.roster.count == n
        for column in ("entity", "x", "y", "side", "alive"):
            assert np.array_equal(getattr(many.roster, column)[:n],
                                  getattr(one.roster, column)[:n])
        assert many.minded == one.minded
        one.run(120)
        many.run(120)
        assert [e.to_dict() for e in many.events] == [e.to_dict() for e in one.events]
    finally:
        one.close()
        many.close()


@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_is_as_it_was_after(enabled):
    """Paused while they are added, the collector is on again after only if it was on,
    also when an entry is refused part way (the ones before it stay added)."""
    world = _world()
    was = gc.isenabled()
    try:
        if not enabled:
            gc.disable()
        world.add_creatures(_creatures(world.content, 3))
        assert gc.isenabled() is enabled
        with pytest.raises(affray.UsageError, match=r"entry 1 \('x2'\): cell \[0, 0\] is already"):
            world.add_creatures([("x1", (5, 2), resolve(world.content, CreatureFields(), None)),
                                 ("x2", (0, 0), resolve(world.content, CreatureFields(), None))])
        assert gc.isenabled() is enabled
        assert "x1" in world.by_id and "x2" not in world.by_id
    finally:
        if was:
            gc.enable()
        world.close()


@pytest.mark.parametrize(("entry", "message"), [
    ("c9", r"entry 1: must be \(id, at, values\)"),
    (("c9", (0, 2)), r"entry 1: must be \(id, at, values\)"),
    ((7, (0, 2), "V"), r"entry 1: the id must be a non-empty str"),
    (("c9", (0, -1), "V"), r"entry 1 \('c9'\): cell \[0, -1\] is off the map \(6x3\)"),
    (("c9", (6, 0), "V"), r"cell \[6, 0\] is off the map"),
    (("c9", (1.5, 0), "V"), r"at must be a cell"),
    (("c9", (1, 2), {"hp": 3}), r"values must be CreatureValues"),
    (("c0", (1, 2), "V"), r"duplicate creature id 'c0'"),
])
def test_a_bad_entry_is_a_usage_error_naming_it_and_adds_nothing_for_it(entry, message):
    """The entries before it stay added; the bad one and those after it are not."""
    world = _world()
    try:
        good = _creatures(world.content, 3)
        values = good[2][2]
        if isinstance(entry, tuple) and len(entry) == 3 and entry[2] == "V":
            entry = (*entry[:2], values)
        before = world.snapshot()["creatures"]
        with pytest.raises(affray.UsageError, match=message):
            world.add_creatures([good[0], entry, good[1]])
        assert list(world.snapshot()["creatures"]) == [*before, "c0"]
        assert world.grid.occupant[2, 1] == 0 and world.grid.occupant[0, 5] == 0
    finally:
        world.close()


@pytest.mark.parametrize("enabled", [True, False])
def test_a_long_batch_sweeps_the_young_generation_only_if_the_collector_was_on(enabled):
    """Every `SWEEP_EVERY` creatures and after the last, generation 0 is collected
    (affray.core.collector) when the collector was on; never when the game had it off."""
    from affray.core.spawning import SWEEP_EVERY

    world = affray.World.new(["." * 30] * 30, seed=3)
    was = gc.isenabled()
    seen: list[int] = []

    def watch(phase: str, info: dict) -> None:
        if phase == "start":
            seen.append(info["generation"])

    make = Copier(resolve(world.content, CreatureFields(hp=5), None))
    count = 2 * SWEEP_EVERY + 10
    entries = [(f"c{i}", (i % 30, i // 30), make()) for i in range(count)]
    try:
        if not enabled:
            gc.disable()
        gc.callbacks.append(watch)
        try:
            world.add_creatures(entries)
        finally:
            gc.callbacks.remove(watch)
        assert gc.isenabled() is enabled
        assert seen == ([0, 0, 0] if enabled else [])
        assert len(world.by_id) == count
    finally:
        if was:
            gc.enable()
        world.close()
