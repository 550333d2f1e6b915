"""One melee blow (OneHit::hit), R-MELEE-1..8: every blow, ordinary or special.

In order: can-hit and movement cost; to-hit (a miss ends the blow); damage calculation
(base, class, damroll and strength, modifiers, critical, normalise), protections, the
wielded weapon's material pass; the position multiplier, once; the defence chain;
pre-damage effects; message; inflict; post-damage effects.
Melee carries a physical damage type for immunity and armor, and none of magic's type
rules (R-MELEE-8): nothing here sets anyone burning or touches terrain.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from affray.core.arith import maximum, minimum, select, tdiv
from affray.core.dice import dice_average_x2
from affray.core.errors import HookError
from affray.core.events import Defended, Miss, TooTired
from affray.systems.rules import immunity
from affray.systems.rules.damage import apply_modifiers, finish, run_hooks
from affray.systems.rules.engagement import engage
from affray.systems.rules.hit import Hit
from affray.systems.rules.protections import EVIL, GOOD, protect
from affray.systems.rules.registry import hook_failed
from affray.systems.rules.skills import effective_skill, weapon_skill
from affray.systems.rules.tohit import (
    FIGHTING,
    POSITION_RANK,
    SLEEPING,
    roll_armor_model,
    roll_legacy,
)

if TYPE_CHECKING:
    from affray.core.world import World
    from affray.systems.rules.sheet import Sheet

# Events are NamedTuples: tuple.__new__(Miss, (...)) builds one without the Python frame of
# the generated __new__ (half the cost; every field is given, in order).
_new_tuple = tuple.__new__

CLASS_DIVISOR = {"hybrid": 130, "agile": 110, "other": 100}  # casters: none


# -- the formulas, one definition each (ints or numpy arrays: issue 12) -----------------
# The blow below and the vectorised round (volley_blows, volley_columns) both call these;
# the rolls stay with each caller, the arithmetic is here once.
def movement_cost(level: Any) -> Any:
    """What a player's blow costs in movement points: max(level/20, 1)."""
    return maximum(tdiv(level, 20), 1)


def prefers_hand_dice(npc_with_hand: Any, has_weapon_dice: Any, hand_x2: Any,
                      weapon_x2: Any) -> Any:
    """R-MELEE-3's damBase dice: an NPC with hand dice rolls them, unscaled, when it has
    no weapon dice or the hand's are better on average (twice the averages compared,
    dice.dice_average_x2)."""
    return npc_with_hand & ((has_weapon_dice == 0) | (hand_x2 > weapon_x2))


def normalised(dam: Any) -> Any:
    """damNormalize: a blow that hits deals at least 1 before the protections."""
    return maximum(dam, 1)


def weapon_damage(rolled: Any, skill: Any) -> Any:
    """R-MELEE-3's damBase with weapon dice: the roll (dice + bonus) x skill/100."""
    return tdiv(rolled * skill, 100)


def bare_hand_range(level: Any, skill: Any) -> tuple[Any, Any]:
    """R-MELEE-3's bare-handed damBase range: 1 + 4 skill/100 .. (2 level/3) skill/100."""
    return 1 + tdiv(4 * skill, 100), tdiv(tdiv(2 * level, 3) * skill, 100)


def unshielded_damage(dam: Any) -> Any:
    """R-MELEE-3: a wielded weapon and no shield: x21/20."""
    return tdiv(dam * 21, 20)


def sharp_succeeds(roll: Any, skill: Any) -> Any:
    """R-MELEE-3: a sharp weapon bites on number_percent() <= skill/8."""
    return roll <= tdiv(skill, 8)


def sharp_damage(dam: Any, roll: Any) -> Any:
    """R-MELEE-3: a sharp weapon's bite: 2 dam + dam x 2 roll/100 (the same roll)."""
    return 2 * dam + tdiv(dam * 2 * roll, 100)


def holy_damage(dam: Any) -> Any:
    """R-MELEE-3: a holy weapon, good wielder, evil victim (1 in 30ish): + dam x 120/100."""
    return dam + tdiv(dam * 120, 100)


def class_bonus(dam: Any, roll: Any, divisor: Any) -> Any:
    """damapply_class: dam + dam x number_percent()/divisor (CLASS_DIVISOR)."""
    return dam + tdiv(dam * roll, divisor)


