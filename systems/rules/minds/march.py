"""The marching soldier's decision, taken without a view (issue 21, "minds in bulk").

Most decisions of an army on the march are one case of the built-in mind
(`traits.decide`): a creature well enough not to think of fleeing, fighting no one and
free to move, on open ground (no wall or shut door within its walk window,
`MindView._reach`), with its side's look made (crowd.py). For it, `decide` comes down
to a few reads of the look and of the cells round it:

- a caster (R-MIND-6) whose next cast is not due (`Mind.next_cast`) tries again then
  (`Mind.wake`) and goes on to its other traits; one free to cast is the view's;
- one that keeps a range holds at it, and is the view's when closer (its step away);
- an aggressive one (R-MIND-3) goes for the look's nearest foe, the least row within
  the distance to the nearest (`MindView._crowd_nearest`: walking distance is Chebyshev
  on open ground, ties to the earlier spawn), remembers it and its cell, and steps to
  the first free neighbour (R-GRID-2's order) nearer to it (`MindView.step_toward` on the
  open field, `walking.step_down`), or round the crowd ahead (`walking.detour`), or
  waits, hemmed in or cut off;
- with no foe in sight, nothing remembered and no fight to assist, it rests.

`advance(world, sheet, traits)` reads those with the functions the view calls (the
look, `walking.open_window`, `free_around`, `step_down`, `detour`) and carries the
decision out as `minds.think` does, its rest recorded with what the view would have
read (`rest.record`), without building the view, its walk fields or its records of the
creatures seen. Any other case (a foe beside it, a cast, a step away, a fight or a foe
remembered out of sight, a wall in the window, hurt below its wimpy mark, a player, a
game's own mind...) is handed back untouched, and `minds.think` asks the mind as before,
given the look already asked for: the side's look is asked exactly as often as without
this path, and the world's answers, minds and rest records are the same, event for
event (tests/test_minds_march.py plays armies, the built-ins and random worlds both
ways, pulse by pulse).

Reads the sheet (vitals, combat, affects, position, mind), the content mind's traits,
the grid and the side's look; writes `Mind` (target, last_seen, fleeing, wake,
idle_since), `World.stirs` (the rest record, made or dropped) and what a move writes
(`actions.run_action`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from affray.core.actions import Move
from affray.systems.rules import walking
from affray.systems.rules.minds import crowd, rest

if TYPE_CHECKING:
    from affray.core.world import World
    from affray.data.defs import MindDef
    from affray.systems.rules.sheet import Sheet

# Equivalence tests and benchmarks turn the path off to compare with the view's.
ENABLED = True


class _Unasked:
    """`advance` handed the decision back before asking for the side's look."""

    def __repr__(self) -> str:
        return "UNASKED"


UNASKED: Final = _Unasked()
DONE: Final = object()  # `advance` stepped the creature: nothing left to do


