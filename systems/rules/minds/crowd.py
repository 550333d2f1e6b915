"""What one side's minds see of the other sides, worked out once for the whole side
(R-MIND-2, R-MIND-3, R-SIDE-1; issue 21, "minds in bulk").

In an army, thousands of soldiers of one side ask the same two questions, one after
another, every pulse: does any creature of another side stand within my reach
(`minds.nothing_near`), and which foe that I see is nearest (`MindView.nearest_foe`)?
Asked one by one, each answer reads a window of 61 x 61 cells (sight 30) of the grid.
But the answers depend only on where the creatures of the *other* sides stand, and in
spawn order a side's soldiers mostly act one after another while the others stand
still. So while those stand (`Roster.others_stamp`: no step, death or new creature
among them), every soldier of the side reads its answers from two maps of the grid,
made once:

- `near[y, x]`: the Chebyshev distance from the cell to the nearest living creature
  of another side (scipy's chessboard distance transform; `FAR` when there is none);
- `rows[y, x]`: the roster row of the creature of another side standing there
  (`NOBODY` elsewhere).

A creature at (x, y) has another side within Chebyshev r exactly when
`near[y, x] <= r` (and, its sight window open, sees a foe exactly when r is its sight:
`MindView.sees_a_foe`, `nearest_foe_cells`). And when it sees every cell of its window
(no wall or shut door in it) and walks there as the crow flies (`walking.OpenField`),
the foe it would go for (R-MIND-3: nearest by walking distance, ties to the earlier
spawn, which is the lesser roster row) stands at distance d = `near[y, x]`, and is the
least row of `rows` within Chebyshev d: no foe is nearer, so every foe in that square
is at d. A window with a wall in it is left to the creature's own look (field of view
and walk field).

A look is made only when a side has asked `WARM` times since the others last moved: a
side whose foes move between every two of its soldiers (sides spawned interleaved, a
storm of deaths) asks one by one, as before, and pays for no maps. Which path answers
changes only the cost: the answers are the same (tests/test_minds_crowd.py). A decision
that read nothing but these answers rests until they change (`rest.look_still`).

Reads the roster (cells, sides, lives, stamps) and the grid's size; writes only
`World.sight_cache` (entries keyed `("crowd", side code)`, never saved).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from scipy import ndimage

from affray.systems.rules.sight import window

if TYPE_CHECKING:
    from affray.core.world import World
    from affray.systems.rules.roster import Roster

Cell = tuple[int, int]

FAR = int(np.iinfo(np.int32).max)     # `near` where no creature of another side stands
NOBODY = int(np.iinfo(np.int32).max)  # `rows` where none stands
WARM = 8  # asks of a side at one stamp before its look is made


@dataclass(slots=True)
class Look:
    """The maps of one side's look (module docstring), for one stamp of the others."""

    roster: Roster
    stamp: int
    near: np.ndarray
    rows: np.ndarray

    @property
    def nbytes(self) -> int:
        """For the sight cache's bound (sight_cache.py)."""
        return int(self.near.nbytes + self.rows.nbytes)

    def nearest(self, x: int, y: int) -> int:
        """The Chebyshev distance from (x, y) to the nearest creature of another side
        (`FAR`: none)."""
        return int(self.near[y, x])

    def in_sight(self, x: int, y: int, sight: int) -> int:
        """`nearest`, as a mind with that sight reads it: `FAR` past its sight (what a
        decision records and a rest checks again, `rest.look_still`)."""
        distance = int(self.near[y, x])
        return FAR if distance > sight else distance

    def first_within(self, x: int, y: int, distance: int) -> int:
        """The least roster row among the creatures of another side within Chebyshev
        `distance` of (x, y) (`NOBODY`: none)."""
        height, width = self.rows.shape
        block = self.rows[max(0, y - distance):min(height, y + distance + 1),
                          max(0, x - distance):min(width, x + distance + 1)]
        return int(block.min())


@dataclass(slots=True)
class _Pending:
    """A side asking at a stamp for which no look is made yet: how many times."""

    roster: Roster
    stamp: int
    asks: int
    nbytes: int = 64


def look_of(world: World, code: int) -> Look | None:
    """The look of the side with roster code `code`, valid now, or None: not yet worth
    making (`WARM`), and the asker looks for itself."""
    roster = world.roster
    stamp = roster.others_stamp(code)
    key = ("crowd", code)
    cache = world.sight_cache
    kept = cache.get(key)
    if kept is not None and kept.roster is roster and kept.stamp == stamp:
        if isinstance(kept, Look):
            return kept
        kept.asks += 1
        if kept.asks < WARM:
            return None
    elif WARM > 1:
        cache[key] = _Pending(roster, stamp, 1)
        return None
    made = make_look(world, code)
    cache[key] = made
    return made


def make_look(world: World, code: int) -> Look:
    """A side's look at the others as they stand now (module docstring)."""
    roster = world.roster
    grid = world.grid
    count = roster.count
    others = np.flatnonzero(roster.alive[:count] & (roster.side[:count] != code))
    xs, ys = roster.x[others], roster.y[others]
    rows = np.full((grid.height, grid.width), NOBODY, dtype=np.int32)
    rows[ys, xs] = others
    if len(others):
        near = ndimage.distance_transform_cdt(rows == NOBODY, metric="chessboard")
    else:
        near = np.full((grid.height, grid.width), FAR, dtype=np.int32)
    return Look(roster, roster.others_stamp(code), near, rows)


def others_near(world: World, side: str, cell: Cell, radius: int) -> bool:
    """Whether a living creature of a side other than `side` may stand within Chebyshev
    `radius` of `cell`: exactly, from the side's look when it has one; else from the
    roster's block counts, which may say so when none does (`Roster.others_within`)."""
    roster = world.roster
    look = look_of(world, roster.code(side))
    if look is not None:
        return look.nearest(cell[0], cell[1]) <= radius
    x0, y0, x1, y1 = window(world.grid, cell, radius)
    return roster.others_within(side, x0, y0, x1, y1)
