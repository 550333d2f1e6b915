"""Sight and walking distance on the grid, with python-tcod (R-MIND-2, R-MIND-3, R-MIND-5).

- Sight (R-MIND-2): a creature sees the cells of its field of view within `sight` cells
  (Chebyshev, the grid's metric): `tcod.map.compute_fov` with symmetric shadowcasting on
  the (2 sight + 1)^2 window around it, walls and shut doors opaque. Cropping is exact:
  a cell in the window can only be hidden by cells between it and the eye, which lie in
  the window too. So A sees B exactly when B, with the same sight, sees A.
- Walking distance (R-MIND-3): steps in 8 directions; walls, shut doors and other
  creatures block; water and ice are walked on. `tcod.path.dijkstra2d` from one or more
  root cells over a window around them. Window distances are exact when short enough:
  a path that leaves a window of radius W around the root and comes back to a cell at
  Chebyshev distance r is at least 2W + 2 - r long, so a window distance d <= 2W + 1 - r
  is the true one; otherwise the whole map is used.

Both are cached per creature against `Grid.version`, which counts every change of what
blocks a step or sight: a fight where nobody moves reuses them.

Reads `World.grid` (terrain, shut, occupant, version) and positions; writes nothing but
`World.sight_cache` (never saved).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import tcod.map
import tcod.path
from tcod import libtcodpy

from affray.grid import NEIGHBOURS, Terrain

if TYPE_CHECKING:
    from affray.grid import Grid
    from affray.world import World

Cell = tuple[int, int]
UNREACHED = np.iinfo(np.int32).max
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

    def sees(self, cell: Cell) -> bool:
        """R-MIND-2: the cell lies in the field of view (within sight, not walled off)."""
        x, y = cell[0] - self.x0, cell[1] - self.y0
        height, width = self.seen.shape
        return 0 <= x < width and 0 <= y < height and bool(self.seen[y, x])


def window(grid: Grid, centre: Cell, radius: int) -> tuple[int, int, int, int]:
    """(x0, y0, x1, y1): the cells within Chebyshev `radius` of `centre`, on the map."""
    x, y = centre
    return (max(0, x - radius), max(0, y - radius), min(grid.width, x + radius + 1),
            min(grid.height, y + radius + 1))


def field_of_view(grid: Grid, eye: Cell, sight: int) -> View:
    """R-MIND-2: symmetric shadowcasting from `eye`, `sight` cells (Chebyshev) around."""
    x0, y0, x1, y1 = window(grid, eye, sight)
    transparent = ((grid.terrain[y0:y1, x0:x1] != _WALL) & ~grid.shut[y0:y1, x0:x1])
    seen = tcod.map.compute_fov(transparent, (eye[1] - y0, eye[0] - x0), radius=0,
                                light_walls=True,
                                algorithm=libtcodpy.FOV_SYMMETRIC_SHADOWCAST)
    return View(grid.version, eye, sight, x0, y0, seen)


def view_of(world: World, entity: int, eye: Cell, sight: int) -> View:
    """A creature's field of view, from the cache while nothing that blocks changed."""
    cached = world.sight_cache.get(("fov", entity))
    if (cached is not None and cached.version == world.grid.version and cached.at == eye
            and cached.sight == sight):
        return cached
    view = field_of_view(world.grid, eye, sight)
    world.sight_cache[("fov", entity)] = view
    return view


@dataclass(slots=True)
class Distances:
    """Walking distances from the roots: `dist[y - y0, x - x0]` (UNREACHED where no path
    within the window). `radius` None: the whole map."""

    version: int
    roots: tuple[Cell, ...]
    radius: int | None
    x0: int
    y0: int
    dist: np.ndarray
    free: tuple[Cell, ...] = ()

    def at(self, cell: Cell) -> int | None:
        """The distance to a cell, None when unreached (or off the window)."""
        x, y = cell[0] - self.x0, cell[1] - self.y0
        height, width = self.dist.shape
        if not (0 <= x < width and 0 <= y < height):
            return None
        value = int(self.dist[y, x])
        return None if value == UNREACHED else value

    def exact(self, value: int, cell: Cell) -> bool:
        """True when `value`, a distance to `cell` within the window, is the map's
        (module docstring); always on a whole-map field."""
        if self.radius is None:
            return True
        r = min(max(abs(cell[0] - x), abs(cell[1] - y)) for x, y in self.roots)
        return value <= 2 * self.radius + 1 - r


