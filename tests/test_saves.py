"""Saving throws: both models, shifts, immunity, charm, hooks, dispel (R-SAVE-1..9, R-IMM-7).

Rolls at a boundary are fixed with `fixed_draws`, which patches the world's rng so that
number_percent() and number_range(1, 1000) return chosen values and any other draw fails
the test (so a percent roll where a permille roll belongs is caught, and the reverse).
"""

from __future__ import annotations

import copy
import math

import pytest
from conftest import duel_text, four_sigma
from test_magic import cast, kinds, pin_draws

import affray
from affray.core.rng import Rng
from affray.data.content_loader import _parse_defaults, build_content
from affray.data.scenario import build_world, parse_scenario
from affray.systems.rules.immunity import SPELL
from affray.systems.rules.saves import (
    dispel,
    resists_dispel,
    roll_threshold,
    save_chance,
    saves_model,
    saves_spell,
)

MODEL_1 = "[content.saves]\nmodel = 1\n"


def chance(world, level, victim="v", damage_type="fire", caster="a"):
    return save_chance(world, level, world.sheet(victim), damage_type,
                       world.sheet(caster) if caster else None, SPELL)


def saves(world, level, damage_type="fire"):
    return saves_spell(world, level, world.sheet("v"), damage_type, world.sheet("a"))


def fixed_draws(monkeypatch, percent=None, permille=None):
    """Fix number_percent() to `percent` and number_range(1, 1000) to `permille`; a draw
    left as None, or any other range, is an error."""

    def fixed_percent(self):
        assert percent is not None, "unexpected number_percent() draw"
        return percent

    def fixed_range(self, low, high):
        assert (low, high) == (1, 1000) and permille is not None, (
            f"unexpected number_range({low}, {high}) draw")
        return permille

    monkeypatch.setattr(Rng, "percent", fixed_percent)
    monkeypatch.setattr(Rng, "number_range", fixed_range)


def world_with_saves(saves_table, attacker="level = 20", victim="level = 20", extra=""):
    """A duel built on content whose whole saves table is `saves_table` (None: no saves
    table at all), as a game's own content files would give it; `extra` is scenario text
    (inline content) layered on top."""
    raw, sources = _parse_defaults()
    raw = copy.deepcopy(raw)
    if saves_table is None:
        raw.pop("saves")
    else:
        raw["saves"] = saves_table
    base = build_content(raw, sources)
    spec, scenario = parse_scenario(duel_text(attacker, victim, extra), "test.toml")
    return build_world(spec, scenario, "test.toml", content=base)


KNOBS = {"base": 40, "span": 50, "per_level": 3, "floor": 5, "ceiling": 90, "tau": 0.45,
         "level_floor": 45}


# -- R-SAVE-1 -------------------------------------------------------------------------------
def test_r_save_1_model_0_by_default_model_1_when_asked(duel):
    """R-SAVE-1: the saves config picks the model; the default content says 0."""
    world = duel("level = 20", "level = 20")
    assert saves_model(world.content) == 0
    assert chance(world, 20)[1] == 100
    curve = duel("level = 20", "level = 20", extra=MODEL_1)
    assert saves_model(curve.content) == 1
    assert chance(curve, 20)[1] == 1000


def test_r_save_1_a_missing_file_means_model_0():
    """R-SAVE-1: content without a saves table runs model 0."""
    world = world_with_saves(None)
    assert saves_model(world.content) == 0
    assert chance(world, 20) == (40.0, 100)


@pytest.mark.parametrize("missing", sorted(KNOBS))
def test_r_save_1_any_missing_curve_knob_means_model_0(missing):
    """R-SAVE-1: model = 1 with one knob of the curve left out runs model 0."""
    knobs = {k: v for k, v in KNOBS.items() if k != missing}
    world = world_with_saves({"model": 1, "model1": knobs})
    assert saves_model(world.content) == 0
    assert chance(world, 20) == (40.0, 100)
    assert saves_model(world_with_saves({"model": 1, "model1": KNOBS}).content) == 1


