"""Spell shapes: which cells a cast reaches and whom it strikes (R-SHAPE-1..7, R-GRID-1).

The whole geometry lives here, as pure functions of the Grid (SPEC R-SHAPE-1 asks for one
module): the Spell system resolves a cast with `resolve_shape`, `World.preview` shows the
same `area` without resolving anything (R-ELEC-7). Nothing here draws randomness or
changes the grid.

Geometry (decisions recorded in docs/decisions.md, "R-SHAPE-1"):

- Lines are digital lines in closed form (`step_offset`): the k-th cell from `a` toward
  `b` advances k along the major axis and round(k * minor / major) along the minor one,
  halves rounded away from `a`. Every step is one Chebyshev cell, so the k-th cell of a
  line is at distance k: range counts cells travelled. The same formula extends a line
  past its aim point.
- Line of effect from `a` to `b`: no wall or shut door strictly between them on
  `bresenham(a, b)`. A blocking cell is therefore reached itself but shields what lies
  behind it (R-GRID-1). It is traced from the shape's source (the caster, a burst's
  centre), so it is not always symmetric.
- burst: every cell within Chebyshev `radius` of the centre with line of effect from the
  centre, the caster's cell included when covered. The centre is the aim cell, unless a
  blocking cell stands on the way there (or the aim itself blocks, or lies beyond
  `range_`): the burst then goes off at the last open cell before it.
- cone: cells within Chebyshev `range_` of the caster, at most 45 degrees (inclusive)
  from the aim direction, with line of effect from the caster; never the caster's cell.
- line: the digital line from the caster through the aim, up to `range_` cells, ending
  at (and including) the first blocking cell or at the map's edge.
- ray, bolt: that path, cut after the first creature other than the caster.
- touch: the aim cell when it is beside the caster (or the caster's own cell).

Bursts and cones compute line of effect for a whole window at once with numpy, over the
part of the (2r+1)^2 square around the centre that lies on the map (`Window`), whatever
the map's size. Up to radius TABLE_RADIUS a cached table lists, for each offset of the
square, the cells strictly between its centre and that offset, so one fancy-index and one
`any` answer every cell. Past it that table would grow as r^3, so a sweep by octant
(`_sweep_visible`) gives the same answer at a cost of the window's cells times a log: a
radius-1,000 burst costs what the map it lies on costs, never more.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from affray.core.grid import Grid, Terrain

Cell = tuple[int, int]

SHAPES: tuple[str, ...] = ("burst", "cone", "line", "ray", "bolt", "touch")
AREA_SHAPES = frozenset({"burst", "cone", "line"})  # R-SHAPE-5: area spells (R-LOSS-1)

_WALL = int(Terrain.WALL)


@dataclass(frozen=True, slots=True)
class ShapeResult:
    """What a shape reached, for the Spell system and the preview.

    `area`: every cell the shape reached (R-LOSS-1 uses all of them; the preview shows
    them, R-ELEC-7). `effect_cells`: the cells that get cell effects (R-SHAPE-7).
    `centre`: a burst's centre, else None. `victims`: the creatures struck by the shape
    itself, in spawn order (R-SHAPE-6); arcs and water strikes are the Spell system's.
    """

    area: tuple[Cell, ...]
    effect_cells: tuple[Cell, ...]
    centre: Cell | None
    victims: tuple[int, ...]


EMPTY = ShapeResult(area=(), effect_cells=(), centre=None, victims=())


def is_area_shape(shape: str) -> bool:
    """Burst, cone and line are area spells (R-SHAPE-5), whose whole area loses floor
    items (R-LOSS-1); ray, bolt and touch are not."""
    return shape in AREA_SHAPES


# -- lines ------------------------------------------------------------------------------------
def sign(value: int) -> int:
    """-1, 0 or 1: the direction of one axis of an offset."""
    return (value > 0) - (value < 0)


def step_offset(dx: int, dy: int, k: int) -> Cell:
    """Offset of the k-th cell (k >= 0) of the digital line toward offset (dx, dy) != 0.

    k along the major axis, round(k * minor / major) along the minor one with halves
    rounded away from the start (R-SHAPE-1 **decision**). Operands are never negative,
    so floor division is exact truncation here. k may exceed `max(|dx|, |dy|)`: the line
    then runs on past (dx, dy) with the same slope.
    """
    ax, ay = abs(dx), abs(dy)
    if ax >= ay:
        return (k * sign(dx), sign(dy) * ((2 * k * ay + ax) // (2 * ax)))
    return (sign(dx) * ((2 * k * ax + ay) // (2 * ay)), k * sign(dy))


def bresenham(a: Cell, b: Cell) -> list[Cell]:
    """The cells of the digital line from a to b, a's cell INCLUDED first, b's last.

    `[a]` when a == b. Consecutive cells are neighbours (R-GRID-2); the k-th cell is at
    Chebyshev distance k from a.
    """
    dx, dy = b[0] - a[0], b[1] - a[1]
    steps = max(abs(dx), abs(dy))
    if steps == 0:
        return [a]
    cells = []
    for k in range(steps + 1):
        ox, oy = step_offset(dx, dy, k)
        cells.append((a[0] + ox, a[1] + oy))
    return cells


def line_of_effect(grid: Grid, a: Cell, b: Cell) -> bool:
    """True when no wall or shut door lies strictly between a and b (R-GRID-1).

    Traced along `bresenham(a, b)` from a: the end cells themselves may block (a wall is
    reached, R-SHAPE-1). Both cells must be on the map.
    """
    terrain, shut = grid.terrain, grid.shut
    return not any(terrain[y, x] == _WALL or shut[y, x] for x, y in bresenham(a, b)[1:-1])


def _path(grid: Grid, origin: Cell, aim: Cell, steps: int) -> list[Cell]:
    """Cells from origin (excluded) through aim and on, up to `steps` cells, ending at
    the first blocking cell (included) or at the map's edge (R-SHAPE-1 line)."""
    dx, dy = aim[0] - origin[0], aim[1] - origin[1]
    if dx == 0 and dy == 0:
        return []
    terrain, shut = grid.terrain, grid.shut
    width, height = grid.width, grid.height
    cells: list[Cell] = []
    for k in range(1, steps + 1):
        ox, oy = step_offset(dx, dy, k)
        x, y = origin[0] + ox, origin[1] + oy
        if not (0 <= x < width and 0 <= y < height):
            break
        cells.append((x, y))
        if terrain[y, x] == _WALL or shut[y, x]:
            break
    return cells


