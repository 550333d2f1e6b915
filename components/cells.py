"""Components of items and of cells that hold state beyond their terrain.

Terrain itself is a numpy array on the Grid; only doors, fires, ice made by casts, chests
and water bodies are entities (ARCHITECTURE: a 512 x 512 map as entities would be
262,144 of them).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

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
    """A door cell: shut, open or broken; optionally locked and trapped.

    `broken_by` names the creature whose blast broke it (R-FORCE-2), None otherwise.
    """

    state: str = "shut"
    locked: bool = False
    trapped: bool = False
    broken_by: str | None = None


@component
@dataclass(slots=True)
class Fire:
    """A fire on a cell (R-TERR-1): it gives light until the pulse `ends`.

    The end is an absolute pulse, not a countdown, so idle pulses touch no fire and the
    Terrain system knows its next expiry without a scan. `cause` names the creature
    whose cast lit it.
    """

    ends: int
    cause: str | None = None

    def pulses_left(self, pulse: int) -> int:
        """Pulses still to burn after `pulse` (the snapshot's `pulses_left`)."""
        return max(0, self.ends - pulse)


@component
@dataclass(slots=True)
class Ice:
    """Who froze an ice cell (a cell entity beside its Position): R-COLD-2's cause record.

    Only ice made by a cast has one; ice drawn on the map has none. The thickness lives
    in the grid's `ice_cm`; the record goes when the ice melts or shatters.
    """

    cause: str | None = None
    pulse: int = 0


@component
@dataclass(slots=True)
class Chest:
    """A container lying on a cell; a blast at least its hardness breaks it (R-FORCE-3)."""

    item: str
    hardness: int = 0
    contents: list[ItemStack] = field(default_factory=list)


@component
@dataclass
class WaterBody:
    """A maximal 8-connected set of water cells (R-GRID-5, R-TERR-4), by its label.

    The grid's label array (`grid.body`) is the truth: `cells_in(grid)` reads a body's
    cells from it when asked, and its members (the creatures standing in it) are read
    from the grid's occupancy (`affray.systems.terrain.body_members`), so neither is
    built for every body at each relabel nor ever goes stale.
    """

    label: int

    def cells_in(self, grid: Any) -> np.ndarray:
        """The body's cells as an (n, 2) array of (x, y), in scan order (y, then x)."""
        return cast("np.ndarray", grid.cells_of(self.label))
