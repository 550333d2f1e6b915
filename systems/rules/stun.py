"""Stun: two affect flags, `stun` and `weak_stun` (SPEC R-STUN-1..6).

- A stunned creature issues no command but those marked to keep hiding (R-STUN-1; the
  action step refuses the rest with a `refused` event).
- At the start of its combat round a stunned fighter loses the round: a stun becomes a
  weak stun, a weak stun is removed: a stun costs two rounds (R-STUN-2). A stun that
  comes with paralysis may end early (R-STUN-3).
- Outside combat, on each round pulse, a stun turns to weak stun and a weak stun clears
  (R-STUN-4), except a paralysis stun, which only its own roll ends.
- Standing up fails when stunned and half the time when weak stunned (R-STUN-5); weak
  stun halves the attack skills the fight config marks (R-STUN-6).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from affray.core.arith import clamp, select, tdiv
from affray.core.events import LostRound, Position

if TYPE_CHECKING:
    from affray.core.world import World
    from affray.systems.rules.sheet import Sheet

PRONE = ("sitting", "resting")


def check_stun(world: World, fighter: Sheet) -> bool:
    """R-STUN-2 / R-STUN-3 at the start of a fighter's round: True if it may attack."""
    if fighter.has("stun"):
        if fighter.has("paralysis"):
            return _paralysis(world, fighter)
        # The lost round is logged before the stun eases: cause, then consequence.
        world.emit(LostRound(world.pulse, fighter.id, "stun"))
        world.set_stun(fighter, "weak_stun")
        return False
    if fighter.has("weak_stun"):
        world.emit(LostRound(world.pulse, fighter.id, "weak_stun"))
        world.set_stun(fighter, "none")
        return False
    return True


def paralysis_chance(world: World, fighter: Sheet, opponent: Sheet | None) -> int:
    """R-STUN-3: 15 per elapsed tick + 3 per point of CON above 20 + 2 per level over the
    opponent (both signed), clamped 5..95. A tick is `fight.stun.tick_pulses` pulses."""
    tick = world.content.fight.stun.tick_pulses
    elapsed = (world.pulse - fighter.affects.since.get("paralysis", world.pulse)) // tick
    chance = 15 * elapsed + 3 * (fighter.stats.constitution - 20)
    if opponent is not None:
        chance += 2 * (fighter.modify_level - opponent.modify_level)
    return clamp(chance, 5, 95)


def _paralysis(world: World, fighter: Sheet) -> bool:
    """Roll 1..100: at or under chance/2 the paralysis ends and the creature attacks; at
    or under chance it drops to weak stun and the round is lost; else the round is lost."""
    target = fighter.combat.fighting
    opponent = world.sheet(target) if target in world.by_id else None
    chance = paralysis_chance(world, fighter, opponent)
    roll = world.rng.percent()
    if roll <= tdiv(chance, 2):
        world.remove_affect(fighter.id, "paralysis")
        world.set_stun(fighter, "none")
        return True
    world.emit(LostRound(world.pulse, fighter.id, "stun"))
    if roll <= chance:
        world.remove_affect(fighter.id, "paralysis")
        world.set_stun(fighter, "weak_stun")
    return False


def try_stand(world: World, sheet: Sheet) -> bool:
    """Stand up from sitting or resting before attacking (the source's adjustPosition):
    only with no wait; fails when stunned, half the time when weak stunned (R-STUN-5),
    a quarter of the time when dazed (R-LAG-3). Returns True if it stood up."""
    if sheet.vitals.position not in PRONE or world.lag.wait[sheet.creature.slot] > 0:
        return False
    if sheet.has("stun"):
        return False
    if sheet.has("weak_stun") and world.rng.percent() < 50:
        return False
    if world.lag.daze[sheet.creature.slot] > 0 and world.rng.percent() < 25:
        return False
    before = sheet.vitals.position
    sheet.vitals.position = "fighting"
    world.emit(Position(world.pulse, sheet.id, before, "fighting"))
    return True


def attack_skill_chance(sheet: Sheet, skill: str, chance: int, halved: tuple[str, ...]) -> int:
    """R-STUN-6: weak stun halves the chance of the attack skills marked for it."""
    return weak_stun_halved(chance, skill in halved and sheet.has("weak_stun"))


def weak_stun_halved(chance: Any, weak: Any) -> Any:
    """R-STUN-6: an attack skill's chance halved (truncated) under weak stun, for a skill
    the fight config marks (`weak`: both). Ints or arrays."""
    return select(weak, tdiv(chance, 2), chance)


def attack_chance_value(effective: Any, divisor: Any, weak: Any, slowed: Any) -> Any:
    """An attack skill's chance (the source's next_attack): effective / divisor, halved
    by weak stun where `weak` (R-STUN-6), x3/4 when slowed. Ints or arrays: melee's
    `extra_attack` and the vectorised round's `volley_blows.blow_steps` both call it."""
    chance = weak_stun_halved(tdiv(effective, divisor), weak)
    return select(slowed, tdiv(chance * 3, 4), chance)
