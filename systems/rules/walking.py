"""Walking distance and the step it gives (R-MIND-3, R-MIND-5): one definition, for a mind
deciding alone and for many deciding together (armies).

Walking distance is measured through the terrain: 8 directions at one step each, walls
and shut doors block, water and ice are walked on. Creatures block the *step* (a step
must end on a free cell), not the *measure*: the path toward a foe is measured as if the
creatures between would have moved by the time it gets there, which is what lets one
map per side serve every one of its movers in a pulse, and crowds flow instead of
planning round every body (docs/decisions.md, "R-MIND-3: walking distance").

- `field(world, key, roots, centre, radius)`: tcod's Dijkstra from the roots over the
  terrain, on the window of `radius` around `centre` (None: the whole map), kept in
  `World.sight_cache` while the terrain (`Grid.terrain_version`) and the roots stand.
  A window value v at a cell within one step of the centre is the map's when
  v <= 2 * radius + 1 - r, r the farthest root's Chebyshev distance from the centre (a
  path that leaves the window and comes back is at least that long): `Field.exact`.
- `step_down(values, free, here)`: the step toward the roots: among the free neighbours
  (in R-GRID-2's order: orthogonal first), the first of those with the least value, if
  that value is less than the value where it stands; else no step (it waits, or fights).
- `detour(grid, goal, here, radius)`: when no free neighbour is nearer by the terrain
  (a crowd stands in the way), the step round it: the same rule on the field in which
  every creature blocks; none nearer either: it waits. A walker whose free neighbours
  the field cannot reach (another patch of free cells than the goal's) waits without
  the field (`cut_off`).
- `step_up(...)`: the step away (a flee), the mirror rule with its own tie-break.

Reads the grid (terrain, shut doors, occupancy for `free_around`, `terrain_version`);
writes only `World.sight_cache`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import tcod.path
from scipy import ndimage

from affray.core.grid import NEIGHBOURS, Terrain
from affray.systems.rules.sight import window as window_of  # one window: sight's

if TYPE_CHECKING:
    from affray.core.grid import Grid
    from affray.core.world import World

Cell = tuple[int, int]
UNREACHED = int(np.iinfo(np.int32).max)
MANY_ROOTS = 8  # past this many, an OpenField measures from its roots in numpy
_WALL = int(Terrain.WALL)


@dataclass(slots=True)
class Field:
    """Walking distances from the roots: `dist[y - y0, x - x0]`, UNREACHED where no walk
    within the window reaches. `radius` None: the whole map."""

    version: int
    roots: tuple[Cell, ...]
    centre: Cell
    radius: int | None
    x0: int
    y0: int
    dist: np.ndarray
    bound: int = UNREACHED  # `exact`'s limit, worked out once

    def at(self, cell: Cell) -> int | None:
        """The distance at a cell, None when unreached or off the window."""
        x, y = cell[0] - self.x0, cell[1] - self.y0
        height, width = self.dist.shape
        if not (0 <= x < width and 0 <= y < height):
            return None
        value = int(self.dist[y, x])
        return None if value == UNREACHED else value

    def exact(self, value: int) -> bool:
        """Whether a value read within one step of the centre is the whole map's
        (module docstring)."""
        return value <= self.bound

    def around(self, cell: Cell) -> list[int | None]:
        """The values at the 8 neighbours of `cell`, in R-GRID-2's order."""
        x, y = cell[0] - self.x0, cell[1] - self.y0
        height, width = self.dist.shape
        if 1 <= x < width - 1 and 1 <= y < height - 1:  # all inside: one slice
            block = self.dist[y - 1:y + 2, x - 1:x + 2].tolist()
            return [None if (v := block[1 + dy][1 + dx]) == UNREACHED else v
                    for dx, dy in NEIGHBOURS]
        return [self.at((cell[0] + dx, cell[1] + dy)) for dx, dy in NEIGHBOURS]


