"""Minds that rest while nothing near them changes (R-MIND-1, R-MIND-7): the crowd case.

A mind that found nothing to do rests until the event log grows (`minds.think`). In a
battle the log grows every pulse somewhere, so every resting soldier was asked again at
each free pulse, and nine decisions in ten were the same "nothing" (an archer holding at
its range, a levy with a crowd in front of it). This module skips exactly those: a
decision that would be asked again is not, when asking it provably gives the same
answer, so the log is the one the plain rule gives, draw for draw (tests/test_minds_rest.py
runs battles both ways).

Why it is exact. The built-in mind (`traits.decide`) is a function of the creature's own
state, its memory, the pulse (only through `Mind.wake`, which asks it again when due),
the terrain (`Grid.terrain_version`), and of the creatures on the cells within a reach
of it: those it sees (its `sight`), their fights, the cells next to it, the window of a
crowd's detour (`MindView.extent`, the farthest cell the decision read). A decision
that returned nothing, drew nothing and left its memory as it found it is a fixed point:
given the same inputs it does the same again. So it is recorded (`Rest`), and while its
creature's own state (`own_state`) and the terrain stand and no creature changed on the
cells within its reach, it is not asked again; the skip does what asking would have done
(`Mind.idle_since` catches up with the log, `Mind.wake` stands).

"Changed" is kept coarse and cheap: `Stirs` stamps a block of 8 x 8 cells with a clock
each time a creature steps onto or off a cell of it, dies on it, or starts or ends a
fight while standing on it (its fight's other side is stamped too: that one may be seen
through it, R-MIND-4). These are the only ways the cells a mind reads change for it; a
newcomer (`World.add_creature`) and a game's `stir` forget every record. A decision that
read the whole map's crowd (a detour with no window), a spell preview or mana, or drew,
is never recorded: it is asked as before.

Only the built-in mind rests this way: a game's own mind may read anything, so it keeps
the plain rule. `World.stirs` is never saved; a loaded world starts with no records and
asks each resting mind once, which answers as it did (a fixed point).

Reads `World.grid`, the creature's sheet and `Mind`; writes `World.stirs` (the stamps
and the records) and, on a skip, `Mind.idle_since`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from affray.core.grid import Grid
    from affray.core.world import World
    from affray.systems.rules.sheet import Sheet

BLOCK_SHIFT = 3  # blocks of 8 x 8 cells
# Equivalence tests and benchmarks turn the skip off to compare with the plain rule.
ENABLED = True

OwnState = tuple[object, ...]


@dataclass(slots=True)
class Rest:
    """One recorded fixed point: the creature's own state then, the clock then, and the
    Chebyshev reach of what the decision read."""

    own: OwnState
    clock: int
    reach: int
    hemmed: int | None = None  # the foe's roster row, for a rest hemmed in (`hemmed_still`)


@dataclass(slots=True)
class Stirs:
    """`World.stirs`: the last change on each block of cells (a clock value), and the
    recorded rests by entity (module docstring). Made for one grid."""

    grid: Grid
    blocks: np.ndarray
    clock: int = 0
    rests: dict[int, Rest] = field(default_factory=dict)

    @classmethod
    def of(cls, grid: Grid) -> Stirs:
        shape = (((grid.height - 1) >> BLOCK_SHIFT) + 1, ((grid.width - 1) >> BLOCK_SHIFT) + 1)
        return cls(grid, np.zeros(shape, dtype=np.int64))

    def stamp(self, x: int, y: int) -> None:
        """A creature changed on cell (x, y)."""
        self.clock += 1
        self.blocks[y >> BLOCK_SHIFT, x >> BLOCK_SHIFT] = self.clock

    def changed_near(self, x: int, y: int, reach: int, since: int) -> bool:
        """Whether a block that holds a cell within `reach` of (x, y) changed after
        `since` (a block is a superset of its cells: it may say yes for a change just
        out of reach, never no for one in it)."""
        y0, y1 = max(y - reach, 0) >> BLOCK_SHIFT, (y + reach) >> BLOCK_SHIFT
        x0, x1 = max(x - reach, 0) >> BLOCK_SHIFT, (x + reach) >> BLOCK_SHIFT
        return bool(self.blocks[y0:y1 + 1, x0:x1 + 1].max() > since)


def stirs_of(world: World) -> Stirs:
    """The world's stamps, made for its grid when first wanted (or after the grid was
    replaced: every record is forgotten then)."""
    stirs: Stirs | None = world.stirs
    if stirs is None or stirs.grid is not world.grid:
        stirs = world.stirs = Stirs.of(world.grid)
    return stirs


def stamp(world: World, sheet: Sheet) -> None:
    """`sheet`'s creature changed where it stands (a fight started or ended, it died)."""
    stirs = world.stirs
    if stirs is not None:
        position = sheet.position
        stirs.stamp(position.x, position.y)


