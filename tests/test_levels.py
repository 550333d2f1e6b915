"""Creatures at any level (issue 22): what a level implies (content/levels.toml,
affray.data.levels).

Every number here is worked out by hand from content/levels.toml (the source's
fight/mob_tiers.json and fight/pc_baseline.json, reference notes section 12): the curves
are straight between their listed levels, the arithmetic exact, and the rounding the
source's lround (halves away from zero, -2.5 -> -3).
"""

from __future__ import annotations

import subprocess
import sys
from fractions import Fraction

import pytest
from conftest import ROOT, world_from_text

import affray
import affray.data.save
from affray.components import Defense, Level, Offense, Vitals
from affray.core.errors import AffrayError
from affray.data.content_loader import default_content
from affray.data.levels import curve_at, derived_fields, lround, scale_dice, tier_numbers
from affray.data.scenario import parse_scenario

ROW = '[map]\nrows = ["....", "....", "...."]\n'


def creature(lines: str, extra: str = "", ident: str = "c") -> str:
    """A 4x3 room with one creature at [1, 1]."""
    return f'{ROW}[[creatures]]\nid = "{ident}"\nat = [1, 1]\n{lines}\n{extra}'


def built(make_world, lines: str, extra: str = "") -> affray.World:
    return make_world(creature(lines, extra))


# -- the curves and the rounding -------------------------------------------------------------
NPC = default_content().levels.npc
MELEE = default_content().levels.pc.melee


@pytest.mark.parametrize(("level", "expected"), [
    (1, 15),                        # the first listed level
    (5, 67),                        # a listed level
    (10, 134),                      # halfway from 5 (67) to 15 (201)
    (7, Fraction(469, 5)),          # 67 + 134 x 2/10 = 93.8, an odd level
    (3, 41),                        # 15 + 52 x 2/4
    (0, 15),                        # below the first: read at level 1
    (105, 13050),                   # the last
    (115, 15712),                   # past it on the last slope: 13050 + 2662
])
def test_the_npc_hp_curve_is_straight_between_its_levels(level, expected):
    assert curve_at(NPC.level, NPC.hp, level) == expected


def test_the_ac_curve_reads_between_negative_points():
    assert curve_at(NPC.level, NPC.ac, 10) == -3       # -2 .. -4 halfway
    assert curve_at(NPC.level, NPC.ac, 30) == Fraction(-17, 2)  # -6 .. -11 halfway
    assert curve_at(NPC.level, NPC.ac, 110) == Fraction(-177, 2)  # -81 - 15/2


def test_the_pc_curve_falls_to_nothing_below_its_first_band():
    """The level-0 point is ours (docs/decisions.md, "Creatures at any level"): hp in
    proportion to the level below 10."""
    assert curve_at(MELEE.level, MELEE.hp, 1) == 20
    assert curve_at(MELEE.level, MELEE.hp, 5) == 100
    assert curve_at(MELEE.level, MELEE.hp, 15) == 296   # 200 .. 392 halfway
    assert curve_at(MELEE.level, MELEE.hp, 110) == 3295  # past 100 on its slope


@pytest.mark.parametrize(("value", "expected"), [
    (Fraction(5, 2), 3), (Fraction(-5, 2), -3), (Fraction(1, 2), 1), (Fraction(-1, 2), -1),
    (Fraction(7, 2), 4), (Fraction(-17, 2), -9), (Fraction(249, 100), 2),
    (Fraction(-251, 100), -3), (Fraction(0), 0),
])
def test_lround_takes_halves_away_from_zero(value, expected):
    """Not Python's round (banker's: round(2.5) == 2, round(-8.5) == -8)."""
    assert lround(value) == expected


# -- the tiers -------------------------------------------------------------------------------
def numbers(level: int, tier: str, style: str | None = None, profession: str | None = None):
    return tier_numbers(default_content(), level, tier, style, profession)


