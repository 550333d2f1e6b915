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

from dataclasses import dataclass, field
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
    """The maps of one side's look (module docstring), for one stamp of the others.

    `first_within` is asked about a thousand times a look in a march, each over a square
    of up to 61 x 61 cells of `rows`. So the least row of every square of side 2**k is
    kept (`squares[k - 1]`, made the first time a square that size is asked: a sparse
    table), and a square's least row is the least of four such squares that cover it,
    four reads instead of a scan."""

    roster: Roster
    stamp: int
    near: np.ndarray
    rows: np.ndarray
    squares: list[np.ndarray] = field(default_factory=list)

    @property
    def nbytes(self) -> int:
        """For the sight cache's bound (sight_cache.py): the maps, and room for every
        table of least rows `first_within` may make (each at most the size of `rows`),
        as the cache counts an entry's bytes when it is put in."""
        return int(self.near.nbytes + self.rows.nbytes * (1 + SQUARE_LEVELS))

    def nearest(self, x: int, y: int) -> int:
        """The Chebyshev distance from (x, y) to the nearest creature of another side
        (`FAR`: none)."""
        return self.near.item(y, x)  # type: ignore[no-any-return]

    def in_sight(self, x: int, y: int, sight: int) -> int:
        """`nearest`, as a mind with that sight reads it: `FAR` past its sight (what a
        decision records and a rest checks again, `rest.look_still`)."""
        distance: int = self.near.item(y, x)
        return FAR if distance > sight else distance

    def first_within(self, x: int, y: int, distance: int) -> int:
        """The least roster row among the creatures of another side within Chebyshev
        `distance` of (x, y) (`NOBODY`: none)."""
        height, width = self.rows.shape
        # (conditionals, not max and min: this is the march's hottest read)
        y0 = y - distance if y > distance else 0
        x0 = x - distance if x > distance else 0
        y1 = y + distance + 1 if y + distance < height else height
        x1 = x + distance + 1 if x + distance < width else width
        short, long = (y1 - y0, x1 - x0) if y1 - y0 < x1 - x0 else (x1 - x0, y1 - y0)
        level = short.bit_length() - 1  # squares of side 2**level fit the box
        side = 1 << level
        if level == 0 or level > SQUARE_LEVELS or long > 2 * side:
            # a box of a few cells, a sight past the tables, or a sliver at the
            # map's edge that four squares do not cover: scan it
            return int(self.rows[y0:y1, x0:x1].min())
        squares = self.squares
        item = (squares[level - 1] if len(squares) >= level else self._squares(level)).item
        top, left = y1 - side, x1 - side  # the far squares' corners
        least = item(y0, x0)
        for value in (item(y0, left), item(top, x0), item(top, left)):
            if value < least:
                least = value
        return least  # type: ignore[no-any-return]

    def _squares(self, level: int) -> np.ndarray:
        """The least row of each square of side 2**level: `table[y, x]` for the square
        whose least corner is (x, y); made from the level below (each square is four
        squares of half its side)."""
        squares = self.squares
        while len(squares) < level:
            below = squares[-1] if squares else self.rows
            half = 1 << len(squares)
            across = np.minimum(below[:, :-half], below[:, half:])
            squares.append(np.minimum(across[:-half], across[half:]))
        return squares[level - 1]


# Tables of least rows a look may keep (squares of side 2 ... 32: a sight of 31 or less
# asks no larger square); a larger square is scanned.
SQUARE_LEVELS = 5


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