def stamp_cell(world: World, x: int, y: int) -> None:
    """A creature stepped onto or off (x, y)."""
    stirs = world.stirs
    if stirs is not None:
        stirs.stamp(x, y)


def stamp_partners(world: World, sheet: Sheet) -> None:
    """`sheet`'s creature moves while in a fight: the other side of each of its fights is
    stamped too (a mind that sees that one reads where this one is, R-MIND-4)."""
    sheets, by_id = world.sheets, world.by_id
    target = sheet.combat.fighting
    if target is not None and target in by_id:
        stamp(world, sheets[by_id[target]])
    for entity in world.fought_by.get(sheet.entity, ()):
        stamp(world, sheets[entity])


def forget_all(world: World) -> None:
    """Something changed that no stamp says (a newcomer, a game's `stir`): every mind is
    asked again as the plain rule says."""
    stirs = world.stirs
    if stirs is not None:
        stirs.rests.clear()


def own_state(world: World, sheet: Sheet) -> OwnState:
    """What of the creature itself the built-in mind reads: its cell, hit points, fight,
    position, the statuses that stop it acting or walking (`minds.able`,
    `MindView.can_move`), its memory, and the terrain's version."""
    position, vitals, mind, levels = sheet.position, sheet.vitals, sheet.mind, \
        sheet.affects.levels
    return (position.x, position.y, vitals.hp, vitals.max_hp, vitals.position,
            sheet.combat.fighting, "stun" in levels, "paralysis" in levels,
            "held" in levels, "webbed" in levels, mind.target, mind.last_seen, mind.fleeing,
            mind.next_cast, world.grid.terrain_version)


def record(world: World, sheet: Sheet, before: OwnState, reach: int | None,
           hemmed: int | None = None) -> None:
    """After a decision that returned nothing: a fixed point (nothing drawn, `reach`
    known, its own state and memory as they were before it) is recorded; `hemmed`, the
    row of the foe it went for when it was hemmed in (`MindView.hemmed_row`)."""
    stirs = stirs_of(world)
    if reach is None:
        stirs.rests.pop(sheet.entity, None)
        return
    own = own_state(world, sheet)
    if own != before:
        stirs.rests.pop(sheet.entity, None)
        return
    stirs.rests[sheet.entity] = Rest(own, stirs.clock, reach, hemmed)


def still(world: World, sheet: Sheet) -> bool:
    """Asking this creature now would give its recorded fixed point again: its own state
    and the terrain stand, and nothing changed within its reach since."""
    stirs = world.stirs
    if stirs is None:
        return False
    rest = stirs.rests.get(sheet.entity)
    if rest is None:
        return False
    if own_state(world, sheet) != rest.own:
        return False
    if rest.reach == 0 or rest.clock == stirs.clock:
        return True  # it read no one but itself (a fighter fights on), or nothing changed
    if rest.hemmed is not None:  # its own exact check, whatever changed near it
        if not hemmed_still(world, sheet, rest.hemmed):
            return False
        rest.clock = stirs.clock  # what recording the same decision again would write
        return True
    position = sheet.position
    return not stirs.changed_near(position.x, position.y, rest.reach, rest.clock)


def hemmed_still(world: World, sheet: Sheet, row: int) -> bool:
    """A soldier in the crowd, hemmed in: its recorded decision went for the foe of roster
    row `row`, named by its side's look (crowd.py: its walk window then had no wall or
    shut door, and its own state, the terrain's version included, stands), and did
    not step only because every neighbouring cell was taken. Read in `traits.decide`'s
    order, that decision is the same again exactly when all eight cells are still
    taken and the look names the same foe, still on the cell its memory holds (the
    decision remembered its cell: a foe that moved changes the memory). Whatever else
    changed within its sight, nothing else was read on the way to that "nothing"."""
    from affray.systems.rules.minds import crowd
    from affray.systems.rules.walking import free_around

    position = sheet.position
    x, y = position.x, position.y
    grid = world.grid
    if not (1 <= x < grid.width - 1 and 1 <= y < grid.height - 1
            and grid.occupant[y - 1:y + 2, x - 1:x + 2].all()) \
            and any(free_around(grid, (x, y))):
        return False  # (all nine cells taken, itself on the middle one: none is free)
    roster = world.roster
    look = crowd.look_of(world, roster.code(sheet.creature.side))
    if look is None:
        return False
    traits = world.content.minds.get(sheet.mind.name)  # type: ignore[arg-type]
    distance = look.nearest(x, y)
    if traits is None or distance > traits.sight:
        return False
    if look.first_within(x, y, distance) != row:
        return False
    return (int(roster.x[row]), int(roster.y[row])) == sheet.mind.last_seen