@dataclass(slots=True)
class OpenField:
    """The field of a window with no wall and no shut door in it: every walking distance
    inside it is the Chebyshev distance (8 steps of one, nothing in the way, and no
    walk that leaves the window is shorter), worked out as needed, exactly what tcod's
    Dijkstra would give there (tests/test_minds_properties.py)."""

    version: int
    roots: tuple[Cell, ...]
    centre: Cell
    radius: int | None
    x0: int
    y0: int
    x1: int
    y1: int
    bound: int = UNREACHED
    columns: tuple[np.ndarray, np.ndarray] | None = None  # the roots' x and y, when many

    def at(self, cell: Cell) -> int | None:
        x, y = cell
        if not (self.x0 <= x < self.x1 and self.y0 <= y < self.y1):
            return None
        roots = self.roots
        if len(roots) > MANY_ROOTS:  # the foes of a flight: in numpy
            xs, ys = self._root_columns()
            return int(np.maximum(np.abs(xs - x), np.abs(ys - y)).min())
        return min(max(abs(x - rx), abs(y - ry)) for rx, ry in roots)

    def _root_columns(self) -> tuple[np.ndarray, np.ndarray]:
        columns = self.columns
        if columns is None:
            cells = np.array(self.roots, dtype=np.int64).reshape(-1, 2)
            columns = self.columns = (cells[:, 0], cells[:, 1])
        return columns

    def exact(self, value: int) -> bool:
        return True

    def around(self, cell: Cell) -> list[int | None]:
        x, y = cell
        if len(self.roots) != 1 or not (self.x0 < x < self.x1 - 1
                                        and self.y0 < y < self.y1 - 1):
            return [self.at((x + dx, y + dy)) for dx, dy in NEIGHBOURS]
        # one root, every neighbour inside: `at` written out for the eight of them
        rx, ry = self.roots[0]
        return [max(abs(x + dx - rx), abs(y + dy - ry)) for dx, dy in NEIGHBOURS]


def blocked_sums(grid: Grid) -> np.ndarray:
    """The summed-area table of cells that block (walls, shut doors): `open_window`'s,
    kept on the grid while its terrain stands."""
    cached = grid.cache.get("blocked")
    if cached is not None and cached[0] == grid.terrain_version:
        return cached[1]  # type: ignore[no-any-return]
    blocked = ((grid.terrain == _WALL) | grid.shut).astype(np.int32)
    sums = np.zeros((grid.height + 1, grid.width + 1), dtype=np.int32)
    sums[1:, 1:] = blocked.cumsum(axis=0).cumsum(axis=1)
    grid.cache["blocked"] = (grid.terrain_version, sums)
    return sums


def walk_window(grid: Grid, here: Cell, radius: int | None) -> tuple[int, int, int, int]:
    """The window a walker's fields cover: `window_of` its radius, or the whole map."""
    return (0, 0, grid.width, grid.height) if radius is None else window_of(grid, here, radius)


def open_window(grid: Grid, centre: Cell, radius: int) -> bool:
    """No wall and no shut door within Chebyshev `radius` of `centre` (on the map)."""
    sums = blocked_sums(grid)
    item = sums.item
    if item(-1, -1) == 0:
        return True  # nothing blocks anywhere on the map (an open battlefield)
    x0, y0, x1, y1 = window_of(grid, centre, radius)
    return item(y1, x1) - item(y0, x1) - item(y1, x0) + item(y0, x0) == 0  # type: ignore[no-any-return]


def walkable(grid: Grid, x0: int, y0: int, x1: int, y1: int,
             around: bool = False) -> np.ndarray:
    """1 where the terrain may be walked (not a wall, not a shut door), else 0: tcod's
    cost array. Creatures are not in it (module docstring), unless `around`: then every
    occupied cell blocks too (the way round a crowd, `detour`)."""
    open_ = (grid.terrain[y0:y1, x0:x1] != _WALL) & ~grid.shut[y0:y1, x0:x1]
    if around:
        open_ &= grid.occupant[y0:y1, x0:x1] == 0
    return open_.astype(np.int8)


