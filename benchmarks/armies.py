"""Armies (issue 21): two sides of mind-driven soldiers, `affray.army(n)`.

Rows:
- loading an army scenario (`load_scenario` of `army(n)`'s text: parse, check, build),
  per creature, at several sizes: the ratio of the largest to the smallest per creature
  says whether loading stays linear;
- a march pulse: the first pulses of `army(n)`, every soldier free and no foe beside it
  (each walks toward the nearest foe it sees), against a bare numpy reference in the
  same run: one chessboard distance transform of each side's foes and the step down it
  for every soldier, what a bulk march would at least cost;
- a side's look after 1% of the other side moved (minds/crowd.py: the per-side map its
  minds read, remade whole when the others move, never updated in place), against a
  full Dijkstra map of the whole grid from every foe (tcod) in the same run: the remake
  is what an update has to beat;
- a whole battle, first pulse to settled (`run(until="settled")`), with its pulses,
  rounds, the winner and the dead in the note, at several sizes.
"""

from __future__ import annotations

import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np

from affray.core.world import World
from affray.data.armies import army
from affray.data.content_loader import Content
from affray.data.scenario import load_scenario

from .timing import Result, result_from


def _write(folder: Path, per_side: int, pulses: int = 100_000) -> Path:
    path = folder / f"army{per_side}.toml"
    path.write_text(army(per_side, pulses=pulses), encoding="utf-8")
    return path


def army_loads(sizes: tuple[int, ...]) -> list[Result]:
    """Load `army(n)` per creature (2n creatures), one timed load per size."""
    rows: list[Result] = []
    with tempfile.TemporaryDirectory() as folder:
        for per_side in sizes:
            path = _write(Path(folder), per_side)
            start = time.perf_counter()
            world = load_scenario(path)
            seconds = time.perf_counter() - start
            world.close()
            row = result_from("load an army scenario", f"{2 * per_side:,} creatures",
                              "creature", 2 * per_side, [seconds])
            if rows:
                row.ratio, row.ratio_of = row.per_unit_us / rows[0].per_unit_us, rows[0].size
            rows.append(row)
    return rows


def _bare_march(world: World) -> float:
    """The reference: for each side, the chessboard distance of every cell to its
    nearest foe, and each soldier's neighbour of least distance (numpy, no rules)."""
    from scipy import ndimage

    roster = world.roster
    height, width = world.grid.height, world.grid.width
    n = roster.count
    xs, ys, sides = roster.x[:n], roster.y[:n], roster.side[:n]
    start = time.perf_counter()
    for side in np.unique(sides):
        foes = np.ones((height, width), dtype=bool)
        foes[ys[sides != side], xs[sides != side]] = False
        distance = ndimage.distance_transform_cdt(foes, metric="chessboard")
        padded = np.pad(distance, 1, constant_values=np.iinfo(distance.dtype).max)
        mine = sides == side
        around = np.stack([padded[ys[mine] + 1 + dy, xs[mine] + 1 + dx]
                           for dy in (-1, 0, 1) for dx in (-1, 0, 1)])
        around.argmin(axis=0)
    return time.perf_counter() - start


def march_pulses(sizes: tuple[int, ...], pulses: int) -> list[Result]:
    """`pulses` pulses of `army(n)` from the start, per pulse, against `_bare_march`."""
    rows: list[Result] = []
    with tempfile.TemporaryDirectory() as folder:
        for per_side in sizes:
            world = load_scenario(_write(Path(folder), per_side))
            try:
                bare = min(_bare_march(world) for _ in range(3))
                start = time.perf_counter()
                for _ in range(pulses):
                    world.tick()
                seconds = time.perf_counter() - start
                moved = sum(1 for event in world.events if type(event).__name__ == "Moved")
                fights = sum(1 for event in world.events if type(event).__name__ == "Fight")
            finally:
                world.close()
            row = result_from("march pulse", f"{2 * per_side:,} soldiers", "pulse", pulses,
                              [seconds])
            row.ratio, row.ratio_of = seconds / pulses / bare, "bare numpy march (per pulse)"
            row.note = (f"{moved:,} steps in {pulses} pulses, {fights} fight events; bare "
                        f"numpy {bare * 1e3:.2f} ms a pulse")
            rows.append(row)
    return rows


