"""Spell shape cost: microseconds per `resolve_shape` call, by shape and burst radius.

A cast resolves its shape once, so this is a per-cast cost, paid on a crowded map with
walls and shut doors (line of effect must be traced). The map is a 512x512 Grid with
about 12% walls, 1% shut doors and a creature on a quarter of the open cells; centres
and aims are drawn once from a seeded generator, the same every run. Rows:

- burst at radius 1, 3, 5, 10 (numpy: one window slice, one table look-up for the line
  of effect of every cell of the window);
- the same radius-5 burst traced cell by cell with `line_of_effect` in Python, the
  obvious way, as the reference the numpy window is measured against (ratio);
- a radius-5 burst on a 2048x2048 map: a burst slices its window and never scans the
  map, so it should cost what it costs on 512x512;
- cone (range 5), line (range 8), bolt (range 8);
- big radii, past the table of cells between (shapes.TABLE_RADIUS): a radius-40 burst
  on the crowded map (the octant sweep), a radius-300 burst on the 2048x2048 map (a
  601x601 window: 33 s and 864 MB a cast with the table), and a radius-1,000 burst on a
  64x64 map against a radius-64 one there (ratio: a radius past the map costs the map).
"""

from __future__ import annotations

import time

import numpy as np

from affray.core.grid import Grid, Terrain
from affray.systems.rules.shapes import line_of_effect, resolve_shape

from .timing import Result, result_from

CROWD_SIDE = 512
BIG_SIDE = 2048


def crowded_grid(side: int, seed: int = 1) -> tuple[Grid, dict[int, int]]:
    """A side x side map: ~12% walls, ~1% shut doors, a creature on ~25% of the rest.

    Returns the grid and each creature's spawn number (entity ids are handed out in
    scan order, spawn numbers shuffled, so sorting by spawn is real work).
    """
    rng = np.random.default_rng(seed)
    draw = rng.random((side, side))
    terrain = np.full((side, side), Terrain.FLOOR, dtype=np.uint8)
    terrain[draw < 0.12] = Terrain.WALL
    doors = (draw >= 0.12) & (draw < 0.13)
    terrain[doors] = Terrain.DOOR
    grid = Grid(terrain)
    grid.shut[doors] = True
    crowd = (draw >= 0.13) & (rng.random((side, side)) < 0.25)
    count = int(crowd.sum())
    grid.occupant[crowd] = np.arange(1, count + 1, dtype=np.int32)
    spawn = dict(zip(range(1, count + 1), rng.permutation(count).tolist(), strict=True))
    return grid, spawn


def _casts(grid: Grid, calls: int, reach: int, seed: int = 2) -> list[tuple[tuple[int, int],
                                                                           tuple[int, int]]]:
    """`calls` (origin, aim) pairs: origins on open cells, aims within `reach`."""
    rng = np.random.default_rng(seed)
    ys, xs = np.nonzero(~((grid.terrain == Terrain.WALL) | grid.shut))
    picks = rng.integers(0, len(xs), calls)
    pairs = []
    for index in picks.tolist():
        x, y = int(xs[index]), int(ys[index])
        dx, dy = rng.integers(-reach, reach + 1, 2).tolist()
        if dx == 0 and dy == 0:
            dx = 1
        aim = (min(max(x + dx, 0), grid.width - 1), min(max(y + dy, 0), grid.height - 1))
        pairs.append(((x, y), aim))
    return pairs


def _time_shape(grid: Grid, spawn: dict[int, int], shape: str, pairs: list, range_: int,
                radius: int, repeats: int) -> tuple[list[float], float, float]:
    """Block times of resolving every pair once; mean cells and victims per call."""
    spawn_of = spawn.__getitem__
    times: list[float] = []
    cells = victims = 0
    for repeat in range(repeats + 1):  # the first block warms the caches, untimed
        start = time.perf_counter()
        for origin, aim in pairs:
            caster = int(grid.occupant[origin[1], origin[0]])
            result = resolve_shape(grid, shape, origin, aim, range_=range_, radius=radius,
                                   caster=caster, spawn_of=spawn_of)
            if repeat == 0:
                cells += len(result.area)
                victims += len(result.victims)
        if repeat:
            times.append(time.perf_counter() - start)
    return times, cells / len(pairs), victims / len(pairs)


def _python_burst(grid: Grid, centre: tuple[int, int], radius: int) -> list[tuple[int, int]]:
    """The reference burst: every cell of the window, line of effect traced in Python."""
    cx, cy = centre
    return [(x, y) for y in range(max(cy - radius, 0), min(cy + radius + 1, grid.height))
            for x in range(max(cx - radius, 0), min(cx + radius + 1, grid.width))
            if line_of_effect(grid, centre, (x, y))]


