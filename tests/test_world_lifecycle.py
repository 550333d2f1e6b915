"""World lifecycle: one esper context per World, freed on close or when dropped.

esper keeps its state in module globals, one "context" per name. A World owns a context
of its own; `close()` (or the World being garbage-collected) deletes it, so a program
(a batch run, a test suite, a server) can make and drop worlds without limit.
"""

from __future__ import annotations

import gc
import sys
import tracemalloc
from collections.abc import Callable

import esper
import numpy as np
import pytest
from conftest import world_from_text

import affray
from affray.components import Creature, ItemStack, Position
from affray.core.grid import Grid, Terrain
from affray.data.content_loader import default_content
from affray.data.creatures import resolve
from affray.data.scenario import ScenarioCreature

WORLDS = 10_000
BASELINE = 500
# Bound on traced memory growth between world 500 and world 10,000, in bytes. A world
# here holds a 3x4 grid (five numpy arrays), a creature (15 components plus a sheet),
# an item, a queued move, the lag arrays (64 slots) and its esper context: well over
# 5 KB all told. A leak of even 1% of that, or of one small object per world (a context
# name in esper's map, a finalizer in weakref's registry, an event list), would add at
# least ~50 bytes x 9,500 worlds = 475 KB; a whole-world leak would add tens of MB.
# What is not a leak stays well under the bound: allocator and interned-string noise
# and caches that warm up early (the first 500 worlds absorb those).
GROWTH_BOUND = 256 * 1024
# Bound on the growth of live Python memory blocks (sys.getallocatedblocks) between
# world 500 and world 10,000. Every leaked object is at least one block, so leaking a
# single object per world adds 9,500; measured noise after gc.collect() is a few hundred
# blocks either way.
BLOCKS_BOUND = 2_000

TERRAIN = np.array([[Terrain.WALL] * 4,
                    [Terrain.WALL, Terrain.FLOOR, Terrain.FLOOR, Terrain.WALL],
                    [Terrain.WALL] * 4], dtype=np.uint8)


def _small_world_maker() -> Callable[[], affray.World]:
    """A maker of small, busy worlds: a creature, an item, a move queued and run."""
    content = default_content()
    hero = ScenarioCreature(id="hero", at=(1, 1))

    def make() -> affray.World:
        world = affray.World(content, Grid(TERRAIN.copy()), seed=3)
        world.add_creature("hero", (1, 1), resolve(content, hero, None))
        world.add_item("scroll", (2, 1))
        world.submit(affray.Move(actor="hero", to=(2, 1)))
        world.tick()
        return world

    return make


def _growth(cycle: Callable[[], None], measure: Callable[[], int]) -> int:
    """Run `cycle` WORLDS times; how much `measure` grew from world BASELINE to the end."""
    for _ in range(BASELINE):
        cycle()
    gc.collect()
    baseline = measure()
    for _ in range(WORLDS - BASELINE):
        cycle()
    gc.collect()
    return measure() - baseline


def test_small_world_maker_makes_a_busy_world():
    """The worlds the memory tests churn through really hold entities and ran a pulse."""
    world = _small_world_maker()()
    try:
        assert world.pulse == 1
        assert world.snapshot()["creatures"]["hero"]["at"] == [2, 1]
        assert world.snapshot()["items"] == [{"at": [2, 1], "item": "scroll", "count": 1}]
        world.enter()
        assert len(list(esper.get_entities())) == 2
    finally:
        world.close()


def test_ten_thousand_worlds_closed_or_dropped_keep_traced_memory_flat():
    """10,000 worlds, every other one closed and the rest just dropped: the memory
    tracemalloc sees grows by less than GROWTH_BOUND (256 KB) from world 500 to world
    10,000 (see the bound's comment: a 50-byte leak per world would exceed it), and
    esper holds no context of theirs afterwards."""
    make = _small_world_maker()
    contexts = set(esper.list_worlds())
    count = 0

    def cycle() -> None:
        nonlocal count
        count += 1
        world = make()
        if count % 2:
            world.close()

    make().close()  # warm caches (imports, content, esper) before tracing starts
    gc.collect()
    tracemalloc.start()
    try:
        growth = _growth(cycle, lambda: tracemalloc.get_traced_memory()[0])
    finally:
        tracemalloc.stop()
    assert count == WORLDS
    assert growth < GROWTH_BOUND
    assert set(esper.list_worlds()) == contexts


def test_ten_thousand_closed_worlds_leave_no_objects_or_contexts():
    """Making and closing 10,000 worlds: live Python blocks grow by less than
    BLOCKS_BOUND from world 500 to world 10,000, and esper's contexts are as before."""
    make = _small_world_maker()
    contexts = set(esper.list_worlds())

    def cycle() -> None:
        make().close()

    assert _growth(cycle, sys.getallocatedblocks) < BLOCKS_BOUND
    assert set(esper.list_worlds()) == contexts


def test_ten_thousand_dropped_worlds_leave_no_objects_or_contexts():
    """Making and dropping 10,000 worlds (no close): the finalizer deletes each World's
    context as the World goes, live blocks stay flat and esper's contexts never grow."""
    make = _small_world_maker()
    contexts = set(esper.list_worlds())
    seen: set[int] = set()

    def cycle() -> None:
        make()  # the reference is dropped at once
        seen.add(len(esper.list_worlds()))

    assert _growth(cycle, sys.getallocatedblocks) < BLOCKS_BOUND
    assert set(esper.list_worlds()) == contexts
    # Dropped by reference counting, not left to the cycle collector: no dropped world's
    # context outlived the statement that dropped it.
    assert seen == {len(contexts)}


