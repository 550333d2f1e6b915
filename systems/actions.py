"""Carry out queued actions: one per free actor per pulse, in spawn order (R-GRID-3).

An action was checked when submitted (R-ENG-2); what can change since (a cell taken, a
target dead, a stun) is checked again here, and a refusal is a `refused` event.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

import esper

from affray.actions import ActionQueue, Attack, Cast, Casting, Move, action_name
from affray.components import Creature, Position, Spawn, Vitals
from affray.events import Moved, Refused
from affray.grid import chebyshev
from affray.systems.blow import one_hit
from affray.systems.hit import VictimDeath
from affray.systems.lag import raise_lag

if TYPE_CHECKING:
    from affray.systems.sheet import Sheet
    from affray.world import World


def dispatch_ready(world: World) -> None:
    """Pop and run the first queued action of every actor whose wait is 0."""
    wait = world.lag.wait
    order = sorted(world.ready, key=lambda e: esper.component_for_entity(e, Spawn).number)
    for entity in order:
        creature = esper.component_for_entity(entity, Creature)
        if wait[creature.slot] > 0:
            continue
        queue = esper.component_for_entity(entity, ActionQueue)
        action = queue.pending.pop(0)
        if not queue.pending:
            world.ready.discard(entity)
        run_action(world, entity, creature, action)


def run_action(world: World, entity: int, creature: Creature,
               action: Attack | Cast | Move) -> None:
    """Carry out one action now, or refuse it with a reason."""
    vitals = esper.component_for_entity(entity, Vitals)
    if not vitals.alive:
        return
    affects = world.affects_of(entity)
    if "stun" in affects and not action.keeps_hiding:  # R-STUN-1: no command when stunned
        world.emit(Refused(world.pulse, creature.id, action_name(action), "stunned"))
        return
    if isinstance(action, Move):
        _move(world, entity, creature, action)
    elif isinstance(action, Attack):
        _attack(world, entity, creature, action)
    else:
        _cast(world, entity, creature, action)


def _move(world: World, entity: int, creature: Creature, action: Move) -> None:
    grid = world.grid
    position = esper.component_for_entity(entity, Position)
    x, y = action.to
    reason = None
    if chebyshev((position.x, position.y), (x, y)) != 1:
        reason = "not adjacent"
    elif grid.blocks(x, y):
        reason = "blocked"
    elif grid.occupant[y, x]:
        reason = "occupied"
    elif "held" in world.affects_of(entity) or "webbed" in world.affects_of(entity):
        reason = "held"  # R-STAT-5
    if reason is not None:
        world.emit(Refused(world.pulse, creature.id, "move", reason))
        return
    before = (position.x, position.y)
    world.place(entity, position, x, y)
    world.emit(Moved(world.pulse, creature.id, before, (x, y)))
    raise_lag(world, world.sheets[entity], "wait", world.content.world.move_wait, own=True)


def _attack(world: World, entity: int, creature: Creature, action: Attack) -> None:
    target = world.by_id.get(action.target)
    if target is None or not esper.component_for_entity(target, Vitals).alive:
        world.emit(Refused(world.pulse, creature.id, "attack", "target dead"))
        return
    mine = esper.component_for_entity(entity, Position)
    theirs = esper.component_for_entity(target, Position)
    if chebyshev((mine.x, mine.y), (theirs.x, theirs.y)) != 1:  # R-MELEE-2
        world.emit(Refused(world.pulse, creature.id, "attack", "out of range"))
        return
    attacker_sheet, victim_sheet = world.sheets[entity], world.sheets[target]
    if victim_sheet.combat.fighting is None:
        samurai_opener(world, victim_sheet, attacker_sheet)
    if attacker_sheet.vitals.alive:
        world.start_fight(creature.id, action.target)


def samurai_opener(world: World, samurai: Sheet, attacker: Sheet) -> None:
    """R-MELEE-7: a samurai caught outside a fight, weapon in hand, draws and cuts once
    (a full blow, R-MELEE-1) before the attacker's first blow lands."""
    if samurai.creature.profession != "samurai" or samurai.weapon is None:
        return
    with contextlib.suppress(VictimDeath):  # the attacker died on it; the death is logged
        one_hit(world, samurai, attacker, cause="melee")


def _cast(world: World, entity: int, creature: Creature, action: Cast) -> None:
    world.casts_due.append(Casting(actor=entity, spell=action.spell, target=action.target,
                                   via=action.via))
    beats = world.content.spells[action.spell].beats
    raise_lag(world, world.sheets[entity], "wait", beats, own=True)  # own: no tier cut