def test_r_save_1_model_1_with_only_base_runs_model_0():
    """R-SAVE-1: `{model = 1, model1 = {base = 40}}` is not a configured curve."""
    world = world_with_saves({"model": 1, "model1": {"base": 40}})
    assert saves_model(world.content) == 0
    assert saves_model(world_with_saves({"model": 1}).content) == 0


@pytest.mark.parametrize(("knob", "message"), [
    ("tau = 0", "tau must be above 0"), ("level_floor = 0", "level_floor must be 1"),
    ("floor = 95", "must not be above ceiling")])
def test_r_save_1_nonsense_knobs_fail_at_load(duel, knob, message):
    """R-SAVE-1: a knob that would break the curve is a load error naming it."""
    with pytest.raises(affray.ContentError, match=message) as caught:
        duel(extra=f"[content.saves.model1]\n{knob}\n")
    assert "content.saves" in str(caught.value) and "model1" in str(caught.value)


# -- R-SAVE-2: model 0 --------------------------------------------------------------------
@pytest.mark.parametrize(("caster", "victim", "expected"), [
    ("level = 30", "level = 33\nsaving_throw = -7", 66),   # 40 + 12 + 630/45 = 14
    ("level = 55", "level = 50\nsaving_throw = -11", 39),  # 40 - 20 + 990/50 = 19.8 -> 19
    ("level = 45", "level = 47\nsaving_throw = 5", 39),    # 40 + 8 - 450/47 = 9.57 -> 9
    ("level = 21", "level = 20\nsaving_throw = -1", 38),   # 40 - 4 + 90/45 = 2
    ("level = 60", "level = 61\nsaving_throw = -3", 48),   # 40 + 4 + 270/61 = 4.4 -> 4
    ("level = 30", "level = 50\nsaving_throw = -11", 95),  # 139: clamped to 95
    ("level = 90", "level = 1", 5),                        # 40 - 356: clamped to 5
    ("level = 10", "level = 1\nsaving_throw = 7", 5),      # 40 - 36 - 14 = -10 -> 5
])
def test_r_save_2_model_0_formula_with_truncation(duel, caster, victim, expected):
    """R-SAVE-2: 40 + (Lv - Lc)*4 - saving_throw*90/max(45, Lv) + shifts, clamped 5..95;
    the division truncates toward zero (-990/50 is -19, not -20)."""
    world = duel(caster, victim)
    level = world.sheet("a").modify_level
    assert chance(world, level) == (float(expected), 100)


def test_r_save_2_roll_is_number_percent_below_save_boundary(duel, monkeypatch):
    """R-SAVE-2: saves when number_percent() < save: 65 saves against 66, 66 does not."""
    world = duel("level = 30", "level = 33\nsaving_throw = -7")  # save 66
    fixed_draws(monkeypatch, percent=65)
    assert saves(world, 30) is True
    fixed_draws(monkeypatch, percent=66)
    assert saves(world, 30) is False


def test_r_save_2_save_rate_at_4_sigma(duel):
    """R-SAVE-2: a save of 66 saves (66 - 1)% of the time."""
    world = duel("level = 30", "level = 33\nsaving_throw = -7", seed=3)
    n = 20000
    rate = sum(saves(world, 30) for _ in range(n)) / n
    assert abs(rate - 0.65) <= four_sigma(0.65, n)


# -- R-SAVE-3: model 1 -------------------------------------------------------------------
def curve(saving_throw, victim_level, cast_level, shifts=0.0):
    """R-SAVE-3 written out with the default knobs (before the clamp)."""
    r = -saving_throw / (0.45 * max(45, victim_level))
    return 40 + 50 * (1 - math.exp(-r)) + 3 * (victim_level - cast_level) + shifts


