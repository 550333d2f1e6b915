"""Who fights whom: starting and ending fights (R-ACT-1, R-ACT-2, R-ACT-3).

The source's `set_fighting` and `stop_fighting` (behaviour_notes.md section 1), on a grid:

- R-ACT-1 `engage`: any attack on a creature above stunned that fights no one (a blow
  that hit, missed, was defended or met an immunity; a harmful spell, saved or not)
  makes it fight its attacker when the attacker is beside it. A sleeping victim wakes
  first. When the attacker is not beside it, a creature with a mind takes the attacker
  as its target (it closes in, R-MIND-3); one without a mind does nothing.
- R-ACT-2 `foe_died`: when a creature dies, everyone fighting it stops at once; each of
  them that someone beside it is fighting fights that one from its next round (the
  first in spawn order), so no creature ever fights a corpse.
- R-ACT-3 `moved_apart`: a fight ends the moment the two are no longer beside each other
  (a step, a push, a flee).

Every start and end is a `fight` event (`source` fights `target`, `change`, `why`).
`World.fought_by` (victim entity -> the entities fighting it) is the reverse index these
need; it is derived from `Combat.fighting` and rebuilt on load.

Reads and writes: `Combat.fighting`, `Vitals.position` (fighting/standing, a woken
sleeper), `World.fighting`, `World.fought_by`; Mind memory through `minds.remember`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from affray.core.events import Fight
from affray.core.events import Position as PositionChanged
from affray.systems.rules.minds import remember
from affray.systems.rules.minds.rest import stamp
from affray.systems.rules.tohit import POSITION_RANK, SLEEPING

if TYPE_CHECKING:
    from affray.core.world import World
    from affray.systems.rules.sheet import Sheet

STUNNED = POSITION_RANK["stunned"]
# The `why` of a `fight` event (SCENARIO.md).
WHYS = ("attacked", "aggressive", "assist", "scripted", "foe_died", "apart", "fled")


def beside(a: Sheet, b: Sheet) -> bool:
    """R-GRID-2: Chebyshev distance 1."""
    pa, pb = a.position, b.position
    return max(abs(pa.x - pb.x), abs(pa.y - pb.y)) == 1


def set_fighting(world: World, fighter: Sheet, foe: Sheet, why: str,
                 stand: bool = True) -> None:
    """`fighter` fights `foe` from now on: a `fight` event (started). A fighter already
    fighting someone else ends that fight first (a scripted switch); already fighting
    `foe`, nothing happens. `stand`: a standing fighter takes the fighting position (the
    source's set_fighting with standUp; an attacked victim is engaged without it)."""
    combat = fighter.combat
    if combat.fighting == foe.id:
        return
    if combat.fighting is not None:
        end_fight(world, fighter, why)
    combat.fighting = foe.id
    stamp(world, fighter)  # resting minds near either look again (minds/rest.py)
    stamp(world, foe)
    if stand and fighter.vitals.position == "standing":
        fighter.vitals.position = "fighting"
    world.fighting.add(fighter.entity)
    world.fought_by.setdefault(foe.entity, set()).add(fighter.entity)
    world.emit(Fight(world.pulse, fighter.id, foe.id, "started", why))


def end_fight(world: World, fighter: Sheet, why: str) -> None:
    """`fighter` stops fighting: a `fight` event (ended) with the reason. Nothing when it
    fights no one."""
    combat = fighter.combat
    target = combat.fighting
    if target is None:
        return
    combat.fighting = None
    if fighter.vitals.position == "fighting":
        fighter.vitals.position = "standing"
    world.fighting.discard(fighter.entity)
    stamp(world, fighter)
    foe = world.by_id.get(target)
    if foe is not None:
        stamp(world, world.sheets[foe])
        fought = world.fought_by.get(foe)
        if fought is not None:
            fought.discard(fighter.entity)
            if not fought:
                del world.fought_by[foe]
    if world.volley_cache is not None:
        world.volley_cache.touch(fighter.entity)
    world.emit(Fight(world.pulse, fighter.id, target, "ended", why))


def can_engage(victim: Sheet) -> bool:
    """Alive and above stunned (asleep counts: it wakes first)."""
    return victim.vitals.alive and POSITION_RANK[victim.vitals.position] > STUNNED


def engage(world: World, attacker: Sheet | None, victim: Sheet) -> None:
    """R-ACT-1: `attacker` just attacked `victim` (whatever the result)."""
    if attacker is None or attacker is victim or not attacker.vitals.alive:
        return
    if not can_engage(victim):
        return
    vitals = victim.vitals
    free = victim.combat.fighting is None
    near = beside(attacker, victim)
    if POSITION_RANK[vitals.position] == SLEEPING:  # it wakes first
        vitals.position = "fighting" if free and near else "standing"
        world.emit(PositionChanged(world.pulse, victim.id, "sleeping", vitals.position))
    if not free:
        return
    if near:
        set_fighting(world, victim, attacker, "attacked", stand=False)
    elif victim.mind.name is not None:
        remember(world, victim, attacker)  # a mind closes in on it (R-MIND-3)


def start_fight(world: World, attacker: Sheet, victim: Sheet, why: str = "scripted") -> None:
    """An Attack (a script, a game, a mind): the attacker fights the victim; the victim
    fights back at once when free, awake and above stunned (R-ACT-1); a sleeper is woken
    by the first blow instead, which keeps the sleeping bonus for that blow."""
    set_fighting(world, attacker, victim, why)
    if (victim.combat.fighting is None and victim.vitals.alive
            and POSITION_RANK[victim.vitals.position] > SLEEPING):
        set_fighting(world, victim, attacker, "attacked")


def foe_died(world: World, victim: Sheet) -> None:
    """R-ACT-2: `victim` just died. Its own fight goes with it (the `death` event says
    so); everyone fighting it stops (`foe_died`), and each one freed that someone beside
    it is fighting, and that can fight (R-ACT-1), fights the first of those in spawn
    order (`attacked`)."""
    target = victim.combat.fighting
    if target is not None:
        victim.combat.fighting = None
        world.fighting.discard(victim.entity)
        foe = world.by_id.get(target)
        fought = world.fought_by.get(foe) if foe is not None else None
        if fought is not None:
            fought.discard(victim.entity)
            if not fought:
                del world.fought_by[foe]  # type: ignore[arg-type]
    fighters = world.fought_by.pop(victim.entity, None)
    if not fighters:
        return
    sheets = world.sheets
    freed = sorted((sheets[e] for e in fighters), key=lambda s: s.spawn.number)
    for sheet in freed:
        end_fight(world, sheet, "foe_died")
    for sheet in freed:
        if sheet.combat.fighting is None and can_engage(sheet):
            foe_sheet = first_attacker_beside(world, sheet)
            if foe_sheet is not None:
                set_fighting(world, sheet, foe_sheet, "attacked", stand=False)


def first_attacker_beside(world: World, sheet: Sheet) -> Sheet | None:
    """The living creature beside `sheet` that fights it and came first into the world."""
    attackers = world.fought_by.get(sheet.entity)
    if not attackers:
        return None
    sheets = world.sheets
    near = [sheets[e] for e in attackers
            if sheets[e].vitals.alive and beside(sheets[e], sheet)]
    return min(near, key=lambda s: s.spawn.number) if near else None


def moved_apart(world: World, mover: Sheet, why: str = "apart") -> None:
    """R-ACT-3: `mover` changed cell: its own fight, and every fight against it, whose two
    are no longer beside each other ends (`apart`, or `fled` for a flee)."""
    target = mover.combat.fighting
    if target is not None:
        foe = world.by_id.get(target)
        if foe is None or not beside(mover, world.sheets[foe]):
            end_fight(world, mover, why)
    fighters = world.fought_by.get(mover.entity)
    if fighters:
        sheets = world.sheets
        for sheet in sorted((sheets[e] for e in fighters), key=lambda s: s.spawn.number):
            if not beside(sheet, mover):
                end_fight(world, sheet, why)


def rebuild_fought_by(world: World) -> None:
    """The reverse index from the components (after a load)."""
    world.fought_by = {}
    by_id = world.by_id
    for entity, sheet in world.sheets.items():
        target = sheet.combat.fighting
        if target is not None and sheet.vitals.alive and target in by_id:
            world.fought_by.setdefault(by_id[target], set()).add(entity)
