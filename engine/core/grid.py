"""The grid: terrain, ice, occupancy and water bodies as numpy arrays (R-GRID-1..5).

Arrays are indexed `[y, x]` (row y is the scenario's map row). Cells are addressed
`(x, y)` everywhere else. The grid is a World resource, not entities, so neighbour
lookups are O(1) and `scipy.ndimage.label` sees the whole map at once.

Water bodies are relabelled only when terrain changed (the `dirty` flag), by the Terrain
system, once per pulse at most (R-GRID-5, R-TERR-4).
"""

from __future__ import annotations

from collections.abc import Iterator
from enum import IntEnum

import numpy as np

# 8-connectivity for scipy.ndimage.label: diagonals connect water (R-GRID-5).
EIGHT_CONNECTED = np.ones((3, 3), dtype=bool)

# The 8 neighbours, orthogonal first: Euclidean-nearest first (R-GRID-2).
NEIGHBOURS: tuple[tuple[int, int], ...] = (
    (1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, 1), (1, -1), (-1, -1),
)


class Terrain(IntEnum):
    """Terrain codes stored in the uint8 terrain array (R-GRID-1)."""

    FLOOR = 0
    WALL = 1
    WATER = 2
    ICE = 3
    DOOR = 4


TERRAIN_NAMES = {t: t.name.lower() for t in Terrain}
# The codes as plain ints, for the hot paths: on Python 3.11 each `Terrain.WALL` is a
# call of the enum class's __getattr__, and every step of every soldier reads them.
WALL, WATER = int(Terrain.WALL), int(Terrain.WATER)
# The thickest ice a cell holds, in cm: the int16 array's top (R-TERR-2).
ICE_CM_MAX = int(np.iinfo(np.int16).max)


