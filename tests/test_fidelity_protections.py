"""Protections in exact arithmetic at their boundaries (issue 9; R-PROT-7, R-PROT-9,
R-HIT-7, R-HIT-8).

Armor's cut is armor / (armor + k) with k = dr_level * level + dr_pierce * pierce (dr_pow
1): whole hit points lost = floor(dam * cut), computed exactly, so a cut of exactly 10%,
25% or 50% takes exactly that (binary floats made 10% of 20 come out as 1).
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from affray.systems.rules.protections import armor_reduction
from affray.systems.rules.tohit import effective_hitroll

SURE = ("[content.fight]\nauto_miss_in_20 = 0\nauto_critical_in_20 = 0\n"
        "[content.fight.armor]\np_floor = 1.0\np_cap = 1.0\n")


@pytest.mark.parametrize(("armor", "level", "cut"), [
    (10, 30, Fraction(1, 10)),   # k 90
    (10, 10, Fraction(1, 4)),    # k 30
    (30, 10, Fraction(1, 2)),    # k 30
    (7, 21, Fraction(1, 10)),    # k 63
    (21, 21, Fraction(1, 4)),    # k 63
])
def test_r_hit_8_the_cut_is_an_exact_fraction(duel, armor, level, cut):
    """R-HIT-8: armor / (armor + 3 * level) with no pierce, exactly."""
    knobs = duel().content.fight.armor
    assert armor_reduction(armor, level, 0, knobs) == cut


@pytest.mark.parametrize(("armor", "level", "raw", "taken"), [
    (10, 30, 25, 18),   # trim 20, 10% of 20 = 2 exactly (floats: 1.9999... -> 1)
    (10, 30, 37, 27),   # trim 29, 10% = 2.9 -> 2 (odd value)
    (10, 10, 25, 15),   # 25%: 20 - 5
    (10, 10, 37, 22),   # 25%: 29 - 7 (7.25)
    (30, 10, 25, 10),   # 50%: 20 - 10
    (30, 10, 37, 15),   # 50%: 29 - 14 (14.5)
    (7, 21, 25, 18),    # 10% again, another k
    (7, 21, 10, 9),     # untrimmed 10: 10 - 1 exactly
    (21, 21, 9, 7),     # 25% of 9 = 2.25 -> 2
])
def test_r_prot_9_armor_takes_exact_whole_points_end_to_end(duel, armor, level, raw, taken):
    """R-PROT-7 / R-PROT-9 through World.damage (the damage pipeline, no attacker so no
    pierce): the victim loses dam - floor(dam * cut)."""
    world = duel(victim=f"armor = {{ bash = {armor} }}\nlevel = {level}\nhp = 1000")
    assert world.damage(None, "v", raw, "bash") == taken
    assert world.snapshot()["creatures"]["v"]["hp"] == 1000 - taken


def test_r_hit_7_pierce_is_exact_effective_hitroll(duel):
    """R-HIT-7 / R-HIT-2: a damage-pipeline hit pierces with hitroll x 100% x (1 + str
    bonus%), exactly: hitroll 10, STR 13 (bonus 0) -> 10; level 10: k = 30 + 10 = 40;
    armor 40 -> exactly 50%: 25 -> 20 -> 10. STR 16 (bonus 3%): pierce 103/10."""
    world = duel("hitroll = 10", "armor = { bash = 40 }\nlevel = 10\nhp = 1000")
    assert effective_hitroll(world.sheet("a"), 100, world.content) == 10
    assert world.damage("a", "v", 25, "bash") == 10
    strong = duel("hitroll = 10\nstats = { str = 16 }", "")
    assert effective_hitroll(strong.sheet("a"), 120, strong.content) == Fraction(1236, 100)


def test_r_hit_7_spell_armor_exact(duel):
    """R-HIT-7: fire meets exotic x 0.5 pierced by caster level x 2: exotic 100 -> 50;
    caster level 10, victim level 10: k = 30 + 20 = 50: exactly 50%: 25 -> 20 -> 10."""
    world = duel("level = 10", "armor = { exotic = 100 }\nlevel = 10\nhp = 1000")
    assert world.damage("a", "v", 25, "fire", ("spell", "magic")) == 10


def test_r_prot_7_a_melee_blow_takes_the_exact_cut_end_to_end(duel):
    """R-PROT-7 through a tick: a blow of 25 before protections (a melee modifier) from
    an attacker with hitroll 0 (pierce 0) on a level-30 victim with bash armor 10:
    trim 20, exactly 10% off: the damage event says 18."""
    world = duel("level = 30\nhitroll = 0\nhp = 1000",
                 "level = 30\nhp = 1000\narmor = { bash = 10 }", extra=SURE)
    world.rules.add_modifier("melee", lambda hit, w: setattr(hit, "dam", 25))
    world.start_fight("a", "v")
    world.tick()
    amounts = [e.amount for e in world.events if e.kind == "damage" and e.source == "a"]
    assert amounts and set(amounts) == {18}


def test_r_hit_9_a_fractional_power_still_caps_and_cuts(duel):
    """R-HIT-8 / R-HIT-9: dr_pow 1.5 has no exact value (a float, the one inexact case):
    armor 30 at k 30 is x = 1, a half; the 99% cap still holds."""
    import msgspec

    knobs = msgspec.structs.replace(duel().content.fight.armor, dr_pow=1.5, dr_cap=100.0)
    assert armor_reduction(30, 10, 0, knobs) == pytest.approx(0.5)
    assert armor_reduction(10**9, 10, 0, knobs) == 0.99
    assert armor_reduction(0, 10, 0, knobs) == 0


# -- boundaries the mutation run found untested (docs/decisions.md, "Mutation testing") --
def test_r_hit_9_armor_of_1_still_cuts_and_k_of_1_is_not_0(duel):
    """R-HIT-8 / R-HIT-9: armor 1 is armor (level 1: k 3: a quarter: 20 -> 15); k of 1
    (level 0, pierce 1) divides normally (armor 1: a half); k of 0 gives the cap."""
    world = duel(victim="armor = { bash = 1 }\nlevel = 1\nhp = 1000")
    assert world.damage(None, "v", 25, "bash") == 15
    knobs = world.content.fight.armor
    assert armor_reduction(1, 0, 1, knobs) == Fraction(1, 2)
    assert armor_reduction(1, 0, 0, knobs) == Fraction(3, 4)


def test_r_hit_8_remort_levels_count_in_k(duel):
    """R-HIT-8: the victim level in k is level + remorts: level 10 + 5 remorts: k 45;
    armor 15: a quarter: 20 -> 15 (level alone would give a half)."""
    world = duel(victim="armor = { bash = 15 }\nlevel = 10\nremorts = 5\nhp = 1000")
    assert world.damage(None, "v", 25, "bash") == 15


def test_r_hit_3_an_armor_use_bonus_is_armor_for_the_cut(duel):
    """R-HIT-3 / R-HIT-7 end to end: a successful armor use (pinned draw 1) gives a
    level-30 victim with no armor 0.5 x 30 = 15 points for the blow: k 90: a seventh:
    20 -> 18; a failed one (draw 100) leaves it bare: 20."""
    from fixed_draws import fixed_percent

    for draw, expected in ((1, 18), (100, 20)):
        world = duel("level = 30\nhitroll = 0\nhp = 1000",
                     "level = 30\nhp = 1000\nskills = { armor_use = 100 }", extra=SURE)
        fixed_percent(world, draw)
        world.rules.add_modifier("melee", lambda hit, w: setattr(hit, "dam", 25))
        world.start_fight("a", "v")
        world.tick()
        amounts = [e.amount for e in world.events if e.kind == "damage" and e.source == "a"]
        assert amounts[0] == expected, draw


def test_r_hit_7_a_games_float_pierce_is_read_as_its_decimal(duel):
    """R-HIT-7: a game that sets a float pierce gets it read as the decimal it shows:
    pierce 10.5 at level 10: k = 40.5; armor 81: two thirds: 30 -> 10."""
    from conftest import make_hit

    from affray.systems.rules.protections import armor

    world = duel(victim="armor = { bash = 81 }\nlevel = 10\nhp = 1000")
    hit = make_hit(world, 30, "bash", flags=("weapon",), melee=True)
    hit.pierce = 10.5
    armor(hit, world)
    assert hit.dam == 10


def test_r_hit_8_a_fractional_power_in_the_armor_step(duel):
    """R-HIT-8 with dr_pow 1.5 (floats, the one inexact case), end to end: armor 60 at
    k 30: x = 2^1.5, cut x/(1+x) = 0.7388: 20 loses floor(14.78) = 14 -> 6. With a
    fractional armor and pierce the float path divides in the right order."""
    import msgspec

    extra = "[content.fight.armor]\ndr_pow = 1.5\n"
    world = duel(victim="armor = { bash = 60 }\nlevel = 10\nhp = 1000", extra=extra)
    assert world.damage(None, "v", 25, "bash") == 6
    knobs = msgspec.structs.replace(world.content.fight.armor, dr_pow=1.5)
    x = (60.5 / 30.5) ** 1.5
    assert armor_reduction(Fraction(121, 2), 10, Fraction(1, 2), knobs) == pytest.approx(
        x / (1 + x), rel=1e-12)
    assert armor_reduction(10, 0, 0, knobs) == 0.75  # k 0: the cap, no division


def test_r_prot_5_a_zero_hit_is_not_immune_and_a_one_point_hit_is(duel):
    """R-PROT-5: `immune` marks a positive hit the immunity step took to 0: a hit of 0
    is a damage event of 0, not immune; a hit of 1 on an immune victim is immune."""
    world = duel(victim='imm = ["fire"]\nhp = 1000')
    world.damage(None, "v", 0, "fire", ("spell",))
    world.damage(None, "v", 1, "fire", ("spell",))
    assert [e.kind for e in world.events] == ["damage", "immune"]