def test_a_normal_level_10_mob():
    """hp lround(134 x 0.8 = 107.2); dmg 7 as 2 dice (10/10 + 1) of lround(2 x 7/2 - 1)
    = 6 sides, no bonus; saves lround(10 x -0.05 = -0.5) = -1 (away from zero);
    AC lround(-3 x 1.0) = -3, 30 armor points."""
    got = numbers(10, "normal")
    assert (got.hp, got.damage, got.hitroll, got.saving_throw, got.armor) == (
        107, (2, 6, 0), 0, -1, 30)


def test_an_elite_level_10_mob():
    """hp lround(134 x 1.44 = 192.96); dmg lround(7 x 1.4 = 9.8) = 10: 2d9; hitroll
    lround(10 x 0.1); AC lround(-3 x 1.15 = -3.45) = -3."""
    got = numbers(10, "elite")
    assert (got.hp, got.damage, got.hitroll, got.saving_throw, got.armor) == (
        193, (2, 9, 0), 1, -1, 30)


def test_each_tier_multiplies_the_curve_at_level_20():
    """Level 20: hp 364.5, dmg 13.25, AC -5 (the curve halfway from 15 to 25)."""
    got = {tier: numbers(20, tier) for tier in ("trash", "normal", "elite", "champion",
                                                "boss", "legend")}
    assert {tier: n.hp for tier, n in got.items()} == {
        "trash": 219, "normal": 292, "elite": 525, "champion": 957, "boss": 1230,
        "legend": 1914}
    # AC x tier: -4.25, -5, -5.75, -6.5 (away from zero: -7), -7.25, -7.5 (-8)
    assert {tier: n.armor for tier, n in got.items()} == {
        "trash": 40, "normal": 50, "elite": 60, "champion": 70, "boss": 70, "legend": 80}
    assert {tier: n.hitroll for tier, n in got.items()} == {
        "trash": 0, "normal": 0, "elite": 2, "champion": 4, "boss": 6, "legend": 7}
    assert {tier: n.saving_throw for tier, n in got.items()} == {
        "trash": 0, "normal": -1, "elite": -2, "champion": -3, "boss": -4, "legend": -5}
    # dmg 13.25 x 0.7 = 9.275 -> 9: 3 dice of lround(6 - 1) = 5 sides, 9 - 9 = 0 bonus
    assert got["trash"].damage == (3, 5, 0)
    assert got["legend"].damage == (3, 18, 0)  # 27.825 -> 28, lround(56/3 - 1) = 18


def test_a_normal_level_30_mob_rounds_its_ac_away_from_zero():
    """AC at 30 is -8.5: lround gives -9 (banker's rounding would give -8)."""
    assert numbers(30, "normal").armor == 90


def test_style_and_class_multiply_with_the_tier():
    """Level 10 normal: fortress hp 134 x 0.8 x 1.3 = 139.36, dmg 7 x 0.75 = 5.25 -> 5;
    a witch's hp x 0.85 = 91.12; a warrior's dmg x 1.15 = 8.05 -> 8: 2d7."""
    fortress = numbers(10, "normal", "fortress")
    assert (fortress.hp, fortress.damage) == (139, (2, 4, 0))
    assert numbers(10, "normal", profession="witch").hp == 91
    assert numbers(10, "normal", profession="warrior").damage == (2, 7, 0)


def test_a_dummy_lives_and_goes_naked():
    """hp 134 x 0.01 = 1.34 -> 1; AC -3 x -5 = 15: -150 armor points."""
    got = numbers(10, "dummy")
    assert (got.hp, got.armor) == (1, -150)


# -- scaling a template's numbers ----------------------------------------------------------
def test_scaled_dice_keep_their_count_and_carry_the_average():
    """1d6+1 (4.5) x 14/9 (level 5 -> 10): 9 sides, bonus lround(7 - 5) = 2; 2d6+4 (11)
    x 14/19 (level 15 -> 10): lround(4.42) = 4 sides, bonus lround(8.105 - 5) = 3."""
    assert scale_dice((1, 6, 1), Fraction(14, 9)) == (1, 9, 2)
    assert scale_dice((2, 6, 4), Fraction(14, 19)) == (2, 4, 3)
    assert scale_dice((0, 0, 7), Fraction(3, 2)) == (0, 0, 11)  # a flat 7: 10.5 -> 11