def chebyshev(a: tuple[int, int], b: tuple[int, int]) -> int:
    """Chebyshev distance: 1 for each of the 8 neighbours (R-GRID-2)."""
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def distance_sq(a: tuple[int, int], b: tuple[int, int]) -> int:
    """Squared Euclidean distance, for "nearest" among neighbours (R-GRID-2)."""
    return (a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2


class Grid:
    """Terrain, ice thickness, shut doors, occupancy and water-body labels."""

    __slots__ = ("body", "cache", "dirty", "height", "ice_cm", "labellings", "occupant",
                 "shut", "terrain", "terrain_version", "version", "width")

    def __init__(self, terrain: np.ndarray, ice_cm: np.ndarray | None = None) -> None:
        if terrain.ndim != 2:
            raise ValueError("terrain must be a 2-D array")
        self.terrain = np.ascontiguousarray(terrain, dtype=np.uint8)
        self.height, self.width = self.terrain.shape
        self.ice_cm = (np.zeros(self.terrain.shape, dtype=np.int16) if ice_cm is None
                       else np.ascontiguousarray(ice_cm, dtype=np.int16))
        # A shut door blocks movement, sight and line of effect (R-GRID-1).
        self.shut = np.zeros(self.terrain.shape, dtype=bool)
        # Entity id of the creature on each cell, 0 for none (R-GRID-4).
        self.occupant = np.zeros(self.terrain.shape, dtype=np.int32)
        # Water-body label of each cell, 0 for none; kept in step by relabel().
        self.body = np.zeros(self.terrain.shape, dtype=np.int32)
        self.dirty = True
        self.labellings = 0
        # `version` counts every change of what blocks a step (terrain, doors, who stands
        # where); `terrain_version` only those of the terrain and the doors, what sight
        # and walking distance read: minds keep their fields of view and distance maps
        # while it stands (systems/rules/sight.py, walking.py). A game that edits
        # `terrain` or `shut` by hand calls `changed_terrain()`. Never saved.
        self.version = 0
        self.terrain_version = 0
        # What rules derive from the terrain alone, each kept with the terrain_version
        # it was worked out at (walking.blocked_sums). Never saved.
        self.cache: dict[str, object] = {}

    def copy(self) -> Grid:
        """An independent copy: every array copied, the labelling state kept. A prepared
        scenario keeps one labelled grid and hands each run's World its own copy."""
        grid = Grid.__new__(Grid)
        grid.terrain = self.terrain.copy()
        grid.ice_cm = self.ice_cm.copy()
        grid.shut = self.shut.copy()
        grid.occupant = self.occupant.copy()
        grid.body = self.body.copy()
        grid.height, grid.width = self.height, self.width
        grid.dirty, grid.labellings = self.dirty, self.labellings
        grid.version = grid.terrain_version = 0
        grid.cache = {}
        return grid

    # -- cells -----------------------------------------------------------------
    def in_bounds(self, x: int, y: int) -> bool:
        """True for 0 <= x < width and 0 <= y < height (R-GRID-1)."""
        return 0 <= x < self.width and 0 <= y < self.height

    def terrain_at(self, x: int, y: int) -> Terrain:
        return Terrain(int(self.terrain[y, x]))

    def blocks(self, x: int, y: int) -> bool:
        """Walls and shut doors block movement, sight and line of effect (R-GRID-1)."""
        return bool(self.terrain[y, x] == WALL or self.shut[y, x])

    def occupant_at(self, x: int, y: int) -> int:
        """Entity id of the creature on the cell, 0 when empty."""
        return int(self.occupant[y, x])

    def neighbours(self, x: int, y: int) -> Iterator[tuple[int, int]]:
        """In-bounds neighbours, orthogonal before diagonal (R-GRID-2)."""
        for dx, dy in NEIGHBOURS:
            nx, ny = x + dx, y + dy
            if 0 <= nx < self.width and 0 <= ny < self.height:
                yield nx, ny

    def set_terrain(self, x: int, y: int, terrain: Terrain, ice_cm: int = 0) -> None:
        """Change a cell's terrain and mark the water bodies stale (R-TERR-4). Ice is
        0..ICE_CM_MAX cm thick, what the int16 array holds (content bounds world.ice_cm
        by world.limits.max_ice_cm, itself at most this): ValueError past it, never a
        wrapped or clipped thickness."""
        if terrain == Terrain.ICE and not 0 <= ice_cm <= ICE_CM_MAX:
            raise ValueError(f"ice is 0..{ICE_CM_MAX} cm thick (the grid's int16 array), "
                             f"got {ice_cm}")
        self.terrain[y, x] = terrain
        self.ice_cm[y, x] = ice_cm if terrain == Terrain.ICE else 0
        self.dirty = True
        self.changed_terrain()

    def changed_terrain(self) -> None:
        """Terrain or a door changed: what sees and walks looks again (`terrain_version`)."""
        self.version += 1
        self.terrain_version += 1

    # -- water bodies ------------------------------------------------------------
    def label_water(self) -> tuple[np.ndarray, int]:
        """Label 8-connected water (ice is not water) into `body`; return (labels, n).

        The label array is the truth about bodies (R-GRID-5): a body's cells are read
        from it when asked (`cells_of`), never built for every body at each relabel.
        Counts the labelling so a benchmark can prove no relabel happens without a
        terrain change.
        """
        from scipy import ndimage  # imported here: scipy.ndimage costs ~0.5 s cold

        count = ndimage.label(self.terrain == Terrain.WATER, structure=EIGHT_CONNECTED,
                              output=self.body)
        self.labellings += 1
        self.dirty = False
        return self.body, int(count)

    def body_at(self, x: int, y: int) -> int:
        """The water-body label of a cell, 0 when it is not water (R-GRID-5)."""
        return int(self.body[y, x])

    def cells_of(self, label: int) -> np.ndarray:
        """The cells (x, y) of one body, in scan order (y, then x): one pass over the
        label array, so a cast that reaches a few bodies pays for those alone."""
        flat = np.flatnonzero(self.body.ravel() == label) if label > 0 else np.empty(0, int)
        cells = np.empty((len(flat), 2), dtype=np.int32)
        np.divmod(flat, self.width, out=(cells[:, 1], cells[:, 0]))
        return cells

    def all_body_cells(self) -> list[np.ndarray]:
        """The cells (x, y) of every body 1..n, each in scan order: for the snapshot,
        which lists them all (one sort of the water cells by label)."""
        flat = self.body.ravel()
        water = np.flatnonzero(flat)
        if len(water) == 0:
            return []
        labels = flat[water]
        count = int(labels.max())
        order = np.argsort(labels, kind="stable")
        ordered = water[order]
        sizes = np.bincount(labels, minlength=count + 1)[1:]
        cells = np.empty((len(ordered), 2), dtype=np.int32)
        np.divmod(ordered, self.width, out=(cells[:, 1], cells[:, 0]))
        ends = np.cumsum(sizes).tolist()
        starts = [0, *ends[:-1]]
        return [cells[start:end] for start, end in zip(starts, ends, strict=True)]


def bodies_of(grid: Grid, cell: tuple[int, int]) -> int:
    """The label of the water body a cell (x, y) belongs to, 0 for none (R-GRID-5)."""
    return int(grid.body[cell[1], cell[0]])