@pytest.mark.parametrize(("victim", "lc", "expected"), [
    ("level = 35\nsaving_throw = -10", 40, 44.4857),  # level floor 45: r = 10/20.25
    ("level = 33\nsaving_throw = -7", 30, 63.6130),   # r = 7/20.25, +9 for the gap
    ("level = 61\nsaving_throw = -3", 64, 36.1765),   # Lv above the floor: r = 3/27.45
    ("level = 34", 30, 52.0),                         # svs 0: r = 0, no curve
    ("level = 50\nsaving_throw = -30", 40, 90.0),     # 106.8 -> ceiling 90
    ("level = 20", 40, 5.0),                          # 40 - 60 -> floor 5
])
def test_r_save_3_model_1_curve(duel, victim, lc, expected):
    """R-SAVE-3: P = clamp(base + span*(1 - e^-r) + per_level*(Lv - Lc) + shifts,
    floor, ceiling), r = -saving_throw / (tau * max(level_floor, Lv))."""
    world = duel(f"level = {lc}", victim, extra=MODEL_1)
    sheet = world.sheet("v")
    value, scale = chance(world, lc)
    assert scale == 1000
    assert value == pytest.approx(expected, abs=1e-4)
    unclamped = curve(sheet.defense.saving_throw, sheet.modify_level, lc)
    assert value == pytest.approx(min(90.0, max(5.0, unclamped)))


def test_r_save_3_model_1_rolls_in_permille_boundary(duel, monkeypatch):
    """R-SAVE-3: chance 52% is 520 permille: number_range(1, 1000) = 519 saves, 520 does
    not; no number_percent() is drawn (a percent roll fails this test)."""
    world = duel("level = 30", "level = 34", extra=MODEL_1)
    assert chance(world, 30) == (52.0, 1000)
    fixed_draws(monkeypatch, permille=519)
    assert saves(world, 30) is True
    fixed_draws(monkeypatch, permille=520)
    assert saves(world, 30) is False


def test_r_save_3_a_fractional_chance_truncates_to_permille(duel, monkeypatch):
    """R-SAVE-3: 44.4857% is 444 permille: 443 saves, 444 does not."""
    world = duel("level = 40", "level = 35\nsaving_throw = -10", extra=MODEL_1)
    assert roll_threshold(chance(world, 40)[0], 1000) == 444
    assert roll_threshold(66.0, 100) == 66
    fixed_draws(monkeypatch, permille=443)
    assert saves(world, 40) is True
    fixed_draws(monkeypatch, permille=444)
    assert saves(world, 40) is False


def test_r_save_3_model_1_save_rate_at_4_sigma(duel):
    """R-SAVE-3: 444 permille saves 443 times in 1000."""
    world = duel("level = 40", "level = 35\nsaving_throw = -10", extra=MODEL_1, seed=11)
    n = 20000
    rate = sum(saves(world, 40) for _ in range(n)) / n
    assert abs(rate - 0.443) <= four_sigma(0.443, n)


# -- R-SAVE-4 -------------------------------------------------------------------------------
@pytest.mark.parametrize(("victim", "lc", "expected"), [
    ("level = 50\nsaving_throw = 20", 40, 40 - 36 + 30),  # 1800/50 = 36
    ("level = 47\nsaving_throw = 7", 46, 40 - 13 + 3),    # 630/47 = 13.4 -> 13
    ("level = 9\nsaving_throw = 1", 9, 40 - 2),           # 90/45 = 2 (max(45, Lv))
])
def test_r_save_4_a_cursed_victim_takes_the_linear_term(duel, victim, lc, expected):
    """R-SAVE-4: saving_throw above 0 takes -saving_throw*90/max(45, Lv), not the curve
    (which would add e^-r > 1 terms: 40 + 50*(1 - e^(+...)) is far lower)."""
    world = duel(f"level = {lc}", victim, extra=MODEL_1)
    assert chance(world, lc)[0] == pytest.approx(expected)