def test_the_motivating_case_a_level_10_warrior_has_level_10_numbers(make_world):
    """human_warrior is level 20 with 180 hp, hitroll 20, damroll 8; the melee medians
    are 200/392 hp, 16/23 hitroll, 5/21 damroll at 10/20: 91.8 -> 92, 13.9 -> 14,
    1.9 -> 2."""
    world = built(make_world, 'template = "human_warrior"\nlevel = 10')
    assert world.component("c", Level).level == 10
    vitals = world.component("c", Vitals)
    assert (vitals.hp, vitals.max_hp) == (92, 92)
    offense = world.component("c", Offense)
    assert (offense.hitroll, offense.damroll) == (14, 2)


@pytest.mark.parametrize(("level", "hp", "hitroll", "damroll"), [
    (20, 180, 20, 8),   # its own level: its own numbers
    (15, 136, 17, 5),   # 180 x 296/392 = 135.9; 20 x 19.5/23 = 16.96; 8 x 13/21 = 4.95
    (5, 46, 7, 1),      # 180 x 100/392 = 45.9; 20 x 8/23 = 6.96; 8 x 2.5/21 = 0.95
    (1, 9, 1, 0),       # 180 x 20/392 = 9.18; 20 x 1.6/23 = 1.39; 8 x 0.5/21 = 0.19
    (110, 1513, 175, 67),  # past the last band: 180 x 3295/392; 20 x 201/23; 8 x 176/21
])
def test_a_player_character_scales_by_the_melee_medians(make_world, level, hp, hitroll,
                                                        damroll):
    world = built(make_world, f'template = "human_warrior"\nlevel = {level}')
    assert world.component("c", Vitals).hp == hp
    offense = world.component("c", Offense)
    assert (offense.hitroll, offense.damroll) == (hitroll, damroll)


def test_a_caster_scales_by_the_caster_medians(make_world):
    """human_mage (a witch: a caster profession) is level 20, 90 hp, hitroll 4, damroll
    2; casters at 10/20: hp 141/356, hitroll 19/19, damroll 7/16: 35.6 -> 36, 4, 0.875
    -> 1."""
    world = built(make_world, 'template = "human_mage"\nlevel = 10')
    assert world.component("c", Vitals).hp == 36
    offense = world.component("c", Offense)
    assert (offense.hitroll, offense.damroll) == (4, 1)


def test_an_npc_scales_hp_dice_rolls_and_armor(make_world):
    """The kobold (level 5: 30 hp, 1d6+1, hitroll 3, damroll 1) at level 10: hp x 2,
    dice and damroll x 7/4.5, hitroll x 10/5."""
    world = built(make_world, 'template = "kobold"\nlevel = 10')
    assert world.component("c", Vitals).hp == 60
    offense = world.component("c", Offense)
    assert (offense.hand_dice, offense.hitroll, offense.damroll) == ((1, 9, 2), 6, 2)


def test_negative_armor_scales_away_from_zero(make_world):
    """bash -15 at level 5 (AC -2) to level 10 (AC -3): -22.5 -> -23; pierce 20 -> 30;
    exotic unstated stays 0 (a template without a tier scales what it states)."""
    extra = ("[content.creatures.husk]\nnpc = true\nlevel = 5\nhp = 10\n"
             "armor = { bash = -15, pierce = 20 }\n")
    world = built(make_world, 'template = "husk"\nlevel = 10', extra)
    defense = world.component("c", Defense)
    assert (defense.armor_bash, defense.armor_pierce, defense.armor_exotic) == (-23, 30, 0)


def test_a_tier_template_gets_what_it_leaves_out_from_its_tier(make_world):
    """An elite level-10 template stating only its hp: 2d9, hitroll 1, saves -1, 30
    armor points on each column, from the tier; its hp is its own."""
    extra = "[content.creatures.guard]\nnpc = true\nlevel = 10\ntier = 'elite'\nhp = 150\n"
    world = built(make_world, 'template = "guard"', extra)
    assert world.component("c", Vitals).hp == 150
    offense = world.component("c", Offense)
    assert (offense.hand_dice, offense.hitroll) == ((2, 9, 0), 1)
    defense = world.component("c", Defense)
    assert defense.saving_throw == -1
    assert (defense.armor_bash, defense.armor_slash, defense.armor_exotic) == (30, 30, 30)


