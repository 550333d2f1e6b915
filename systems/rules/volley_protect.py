"""Protections for many hits at once (R-PROT-1..7, R-HIT-7..9, R-IMM-3, R-IMM-8).

`protect_many` runs the default protection steps in the seed's order over arrays of
hits, each step with the scalar step's rounding (`affray.systems.rules.protections`):
sanctuary, alignment, temperature, liturgy, immunity (the table and conductor), flat
trim, armor in exact integers. It serves the vectorised combat round and any caller that
strikes many creatures at once (a melee flag per hit picks liturgy's melee or damage
formula): one numpy pass instead of one Python pipeline per hit.

What it cannot do, the caller must keep on the scalar path: a hit whose victim has
on-immune hooks (they may handle the hit), or a world whose protection registry differs
from the defaults (`defaults_in_use`). The tests compare it to `protect` hit for hit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from affray.data.defs import ARMOR_COLUMNS
from affray.systems.rules import immunity
from affray.systems.rules.protections import (
    alignment_cuts,
    armor_cut_float,
    armor_cut_ratio,
    armor_k,
    armor_loss,
    armor_loss_float,
    default_protections,
    exact_armor,
    flat_trim_value,
    liturgy_value,
    quarter_cut,
    sanctuary_value,
)
from affray.systems.rules.tohit import exact_knob

if TYPE_CHECKING:
    from affray.core.world import World
    from affray.data.content_loader import Content

IntArray = np.ndarray

# Affect bits the protections and the round read (one int64 mask per creature).
AFFECT_BITS = {name: 1 << i for i, name in enumerate((
    "sanctuary", "stardust", "dark_shroud", "clan_guard", "resistance", "protection_evil",
    "protection_good", "protection_heat", "protection_cold", "liturgy", "conductor",
    "blind", "stun", "weak_stun", "bat_swarm", "haste", "slow", "paralysis"))}


def bit(name: str) -> int:
    return AFFECT_BITS[name]


def affect_mask(levels: dict[str, int]) -> int:
    """The AFFECT_BITS of a creature's affects."""
    mask = 0
    for name in levels:
        mask |= AFFECT_BITS.get(name, 0)
    return mask




def defaults_in_use(world: World) -> bool:
    """True when the world's protection registry is the engine's default, step for step."""
    return world.rules.protections.items() == default_protections().items()


@dataclass(slots=True)
class HitArrays:
    """Many hits, one entry each. Damage type properties come per hit as booleans and an
    armor column index (-1: the type passes armor); `source_alignment`,
    `source_level` are read only where `has_source`."""

    dam: IntArray
    melee: np.ndarray               # bool: liturgy's melee formula (R-PROT-4)
    has_source: np.ndarray          # bool
    source_alignment: IntArray
    source_level: IntArray          # the attacker's modify level (spell pierce)
    fire: np.ndarray
    cold: np.ndarray
    lightning: np.ndarray
    imm_bits: IntArray              # immunity.hit_bits of (type, flags); 0 for none
    column: IntArray                # index into ARMOR_COLUMNS, -1 none
    spell_armor: np.ndarray         # bool: exotic * spell_factor, pierced by level
    pierce: IntArray                # effective hitroll in 1/10000ths (R-HIT-7)
    armor_use_level: IntArray  # armor use succeeded: victim modify level, else 0


@dataclass(slots=True)
class VictimArrays:
    """Per hit: what the protections read of the victim."""

    affects: IntArray               # AFFECT_BITS
    liturgy_skill: np.ndarray       # bool: learned liturgy above 0
    modify_level: IntArray
    imm: IntArray
    res: IntArray
    vuln: IntArray
    # shape (4, n): bash, pierce, slash, exotic (with gear); None only for
    # `protect_many(..., armor=False)`, which never reads it
    armor: IntArray | None