def spell_shapes(radii: tuple[int, ...], calls: int, repeats: int) -> list[Result]:
    """us per resolve_shape call: bursts by radius, the Python reference, a big map, and
    cone, line and bolt."""
    grid, spawn = crowded_grid(CROWD_SIDE)
    size = f"{CROWD_SIDE}x{CROWD_SIDE}, {len(spawn):,} creatures"
    rows: list[Result] = []
    pairs = _casts(grid, calls, reach=8)
    for radius in radii:
        times, cells, victims = _time_shape(grid, spawn, "burst", pairs, 8, radius, repeats)
        rows.append(result_from(f"burst radius {radius}", size, "call", calls, times,
                                note=f"{cells:.0f} cells, {victims:.1f} victims a call"))
    reference_radius = 5
    if reference_radius in radii:
        numpy_row = next(row for row in rows if row.name == f"burst radius {reference_radius}")
        centres = [aim for _origin, aim in pairs]
        times = []
        for repeat in range(repeats + 1):
            start = time.perf_counter()
            for centre in centres:
                _python_burst(grid, centre, reference_radius)
            if repeat:
                times.append(time.perf_counter() - start)
        python_row = result_from(f"burst radius {reference_radius}, per-cell Python LoE",
                                 size, "call", calls, times,
                                 note="reference: line_of_effect for each window cell")
        numpy_row.ratio = numpy_row.median_seconds / python_row.median_seconds
        numpy_row.ratio_of = "per-cell Python LoE"
        rows.append(python_row)
        big, big_spawn = crowded_grid(BIG_SIDE)
        big_pairs = _casts(big, calls, reach=8)
        times, cells, victims = _time_shape(big, big_spawn, "burst", big_pairs, 8,
                                            reference_radius, repeats)
        big_row = result_from(f"burst radius {reference_radius}", f"{BIG_SIDE}x{BIG_SIDE}, "
                              f"{len(big_spawn):,} creatures", "call", calls, times,
                              note=f"{cells:.0f} cells a call; window only, never the map")
        big_row.ratio = big_row.median_seconds / numpy_row.median_seconds
        big_row.ratio_of = f"same radius on {CROWD_SIDE}x{CROWD_SIDE}"
        rows.append(big_row)
        del big, big_spawn
    for shape, range_ in (("cone", 5), ("line", 8), ("bolt", 8)):
        times, cells, victims = _time_shape(grid, spawn, shape, pairs, range_, 0, repeats)
        rows.append(result_from(f"{shape} range {range_}", size, "call", calls, times,
                                note=f"{cells:.1f} cells, {victims:.2f} victims a call"))
    rows.extend(_big_radii(grid, spawn, calls, repeats))
    return rows


def _big_radii(grid: Grid, spawn: dict[int, int], calls: int, repeats: int) -> list[Result]:
    """Bursts past the table's radius: the octant sweep on the crowd, a radius of 300 on
    the big map, and a radius of 1,000 on a map smaller than it."""
    size = f"{CROWD_SIDE}x{CROWD_SIDE}, {len(spawn):,} creatures"
    rows: list[Result] = []
    few = max(2, calls // 10)
    pairs = _casts(grid, few, reach=8)
    times, cells, victims = _time_shape(grid, spawn, "burst", pairs, 8, 40, repeats)
    rows.append(result_from("burst radius 40", size, "call", few, times,
                            note=f"{cells:.0f} cells, {victims:.1f} victims a call; sweep"))
    big, big_spawn = crowded_grid(BIG_SIDE)
    fewer = max(2, calls // 100)
    big_pairs = _casts(big, fewer, reach=8)
    times, cells, _victims = _time_shape(big, big_spawn, "burst", big_pairs, 8, 300, repeats)
    rows.append(result_from("burst radius 300", f"{BIG_SIDE}x{BIG_SIDE}, "
                            f"{len(big_spawn):,} creatures", "call", fewer, times,
                            note=f"{cells:.0f} cells a call; a 601x601 window"))
    del big, big_spawn
    small, small_spawn = crowded_grid(64)
    small_pairs = _casts(small, few, reach=8)
    times, cells, _victims = _time_shape(small, small_spawn, "burst", small_pairs, 8, 64,
                                         repeats)
    map_row = result_from("burst radius 64", "64x64", "call", few, times,
                          note=f"{cells:.0f} cells a call; the whole map")
    times, cells, _victims = _time_shape(small, small_spawn, "burst", small_pairs, 8, 1000,
                                         repeats)
    past_row = result_from("burst radius 1000", "64x64", "call", few, times,
                           note=f"{cells:.0f} cells a call; past the map, costs the map")
    past_row.ratio = past_row.median_seconds / map_row.median_seconds
    past_row.ratio_of = "radius 64 on the same map"
    rows.extend((map_row, past_row))
    return rows
