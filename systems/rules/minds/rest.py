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
from typing import TYPE_CHECKING, cast

import numpy as np

from affray.systems.rules import walking
from affray.systems.rules.minds import crowd
from affray.systems.rules.walking import free_around

Cell = tuple[int, int]

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
    # what the decision read of its side's look, when that was all (`look_still`)
    looked: tuple[tuple[str, object], ...] | None = None


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
        rows, columns = self.blocks.shape
        if y0 == 0 and x0 == 0 and y1 >= rows - 1 and x1 >= columns - 1:
            # every block: the latest stamp of all is the clock (each stamp sets its
            # block to the clock it just moved to)
            return self.clock > since
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
           looked: tuple[tuple[str, object], ...] | None = None) -> None:
    """After a decision that returned nothing: a fixed point (nothing drawn, `reach`
    known, its own state and memory as they were before it) is recorded; `looked`,
    what it read of its side's look when it read nothing else
    (`MindView.look_reads`)."""
    stirs = stirs_of(world)
    if reach is None:
        stirs.rests.pop(sheet.entity, None)
        return
    own = own_state(world, sheet)
    if own != before:
        stirs.rests.pop(sheet.entity, None)
        return
    stirs.rests[sheet.entity] = Rest(own, stirs.clock, reach, looked)


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
    if rest.looked is not None:  # its own exact check, whatever changed near it
        if not look_still(world, sheet, rest.looked):
            return False
        rest.clock = stirs.clock  # what recording the same decision again would write
        return True
    position = sheet.position
    return not stirs.changed_near(position.x, position.y, rest.reach, rest.clock)


def look_still(world: World, sheet: Sheet, looked: tuple[tuple[str, object], ...]) -> bool:
    """A decision that read nothing of the world but its side's look (crowd.py), the
    eight cells around it and, cut off, its walk window's free patches: with its own
    state, memory and the terrain unchanged (the record's own state), `traits.decide`
    is a function of those reads alone, so it is the same again exactly when each read
    gives what it gave (`MindView.look_reads`):

    - "distance": the Chebyshev distance to the nearest foe (`crowd.FAR` past sight);
    - "nearest": the foe it went for, (roster row, cell): the least row within that
      distance, on the same cell (its memory held the cell; a foe that stepped, or a
      nearer one, would change what it does);
    - "hemmed": all eight neighbouring cells taken (its step was refused for that alone);
    - "cut_off": the walk window's radius, after "distance" and "nearest": no free
      neighbour one cell nearer that foe (`walking.open_step_down`), one free at all, and
      none joined to the foe within that window (`walking.cut_off`): so `detour` finds no
      way round and it waits, remembering the foe (the rear ranks behind their front).

    The look's paths were taken because its windows held no wall or shut door; with the
    terrain and its cell unchanged they still hold none. Without a look now (not yet
    made for the others' new places), it is asked."""
    position = sheet.position
    x, y = position.x, position.y
    roster = world.roster
    look = crowd.look_of(world, roster.code(sheet.creature.side))
    traits = world.content.minds.get(sheet.mind.name)  # type: ignore[arg-type]
    if look is None or traits is None:
        return False
    distance = look.in_sight(x, y, traits.sight)
    for kind, value in looked:
        if kind == "distance":
            if distance != value:
                return False
        elif kind == "nearest":
            row, cell = cast("tuple[int, Cell]", value)
            if distance == crowd.FAR or look.first_within(x, y, distance) != row \
                    or (int(roster.x[row]), int(roster.y[row])) != cell:
                return False
        elif kind == "cut_off":
            grid = world.grid
            tx, ty = cell  # (the "nearest" read came first and held)
            if walking.open_step_down(grid, x, y, tx, ty, distance) is not None:
                return False
            free = free_around(grid, (x, y))
            if not any(free) or not walking.cut_off(grid, cell, (x, y), cast("int", value),
                                                    free, waited=True):
                return False
        else:  # "hemmed"
            grid = world.grid
            # (all nine cells taken, itself in the middle: none free; count_nonzero
            # is the cheapest numpy test of a 3 x 3 block, and this is the grind's
            # commonest check)
            if not (1 <= x < grid.width - 1 and 1 <= y < grid.height - 1
                    and np.count_nonzero(grid.occupant[y - 1:y + 2, x - 1:x + 2]) == 9) \
                    and any(free_around(grid, (x, y))):
                return False
    return True