def resolve_many(mask: IntArray, imm: IntArray, res: IntArray, vuln: IntArray,
                 dam: IntArray) -> IntArray:
    """R-IMM-3 / R-IMM-4 and `immunity.apply` for arrays: immune -> 0; resistant (not
    also vulnerable) -> dam - dam/3; vulnerable (not also resistant) -> dam + dam/2."""
    immune = (mask & imm) != 0
    resistant = (mask & res) != 0
    vulnerable = (mask & vuln) != 0
    # immunity.apply's formulas themselves, on the arrays (R-IMM-3)
    out = np.where(resistant & ~vulnerable, immunity.apply(immunity.RESISTANT, dam), dam)
    out = np.where(vulnerable & ~resistant, immunity.apply(immunity.VULNERABLE, dam), out)
    return np.where(immune, immunity.apply(immunity.IMMUNE, dam), out)


def protect_many(content: Content, hits: HitArrays, victims: VictimArrays,
                 armor: bool = True) -> tuple[IntArray, np.ndarray]:
    """R-PROT-1..7 in order on every hit; returns (damage, immune). `immune` is the
    immunity step's flag: it took a positive hit to 0. `armor=False` stops before R-PROT-7
    (the caller cuts armor itself, `armor_cut`, on the hits it still needs)."""
    dam = hits.dam.astype(np.int64, copy=True)
    aff = victims.affects
    present = int(np.bitwise_or.reduce(aff)) if len(aff) else 0  # skip steps nobody has
    has = lambda name: (aff & AFFECT_BITS[name]) != 0  # noqa: E731
    # R-PROT-1: sanctuary/stardust /2; else dark shroud *6/10 (/2 clan guard); else
    # resistance - dam*2/5.
    if present & (bit("sanctuary") | bit("stardust") | bit("dark_shroud") | bit("resistance")):
        # (a flag nobody has is passed as False: its branch is skipped)
        dam = sanctuary_value(
            dam, has("sanctuary") | has("stardust"),
            has("dark_shroud") if present & bit("dark_shroud") else False,
            has("clan_guard") if present & bit("clan_guard") else False,
            has("resistance") if present & bit("resistance") else False)
    # R-PROT-2: protection from evil / good against an evil / good attacker: - dam/4.
    if present & (bit("protection_evil") | bit("protection_good")):
        cut = hits.has_source & alignment_cuts(hits.source_alignment, has("protection_evil"),
                                               has("protection_good"))
        dam = np.where(cut, quarter_cut(dam), dam)
    # R-PROT-3: protection from heat / cold: - dam/4.
    if present & (bit("protection_heat") | bit("protection_cold")):
        cut = (hits.fire & has("protection_heat")) | (hits.cold & has("protection_cold"))
        dam = np.where(cut, quarter_cut(dam), dam)
    # R-PROT-4: liturgy: melee - dam*(3 + Lv/10)/100, else - dam*Lv/1200.
    liturgy = (has("liturgy") | victims.liturgy_skill if present & bit("liturgy")
               else victims.liturgy_skill)
    if liturgy.any():
        dam = np.where(liturgy, liturgy_value(dam, victims.modify_level, hits.melee), dam)
    # R-PROT-5: the immunity table (R-IMM-3), then conductor - dam/4 (R-IMM-8); only a
    # hit whose bits meet the victim's imm, res or vuln is changed by the table.
    before = dam
    meets = (hits.imm_bits & (victims.imm | victims.res | victims.vuln)) != 0
    changed = False
    if meets.any():
        dam = np.where(meets, resolve_many(hits.imm_bits, victims.imm, victims.res,
                                           victims.vuln, dam), dam)
        changed = True
    if present & bit("conductor"):
        dam = np.where(hits.lightning & has("conductor"), quarter_cut(dam), dam)
        changed = True
    immune = (before > 0) & (dam == 0) if changed else np.zeros(len(dam), dtype=bool)
    # R-PROT-6: above 10, *4/5.
    dam = flat_trim_value(dam)
    # R-PROT-7: armor (armor model only).
    if armor and content.fight.model == "armor":
        dam = armor_many(content, hits, victims, dam)
    return dam, immune


