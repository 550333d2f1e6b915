"""The benchmarks: idle pulse, world creation, water relabel, labellings without change.

Each benchmark is a function of the parsed content and a `Plan` (sizes and repeats) that
returns its result rows. The runner calls them in `BENCHMARKS` order; they share nothing
but the content, and close every world they build so esper contexts do not pile up.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from affray.core.grid import Grid, Terrain
from affray.core.world import World
from affray.data.content_loader import Content
from affray.data.creatures import Copier, resolve
from affray.data.scenario import build_world, parse_scenario

from .armies import army_rows
from .blows import melee_blows
from .casts import spell_casts
from .duels import duels
from .grid import item_loss, relabel_after_freeze
from .minds import minds_rows
from .packing import packed_duels
from .shapes import spell_shapes
from .timing import Result, result_from, time_repeats
from .view import view_versus_snapshot
from .volley import volley_rounds
from .worlds import (
    CREATURE,
    open_floor,
    open_floor_side,
    populate,
    spread_cells,
    water_terrain,
)


@dataclass(frozen=True, slots=True)
class Plan:
    """Sizes and repeats of one run of the suite (quick or full)."""

    idle_creatures: tuple[int, ...]
    idle_pulses: int
    idle_repeats: int
    worlds_per_block: int
    world_repeats: int
    relabel_sides: tuple[int, ...]
    relabel_repeats: int
    label_pulses: int = 1000
    warmup_pulses: int = 10
    blow_fighters: tuple[int, ...] = (100, 1_000)
    blow_rounds: int = 3
    shape_radii: tuple[int, ...] = (1, 3, 5, 10)
    shape_calls: int = 1_000
    shape_repeats: int = 5
    burst_repeats: int = 5
    lake_side: int = 100
    lake_repeats: int = 3
    quick: bool = False
    army_loads: tuple[int, ...] = (5_000, 50_000)   # a side: 10,000 and 100,000 creatures
    army_marches: tuple[int, ...] = (1_000, 5_000)
    march_pulses: int = 3
    army_battles: tuple[int, ...] = (50, 100, 200)


QUICK = Plan(idle_creatures=(1_000,), idle_pulses=50, idle_repeats=3, worlds_per_block=10,
             world_repeats=3, relabel_sides=(512,), relabel_repeats=3, shape_radii=(1, 5),
             shape_calls=200, shape_repeats=3, burst_repeats=2, lake_side=20, lake_repeats=2,
             quick=True, army_loads=(500, 2_000), army_marches=(100,), march_pulses=2,
             army_battles=(10,))
FULL = Plan(idle_creatures=(1_000, 10_000), idle_pulses=200, idle_repeats=7,
            worlds_per_block=50, world_repeats=7, relabel_sides=(512, 2048), relabel_repeats=7,
            blow_fighters=(100, 1_000, 10_000), blow_rounds=9)


# -- 1. idle pulse ----------------------------------------------------------------------------
def idle_pulse(content: Content, plan: Plan) -> list[Result]:
    """Cost of a pulse in which nothing happens, at several creature counts.

    The idle pulse is the floor under every simulation: a batch of fights spends most
    pulses waiting on lag. Its cost should grow no faster than the creature count, and
    ideally stay flat (only numpy countdowns touch every creature). Spawning is timed
    once per size as its own row, since it is setup, not pulse work.
    """
    rows: list[Result] = []
    base_us: float | None = None
    for creatures in plan.idle_creatures:
        size = f"{creatures:,} creatures"
        world = open_floor(content, open_floor_side(creatures))
        try:
            cells = spread_cells(creatures, world.grid.terrain == Terrain.FLOOR)
            start = time.perf_counter()
            populate(world, content, cells)
            one_by_one = result_from("spawn creatures (resolve + add)", size, "creature",
                                     creatures, [time.perf_counter() - start])
            rows.append(one_by_one)
            rows.append(bulk_spawn(content, creatures, one_by_one))
            world.run(plan.warmup_pulses)
            pulses = plan.idle_pulses

            def block(world: World = world, pulses: int = pulses) -> None:
                for _ in range(pulses):
                    world.tick()

            row = result_from("idle pulse", size, "pulse", pulses,
                              time_repeats(block, plan.idle_repeats))
            row.note = f"{row.per_unit_us * 1000 / creatures:.1f} ns per creature"
            if base_us is None:
                base_us = row.per_unit_us
            else:
                row.ratio = row.per_unit_us / base_us
                row.ratio_of = f"{plan.idle_creatures[0]:,} creatures"
            rows.append(row)
        finally:
            world.close()
    return rows


def bulk_spawn(content: Content, creatures: int, one_by_one: Result) -> Result:
    """`World.add_creatures` of copies of one resolution (`Copier`), against resolving
    and adding each (the row before it, same size)."""
    world = open_floor(content, open_floor_side(creatures))
    try:
        cells = spread_cells(creatures, world.grid.terrain == Terrain.FLOOR)
        make = Copier(resolve(content, CREATURE, None))
        start = time.perf_counter()
        world.add_creatures((f"c{index}", at, make()) for index, at in enumerate(cells))
        row = result_from("spawn creatures (add_creatures, copies)", f"{creatures:,} creatures",
                          "creature", creatures, [time.perf_counter() - start])
    finally:
        world.close()
    row.ratio, row.ratio_of = row.per_unit_us / one_by_one.per_unit_us, one_by_one.name
    return row


# -- 2. world creation --------------------------------------------------------------------------
SMALL_SIDE = 20
SMALL_CREATURES = 10


def _small_rows() -> list[str]:
    """A 20x20 room: a wall around an open floor."""
    inner = "#" + "." * (SMALL_SIDE - 2) + "#"
    return ["#" * SMALL_SIDE] + [inner] * (SMALL_SIDE - 2) + ["#" * SMALL_SIDE]


def _small_cells() -> list[tuple[int, int]]:
    """Where the 10 creatures stand: every other cell of rows 2 and 6, inside the wall."""
    return [(1 + (2 * i) % (SMALL_SIDE - 2), 2 + 4 * ((2 * i) // (SMALL_SIDE - 2)))
            for i in range(SMALL_CREATURES)]


def _small_scenario_text() -> str:
    """The 20x20 room with its 10 creatures as scenario TOML."""
    lines = ['name = "bench"', "seed = 1", "pulses = 10", "", "[map]", "rows = ["]
    lines += [f'  "{row}",' for row in _small_rows()] + ["]"]
    for index, (x, y) in enumerate(_small_cells()):
        lines += ["", "[[creatures]]", f'id = "c{index}"', f"at = [{x}, {y}]",
                  "level = 10", "hp = 50"]
    return "\n".join(lines) + "\n"


def world_creation(content: Content, plan: Plan) -> list[Result]:
    """Cost of making a small world once content is parsed (call default_content first).

    Batch runs build one world per seed, thousands of times, so this is their fixed
    cost per run. Three ways in: the Python API, a scenario already parsed (a batch
    parses once and builds per seed), and scenario text (parse and build each time).
    Worlds are closed after each block, untimed.
    """
    size = f"{SMALL_SIDE}x{SMALL_SIDE}, {SMALL_CREATURES} creatures"
    number = plan.worlds_per_block
    terrain = np.array([[Terrain.WALL if c == "#" else Terrain.FLOOR for c in row]
                        for row in _small_rows()], dtype=np.uint8)
    cells = _small_cells()
    text = _small_scenario_text()
    spec, raw = parse_scenario(text, "bench.toml")

    def by_api() -> list[World]:
        worlds = []
        for _ in range(number):
            world = World(content, Grid(terrain.copy()), seed=1, name="bench")
            for index, at in enumerate(cells):
                world.add_creature(f"c{index}", at, resolve(content, CREATURE, None))
            worlds.append(world)
        return worlds

    def from_spec() -> list[World]:
        return [build_world(spec, raw, "bench.toml", content=content) for _ in range(number)]

    def from_text() -> list[World]:
        worlds = []
        for _ in range(number):
            parsed, parsed_raw = parse_scenario(text, "bench.toml")
            worlds.append(build_world(parsed, parsed_raw, "bench.toml", content=content))
        return worlds

    def close_all(worlds: list[World]) -> None:
        for world in worlds:
            world.close()

    rows = []
    for name, block in (("world build: API", by_api),
                        ("world build: parsed scenario", from_spec),
                        ("world build: scenario text", from_text)):
        close_all(block())  # warm-up: first-use imports and caches do not count
        rows.append(result_from(name, size, "world", number,
                                time_repeats(block, plan.world_repeats, after=close_all)))
    return rows


# -- 3. water relabel and item loss: see benchmarks/grid.py -----------------------------


# -- 4. labellings without terrain change --------------------------------------------------------
LAKE_SIDE = 64
LAKE_CREATURES = 100


def labellings(content: Content, plan: Plan) -> list[Result]:
    """Water labellings over many pulses with no terrain change: must be 0 (R-GRID-5).

    A relabel costs about a scipy.ndimage.label of the whole map; doing it every pulse
    would make the idle pulse of a large map hundreds of times dearer. The count is the
    check; a control pulse after one terrain change must then count exactly 1, or the
    zero proves nothing (a counter that never counts).
    """
    size = f"{LAKE_SIDE}x{LAKE_SIDE} lake, {LAKE_CREATURES} creatures"
    world = World(content, Grid(water_terrain(LAKE_SIDE, seed=2)), seed=1, name="bench-lake")
    try:
        populate(world, content, spread_cells(LAKE_CREATURES,
                                              world.grid.terrain == Terrain.FLOOR))
        world.tick()  # any setup relabel happens here, before counting
        before = world.grid.labellings
        pulses = plan.label_pulses
        times = time_repeats(lambda: world.run(pulses), 1)
        changes = world.grid.labellings - before
        row = result_from("labellings, no terrain change", size, "pulse", pulses, times,
                          value=changes, ok=changes == 0,
                          note="must be 0" if changes == 0 else "MUST BE 0: relabel without change")
        ys, xs = np.nonzero(world.grid.terrain == Terrain.WATER)
        before = world.grid.labellings
        world.grid.set_terrain(int(xs[0]), int(ys[0]), Terrain.ICE, ice_cm=10)  # freeze one
        control_times = time_repeats(world.tick, 1)
        counted = world.grid.labellings - before
        control = result_from("labellings, 1 terrain change", size, "pulse", 1, control_times,
                              value=counted, ok=counted == 1,
                              note="control: must be 1")
        return [row, control]
    finally:
        world.close()


Benchmark = Callable[[Content, Plan], list[Result]]

BENCHMARKS: tuple[tuple[str, Benchmark], ...] = (
    ("idle pulse", idle_pulse),
    ("world creation", world_creation),
    ("water relabel", lambda content, plan: relabel_after_freeze(content, plan.relabel_sides,
                                                                 plan.relabel_repeats)),
    ("item loss", lambda content, plan: item_loss(content, 10_000, plan.relabel_repeats)),
    ("labellings", labellings),
    ("melee blows", lambda content, plan: melee_blows(content, plan.blow_fighters,
                                                      plan.blow_rounds)),
    ("duels", duels),
    ("packed duels", packed_duels),
    ("big battles", lambda content, plan: volley_rounds(content, plan.blow_fighters,
                                                        plan.blow_rounds)),
    ("spell shapes", lambda content, plan: spell_shapes(plan.shape_radii, plan.shape_calls,
                                                        plan.shape_repeats)),
    ("spell casts", lambda content, plan: spell_casts(plan.burst_repeats, plan.lake_side,
                                                      plan.lake_repeats)),
    ("minds", lambda content, plan: minds_rows(content, quick=plan.quick)),
    ("armies", lambda content, plan: army_rows(content, plan.army_loads, plan.army_marches,
                                               plan.march_pulses, plan.army_battles)),
    ("creature view", lambda content, plan: view_versus_snapshot(
        content, frames=20, repeats=plan.idle_repeats)),
)
