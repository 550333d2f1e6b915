"""Checking an action at submit (R-ENG-2): an invalid one raises ActionError and changes
nothing; a valid one is then queued by `World.submit`.

What is checked here: the actor exists and is alive; a move goes one cell from where the
actor will stand after its queued moves, in bounds, not into a wall; an attack's target
is alive and beside that cell (R-MELEE-2); a cast names a known spell and via, and its
target (a living creature or an in-bounds cell) is within the spell's range (a touch:
beside); an open or a close names a door beside that cell that is shut and not locked
(open), or open with nothing in its doorway (close). What can change before the action
runs is checked again when it runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import esper
import msgspec

from affray.components import Chest, Door, ItemStack, Position, Vitals
from affray.core.actions import (
    ActionQueue,
    AnyAction,
    Attack,
    Cast,
    Close,
    Move,
    Open,
    action_name,
)
from affray.core.errors import ActionError, UsageError
from affray.core.grid import WALL, chebyshev
from affray.data.defs import VIAS

if TYPE_CHECKING:
    from affray.core.world import World
    from affray.systems.rules.sheet import Sheet


def projected_cell(entity: int) -> tuple[int, int]:
    """Where the actor will stand when this action runs: after its queued moves."""
    queue = esper.component_for_entity(entity, ActionQueue)
    for queued in reversed(queue.pending):
        if isinstance(queued, Move):
            return queued.to
    position = esper.component_for_entity(entity, Position)
    return (position.x, position.y)


def check_action(world: World, action: AnyAction) -> int:
    """Check an action; return its actor's entity, or raise ActionError."""
    kind = (action_name(action) if isinstance(action, Attack | Cast | Move | Open | Close)
            else None)
    if kind is None:
        raise ActionError(f"not an action: {action!r}")
    entity = world.by_id.get(action.actor)
    if entity is None:
        raise ActionError(f"{kind}: unknown actor {action.actor!r}")
    if not esper.component_for_entity(entity, Vitals).alive:
        raise ActionError(f"{kind}: actor {action.actor!r} is dead")
    here = projected_cell(entity)
    if isinstance(action, Move):
        _check_move(world, action, here)
    elif isinstance(action, Attack):
        target = living_target(world, action.target, kind)
        if target == entity:
            raise ActionError(f"attack: {action.actor!r} cannot attack itself")
        there = esper.component_for_entity(target, Position)
        if chebyshev(here, (there.x, there.y)) != 1:  # R-MELEE-2
            raise ActionError(f"attack: target {action.target!r} is out of range (melee "
                              f"needs the attacker beside it)")
    elif isinstance(action, Open | Close):
        problem = door_problem(world, action, here)
        if problem is not None:
            raise ActionError(f"{kind}: {problem}")
    else:
        _check_cast(world, action, here)
    return entity


def door_at(cell: tuple[int, int]) -> Door | None:
    """The door on a cell, or None (in the world's esper context)."""
    for _entity, (position, door) in esper.get_components(Position, Door):
        if position.x == cell[0] and position.y == cell[1]:
            return door
    return None


def doorway_problem(world: World, cell: tuple[int, int]) -> str | None:
    """Why a door cannot shut on a cell now, or None: a creature stands in the doorway,
    or an item (a stack, a chest) lies in it. The short reasons of `refused` events."""
    if world.grid.occupant[cell[1], cell[0]]:
        return "doorway taken"
    for component in (ItemStack, Chest):
        for _entity, (position, _item) in esper.get_components(Position, component):
            if position.x == cell[0] and position.y == cell[1]:
                return "doorway cluttered"
    return None


# What each short reason of `door_problem` says at submit (an ActionError's message).
_DOOR_WORDS = {
    "no door": "there is no door at {cell}",
    "locked": "the door at {cell} is locked",
    "not shut": "the door at {cell} is not shut (it is {state})",
    "not open": "the door at {cell} is not open (it is {state})",
    "doorway taken": "a creature stands in the doorway at {cell}",
    "doorway cluttered": "items lie in the doorway at {cell}",
}


def door_reason(world: World, action: Open | Close, here: tuple[int, int]) -> str | None:
    """Why an Open or Close cannot run now, as the `refused` event's short reason (not
    adjacent, no door, locked, not shut, not open, doorway taken, doorway cluttered), or
    None. R-GRID-1: an open door lets through what a shut one blocks."""
    cell = (int(action.at[0]), int(action.at[1]))
    if chebyshev(here, cell) != 1:
        return "not adjacent"
    door = door_at(cell)
    if door is None:
        return "no door"
    if isinstance(action, Open):
        if door.state != "shut":
            return "not shut"
        return "locked" if door.locked else None
    if door.state != "open":
        return "not open"
    return doorway_problem(world, cell)