def passable(grid: Grid, x0: int, y0: int, x1: int, y1: int) -> np.ndarray:
    """1 where a step may end (floor, water, ice, an open or broken door, nobody there),
    0 elsewhere: tcod's cost array for the window."""
    return ((grid.terrain[y0:y1, x0:x1] != _WALL) & ~grid.shut[y0:y1, x0:x1]
            & (grid.occupant[y0:y1, x0:x1] == 0)).astype(np.int8)


def distances(grid: Grid, roots: tuple[Cell, ...], radius: int | None,
              free: tuple[Cell, ...] = ()) -> Distances:
    """Dijkstra from `roots` (their own cells may be occupied: a root is where a walk
    starts) over the window of `radius` around them, or the whole map (None). The cells
    in `free` are walked on even if a creature stands there: the creature about to
    leave them (a flee is weighed from the world after the step, R-MIND-5)."""
    if radius is None:
        x0, y0, x1, y1 = 0, 0, grid.width, grid.height
    else:
        xs = [x for x, _ in roots]
        ys = [y for _, y in roots]
        x0, y0 = max(0, min(xs) - radius), max(0, min(ys) - radius)
        x1, y1 = min(grid.width, max(xs) + radius + 1), min(grid.height, max(ys) + radius + 1)
    cost = passable(grid, x0, y0, x1, y1)
    for x, y in free:
        if x0 <= x < x1 and y0 <= y < y1 and not grid.blocks(x, y):
            cost[y - y0, x - x0] = 1
    dist = np.full((y1 - y0, x1 - x0), UNREACHED, dtype=np.int32)
    for x, y in roots:
        dist[y - y0, x - x0] = 0
    tcod.path.dijkstra2d(dist, cost, 1, 1, out=dist)
    return Distances(grid.version, roots, radius, x0, y0, dist, free)


def distances_from(world: World, key: object, roots: tuple[Cell, ...],
                   radius: int | None, free: tuple[Cell, ...] = ()) -> Distances:
    """`distances`, cached under `key` while nothing that blocks a step changed."""
    cached = world.sight_cache.get(("dist", key))
    if (cached is not None and cached.version == world.grid.version
            and cached.roots == roots and cached.radius == radius and cached.free == free):
        return cached
    field = distances(world.grid, roots, radius, free)
    world.sight_cache[("dist", key)] = field
    return field


def to_creature(field: Distances, cell: Cell) -> int | None:
    """Walking distance from the field's root to the creature standing on `cell`: 1 when
    beside it, else one more than the nearest free cell beside it; None unreachable."""
    if any(max(abs(cell[0] - x), abs(cell[1] - y)) == 1 for x, y in field.roots):
        return 1
    best = None
    for dx, dy in NEIGHBOURS:
        value = field.at((cell[0] + dx, cell[1] + dy))
        if value is not None and value > 0 and (best is None or value < best):
            best = value
    return None if best is None else best + 1


def first_step(field: Distances, goal: Cell) -> Cell | None:
    """The first step from the field's (single) root toward `goal`, a reached cell, along
    a shortest path: tcod's hill-climb from the goal down to the root, read backwards."""
    if field.at(goal) is None:
        return None
    path = tcod.path.hillclimb2d(field.dist, (goal[1] - field.y0, goal[0] - field.x0),
                                 True, True)
    if len(path) < 2:
        return None
    y, x = path[-2]
    return int(x) + field.x0, int(y) + field.y0


def approach_cell(field: Distances, cell: Cell) -> Cell | None:
    """The free cell beside `cell` (a creature's) nearest the root, for a walk to it: the
    first in R-GRID-2's order among the nearest."""
    best: tuple[int, Cell] | None = None
    for dx, dy in NEIGHBOURS:
        near = (cell[0] + dx, cell[1] + dy)
        value = field.at(near)
        if value is not None and value > 0 and (best is None or value < best[0]):
            best = (value, near)
    return None if best is None else best[1]