def advance(world: World, sheet: Sheet, traits: MindDef) -> object:
    """Step a free creature whose built-in mind `traits` decides the march case
    (module docstring) and return DONE; else change nothing and return what the view
    should take as its side's look: the look asked for (a `crowd.Look`, or None when
    not made yet), or UNASKED. The caller has checked that the creature is `able` and
    its mind is the built-in one (`minds.think`'s first steps)."""
    vitals = sheet.vitals
    # traits.decide's order: wimpy, caster, fighter, held, keep range, aggressive
    if traits.wimpy and vitals.hp * 100 < traits.wimpy * vitals.max_hp:
        return UNASKED
    if sheet.creature.player:
        return UNASKED  # (a player's spell list is its learned spells: the view's)
    mind = sheet.mind
    position = sheet.position
    x, y = position.x, position.y
    grid = world.grid
    look: object = UNASKED
    wake = -1
    if traits.spells:  # `traits._cast`: the look's distance says whether it sees a foe
        look = _side_look(world, sheet)
        if look is None or not walking.open_window(grid, (x, y), traits.sight):
            return look  # (its field of view: the view's)
        if look.in_sight(x, y, traits.sight) != crowd.FAR:  # type: ignore[attr-defined]
            if world.pulse >= mind.next_cast:
                return look  # it may cast: the view's (a draw, previews)
            wake = mind.next_cast  # it tries again then
    levels = sheet.affects.levels
    if sheet.combat.fighting is not None or "held" in levels or "webbed" in levels:
        return look
    if traits.keep_range:  # `traits._keep_range`, when it sees a foe
        if look is UNASKED:
            look = _side_look(world, sheet)
        if look is None or not walking.open_window(grid, (x, y), traits.sight):
            return look
        distance = look.in_sight(x, y, traits.sight)  # type: ignore[attr-defined]
        if distance < traits.keep_range:
            return look  # too close: its step away is the view's
        if distance == traits.keep_range:  # it holds at its range
            before = rest.own_state(world, sheet)
            mind.wake = wake
            mind.fleeing = False
            return _rests(world, sheet, before, traits.sight, (("distance", distance),))
    if not traits.aggressive:
        return look
    if look is UNASKED:
        look = _side_look(world, sheet)  # `MindView.nearest_foe`'s ask
    if look is None:
        return look
    assert isinstance(look, crowd.Look)
    reach = max(2 * traits.sight, 8)  # MindView._reach
    if not walking.open_window(grid, (x, y), reach):
        return look
    distance = look.in_sight(x, y, traits.sight)
    if distance == crowd.FAR:
        return _nothing_in_sight(world, sheet, traits, look)
    if distance <= 1:
        return look  # a foe beside it: the view's attack
    roster = world.roster
    row = look.first_within(x, y, distance)
    target = world.sheets[int(roster.entity[row])]
    tx, ty = target.position.x, target.position.y
    step = walking.open_step_down(grid, x, y, tx, ty, distance)
    looked: tuple[tuple[str, object], ...] = ()
    if step is None:
        free = walking.free_around(grid, (x, y))
        if any(free):
            index = walking.detour(grid, (tx, ty), (x, y), reach, free,
                                   waited=mind.idle_since >= 0)
            if index is not None:
                step = walking.neighbour((x, y), index)
            else:  # cut off from its foe within the walk window (the front ahead)
                looked = (("distance", distance), ("nearest", (row, (tx, ty))),
                          ("cut_off", reach))
        else:  # hemmed in: what it read was the look's and the eight cells round it
            looked = (("distance", distance), ("nearest", (row, (tx, ty))),
                      ("hemmed", True))
    before = rest.own_state(world, sheet) if step is None else None
    mind.wake = wake
    mind.fleeing = False
    mind.target, mind.last_seen = target.id, (tx, ty)
    if step is None:
        # it waits, having read the look, then the cells round it (hemmed in) or its
        # walk window's free patches (cut off: `rest.look_still` asks them again)
        return _rests(world, sheet, before,  # type: ignore[arg-type]
                      traits.sight if looked[-1][0] == "hemmed" else reach, looked)
    stirs = world.stirs
    if stirs is not None:
        stirs.rests.pop(sheet.entity, None)
    mind.idle_since = -1
    from affray.systems.rules.actions import run_action  # (actions -> damage -> minds)

    run_action(world, sheet, Move(actor=sheet.id, to=step))
    return DONE


def _side_look(world: World, sheet: Sheet) -> crowd.Look | None:
    """`MindView._side_look`: asked once a decision."""
    return crowd.look_of(world, world.roster.code(sheet.creature.side))


def _nothing_in_sight(world: World, sheet: Sheet, traits: MindDef, look: crowd.Look
                      ) -> object:
    """No foe in sight (the look says so): with no foe remembered and no fight to
    assist (none in the world, or not an assisting mind), `decide` finds nothing and
    rests, having read the look's distance and, assisting, the world's fights (R-MIND-4:
    `MindView.fights_of_allies` reads sight + 1). Else the view's (a fight to look at,
    a foe to follow)."""
    mind = sheet.mind
    if mind.target is not None or (traits.assist and world.fighting):
        return look
    before = rest.own_state(world, sheet)
    mind.wake = -1
    mind.fleeing = False
    if traits.assist:
        return _rests(world, sheet, before, traits.sight + 1, None)
    return _rests(world, sheet, before, traits.sight, (("distance", crowd.FAR),))


def _rests(world: World, sheet: Sheet, before: rest.OwnState, reach: int,
           looked: tuple[tuple[str, object], ...] | None) -> object:
    """`minds.think`'s rest after the view's None, recorded with what the view would
    have read (`MindView.extent`, `MindView.look_reads`)."""
    sheet.mind.idle_since = len(world.events)
    if world.stirs is not None:
        rest.record(world, sheet, before, reach, looked)
    return DONE
