"""systems/rules/protections.py after the one-definition rewrite (issue 12): the corners
the mutation pass found untested. The sanctuary and flat-trim steps' memos take whole
numbers only (a game's Fraction and float damage each get the formula's own answer,
type included), and a fractional dr_pow's k of exactly 1 divides like any other k (only
0 or less gives the cap) (R-PROT-1, R-PROT-6, R-PROT-9, R-HIT-8, R-HIT-9).
"""

from __future__ import annotations

from fractions import Fraction
from types import SimpleNamespace

import msgspec
import pytest
from conftest import make_hit

from affray.systems.rules import protections
from affray.systems.rules.protections import armor, armor_cut_float, armor_reduction


def step_on(step, dam, affects=()):
    """`step` on a hit of `dam` against a victim with `affects`: what it leaves."""
    victim = SimpleNamespace(affects=SimpleNamespace(levels=dict.fromkeys(affects, 0)))
    hit = SimpleNamespace(dam=dam, victim=victim)
    step(hit, None)
    return hit.dam


# A Fraction and a float of the same value are one memo key (Fraction(37) == 37.0, one
# hash): a step that memoised either would answer the second with the first's type.
PAIRS = [(Fraction(37), 37.0), (-37.0, Fraction(-37)), (Fraction(41), 41.0),
         (-41.0, Fraction(-41))]


@pytest.mark.parametrize(("affects", "values"), [
    (("sanctuary",), {37: 18, -37: -18, 41: 20, -41: -20}),         # dam/2, truncated
    (("dark_shroud",), {37: 22, -37: -22, 41: 24, -41: -24}),       # dam*6/10
    (("dark_shroud", "clan_guard"), {37: 18, -37: -18, 41: 20, -41: -20}),
    (("resistance",), {37: 23, -37: -23, 41: 25, -41: -25}),        # dam - dam*2/5
])
def test_r_prot_1_sanctuary_gives_a_fraction_and_a_float_each_the_formulas_answer(
        affects, values):
    """R-PROT-1 / R-PROT-9: sanctuary dam/2, a dark shroud dam*6/10 (a clan guard
    dam/2), the resistance spell dam - dam*2/5, truncated toward zero (-37 -> -18, not
    -19). The step memoises whole-number damage only: a Fraction after a float of the
    same value (or the other way round) gets what sanctuary_value itself gives it, in
    its own type (a float stays a float)."""
    flags = ("sanctuary" in affects, "dark_shroud" in affects, "clan_guard" in affects,
             "resistance" in affects)
    for pair in PAIRS:
        for dam in pair:
            left = step_on(protections.sanctuary, dam, affects)
            expected = protections.sanctuary_value(dam, *flags)
            assert left == values[int(dam)]
            assert (left, type(left)) == (expected, type(expected)), (affects, dam)
            if type(dam) is float:
                assert type(left) is float


@pytest.mark.parametrize("pair", PAIRS)
def test_r_prot_6_flat_trim_gives_a_fraction_and_a_float_each_the_formulas_answer(pair):
    """R-PROT-6 / R-PROT-9: above 10, dam*4/5 truncated (37 -> 29, 41 -> 32); 10 or less
    stays (-37 stays -37). The step memoises whole-number damage only: a Fraction and a
    float of one value each get flat_trim_value's own answer, type included, in either
    order (a float 37.0 trims to the float 29.0)."""
    for dam in pair:
        left = step_on(protections.flat_trim, dam)
        expected = protections.flat_trim_value(dam)
        assert left == {37: 29, 41: 32, -37: -37, -41: -41}[int(dam)]
        assert (left, type(left)) == (expected, type(expected)), dam
        if type(dam) is float:
            assert type(left) is float


def test_r_hit_8_a_fractional_power_divides_by_a_k_of_exactly_1():
    """R-HIT-8 / R-HIT-9 with dr_pow 1.5 (the float case): k = 1 is a k like any other,
    only k of 0 or less gives the cap (3/4 here). armor 1 at k 1: x = 1, a half (not
    the cap 0.75); armor 2 at k 1: x = 2^1.5, 0.7388 (below the cap)."""
    cap = Fraction(3, 4)
    assert armor_cut_float(1, 1, 1, 1.5, cap) == 0.5
    x = 2.0 ** 1.5
    assert armor_cut_float(2, 1, 1, 1.5, cap) == x / (1.0 + x)
    assert armor_cut_float(2, 1, 1, 1.5, cap) == pytest.approx(0.7387961250362586)
    assert armor_cut_float(1, 0, 0, 1.5, cap) == (3, 4)
    assert armor_cut_float(1, -3, -1, 1.5, cap) == (3, 4)


def test_r_hit_8_a_fractional_power_at_k_1_in_the_armor_step(duel):
    """R-HIT-8 / R-PROT-7 with dr_pow 1.5 (dr_level 3, dr_pierce 1, dr_cap 75), end to
    end: a level 0 victim with 1 bash armor, pierced by 1: k = 1, x = 1, a half: 37
    loses floor(18.5) = 18 -> 19 (the cap would take 27 -> 10); pierced by 1/2 (the
    armor as 2 over k 1): x = 2^1.5, 0.7388: 99 loses 73 -> 26 (the cap: 74 -> 25)."""
    extra = "[content.fight.armor]\ndr_pow = 1.5\n"
    world = duel(victim="armor = { bash = 1 }\nlevel = 0\nhp = 1000", extra=extra)
    knobs = world.content.fight.armor
    assert (knobs.dr_level, knobs.dr_pierce, knobs.dr_pow, knobs.dr_cap) == (3.0, 1.0, 1.5,
                                                                             75.0)
    assert armor_reduction(1, 0, 1, knobs) == 0.5
    x = 2.0 ** 1.5
    assert armor_reduction(1, 0, Fraction(1, 2), knobs) == x / (1.0 + x)
    for pierce, dam, expected in ((1, 37, 19), (0.5, 99, 26), (Fraction(1, 2), 99, 26)):
        hit = make_hit(world, dam, "bash", flags=("weapon",), melee=True)
        hit.pierce = pierce
        armor(hit, world)
        assert hit.dam == expected, (pierce, dam)
    squared = msgspec.structs.replace(knobs, dr_pow=2.0)  # the exact path agrees at k 1
    assert armor_reduction(1, 0, 1, squared) == Fraction(1, 2)