def test_a_tier_template_at_another_level_scales_from_its_tier_numbers(make_world):
    """The normal level-10 template (107 hp, 2d6, saves -1, 30 armor) at level 20:
    hp 107 x 364.5/134 = 291.06 -> 291; 2d6 (7) x 13.25/7: lround(11.36) = 11 sides,
    bonus lround(13.25 - 12) = 1; saves -1 x 20/10 = -2; armor 30 x 5/3 = 50."""
    extra = "[content.creatures.grunt]\nnpc = true\nlevel = 10\ntier = 'normal'\n"
    world = built(make_world, 'template = "grunt"\nlevel = 20', extra)
    assert world.component("c", Vitals).hp == 291
    assert world.component("c", Offense).hand_dice == (2, 11, 1)
    defense = world.component("c", Defense)
    assert (defense.saving_throw, defense.armor_bash) == (-2, 50)


def test_a_tier_template_without_a_level_is_level_1(make_world):
    """Level 1 normal: hp lround(15 x 0.8) = 12, dmg 2 as 1d3 (lround(4 - 1)), AC -2."""
    extra = "[content.creatures.rat]\nnpc = true\ntier = 'normal'\n"
    world = built(make_world, 'template = "rat"', extra)
    assert world.component("c", Vitals).hp == 12
    assert world.component("c", Offense).hand_dice == (1, 3, 0)
    assert world.component("c", Defense).armor_bash == 20


def test_a_field_the_scenario_sets_wins_over_the_derived_one(make_world):
    """hp and one armor column set on the creature: they stay; the rest scale."""
    world = built(make_world, 'template = "human_warrior"\nlevel = 10\nhp = 110\n'
                              'armor = { slash = 5 }')
    assert world.component("c", Vitals).hp == 110
    assert world.component("c", Offense).hitroll == 14
    assert world.component("c", Defense).armor_slash == 5
    extra = "[content.creatures.guard]\nnpc = true\nlevel = 10\ntier = 'elite'\n"
    world = built(make_world, 'template = "guard"\narmor = { bash = 7 }\nsaving_throw = 3',
                  extra)
    defense = world.component("c", Defense)
    assert (defense.armor_bash, defense.armor_pierce, defense.saving_throw) == (7, 30, 3)


def test_a_template_that_states_no_level_and_no_tier_does_not_scale(make_world):
    extra = "[content.creatures.blob]\nnpc = true\nhp = 50\nhitroll = 5\n"
    world = built(make_world, 'template = "blob"\nlevel = 30', extra)
    assert world.component("c", Vitals).hp == 50
    assert world.component("c", Offense).hitroll == 5


def test_derived_fields_is_what_resolve_lays_under_the_entry():
    content = default_content()
    spec, _raw = parse_scenario(creature('template = "orc_brute"\nlevel = 10'), "t.toml")
    entry = spec.creatures[0]
    # 140 x 134/201 = 93.3; 2d6+4 x 14/19 = 2d4+3; 12 x 10/15; 6 x 14/19 = 4.42
    assert derived_fields(content, entry, content.creatures["orc_brute"]) == {
        "hp": 93, "damage": "2d4+3", "hitroll": 8, "damroll": 4}


