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
        with pytest.raises(ValueError, match="already occupied"):
            world.add_creatures([("x1", (5, 2), resolve(world.content, CreatureFields(), None)),
                                 ("x2", (0, 0), resolve(world.content, CreatureFields(), None))])
        assert gc.isenabled() is enabled
        assert "x1" in world.by_id and "x2" not in world.by_id
    finally:
        if was:
            gc.enable()
        world.close()