def compute(grid: Grid, roots: tuple[Cell, ...], centre: Cell, radius: int | None,
            around: bool = False) -> Field | OpenField:
    """A new field (no cache); `around`: creatures block it too (`detour`). A window
    with nothing in the way (and roots in it) is an `OpenField`, no Dijkstra needed; so
    is the whole map when no wall or shut door stands anywhere on it (the field of a
    flight from every foe in sight, on an open battlefield)."""
    if (radius is not None and not around and open_window(grid, centre, radius)
            and all(max(abs(x - centre[0]), abs(y - centre[1])) <= radius
                    for x, y in roots)):
        x0, y0, x1, y1 = window_of(grid, centre, radius)
        return OpenField(grid.terrain_version, roots, centre, radius, x0, y0, x1, y1)
    if radius is None and not around and roots and int(blocked_sums(grid)[-1, -1]) == 0:
        return OpenField(grid.terrain_version, roots, centre, None, 0, 0, grid.width,
                         grid.height)
    x0, y0, x1, y1 = walk_window(grid, centre, radius)
    cost = walkable(grid, x0, y0, x1, y1, around)
    dist = np.full((y1 - y0, x1 - x0), UNREACHED, dtype=np.int32)
    for x, y in roots:
        if x0 <= x < x1 and y0 <= y < y1:
            dist[y - y0, x - x0] = 0
    tcod.path.dijkstra2d(dist, cost, 1, 1, out=dist)
    bound = UNREACHED
    if radius is not None:
        cx, cy = centre
        r = max((max(abs(x - cx), abs(y - cy)) for x, y in roots), default=0)
        bound = 2 * radius + 1 - r
    return Field(grid.version if around else grid.terrain_version, roots, centre, radius,
                 x0, y0, dist, bound)


def field(world: World, key: object, roots: tuple[Cell, ...], centre: Cell,
          radius: int | None) -> Field | OpenField:
    """`compute`, kept under `key` while the terrain, the roots and the window stand."""
    cache = world.sight_cache
    cached = cache.get(("walk", key))
    grid = world.grid
    if (cached is not None and cached.version == grid.terrain_version
            and cached.roots == roots and cached.radius == radius
            and (radius is None or cached.centre == centre)):
        return cached
    made = compute(grid, roots, centre, radius)
    cache[("walk", key)] = made
    return made


def detour(grid: Grid, goal: Cell, here: Cell, radius: int | None,
           free: list[bool] | None = None, waited: bool = False) -> int | None:
    """R-MIND-3 when the way is blocked: no free neighbour nearer by the terrain (a crowd
    stands in it), the step round the crowd: the field from `goal` with every creature
    blocking (but the walker and the goal), its step by `step_down`; None when none
    is nearer either (it waits). `free`: `free_around(grid, here)`, when the caller has
    it. Hemmed in on all eight sides, it waits without the field: `step_down` steps only
    onto a free cell (half the detours of a packed army). `waited`: the walker waited
    at its last decision (`cut_off`'s hint, which changes the cost, not the answer)."""
    if free is None:
        free = free_around(grid, here)
    if not any(free):
        return None
    if cut_off(grid, goal, here, radius, free, waited):
        return None
    short = short_detour(grid, goal, here, radius, free)
    if short is not LONG_WAY:
        return short
    made = blocking_field(grid, goal, here, radius)
    hx, hy = here[0] - made.x0, here[1] - made.y0
    if 0 <= hy < made.dist.shape[0] and 0 <= hx < made.dist.shape[1]:
        # the walker's own cell: its value from its free neighbours, as if it were free
        values = [v for v in made.around(here) if v is not None]
        value = min(values) + 1 if values else None
    else:
        value = None
    return step_down(made.around(here), free, value)


LONG_WAY = -1      # `short_detour`: no answer from the small box, ask the window's field
DETOUR_SLACK = 3   # how much longer than the crow flies a short detour may be