# -- R-SAVE-5 -------------------------------------------------------------------------------
def test_r_save_5_model_0_shift_is_lv_over_5(duel):
    """R-SAVE-5: resistant and berserk add the shift (Lv/5 = 6 at level 33); vulnerable
    subtracts it; a good caster's holy craft on an evil victim subtracts it."""
    base = chance(duel("level = 30", "level = 33"), 30)[0]
    assert base == 52.0
    assert chance(duel("level = 30", 'level = 33\nres = ["fire"]'), 30)[0] == 58.0
    assert chance(duel("level = 30", 'level = 33\naffects = ["berserk"]'), 30)[0] == 58.0
    assert chance(duel("level = 30", 'level = 33\naffects = ["berserk"]\nres = ["fire"]'),
                  30)[0] == 64.0
    assert chance(duel("level = 30", 'level = 33\nvuln = ["fire"]'), 30)[0] == 46.0
    holy = duel('level = 30\nalignment = 800\nskills = { holy_craft = 100 }',
                'level = 33\nalignment = -900')
    assert chance(holy, 30)[0] == 46.0  # holy craft at 100: the roll always succeeds


def test_r_save_5_holy_craft_roll_boundary(duel, monkeypatch):
    """R-SAVE-5: holy craft 60 succeeds on number_percent() < 60 (59), not on 60."""
    holy = duel('level = 30\nalignment = 800\nskills = { holy_craft = 60 }',
                'level = 33\nalignment = -900')
    fixed_draws(monkeypatch, percent=59)
    assert chance(holy, 30)[0] == 46.0
    fixed_draws(monkeypatch, percent=60)
    assert chance(holy, 30)[0] == 52.0


@pytest.mark.parametrize(("victim", "expected"), [
    ('level = 33\naffects = ["berserk"]', 40 + 8),  # shift 5 + 33/10 = 8 (Lv/5 would be 6)
    ('level = 33\nvuln = ["fire"]', 40 - 8),
    ('level = 9\nres = ["fire"]', 40 + 5),          # 5 + 9/10 = 5 (Lv/5 would be 1)
    ('level = 58\nres = ["fire"]', 40 + 10),        # 5 + 58/10 = 10 (Lv/5 would be 11)
])
def test_r_save_5_model_1_shift_is_5_plus_lv_over_10(duel, victim, expected):
    """R-SAVE-5 / R-SAVE-3: under model 1 the shift is 5 + Lv/10."""
    world = duel("level = 1", victim, extra=MODEL_1)
    lc = world.sheet("v").modify_level  # no level gap
    assert chance(world, lc)[0] == pytest.approx(expected)


# -- R-SAVE-6 -------------------------------------------------------------------------------
def test_r_save_6_and_r_imm_7_an_immune_victim_always_saves(duel, monkeypatch):
    """R-SAVE-6 / R-IMM-7: immune to the hit's bits -> saves, whatever the levels, with no
    roll at all (under either model)."""
    world = duel("level = 90", 'level = 1\nimm = ["fire"]')
    assert chance(world, 90) is None
    fixed_draws(monkeypatch)  # any draw fails
    assert saves(world, 90) is True
    spell_immune = duel("level = 90", 'level = 1\nimm = ["spell"]', extra=MODEL_1)
    assert saves_spell(spell_immune, 90, spell_immune.sheet("v"), "cold", None)


# -- R-SAVE-7 -------------------------------------------------------------------------------
def test_r_save_7_charm_compares_charisma(duel):
    """R-SAVE-7: -2 per point of the caster's charisma lead; a player victim below 18
    charisma loses a further shift (Lv/5 = 6)."""
    world = duel("level = 30\nstats = { cha = 20 }", "level = 30\nstats = { cha = 14 }")
    assert chance(world, 30, damage_type="charm")[0] == 40 - 12
    player = duel("level = 30\nstats = { cha = 20 }",
                  "level = 30\nplayer = true\nstats = { cha = 14 }")
    assert chance(player, 30, damage_type="charm")[0] == 40 - 12 - 6
    behind = duel("level = 30\nstats = { cha = 11 }",
                  "level = 30\nplayer = true\nstats = { cha = 18 }")
    assert chance(behind, 30, damage_type="charm")[0] == 40 + 14  # no cut at 18
    assert chance(player, 30)[0] == 40  # fire: charisma does not count


