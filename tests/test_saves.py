"""Saving throws: both models, shifts, immunity, dispel (R-SAVE-1..9, R-IMM-7)."""

from __future__ import annotations

import math

import pytest
from conftest import four_sigma

from affray.rng import Rng
from affray.systems.rules.immunity import SPELL
from affray.systems.rules.saves import resists_dispel, save_chance, saves_spell


def chance(world, level, victim="v", damage_type="fire", caster="a"):
    result = save_chance(world, level, world.sheet(victim), damage_type,
                         world.sheet(caster) if caster else None, SPELL)
    return result


def test_r_save_1_model_0_by_default_and_when_missing(duel):
    """R-SAVE-1: the saves config picks the model; the default content says 0."""
    world = duel("level = 20", "level = 20")
    assert world.content.saves.model == 0
    assert chance(world, 20)[1] == 100
    curve = duel("level = 20", "level = 20", extra="[content.saves]\nmodel = 1\n")
    assert chance(curve, 20)[1] == 1000


def test_r_save_2_model_0_formula_with_truncation(duel):
    """R-SAVE-2: 40 + (Lv - Lc)*4 - saving_throw*90/max(45, Lv) + shifts, 5..95."""
    world = duel("level = 30", "level = 33\nsaving_throw = -7")
    # 40 + 3*4 + 7*90/45 = 40 + 12 + 14 = 66
    assert chance(world, 30) == (66.0, 100)
    odd = duel("level = 30", "level = 50\nsaving_throw = -11")
    # 40 + 20*4 - (-11*90)/50 = 120 + 19 (990/50 = 19.8 -> 19) -> clamped to 95
    assert chance(odd, 30) == (95.0, 100)
    cursed = duel("level = 30", "level = 47\nsaving_throw = 5")
    # 40 + 17*4 - 450/47 = 108 - 9 = 99 -> 95; lower cast gap: Lc 45 -> 40 + 8 - 9 = 39
    assert chance(cursed, 45) == (39.0, 100)
    assert chance(duel("level = 90", "level = 1"), 90)[0] == 5.0


def test_r_save_2_roll_is_number_percent_below_save(duel):
    """R-SAVE-2: the victim saves when a 1..100 roll is below `save`: P = (save-1)/100."""
    world = duel("level = 30", "level = 33\nsaving_throw = -7")  # save 66
    n = 20000
    saved = sum(saves_spell(world, 30, world.sheet("v"), "fire", world.sheet("a"))
                for _ in range(n)) / n
    assert abs(saved - 0.65) <= four_sigma(0.65, n)


def test_r_save_3_model_1_curve(duel):
    """R-SAVE-3: P = clamp(base + span*(1 - e^-r) + per_level*(Lv - Lc) + shifts),
    r = -saving_throw / (tau * max(level_floor, Lv)); shift 5 + Lv/10."""
    world = duel("level = 40", "level = 50\nsaving_throw = -30",
                 extra="[content.saves]\nmodel = 1\n")
    r = 30 / (0.45 * 50)
    expected = 40 + 50 * (1 - math.exp(-r)) + 3 * 10
    assert chance(world, 40) == (pytest.approx(min(90, expected)), 1000)
    low = duel("level = 40", "level = 35\nsaving_throw = -10",
               extra="[content.saves]\nmodel = 1\n")
    expected = 40 + 50 * (1 - math.exp(-10 / (0.45 * 45))) + 3 * (35 - 40)  # level floor 45
    assert chance(low, 40)[0] == pytest.approx(expected)
    floor = duel("level = 40", "level = 20", extra="[content.saves]\nmodel = 1\n")
    assert chance(floor, 40)[0] == 5.0  # 40 - 60 clamps to the floor


def test_r_save_4_a_cursed_victim_takes_the_linear_term(duel):
    """R-SAVE-4: saving_throw above 0 takes -saving_throw*90/max(45, Lv), not the curve."""
    world = duel("level = 40", "level = 50\nsaving_throw = 20",
                 extra="[content.saves]\nmodel = 1\n")
    assert chance(world, 40)[0] == pytest.approx(40 - 36 + 30)  # 1800/50 = 36


def test_r_save_5_shifts(duel):
    """R-SAVE-5: resistant and berserk add the shift (Lv/5 = 6 at level 33); vulnerable
    subtracts it."""
    base = chance(duel("level = 30", "level = 33"), 30)[0]
    assert base == 52.0
    assert chance(duel("level = 30", 'level = 33\nres = ["fire"]'), 30)[0] == 58.0
    assert chance(duel("level = 30", 'level = 33\naffects = ["berserk"]'), 30)[0] == 58.0
    assert chance(duel("level = 30", 'level = 33\nvuln = ["fire"]'), 30)[0] == 46.0
    holy = duel('level = 30\nalignment = 800\nskills = { holy_craft = 100 }',
                'level = 33\nalignment = -900')
    assert chance(holy, 30)[0] == 46.0  # holy craft at 100: the roll always succeeds


def test_r_save_6_and_r_imm_7_an_immune_victim_always_saves(duel):
    """R-SAVE-6 / R-IMM-7: immune to the hit's bits -> saves, whatever the levels."""
    world = duel("level = 90", 'level = 1\nimm = ["fire"]')
    assert chance(world, 90) is None
    assert all(saves_spell(world, 90, world.sheet("v"), "fire", world.sheet("a"))
               for _ in range(200))
    spell_immune = duel("level = 90", 'level = 1\nimm = ["spell"]')
    assert saves_spell(spell_immune, 90, spell_immune.sheet("v"), "cold", None)


def test_r_save_7_charm_compares_charisma(duel):
    """R-SAVE-7: -2 per point of the caster's charisma lead; a player victim below 18
    charisma loses a further shift."""
    world = duel("level = 30\nstats = { cha = 20 }", "level = 30\nstats = { cha = 14 }")
    assert chance(world, 30, damage_type="charm")[0] == 40 - 12
    player = duel("level = 30\nstats = { cha = 20 }",
                  "level = 30\nplayer = true\nstats = { cha = 14 }")
    assert chance(player, 30, damage_type="charm")[0] == 40 - 12 - 6


def test_r_save_8_on_saves_hooks_edit_the_chance(duel):
    """R-SAVE-8: a caster's affect with an on-saves hook edits the running chance."""
    world = duel('level = 30\naffects = ["magic_concentrate"]', "level = 30")
    world.rules.add_hook("on_saves", ("affect", "magic_concentrate"),
                         lambda value, caster, victim, w: value - 25)
    assert chance(world, 30)[0] == 15.0


def test_r_save_9_dispel(duel):
    """R-SAVE-9: permanent (-2) never dispels; -1 counts five levels higher; model 0:
    50 + 5 per level, 5..95 in percent; model 1 in permille."""
    world = duel()
    assert all(resists_dispel(world, 10, -2, 90) for _ in range(100))
    n = 20000
    world.rng = Rng(5)
    rate = sum(resists_dispel(world, 20, 10, 18) for _ in range(n)) / n  # save 60
    assert abs(rate - 0.59) <= four_sigma(0.59, n)
    rate = sum(resists_dispel(world, 20, -1, 22) for _ in range(n)) / n  # 25 vs 22: 65
    assert abs(rate - 0.64) <= four_sigma(0.64, n)
    curve = duel(extra="[content.saves]\nmodel = 1\n")
    rate = sum(resists_dispel(curve, 20, 10, 24) for _ in range(n)) / n  # 500 - 200 = 300
    assert abs(rate - 0.299) <= four_sigma(0.299, n)