def short_detour(grid: Grid, goal: Cell, here: Cell, radius: int | None,
                 free: list[bool]) -> int | None:
    """`detour`'s step from a Dijkstra over a small box, when that box decides it.

    The step is the first free neighbour of least value in the window's blocking field.
    A walk of length L from the goal stays within L of it (Chebyshev) and, to end beside
    the walker, within L + 1 of the walker: so every walk of length R = c + DETOUR_SLACK
    (c: the walker's distance to the goal as the crow flies) lies in the box where the
    window, the square of radius R round the goal and the square of radius R + 1 round
    the walker meet, and the box's field equals the window's at every cell the window's
    puts at R or less (elsewhere it is no less). So when the least value among the
    walker's neighbours in the box is R or less, it is the window's least value, at the
    same neighbours, and the step is the same. Most detours of a marching army are a
    sidestep round the file ahead (their least value is c), and the box is a fraction of
    the window; a detour round a whole rank is LONG_WAY, and the window's field decides.
    """
    c = max(abs(goal[0] - here[0]), abs(goal[1] - here[1]))
    reach = c + DETOUR_SLACK
    wx0, wy0, wx1, wy1 = walk_window(grid, here, radius)
    x0 = max(wx0, goal[0] - reach, here[0] - reach - 1)
    y0 = max(wy0, goal[1] - reach, here[1] - reach - 1)
    x1 = min(wx1, goal[0] + reach + 1, here[0] + reach + 2)
    y1 = min(wy1, goal[1] + reach + 1, here[1] + reach + 2)
    if 2 * (x1 - x0) * (y1 - y0) > (wx1 - wx0) * (wy1 - wy0):
        return LONG_WAY  # not much smaller than the window: its field, kept, is as good
    if not (x0 <= goal[0] < x1 and y0 <= goal[1] < y1):
        return LONG_WAY  # a goal off the window is no root (`cut_off` says so first)
    dist = np.full((y1 - y0, x1 - x0), UNREACHED, dtype=np.int32)
    dist[goal[1] - y0, goal[0] - x0] = 0
    tcod.path.dijkstra2d(dist, walkable(grid, x0, y0, x1, y1, True), 1, 1, out=dist)
    box = Field(grid.version, (goal,), here, radius, x0, y0, dist)
    values = box.around(here)
    reached = [v for v in values if v is not None]
    if not reached or min(reached) > reach:
        return LONG_WAY
    return step_down(values, free, min(reached) + 1)


def cut_off(grid: Grid, goal: Cell, here: Cell, radius: int | None,
            free: list[bool], waited: bool = False) -> bool:
    """Whether the blocking field from `goal` (creatures, walls and shut doors blocking,
    within the window of `radius` around `here`) reaches none of the walker's free
    neighbours, found without the field. The field spreads from the goal into every free
    cell beside it and on through free cells, 8 ways (tcod's Dijkstra spreads from a root
    on a blocked cell too), and only within the window: so it reaches a free neighbour
    exactly when that neighbour lies in the same 8-connected patch of the window's free
    cells as a free cell on or beside the goal (`free_patches`); a goal outside the
    window is no root at all. Labelling the patches costs a tenth of the Dijkstra, and
    one labelling serves every walker with that window while nothing on the grid
    changes: a soldier in its own army's crowd, cut off from its foe by the front,
    waits without a Dijkstra. False: ask the field.

    The patches of the whole map answer first when they are labelled already for this
    state of the grid, or when the walker `waited` at its last decision (likely cut off
    again): cells apart on the whole map are apart in any window of it, and one
    labelling then serves every walker of the pulse between two changes of the grid,
    whatever its window (a grinding battle's rear ranks, cut off by their own front)."""
    x0, y0, x1, y1 = walk_window(grid, here, radius)
    gx, gy = goal
    if not (x0 <= gx < x1 and y0 <= gy < y1):
        return True  # no root in the window: the field reaches nothing
    whole = (0, 0, grid.width, grid.height)
    if ((x0, y0, x1, y1) != whole and (waited or patches_labelled(grid, whole))
            and not _joined(free_patches(grid, *whole), whole, goal, here, free)):
        return True
    return not _joined(free_patches(grid, x0, y0, x1, y1), (x0, y0, x1, y1), goal, here,
                       free)


