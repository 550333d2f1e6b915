"""Striking a whole flooded body of water at once (R-ELEC-3 at scale).

Lightning into a lake holding thousands of creatures strikes every one of them at the
cast's one roll (R-ELEC-3). One strike at a time is the Python pipeline per creature
(`magic.strike`, some tens of microseconds); here the creatures a flood queued are struck
together: their saves (`saves.save_thresholds_many`, the scalar formulas over arrays),
necrotic's bonus and the save's halving, and the protections (`volley_protect.
protect_many`, the default steps with each step's rounding) in numpy, then one short
Python pass that logs each creature's event and inflicts its damage in queue order.

The result is the scalar path's, creature for creature, with one difference: the saves'
draws for the whole run are taken before any of those creatures' own later draws (a fire
creature's burning roll, an arc's roll), so the same seed gives a different log than
striking one by one (as the Spell step already draws its victims' saves before any arc).
A test pins the draws and compares the two paths event for event.

Used only where the scalar path has nothing the arrays cannot do (`bulk_ready`): no
hooks or "all damage" modifiers registered, the default protections, saves with no
per-victim draw or hook, and no undead struck by necrotic harm.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from affray.core.events import Damage, Immune
from affray.data.defs import ARMOR_COLUMNS
from affray.systems.rules.casting import CastRecord, Strike
from affray.systems.rules.damage import inflict, rouse
from affray.systems.rules.engagement import engage
from affray.systems.rules.hit import Hit, VictimDeath
from affray.systems.rules.magic import spell_effects, type_rules
from affray.systems.rules.saves import bulk_saves_apply, save_thresholds_many
from affray.systems.rules.tohit import HITROLL_SCALE
from affray.systems.rules.volley_protect import (
    HitArrays,
    VictimArrays,
    affect_mask,
    column_index,
    defaults_in_use,
    protect_many,
    type_bits,
)

if TYPE_CHECKING:
    from affray.core.world import World
    from affray.systems.rules.sheet import Sheet

# `rouse` does nothing to a victim already fighting someone and on its feet.
_SETTLED = ("fighting", "standing")


def _may_engage(world: World, caster: Sheet | None, victims: list[Sheet]) -> list[bool]:
    """Per victim, whether R-ACT-1 might change it (then `_engages` looks closer): asleep,
    beside the caster, or with a mind; none when the caster is gone."""
    if caster is None or not caster.vitals.alive:
        return [False] * len(victims)
    minded = world.minded
    x, y = caster.position.x, caster.position.y
    occupant = world.grid.occupant
    near = {int(e) for e in occupant[max(0, y - 1):y + 2, max(0, x - 1):x + 2].ravel() if e}
    return [s.entity in near or s.entity in minded or s.vitals.position == "sleeping"
            for s in victims]


def _engages(caster: Sheet | None, victim: Sheet) -> bool:
    """Whether `engagement.engage(caster, victim)` could do anything: the victim fights no
    one or sleeps, and is beside the caster, asleep, or has a mind (R-ACT-1)."""
    if caster is None:
        return False
    position = victim.vitals.position
    if victim.combat.fighting is not None and position != "sleeping":
        return False
    if position == "sleeping" or victim.mind.name is not None:
        return True
    here, there = caster.position, victim.position
    return max(abs(here.x - there.x), abs(here.y - there.y)) == 1


def bulk_ready(world: World, record: CastRecord, victims: list[Sheet]) -> bool:
    """True when striking `victims` together gives what striking them one by one would."""
    rules = world.rules
    if any(rules.hooks[kind] for kind in ("pre_damage", "post_damage", "on_immune")):
        return False
    if rules.all_damage or not defaults_in_use(world):
        return False
    if record.definition.save != "none" and not bulk_saves_apply(
            world, world.sheets.get(record.caster), record.damage_type):
        return False
    return not (record.damage_type == "negative"
                and any(sheet.creature.undead for sheet in victims))


def strike_many(world: World, record: CastRecord, victims: list[Sheet],
                cause: str) -> list[Strike]:
    """Strike every creature of `victims` (living, in queue order) with the cast, as
    `magic.strike` does one; returns their Strikes (also appended to the record)."""
    content = world.content
    n = len(victims)
    # every column in one pass over the sheets (a pass per column cost as much each)
    columns = np.array([(s.level.level + s.level.remorts, s.defense.saving_throw,
                         s.immunities.imm | s.gear_imm, s.immunities.res | s.gear_res,
                         s.immunities.vuln | s.gear_vuln, s.vitals.hp, s.vitals.max_hp)
                        for s in victims], dtype=np.int64).reshape(n, 7).T
    level, saving, imm, res, vuln, hp, max_hp = columns
    damage_type = record.damage_type
    flags = record.flags
    # The saves (R-SAVE-10): thresholds in numpy, the rolls in queue order.
    saved = np.zeros(n, dtype=bool)
    if record.definition.save != "none":
        berserk = np.fromiter(("berserk" in s.affects.levels for s in victims), bool, n)
        immune, threshold, scale = save_thresholds_many(
            world, record.level, level, saving, berserk, imm, res, vuln, damage_type, flags)
        # one draw per victim not immune, in queue order
        rolls = np.zeros(n, dtype=np.int64)
        drawn = ~immune
        count = int(drawn.sum())
        rng = world.rng
        rolls[drawn] = rng.percents(count) if scale == 100 else rng.numbers(1, 1000, count)
        saved = immune | (rolls < threshold)
    # The damage before the protections: necrotic's bonus, then the save's halving.
    dam = np.full(n, record.roll, dtype=np.int64)
    if damage_type == "negative":
        dam = np.where(hp * 2 < max_hp, dam + dam // 2, dam)
    dam = np.where(saved, dam // 2, dam)
    raw = dam
    caster = world.sheets.get(record.caster)
    affects = np.fromiter((affect_mask(s.affects.levels) if s.affects.levels else 0
                           for s in victims), np.int64, n)
    spell_armor = damage_type in content.damage.spell_armor
    armor = np.zeros((4, n), dtype=np.int64)  # only the column this type meets is read
    column = column_index(content, damage_type)
    if column >= 0:
        name = ARMOR_COLUMNS[column]
        armor[column] = np.fromiter((s.armor(name) for s in victims), np.int64, n)
    hits = HitArrays(
        dam=dam, melee=np.zeros(n, dtype=bool), has_source=np.full(n, caster is not None),
        source_alignment=np.full(n, caster.level.alignment if caster else 0, np.int64),
        source_level=np.full(n, caster.modify_level if caster else 0, np.int64),
        fire=np.full(n, damage_type == "fire"), cold=np.full(n, damage_type == "cold"),
        lightning=np.full(n, damage_type == "lightning"),
        imm_bits=np.full(n, type_bits(content, damage_type, flags), np.int64),
        column=np.full(n, column, np.int64),
        spell_armor=np.full(n, spell_armor),
        pierce=np.full(n, int(record.pierce * HITROLL_SCALE), np.int64),
        armor_use_level=np.zeros(n, dtype=np.int64))
    liturgy = np.fromiter((s.skills.learned.get("liturgy", 0) > 0 for s in victims), bool, n)
    after, immune_hit = protect_many(content, hits, VictimArrays(
        affects=affects, liturgy_skill=liturgy, modify_level=level, imm=imm, res=res,
        vuln=vuln, armor=armor))
    # Log and inflict in queue order; the type rules and effects as the scalar path.
    pulse, source = world.pulse, record.caster_id
    spell, critical = record.spell, record.critical
    results: list[Strike] = []
    strikes = record.strikes
    has_rule = damage_type in ("fire", "cold", "poison", "acid")
    rolled = record.roll > 0
    offensive = record.definition.offensive
    # R-ACT-1 asks only about victims it could change: asleep, or free and beside the
    # caster or with a mind to remember it; the rest of a lake is skipped at once.
    maybe = _may_engage(world, caster, victims)
    events = world.events
    # Python values once (indexing numpy scalars one by one is slow).
    saved_list, amounts, raws = saved.tolist(), after.tolist(), raw.tolist()
    immune_list, left = immune_hit.tolist(), (hp - after).tolist()
    for i, victim in enumerate(victims):
        was_saved = saved_list[i]
        result = Strike(victim.entity, cause, 0, critical, was_saved)
        strikes.append(result)
        results.append(result)
        if rolled:
            if immune_list[i]:
                events.append(Immune(pulse, source, victim.id, damage_type))
                if maybe[i] and _engages(caster, victim):
                    engage(world, caster, victim)  # R-ACT-1, as damage.finish
            else:
                amount = amounts[i]
                events.append(Damage(pulse, source, victim.id, amount, raws[i], damage_type,
                                     cause, spell, critical, was_saved))
                if amount <= 0 and maybe[i] and _engages(caster, victim):
                    engage(world, caster, victim)  # R-ACT-1, as damage.finish
                if amount > 0:
                    result.amount = amount
                    vitals = victim.vitals
                    if left[i] > 0:  # survives: inflict's only change is the hit points
                        vitals.hp = left[i]
                    else:
                        try:
                            inflict(world, Hit(caster, victim, amount, damage_type, flags,
                                               False, cause, spell))
                        except VictimDeath:
                            result.killed = True
                            continue
                    if vitals.position not in _SETTLED or (maybe[i] and _engages(caster,
                                                                                  victim)):
                        rouse(world, Hit(caster, victim, amount, damage_type, flags, False,
                                         cause, spell))
        if has_rule and result.amount >= 1:
            type_rules(world, record, victim)
        if record.has_effects and not was_saved and victim.vitals.alive:
            spell_effects(world, record, victim)
        if (not rolled and offensive and maybe[i] and victim.vitals.alive
                and _engages(caster, victim)):
            engage(world, caster, victim)  # R-ACT-1, as magic.strike
    return results