def look_remakes(sizes: tuple[int, ...], repeats: int = 5) -> list[Result]:
    """`army(n)`: 1% of blue steps one cell; then red's look is made again (best of
    `repeats`), against tcod's Dijkstra of the whole grid from every blue soldier."""
    import tcod.path

    from affray.systems.rules.minds import crowd
    from affray.systems.rules.walking import free_around, neighbour, walkable

    rows: list[Result] = []
    with tempfile.TemporaryDirectory() as folder:
        for per_side in sizes:
            world = load_scenario(_write(Path(folder), per_side))
            try:
                world.enter()
                grid, roster = world.grid, world.roster
                blue = [s for s in world.sheets.values() if s.creature.side == "blue"]
                moved = 0
                for sheet in blue:
                    if moved * 100 >= len(blue):
                        break
                    here = (sheet.position.x, sheet.position.y)
                    free = free_around(grid, here)
                    if any(free):
                        x, y = neighbour(here, free.index(True))
                        world.place(sheet.entity, sheet.position, x, y, why="apart")
                        moved += 1
                red = roster.code("red")
                times = []
                for _ in range(repeats):
                    start = time.perf_counter()
                    crowd.make_look(world, red)
                    times.append(time.perf_counter() - start)
                cost = walkable(grid, 0, 0, grid.width, grid.height)
                dijkstra = []
                for _ in range(repeats):
                    start = time.perf_counter()
                    dist = np.full((grid.height, grid.width), np.iinfo(np.int32).max,
                                   dtype=np.int32)
                    for sheet in blue:
                        dist[sheet.position.y, sheet.position.x] = 0
                    tcod.path.dijkstra2d(dist, cost, 1, 1, out=dist)
                    dijkstra.append(time.perf_counter() - start)
            finally:
                world.close()
            row = result_from("a side's look, 1% of the foes moved", f"{2 * per_side:,} soldiers",
                              "look", 1, [min(times)])
            row.ratio, row.ratio_of = min(times) / min(dijkstra), "tcod Dijkstra of the grid"
            row.note = (f"{moved} of {len(blue)} foes stepped; the look is remade whole "
                        f"({min(times) * 1e3:.2f} ms), the Dijkstra map from every foe "
                        f"{min(dijkstra) * 1e3:.2f} ms")
            rows.append(row)
    return rows


def battles(sizes: tuple[int, ...]) -> list[Result]:
    """`army(n)` from the first pulse to settled, one run per size."""
    rows: list[Result] = []
    with tempfile.TemporaryDirectory() as folder:
        for per_side in sizes:
            world = load_scenario(_write(Path(folder), per_side))
            try:
                start = time.perf_counter()
                world.run(until="settled")
                seconds = time.perf_counter() - start
                creatures = world.snapshot()["creatures"].values()
                standing = Counter(c["side"] for c in creatures if c["alive"])
                pulse = world.pulse
                rounds = pulse // world.content.fight.round_pulses
            finally:
                world.close()
            winner = ", ".join(sorted(standing)) or "nobody"
            row = result_from("battle to settled", f"{per_side:,} a side", "battle", 1,
                              [seconds])
            row.value = pulse
            row.note = (f"{pulse} pulses ({rounds} rounds); standing: {winner} "
                        f"({sum(standing.values())} of {2 * per_side})")
            rows.append(row)
    return rows


def army_rows(content: Content, load_sizes: tuple[int, ...], march_sizes: tuple[int, ...],
              march_pulses_each: int, battle_sizes: tuple[int, ...]) -> list[Result]:
    """Every row of the module docstring (`content` unused: armies bring their own)."""
    return [*army_loads(load_sizes), *march_pulses(march_sizes, march_pulses_each),
            *look_remakes(march_sizes), *battles(battle_sizes)]
