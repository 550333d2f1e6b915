"""Saving throws (SPEC section 9): does a victim resist a spell?

`saves_spell` picks its model from the saves config (R-SAVE-1): model 0 is the source's
linear roll in percent (R-SAVE-2), model 1 the saturating curve rolled in permille
(R-SAVE-3). An immune victim always saves (R-SAVE-6, R-IMM-7).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from affray.arith import clamp, tdiv
from affray.systems.rules import immunity

if TYPE_CHECKING:
    from affray.systems.rules.sheet import Sheet
    from affray.world import World

GOOD, EVIL = 333, -333


def save_shift(model: int, victim_level: int) -> int:
    """The fixed shift: Lv/5 under model 0, 5 + Lv/10 under model 1."""
    return tdiv(victim_level, 5) if model == 0 else 5 + tdiv(victim_level, 10)


def _shifts(world: World, victim: Sheet, caster: Sheet | None, outcome: str,
            shift: int) -> int:
    """R-SAVE-5: resistant and berserk add the shift; vulnerable and a successful
    alignment-based holy craft roll by a good caster on an evil victim subtract it."""
    total = 0
    if victim.has("berserk"):
        total += shift
    if outcome == immunity.RESISTANT:
        total += shift
    elif outcome == immunity.VULNERABLE:
        total -= shift
    if (caster is not None and caster.level.alignment > GOOD
            and victim.level.alignment < EVIL):
        craft = caster.skills.learned.get("holy_craft", 0)
        if craft and world.rng.percent() < craft:
            total -= shift
    return total


def _charm(world: World, victim: Sheet, caster: Sheet | None, damage_type: str,
           shift: int) -> int:
    """R-SAVE-7: charm compares charisma: -per_point per point of the caster's lead; a
    player victim below the low-charisma mark loses a further shift."""
    if damage_type != "charm":
        return 0
    config = world.content.saves.charm
    cut = 0
    if caster is not None:
        cut -= (caster.stats.charisma - victim.stats.charisma) * config.per_point
    if victim.creature.player and victim.stats.charisma < config.low_cha:
        cut -= shift
    return cut


def _on_saves(world: World, caster: Sheet | None, victim: Sheet, chance: float) -> float:
    """R-SAVE-8: the caster's affects with an on-saves hook may edit the running chance."""
    if caster is None or not world.rules.hooks["on_saves"]:
        return chance
    owners = [("affect", name) for name in caster.affects.levels]
    for hook in world.rules.hooks_for("on_saves", owners):
        chance = hook(chance, caster, victim, world)
    return chance


def save_chance(world: World, level: int, victim: Sheet, damage_type: str,
                caster: Sheet | None, flags: int) -> tuple[float, int] | None:
    """The chance to save and its scale (100 or 1000), or None when immune (saves)."""
    content = world.content
    config = content.saves
    bits = immunity.hit_bits(content, damage_type, flags)
    outcome = immunity.resolve(bits, victim.imm_mask(), victim.res_mask(), victim.vuln_mask())
    if outcome == immunity.IMMUNE:
        return None
    victim_level = victim.modify_level
    saving_throw = victim.defense.saving_throw
    shift = save_shift(config.model, victim_level)
    shifts = (_shifts(world, victim, caster, outcome, shift)
              + _charm(world, victim, caster, damage_type, shift))
    linear = -tdiv(saving_throw * 90, max(45, victim_level))
    if config.model == 0:
        # R-SAVE-2: 40 + (Lv - Lc) * 4 - saving_throw * 90 / max(45, Lv) + shifts, 5..95
        chance: float = 40 + (victim_level - level) * 4 + linear + shifts
        chance = _on_saves(world, caster, victim, chance)
        return float(clamp(int(chance), 5, 95)), 100
    knobs = config.model1
    if saving_throw > 0:  # R-SAVE-4: a cursed victim takes the legacy linear term
        curve = float(linear)
    else:  # R-SAVE-3: r = svs / (tau * max(level_floor, Lv)), svs = -saving_throw
        r = -saving_throw / (knobs.tau * max(knobs.level_floor, victim_level))
        curve = knobs.span * (1.0 - math.exp(-r))
    chance = knobs.base + curve + knobs.per_level * (victim_level - level) + shifts
    chance = _on_saves(world, caster, victim, chance)
    return min(knobs.ceiling, max(knobs.floor, chance)), 1000


def saves_spell(world: World, level: int, victim: Sheet, damage_type: str,
                caster: Sheet | None = None, flags: int = immunity.SPELL) -> bool:
    """R-SAVE-1..8: True when the victim saves. Model 0 rolls number_percent() < save;
    model 1 rolls 1..1000 below the chance in permille."""
    chance = save_chance(world, level, victim, damage_type, caster, flags)
    if chance is None:
        return True  # R-SAVE-6 / R-IMM-7: an immune victim always saves
    value, scale = chance
    if scale == 100:
        return world.rng.percent() < value
    return world.rng.number_range(1, 1000) < value * 10


def resists_dispel(world: World, affect_level: int, duration: int, dispel_level: int) -> bool:
    """R-SAVE-9: does an affect resist a dispel? A permanent affect (duration -2) always
    does; one of duration -1 counts five levels higher. Model 0: 50 + 5 per level of
    difference, clamped 5..95, in percent; model 1: base + per_level per level, clipped
    min..max, in permille. (An affect that resists loses a level: `dispel` does that.)"""
    if duration == -2:
        return True
    level = affect_level + 5 if duration == -1 else affect_level
    dispel = world.content.saves.dispel
    if world.content.saves.model == 0:
        save = clamp(dispel.base0 + (level - dispel_level) * dispel.per_level0, 5, 95)
        return world.rng.percent() < save
    save = clamp(dispel.base1 + (level - dispel_level) * dispel.per_level1, dispel.min1,
                 dispel.max1)
    return world.rng.number_range(1, 1000) < save
