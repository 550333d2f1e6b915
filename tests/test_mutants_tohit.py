"""The to-hit roll's new fast paths (issue 11), pinned where the mutation pass found them
untested: the class base's floor, the strength and dexterity tables' clamps written out
in `hitroll_ten_thousandths` and `evasion`, Sluggish read only when it is there, and
the memoised effective hitroll a roll hands to armor (R-HIT-2, R-HIT-3, R-HIT-7,
R-STAT-2).
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from affray.systems.rules import tohit


@pytest.mark.parametrize(("profession", "level", "expected"), [
    ("mobile", 1, 1),        # 20 - (20 + 1 * (-24) / 32) = 20 - 20 = 0: never below 1
    ("anti-paladin", 1, 2),  # 20 - (18 + 1 * (-24) / 32) = 20 - 18 = 2
    ("anti-paladin", 2, 3),  # 20 - (18 + 2 * (-24) / 32) = 20 - 17 = 3
    ("cleric", 32, 18),      # 20 - 2
])
def test_r_hit_2_class_base_floor_is_1_and_2_stays_2(duel, profession, level, expected):
    """R-HIT-2: classBase = 20 - interpolate(level, thac00, thac32), never below 1: a
    base of exactly 2 stays 2, a base of 0 becomes 1; the accuracy doubles it
    (base_w 2) and adds the effective hitroll (0 here)."""
    world = duel(f'profession = "{profession}"\nlevel = {level}')
    attacker = world.sheet("a")
    assert tohit.class_base(attacker) == expected
    assert tohit.accuracy(attacker, 100, world.content) == 2.0 * expected


@pytest.mark.parametrize(("strength", "str_hit"), [
    (-3, -35),  # below the table: index 0
    (0, -35),
    (1, -30),
    (28, 8),
    (29, 8),    # above the table: index 28
    (35, 8),
])
def test_r_hit_2_strength_hit_bonus_clamps_to_the_table(duel, strength, str_hit):
    """R-HIT-2: effective hitroll = hitroll * skill% * (1 + str_app[STR].hit%), the stat
    read as an index 0..28 (a game that writes a stat outside the scenario's 0..28 gets
    the nearest end of the table): hitroll 13, skill 97, in 1/10000ths."""
    world = duel("hitroll = 13")
    attacker = world.sheet("a")
    attacker.stats.strength = strength
    assert tohit.hitroll_ten_thousandths(attacker, 97, world.content) == (
        13 * 97 * (100 + str_hit))


@pytest.mark.parametrize(("dex", "evasion"), [
    (-3, 100.0),  # below the table: index 0, defensive 60: 1.6 * 100 - 60
    (0, 100.0),
    (1, 110.0),   # defensive 50
    (28, 325.0),  # defensive -165: 160 + 165
    (29, 325.0),  # above the table: index 28
    (35, 325.0),
])
def test_r_hit_3_dexterity_defensive_clamps_to_the_table(duel, dex, evasion):
    """R-HIT-3: evasion = ev_level * Lv + ev_dex * (-dex defensive) * min(1, Lv/100),
    the dexterity read as an index 0..28: level 100 (the dex term whole), standing."""
    world = duel(victim="level = 100")
    victim = world.sheet("v")
    victim.stats.dexterity = dex
    assert tohit.evasion(victim, world.content, False) == pytest.approx(evasion, abs=1e-9)


def test_r_stat_2_only_sluggish_cuts_evasion(duel):
    """R-STAT-2 / R-HIT-3: Sluggish d multiplies evasion by max(floor, 1 - 0.1 d); a
    victim with another status (burning) and no Sluggish keeps its whole evasion, and
    Sluggish 1 takes a tenth off."""
    plain = duel(victim="level = 100\nstats = { dex = 20 }")
    burning = duel(victim="level = 100\nstats = { dex = 20 }\nstatuses = { burning = 1 }")
    sluggish = duel(victim="level = 100\nstats = { dex = 20 }\nstatuses = { sluggish = 1 }")
    whole = tohit.evasion(plain.sheet("v"), plain.content, False)
    assert whole == pytest.approx(1.6 * 100 + 50, abs=1e-9)  # dex 20: defensive -50
    assert tohit.evasion(burning.sheet("v"), burning.content, False) == whole
    status = sluggish.content.statuses["sluggish"]
    assert tohit.evasion(sluggish.sheet("v"), sluggish.content, False) == pytest.approx(
        whole * max(status.evasion_floor, 1.0 - status.evasion_per_degree))
    assert status.evasion_per_degree > 0


def test_r_hit_7_a_roll_carries_the_exact_effective_hitroll_first_time_and_after(duel):
    """R-HIT-7: the armor model's roll hands armor the attacker's effective hitroll,
    exact: hitroll 37, skill 83, strength 18 (+3%): 37 * 83 * 103 / 10000 = 316313/10000,
    also the first time that value is seen (the memo emptied first) and again after."""
    world = duel("hitroll = 37\nstats = { str = 18 }", "level = 20")
    attacker, victim = world.sheet("a"), world.sheet("v")
    assert world.content.stats.str_.hit[18] == 3
    expected = Fraction(37 * 83 * 103, 10000)
    tohit._EXACT_HITROLLS.clear()  # a pure memo: emptying it changes no value
    first = tohit.roll_armor_model(attacker, victim, 83, world.rng, world.content, 0, 0)
    again = tohit.roll_armor_model(attacker, victim, 83, world.rng, world.content, 0, 0)
    assert isinstance(first.pierce, Fraction) and first.pierce == expected
    assert again.pierce == expected
    assert tohit.effective_hitroll(attacker, 83, world.content) == expected