def _joined(patches: np.ndarray, window: tuple[int, int, int, int], goal: Cell,
            here: Cell, free: list[bool]) -> bool:
    """A free neighbour of `here` lies in a patch of a free cell on or beside `goal`
    (`patches` labels `window`, which holds the goal and the walker; a free neighbour is
    on the map, so in the window). Read with plain lists and `item`: the grind asks this
    of every cut-off rear rank each pulse."""
    x0, y0 = window[0], window[1]
    gx, gy = goal
    top, left = (gy - 1 if gy > y0 else y0) - y0, (gx - 1 if gx > x0 else x0) - x0
    reached: set[int] = set()
    for row in patches[top:gy + 2 - y0, left:gx + 2 - x0].tolist():  # (numpy clips the far ends)
        reached.update(row)
    reached.discard(0)  # (0: not free)
    if not reached:
        return False
    item = patches.item
    hx, hy = here[0] - x0, here[1] - y0
    for open_, (dx, dy) in zip(free, NEIGHBOURS, strict=True):
        if open_ and item(hy + dy, hx + dx) in reached:
            return True
    return False


def patches_labelled(grid: Grid, window: tuple[int, int, int, int]) -> bool:
    """Whether `free_patches` of this window are kept for the grid as it stands."""
    kept = grid.cache.get("patches")
    return kept is not None and kept[0] == grid.version and window in kept[1]


_EIGHT_WAYS = np.ones((3, 3), dtype=bool)


def free_patches(grid: Grid, x0: int, y0: int, x1: int, y1: int) -> np.ndarray:
    """The 8-connected patches of free cells (walkable, nobody there) of the window
    [x0, x1) x [y0, y1), labelled 1, 2, ... (0: not free), kept for every window asked
    while `Grid.version` stands (as the blocking fields are)."""
    kept = grid.cache.get("patches")
    if kept is None or kept[0] != grid.version or len(kept[1]) >= BLOCKING_FIELDS_KEPT:
        kept = grid.cache["patches"] = (grid.version, {})
    patches: dict[tuple[int, int, int, int], np.ndarray] = kept[1]  # type: ignore[index]
    key = (x0, y0, x1, y1)
    labels = patches.get(key)
    if labels is None:
        labels, _count = ndimage.label(walkable(grid, x0, y0, x1, y1, around=True),
                                       structure=_EIGHT_WAYS)
        patches[key] = labels
    return labels


def _walkable_grid(grid: Grid) -> np.ndarray | None:
    """Not a wall, not a shut door, for the whole map, kept while the terrain stands;
    None when every cell of the map is walkable (an open battlefield: nothing to read)."""
    cached = grid.cache.get("walkable")
    if cached is not None and cached[0] == grid.terrain_version:
        return cached[1]  # type: ignore[no-any-return]
    walkable_ = walkable(grid, 0, 0, grid.width, grid.height) != 0
    kept = None if walkable_.all() else walkable_
    grid.cache["walkable"] = (grid.terrain_version, kept)
    return kept


# The index of each neighbour (R-GRID-2's order) in a raveled 3x3 block around a cell.
_BLOCK_INDEX = tuple((1 + dy) * 3 + (1 + dx) for dx, dy in NEIGHBOURS)


# Blocking fields kept for one state of the grid at most (a pulse of waiting crowds may
# ask for many): past this many, the kept ones are let go.
BLOCKING_FIELDS_KEPT = 256


def blocking_field(grid: Grid, goal: Cell, here: Cell, radius: int | None) -> Field:
    """`compute(grid, (goal,), here, radius, around=True)`, the field `detour` steps
    by, shared by every walker toward `goal` whose window is the same cells while
    nothing on the grid changes (`Grid.version`: a step, a death, a creature added, the
    terrain or a door): the same terrain, crowd, root and window make the same field.
    In a crowd that waits, one Dijkstra serves every soldier behind the same foe (on a
    map no wider or taller than the window, every soldier's window is the whole map).
    Only the distances and the window's corner are read from it (`centre` and `bound`
    are the first asker's)."""
    x0, y0, x1, y1 = walk_window(grid, here, radius)
    kept = grid.cache.get("blocking")
    if kept is None or kept[0] != grid.version or len(kept[1]) >= BLOCKING_FIELDS_KEPT:
        kept = grid.cache["blocking"] = (grid.version, {})
    fields: dict[tuple[Cell, int, int, int, int], Field] = kept[1]  # type: ignore[index]
    key = (goal, x0, y0, x1, y1)
    made = fields.get(key)
    if made is None:
        field_ = compute(grid, (goal,), here, radius, around=True)
        assert isinstance(field_, Field)  # creatures block: never an open field
        made = fields[key] = field_
    return made