def line_cells(grid: Grid, origin: Cell, aim: Cell, steps: int) -> list[Cell]:
    """The cells a line, ray or bolt from `origin` toward `aim` passes, up to `steps`
    (`_path`): for a mind that looks along a bolt before it asks for a preview."""
    return _path(grid, origin, aim, steps)


def burst_centre(grid: Grid, origin: Cell, aim: Cell, range_: int) -> Cell:
    """Where a burst goes off (R-SHAPE-1 **decision**): the aim cell, or else the last
    open cell before the first blocking cell on the line from the caster (the aim cell
    itself included), or the cell at `range_` when the aim lies beyond it. A burst aimed
    through a wall beside the caster goes off on the caster's own cell."""
    dx, dy = aim[0] - origin[0], aim[1] - origin[1]
    steps = min(max(abs(dx), abs(dy)), range_)
    terrain, shut = grid.terrain, grid.shut
    centre = origin
    for k in range(1, steps + 1):
        ox, oy = step_offset(dx, dy, k)
        x, y = origin[0] + ox, origin[1] + oy
        if not grid.in_bounds(x, y) or terrain[y, x] == _WALL or shut[y, x]:
            break
        centre = (x, y)
    return centre


# -- line of effect over a window (bursts, cones) ---------------------------------------------
# Up to this radius, line of effect over a window reads a cached table of the cells between
# the centre and each window cell: (r - 1)(2r + 1)^2 entries (1 MB at radius 32, 8 MB for
# every radius up to it), one fancy-index and one `any` per cast: 90 us at radius 32 where
# the sweep takes 200-900 us. Past it the table grows as r^3 (29.8 GiB at radius 1,000),
# so `_sweep_visible` answers instead, at a cost that follows the cells of the window that
# lie on the map (benchmarks/shapes.py has both).
TABLE_RADIUS = 32


