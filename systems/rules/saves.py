"""Saving throws (SPEC section 9): does a victim resist a spell?

`saves_spell` picks its model from the saves config (R-SAVE-1): model 0 is the source's
linear roll in percent (R-SAVE-2), model 1 the saturating curve rolled in permille
(R-SAVE-3); a missing file or any missing curve knob means model 0. An immune victim
always saves (R-SAVE-6, R-IMM-7). `dispel` strips a victim's affects (R-SAVE-9).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from affray.core.arith import clamp, tdiv
from affray.core.errors import HookError
from affray.systems.rules import immunity
from affray.systems.rules.protections import EVIL, GOOD
from affray.systems.rules.registry import hook_failed

if TYPE_CHECKING:
    from affray.core.world import World
    from affray.data.content_loader import Content
    from affray.systems.rules.sheet import Sheet


def saves_model(content: Content) -> int:
    """R-SAVE-1: the model that runs: 1 only when the config asks for it and gives every
    knob of model 1's curve; a missing file or any missing knob means model 0."""
    model = content.cache.get(("saves_model",))
    if model is None:  # content never changes: decide once
        config = content.saves
        model = content.cache[("saves_model",)] = (
            1 if config.model == 1 and config.model1.complete() else 0)
    return model


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
        try:
            chance = hook(chance, caster, victim, world)
        except HookError:
            raise
        except Exception as error:  # a game's hook: name it (VictimDeath passes)
            raise hook_failed(world, hook, error) from error
    return chance


class Curve(NamedTuple):
    """Model 1's knobs, every one given (R-SAVE-3)."""

    base: float
    span: float
    per_level: float
    floor: float
    ceiling: float
    tau: float
    level_floor: int


def _curve(content: Content) -> Curve:
    """The model-1 knobs as plain numbers (call only when saves_model is 1)."""
    knobs = content.saves.model1
    return Curve(*(getattr(knobs, name) for name in Curve._fields))


def save_chance(world: World, level: int, victim: Sheet, damage_type: str,
                caster: Sheet | None, flags: int) -> tuple[float, int] | None:
    """The chance to save in percent and the scale it is rolled on (100: percent, model
    0; 1000: permille, model 1), or None when the victim is immune (it saves)."""
    content = world.content
    model = saves_model(content)
    bits = immunity.hit_bits(content, damage_type, flags)
    outcome = immunity.resolve(bits, victim.imm_mask(), victim.res_mask(), victim.vuln_mask())
    if outcome == immunity.IMMUNE:
        return None
    victim_level = victim.modify_level
    saving_throw = victim.defense.saving_throw
    shift = save_shift(model, victim_level)
    shifts = (_shifts(world, victim, caster, outcome, shift)
              + _charm(world, victim, caster, damage_type, shift))
    linear = -tdiv(saving_throw * 90, max(45, victim_level))
    if model == 0:
        # R-SAVE-2: 40 + (Lv - Lc) * 4 - saving_throw * 90 / max(45, Lv) + shifts, 5..95
        chance: float = 40 + (victim_level - level) * 4 + linear + shifts
        chance = _on_saves(world, caster, victim, chance)
        return float(clamp(int(chance), 5, 95)), 100
    knobs = _curve(content)
    if saving_throw > 0:  # R-SAVE-4: a cursed victim takes the legacy linear term
        curve = float(linear)
    else:  # R-SAVE-3: r = svs / (tau * max(level_floor, Lv)), svs = -saving_throw
        r = -saving_throw / (knobs.tau * max(knobs.level_floor, victim_level))
        curve = knobs.span * (1.0 - math.exp(-r))
    chance = knobs.base + curve + knobs.per_level * (victim_level - level) + shifts
    chance = _on_saves(world, caster, victim, chance)
    return min(knobs.ceiling, max(knobs.floor, chance)), 1000


def roll_threshold(chance: float, scale: int) -> int:
    """The integer a roll on 1..scale must stay below: the percent itself (model 0), or
    the percent in permille, truncated (model 1: 66.67% -> 666)."""
    if scale == 100:
        return int(chance)
    return int(chance * 10 + 1e-9)  # 1e-9: 52.0% is 520 even if the float is 519.999...


def saves_spell(world: World, level: int, victim: Sheet, damage_type: str,
                caster: Sheet | None = None, flags: int = immunity.SPELL) -> bool:
    """R-SAVE-1..8: True when the victim saves. Model 0 rolls number_percent() below the
    save (so a save of 66 saves 65% of the time); model 1 rolls number_range(1, 1000)
    below the chance in permille. The Spell system halves a saved hit (R-SAVE-10)."""
    chance = save_chance(world, level, victim, damage_type, caster, flags)
    if chance is None:
        return True  # R-SAVE-6 / R-IMM-7: an immune victim always saves
    value, scale = chance
    threshold = roll_threshold(value, scale)
    if scale == 100:
        return world.rng.percent() < threshold
    return world.rng.number_range(1, 1000) < threshold


