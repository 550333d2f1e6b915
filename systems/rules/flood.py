"""Striking a whole flooded body of water at once (R-ELEC-3 at scale).

Lightning into a lake holding thousands of creatures strikes every one of them at the
cast's one roll (R-ELEC-3). One strike at a time is the Python pipeline per creature
(`magic.strike`, some tens of microseconds); here the creatures a flood queued are struck
together: their saves (`saves.save_thresholds_many`, the scalar formulas over arrays),
necrotic's bonus and the save's halving, and the protections (`volley_protect.
protect_many`, the default steps with each step's rounding) in numpy. Then, in queue
order: stretches of victims whose strike is plain (they lose hit points and live, and
nothing else could happen to them) get their Strikes by one map, their hit points written
and their Damage events as one lazy block of the log (`FloodEvents`, built when first
read, as the vectorised round's blows are); every other victim takes the scalar steps
one by one between the stretches.

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

from itertools import chain, repeat
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from affray.core.collector import collector_paused
from affray.core.event_log import log_lazily
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
    AFFECT_BITS,
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


# A victim's position as a code in the gathered table: what `rouse` and R-ACT-1 ask.
_POSITION_CODE = {"fighting": 1, "standing": 1, "sleeping": 2}
_SETTLED_CODE, _SLEEPING_CODE = 1, 2


# Berserk (which the saves read, R-SAVE-5) beside the protections' affect bits in one
# gathered number: a bit past every AFFECT_BITS one.
_BERSERK = 1 << 62
assert max(AFFECT_BITS.values()) < _BERSERK


def _affect_code(levels: dict[str, int]) -> int:
    """The AFFECT_BITS of these affects, and _BERSERK when berserk is one of them."""
    return affect_mask(levels) | (_BERSERK if "berserk" in levels else 0)


class VictimTable(NamedTuple):
    """What `strike_many` reads of its victims, a column each (int64 unless said)."""

    level: np.ndarray       # modify level (R-LVL-1)
    imm: np.ndarray         # the imm/res/vuln masks with gear (R-IMM-6)
    res: np.ndarray
    vuln: np.ndarray
    hp: np.ndarray
    affects: np.ndarray     # AFFECT_BITS of the affects
    position: np.ndarray    # _POSITION_CODE
    maybe_near: np.ndarray  # beside the caster or with a mind (R-ACT-1 might apply)
    saving: np.ndarray
    berserk: np.ndarray     # bool
    max_hp: np.ndarray      # the columns below are read only when the cast needs them
    armor: np.ndarray       # armor in the column the type meets
    liturgy: np.ndarray     # bool: learned liturgy above 0


def _victim_table(world: World, record: CastRecord, caster: Sheet | None,
                  victims: list[Sheet], column: int) -> VictimTable:
    """Every number `strike_many` reads of its victims: the columns every strike needs
    in one pass over the sheets (a pass per column cost as much each), the others only
    when this cast can use them (zeros otherwise): max hp for necrotic's bonus, the armor
    column in the armor model, and liturgy only when some hit is big enough for R-PROT-4
    to take a point off it.
    `maybe_near`: beside the caster or with a mind (the sleeping ones are added from the
    position code); none when the caster is gone."""
    n = len(victims)
    if caster is not None and caster.vitals.alive:
        x, y = caster.position.x, caster.position.y
        occupant = world.grid.occupant
        near = {int(e) for e in occupant[max(0, y - 1):y + 2, max(0, x - 1):x + 2].ravel()
                if e}
        minded: set[int] | dict = world.minded
    else:
        near, minded = set(), {}
    position_code = _POSITION_CODE.get
    rows = [(lv.level + lv.remorts, s.defense.saving_throw,
             (im := s.immunities).imm | s.gear_imm, im.res | s.gear_res,
             im.vuln | s.gear_vuln, (vitals := s.vitals).hp,
             _affect_code(levels) if (levels := s.affects.levels) else 0,
             position_code(vitals.position, 0), s.entity in near or s.entity in minded)
            for s in victims for lv in (s.level,)]
    base = np.fromiter(chain.from_iterable(rows), np.int64, 9 * n).reshape(n, 9).T
    level, saving, imm, res, vuln, hp, code, position, maybe_near = base
    affects, berserk = code & ~_BERSERK, (code & _BERSERK) != 0
    zeros = np.zeros(n, dtype=np.int64)
    max_hp, armor = zeros, zeros
    if record.damage_type == "negative":
        max_hp = np.fromiter((s.vitals.max_hp for s in victims), np.int64, n)
    if column >= 0 and world.content.fight.model == "armor":
        name = ARMOR_COLUMNS[column]
        attr = f"armor_{name}"
        armor = np.fromiter((getattr(s.defense, attr) + s.gear_armor.get(name, 0)
                             for s in victims), np.int64, n)
    # R-PROT-4 on a spell: dam - dam*Lv/1200, truncated; no earlier step makes a hit
    # bigger than the roll (necrotic's bonus at most x1.5), so |roll| * 1.5 * |Lv| under
    # 1,200 takes nothing off any hit, whoever has the skill.
    biggest = abs(record.roll) * 3 // 2 + 1
    liturgy = zeros.astype(bool)
    if n and biggest * int(np.abs(level).max()) >= 1200:
        liturgy = np.fromiter((s.skills.learned.get("liturgy", 0) > 0 for s in victims),
                              bool, n)
    return VictimTable(level, imm, res, vuln, hp, affects, position, maybe_near, saving,
                       berserk, max_hp, armor, liturgy)


class FloodEvents:
    """The Damage events of a flood's plainly struck victims, built when first read
    (`EventLog.push_lazy`): a lake of 10,000 logs 10,000 events nobody may read. Index i
    is victim i's event; the log holds only the stretches of plain victims."""

    def __init__(self, pulse: int, source: str | None, victims: list[Sheet],
                 amounts: list[int], raws: list[int], damage_type: str, cause: str,
                 spell: str | None, critical: bool, saved: list[bool]) -> None:
        self.fields = (pulse, source, victims, amounts, raws, damage_type, cause, spell,
                       critical, saved)
        self._objects: list | None = None

    def objects(self) -> list:
        if self._objects is None:
            pulse, source, victims, amounts, raws, damage_type, cause, spell, critical, \
                saved = self.fields
            n = len(victims)
            fields = zip(repeat(pulse, n), repeat(source, n), [v.creature.id for v in victims],
                         amounts, raws, repeat(damage_type, n), repeat(cause, n),
                         repeat(spell, n), repeat(critical, n), saved, repeat(None, n),
                         strict=True)
            with collector_paused():
                self._objects = list(map(tuple.__new__, repeat(Damage, n), fields))
        return self._objects