@dataclass(slots=True)
class Window:
    """The part of the (2r+1)^2 square around `centre` that lies on the map: columns
    x0..x1-1 and rows y0..y1-1 (absolute). Every mask over it is indexed [y - y0, x - x0]."""

    centre: Cell
    radius: int
    x0: int
    y0: int
    x1: int
    y1: int

    @staticmethod
    def around(grid: Grid, centre: Cell, radius: int) -> Window:
        cx, cy = centre
        return Window(centre, radius, max(cx - radius, 0), max(cy - radius, 0),
                      min(cx + radius + 1, grid.width), min(cy + radius + 1, grid.height))

    def square_slice(self) -> tuple[slice, slice]:
        """Where this window lies inside the full (2r+1)^2 square, as [rows, columns]."""
        cx, cy = self.centre
        r = self.radius
        return (slice(self.y0 - cy + r, self.y1 - cy + r),
                slice(self.x0 - cx + r, self.x1 - cx + r))

    def offsets(self) -> tuple[np.ndarray, np.ndarray]:
        """dx and dy of the window's cells from the centre, broadcastable [rows, columns]."""
        cx, cy = self.centre
        dx = np.arange(self.x0 - cx, self.x1 - cx, dtype=np.int64)[np.newaxis, :]
        dy = np.arange(self.y0 - cy, self.y1 - cy, dtype=np.int64)[:, np.newaxis]
        return dx, dy


@lru_cache(maxsize=64)
def _between_table(radius: int) -> np.ndarray:
    """For each cell of a (2r+1)^2 window (flat, row-major), the flat indices of the
    window cells strictly between the centre and it, padded with the index one past the
    window (a cell that never blocks). Built once per radius, up to TABLE_RADIUS.

    Shape (r - 1, cells): the k-th cell between of every window cell in one row, so the
    `or` over them runs along contiguous rows (about 3x faster than along short rows).
    """
    side = 2 * radius + 1
    sentinel = side * side
    table = np.full((max(radius - 1, 1), side * side), sentinel, dtype=np.intp)
    for row in range(side):
        for col in range(side):
            dx, dy = col - radius, row - radius
            for k in range(1, max(abs(dx), abs(dy))):
                ox, oy = step_offset(dx, dy, k)
                table[k - 1, row * side + col] = (oy + radius) * side + (ox + radius)
    table.flags.writeable = False
    return table