# -- bad content -----------------------------------------------------------------------------
@pytest.mark.parametrize(("lines", "extra", "fragments"), [
    ('template = "g"', "[content.creatures.g]\nnpc = true\ntier = 'epic'\n",
     ("content.creatures.g", "field 'tier'", "unknown tier 'epic'", "levels.tiers")),
    ('template = "g"', "[content.creatures.g]\nnpc = true\ntier = 'normal'\nstyle = 'x'\n",
     ("field 'style'", "unknown style 'x'")),
    ('template = "g"', "[content.creatures.g]\nnpc = true\nstyle = 'brute'\n",
     ("field 'style'", "give the template a tier too")),
    ('template = "g"', "[content.creatures.g]\nplayer = true\ntier = 'normal'\n",
     ("field 'tier'", "an NPC's")),
    ('tier = "normal"', "", ("tier",)),  # a scenario creature has no tier
    ('template = "g"\nplayer = true', "[content.creatures.g]\nnpc = true\ntier = 'normal'\n",
     ("creature 'c'", "field 'player'", "template 'g' has a tier")),
    # level 1000 from level 1: hp 1000 x 251299/15 is past world.limits.max_hp
    ('template = "g"\nlevel = 1000', "[content.creatures.g]\nnpc = true\nlevel = 1\nhp = 1000\n",
     ("creature 'c'", "field 'level'", "level 1000 implies hp 16753267",
      "world.limits.max_hp")),
    # AC -1423.5 at 1000 over -2 at 5: bash -15 x 711.75; the entry's own pierce wins
    ('template = "husk"\nlevel = 1000\narmor = { pierce = 1 }',
     "[content.creatures.husk]\nnpc = true\nlevel = 5\nhp = 10\n"
     "armor = { bash = -15, pierce = 20 }\n",
     ("creature 'c'", "field 'level'", "level 1000 implies armor -10676", "max_armor")),
    ('template = "g"\nlevel = 1001', "[content.creatures.g]\nnpc = true\nlevel = 1\n",
     ("field 'level'", "1001 is outside 0..1000", "world.limits.max_level")),
    # a legend at level 1000: 251299 x 5.25 hit points
    ('template = "g"', "[content.creatures.g]\nnpc = true\nlevel = 1000\ntier = 'legend'\n",
     ("content.creatures.g", "field 'level'", "level 1000 implies hp 1319320")),
    # the kobold's 1d6+1 at level 1000: 6 x 10056.25/4.5 sides, past max_dice_sides
    ('template = "kobold"\nlevel = 1000', "",
     ("creature 'c'", "field 'level'", "level 1000 implies damage", "max_dice_sides")),
    ('template = "g"', "[content.creatures.g]\nnpc = true\nlevel = 1000\ntier = 'legend'\n"
                       "damage = '1d4'\nhp = 10\n",
     ("content.creatures.g", "field 'level'", "implies armor", "max_armor")),
    ("", "[content.levels.tiers.normal]\nhp = 0\n",
     ("content.levels", "field 'tiers[...].hp'", "> 0.0")),
    ("", "[content.levels.tiers.mighty]\nhp = 1.0\n", ("content.levels", "field 'tiers[...]'",
                                                      "missing required field `dmg`")),
    ("", "[content.levels.npc]\nhp = [1, 2]\n", ("levels", "npc.hp", "2 values for 12")),
    ("", "[content.levels.npc]\nac = [1, -2, -4, -6, -11, -15, -22, -35, -45, -54, -66, -81]\n",
     ("npc.ac", "level 1", "below 0")),
    ("", "[content.levels.npc]\nlevel = [1, 5, 5, 25, 35, 45, 55, 65, 75, 85, 95, 105]\n",
     ("npc.level", "must increase")),
    ("", "[content.levels.pc.melee]\nhp = [0, 200, 392, 656, 978, 1423, 1615, 1428, 1720, "
         "2915, 1]\n", ("pc.melee.hp", "level 1000", "above 0")),
    ("", "[content.levels.class_mult.dmg]\npilot = 2.0\n",
     ("class_mult.dmg", "unknown profession 'pilot'")),
])
def test_bad_level_content_is_a_clear_error(lines, extra, fragments):
    with pytest.raises(AffrayError) as caught:
        world_from_text(creature(lines, extra)).close()
    message = str(caught.value)
    assert "test.toml" in message
    for fragment in fragments:
        assert fragment in message, message