def strike_many(world: World, record: CastRecord, victims: list[Sheet],
                cause: str) -> list[Strike]:
    """Strike every creature of `victims` (living, in queue order) with the cast, as
    `magic.strike` does one; returns their Strikes (also appended to the record).

    Victims whose strike is plain (a Damage event and hit points lost, the victim lives
    and stays as it is: not immune, no type rule or effect, nothing R-ACT-1 or `rouse`
    could change) are done in stretches: their Strikes made by one map, their hit points
    written, their events one lazy block. The others take the scalar steps one by one,
    in queue order between the stretches."""
    content = world.content
    n = len(victims)
    damage_type = record.damage_type
    flags = record.flags
    caster = world.sheets.get(record.caster)
    column = column_index(content, damage_type)
    table = _victim_table(world, record, caster, victims, column)
    level, imm, res, vuln, hp = table.level, table.imm, table.res, table.vuln, table.hp
    position = table.position
    # The saves (R-SAVE-10): thresholds in numpy, the rolls in queue order.
    saved = np.zeros(n, dtype=bool)
    if record.definition.save != "none":
        immune, threshold, scale = save_thresholds_many(
            world, record.level, level, table.saving, table.berserk, imm, res, vuln,
            damage_type, flags)
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
        dam = np.where(hp * 2 < table.max_hp, dam + dam // 2, dam)
    dam = np.where(saved, dam // 2, dam)
    raw = dam
    spell_armor = damage_type in content.damage.spell_armor
    armor = np.zeros((4, n), dtype=np.int64)  # only the column this type meets is read
    if column >= 0:
        armor[column] = table.armor
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
    after, immune_hit = protect_many(content, hits, VictimArrays(
        affects=table.affects, liturgy_skill=table.liturgy, modify_level=level, imm=imm,
        res=res, vuln=vuln, armor=armor))
    # R-ACT-1 asks only about victims it could change: asleep, or free and beside the
    # caster or with a mind to remember it; the rest of a lake is skipped at once.
    sleeping = position == _SLEEPING_CODE
    caster_alive = caster is not None and caster.vitals.alive
    maybe = (table.maybe_near.astype(bool) | sleeping) & caster_alive
    has_rule = damage_type in ("fire", "cold", "poison", "acid")
    rolled = record.roll > 0
    if rolled:
        harmed = after > 0
        plain = ~immune_hit & ~maybe & ~(record.has_effects & ~saved) & (
            ~harmed | ((hp > after) & (position == _SETTLED_CODE) & (not has_rule)))
    else:
        plain = np.zeros(n, dtype=bool)
    # Python values once (indexing numpy scalars one by one is slow).
    saved_list, amounts, raws = saved.tolist(), after.tolist(), raw.tolist()
    left = (hp - np.maximum(after, 0)).tolist()
    struck = np.maximum(after, 0).tolist()
    maybe_list, immune_list = maybe.tolist(), immune_hit.tolist()
    events = FloodEvents(world.pulse, record.caster_id, victims, amounts, raws, damage_type,
                         cause, record.spell, record.critical, saved_list)
    results: list[Strike] = []
    strikes, critical = record.strikes, record.critical
    one = _OneStrike(world, record, caster, cause, amounts, raws, left, saved_list,
                     immune_list, maybe_list)
    begin = 0
    for i in [*np.flatnonzero(~plain).tolist(), n]:
        if begin < i:  # a stretch of plain victims
            made = list(map(Strike, [s.entity for s in victims[begin:i]], repeat(cause),
                            struck[begin:i], repeat(critical), saved_list[begin:i]))
            strikes.extend(made)
            results.extend(made)
            for sheet, hp_left in zip(victims[begin:i], left[begin:i], strict=True):
                sheet.vitals.hp = hp_left
            log_lazily(world.events, events, begin, i)
        if i < n:
            results.append(one(i, victims[i]))
        begin = i + 1
    return results


class _OneStrike:
    """One victim of `strike_many` that is not plain, through the scalar steps: its
    event, R-ACT-1, the damage pipeline for a death, `rouse`, the type rules and the
    spell's effects, as `magic.strike` and `damage.finish` do them."""

    def __init__(self, world: World, record: CastRecord, caster: Sheet | None, cause: str,
                 amounts: list[int], raws: list[int], left: list[int], saved: list[bool],
                 immune: list[bool], maybe: list[bool]) -> None:
        self.world, self.record, self.caster, self.cause = world, record, caster, cause
        self.amounts, self.raws, self.left, self.saved = amounts, raws, left, saved
        self.immune, self.maybe = immune, maybe

    def __call__(self, i: int, victim: Sheet) -> Strike:
        world, record, caster, cause = self.world, self.record, self.caster, self.cause
        damage_type, flags, spell = record.damage_type, record.flags, record.spell
        events = world.events
        pulse, source = world.pulse, record.caster_id
        was_saved, maybe = self.saved[i], self.maybe[i]
        result = Strike(victim.entity, cause, 0, record.critical, was_saved)
        record.strikes.append(result)
        if record.roll > 0:
            if self.immune[i]:
                events.append(Immune(pulse, source, victim.id, damage_type))
                if maybe and _engages(caster, victim):
                    engage(world, caster, victim)  # R-ACT-1, as damage.finish
            else:
                amount = self.amounts[i]
                events.append(Damage(pulse, source, victim.id, amount, self.raws[i],
                                     damage_type, cause, spell, record.critical, was_saved))
                if amount <= 0 and maybe and _engages(caster, victim):
                    engage(world, caster, victim)  # R-ACT-1, as damage.finish
                if amount > 0:
                    result.amount = amount
                    vitals = victim.vitals
                    if self.left[i] > 0:  # survives: inflict's only change is the hit points
                        vitals.hp = self.left[i]
                    else:
                        try:
                            inflict(world, Hit(caster, victim, amount, damage_type, flags,
                                               False, cause, spell))
                        except VictimDeath:
                            result.killed = True
                            return result
                    if vitals.position not in _SETTLED or (maybe and _engages(caster,
                                                                             victim)):
                        rouse(world, Hit(caster, victim, amount, damage_type, flags, False,
                                         cause, spell))
        if damage_type in ("fire", "cold", "poison", "acid") and result.amount >= 1:
            type_rules(world, record, victim)
        if record.has_effects and not was_saved and victim.vitals.alive:
            spell_effects(world, record, victim)
        if (not record.roll > 0 and record.definition.offensive and maybe
                and victim.vitals.alive and _engages(caster, victim)):
            engage(world, caster, victim)  # R-ACT-1, as magic.strike
        return result