# -- R-SAVE-8 -------------------------------------------------------------------------------
def test_r_save_8_on_saves_hooks_edit_the_chance(duel):
    """R-SAVE-8: a caster's affect with an on-saves hook edits the running chance, before
    the clamp."""
    world = duel('level = 30\naffects = ["magic_concentrate"]', "level = 30")
    world.rules.add_hook("on_saves", ("affect", "magic_concentrate"),
                         lambda value, caster, victim, w: value - 25)
    assert chance(world, 30)[0] == 15.0
    world.rules.add_hook("on_saves", ("affect", "magic_concentrate"),
                         lambda value, caster, victim, w: value - 25)
    assert chance(world, 30)[0] == 5.0  # -10 clamps to 5
    curve_world = duel('level = 30\naffects = ["magic_concentrate"]', "level = 30",
                       extra=MODEL_1)
    curve_world.rules.add_hook("on_saves", ("affect", "magic_concentrate"),
                               lambda value, caster, victim, w: value + 7.5)
    assert chance(curve_world, 30)[0] == pytest.approx(47.5)


# -- R-SAVE-9 -------------------------------------------------------------------------------
def test_r_save_9_resists_dispel_model_0_boundary(duel, monkeypatch):
    """R-SAVE-9: model 0: 50 + 5*(affect level - dispel level), 5..95, number_percent()
    below it resists: level 20 against 18 is 60: 59 resists, 60 does not."""
    world = duel()
    fixed_draws(monkeypatch, percent=59)
    assert resists_dispel(world, 20, 10, 18) is True
    fixed_draws(monkeypatch, percent=60)
    assert resists_dispel(world, 20, 10, 18) is False
    fixed_draws(monkeypatch, percent=94)
    assert resists_dispel(world, 90, 10, 1) is True    # 495 -> 95
    fixed_draws(monkeypatch, percent=5)
    assert resists_dispel(world, 1, 10, 90) is False   # -395 -> 5
    fixed_draws(monkeypatch, percent=4)
    assert resists_dispel(world, 1, 10, 90) is True


def test_r_save_9_permanent_and_unending_affects(duel, monkeypatch):
    """R-SAVE-9: duration -2 always resists (no roll); -1 counts five levels higher:
    20 + 5 against 22 is 65: 64 resists, 65 does not."""
    world = duel()
    fixed_draws(monkeypatch)  # no draw allowed
    assert resists_dispel(world, 10, -2, 90) is True
    fixed_draws(monkeypatch, percent=64)
    assert resists_dispel(world, 20, -1, 22) is True
    fixed_draws(monkeypatch, percent=65)
    assert resists_dispel(world, 20, -1, 22) is False


def test_r_save_9_resists_dispel_model_1_in_permille(duel, monkeypatch):
    """R-SAVE-9: model 1: base1 + per_level1 per level, clipped min1..max1, in permille:
    level 20 against 24 is 500 - 200 = 300: 299 resists, 300 does not; clipped at 50."""
    world = duel(extra=MODEL_1)
    fixed_draws(monkeypatch, permille=299)
    assert resists_dispel(world, 20, 10, 24) is True
    fixed_draws(monkeypatch, permille=300)
    assert resists_dispel(world, 20, 10, 24) is False
    fixed_draws(monkeypatch, permille=49)
    assert resists_dispel(world, 1, 10, 90) is True
    fixed_draws(monkeypatch, permille=50)
    assert resists_dispel(world, 1, 10, 90) is False


def test_r_save_9_dispel_rate_at_4_sigma(duel):
    """R-SAVE-9: level 20 against 18 (save 60) resists 59% of the time."""
    world = duel(seed=5)
    n = 20000
    rate = sum(resists_dispel(world, 20, 10, 18) for _ in range(n)) / n
    assert abs(rate - 0.59) <= four_sigma(0.59, n)


RING = ('[content.items.ring]\nclass = "armor"\nmaterial = "gold"\nslot = "finger"\n'
        'grants_affects = ["haste"]\n')