def test_dropped_world_frees_its_context_without_the_cycle_collector():
    """A World has no reference cycle keeping it alive: with gc off, dropping the last
    reference deletes its esper context at once."""
    make = _small_world_maker()
    enabled = gc.isenabled()
    gc.disable()
    try:
        world = make()
        context = world.context
        assert context in esper.list_worlds()
        del world
        assert context not in esper.list_worlds()
    finally:
        if enabled:
            gc.enable()


def test_each_world_has_its_own_esper_context(make_world):
    """Two worlds: two context names, separate entity ids, separate components."""
    text = """
[map]
rows = ["#####", "#...#", "#####"]

[[creatures]]
id = "{who}"
at = [{x}, 1]
"""
    first = make_world(text.format(who="ann", x=1))
    second = make_world(text.format(who="bob", x=3))
    assert first.context != second.context
    assert {first.context, second.context} <= set(esper.list_worlds())
    # Each context counts entities from its own start: the same id in both worlds.
    assert first.entity("ann") == second.entity("bob")
    first.enter()
    assert [c.id for _e, c in esper.get_component(Creature)] == ["ann"]
    second.enter()
    assert [c.id for _e, c in esper.get_component(Creature)] == ["bob"]


def test_interleaved_worlds_keep_separate_state(make_world):
    """Ticking two worlds in turn, and adding to one while the other is current, never
    mixes their entities, positions, items or clocks."""
    text = """
[map]
rows = ["######", "#....#", "######"]

[[creatures]]
id = "walker"
at = [1, 1]

[[actions]]
pulse = 0
actor = "walker"
move = [2, 1]

[[actions]]
pulse = 2
actor = "walker"
move = [3, 1]
"""
    first = make_world(text)
    second = make_world(text)
    first.tick()
    second.tick()
    first.tick()
    first.tick()  # first is at pulse 3 (both moves done), second at pulse 1 (one move)
    assert (first.pulse, second.pulse) == (3, 1)
    assert first.snapshot()["creatures"]["walker"]["at"] == [3, 1]
    assert second.snapshot()["creatures"]["walker"]["at"] == [2, 1]
    # second is the current context now; add to first all the same
    second.enter()
    first.add_item("scroll", (4, 1))
    assert first.snapshot()["items"] == [{"at": [4, 1], "item": "scroll", "count": 1}]
    assert second.snapshot()["items"] == []
    second.enter()
    assert esper.get_component(ItemStack) == []
    first.enter()
    assert [(p.x, p.y) for _e, (p, _s) in esper.get_components(Position, ItemStack)] == \
        [(4, 1)]
    second.run()
    first.run()
    assert [e.to_dict() for e in first.events] == [e.to_dict() for e in second.events]
    assert first.snapshot()["creatures"] == second.snapshot()["creatures"]


def test_a_world_built_after_another_does_not_see_its_entities():
    """Each world has its own esper context (creating one leaves esper's current world
    as it was: tests/test_esper_context.py); the older world's entities are in its own
    context only."""
    older = world_from_text('[map]\nrows = ["###", "#.#", "###"]\n'
                            '[[creatures]]\nid = "old"\nat = [1, 1]\n')
    try:
        newer = world_from_text('[map]\nrows = ["###", "#.#", "###"]\n')
        try:
            newer.enter()
            assert esper.current_world == newer.context
            assert esper.get_component(Creature) == []
            assert older.snapshot()["creatures"]["old"]["at"] == [1, 1]
            assert newer.snapshot()["creatures"] == {}
        finally:
            newer.close()
    finally:
        older.close()


@pytest.mark.parametrize("use", [
    lambda w: w.tick(),
    lambda w: w.run(3),
    lambda w: w.snapshot(),
    lambda w: w.submit(affray.Move(actor="hero", to=(2, 1))),
    lambda w: w.add_item("scroll", (2, 1)),
    lambda w: w.enter(),
], ids=["tick", "run", "snapshot", "submit", "add_item", "enter"])
def test_closed_world_raises_on_use(tmp_path, use):
    """A closed world's context is gone: any use raises instead of touching another
    world's (or esper's default) context."""
    world = _small_world_maker()()
    context = world.context
    world.close()
    assert context not in esper.list_worlds()
    current = esper.current_world
    with pytest.raises(RuntimeError, match="closed"):
        use(world)
    assert esper.current_world == current
    assert context not in esper.list_worlds()
    with pytest.raises(RuntimeError, match="closed"):
        world.save(tmp_path / "closed.sav")
    assert not (tmp_path / "closed.sav").exists()


def test_close_twice_and_context_manager():
    """close() may be called again; `with World(...)` closes on exit."""
    world = _small_world_maker()()
    world.close()
    world.close()
    assert world.context not in esper.list_worlds()
    with affray.World(default_content(), Grid(TERRAIN.copy())) as managed:
        context = managed.context
        assert context in esper.list_worlds()
    assert context not in esper.list_worlds()
