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

Bursts and cones compute line of effect for a whole window at once with numpy: a cached
table lists, for each offset of a (2r+1)^2 window, the window cells strictly between its
centre and that offset, so one fancy-index and one `any` answer every cell. Only the
window around the centre is sliced out of the grid, whatever the map's size.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from affray.grid import Grid, Terrain

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
    so floor division is exact truncation here. k may exceed max(|dx|, |dy|): the line
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
@lru_cache(maxsize=64)
def _between_table(radius: int) -> np.ndarray:
    """For each cell of a (2r+1)^2 window (flat, row-major), the flat indices of the
    window cells strictly between the centre and it, padded with the index one past the
    window (a cell that never blocks). Built once per radius.

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
    """dx, dy and dx^2 + dy^2 of each cell of the (2r+1)^2 window, flat, row-major."""
    side = 2 * radius + 1
    dy, dx = np.divmod(np.arange(side * side, dtype=np.int64), side)
    dx -= radius
    dy -= radius
    norm = dx * dx + dy * dy
    for array in (dx, dy, norm):
        array.flags.writeable = False
    return dx, dy, norm


def _visible(grid: Grid, centre: Cell, radius: int) -> np.ndarray:
    """Flat bool mask over the (2r+1)^2 window around `centre`: on the map and with line
    of effect from the centre (the centre itself included)."""
    side = 2 * radius + 1
    cx, cy = centre
    x0, y0 = cx - radius, cy - radius
    gx0, gy0 = max(x0, 0), max(y0, 0)
    gx1, gy1 = min(cx + radius + 1, grid.width), min(cy + radius + 1, grid.height)
    interior = gx0 == x0 and gy0 == y0 and gx1 - gx0 == side and gy1 - gy0 == side
    if radius <= 1:  # every cell touches the centre: nothing can stand between
        seen = np.ones(side * side, dtype=bool)
    else:
        blocking = np.zeros(side * side + 1, dtype=bool)  # + the never-blocking sentinel
        window = blocking[:-1].reshape(side, side)
        if not interior:
            window = window[gy0 - y0:gy1 - y0, gx0 - x0:gx1 - x0]
        np.equal(grid.terrain[gy0:gy1, gx0:gx1], _WALL, out=window)
        window |= grid.shut[gy0:gy1, gx0:gx1]
        seen = ~np.logical_or.reduce(blocking[_between_table(radius)], axis=0)
    if not interior:
        inside = np.zeros((side, side), dtype=bool)
        inside[gy0 - y0:gy1 - y0, gx0 - x0:gx1 - x0] = True
        seen &= inside.ravel()
    return seen


def _cells_of(mask: np.ndarray, centre: Cell, radius: int) -> tuple[np.ndarray, np.ndarray]:
    """Absolute x and y arrays of a window mask's cells, row-major (y, then x)."""
    dx, dy, _norm = _window_offsets(radius)
    return dx[mask] + centre[0], dy[mask] + centre[1]


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
    radius = max(radius, 0)
    xs, ys = _cells_of(_visible(grid, centre, radius), centre, radius)
    area = tuple(zip(xs.tolist(), ys.tolist(), strict=True))
    victims = _victims_in(grid.occupant[ys, xs], spawn_of, None)
    return ShapeResult(area=area, effect_cells=area, centre=centre, victims=victims)


def cone_mask(origin: Cell, aim: Cell, range_: int) -> np.ndarray:
    """Flat bool mask over the (2R+1)^2 window around `origin`, R = range_: the cells at
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


def _cone(grid: Grid, origin: Cell, aim: Cell, range_: int, caster: int,
          spawn_of: Callable[[int], int]) -> ShapeResult:
    """R-SHAPE-1 cone: no cell effects (R-SHAPE-3, R-SHAPE-7)."""
    if aim == origin or range_ < 1:
        return EMPTY
    mask = _visible(grid, origin, range_) & cone_mask(origin, aim, range_)
    xs, ys = _cells_of(mask, origin, range_)
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
