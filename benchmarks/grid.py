"""Grid benchmarks: water relabel after a freeze, and floor items lost to one cast.

- Relabel (R-TERR-4): the engine's relabel after one cell freezes, against a bare
  `scipy.ndimage.label` of the same map in the same run (the floor nothing can go under).
  Target: at most 1.3x. The body's cells are read from the label array only when asked,
  so a relabel is the label plus the difference in body entities.
- Item loss (R-LOSS-2): one fire burst over 10,000 floor stacks (a mix of the starter
  items, 1..19 each), the FloorItemLoss step alone. Target: 5 ms or less. Timed warm
  (the floor index built by an earlier step, as in a running world) and cold (the
  index built in the timed call: the first cast after a load or a world build).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import numpy as np

from affray.core.grid import Grid, Terrain
from affray.core.world import World
from affray.data.creatures import resolve
from affray.systems.floor_loss import FloorItemLossSystem, floor_index
from affray.systems.rules.casting import CastRecord
from affray.systems.terrain import relabel_water

from .timing import Result, result_from
from .worlds import CREATURE, water_terrain

if TYPE_CHECKING:
    from affray.data.content_loader import Content


def relabel_after_freeze(content: Content, sides: tuple[int, ...], repeats: int) -> list[Result]:
    """Freeze (then thaw) one water cell and relabel, against scipy's bare label.

    The two are timed alternately, call for call, so drift on a shared machine hits both
    alike; the ratio is of the medians.
    """
    from scipy import ndimage  # imported where used: scipy.ndimage is slow to import

    structure = np.ones((3, 3), dtype=bool)
    rows: list[Result] = []
    for side in sides:
        size = f"{side}x{side}"
        world = World(content, Grid(water_terrain(side)), seed=1, name="bench-water")
        try:
            grid = world.grid
            ys, xs = np.nonzero(grid.terrain == Terrain.WATER)
            middle = len(xs) // 2
            cell = int(xs[middle]), int(ys[middle])
            frozen = [False]

            def bare(grid: Grid = grid) -> int:
                _labels, count = ndimage.label(grid.terrain == Terrain.WATER,
                                               structure=structure)
                return int(count)

            def freeze_and_relabel(world: World = world, cell: tuple[int, int] = cell,
                                   frozen: list[bool] = frozen) -> None:
                world.enter()
                frozen[0] = not frozen[0]
                world.grid.set_terrain(*cell, Terrain.ICE if frozen[0] else Terrain.WATER,
                                       ice_cm=10)
                relabel_water(world)

            bare()  # warm-up
            freeze_and_relabel()
            bare_times: list[float] = []
            full_times: list[float] = []
            for _ in range(repeats):
                start = time.perf_counter()
                bare()
                bare_times.append(time.perf_counter() - start)
                start = time.perf_counter()
                freeze_and_relabel()
                full_times.append(time.perf_counter() - start)
            bodies = bare()
            cells = side * side
            water = float(np.mean(grid.terrain == Terrain.WATER))
            bare_row = result_from("scipy.ndimage.label", size, "call", 1, bare_times,
                                   note=f"{water:.0%} water, {bodies:,} bodies, "
                                        f"{min(bare_times) / cells * 1e9:.1f} ns/cell")
            full_row = result_from("relabel after a freeze (engine)", size, "call", 1,
                                   full_times, note=f"target <= 1.3x; "
                                   f"{min(full_times) / cells * 1e9:.1f} ns/cell")
            full_row.ratio = full_row.median_seconds / bare_row.median_seconds
            full_row.ratio_of = "scipy label, same map"
            rows += [bare_row, full_row]
        finally:
            world.close()
    return rows


LOSS_ITEMS = ("scroll", "potion", "bread", "candle", "torch", "corpse", "gold_coins", "wand",
              "bone_charm", "iron_key")


def _loss_world(content: Content, stacks: int) -> World:
    """A square floor with `stacks` floor stacks, one a cell, and a fire burst over all."""
    side = int(np.ceil(np.sqrt(stacks)))
    world = World(content, Grid(np.zeros((side, side), dtype=np.uint8)), seed=1,
                  name="bench-loss")
    world.add_creature("mage", (0, 0), resolve(content, CREATURE, None))
    counts = np.random.default_rng(0).integers(1, 20, size=stacks).tolist()
    for i, count in enumerate(counts):
        world.add_item(LOSS_ITEMS[i % len(LOSS_ITEMS)], (i % side, i // side), count)
    world.cast_records = [CastRecord(
        caster=world.entity("mage"), caster_id="mage", spell="fireball",
        definition=content.spells["fireball"], damage_type="fire", via="mana", level=20,
        origin=(0, 0), target=(side // 2, side // 2), centre=(side // 2, side // 2),
        area=[(x, y) for y in range(side) for x in range(side)])]
    return world


def item_loss(content: Content, stacks: int, repeats: int) -> list[Result]:
    """The FloorItemLoss step of one fire burst over `stacks` stacks (fresh world each)."""
    rows = []
    for warm in (True, False):
        times: list[float] = []
        cpu: list[float] = []  # process time: what a loaded shared machine inflates least
        lost = 0
        for _ in range(repeats):
            world = _loss_world(content, stacks)
            try:
                if warm:
                    floor_index(world)
                system = FloorItemLossSystem()
                before = len(world.events)
                start, start_cpu = time.perf_counter(), time.process_time()
                system.process(world)
                times.append(time.perf_counter() - start)
                cpu.append(time.process_time() - start_cpu)
                lost = len(world.events) - before
            finally:
                world.close()
        label = "warm index" if warm else "cold: index built in the call"
        rows.append(result_from(f"item loss, one fire burst ({label})", f"{stacks:,} stacks",
                                "cast", 1, times,
                                note=f"{lost:,} stacks lost items (one event each); "
                                     f"CPU median {sorted(cpu)[len(cpu) // 2] * 1e3:.2f} ms; "
                                     "target <= 5 ms warm"))
    return rows