def armor_many(content: Content, hits: HitArrays, victims: VictimArrays,
               dam: IntArray) -> IntArray:
    """R-PROT-7 / R-HIT-7..9 for `protect_many`'s hits (`armor_cut`)."""
    points: IntArray | None = None
    if (hits.column >= 0).any():
        assert victims.armor is not None
        column = np.where(hits.column >= 0, hits.column, 0)
        points = victims.armor[column, np.arange(len(dam))]
    return armor_cut(content, dam, hits.column, points, hits.armor_use_level,
                     hits.spell_armor, hits.has_source, hits.source_level, hits.pierce,
                     victims.modify_level)


def armor_cut(content: Content, dam: IntArray, column: IntArray, points: IntArray | None,
              armor_use_level: IntArray, spell: np.ndarray, has_source: np.ndarray,
              source_level: IntArray, pierce: IntArray, victim_level: IntArray
              ) -> IntArray:
    """R-PROT-7 / R-HIT-7..9 exactly as `protections.armor` and `cut_fraction`: the
    victim loses floor(dam * cut) with cut = a^n / (a^n + k^n) capped, from the same
    rationals (unreduced numerators and denominators: the same quotient, so the same
    floor). Products that could pass 2^62 are done in Python integers. Per hit (the
    fields of HitArrays and VictimArrays): `points`, the victim's armor in the hit's
    column (unused where the column is -1: the type passes armor). The cut is at most
    99% (R-HIT-9), so a hit above 0 stays above 0."""
    exact = exact_armor(content.fight.armor)
    use = (dam > 0) & (column >= 0)
    if not use.any():
        return dam
    assert points is not None
    n = len(dam)
    # armor + bonus, bonus = armor_use_bonus * victim modify level: an / ad
    bonus = exact_knob_fraction(content.fight.armor.armor_use_bonus)
    an = points * bonus[1] + bonus[0] * armor_use_level
    ad = np.full(n, bonus[1], dtype=np.int64)
    use &= an > 0  # R-HIT-9: no armor, no reduction (checked before the spell factor)
    sf = exact.spell_factor
    an = np.where(spell, an * sf.numerator, an)
    ad = np.where(spell, ad * sf.denominator, ad)
    # pierce pn / pd: effective hitroll / 10000, or source level * spell_pierce_level
    spl = exact.spell_pierce_level
    pn = np.where(spell, np.where(has_source, source_level * spl.numerator, 0), pierce)
    pd = np.where(spell, spl.denominator, 10000)
    kn, kd = armor_k(victim_level, pn, pd, exact.whole)
    cap = exact.cap
    out = dam.copy()
    rows = np.flatnonzero(use)
    if exact.power is None:
        for i in rows.tolist():  # the one inexact case: float, one hit at a time
            cut = armor_cut_float(int(an[i]) * int(kd[i]), int(kn[i]) * int(ad[i]),
                                  int(kn[i]), exact.dr_pow, cap)
            out[i] = (armor_loss(int(dam[i]), cut[0], cut[1]) if isinstance(cut, tuple)
                      else armor_loss_float(int(dam[i]), cut))
        return out
    power = exact.power
    a = an[rows] * kd[rows]
    k = kn[rows] * ad[rows]
    big = float(max(np.abs(a).max(initial=0), np.abs(k).max(initial=0)))
    safe = big ** power * 2 * max(cap.denominator, float(dam.max(initial=1))) < 2.0 ** 62
    if not safe:
        a, k = a.astype(object), k.astype(object)
    num, den = armor_cut_ratio(a, k, kn[rows], power, cap.numerator, cap.denominator)
    d = dam[rows].astype(object) if not safe else dam[rows]
    out[rows] = armor_loss(d, num, den).astype(np.int64)
    return out


def exact_knob_fraction(value: float) -> tuple[int, int]:
    """A decimal knob as (numerator, denominator), as `tohit.exact_knob`."""
    fraction = exact_knob(value)
    return fraction.numerator, fraction.denominator


def column_index(content: Content, damage_type: str) -> int:
    """The armor column a damage type meets (R-HIT-7), -1 when it passes armor."""
    column = content.damage.armor_column.get(damage_type)
    return -1 if column is None else ARMOR_COLUMNS.index(column)


def type_bits(content: Content, damage_type: str, flags: int) -> int:
    """immunity.hit_bits as an int (0 for a type with none)."""
    return immunity.hit_bits(content, damage_type, flags) or 0
