"""Minds: what one decision costs, and the walking-distance map under it (issue 20).

Rows (the suite's "minds" section; `minds_rows(content)` gives them all):
- one decision of a built-in mind with 100 creatures in its sight (50 foes and 50
  allies within 8 cells, in pairs side by side, nothing moving, so the field of view
  and the distance map come from the world's cache): what `minds.think` pays for a
  creature at each free pulse, less carrying out the action. A brute (aggressive: the
  nearest foe by walking distance), a guard (assist: the fights of its side it sees;
  every other foe fights an ally) and content's caster casting at every try (R-MIND-6:
  every spell of its list at every foe, by preview);
- a Dijkstra map of a 512 x 512 floor with random walls from one root, through
  `walking.compute` (the whole map: what a mind falls back to when its window is not
  exact) against a bare `tcod.path.dijkstra2d` on the same cost array: the price of
  building the cost array and the result around tcod's own work;
- a dungeon level of resting monsters (brutes 10 cells apart, none in sight of a foe)
  while a long fight goes on in one corner, a pulse of it with the skip of
  systems/rules/minds/rest.py against the plain rule (every resting mind asked again
  whenever the log grew) in the same run, the logs checked equal.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import msgspec
import numpy as np
import tcod.path

from affray.core.grid import Grid, Terrain
from affray.core.world import World
from affray.data.content_loader import Content
from affray.data.creatures import resolve
from affray.data.defs import CreatureFields
from affray.systems.rules import walking
from affray.systems.rules.minds.traits import decide
from affray.systems.rules.minds.view import MindView

from .timing import Result, result_from

FOE = CreatureFields(level=10, hp=1000, player=True)
ALLY = CreatureFields(level=10, hp=1000)


def crowd_world(content: Content, mind: str, creatures: int = 100, seed: int = 1) -> World:
    """A 41 x 41 floor with the deciding creature "me" (with `mind`) at its centre and
    `creatures` others within 8 cells of it (Chebyshev; none beside it), in pairs side
    by side: a foe (a player character) and an ally, every other pair fighting, so a
    guard sees its side's fights."""
    terrain = np.full((41, 41), Terrain.FLOOR, dtype=np.uint8)
    world = World(content, Grid(terrain), seed=seed, name="bench-minds")
    world.add_creature("me", (20, 20), resolve(content, CreatureFields(
        level=20, hp=1000, mind=mind), None))
    slots = [((x, y), (x + 1, y)) for y in range(12, 29, 2) for x in range(12, 28, 3)
             if min(max(abs(x - 20), abs(y - 20)), max(abs(x + 1 - 20), abs(y - 20))) >= 2]
    for index, (foe, ally) in enumerate(slots[:creatures // 2]):
        world.add_creature(f"f{index}", foe, resolve(content, FOE, None))
        world.add_creature(f"a{index}", ally, resolve(content, ALLY, None))
        if index % 2 == 0:
            world.start_fight(f"f{index}", f"a{index}")
    return world


def decision_times(content: Content, mind: str, creatures: int, repeats: int,
                   decisions: int) -> list[float]:
    """Seconds per block of `decisions` decisions of the creature "me" (a fresh view
    each, as `minds.think` makes; caches warm after the first)."""
    world = crowd_world(content, mind, creatures)
    try:
        world.enter()
        sheet = world.sheet("me")
        memory = sheet.mind
        decide(MindView(world, sheet), "me")  # warm the caches
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            for _ in range(decisions):
                memory.next_cast = 0  # a caster tries every time
                decide(MindView(world, sheet), "me")
            times.append(time.perf_counter() - start)
        return times
    finally:
        world.close()


def mind_decision(content: Content, creatures: int = 100, repeats: int = 7,
                  decisions: int = 20) -> list[Result]:
    """One decision of a brute, a guard and a caster with `creatures` in sight."""
    caster = msgspec.to_builtins(content.minds["caster"])
    sure = content.layered({"minds": {"sure_caster": {**caster, "cast_chance": 100}}},
                           "benchmark")
    rows = []
    for label, mind in (("brute", "brute"), ("guard", "guard"), ("caster", "sure_caster")):
        times = decision_times(sure, mind, creatures, repeats, decisions)
        rows.append(result_from(f"mind decision, {label}", f"{creatures} in sight",
                                "decision", decisions, times,
                                note="caches warm, nothing moved; the action not run"))
    return rows


def wall_grid(side: int, walls: float = 0.2, seed: int = 1) -> Grid:
    """A side x side floor with `walls` of its cells walls, at random."""
    gen = np.random.default_rng(seed)
    terrain = np.where(gen.random((side, side)) < walls, Terrain.WALL,
                       Terrain.FLOOR).astype(np.uint8)
    terrain[side // 2, side // 2] = Terrain.FLOOR
    return Grid(terrain)


def bare_dijkstra(cost: np.ndarray, root: tuple[int, int]) -> Callable[[], np.ndarray]:
    """tcod's Dijkstra alone, on a cost array made beforehand."""
    def run() -> np.ndarray:
        dist = np.full(cost.shape, walking.UNREACHED, dtype=np.int32)
        dist[root[1], root[0]] = 0
        tcod.path.dijkstra2d(dist, cost, 1, 1, out=dist)
        return dist
    return run


def dijkstra_map(side: int = 512, repeats: int = 7) -> list[Result]:
    """A whole-map walking-distance field through walking.compute, and tcod's bare
    dijkstra2d on the same cost array; the ratio of the two."""
    grid = wall_grid(side)
    root = (side // 2, side // 2)
    cost = walking.walkable(grid, 0, 0, grid.width, grid.height)
    bare = bare_dijkstra(cost, root)
    ours = walking.compute(grid, (root,), root, None)
    if not np.array_equal(ours.dist, bare()):
        raise AssertionError("walking.compute and the bare dijkstra2d disagree")
    times_ours, times_bare = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        walking.compute(grid, (root,), root, None)
        times_ours.append(time.perf_counter() - start)
        start = time.perf_counter()
        bare()
        times_bare.append(time.perf_counter() - start)
    size = f"{side} x {side}, 20% walls"
    ours_row = result_from("dijkstra map, walking.compute", size, "map", 1, times_ours,
                           note="cost array from the grid, then tcod")
    bare_row = result_from("dijkstra map, bare tcod", size, "map", 1, times_bare,
                           note="tcod.path.dijkstra2d on a ready cost array")
    ours_row.ratio = ours_row.median_seconds / bare_row.median_seconds
    ours_row.ratio_of = bare_row.name
    return [ours_row, bare_row]


def dungeon_world(monsters_per_row: int, seed: int = 0) -> World:
    """Brutes on a square lattice 10 cells apart, a hero and a troll fighting in the
    corner (3,000 hp each: the fight lasts the whole measure)."""
    side = monsters_per_row * 10 + 10
    world = World.new(["." * side] * side, seed=seed)
    for i in range(monsters_per_row):
        for j in range(monsters_per_row):
            if i or j:
                world.spawn(f"m{i}_{j}", (5 + 10 * i, 5 + 10 * j), template="orc_brute",
                            mind="brute")
    world.spawn("hero", (1, 1), template="human_warrior", side="players", hp=3000)
    world.spawn("troll", (2, 1), template="orc_brute", hp=3000, fighting="hero")
    return world


def resting_minds(monsters_per_row: int = 32, pulses: int = 240) -> list[Result]:
    """The dungeon's pulses both ways (module docstring); the ratio plain / skip."""
    from affray.systems.rules.minds import rest

    times, logs = {}, {}
    for enabled in (False, True):
        rest.ENABLED = enabled
        try:
            world = dungeon_world(monsters_per_row)
            start = time.perf_counter()
            world.run(pulses=pulses)
            times[enabled] = time.perf_counter() - start
            logs[enabled] = [event.to_dict() for event in world.events]
            world.close()
        finally:
            rest.ENABLED = True
    if logs[False] != logs[True]:
        raise AssertionError("resting minds: the skip changed the log")
    size = f"{monsters_per_row ** 2 - 1:,} brutes, {pulses} pulses"
    skip = result_from("resting minds, skip", size, "pulse", pulses, [times[True]],
                       note="asked again only when something changed in reach")
    plain = result_from("resting minds, plain rule", size, "pulse", pulses, [times[False]],
                        note="every resting mind asked again when the log grew")
    skip.ratio, skip.ratio_of = times[True] / times[False], plain.name
    return [skip, plain]


def minds_rows(content: Content, quick: bool = False) -> list[Result]:
    """Every row of this module (`quick`: fewer repeats)."""
    repeats = 3 if quick else 7
    return [*mind_decision(content, repeats=repeats), *dijkstra_map(repeats=repeats),
            *resting_minds(12 if quick else 32, 120 if quick else 240)]