def test_r_save_9_dispel_tries_every_affect_in_name_order(duel, monkeypatch):
    """R-SAVE-9 / R-IMM-6: dispel rolls each affect in name order, skipping the stun flags
    and what worn gear grants; one that fails is removed, one that resists loses a level
    (never below 0)."""
    world = duel(victim='level = 30\naffects = ["sanctuary", "berserk"]\nwear = ["ring"]',
                 extra=RING)
    world.add_affect("v", "blind", level=12)
    world.add_affect("v", "stun")
    victim = world.sheet("v")
    draws = iter([10, 10, 90])  # berserk, blind resist; sanctuary fails
    monkeypatch.setattr(Rng, "percent", lambda self: next(draws))
    results = dispel(world, victim, 0)
    assert results == [("berserk", False), ("blind", False), ("sanctuary", True)]
    assert victim.affects.levels == {"haste": -2, "berserk": 0, "blind": 11, "stun": 0}
    assert not victim.has("sanctuary") and "sanctuary" not in victim.affects.sources


def test_r_save_9_dispel_of_unending_and_permanent_affects(duel, monkeypatch):
    """R-SAVE-9: an affect at -2 never dispels (no roll); one at -1 has no level of its
    own and counts at its owner's level + 5: 30 + 5 against 36 is 45: 44 resists (it
    stays at -1), 45 removes it."""
    world = duel(victim="level = 30")
    world.add_affect("v", "sanctuary", level=-2)
    world.add_affect("v", "haste", level=-1)
    victim = world.sheet("v")
    fixed_draws(monkeypatch, percent=44)
    assert dispel(world, victim, 36) == [("haste", False), ("sanctuary", False)]
    assert victim.affects.levels == {"sanctuary": -2, "haste": -1}
    fixed_draws(monkeypatch, percent=45)
    assert dispel(world, victim, 36) == [("haste", True), ("sanctuary", False)]
    assert victim.affects.levels == {"sanctuary": -2}


def test_r_save_9_dispel_follows_the_running_model(duel, monkeypatch):
    """R-SAVE-9 / R-SAVE-1: with model 1's curve missing a knob, dispel rolls model 0."""
    world = world_with_saves({"model": 1, "model1": {"base": 40}}, victim="level = 30")
    world.add_affect("v", "blind", level=20)
    fixed_draws(monkeypatch, percent=59)  # model 0: 50 + 5*(20 - 18) = 60
    assert dispel(world, world.sheet("v"), 18) == [("blind", False)]


# -- end to end: a scenario cast, the `damage` event's `saved` ------------------------------
COLD = ('[content.spells.frost]\ntype = "cold"\nshape = "bolt"\nrange = 8\ndamage = "21"\n'
        '[content.spells.allure]\ntype = "charm"\nshape = "bolt"\nrange = 8\ndamage = "21"\n')


def cast_and_save(world, monkeypatch, draw, value, spell="frost"):
    """Cast `spell` from "a" at "v" through the Spell system with the save's one draw
    pinned (`draw` is "percent" or "number_range"; the other kind may not be drawn);
    the `saved` of the damage event."""
    other = "number_range" if draw == "percent" else "percent"
    pin_draws(world, monkeypatch, draw, [value])
    pin_draws(world, monkeypatch, other, [])
    log = cast(world, "a", spell, "v")
    damage = [event for event in log if event["kind"] == "damage"]
    assert len(damage) == 1
    return damage[0]["saved"]


@pytest.mark.parametrize(("rule", "caster", "victim", "extra", "draw", "boundary"), [
    ("R-SAVE-2", "level = 30", "level = 33", "", "percent", 52),
    ("R-SAVE-3", "level = 30", "level = 33", MODEL_1, "number_range", 490),
    ("R-SAVE-4", "level = 40", "level = 50\nsaving_throw = 20", MODEL_1, "number_range", 340),
    ("R-SAVE-5", "level = 30", 'level = 33\naffects = ["berserk"]', "", "percent", 58),
    ("R-SAVE-5", "level = 30", 'level = 33\naffects = ["berserk"]', MODEL_1, "number_range",
     570),
])
def test_r_save_2_to_5_end_to_end(duel, monkeypatch, rule, caster, victim, extra, draw,
                                  boundary):
    """R-SAVE-1..5 end to end: an NPC casts at its level (R-LVL-1); the victim's save in
    the `damage` event flips exactly at the boundary: model 0 52 (40 + 3*4), model 1 49%
    = 490 (40 + 3*3), cursed 34% = 340, berserk 58 (+ 33/5) and 57% = 570 (+ 5 + 33/10)."""
    assert rule
    world = duel(caster, "hp = 100\n" + victim, extra=COLD + extra)
    assert cast_and_save(world, monkeypatch, draw, boundary - 1) is True
    world = duel(caster, "hp = 100\n" + victim, extra=COLD + extra)
    assert cast_and_save(world, monkeypatch, draw, boundary) is False