def door_problem(world: World, action: Open | Close, here: tuple[int, int]) -> str | None:
    """`door_reason` at submit, in words naming the cell (ActionError's message)."""
    cell = as_cell(action.at, action_name(action), "at")
    check_cell(world, cell, action_name(action), "at")
    reason = door_reason(world, action, here)
    if reason is None:
        return None
    if reason == "not adjacent":
        return (f"{list(cell)} is not beside {action.actor!r} at {list(here)} (a door is "
                f"opened or closed from beside it)")
    door = door_at(cell)
    return _DOOR_WORDS[reason].format(cell=list(cell), state=door.state if door else "")


def _check_move(world: World, action: Move, here: tuple[int, int]) -> None:
    cell = as_cell(action.to, "move", "to")
    check_cell(world, cell, "move", "to")
    if world.grid.terrain[cell[1], cell[0]] == WALL:
        raise ActionError(f"move: {action.actor!r} cannot walk into the wall at {list(cell)}")
    if chebyshev(here, cell) != 1:
        raise ActionError(f"move: {list(cell)} is not beside {action.actor!r} at "
                          f"{list(here)} (one cell per move)")


def _check_cast(world: World, action: Cast, here: tuple[int, int]) -> None:
    spell = world.content.spells.get(action.spell)
    if spell is None:
        raise ActionError(f"cast: unknown spell {action.spell!r}")
    if action.via not in VIAS:
        raise ActionError(f"cast: unknown via {action.via!r} (known: {', '.join(VIAS)})")
    if isinstance(action.target, str):
        target = living_target(world, action.target, "cast")
        position = esper.component_for_entity(target, Position)
        there = (position.x, position.y)
    else:
        there = as_cell(action.target, "cast", "target")
        check_cell(world, there, "cast", "target")
    reach = 1 if spell.shape == "touch" else spell.range
    if chebyshev(here, there) > reach:
        raise ActionError(f"cast: target {list(there)} is out of range of {action.spell!r} "
                          f"(range {reach})")
    from affray.systems.rules.spellbook import mana_check

    caster = world.sheets.get(world.by_id[action.actor])
    problem = mana_check(world, caster, action.spell, action.via) if caster else None
    if problem is not None:  # R-BOOK-1 (known_only), R-BOOK-2 (mana)
        raise ActionError(f"cast: {action.actor!r}: {problem}")


def living_target(world: World, target_id: object, kind: str) -> int:
    """The entity of a living creature id, or ActionError."""
    if not isinstance(target_id, str) or target_id not in world.by_id:
        raise ActionError(f"{kind}: unknown target {target_id!r}")
    target = world.by_id[target_id]
    if not esper.component_for_entity(target, Vitals).alive:
        raise ActionError(f"{kind}: target {target_id!r} is dead")
    return target


def check_cell(world: World, cell: tuple[int, int], kind: str, field: str) -> None:
    """ActionError unless the cell is on the map."""
    if not world.grid.in_bounds(*cell):
        raise ActionError(f"{kind}: {field} {list(cell)} is out of bounds (map is "
                          f"{world.grid.width}x{world.grid.height})")


def as_cell(value: object, kind: str, field: str) -> tuple[int, int]:
    """A cell [x, y] of two ints, or ActionError."""
    try:
        x, y = msgspec.convert(value, tuple[int, int])
    except (msgspec.ValidationError, TypeError, ValueError):
        raise ActionError(f"{kind}: {field} must be a cell [x, y], got {value!r}") from None
    return (x, y)


def check_fight(attacker: Sheet, victim: Sheet) -> None:
    """`World.start_fight` from a game: two different living creatures side by side
    (R-MELEE-2), or ActionError and nothing changes."""
    if attacker.entity == victim.entity:
        raise ActionError(f"start_fight: {attacker.id!r} cannot fight itself")
    for sheet in (attacker, victim):
        if not sheet.vitals.alive:
            raise ActionError(f"start_fight: {sheet.id!r} is dead")
    here, there = attacker.position, victim.position
    if chebyshev((here.x, here.y), (there.x, there.y)) != 1:
        raise ActionError(f"start_fight: {victim.id!r} at {[there.x, there.y]} is not beside "
                          f"{attacker.id!r} at {[here.x, here.y]} (melee needs neighbours)")


# The most pulses a World runs: pulse numbers stay within 64-bit integers (saves, arrays).
MAX_PULSE = 2**62
# Lag (wait, daze) lives in 32-bit arrays.
MAX_LAG = 2**31 - 1


def check_count(value: object, what: str, high: int = MAX_PULSE) -> int:
    """A whole number 0..high from a Python caller (pulses, waits), or UsageError."""
    if isinstance(value, bool) or not isinstance(value, int):
        import numpy as np

        if not isinstance(value, np.integer):
            raise UsageError(f"{what} must be a whole number, got {value!r}")
    if not 0 <= value <= high:
        raise UsageError(f"{what} must be 0 or more, got {value}" if value < 0 else
                         f"{what} must be at most {high}, got {value}")
    return int(value)
