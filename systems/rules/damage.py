"""The damage pipeline (Damage::hit) and what every hit ends with: inflict and death.

R-DMG-1: spells, scripted, affect, raw and self damage share one path: "all damage"
modifiers, pre-damage hooks, protections (skipped for raw damage), the message, inflict,
post-damage hooks. Melee blows end in the same `finish` (message, inflict, post-damage).
R-DMG-2: a kill raises VictimDeath, which propagates through hooks to the caller.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from affray.components import Position
from affray.core.errors import HookError
from affray.core.events import Damage, Death, Immune
from affray.core.events import Position as PositionChanged
from affray.systems.rules.engagement import engage, foe_died
from affray.systems.rules.hit import Hit, VictimDeath
from affray.systems.rules.minds.rest import stamp_cell
from affray.systems.rules.protections import protect
from affray.systems.rules.registry import hook_failed
from affray.systems.rules.stun import PRONE, try_stand
from affray.systems.rules.tohit import POSITION_RANK, SLEEPING

if TYPE_CHECKING:
    from affray.core.world import World
    from affray.systems.rules.sheet import Sheet


def run_hooks(world: World, kind: str, hit: Hit) -> None:
    """Run the victim's hooks of one kind; a VictimDeath inside one propagates."""
    if not world.rules.hooks[kind]:
        return  # the common case: nothing registered, nothing to look up
    for hook in world.rules.hooks_for(kind, hit.victim.hook_owners()):
        try:
            hook(hit, world)
        except HookError:
            raise
        except Exception as error:  # a game's hook: name it (VictimDeath passes)
            raise hook_failed(world, hook, error) from error


def apply_modifiers(world: World, hit: Hit, melee: bool) -> None:
    """R-MELEE-5: "all damage" modifiers on every hit, "all melee" ones on every blow;
    the one call site per pipeline is what makes each apply exactly once."""
    modifiers = [*world.rules.all_melee, *world.rules.all_damage] if melee else \
        world.rules.all_damage
    for modifier in modifiers:
        try:
            modifier(hit, world)
        except HookError:
            raise
        except Exception as error:  # a game's modifier: name it (VictimDeath passes)
            raise hook_failed(world, modifier, error) from error


def damage_hit(world: World, hit: Hit) -> int:
    """R-DMG-1: the damage pipeline. Returns the hit points lost; raises VictimDeath."""
    apply_modifiers(world, hit, melee=False)
    hit.raw = hit.dam
    run_hooks(world, "pre_damage", hit)
    if hit.cause != "raw" and not hit.unprotected:
        protect(hit, world)
    return finish(world, hit)


def finish(world: World, hit: Hit) -> int:
    """Message, inflict, post-damage effects: the end both pipelines share."""
    source = hit.source.creature.id if hit.source is not None else None
    victim_id = hit.victim.creature.id
    if hit.immune:
        world.emit(Immune(world.pulse, source, victim_id, hit.damage_type))
        engage(world, hit.source, hit.victim)  # R-ACT-1: an immune hit is an attack too
        return 0
    dam = hit.dam
    # tuple.__new__: a NamedTuple without its generated __new__'s frame (every field
    # given); events.append: World.emit's one line without its call (every hit logs one)
    world.events.append(tuple.__new__(Damage, (world.pulse, source, victim_id, dam, hit.raw,
                                               hit.damage_type, hit.cause, hit.spell,
                                               hit.critical, hit.saved, hit.status)))
    if dam <= 0:
        engage(world, hit.source, hit.victim)  # R-ACT-1: a hit that did nothing still
        return 0
    inflict(world, hit)
    rouse(world, hit)
    if world.rules.hooks["post_damage"]:  # the common case: none, nothing to look up
        run_hooks(world, "post_damage", hit)
    return hit.dam


def inflict(world: World, hit: Hit) -> None:
    """hp -= dam; immortals stay at 1 or more; at 0 or below, update the position.

    An NPC at 0 or below dies. A player follows the source's ladder: -11 or below dead,
    -6 or below mortally wounded, -3 or below incapacitated, else stunned (position);
    each step down the ladder is a `position` event (R-ENG-4).
    """
    victim = hit.victim
    vitals = victim.vitals
    vitals.hp -= hit.dam
    if victim.creature.immortal and vitals.hp < 1:
        vitals.hp = 1
    if vitals.hp > 0:
        return
    if victim.creature.player and vitals.hp > -11:
        before = vitals.position
        vitals.position = "mortal" if vitals.hp <= -6 else (
            "incap" if vitals.hp <= -3 else "stunned")
        if vitals.position != before:
            world.emit(PositionChanged(world.pulse, victim.id, before, vitals.position))
        return
    kill(world, victim, hit.source)


def rouse(world: World, hit: Hit) -> None:
    """A victim hurt while above stunned: R-ACT-1's engagement (it wakes if asleep, the
    blow that woke it having kept the sleeping multiplier, R-MELEE-4, and fights its
    attacker if free and beside it); sitting or resting, it tries to stand by the
    standing-up rule (R-STUN-5, R-LAG-3), so a stunned victim stays down. A position
    change is a `position` event (R-ENG-4)."""
    source, victim = hit.source, hit.victim
    if source is None or source is victim or not source.vitals.alive:
        return
    if not victim.vitals.alive or POSITION_RANK[victim.vitals.position] < SLEEPING:
        return
    engage(world, source, victim)
    if victim.vitals.position in PRONE:
        try_stand(world, victim)


def kill(world: World, victim: Sheet, killer: Sheet | None) -> None:
    """Death: `death` event, a corpse on the cell, the cell freed; raises VictimDeath."""
    vitals = victim.vitals
    vitals.alive = False
    vitals.position = "dead"
    position: Position = victim.position
    world.grid.occupant[position.y, position.x] = 0
    world.grid.version += 1  # a cell freed: minds' sight and paths look again
    stamp_cell(world, position.x, position.y)
    world.ready.discard(victim.entity)
    world.minded.discard(victim.entity)
    world.roster.died(victim)
    killer_id = killer.id if killer is not None else None
    world.emit(Death(world.pulse, victim.id, killer_id))
    foe_died(world, victim)  # R-ACT-2: nobody fights a corpse
    world._lay_item("corpse", (position.x, position.y))  # its own cell: no checks
    raise VictimDeath(victim.id, killer_id)
