"""Components of items and of cells that hold state beyond their terrain.

Terrain itself is a numpy array on the Grid; only doors, fires, traps, chests and water
bodies are entities (ARCHITECTURE: a 512 x 512 map as entities would be 262,144 of them).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from affray.components.registry import component

DOOR_STATES = ("shut", "open", "broken")


@component
@dataclass(slots=True)
class ItemStack:
    """A stack of identical items lying on a cell (R-GRID-4)."""

    item: str
    count: int = 1


@component
@dataclass(slots=True)
class Door:
    """A door cell: shut, open or broken; optionally locked and trapped."""

    state: str = "shut"
    locked: bool = False
    trapped: bool = False


@component
@dataclass(slots=True)
class Fire:
    """A fire on a cell (R-TERR-1): it gives light until it expires."""

    pulses_left: int


@component
@dataclass(slots=True)
class Chest:
    """A container lying on a cell; a blast at least its hardness breaks it (R-FORCE-3)."""

    item: str
    hardness: int = 0
    contents: list[ItemStack] = field(default_factory=list)


@component
@dataclass(slots=True)
class WaterBody:
    """A maximal 8-connected set of water cells (R-GRID-5).

    `cells` is an (n, 2) array of (x, y), sorted by y then x. Members (the creatures
    standing in it) are read from the grid's occupancy when needed, so they never go
    stale as creatures move.
    """

    label: int
    cells: np.ndarray