@lru_cache(maxsize=64)
def _window_offsets(radius: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """dx, dy and dx^2 + dy^2 of each cell of the (2r+1)^2 window, flat, row-major
    (radii up to TABLE_RADIUS: the cached cone masks)."""
    side = 2 * radius + 1
    dy, dx = np.divmod(np.arange(side * side, dtype=np.int64), side)
    dx -= radius
    dy -= radius
    norm = dx * dx + dy * dy
    for array in (dx, dy, norm):
        array.flags.writeable = False
    return dx, dy, norm


def _blocking(grid: Grid, window: Window) -> np.ndarray:
    """Walls and shut doors over the window (R-GRID-1), [rows, columns]."""
    rows, cols = slice(window.y0, window.y1), slice(window.x0, window.x1)
    return (grid.terrain[rows, cols] == _WALL) | grid.shut[rows, cols]


def _visible(grid: Grid, window: Window) -> np.ndarray:
    """Bool mask over the window: the cells with line of effect from its centre (the
    centre itself included)."""
    radius = window.radius
    if radius <= 1:  # every cell touches the centre: nothing can stand between
        return np.ones((window.y1 - window.y0, window.x1 - window.x0), dtype=bool)
    if radius > TABLE_RADIUS:
        return _sweep_visible(_blocking(grid, window), window)
    side = 2 * radius + 1
    blocking = np.zeros(side * side + 1, dtype=bool)  # + the never-blocking sentinel
    rows, cols = window.square_slice()
    on_map = blocking[:-1].reshape(side, side)[rows, cols]
    grid_rows, grid_cols = slice(window.y0, window.y1), slice(window.x0, window.x1)
    np.equal(grid.terrain[grid_rows, grid_cols], _WALL, out=on_map)
    on_map |= grid.shut[grid_rows, grid_cols]
    seen = ~np.logical_or.reduce(blocking[_between_table(radius)], axis=0)
    return seen.reshape(side, side)[rows, cols]


# The eight octants, as (x major, sign of x, sign of y). A cell (dx, dy) != (0, 0) belongs
# to the x-major octant of its signs when |dx| >= |dy|, else to the y-major one; cells on an
# octant's edge (dx = 0, dy = 0 or |dx| = |dy|) are swept twice, with the same answer.
_OCTANTS = tuple((major, sx, sy) for major in (True, False) for sx in (1, -1) for sy in (1, -1))


def _sweep_visible(blocking: np.ndarray, window: Window) -> np.ndarray:
    """Line of effect over a window of any radius, exactly as `_between_table` reads it,
    octant by octant (`_octant_visible`). `blocking` is [rows, columns] over the window."""
    cx, cy = window.centre
    seen = np.zeros(blocking.shape, dtype=bool)
    seen[cy - window.y0, cx - window.x0] = True
    ahead = {1: (window.x1 - 1 - cx, window.y1 - 1 - cy), -1: (cx - window.x0, cy - window.y0)}
    for major, sx, sy in _OCTANTS:
        reach_x, reach_y = ahead[sx][0], ahead[sy][1]
        along, across = (reach_x, reach_y) if major else (reach_y, reach_x)
        if along < 1:
            continue
        # The octant's cells as [k along, i across], k = 0..along, i = 0..across.
        xs = cx - window.x0 + sx * np.arange((along if major else across) + 1)
        ys = cy - window.y0 + sy * np.arange((across if major else along) + 1)
        cells = np.ix_(ys, xs)
        walls = blocking[cells].T if major else blocking[cells]
        seen_here = _octant_visible(walls)
        if major:
            seen[cells] |= seen_here.T
        else:
            seen[cells] |= seen_here
    return seen


def _octant_visible(walls: np.ndarray) -> np.ndarray:
    """One octant: `walls[k, i]` (k = 0..U along the major axis, i = 0..V across it) ->
    `seen[u, v]`, whether the digital line from (0, 0) to (u, v), v <= u, has no wall
    strictly between (cells with v > u belong to another octant and are left False).

    The k-th cell of the line to (u, v) is (k, floor(k v / u + 1/2)) (`step_offset`), so a
    wall at (k, i) lies on the lines whose slope v/u falls in [(2i - 1) / 2k, (2i + 1) / 2k),
    and shadows those with u > k. With the cells sorted by slope, each wall shadows one
    run of them: the cell at (u, v) is seen when the least k of the walls whose run holds
    it is u or more. The least k over overlapping runs is a range-minimum, answered for
    all cells at once by halving power-of-two blocks (`_least_over_runs`): O(n log n) for n
    cells, where a table of the cells between costs n times the radius.

    Slopes are compared as floats: two distinct fractions with denominators up to 2U differ
    by at least 1 / (4 U^2), far above float64's rounding for U up to 2**20 (U is at most
    the radius, and world.limits.max_range at most 2**14), and equal fractions round to
    equal floats, so the order and the ties are exact.
    """
    along, across = walls.shape[0] - 1, walls.shape[1] - 1
    seen = np.zeros(walls.shape, dtype=bool)
    ks, iz = np.nonzero(walls[1:along])  # a wall at the far end shadows nothing here
    ks += 1
    on_lines = iz <= ks  # the k-th cell of a line with v <= u is at most k across
    ks, iz = ks[on_lines], iz[on_lines]
    u, v = _octant_cells(along, across)
    if not len(ks):
        seen[u, v] = True
        return seen
    order, slopes, u_sorted = _by_slope(along, across)
    low = np.searchsorted(slopes, (2 * iz - 1) / (2 * ks), side="left")
    high = np.searchsorted(slopes, (2 * iz + 1) / (2 * ks), side="left")
    least = _least_over_runs(len(slopes), low, high, ks)
    seen[u[order], v[order]] = least >= u_sorted
    return seen


# Octants of up to this many cells keep their cells and slope order cached (about 2 MB
# each at most, 32 of them); bigger ones are worked out per cast, at a cost in step with
# the cast's own.
_CACHED_OCTANT = 1 << 16


def _octant_cells(along: int, across: int) -> tuple[np.ndarray, np.ndarray]:
    """The cells (u, v) of an octant, 1 <= u <= along, 0 <= v <= min(u, across)."""
    if (along + 1) * (across + 1) <= _CACHED_OCTANT:
        return _cached_octant_cells(along, across)
    return _make_octant_cells(along, across)


def _make_octant_cells(along: int, across: int) -> tuple[np.ndarray, np.ndarray]:
    u, v = np.nonzero(np.tri(along + 1, across + 1, dtype=bool)[1:])
    u += 1
    for array in (u, v):
        array.flags.writeable = False
    return u, v


def _by_slope(along: int, across: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The order that sorts an octant's cells by slope v/u, the sorted slopes, and u in
    that order. Depends only on the window's extent, so casts of one radius in the open
    (all eight octants alike) sort once."""
    if (along + 1) * (across + 1) <= _CACHED_OCTANT:
        return _cached_by_slope(along, across)
    return _make_by_slope(along, across)


def _make_by_slope(along: int, across: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    u, v = _octant_cells(along, across)
    slopes = v / u
    order = np.argsort(slopes, kind="stable")
    sorted_slopes, u_sorted = slopes[order], u[order]
    for array in (order, sorted_slopes, u_sorted):
        array.flags.writeable = False
    return order, sorted_slopes, u_sorted


_cached_octant_cells = lru_cache(maxsize=32)(_make_octant_cells)
_cached_by_slope = lru_cache(maxsize=32)(_make_by_slope)


def _least_over_runs(size: int, low: np.ndarray, high: np.ndarray,
                     values: np.ndarray) -> np.ndarray:
    """For each position 0..size-1, the least value of the runs [low, high) that hold it
    (the largest int64 where none does). Each run is two blocks of the largest power of
    two that fits it (they overlap: a minimum does not mind), written at its level; from
    the top level down, each block hands its value to its two halves."""
    none = np.iinfo(np.int64).max
    keep = high > low
    low, high, values = low[keep], high[keep], values[keep].astype(np.int64)
    if not len(low):
        return np.full(size, none, dtype=np.int64)
    levels = np.floor(np.log2(high - low)).astype(np.int64)
    # log2 of a whole number is exact at powers of two; fix any rounding at the edges
    levels -= (1 << levels) > high - low
    levels += (1 << (levels + 1)) <= high - low
    least = np.full(size, none, dtype=np.int64)
    by_level = np.argsort(levels, kind="stable")
    low, high, values, levels = low[by_level], high[by_level], values[by_level], levels[by_level]
    top = int(levels[-1])
    ends = np.searchsorted(levels, np.arange(top + 2), side="left").tolist()
    for level in range(top, -1, -1):
        if level < top:  # each block of the level above hands its value to its halves
            half = 1 << level
            np.minimum(least[half:], least[:-half].copy(), out=least[half:])
        first, last = ends[level], ends[level + 1]
        if first < last:
            width = 1 << level
            np.minimum.at(least, low[first:last], values[first:last])
            np.minimum.at(least, high[first:last] - width, values[first:last])
    return least


def _cells_of(mask: np.ndarray, window: Window) -> tuple[np.ndarray, np.ndarray]:
    """Absolute x and y arrays of a window mask's cells, row-major (y, then x)."""
    ys, xs = np.nonzero(mask)
    return xs + window.x0, ys + window.y0


# -- victims ------------------------------------------------------------------------------------
def _victims(occupants: list[int], spawn_of: Callable[[int], int],
             caster: int | None) -> tuple[int, ...]:
    """Creatures on the cells, `caster` left out (None keeps it), in spawn order
    (R-SHAPE-6, R-GRID-3)."""
    found = [entity for entity in occupants if entity and entity != caster]
    return tuple(sorted(found, key=spawn_of))


def _victims_in(occupants: np.ndarray, spawn_of: Callable[[int], int],
                caster: int | None) -> tuple[int, ...]:
    """`_victims` of an array of occupants (a creature is on one cell only, R-GRID-4):
    empty cells and the caster dropped in numpy, only creatures sorted in Python."""
    keep = occupants != 0
    if caster is not None:
        keep &= occupants != caster
    return tuple(sorted(occupants[keep].tolist(), key=spawn_of))


# -- the shapes ---------------------------------------------------------------------------------
def _burst(grid: Grid, origin: Cell, aim: Cell, range_: int, radius: int,
           spawn_of: Callable[[int], int]) -> ShapeResult:
    """R-SHAPE-1 burst: every cell within `radius` of the centre it can reach; all of
    them get cell effects (R-SHAPE-7); the caster is struck when covered."""
    centre = burst_centre(grid, origin, aim, range_)
    window = Window.around(grid, centre, max(radius, 0))
    xs, ys = _cells_of(_visible(grid, window), window)
    area = tuple(zip(xs.tolist(), ys.tolist(), strict=True))
    victims = _victims_in(grid.occupant[ys, xs], spawn_of, None)
    return ShapeResult(area=area, effect_cells=area, centre=centre, victims=victims)


def cone_mask(origin: Cell, aim: Cell, range_: int) -> np.ndarray:
    """Flat bool mask over the (2R+1)^2 window around `origin`, R = `range_`: the cells at
    most 45 degrees from the aim direction (inclusive), the origin excluded. Read-only:
    cached per range and direction (direction reduced by its gcd)."""
    ax, ay = aim[0] - origin[0], aim[1] - origin[1]
    divisor = math.gcd(ax, ay) or 1
    return _cone_mask(range_, ax // divisor, ay // divisor)


@lru_cache(maxsize=1024)
def _cone_mask(range_: int, ax: int, ay: int) -> np.ndarray:
    """Exact in integers: angle(d, v) <= 45 degrees iff d.v > 0 and
    2 (d.v)^2 >= |d|^2 |v|^2."""
    dx, dy, norm = _window_offsets(range_)
    dot = ax * dx + ay * dy
    mask = (dot > 0) & (2 * dot * dot >= (ax * ax + ay * ay) * norm)
    mask.flags.writeable = False
    return mask


def _cone_over(window: Window, aim: Cell) -> np.ndarray:
    """`cone_mask` over a window (the cached square's part on the map, or computed on
    the window alone past TABLE_RADIUS, where a cached square would be the r^2 cost)."""
    origin, radius = window.centre, window.radius
    if radius <= TABLE_RADIUS:
        side = 2 * radius + 1
        return cone_mask(origin, aim, radius).reshape(side, side)[window.square_slice()]
    ax, ay = aim[0] - origin[0], aim[1] - origin[1]
    divisor = math.gcd(ax, ay) or 1
    ax, ay = ax // divisor, ay // divisor
    dx, dy = window.offsets()
    dot = ax * dx + ay * dy
    return (dot > 0) & (2 * dot * dot >= (ax * ax + ay * ay) * (dx * dx + dy * dy))


def _cone(grid: Grid, origin: Cell, aim: Cell, range_: int, caster: int,
          spawn_of: Callable[[int], int]) -> ShapeResult:
    """R-SHAPE-1 cone: no cell effects (R-SHAPE-3, R-SHAPE-7)."""
    if aim == origin or range_ < 1:
        return EMPTY
    window = Window.around(grid, origin, range_)
    mask = _visible(grid, window) & _cone_over(window, aim)
    xs, ys = _cells_of(mask, window)
    area = tuple(zip(xs.tolist(), ys.tolist(), strict=True))
    victims = _victims_in(grid.occupant[ys, xs], spawn_of, caster)
    return ShapeResult(area=area, effect_cells=(), centre=None, victims=victims)


def _line(grid: Grid, origin: Cell, aim: Cell, range_: int, caster: int,
          spawn_of: Callable[[int], int]) -> ShapeResult:
    """R-SHAPE-1 line: cell effects on its last cell only (R-SHAPE-3, R-SHAPE-7)."""
    area = tuple(_path(grid, origin, aim, range_))
    occupant = grid.occupant
    victims = _victims([int(occupant[y, x]) for x, y in area], spawn_of, caster)
    return ShapeResult(area=area, effect_cells=area[-1:], centre=None, victims=victims)


def _ray(grid: Grid, origin: Cell, aim: Cell, range_: int, caster: int) -> ShapeResult:
    """R-SHAPE-1 ray and bolt: the line's path, cut after the first creature other than
    the caster. Effect cell (R-SHAPE-2): the struck creature's cell, or else the aim cell
    when the path reached it, or else the last cell reached (the blocking cell that
    stopped it; **decision**)."""
    occupant = grid.occupant
    area: list[Cell] = []
    for x, y in _path(grid, origin, aim, range_):
        area.append((x, y))
        struck = int(occupant[y, x])
        if struck and struck != caster:
            return ShapeResult(area=tuple(area), effect_cells=((x, y),), centre=None,
                               victims=(struck,))
    if not area:
        return EMPTY
    effect = aim if aim in area else area[-1]
    return ShapeResult(area=tuple(area), effect_cells=(effect,), centre=None, victims=())


def _touch(grid: Grid, origin: Cell, aim: Cell, target: int | None) -> ShapeResult:
    """R-SHAPE-1 touch: the aim cell when beside the caster (Chebyshev 1) or the caster's
    own; struck: `target` if given, else whoever stands there (the caster too, when it
    touches itself: **decision**). Effect cell: that cell (R-SHAPE-2)."""
    if max(abs(aim[0] - origin[0]), abs(aim[1] - origin[1])) > 1:
        return EMPTY
    if not grid.in_bounds(*aim):
        return EMPTY
    struck = target if target is not None else int(grid.occupant[aim[1], aim[0]])
    return ShapeResult(area=(aim,), effect_cells=(aim,), centre=None,
                       victims=(struck,) if struck else ())


def resolve_shape(grid: Grid, shape: str, origin: Cell, aim: Cell, *, range_: int,
                  radius: int, caster: int, spawn_of: Callable[[int], int],
                  target: int | None = None) -> ShapeResult:
    """The cells a cast of `shape` reaches and the creatures it strikes (R-SHAPE-1..7).

    `origin`: the caster's cell; `aim`: the aimed cell (a target creature's cell, with
    `target` its entity); `caster`: the caster's entity; `spawn_of(entity)`: its spawn
    number. No shape reaches beyond `range_` cells from the caster (a burst's centre, then
    `radius` around it). A cone, line, ray or bolt aimed at the caster's own cell has no
    direction and reaches nothing. Reads the grid only; ValueError for an unknown shape.
    """
    origin = (int(origin[0]), int(origin[1]))
    aim = (int(aim[0]), int(aim[1]))
    if shape == "burst":
        return _burst(grid, origin, aim, range_, radius, spawn_of)
    if shape == "cone":
        return _cone(grid, origin, aim, range_, caster, spawn_of)
    if shape == "line":
        return _line(grid, origin, aim, range_, caster, spawn_of)
    if shape in ("ray", "bolt"):
        return _ray(grid, origin, aim, range_, caster)
    if shape == "touch":
        return _touch(grid, origin, aim, target)
    raise ValueError(f"unknown spell shape {shape!r} (known: {', '.join(SHAPES)})")