def resists_dispel(world: World, affect_level: int, duration: int, dispel_level: int) -> bool:
    """R-SAVE-9: does an affect resist a dispel? A permanent affect (duration -2) always
    does; one of duration -1 counts five levels higher. Model 0: 50 + 5 per level of
    difference, clamped 5..95, in percent; model 1: base + per_level per level, clipped
    min..max, in permille. Both roll `roll < save`."""
    if duration == -2:
        return True
    level = affect_level + 5 if duration == -1 else affect_level
    dispel = world.content.saves.dispel
    if saves_model(world.content) == 0:
        save = clamp(dispel.base0 + (level - dispel_level) * dispel.per_level0, 5, 95)
        return world.rng.percent() < save
    save = clamp(dispel.base1 + (level - dispel_level) * dispel.per_level1, dispel.min1,
                 dispel.max1)
    return world.rng.number_range(1, 1000) < save


# Stun and weak stun are flags the Stun system owns, not spell affects (R-STUN-1).
STUN_FLAGS = frozenset(("stun", "weak_stun"))


def dispel_terms(victim: Sheet, marker: int) -> tuple[int, int]:
    """(affect level, duration) of an affect whose stored level is `marker`: -2 is
    permanent; -1 has no level of its own and counts at its owner's level (then five
    higher, R-SAVE-9); any other value is the level of a timed affect."""
    if marker == -2:
        return 0, -2
    if marker == -1:
        return victim.modify_level, -1
    return marker, 0


def dispel(world: World, victim: Sheet, dispel_level: int) -> list[tuple[str, bool]]:
    """R-SAVE-9: try to dispel every affect of the victim, in name order (a fixed order,
    whatever order they came in). Equipment-granted affects cannot be dispelled while worn
    (R-IMM-6) and the stun flags are not spells: both are skipped without a roll. An
    affect that fails its save is removed (`world.remove_affect`); one that resists loses
    one level (never below 0: -1 and -2 are markers, not levels). Returns (affect, removed)
    for every affect rolled, in order, for the Spell system's events."""
    results: list[tuple[str, bool]] = []
    affects = victim.affects
    for name in sorted(affects.levels):
        if name in STUN_FLAGS or affects.sources.get(name) == "equipment":
            continue
        marker = affects.levels[name]
        affect_level, duration = dispel_terms(victim, marker)
        if resists_dispel(world, affect_level, duration, dispel_level):
            if marker > 0:
                affects.levels[name] = marker - 1
            results.append((name, False))
        else:
            world.remove_affect(victim.id, name)
            results.append((name, True))
    return results


def save_thresholds_many(world: World, level: int, victim_level: np.ndarray,
                         saving_throw: np.ndarray, berserk: np.ndarray, imm: np.ndarray,
                         res: np.ndarray, vuln: np.ndarray, damage_type: str,
                         flags: int) -> tuple[np.ndarray, np.ndarray, int]:
    """`save_chance` and `roll_threshold` for many victims of one cast at once (a
    flooded lake): (immune, threshold, scale). Same formulas and rounding, per victim, as
    the scalar path (a test compares them creature by creature). Only for casts the scalar
    path would give no per-victim draw or hook inside the chance: no holy craft roll, no
    charm, no on-saves hook (`bulk_saves_apply` says which)."""
    content = world.content
    model = saves_model(content)
    bits = immunity.hit_bits(content, damage_type, flags) or 0
    immune = (imm & bits) != 0
    resistant = ((res & bits) != 0) & ((vuln & bits) == 0)
    vulnerable = ((vuln & bits) != 0) & ((res & bits) == 0)
    shift = tdiv(victim_level, 5) if model == 0 else 5 + tdiv(victim_level, 10)
    shifts = (np.where(berserk, shift, 0) + np.where(resistant, shift, 0)
              - np.where(vulnerable, shift, 0))
    linear = -tdiv(saving_throw * 90, np.maximum(45, victim_level))
    if model == 0:
        chance = np.clip(40 + (victim_level - level) * 4 + linear + shifts, 5, 95)
        return immune, chance.astype(np.int64), 100
    knobs = _curve(content)
    r = -saving_throw / (knobs.tau * np.maximum(knobs.level_floor, victim_level))
    curve = np.where(saving_throw > 0, linear.astype(np.float64),
                     knobs.span * (1.0 - np.exp(-r)))
    value = knobs.base + curve + knobs.per_level * (victim_level - level) + shifts
    value = np.minimum(knobs.ceiling, np.maximum(knobs.floor, value))
    return immune, (value * 10 + 1e-9).astype(np.int64), 1000


def bulk_saves_apply(world: World, caster: Sheet | None, damage_type: str) -> bool:
    """Whether `save_thresholds_many` gives what `save_chance` would for this cast: no
    on-saves hook registered, not charm (charisma per victim), and no holy craft roll
    (a good caster with the skill rolls per evil victim)."""
    if world.rules.hooks["on_saves"] or damage_type == "charm":
        return False
    return not (caster is not None and caster.level.alignment > GOOD
                and caster.skills.learned.get("holy_craft", 0))
