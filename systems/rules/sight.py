"""Sight on the grid, with python-tcod (R-MIND-2).

A creature sees the cells of its field of view within `sight` cells (Chebyshev, the
grid's metric): `tcod.map.compute_fov` with symmetric shadowcasting on the
(2 sight + 1)^2 window around it, walls and shut doors opaque, creatures not. Cropping
is exact: a cell in the window can only be hidden by cells between it and the eye, which
lie in the window too. So A sees B exactly when B, with the same sight, sees A.

A field of view is kept per creature while its cell, its sight and the terrain
(`Grid.terrain_version`: walls, water, ice, doors) stand: a fight where nobody moves, or
a crowd where only creatures move, reuses them. Walking distance is
`affray.systems.rules.walking`'s.

Reads `World.grid` (terrain, shut, terrain_version) and positions; writes nothing but
`World.sight_cache` (never saved).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import tcod.map
from tcod import libtcodpy

from affray.core.grid import Terrain

if TYPE_CHECKING:
    from affray.core.grid import Grid
    from affray.core.world import World

Cell = tuple[int, int]
_WALL = int(Terrain.WALL)


@dataclass(slots=True)
class View:
    """One creature's field of view: `seen[y - y0, x - x0]` for a cell (x, y)."""

    version: int
    at: Cell
    sight: int
    x0: int
    y0: int
    seen: np.ndarray
    whole: bool = False  # no wall or shut door in the window: every cell is seen

    def sees(self, cell: Cell) -> bool:
        """R-MIND-2: the cell lies in the field of view (within sight, not walled off)."""
        x, y = cell[0] - self.x0, cell[1] - self.y0
        height, width = self.seen.shape
        return 0 <= x < width and 0 <= y < height and bool(self.seen[y, x])


def window(grid: Grid, centre: Cell, radius: int) -> tuple[int, int, int, int]:
    """(x0, y0, x1, y1): the cells within Chebyshev `radius` of `centre`, on the map."""
    x, y = centre
    x0, y0, x1, y1 = x - radius, y - radius, x + radius + 1, y + radius + 1
    width, height = grid.width, grid.height
    # (max(0, x0) ... min(height, y1), written as conditionals: minds ask this of
    # thousands of soldiers a pulse, and the builtins cost more than the arithmetic)
    return (x0 if x0 > 0 else 0, y0 if y0 > 0 else 0, x1 if x1 < width else width,
            y1 if y1 < height else height)


_ALL_SEEN: dict[tuple[int, int], np.ndarray] = {}


def _all_seen(shape: tuple[int, int]) -> np.ndarray:
    """A window seen whole (read-only, shared)."""
    seen = _ALL_SEEN.get(shape)
    if seen is None:
        seen = _ALL_SEEN[shape] = np.ones(shape, dtype=bool)
        seen.flags.writeable = False
    return seen


def field_of_view(grid: Grid, eye: Cell, sight: int) -> View:
    """R-MIND-2: symmetric shadowcasting from `eye`, `sight` cells (Chebyshev) around.
    A window with no wall and no shut door in it is seen whole (what shadowcasting
    gives there), without asking tcod."""
    from affray.systems.rules.walking import open_window

    x0, y0, x1, y1 = window(grid, eye, sight)
    if open_window(grid, eye, sight):
        return View(grid.terrain_version, eye, sight, x0, y0, _all_seen((y1 - y0, x1 - x0)),
                    whole=True)
    transparent = ((grid.terrain[y0:y1, x0:x1] != _WALL) & ~grid.shut[y0:y1, x0:x1])
    seen = tcod.map.compute_fov(transparent, (eye[1] - y0, eye[0] - x0), radius=0,
                                light_walls=True,
                                algorithm=libtcodpy.FOV_SYMMETRIC_SHADOWCAST)
    return View(grid.terrain_version, eye, sight, x0, y0, seen)


def view_of(world: World, entity: int, eye: Cell, sight: int) -> View:
    """A creature's field of view, from the cache while nothing that blocks changed."""
    cached = world.sight_cache.get(("fov", entity))
    if (cached is not None and cached.version == world.grid.terrain_version and cached.at == eye
            and cached.sight == sight):
        return cached
    view = field_of_view(world.grid, eye, sight)
    world.sight_cache[("fov", entity)] = view
    return view