def test_every_tier_and_style_of_the_content_loads_up_to_the_top_level():
    """The bounds refuse only what does not fit: a normal brute at the highest level a
    default template can take damage dice for is fine (level 300)."""
    content = default_content()
    for tier in content.levels.tiers:
        for level in (0, 1, 4, 5, 6, 99, 105, 106, 300):
            got = tier_numbers(content, level, tier, "brute", "warrior")
            assert got.hp >= 1 and got.damage[0] >= 1 and got.damage[1] >= 2


# -- check and render show them --------------------------------------------------------------
TROLL = """name = "troll"
[map]
rows = ["#####", "#...#", "#####"]
[[creatures]]
id = "warrior"
template = "human_warrior"
at = [1, 1]
level = 10
hp = 110
[[creatures]]
id = "troll"
template = "troll"
at = [2, 1]
[[creatures]]
id = "orc"
template = "orc_brute"
at = [3, 1]
[content.creatures.troll]
npc = true
level = 12
tier = "elite"
style = "fortress"
hp = 220
"""


def affray_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "affray", *args], capture_output=True,
                          text=True, timeout=60, check=False)


def test_check_shows_the_derived_values(tmp_path):
    """The warrior's level-10 numbers, its own hp apart; the elite fortress troll's tier
    numbers at level 12 (dmg 8 x 1.4 x 0.75 = 8.4 -> 8: 2d7; hitroll 1.2 -> 1;
    saves -1.2 -> -1; AC -3.4 x 1.15 = -3.91 -> -4); the orc at its own level derives
    nothing and is not listed."""
    path = tmp_path / "troll.toml"
    path.write_text(TROLL)
    done = affray_cli("check", str(path))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        f"{path}: ok (scenario)",
        "  warrior: human_warrior (level 20) at level 10: hitroll 14, damroll 2; set by "
        "the scenario: hp 110",
        "  troll: troll (level 12, tier elite, style fortress) at level 12: hp 220, "
        "damage 2d7, hitroll 1, saving_throw -1, armor.bash 40, armor.pierce 40, "
        "armor.slash 40, armor.exotic 40",
    ]


def test_render_shows_the_derived_values(tmp_path):
    path = tmp_path / "troll.toml"
    path.write_text(TROLL)
    done = affray_cli("render", str(path))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "  @ warrior      hp 110/110 at [1, 1]" in lines
    tail = lines[lines.index("levels:"):]
    assert tail[1].startswith("  warrior: human_warrior (level 20) at level 10: hitroll 14")
    assert tail[2].startswith("  troll: troll (level 12, tier elite, style fortress)")
    assert len(tail) == 3


# -- saves -------------------------------------------------------------------------------------
def test_a_scaled_creature_survives_a_save_and_load(tmp_path, make_world):
    """The save keeps the numbers the level gave it; the load does not scale again."""
    extra = "[content.creatures.grunt]\nnpc = true\nlevel = 10\ntier = 'normal'\n"
    world = make_world(creature('template = "grunt"\nlevel = 20', extra) +
                       '[[creatures]]\nid = "w"\nat = [2, 1]\ntemplate = "human_warrior"\n'
                       "level = 10\n")
    path = tmp_path / "scaled.save"
    affray.data.save.save_world(world, path)
    loaded = affray.data.save.load_world(path)
    try:
        for ident in ("c", "w"):
            for kind in (Vitals, Offense, Defense, Level):
                assert loaded.component(ident, kind) == world.component(ident, kind)
        assert loaded.component("c", Vitals).hp == 291
        assert loaded.component("w", Offense).hitroll == 14
    finally:
        loaded.close()
    done = affray_cli("render", str(path))  # a save lists no levels: nothing is derived
    assert done.returncode == 0, done.stderr
    assert "  @ w            hp 92/92 at [2, 1]" in done.stdout.splitlines()
    assert "levels:" not in done.stdout


def test_the_levels_file_cites_its_source():
    text = (ROOT / "content" / "levels.toml").read_text(encoding="utf-8")
    for citation in ("fight/mob_tiers.json", "085b85d06e82dbe44d57071b7d9636cf07ec77c1",
                     "fight/pc_baseline.json", "source_notes.md", "section 12"):
        assert citation in text
