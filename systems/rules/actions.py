"""Carry out queued actions: one per free actor per pulse, in spawn order (R-GRID-3).

An action was checked when submitted (R-ENG-2); what can change since (a cell taken, a
target dead, a stun) is checked again here, and a refusal is a `refused` event.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from typing import TYPE_CHECKING

import esper

from affray.core.actions import (
    ActionQueue,
    Attack,
    Cast,
    Casting,
    Close,
    Flee,
    Move,
    Open,
    action_name,
)
from affray.core.events import CastFailed, DoorChanged, Fled, Moved, Refused
from affray.core.grid import WATER, chebyshev
from affray.systems.rules.blow import one_hit
from affray.systems.rules.engagement import start_fight
from affray.systems.rules.hit import VictimDeath
from affray.systems.rules.lag import raise_lag
from affray.systems.rules.spellbook import mana_check, pay
from affray.systems.rules.statuses import end_status

if TYPE_CHECKING:
    from affray.core.world import World
    from affray.systems.rules.sheet import Sheet


def dispatch_ready(world: World) -> None:
    """Pop and run the first queued action of every actor whose wait is 0, and ask the
    minds of the free creatures, together in spawn order (minds.act)."""
    from affray.systems.rules.minds import act

    act(world)


def run_queued(world: World, entities: Iterable[int]) -> None:
    """Pop and run the first queued action of each of these actors (in the order given)
    whose wait is 0."""
    wait = world.lag.wait
    sheets = world.sheets
    for entity in entities:
        sheet = sheets[entity]
        if wait[sheet.creature.slot] > 0:
            continue
        queue = esper.component_for_entity(entity, ActionQueue)
        action = queue.pending.pop(0)
        if not queue.pending:
            world.ready.discard(entity)
        run_action(world, sheet, action)


def run_action(world: World, sheet: Sheet,
               action: Attack | Cast | Move | Open | Close) -> None:
    """Carry out one action now, or refuse it with a reason."""
    if not sheet.vitals.alive:
        return
    if sheet.has("stun") and not action.keeps_hiding:  # R-STUN-1: no command when stunned
        world.emit(Refused(world.pulse, sheet.id, action_name(action), "stunned"))
        return
    if isinstance(action, Move):
        _move(world, sheet, action)
    elif isinstance(action, Attack):
        _attack(world, sheet, action)
    elif isinstance(action, Open | Close):
        _open_or_close(world, sheet, action)
    else:
        _cast(world, sheet, action)


def _open_or_close(world: World, sheet: Sheet, action: Open | Close) -> None:
    """Open a shut door or close an open one beside the actor (R-GRID-1: a shut door
    blocks movement, sight and line of effect), checked again now: a `refused` event
    when it cannot be done (locked, not shut, someone or something in the doorway...).
    The Door component and the grid's `shut` array change together, and the terrain
    counts as changed (`changed_terrain`: minds look again through or at the door). A
    trapped door's trap goes off as it opens (`trap_sprung`: the game says what it does)
    and is gone. Costs the actor a step's time (`move_wait`)."""
    from affray.core.validate import door_at, door_reason

    position = sheet.position
    reason = door_reason(world, action, (position.x, position.y))
    if reason is not None:
        world.emit(Refused(world.pulse, sheet.id, action_name(action), reason))
        return
    x, y = int(action.at[0]), int(action.at[1])
    door = door_at((x, y))
    assert door is not None  # door_reason found it
    opening = isinstance(action, Open)
    sprung = opening and door.trapped
    door.state = "open" if opening else "shut"
    door.trapped = door.trapped and not opening
    world.grid.shut[y, x] = not opening
    world.grid.changed_terrain()
    world.emit(DoorChanged(world.pulse, (x, y), "opened" if opening else "closed", sheet.id,
                           sprung))
    raise_lag(world, sheet, "wait", world.content.world.move_wait, own=True)


def _move(world: World, sheet: Sheet, action: Move) -> None:
    grid = world.grid
    position = sheet.position
    x, y = action.to
    reason = None
    if chebyshev((position.x, position.y), (x, y)) != 1:
        reason = "not adjacent"
    elif grid.blocks(x, y):
        reason = "blocked"
    elif grid.occupant[y, x]:
        reason = "occupied"
    elif sheet.has("held") or sheet.has("webbed"):
        reason = "held"  # R-STAT-5
    if reason is not None:
        world.emit(Refused(world.pulse, sheet.id, "move", reason))
        return
    before = (position.x, position.y)
    flee = isinstance(action, Flee)
    world.emit((Fled if flee else Moved)(world.pulse, sheet.id, before, (x, y)))
    world.place(sheet.entity, position, x, y, why="fled" if flee else "apart")  # R-ACT-3
    if grid.terrain[y, x] == WATER:
        end_status(world, sheet, "burning")  # R-STAT-1: entering water puts it out
    raise_lag(world, sheet, "wait", world.content.world.move_wait, own=True)


def _attack(world: World, sheet: Sheet, action: Attack) -> None:
    target = world.by_id.get(action.target)
    victim = world.sheets[target] if target is not None else None
    if victim is None or not victim.vitals.alive:
        world.emit(Refused(world.pulse, sheet.id, "attack", "target dead"))
        return
    mine, theirs = sheet.position, victim.position
    if chebyshev((mine.x, mine.y), (theirs.x, theirs.y)) != 1:  # R-MELEE-2
        world.emit(Refused(world.pulse, sheet.id, "attack", "out of range"))
        return
    if victim.combat.fighting is None:
        samurai_opener(world, victim, sheet)
    if sheet.vitals.alive and victim.vitals.alive:
        start_fight(world, sheet, victim, action.why)


def samurai_opener(world: World, samurai: Sheet, attacker: Sheet) -> None:
    """R-MELEE-7: a samurai caught outside a fight, weapon in hand, draws and cuts once
    (a full blow, R-MELEE-1) before the attacker's first blow lands."""
    if samurai.creature.profession != "samurai" or samurai.weapon is None:
        return
    with contextlib.suppress(VictimDeath):  # the attacker died on it; the death is logged
        one_hit(world, samurai, attacker, cause="melee")


def _cast(world: World, sheet: Sheet, action: Cast) -> None:
    """Hand the cast to the Spell system. With `casting.mana` on, a cast from mana is
    paid now (R-BOOK-2): refused if the mana went since the submit; a player character
    that loses its concentration pays half and casts nothing (`cast_failed`). Either way
    the caster takes the spell's beats, as the source sets the wait first."""
    beats = world.content.spells[action.spell].beats
    if world.content.world.casting.mana and action.via == "mana":
        problem = mana_check(world, sheet, action.spell, action.via)
        if problem is not None:
            world.emit(Refused(world.pulse, sheet.id, "cast", problem))
            return
        if not pay(world, sheet, action.spell):
            world.emit(CastFailed(world.pulse, sheet.id, action.spell, 0, "concentration"))
            raise_lag(world, sheet, "wait", beats, own=True)
            return
    world.casts_due.append(Casting(actor=sheet.entity, spell=action.spell,
                               target=action.target, via=action.via))
    raise_lag(world, sheet, "wait", beats, own=True)  # own: no tier cut
