"""World builders for the benchmarks: open floors full of idle creatures, and lakes.

Worlds are built through the engine's own API (`World`, `Grid`, `add_creature`), the way
a game embedding affray would, not through scenario text: a 10,000-creature scenario
file would time TOML parsing, not the engine.
"""

from __future__ import annotations

import math

import numpy as np

from affray.core.grid import Grid, Terrain
from affray.core.world import World
from affray.data.content_loader import Content
from affray.data.creatures import resolve
from affray.data.defs import CreatureFields

# One entry for every benchmark creature: a plain level-10 fighter with 50 hp.
CREATURE = CreatureFields(level=10, hp=50)


def spread_cells(count: int, free: np.ndarray) -> list[tuple[int, int]]:
    """`count` free cells (x, y), spread evenly over the free cells in scan order.

    Spreading rather than packing the first rows keeps creatures apart, as they would
    be on a real map, so no benchmark measures a crowd by accident.
    """
    ys, xs = np.nonzero(free)
    if count > len(xs):
        raise ValueError(f"{count} creatures do not fit on {len(xs)} free cells")
    picks = np.linspace(0, len(xs) - 1, num=count).astype(np.int64)
    return [(int(xs[i]), int(ys[i])) for i in picks]


def populate(world: World, content: Content, cells: list[tuple[int, int]]) -> None:
    """Add one idle creature on each cell.

    `resolve` runs once per creature: its values hold mutable components (vitals,
    statuses, ...) that must not be shared between entities.
    """
    for index, at in enumerate(cells):
        world.add_creature(f"c{index}", at, resolve(content, CREATURE, None))


def open_floor_side(creatures: int) -> int:
    """The side of a square floor with twice as many cells as creatures."""
    return max(2, math.ceil(math.sqrt(2 * creatures)))


def open_floor(content: Content, side: int, seed: int = 1) -> World:
    """An empty side x side floor map: no walls, no water, nobody."""
    terrain = np.full((side, side), Terrain.FLOOR, dtype=np.uint8)
    return World(content, Grid(terrain), seed=seed, name="bench-floor")


def water_terrain(side: int, fraction: float = 0.4, seed: int = 1) -> np.ndarray:
    """A side x side floor with `fraction` of it water, as lakes and channels.

    Smoothed white noise thresholded at its `fraction` quantile: the water comes in
    blobs of a few cells to large winding bodies, as on a real map, not as the salt and
    pepper of independent cells (which would be a best case for few, tiny bodies or a
    worst case for many). The generator is seeded, so the map is the same every run.
    """
    from scipy import ndimage  # imported where used: scipy.ndimage is slow to import

    rng = np.random.default_rng(seed)
    noise = ndimage.gaussian_filter(rng.standard_normal((side, side)), sigma=2.0)
    terrain = np.full((side, side), Terrain.FLOOR, dtype=np.uint8)
    terrain[noise < np.quantile(noise, fraction)] = Terrain.WATER
    return terrain