def free_around(grid: Grid, cell: Cell) -> list[bool]:
    """Whether each neighbour of `cell` (R-GRID-2's order) is a cell a step may end on:
    on the map, walkable, nobody there."""
    x, y = cell
    if 1 <= x < grid.width - 1 and 1 <= y < grid.height - 1:  # all inside: one block
        # (nested lists: `ravel` would copy the 3 x 3 view first)
        above, level, below = grid.occupant[y - 1:y + 2, x - 1:x + 2].tolist()
        taken = [*above, *level, *below]
        walkable_ = _walkable_grid(grid)
        if walkable_ is None:  # every cell walkable: free is nobody there
            return [not taken[i] for i in _BLOCK_INDEX]
        above, level, below = walkable_[y - 1:y + 2, x - 1:x + 2].tolist()
        open_ = [*above, *level, *below]
        return [open_[i] and not taken[i] for i in _BLOCK_INDEX]
    out = []
    for dx, dy in NEIGHBOURS:
        nx, ny = x + dx, y + dy
        out.append(0 <= nx < grid.width and 0 <= ny < grid.height
                   and grid.terrain[ny, nx] != _WALL and not grid.shut[ny, nx]
                   and not grid.occupant[ny, nx])
    return out


def step_down(values: list[int | None], free: list[bool], here: int | None) -> int | None:
    """R-MIND-3: the index (into NEIGHBOURS) of the step toward the roots: the first free
    neighbour of least value, when that value is below `here`; else None."""
    best: int | None = None
    best_value = UNREACHED
    for index, (value, open_) in enumerate(zip(values, free, strict=True)):
        if open_ and value is not None and value < best_value:
            best, best_value = index, value
    if best is None or here is None or best_value >= here:
        return None
    return best


def step_up(values: list[int | None], free: list[bool], here: int | None,
            crowd: list[int], crowd_here: int) -> int | None:
    """R-MIND-5: the index of the step away from the roots: the free neighbour of the
    greatest value (a cell no root reaches counts as farthest), ties to the one with
    fewer foes beside it (`crowd`), then R-GRID-2's order; never one with more foes beside
    it than where it stands, and only one that leaves it better off (farther, or as far
    beside fewer foes); else None."""
    def key(value: int | None, near: int) -> tuple[int, int]:
        return (-(UNREACHED if value is None else value), near)

    standing = key(here, crowd_here)
    best: int | None = None
    best_key = standing
    for index, (value, open_) in enumerate(zip(values, free, strict=True)):
        if not open_ or crowd[index] > crowd_here:
            continue
        candidate = key(value, crowd[index])
        if candidate < best_key:
            best, best_key = index, candidate
    return best


def neighbour(cell: Cell, index: int) -> Cell:
    dx, dy = NEIGHBOURS[index]
    return cell[0] + dx, cell[1] + dy


def open_step_down(grid: Grid, x: int, y: int, tx: int, ty: int, distance: int
                   ) -> tuple[int, int] | None:
    """`step_down` on the open field toward one foe `distance` away: the values
    round (x, y) are distance - 1, distance or distance + 1, so the step is the first
    neighbour (R-GRID-2's order) at distance - 1 that is free; every cell of the open
    window is walkable, so free is on the map with nobody there (`free_around`).
    None: no such neighbour is free (the view's detour, or a wait)."""
    nearer = distance - 1
    occupant = grid.occupant
    width, height = grid.width, grid.height
    for dx, dy in NEIGHBOURS:
        nx, ny = x + dx, y + dy
        if (max(abs(nx - tx), abs(ny - ty)) == nearer and 0 <= nx < width
                and 0 <= ny < height and not occupant[ny, nx]):
            return nx, ny
    return None
