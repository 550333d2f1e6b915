"""The defence chain (SPEC section 5, source_notes section 6).

Every blow that hits meets one chain; each defence is a function
`defence(world, hit) -> bool` in one ordered registry (R-DEF-1, R-DEF-6), built from the
fight config's `defence.order` (bat swarm, shield block, blink, cross block, parry, hand
block, dodge). The first that returns True ends the blow with a `defended` event. A game
adds, removes or reorders defences on `world.rules.defences`.

Shared rules, applied by every skill defence:

- a skill's effective value of 1 or less means "never practised": refuse (R-DEF-3);
- NPCs never consult skills: they use only the defences their template lists, at flat
  chances from content (dodge 50, others 30), then the same level terms (R-DEF-4, R-DEF-7);
  NPCs never hand block;
- weak stun halves dodge, parry, blink and hand block (R-DEF-5); full stun makes parry,
  shield block, blink, cross block, hand block and dodge fail (the source's full-stun
  failures; blink, not public, follows them), as does being asleep or worse;
- a blind defender that fails blind fighting has its chance divided by 4, one that
  succeeds by 1.5 (R-DEF-8);
- an NPC's chance is flat: no class, dexterity or attacker-weapon modifiers (a whip
  still makes a shield block fail: that is a condition, not a modifier).

Bat swarm is an affect, not a skill: none of the above touches it (R-DEF-2).
All divisions truncate toward zero. Rolls: blind fighting first (if blind), then the
defence's own roll.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from affray.core.arith import select, tdiv, truncate
from affray.systems.rules.registry import Steps
from affray.systems.rules.skills import effective_skill
from affray.systems.rules.tohit import POSITION_RANK, SLEEPING

if TYPE_CHECKING:
    from collections.abc import Callable

    from affray.core.world import World
    from affray.data.content_loader import Content
    from affray.systems.rules.hit import Hit
    from affray.systems.rules.sheet import Sheet

FIGHTERS = ("warrior", "samurai", "paladin")
WEAK_STUN_HALVES = ("dodge", "parry", "blink", "hand_block")  # R-DEF-5


# -- the formulas, one definition each (ints or numpy arrays: issue 12) -----------------
# A player's chance from its effective skill (an NPC's is flat, R-DEF-7), and the
# adjustments; the defences below and the vectorised round (volley_columns.defence_bases,
# volley_blows.defence_chain) call these. `fighter`: warrior, samurai or paladin.
def shield_block_chance(effective: Any, fighter: Any) -> Any:
    """Shield block: effective/2 - 10, +10 a fighter."""
    return tdiv(effective, 2) - 10 + 10 * fighter


def blink_chance(effective: Any) -> Any:
    """Blink (R-DEF-6): effective/2 (the level term is added after the adjustments)."""
    return tdiv(effective, 2)


def cross_block_chance(effective: Any, fighter: Any) -> Any:
    """Cross block: effective/3, + half of that a fighter."""
    third = tdiv(effective, 3)
    return third + tdiv(third, 2) * fighter


def parry_chance(effective: Any, fighter: Any) -> Any:
    """Parry: effective/2, + a fifth of that a fighter."""
    half = tdiv(effective, 2)
    return half + tdiv(half, 5) * fighter


def hand_block_chance(effective: Any, ninja: Any) -> Any:
    """Hand block: effective/2 a ninja, else effective/3."""
    return select(ninja, tdiv(effective, 2), tdiv(effective, 3))


def dodge_chance(effective: Any, dexterity: Any, fighter: Any, nimble: Any,
                 anti_paladin: Any) -> Any:
    """Dodge: effective/2 + 2 (DEX - 20); + 1/5 of it a fighter, + 1/10 a thief or ninja
    (`nimble`), - 1/10 an anti-paladin."""
    own = tdiv(effective, 2) + 2 * (dexterity - 20)
    return select(fighter, own + tdiv(own, 5),
                  select(nimble, own + tdiv(own, 10),
                         select(anti_paladin, own - tdiv(own, 10), own)))


def with_half_gap(chance: Any, gap: Any) -> Any:
    """Blink (R-DEF-6) and dodge: the chance plus half the level gap (defender's modify
    level minus the attacker's), truncated; the other defences add the whole gap."""
    return chance + tdiv(gap, 2)


def flail_block_chance(chance: Any) -> Any:
    """A player's shield block against a flail: halved (a whip makes it fail)."""
    return tdiv(chance, 2)


def flail_dodge_chance(chance: Any) -> Any:
    """A player's dodge against a flail or whip: x6/5."""
    return tdiv(chance * 6, 5)


def weak_stun_chance(chance: Any) -> Any:
    """R-DEF-5: weak stun halves dodge, parry, blink and hand block."""
    return tdiv(chance, 2)


def blind_chance(chance: Any, seen: Any) -> Any:
    """R-DEF-8: a blind defender's chance /1.5 when blind fighting succeeds (`seen`), else
    /4 (both truncated)."""
    return select(seen, truncate(chance / 1.5), tdiv(chance, 4))


# Memos for the defences below (a C-level look-up on every blow instead of the formula's
# Python calls; the formula stays the one definition).
_shield_block_chance = functools.lru_cache(maxsize=1024)(shield_block_chance)
_blink_chance = functools.lru_cache(maxsize=1024)(blink_chance)
_cross_block_chance = functools.lru_cache(maxsize=1024)(cross_block_chance)
_parry_chance = functools.lru_cache(maxsize=1024)(parry_chance)
_hand_block_chance = functools.lru_cache(maxsize=1024)(hand_block_chance)
_dodge_chance = functools.lru_cache(maxsize=4096)(dodge_chance)
_with_half_gap = functools.lru_cache(maxsize=4096)(with_half_gap)


# Above sleeping (standing, fighting, sitting, resting): not stunned or incapacitated.
AWAKE = frozenset(name for name, rank in POSITION_RANK.items() if rank > SLEEPING)


def weapon_class(sheet: Sheet | None) -> str | None:
    if sheet is None or sheet.weapon is None:
        return None
    return sheet.weapon.weapon_class


def base_chance(world: World, defender: Sheet, name: str) -> int | None:
    """The defender's starting value for a skill defence, or None if it cannot use it:
    an NPC's flat chance if its template lists the defence (R-DEF-4, R-DEF-7), else the
    effective skill, refused at 1 or less (R-DEF-3)."""
    if not defender.creature.player:
        if name not in defender.defense.defences:
            return None
        config = world.content.fight.defence
        return config.npc_dodge if name == "dodge" else config.npc_other
    effective = effective_skill(world, defender, name)
    return effective if effective > 1 else None


def adjust(world: World, defender: Sheet, name: str, chance: int) -> int:
    """Weak stun halving (R-DEF-5) and blindness (R-DEF-8), in that order."""
    affects = defender.affects.levels
    if not affects:
        return chance  # the common case: nothing to adjust
    if "weak_stun" in affects and name in WEAK_STUN_HALVES:
        chance = weak_stun_chance(chance)
    if "blind" in affects:
        blind_fighting = effective_skill(world, defender, "blind_fighting")
        chance = blind_chance(chance,
                              blind_fighting > 1 and world.rng.percent() < blind_fighting)
    return chance


def level_gap(defender: Sheet, attacker: Sheet | None) -> int:
    """skill_level(defender) - attacker level: the defender's modify level (no skill
    level bonus in affray) minus the attacker's."""
    mine = defender.level.level + defender.level.remorts
    return mine - (attacker.level.level + attacker.level.remorts if attacker else 0)


# -- the defences ---------------------------------------------------------------------
def bat_swarm(world: World, hit: Hit) -> bool:
    """R-DEF-2: an affect, not a skill: chance 50 + (defender level - attacker level);
    succeeds on number_percent() <= chance."""
    defender = hit.victim
    if "bat_swarm" not in defender.affects.levels:
        return False
    return world.rng.percent() <= 50 + level_gap(defender, hit.source)


def shield_block(world: World, hit: Hit) -> bool:
    """Needs a shield, awake, not stunned. chance = effective/2 - 10, +10 for warrior,
    samurai, paladin; halved against a flail, fails against a whip; succeeds on
    number_percent() < chance + level gap; a player needs movement points."""
    defender, attacker = hit.victim, hit.source
    if (not defender.shield or defender.vitals.position not in AWAKE
            or "stun" in defender.affects.levels):
        return False
    base = base_chance(world, defender, "shield_block")
    if base is None:
        return False
    creature = defender.creature
    if not creature.player:
        chance = base
    else:
        chance = _shield_block_chance(base, creature.profession in FIGHTERS)
    attacking_with = weapon_class(attacker)
    if attacking_with == "whip":
        return False
    if attacking_with == "flail" and creature.player:  # an NPC's chance is flat (R-DEF-7)
        chance = flail_block_chance(chance)
    if defender.affects.levels:
        chance = adjust(world, defender, "shield_block", chance)
    if creature.player and defender.vitals.move <= 0:
        return False
    return world.rng.percent() < chance + level_gap(defender, attacker)


def blink(world: World, hit: Hit) -> bool:
    """R-DEF-6 (decision): chance = effective/2 + (defender level - attacker level)/2;
    succeeds on number_percent() < chance. Needs awake and not stunned (a full stun makes
    it fail, as every defence that needs a reaction, R-DEF-5); weak stun halves
    effective/2 before the level term is added, as for parry (R-DEF-5)."""
    defender = hit.victim
    if defender.vitals.position not in AWAKE or "stun" in defender.affects.levels:
        return False
    base = base_chance(world, defender, "blink")
    if base is None:
        return False
    half = base if not defender.creature.player else _blink_chance(base)
    if defender.affects.levels:
        half = adjust(world, defender, "blink", half)
    chance = _with_half_gap(half, level_gap(defender, hit.source))
    return world.rng.percent() < chance


def cross_block(world: World, hit: Hit) -> bool:
    """Needs two wielded weapons, awake, not stunned. A player's chance = effective/3,
    + chance/2 for warrior, samurai, paladin; an NPC's is flat and fails with no
    movement points. Succeeds on number_percent() < chance + level gap."""
    defender, attacker = hit.victim, hit.source
    equipment = defender.equipment
    if equipment.wield is None or equipment.second is None:
        return False
    if defender.vitals.position not in AWAKE or "stun" in defender.affects.levels:
        return False
    base = base_chance(world, defender, "cross_block")
    if base is None:
        return False
    if not defender.creature.player:
        if defender.vitals.move <= 0:
            return False
        chance = base
    else:
        chance = _cross_block_chance(base, defender.creature.profession in FIGHTERS)
        if defender.vitals.move <= 0:
            return False
    if defender.affects.levels:
        chance = adjust(world, defender, "cross_block", chance)
    return world.rng.percent() < chance + level_gap(defender, attacker)


def parry(world: World, hit: Hit) -> bool:
    """Needs awake, not stunned; a player needs a weapon; fails against a flail or whip.
    chance = effective/2, + chance/5 for warrior, samurai, paladin. Succeeds on
    number_percent() < chance + level gap."""
    defender, attacker = hit.victim, hit.source
    affects = defender.affects.levels
    if defender.vitals.position not in AWAKE or "stun" in affects:
        return False
    creature = defender.creature
    if creature.player and defender.weapon is None:
        return False
    weapon = attacker.weapon if attacker is not None else None  # weapon_class(attacker)
    if weapon is not None and weapon.weapon_class in ("flail", "whip"):
        return False
    base = base_chance(world, defender, "parry")
    if base is None:
        return False
    chance = (base if not creature.player
              else _parry_chance(base, creature.profession in FIGHTERS))
    if affects:
        chance = adjust(world, defender, "parry", chance)
    return world.rng.percent() < chance + level_gap(defender, attacker)


def hand_block(world: World, hit: Hit) -> bool:
    """Never for NPCs (R-DEF-4). Needs bare hands, awake, not stunned (R-DEF-5).
    chance = effective/2 for a ninja, effective/3 otherwise; succeeds on
    number_percent() < chance + level gap."""
    defender = hit.victim
    if (not defender.creature.player or defender.weapon is not None
            or defender.equipment.second is not None):
        return False
    if defender.vitals.position not in AWAKE or "stun" in defender.affects.levels:
        return False
    base = base_chance(world, defender, "hand_block")
    if base is None:
        return False
    chance = _hand_block_chance(base, defender.creature.profession == "ninja")
    if defender.affects.levels:
        chance = adjust(world, defender, "hand_block", chance)
    return world.rng.percent() < chance + level_gap(defender, hit.source)


def dodge(world: World, hit: Hit) -> bool:
    """Awake, not stunned. A player's chance = effective/2 + 2*(DEX - 20), + chance/5
    for warrior, samurai, paladin, + chance/10 for thief, ninja, - chance/10 for an
    anti-paladin; an NPC's is a flat 50 (R-DEF-4); x6/5 against a flail or whip.
    Succeeds on number_percent() < chance + (level gap)/2; a player needs movement."""
    defender, attacker = hit.victim, hit.source
    affects = defender.affects.levels
    if defender.vitals.position not in AWAKE or "stun" in affects:
        return False
    base = base_chance(world, defender, "dodge")
    if base is None:
        return False
    player = defender.creature.player
    if not player:
        chance = base
    else:
        profession = defender.creature.profession
        chance = _dodge_chance(base, defender.stats.dexterity, profession in FIGHTERS,
                               profession in ("thief", "ninja"), profession == "anti-paladin")
        if weapon_class(attacker) in ("flail", "whip"):
            chance = flail_dodge_chance(chance)
    if affects:
        chance = adjust(world, defender, "dodge", chance)
    if player and defender.vitals.move <= 0:
        return False
    return world.rng.percent() < _with_half_gap(chance, level_gap(defender, attacker))


DEFENCES: dict[str, Callable[[World, Hit], bool]] = {
    "bat_swarm": bat_swarm, "shield_block": shield_block, "blink": blink,
    "cross_block": cross_block, "parry": parry, "hand_block": hand_block, "dodge": dodge,
}


def default_defences(content: Content | None = None) -> Steps:
    """The chain in the fight config's order (the seed's by default, R-DEF-1)."""
    order = content.fight.defence.order if content is not None else tuple(DEFENCES)
    return Steps([(name, DEFENCES[name]) for name in order])