def test_r_save_1_a_missing_knob_runs_model_0_end_to_end(monkeypatch):
    """R-SAVE-1 end to end: content asking for model 1 without `tau` rolls the percent
    save of model 0 (52 at these levels) in a real cast."""
    knobs = {k: v for k, v in KNOBS.items() if k != "tau"}
    world = world_with_saves({"model": 1, "model1": knobs}, "level = 30",
                             "level = 33\nhp = 100", extra=COLD)
    assert cast_and_save(world, monkeypatch, "percent", 51) is True
    world = world_with_saves({"model": 1, "model1": knobs}, "level = 30",
                             "level = 33\nhp = 100", extra=COLD)
    assert cast_and_save(world, monkeypatch, "percent", 52) is False


def test_r_save_6_7_8_end_to_end(duel, monkeypatch):
    """R-SAVE-7 end to end: a charm spell at a victim 6 charisma behind saves at 40 - 12
    = 28; R-SAVE-8: the caster's on-saves hook (-25) leaves 15; R-SAVE-6: immune, no roll
    and an `immune` event."""
    charm = duel("level = 30\nstats = { cha = 20 }", "level = 30\nhp = 100\n"
                 "stats = { cha = 14 }", extra=COLD)
    assert cast_and_save(charm, monkeypatch, "percent", 27, spell="allure") is True
    charm = duel("level = 30\nstats = { cha = 20 }", "level = 30\nhp = 100\n"
                 "stats = { cha = 14 }", extra=COLD)
    assert cast_and_save(charm, monkeypatch, "percent", 28, spell="allure") is False
    for draw, saved in ((14, True), (15, False)):
        hooked = duel('level = 30\naffects = ["magic_concentrate"]', "level = 30\nhp = 100",
                      extra=COLD)
        hooked.rules.add_hook("on_saves", ("affect", "magic_concentrate"),
                              lambda value, caster, victim, w: value - 25)
        assert cast_and_save(hooked, monkeypatch, "percent", draw) is saved
    immune = duel("level = 30", 'level = 30\nhp = 100\nimm = ["cold"]', extra=COLD)
    pin_draws(immune, monkeypatch, "percent", [])
    assert kinds(cast(immune, "a", "frost", "v")) == ["cast", "immune", "fight"]  # R-ACT-1


def test_r_save_9_dispel_end_to_end(duel, monkeypatch):
    """R-SAVE-9 end to end: a dispel spell cast at level 30 (an NPC caster) tries the
    victim's affects in name order: blind (level 30: 50) resists on 49 and drops to 29,
    haste (0: 5) goes on 5; the ring's sanctuary is never tried (R-IMM-6)."""
    spell = ('[content.spells.unmake]\ntype = "other"\nshape = "bolt"\nrange = 8\n'
             'damage = 0\nsave = "none"\ndispel = true\n')
    ring = RING.replace('["haste"]', '["sanctuary"]')
    world = duel("level = 30", 'affects = ["haste"]\nwear = ["ring"]', extra=spell + ring)
    world.add_affect("v", "blind", level=30)
    pin_draws(world, monkeypatch, "percent", [49, 5])
    log = cast(world, "a", "unmake", "v")
    assert [(e["affect"], e["removed"]) for e in log if e["kind"] == "dispelled"] == [
        ("blind", False), ("haste", True)]
    assert world.sheet("v").affects.levels == {"sanctuary": -2, "blind": 29}
    assert world.snapshot()["creatures"]["v"]["affects"] == ["sanctuary", "blind"]