def damroll_term(damroll: Any, skill: Any) -> Any:
    """R-MELEE-3: damroll x min(100, skill)/100, added to the damage."""
    return tdiv(damroll * minimum(skill, 100), 100)


def strength_bonus(dam: Any, str_damage: Any) -> Any:
    """R-MELEE-3: dam + dam x str_app[STR].damage/100."""
    return dam + tdiv(dam * str_damage, 100)


def critical_damage(dam: Any, numerator: Any, denominator: Any) -> Any:
    """R-HIT-5: a critical multiplies the damage by the fight config's fraction."""
    return tdiv(dam * numerator, denominator)


def position_multiplier_value(rank: Any, value: Any) -> Any:
    """R-MELEE-4: victim asleep or worse (rank) x2; resting or sitting x3/2 (truncated)."""
    return select(rank <= SLEEPING, value * 2,
                  select(rank < FIGHTING, tdiv(value * 3, 2), value))


# The blow calls the formulas whose arguments take few values through these memos: a
# C-level look-up instead of the formula's Python calls (the formula stays the one
# definition; a memo only remembers what it gave).
_movement_cost = functools.lru_cache(maxsize=1024)(movement_cost)
_prefers_hand_dice = functools.lru_cache(maxsize=1024)(prefers_hand_dice)
_weapon_damage = functools.lru_cache(maxsize=4096)(weapon_damage)
_normalised = functools.lru_cache(maxsize=4096)(normalised)
_unshielded_damage = functools.lru_cache(maxsize=4096)(unshielded_damage)
_class_bonus = functools.lru_cache(maxsize=4096)(class_bonus)
_damroll_term = functools.lru_cache(maxsize=4096)(damroll_term)
_strength_bonus = functools.lru_cache(maxsize=4096)(strength_bonus)


def can_hit(attacker: Sheet, victim: Sheet) -> bool:
    """Both alive, side by side (R-MELEE-2, Chebyshev 1); a player needs movement."""
    if not (attacker.vitals.alive and victim.vitals.alive):
        return False
    a, v = attacker.position, victim.position
    dx, dy = a.x - v.x, a.y - v.y
    if not 0 < dx * dx + dy * dy < 3:  # max(|dx|, |dy|) == 1 for whole dx, dy
        return False
    return not (attacker.creature.player and attacker.vitals.move <= 0)


def refresh_move(world: World, sheet: Sheet) -> int:
    """Bring a creature's movement points up to date and return them.

    Movement regenerates once a tick (`fight.movement.tick_pulses`, on every pulse that is
    a multiple of it): a player gains max(player_min, level), an NPC its level, never
    above max_move. Rather than touch every creature every pulse (World.run jumps idle
    pulses), the gain of every tick since `Vitals.move_pulse` is added when the points are
    read or spent, which gives exactly what the ticks one by one would have: every
    spending is preceded by a refresh, and adding n gains under a cap is one capped add.
    """
    vitals = sheet.vitals
    pulse = world.pulse
    last = vitals.move_pulse
    if pulse == last:
        return vitals.move
    config = world.content.fight.movement
    ticks = pulse // config.tick_pulses - last // config.tick_pulses
    vitals.move_pulse = pulse
    if ticks > 0 and vitals.move < config.max_move:  # else regained_move changes nothing
        vitals.move = _regained_move(vitals.move, ticks, sheet.level.level,
                                     sheet.creature.player, config.player_min,
                                     config.max_move)
    return vitals.move


def regained_move(move: Any, ticks: Any, level: Any, player: Any, player_min: int,
                  max_move: int) -> Any:
    """Movement points after `ticks` ticks of regeneration: a player gains
    max(player_min, level) a tick, an NPC its level, capped at max_move; with no tick, or
    at the cap already, what it has. Ints or arrays: `refresh_move` and the vectorised
    round's `volley.refresh_moves`."""
    gain = select(player, maximum(player_min, level), level)
    # No more ticks than the points missing: each tick gains 1 or more, or nothing at
    # all, so the result is the same, and ticks x gain stays within the vectorised
    # round's 64-bit columns after a long idle jump (2**62 pulses x level 1,000 wraps).
    ticks = minimum(ticks, max_move - move)
    return select((ticks > 0) & (move < max_move), minimum(max_move, move + ticks * gain),
                  move)


