"""One definition of each rule (issue 12): every formula the scalar blow and the vectorised
round share gives, for Python numbers and for numpy arrays, the same values element for
element (floats bit for bit), with the scalar results plain Python numbers; worked
examples (odd numbers and negatives, C++ truncation) pin the values themselves.

The formulas live in the rule modules (affray.core.arith, tohit, blow, skills, defence,
protections); both pipelines call them (tests/test_volley.py checks the two pipelines'
logs against each other with pinned draws).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from affray.core.arith import any_of, clamp, interpolate, maximum, minimum, select, tdiv, truncate
from affray.data.content_loader import default_content
from affray.systems.rules import blow, defence, immunity, protections, skills, tohit
from affray.systems.rules.tohit import FIGHTING, POSITION_RANK, RESTING, SLEEPING

SIGNED = [-101, -37, -20, -11, -10, -7, -3, -2, -1, 0, 1, 2, 3, 7, 10, 11, 19, 37, 99, 101]
RANKS = sorted(set(POSITION_RANK.values()))
BOOLS = [False, True]


def grid(*values: list[Any]) -> list[list[Any]]:
    """The columns of the cartesian product of the value lists."""
    return [list(column) for column in zip(*itertools.product(*values), strict=True)]


def plain(value: Any) -> bool:
    """A Python number (what the scalar pipeline logs), not a numpy one."""
    return type(value) in (int, float, bool)


def agree(formula: Any, *columns: list[Any]) -> list[Any]:
    """`formula` on each row of Python values and once on the columns as arrays: the
    same results element for element (floats bit for bit). Returns the scalar results
    (tuples for a formula that returns several values)."""
    rows = list(zip(*columns, strict=True))
    scalars = [formula(*row) for row in rows]
    arrays = formula(*(np.asarray(column) for column in columns))
    several = isinstance(scalars[0], tuple)
    parts = list(zip(*scalars, strict=True)) if several else [scalars]
    array_parts = arrays if several else (arrays,)
    for part, array in zip(parts, array_parts, strict=True):
        assert all(plain(value) for value in part), part
        array = np.broadcast_to(np.asarray(array), (len(rows),))
        if any(type(value) is float for value in part):
            assert np.asarray(part, dtype=np.float64).tobytes() == \
                array.astype(np.float64).tobytes()
        else:
            assert [int(value) for value in part] == array.astype(np.int64).tolist()
    return scalars


def c_div(numerator: int, denominator: int) -> int:
    """C++ `/`, from the exact quotient."""
    return math.trunc(Fraction(numerator, denominator))


# -- arith ---------------------------------------------------------------------------------
def test_tdiv_truncates_ints_and_arrays_alike_r_prot_9() -> None:
    """R-PROT-9 (the SPEC's C++ truncation): tdiv(-7, 2) == -3 on ints and arrays, for
    every fast path of the array form (no negatives: floor or a shift; below 2**53: a
    truncated float quotient; beyond: exact integer division), and by an array of
    denominators."""
    assert tdiv(-7, 2) == -3 and tdiv(7, -2) == -3 and tdiv(-7, -2) == 3
    for denominator in (1, 2, 3, 4, 5, 7, 10, 20, 32, 100, 1200):
        numerators, denominators = grid([*SIGNED, 2 ** 52 + 1, -(2 ** 52) - 3], [denominator])
        assert agree(tdiv, numerators, denominators) == [
            c_div(n, denominator) for n in numerators]
        positive = [n for n in numerators if n >= 0]
        assert tdiv(np.array(positive), denominator).tolist() == [
            c_div(n, denominator) for n in positive]
    huge = np.array([-(2 ** 62) + 7, 2 ** 62 - 5, -3, 5], dtype=np.int64)
    assert tdiv(huge, 7).tolist() == [c_div(int(n), 7) for n in huge]
    assert tdiv(np.array([-7, 7, -9]), np.array([2, 3, 4])).tolist() == [-3, 2, -2]
    assert tdiv(np.zeros(0, dtype=np.int64), 3).tolist() == []


def test_select_maximum_minimum_clamp_truncate_interpolate_on_ints_and_arrays() -> None:
    """The primitives the formulas are written with: the scalar choice and numpy's
    element-wise one agree (maximum and minimum as the builtins choose); interpolate is
    the source's, truncated (R-HIT-1, R-HIT-2: interpolate(15, 20, -4) == 9)."""
    a, b = grid(SIGNED, [-3, 0, 5])
    assert agree(maximum, a, b) == [max(y, x) for x, y in zip(a, b, strict=True)]
    assert agree(minimum, a, b) == [min(y, x) for x, y in zip(a, b, strict=True)]
    assert agree(lambda x, y: select(x > y, x - y, y * 2), a, b) == [
        x - y if x > y else y * 2 for x, y in zip(a, b, strict=True)]
    assert agree(lambda x: clamp(x, -10, 20), SIGNED) == [
        max(-10, min(20, x)) for x in SIGNED]
    floats = [-7.9, -7.5, -0.4, 0.0, 0.6, 6.66, 7.99]
    assert agree(truncate, floats) == [-7, -7, 0, 0, 0, 6, 7]
    levels, low, high = grid([-5, 0, 1, 15, 31, 32, 51], [20, 18], [-4, 2, 20])
    assert agree(interpolate, levels, low, high) == [
        v0 + c_div(lv * (v32 - v0), 32) for lv, v0, v32 in zip(levels, low, high, strict=True)]
    assert interpolate(15, 20, -4) == 9
    assert any_of(np.array([False, True])) and not any_of(np.array([False]))
    assert any_of(True) and not any_of(0)


# -- to-hit --------------------------------------------------------------------------------
def test_armor_model_formulas_agree_r_hit_2_r_hit_3_r_stat_2() -> None:
    """R-HIT-2 (class base, hitroll, accuracy), R-HIT-3 (evasion base and its halving and
    blindness), R-STAT-2 (Sluggish's factor): one definition for both paths."""
    levels, thac00, thac32 = grid([-3, 0, 1, 15, 20, 33, 60], [20, 18], [-4, 2, 10])
    bases = agree(tohit.class_base_value, levels, thac00, thac32)
    assert tohit.class_base_value(15, 20, -4) == 11 and tohit.class_base_value(60, 20, -4) == 45
    assert tohit.class_base_value(60, 20, 40) == 1  # 20 - 57, at least 1
    assert min(bases) == 1
    hitroll, skill, str_hit = grid([-5, 0, 7, 20], [20, 85, 120], [-2, 0, 3])
    pierces = agree(tohit.hitroll_product, hitroll, skill, str_hit)
    assert tohit.hitroll_product(20, 105, 1) == 212100
    knobs = default_content().fight.armor
    accuracy = agree(lambda base, pierce: tohit.accuracy_value(knobs.base_w, base, pierce),
                     [bases[i % len(bases)] for i in range(len(pierces))], pierces)
    assert accuracy[0] == knobs.base_w * bases[0] + pierces[0] / 10000
    level, dex = grid([0, 1, 15, 37, 99, 100, 151], [-4, -1, 0, 2, 5])
    evasion = agree(lambda lv, d: tohit.evasion_base(lv, d, knobs.ev_level, knobs.ev_dex),
                    level, dex)
    assert evasion[level.index(151)] == knobs.ev_level * 151 + knobs.ev_dex * 4 * 1.0
    degrees = [0, 1, 3, 9, 20]
    status = default_content().statuses["sluggish"]
    factors = agree(lambda d: tohit.sluggish_factor(d, status.evasion_floor,
                                                    status.evasion_per_degree), degrees)
    assert factors[0] == 1.0
    assert factors[1] == max(status.evasion_floor, 1.0 - status.evasion_per_degree)
    value, halve, blind, factor = grid([0.0, 3.7, 41.25], BOOLS, BOOLS, [1.0, 0.7])
    adjusted = agree(lambda v, h, b, f: tohit.evasion_adjusted(v, h, b, 0.6, f),
                     value, halve, blind, factor)
    assert tohit.evasion_adjusted(41.25, True, True, 0.6, 0.7) == 41.25 / 2.0 * 0.6 * 0.7
    assert adjusted[value.index(3.7)] == 3.7


@pytest.mark.parametrize("hit_pow", [2.0, 1.5])
def test_hit_chance_agrees_at_the_clamps_r_hit_4(hit_pow: float) -> None:
    """R-HIT-4: acc^p / (acc^p + ev^p) clamped to p_floor..p_cap; no accuracy 0 (then
    the floor), accuracy against no evasion 1 (then the cap); floats bit for bit."""
    acc, ev = grid([-3.0, 0.0, 0.5, 6.2, 30.0, 1e6], [-1.0, 0.0, 0.25, 6.2, 44.0])
    chances = agree(lambda x, e: tohit.hit_chance_value(x, e, hit_pow, 0.05, 0.95), acc, ev)
    for x, e, chance in zip(acc, ev, chances, strict=True):
        exact = 0.0 if x <= 0 else 1.0 if e <= 0 else x ** hit_pow / (x ** hit_pow + e ** hit_pow)
        assert chance == min(0.95, max(0.05, exact))
    # only in-range values: the array form's other branch
    assert agree(lambda x, e: tohit.hit_chance_value(x, e, hit_pow, 0.05, 0.95),
                 [6.2, 30.0], [6.2, 0.25]) == [0.5, 0.95]


def test_d20_faces_and_middle_threshold_r_hit_5() -> None:
    """R-HIT-5: one automatic miss and one critical face by default: faces 1..18 are the
    middle, hitting below (P - 1/20) / (18/20). (And the stat tables' index, 0..28.)"""
    assert tohit.d20_faces(1, 1) == (1, 19, 0.05, 0.9)
    assert tohit.d20_faces(0, 0) == (0, 20, 0.0, 1.0)
    stats = [-3, 0, 1, 18, 28, 29, 40]
    assert agree(tohit.stat_index, stats) == [0, 0, 1, 18, 28, 28, 28]
    chances = [0.05, 0.3, 0.5, 0.95]
    assert agree(lambda p: tohit.middle_threshold(p, 0.05, 0.9), chances) == [
        (p - 0.05) / 0.9 for p in chances]


def test_legacy_thac0_and_ac_formulas_agree_r_hit_1_r_hit_10() -> None:
    """R-HIT-1 / R-HIT-10: thac0 (interpolated, halved below 0, compressed below -5,
    hitroll and skill terms) and AC (/10, the dex defensive value while awake, compressed
    below -20, armor use, blindness, position and movement) on ints and arrays."""
    levels, thac00, thac32 = grid([0, 7, 20, 33, 51, 90], [20, 6], [-30, -4, 2])
    base = agree(tohit.legacy_thac0_base, levels, thac00, thac32)
    assert tohit.legacy_thac0_base(90, 20, -30) == -5 + c_div(c_div(20 + c_div(-4500, 32), 2)
                                                              + 5, 2)
    assert min(base) < -5
    thac0, hitroll, level, str_hit, skill = grid([-7, 0, 13], [-9, 0, 25], [1, 15, 50],
                                                 [-2, 0, 4], [20, 63, 120])
    values = agree(tohit.legacy_thac0_value, thac0, hitroll, level, str_hit, skill)
    hr = -9 - 7
    hr += c_div(hr * 4, 100)
    assert tohit.legacy_thac0_value(13, -9, 15, 4, 63) == (13 - c_div(hr * 63, 100)
                                                            + c_div(5 * 37, 100))
    assert len(set(values)) > 50
    armor, dex, awake = grid([-40, 0, 37, 150, 260, 501], [-4, 0, 3], BOOLS)
    acs = agree(tohit.legacy_ac_value, armor, dex, awake)
    assert tohit.legacy_ac_value(37, -4, True) == -4  # (-37 - 4) / 10 truncates
    assert tohit.legacy_ac_value(501, 0, False) == c_div((-50 + 20) * 2, 3) - 20
    assert min(acs) < -20 or min(acs) == c_div((-50 + 20) * 2, 3) - 20
    ac, use_level, blind, rank, move = grid([-31, -3, 0, 7], [0, 15, 31], BOOLS, RANKS,
                                            [-2, 0, 5])
    adjusted = agree(tohit.legacy_ac_adjusted, ac, use_level, blind, rank, move)
    assert tohit.legacy_ac_adjusted(7, 31, True, SLEEPING, 0) == 7 - 15 - 4 + 4 + 6 + 10
    assert tohit.legacy_ac_adjusted(7, 0, False, FIGHTING, 5) == 7
    assert tohit.legacy_ac_adjusted(7, 0, False, RESTING, 5) == 11
    assert len(adjusted) == len(ac)
    face, hobbit, thac0, ac = grid([0, 1, 9, 18, 19], BOOLS, [-3, 12, 25], [-6, 0, 4])
    hits = agree(tohit.legacy_hits, face, hobbit, thac0, ac)
    for f, h, t, a, hit in zip(face, hobbit, thac0, ac, hits, strict=True):
        assert hit == (h if f == 0 else True if f == 19 else f >= t - a)


# -- damage --------------------------------------------------------------------------------
def test_damage_formulas_agree_with_worked_examples_r_melee_3_r_hit_5() -> None:
    """R-MELEE-3 (dice x skill, bare hands, x21/20, sharp, holy, class, damroll,
    strength, at least 1), R-HIT-5 (the critical multiplier), movement cost: ints and arrays agree,
    negatives truncated toward zero."""
    rolled, skill = grid(SIGNED, [20, 63, 85, 100, 120])
    assert agree(blow.weapon_damage, rolled, skill)[:2] == [c_div(-101 * 20, 100),
                                                            c_div(-101 * 63, 100)]
    assert blow.weapon_damage(-37, 85) == -31 and blow.weapon_damage(37, 85) == 31
    level, skill2 = grid([1, 2, 15, 37, 50], [20, 77, 120])
    ranges = agree(blow.bare_hand_range, level, skill2)
    assert blow.bare_hand_range(37, 77) == (1 + c_div(308, 100), c_div(24 * 77, 100))
    assert len(ranges) == len(level)
    assert agree(blow.unshielded_damage, SIGNED) == [c_div(d * 21, 20) for d in SIGNED]
    assert blow.unshielded_damage(37) == 38 and blow.unshielded_damage(-37) == -38
    roll, skill3 = grid([1, 5, 10, 11, 15, 16], [20, 85, 120])
    assert agree(blow.sharp_succeeds, roll, skill3) == [
        r <= c_div(s, 8) for r, s in zip(roll, skill3, strict=True)]
    dam, roll2 = grid(SIGNED, [1, 7, 15])
    assert agree(blow.sharp_damage, dam, roll2) == [
        2 * d + c_div(d * 2 * r, 100) for d, r in zip(dam, roll2, strict=True)]
    assert blow.sharp_damage(-37, 15) == -74 - 11
    assert agree(blow.holy_damage, SIGNED) == [d + c_div(d * 120, 100) for d in SIGNED]
    dam, roll3, divisor = grid(SIGNED, [1, 50, 100], [100, 110, 130])
    assert agree(blow.class_bonus, dam, roll3, divisor) == [
        d + c_div(d * r, v) for d, r, v in zip(dam, roll3, divisor, strict=True)]
    damroll, skill4 = grid([-7, 0, 8, 13], [20, 99, 100, 101, 120])
    assert agree(blow.damroll_term, damroll, skill4) == [
        c_div(d * min(100, s), 100) for d, s in zip(damroll, skill4, strict=True)]
    assert blow.damroll_term(-7, 120) == -7 and blow.damroll_term(13, 63) == 8
    dam, str_damage = grid(SIGNED, [-1, 0, 2, 6])
    assert agree(blow.strength_bonus, dam, str_damage) == [
        d + c_div(d * s, 100) for d, s in zip(dam, str_damage, strict=True)]
    dam, numerator, denominator = grid(SIGNED, [3, 7], [2, 4])
    assert agree(blow.critical_damage, dam, numerator, denominator) == [
        c_div(d * n, m) for d, n, m in zip(dam, numerator, denominator, strict=True)]
    assert blow.critical_damage(37, 3, 2) == 55 and blow.critical_damage(-37, 3, 2) == -55
    assert agree(blow.normalised, SIGNED) == [max(1, d) for d in SIGNED]
    levels = [1, 19, 20, 21, 39, 40, 60]
    assert agree(blow.movement_cost, levels) == [1, 1, 1, 1, 1, 2, 3]


def test_position_multiplier_and_hand_dice_agree_r_melee_4_r_melee_3() -> None:
    """R-MELEE-4: asleep or worse x2, resting or sitting x3/2 truncated, else the same;
    R-MELEE-3: an NPC's hand dice when it has no weapon dice or they are better."""
    rank, dam = grid(RANKS, SIGNED)
    values = agree(blow.position_multiplier_value, rank, dam)
    for r, d, value in zip(rank, dam, values, strict=True):
        assert value == (d * 2 if r <= SLEEPING else c_div(d * 3, 2) if r < FIGHTING else d)
    assert blow.position_multiplier_value(RESTING, -37) == -55
    npc, has_dice, hand_x2, weapon_x2 = grid(BOOLS, BOOLS, [9, 22], [0, 9, 22, 30])
    chosen = agree(blow.prefers_hand_dice, npc, has_dice, hand_x2, weapon_x2)
    for n, w, h, x, use in zip(npc, has_dice, hand_x2, weapon_x2, chosen, strict=True):
        assert bool(use) == (n and (not w or h > x))


# -- skills and defences ---------------------------------------------------------------------
def test_effective_and_npc_weapon_skill_agree_r_lag_3() -> None:
    """R-LAG-3: daze cuts a skill to two thirds (a spell's to half), clamped 0..100, a
    skill never learned stays 0; an NPC's untaught weapon skill is 100 armed, else
    2 level + 40 capped at 100, cut the same way."""
    learned, dazed = grid([-5, 0, 1, 2, 3, 50, 77, 100, 130], BOOLS)
    values = agree(skills.effective_value, learned, dazed)
    assert values[learned.index(77) + 1] == 51 and values[learned.index(130)] == 100
    assert skills.effective_value(1, True) == 0 and skills.effective_value(-5, False) == 0
    spell = agree(lambda lv, d: skills.effective_value(lv, d, True), learned, dazed)
    assert skills.effective_value(77, True, True) == 38 and len(spell) == len(learned)
    wielding, level, dazed2 = grid(BOOLS, [1, 15, 29, 30, 60], BOOLS)
    npc = agree(skills.npc_weapon_skill, wielding, level, dazed2)
    assert skills.npc_weapon_skill(False, 15, False) == 70
    assert skills.npc_weapon_skill(False, 15, True) == 46
    assert skills.npc_weapon_skill(True, 1, True) == 66 and max(npc) == 100
    # the scalar callers' memos give what the formulas give
    assert skills._effective_value(77, True, False) == skills.effective_value(77, True)


def test_defence_chances_agree_r_def_3_r_def_5_r_def_6_r_def_8() -> None:
    """Each player defence's chance from its effective skill (R-DEF-3: any value; the
    defences refuse 1 or less before), the flail terms, weak stun halving (R-DEF-5),
    blink's half (R-DEF-6) and half level gap (blink, dodge), blindness /1.5 or /4
    (R-DEF-8): ints and arrays agree."""
    effective, fighter = grid([0, 1, 2, 3, 37, 60, 99, 100], BOOLS)
    assert agree(defence.shield_block_chance, effective, fighter)[-2:] == [40, 50]
    assert defence.shield_block_chance(37, False) == 8
    assert agree(defence.blink_chance, effective) == [c_div(e, 2) for e in effective]
    assert agree(defence.cross_block_chance, effective, fighter)[-2:] == [33, 49]
    assert agree(defence.parry_chance, effective, fighter)[-2:] == [50, 60]
    assert agree(defence.hand_block_chance, effective, fighter)[-2:] == [33, 50]
    effective, dexterity, fighter, nimble, anti = grid([2, 37, 99], [3, 20, 25], BOOLS,
                                                       BOOLS, BOOLS)
    dodges = agree(defence.dodge_chance, effective, dexterity, fighter, nimble, anti)
    for e, d, f, n, a, chance in zip(effective, dexterity, fighter, nimble, anti, dodges,
                                     strict=True):
        own = c_div(e, 2) + 2 * (d - 20)
        assert chance == (own + c_div(own, 5) if f else own + c_div(own, 10) if n
                          else own - c_div(own, 10) if a else own)
    assert defence.dodge_chance(2, 3, False, False, True) == -33 - c_div(-33, 10)
    assert agree(defence.flail_block_chance, SIGNED) == [c_div(c, 2) for c in SIGNED]
    assert agree(defence.flail_dodge_chance, SIGNED) == [c_div(c * 6, 5) for c in SIGNED]
    assert agree(defence.weak_stun_chance, SIGNED) == [c_div(c, 2) for c in SIGNED]
    chance, seen = grid(SIGNED, BOOLS)
    assert agree(defence.blind_chance, chance, seen) == [
        int(c / 1.5) if s else c_div(c, 4) for c, s in zip(chance, seen, strict=True)]
    assert defence.blind_chance(-37, True) == -24 and defence.blind_chance(-37, False) == -9
    chance, gap = grid([-5, 0, 30], SIGNED)
    assert agree(defence.with_half_gap, chance, gap) == [
        c + c_div(g, 2) for c, g in zip(chance, gap, strict=True)]
    assert defence.with_half_gap(30, -7) == 27


# -- protections -----------------------------------------------------------------------------
def test_protection_formulas_agree_r_prot_1_to_6_r_imm_3_r_imm_8() -> None:
    """R-PROT-1 (sanctuary over shroud over resistance), R-PROT-2 (the alignment
    condition), R-PROT-2/3 and R-IMM-8 (dam - dam/4), R-PROT-4 (liturgy, melee or not),
    R-PROT-6 (flat trim above 10), R-IMM-3 (immunity.apply's formulas on arrays)."""
    dam, sanct, shroud, guard, resist = grid(SIGNED, BOOLS, BOOLS, BOOLS, BOOLS)
    values = agree(protections.sanctuary_value, dam, sanct, shroud, guard, resist)
    for d, s, h, g, r, value in zip(dam, sanct, shroud, guard, resist, values, strict=True):
        assert value == (c_div(d, 2) if s else (c_div(d, 2) if g else c_div(d * 6, 10)) if h
                         else d - c_div(d * 2, 5) if r else d)
    assert protections.sanctuary_value(37, False, True, False, True) == 22
    align, evil, good = grid([-1000, -334, -333, 0, 333, 334], BOOLS, BOOLS)
    cuts = agree(protections.alignment_cuts, align, evil, good)
    assert cuts == [(a < -333 and e) or (a > 333 and g)
                    for a, e, g in zip(align, evil, good, strict=True)]
    assert agree(protections.quarter_cut, SIGNED) == [d - c_div(d, 4) for d in SIGNED]
    dam, level, melee = grid(SIGNED, [1, 9, 55, 101], BOOLS)
    litany = agree(protections.liturgy_value, dam, level, melee)
    assert protections.liturgy_value(37, 55, True) == 35
    assert protections.liturgy_value(37, 55, False) == 36
    assert protections.liturgy_value(-37, 55, True) == -35 and len(litany) == len(dam)
    assert agree(protections.flat_trim_value, SIGNED) == [
        c_div(d * 4, 5) if d > 10 else d for d in SIGNED]
    assert protections.flat_trim_value(11) == 8 and protections.flat_trim_value(10) == 10
    for outcome in (immunity.IMMUNE, immunity.RESISTANT, immunity.VULNERABLE, immunity.NORMAL):
        assert agree(lambda d, o=outcome: immunity.apply(o, d), SIGNED) == [
            immunity.apply(outcome, d) for d in SIGNED]


def test_armor_cut_formulas_agree_r_hit_8_r_hit_9_r_prot_7() -> None:
    """R-HIT-8 (k = dr_level Lv + dr_pierce pierce), R-HIT-9 (a^n / (a^n + k^n), at most
    the cap, the cap for k of 0 or less), R-PROT-7 (the victim loses floor(dam x cut)):
    ints and arrays agree; 37 at 150/382 loses 14."""
    whole = (1, 1, 1, 1, 99, 100)  # dr_level 1, dr_pierce 1, cap 99%
    level, pierce_num, pierce_den = grid([-60, 0, 15, 50], [-82, 0, 3, 82], [1, 2, 10000])
    ks = agree(lambda lv, pn, pd: protections.armor_k(lv, pn, pd, whole), level,
               pierce_num, pierce_den)
    assert protections.armor_k(50, 82, 1, whole) == (132, 1)
    assert protections.armor_k(50, 82, 1, (3, 2, 1, 4, 99, 100)) == (3 * 50 * 4 + 82 * 2, 8)
    a, k, power = grid([0, 1, 30, 150, 10 ** 6], [0, 1, 20, 232, 382], [1, 2, 3])
    kn = [x - 1 for x in k]  # some k of 0 or less: the cap
    for p in (1, 2, 3):
        rows = [i for i, q in enumerate(power) if q == p]
        cut = agree(lambda x, y, z, q=p: protections.armor_cut_ratio(x, y, z, q, 99, 100),
                    [a[i] for i in rows], [k[i] for i in rows], [kn[i] for i in rows])
        assert all(Fraction(n, d) <= Fraction(99, 100) for n, d in cut)
    assert protections.armor_cut_ratio(150, 232, 232, 1, 99, 100) == (150, 382)
    assert protections.armor_cut_ratio(150, 232, 0, 1, 99, 100) == (99, 100)
    dam, num, den = grid([1, 11, 20, 37, 1000], [0, 1, 150, 99], [382, 100, 10])
    losses = agree(protections.armor_loss, dam, num, den)
    assert protections.armor_loss(37, 150, 382) == 23
    assert protections.armor_loss(20, 1, 10) == 18 and len(losses) == len(dam)
    assert protections.armor_cut_float(150, 232, 232, 1.5, Fraction(3, 4)) == pytest.approx(
        (150 / 232) ** 1.5 / (1 + (150 / 232) ** 1.5))
    assert protections.armor_cut_float(150, 232, 0, 1.5, Fraction(3, 4)) == (3, 4)
    assert protections.armor_loss_float(37, 0.4) == 37 - 14
    assert protections.armor_loss_float(37, 0.0) == 37
    assert len(ks) == len(level)


def test_the_scalar_memos_keep_a_modifiers_float_damage_a_float_r_prot_1_r_prot_6() -> None:
    """R-PROT-1, R-PROT-6: the blow's steps call memos of the formulas for whole-number
    damage; a game's modifier may leave a float, which must not share their entries
    (37.0 == 37): each keeps its own type and value, in either order."""
    from types import SimpleNamespace

    victim = SimpleNamespace(affects=SimpleNamespace(levels={"sanctuary": 1}))
    for first, second in ((37, 37.0), (41.0, 41)):
        results = []
        for dam in (first, second):
            hit = SimpleNamespace(dam=dam, victim=victim)
            protections.flat_trim(hit, None)  # type: ignore[arg-type]
            trimmed = hit.dam
            protections.sanctuary(hit, None)  # type: ignore[arg-type]
            results.append((trimmed, hit.dam))
        for (trimmed, halved), dam in zip(results, (first, second), strict=True):
            assert type(trimmed) is type(dam) and type(halved) is type(dam)
            assert trimmed == dam * 4 // 5 and halved == trimmed // 2


def test_attack_skill_chance_agrees_r_stun_6() -> None:
    """R-STUN-6: an attack skill's chance, effective / divisor, halved (truncated) under
    weak stun for a marked skill, x3/4 when slowed: one formula for melee.extra_attack and
    the vectorised round's blow steps."""
    from affray.systems.rules.stun import attack_chance_value

    effective, divisor, weak, slowed = grid([0, 1, 7, 51, 99, 100], [1, 2, 3], BOOLS, BOOLS)
    agree(attack_chance_value, effective, divisor, weak, slowed)
    assert attack_chance_value(51, 1, False, False) == 51
    assert attack_chance_value(51, 1, True, False) == 25     # 51/2 truncated
    assert attack_chance_value(51, 1, False, True) == 38     # 153/4 truncated
    assert attack_chance_value(51, 1, True, True) == 18      # 25 * 3/4 truncated
    assert attack_chance_value(99, 2, True, True) == 18      # 49, 24, 72/4


def test_regained_movement_agrees() -> None:
    """Movement regeneration (blow.refresh_move and the vectorised round's refresh_moves):
    a player max(player_min, level) a tick, an NPC its level, capped; no tick or at the
    cap, unchanged."""
    move, ticks, level, player = grid([0, 37, 99, 100, 101], [0, 1, 3], [1, 4, 5, 31],
                                      BOOLS)
    agree(lambda *row: blow.regained_move(*row, 5, 100), move, ticks, level, player)
    assert blow.regained_move(37, 3, 4, True, 5, 100) == 52    # 3 x max(5, 4)
    assert blow.regained_move(37, 3, 4, False, 5, 100) == 49   # an NPC: its level
    assert blow.regained_move(90, 3, 31, False, 5, 100) == 100  # capped
    assert blow.regained_move(101, 3, 31, False, 5, 100) == 101  # above the cap: kept
    assert blow.regained_move(37, 0, 31, True, 5, 100) == 37    # no tick