_regained_move = functools.lru_cache(maxsize=4096)(regained_move)


def pay_movement(attacker: Sheet) -> None:
    """A player pays min(max(level/20, 1), move) movement points per blow; NPCs nothing."""
    if attacker.creature.player:
        vitals = attacker.vitals
        cost = _movement_cost(attacker.level.level)
        vitals.move -= cost if cost < vitals.move else vitals.move


def base_damage(world: World, attacker: Sheet, victim: Sheet, skill: int) -> int:
    """damBase: weapon dice * skill/100; an NPC's hand dice when better than its weapon
    (not scaled by skill); a bare-handed player number_range(1 + 4*skill/100,
    (2L/3)*skill/100); x21/20 with a weapon and no shield; sharp and holy weapons."""
    rng = world.rng
    weapon = attacker.weapon
    hand = attacker.offense.hand_dice
    weapon_dice = attacker.weapon_dice
    if hand is not None and not attacker.creature.player and _prefers_hand_dice(
            True, weapon_dice is not None, dice_average_x2(hand),
            0 if weapon_dice is None else dice_average_x2(weapon_dice)):
        dam = rng.dice(hand[0], hand[1]) + hand[2]
    elif weapon_dice is not None:
        dam = _weapon_damage(rng.dice(weapon_dice[0], weapon_dice[1]) + weapon_dice[2], skill)
    else:
        dam = rng.number_range(*bare_hand_range(attacker.level.level, skill))
    if weapon is not None:
        if not attacker.shield:
            dam = _unshielded_damage(dam)
        if weapon.sharp:
            p = rng.percent()
            if sharp_succeeds(p, skill):
                dam = sharp_damage(dam, p)
        if (weapon.holy and attacker.level.alignment > GOOD and victim.level.alignment < EVIL
                and rng.percent() < 30):
            dam = holy_damage(dam)
    return dam


def apply_class(world: World, attacker: Sheet, dam: int) -> int:
    """damapply_class, players only: dam += dam*number_percent()/div, div 130 hybrid,
    110 agile, 100 other; casters nothing."""
    if not attacker.creature.player:
        return dam
    divisor = CLASS_DIVISOR.get(attacker.profession.flag)
    if divisor is None:
        return dam
    return _class_bonus(dam, world.rng.percent(), divisor)


def apply_damroll(world: World, attacker: Sheet, dam: int, skill: int) -> int:
    """dam += damroll*min(100, skill)/100, then dam += dam*str_app[STR].damage/100."""
    dam += _damroll_term(attacker.offense.damroll, skill)
    strength = attacker.stats.strength  # stat_index, written out: this runs every blow
    str_damage = world.content.stats.str_.damage[
        0 if strength < 0 else 28 if strength > 28 else strength]
    return _strength_bonus(dam, str_damage) if str_damage else dam


def position_multiplier(victim: Sheet, value: int) -> int:
    """R-MELEE-4: victim asleep or worse x2; resting or sitting x3/2 (truncated)."""
    return position_multiplier_value(POSITION_RANK[victim.vitals.position], value)


def one_hit(world: World, attacker: Sheet, victim: Sheet, cause: str = "melee") -> int:
    """One blow through the whole pipeline (R-MELEE-1). Returns the hit points taken;
    raises VictimDeath when the blow (or a hook) kills. A player with no movement
    points left strikes nothing: a `too_tired` event.

    The hottest function of a fight: the steps are the functions above and in tohit,
    protections, defence and damage; only glue (attribute reads, the checks that let a
    step be skipped when it would do nothing) is written out here."""
    pulse = world.pulse
    a_vitals = attacker.vitals
    if a_vitals.move_pulse != pulse:
        refresh_move(world, attacker)
    if victim.vitals.move_pulse != pulse:
        refresh_move(world, victim)  # its movement counts for evasion, AC and defences
    player = attacker.creature.player
    if not can_hit(attacker, victim):
        if player and a_vitals.move <= 0 and a_vitals.alive and victim.vitals.alive:
            world.emit(TooTired(pulse, attacker.id, victim.id))  # no silent stop
        return 0
    if player:
        pay_movement(attacker)
    content = world.content
    rng = world.rng
    # R-IMM-5: a blow always carries a type (a punch is bash); a flaming sword's is fire,
    # kept for immunity and armor, with none of magic's type rules (R-MELEE-8).
    damage_type = attacker.weapon_type
    skill = 20 + weapon_skill(world, attacker)
    blind_fighting = (effective_skill(world, attacker, "blind_fighting")
                      if "blind" in attacker.affects.levels else 0)
    armor_use = (effective_skill(world, victim, "armor_use")
                 if "armor_use" in victim.skills.learned else 0)
    fight = content.fight
    if fight.model == "armor":
        hits, critical, pierce, armor_bonus = roll_armor_model(
            attacker, victim, skill, rng, content, blind_fighting, armor_use)
    else:
        column = content.damage.armor_column.get(damage_type, "exotic")
        hits, critical, pierce, armor_bonus = roll_legacy(
            attacker, victim, skill, column, rng, content, blind_fighting, armor_use)
    if not hits:
        # World.emit's one line, without its call (as volley and flood log)
        world.events.append(_new_tuple(Miss, (pulse, attacker.creature.id, victim.creature.id,
                                              cause)))
        if victim.combat.fighting is None or victim.vitals.position == "sleeping":
            engage(world, attacker, victim)  # R-ACT-1: a miss engages too
        return 0
    # Damage calculation (R-MELEE-3).
    dam = base_damage(world, attacker, victim, skill)
    if player:
        dam = apply_class(world, attacker, dam)
    dam = apply_damroll(world, attacker, dam, skill)
    # Positional: keyword matching would cost more than the rest of the record.
    hit = Hit(attacker, victim, dam, damage_type, immunity.WEAPON, True, cause, None,
              critical, False, 0, 0, False, attacker.weapon, pierce, armor_bonus)
    rules = world.rules
    if rules.all_melee or rules.all_damage:
        apply_modifiers(world, hit, melee=True)
        dam, critical = hit.dam, hit.critical
    if critical:  # R-HIT-5: with the other multipliers, before protections
        numerator, denominator = fight.critical_multiplier
        dam = critical_damage(dam, numerator, denominator)
    # damNormalize (the memo for whole numbers only: a modifier's float or Fraction
    # would share its entries, 12.0 answering for 12)
    dam = _normalised(dam) if type(dam) is int else normalised(dam)
    hit.dam = hit.orig_dam = hit.raw = dam
    protect(hit, world)
    weapon_bits = attacker.weapon_bits
    if weapon_bits and hit.dam > 0:  # R-IMM-9: the weapon's material, alone
        own = victim.immunities  # Sheet.imm_mask / res_mask / vuln_mask, written out
        imm, res = own.imm | victim.gear_imm, own.res | victim.gear_res
        vuln = own.vuln | victim.gear_vuln
        if weapon_bits & (imm | res | vuln):  # else resolve says normal: nothing changes
            before = hit.dam
            hit.dam = immunity.apply(immunity.resolve(weapon_bits, imm, res, vuln), before)
            hit.immune = hit.immune or (before > 0 and hit.dam == 0)
    # R-MELEE-4: once, after every other multiplier; orig_dam gets the same factor.
    if POSITION_RANK[victim.vitals.position] < FIGHTING:
        hit.dam = position_multiplier(victim, hit.dam)
        hit.orig_dam = position_multiplier(victim, hit.orig_dam)
    if hit.dam > 0:
        for name, defence in rules.defences.items():  # R-DEF-1: the first success ends it
            try:
                defended = defence(world, hit)
            except HookError:
                raise
            except Exception as error:  # a step (a game's own?): name it
                raise hook_failed(world, defence, error) from error
            if defended:
                world.events.append(_new_tuple(Defended, (pulse, attacker.creature.id,
                                                          victim.creature.id, name)))
                if victim.combat.fighting is None or victim.vitals.position == "sleeping":
                    engage(world, attacker, victim)  # R-ACT-1: so does a defended blow
                return 0
    if rules.hooks["pre_damage"]:
        run_hooks(world, "pre_damage", hit)
    return finish(world, hit)
