"""The level a spell is cast at (R-LVL-1..4): worked examples of every step.

Casters are players (an NPC skips every step, R-LVL-1) with intelligence and wisdom 13
(table bonus 0) unless a test says otherwise. Rolls are fixed by replacing the world's
rng with `Scripted`, which also checks the draws come in the rules' order.
"""

from __future__ import annotations

import math

import pytest
from test_magic import cast, events_of, pin_draws

import affray
from affray.systems.rules.spell_level import (
    cast_level,
    class_penalty,
    concentrate_factor,
    spell_level,
)

TEST_SPELL = "[content.spells.probe]\ntype = \"fire\"\n"


def probe(lines: str = "") -> str:
    """The probe spell's table: a fire bolt of range 8 unless `lines` say otherwise."""
    shape = "" if "shape" in lines else 'shape = "bolt"\n'
    reach = "" if "range" in lines else "range = 8\n"
    return TEST_SPELL + shape + reach + lines


class Scripted:
    """A stand-in for the world's rng: each draw must be the next expected one.

    `draws` holds ("percent", value) or ("range", (low, high), value) entries.
    """

    def __init__(self, *draws: tuple) -> None:
        self.draws = list(draws)

    def percent(self) -> int:
        assert self.draws, "an unexpected number_percent() draw"
        kind, *rest = self.draws.pop(0)
        assert kind == "percent", f"expected {kind}, drew number_percent()"
        return rest[-1]

    def number_range(self, low: int, high: int) -> int:
        assert self.draws, f"an unexpected number_range({low}, {high}) draw"
        kind, bounds, value = self.draws.pop(0)
        assert (kind, bounds) == ("range", (low, high)), f"drew number_range({low}, {high})"
        return value

    def done(self) -> bool:
        return not self.draws


def caster_world(duel, caster: str, spell: str = "", player: bool = True):
    """A duel whose attacker "a" is the caster; `spell` is extra lines of the probe spell."""
    lines = ("player = true\n" if player else "") + caster
    return duel(lines, "level = 10", extra=probe(spell))


def level_of(world, distance: int = 1, *draws: tuple):
    """Cast the probe spell with the given draws; every draw must be used."""
    rng = Scripted(*draws)
    world.rng = rng
    result = cast_level(world, world.sheet("a"), world.content.spells["probe"], distance)
    assert rng.done(), f"draws left over: {rng.draws}"
    return result


# -- R-LVL-1 ----------------------------------------------------------------------------
def test_r_lvl_1_mlevel_is_level_plus_remorts(duel):
    """R-LVL-1: mlevel = level + remorts: a witch of level 30 with 3 remorts has mlevel 33,
    minus the caster penalty 33/20 = 1 -> 32."""
    world = caster_world(duel, 'level = 30\nremorts = 3\nprofession = "witch"')
    assert level_of(world).level == 32
    assert spell_level(world, world.sheet("a"), world.content.spells["probe"], 1) == 32


def test_r_lvl_1_an_npc_casts_at_its_modify_level(duel):
    """R-LVL-1: an NPC casts at its level (with remorts): no class penalty, no skills, no
    table, no bonus, no roll."""
    world = caster_world(duel, 'level = 30\nremorts = 3\nprofession = "warrior"\n'
                         'stats = { int = 28 }\nskill_level_bonus = -9\n'
                         'skills = { spell_craft = 100, mastering_spell = 100 }',
                         player=False)
    assert level_of(world).level == 33
    zero = caster_world(duel, "level = 0", player=False)
    assert level_of(zero).level == 1  # R-LVL-4: at least 1


# -- R-LVL-2 ----------------------------------------------------------------------------
@pytest.mark.parametrize(("profession", "level", "expected"), [
    ("witch", 47, 45),     # caster: 47/20 = 2
    ("witch", 19, 19),     # caster: 19/20 = 0
    ("cleric", 99, 95),    # caster: 99/20 = 4
    ("paladin", 47, 45),   # hybrid: max(2, 47/16 = 2)
    ("vampire", 63, 60),   # hybrid: 63/16 = 3
    ("paladin", 9, 7),     # hybrid: at least 2
    ("thief", 47, 44),     # agile: max(3, 47/13 = 3)
    ("ninja", 67, 62),     # agile: 67/13 = 5
    ("thief", 5, 2),       # agile: at least 3
    ("warrior", 47, 42),   # other: max(5, 47/10 = 4)
    ("samurai", 73, 66),   # other: 73/10 = 7
    ("mobile", 11, 6),     # other: at least 5
])
def test_r_lvl_2_class_penalty_by_profession_flag(duel, profession, level, expected):
    """R-LVL-2: caster mlevel/20; hybrid max(2, mlevel/16); agile max(3, mlevel/13);
    other max(5, mlevel/10)."""
    world = caster_world(duel, f'level = {level}\nprofession = "{profession}"')
    result = level_of(world)
    assert result.steps[0] == ("class_penalty", expected)
    assert result.level == expected


def test_r_lvl_2_penalty_table():
    """R-LVL-2: the penalty alone, per flag, at odd levels."""
    assert [class_penalty("caster", n) for n in (1, 39, 41, 101)] == [0, 1, 2, 5]
    assert [class_penalty("hybrid", n) for n in (1, 47, 49, 81)] == [2, 2, 3, 5]
    assert [class_penalty("agile", n) for n in (1, 51, 53, 105)] == [3, 3, 4, 8]
    assert [class_penalty("other", n) for n in (1, 59, 61, 99)] == [5, 5, 6, 9]


def test_r_lvl_4_a_low_level_warrior_still_casts_at_1(duel):
    """R-LVL-4: a level 3 warrior is at 3 - 5 = -2 after its penalty; the table step's
    floor lifts it to 1 (only a refused prayer or the skill-level bonus can fail)."""
    result = level_of(caster_world(duel, 'level = 3\nprofession = "warrior"'))
    assert result.steps[0] == ("class_penalty", -2)
    assert (result.level, result.failed, result.refused) == (1, False, None)


# -- R-LVL-3: prayer without religion ------------------------------------------------------
PRAYER = "prayer = true\n"


def test_r_lvl_3_a_prayer_without_religion_keeps_100_minus_2_mlevel_percent(duel):
    """R-LVL-3: a cleric of level 21 (20 after its penalty) with no religion keeps 58%:
    20 * 58 / 100 = 11; with a religion it keeps all 20; a non-prayer is untouched."""
    world = caster_world(duel, 'level = 21\nprofession = "cleric"', PRAYER)
    assert level_of(world).level == 11
    named_none = caster_world(duel, 'level = 21\nprofession = "cleric"\nreligion = "none"',
                              PRAYER)
    assert level_of(named_none).level == 11
    believer = caster_world(duel, 'level = 21\nprofession = "cleric"\nreligion = "gods"',
                            PRAYER)
    assert level_of(believer).level == 20
    magic = caster_world(duel, 'level = 21\nprofession = "cleric"')
    assert level_of(magic).level == 20


@pytest.mark.parametrize(("level", "expected", "refused"), [
    (48, 1, None),        # 46 * 4 / 100 = 1: still heard
    (49, 0, "prayer"),    # 47 * 2 / 100 = 0: refused
    (50, 0, "prayer"),    # 48 * 0 = 0
    (61, -12, "prayer"),  # 58 * -22 / 100 = -12.76 -> -12 (truncated)
])
def test_r_lvl_3_and_4_the_prayer_is_refused_at_0_or_below(duel, level, expected, refused):
    """R-LVL-3 / R-LVL-4: at 0 or below the prayer is refused and the cast fails; no roll
    and no later step runs."""
    world = caster_world(duel, f'level = {level}\nprofession = "cleric"\nclan = "shalafi"\n'
                         'stats = { wis = 28 }\nskills = { spell_craft = 100 }', PRAYER)
    if refused:
        result = level_of(world)  # no draws: refused before spell craft
        assert (result.level, result.failed, result.refused) == (expected, True, refused)
    else:
        result = level_of(world, 1, ("percent", 100))  # spell craft fails
        assert result.steps[1] == ("no_religion", expected)


def test_r_lvl_3_the_prayer_scaling_needs_mlevel_above_1(duel):
    """R-LVL-3: at mlevel 1 the level is not scaled (1 * 98 / 100 would refuse it); a
    warrior of level 1 (1 - 5 = -4) is still refused."""
    assert level_of(caster_world(duel, 'level = 1\nprofession = "cleric"', PRAYER)).level == 1
    warrior = level_of(caster_world(duel, 'level = 1\nprofession = "warrior"', PRAYER))
    assert (warrior.level, warrior.refused) == (-4, "prayer")


# -- R-LVL-3: Shalafi -----------------------------------------------------------------------
@pytest.mark.parametrize(("level", "before", "after"), [
    (47, 42, 44),   # max(42, (42 + 47) / 2 = 44)
    (33, 28, 30),   # (28 + 33) / 2 = 30.5 -> 30
    (1, -4, -1),    # (-4 + 1) / 2 = -1.5 -> -1 (truncated toward zero, not -2)
])
def test_r_lvl_3_shalafi_keep_half_the_penalty(duel, level, before, after):
    """R-LVL-3: the Shalafi clan: max(slevel, (slevel + mlevel) / 2)."""
    world = caster_world(duel, f'level = {level}\nprofession = "warrior"\nclan = "shalafi"')
    steps = level_of(world).steps
    assert steps[:2] == (("class_penalty", before), ("shalafi", after))
    other_clan = caster_world(duel, f'level = {level}\nprofession = "warrior"\nclan = "x"')
    assert "shalafi" not in dict(level_of(other_clan).steps)


# -- R-LVL-3: skills at their roll boundary -------------------------------------------------
WITCH_47 = 'level = 47\nprofession = "witch"\n'  # 45 after the penalty


def test_r_lvl_3_spell_craft_success_casts_at_mlevel(duel):
    """R-LVL-3: spell craft 60: number_percent() < 60 casts at mlevel 47; 60 does not."""
    world = caster_world(duel, WITCH_47 + "skills = { spell_craft = 60 }")
    assert level_of(world, 1, ("percent", 59)).level == 47
    assert level_of(world, 1, ("percent", 60)).level == 45
    unlearned = caster_world(duel, WITCH_47)
    assert level_of(unlearned).level == 45  # no skill, no roll


def test_r_lvl_3_and_r_lag_3_daze_halves_spell_craft(duel):
    """R-LVL-3 / R-LAG-3: dazed, spell craft 60 counts 30: 29 passes, 30 fails."""
    world = caster_world(duel, WITCH_47 + "skills = { spell_craft = 60 }")
    world.set_daze("a", 10)
    assert level_of(world, 1, ("percent", 29)).level == 47
    assert level_of(world, 1, ("percent", 30)).level == 45


@pytest.mark.parametrize(("group", "skill", "value", "expected"), [
    ("maladictions", "improved_maladiction", 75, 47 + 3),
    ("benedictions", "improved_benediction", 99, 47 + 4),
    ("healing", "holy_remedy", 41, 47 + 2),
    ("curative", "holy_remedy", 19, 47 + 0),
])
def test_r_lvl_3_improved_casting_by_group(duel, group, skill, value, expected):
    """R-LVL-3: improved maladiction / benediction / holy remedy, by the spell's group:
    number_percent() < skill -> mlevel + skill/20; at the skill itself it fails."""
    world = caster_world(duel, WITCH_47 + f"skills = {{ {skill} = {value} }}",
                         f'group = "{group}"\n')
    assert level_of(world, 1, ("percent", value - 1)).level == expected
    assert level_of(world, 1, ("percent", value)).level == 45


def test_r_lvl_3_improved_casting_needs_its_group(duel):
    """R-LVL-3: improved maladiction does nothing (and rolls nothing) for a blessing."""
    world = caster_world(duel, WITCH_47 + "skills = { improved_maladiction = 100 }",
                         'group = "benedictions"\n')
    assert level_of(world).level == 45


def test_r_lvl_3_a_later_success_overwrites_an_earlier_one(duel):
    """R-LVL-3: spell craft sets 47, then improved maladiction sets 47 + 80/20 = 51; when
    only spell craft succeeds, 47 stands."""
    world = caster_world(duel, WITCH_47 + "skills = { spell_craft = 60, "
                         "improved_maladiction = 80 }", 'group = "maladictions"\n')
    both = level_of(world, 1, ("percent", 10), ("percent", 10))
    assert both.steps[1:] == (("spell_craft", 47), ("improved_maladiction", 51),
                              ("int_app", 51), ("skill_level_bonus", 51))
    assert level_of(world, 1, ("percent", 10), ("percent", 80)).level == 47


# -- R-LVL-3: magic concentrate -------------------------------------------------------------
@pytest.mark.parametrize(("distance", "expected"), [(1, 54), (4, 44), (8, 35)])
def test_r_lvl_3_magic_concentrate_scales_by_distance(duel, distance, expected):
    """R-LVL-3: range 8: A0 = 8 / (12 ln(1 + 8/12)) = 1.30507; f = A0 / (1 + x/12):
    x=1: 1.20469 * 45 = 54.2 -> 54; x=4: 0.97881 * 45 = 44.0 -> 44; x=8: 0.78305 * 45 =
    35.2 -> 35. Closer is stronger."""
    world = caster_world(duel, WITCH_47 + 'affects = ["magic_concentrate"]')
    assert level_of(world, distance).level == expected


def test_r_lvl_3_magic_concentrate_curve():
    """R-LVL-3: the factor itself, against the closed form; range 0 counts as 1."""
    a0 = 8 / (12 * math.log(1 + 8 / 12))
    assert a0 == pytest.approx(1.3050768)
    for x in (0, 1, 4, 8):
        assert concentrate_factor(8, x) == pytest.approx(a0 / (1 + x / 12))
    assert concentrate_factor(0, 0) == concentrate_factor(1, 0) == pytest.approx(
        1 / (12 * math.log(1 + 1 / 12)))


@pytest.mark.parametrize("spell", [
    PRAYER, "offensive = false\n", 'shape = "touch"\nrange = 1\n', "range = 0\n"])
def test_r_lvl_3_magic_concentrate_only_for_ranged_offensive_magic(duel, spell):
    """R-LVL-3: prayers, non-offensive spells, touches and range 0 are not scaled."""
    world = caster_world(duel, WITCH_47 + 'religion = "gods"\naffects = ["magic_concentrate"]',
                         spell)
    assert "magic_concentrate" not in dict(level_of(world, 1).steps)


# -- R-LVL-3: mastering spell --------------------------------------------------------------
def test_r_lvl_3_mastering_spell_adds_1_to_4(duel):
    """R-LVL-3: mastering spell 50: number_percent() < 50 adds number_range(1, 4); at 50
    nothing is added and no range is drawn."""
    world = caster_world(duel, WITCH_47 + "skills = { mastering_spell = 50 }")
    result = level_of(world, 1, ("percent", 49), ("range", (1, 4), 4))
    assert (result.level, result.mana_refund) == (49, 0.0)
    assert level_of(world, 1, ("percent", 49), ("range", (1, 4), 1)).level == 46
    assert level_of(world, 1, ("percent", 50)).level == 45


def test_r_lvl_3_mastering_with_the_clan_upgrade_adds_1_to_5_and_refunds(duel):
    """R-LVL-3: the clan upgrade (skill clan_mastering): 1..5, and a tenth of the mana
    back; no refund when mastering fails."""
    world = caster_world(duel, WITCH_47 + "skills = { mastering_spell = 50, "
                         "clan_mastering = 1 }")
    result = level_of(world, 1, ("percent", 49), ("range", (1, 5), 5))
    assert (result.level, result.mana_refund) == (50, 0.1)
    assert level_of(world, 1, ("percent", 50)).mana_refund == 0.0


# -- R-LVL-3: intelligence and wisdom tables ------------------------------------------------
@pytest.mark.parametrize(("stats", "spell", "expected"), [
    ("int = 28, wis = 13", "", 45 + 7),
    ("int = 22, wis = 28", "", 45 + 1),
    ("int = 21, wis = 28", "", 45),
    ("int = 28, wis = 25", PRAYER, 45 + 4),
    ("int = 28, wis = 21", PRAYER, 45),
])
def test_r_lvl_3_intelligence_or_wisdom_for_prayers(duel, stats, spell, expected):
    """R-LVL-3: int_app slevel (0 to 21, then 1..7 for 22..28); wis_app for prayers."""
    world = caster_world(duel, WITCH_47 + f'religion = "gods"\nstats = {{ {stats} }}', spell)
    assert level_of(world).level == expected


def test_r_lvl_3_the_table_step_has_a_floor_of_1(duel):
    """R-LVL-3: max(1, slevel + table): a level 3 warrior (-2) with int 23 (+2) -> 1;
    with int 28 (+7) -> 5."""
    world = caster_world(duel, 'level = 3\nprofession = "warrior"\nstats = { int = 23 }')
    assert level_of(world).level == 1
    clever = caster_world(duel, 'level = 3\nprofession = "warrior"\nstats = { int = 28 }')
    assert level_of(clever).level == 5


# -- R-LVL-3 / R-LVL-4: the skill-level bonus ---------------------------------------------
@pytest.mark.parametrize(("bonus", "expected", "failed"), [
    (3, 4, False),    # after the floor: 1 + 3, not max(1, -2 + 3) = 1
    (-1, 0, True),    # the floor's 1 pushed to 0: the cast fails
    (-4, -3, True),
])
def test_r_lvl_3_and_4_skill_level_bonus_comes_last(duel, bonus, expected, failed):
    """R-LVL-3 / R-LVL-4: the bonus is added after the table's floor and may take the
    level below 1, which fails the cast."""
    world = caster_world(duel, f'level = 3\nprofession = "warrior"\n'
                         f'skill_level_bonus = {bonus}')
    result = level_of(world)
    assert (result.level, result.failed) == (expected, failed)
    assert result.refused == ("skill_level_bonus" if failed else None)


# -- every step together, in order ---------------------------------------------------------
def test_r_lvl_3_every_step_in_the_seeds_order(duel):
    """R-LVL-1..3: a Shalafi witch of level 40 with 7 remorts (mlevel 47) casting a
    maladiction 4 cells away with every skill: the draws come in the order spell craft,
    improved maladiction, mastering's roll and its 1..5, and each step builds on the
    last: 45 (penalty 2), 46 (Shalafi), 47 (craft), 50 (47 + 75/20), 48 (0.97881 * 50 =
    48.9), 51 (mastering +3), 54 (int 24: +3), 52 (bonus -2)."""
    world = caster_world(
        duel, 'level = 40\nremorts = 7\nprofession = "witch"\nclan = "shalafi"\n'
        'affects = ["magic_concentrate"]\nstats = { int = 24 }\nskill_level_bonus = -2\n'
        'skills = { spell_craft = 60, improved_maladiction = 75, mastering_spell = 90, '
        'clan_mastering = 1 }', 'group = "maladictions"\n')
    result = level_of(world, 4, ("percent", 1), ("percent", 1), ("percent", 1),
                      ("range", (1, 5), 3))
    concentrated = int(concentrate_factor(8, 4) * 50)
    assert concentrated == 48
    assert result.steps == (("class_penalty", 45), ("shalafi", 46), ("spell_craft", 47),
                            ("improved_maladiction", 50), ("magic_concentrate", 48),
                            ("mastering_spell", 51), ("int_app", 54),
                            ("skill_level_bonus", 52))
    assert (result.level, result.mana_refund, result.failed) == (52, 0.1, False)


# -- the new creature fields: bad values fail at load ----------------------------------------
@pytest.mark.parametrize(("line", "field"), [
    ('clan = "Shalafi Clan"', "clan"),
    ('clan = ""', "clan"),
    ('religion = "Mota!"', "religion"),
    ("skill_level_bonus = 101", "skill_level_bonus"),
    ("skill_level_bonus = -101", "skill_level_bonus"),
])
def test_r_lvl_3_bad_spell_level_fields_fail_at_load(duel, line, field):
    """R-LVL-3: clan and religion are lowercase names; the bonus is -100..100."""
    with pytest.raises(affray.AffrayError, match=f"field '{field}'"):
        duel(line)


def test_r_lvl_3_bad_spell_group_fails_at_load(duel):
    """R-LVL-3: a spell's group is one of none, maladictions, benedictions, healing,
    curative."""
    with pytest.raises(affray.ContentError, match=r"probe.*group"):
        duel(extra=probe('group = "curses"\n'))


# -- end to end: the `cast` event's level ----------------------------------------------------
def cast_events(world, monkeypatch, percents=()):
    """Cast the probe spell from "a" at "v" (distance 1) through the Spell system, with
    number_percent() pinned to `percents` (each used once, none more); its cast events."""
    pin_draws(world, monkeypatch, "percent", list(percents))
    log = cast(world, "a", "probe", "v")
    return [event for event in log if event["kind"] in ("cast", "cast_failed")]


@pytest.mark.parametrize(("caster", "percents", "level"), [
    ('level = 30\nremorts = 3\nprofession = "warrior"', None, 33),  # R-LVL-1: an NPC
    ('player = true\nlevel = 30\nremorts = 3\nprofession = "warrior"', (), 28),  # R-LVL-2
    ('player = true\nlevel = 47\nprofession = "witch"\nclan = "shalafi"\n'
     'affects = ["magic_concentrate"]\nstats = { int = 28 }', (), 62),  # 46 -> 55 -> 62
    ('player = true\nlevel = 47\nprofession = "witch"\nskills = { spell_craft = 60 }',
     (59,), 47),
    ('player = true\nlevel = 47\nprofession = "witch"\nskills = { spell_craft = 60 }',
     (60,), 45),
])
def test_r_lvl_1_to_3_end_to_end(duel, monkeypatch, caster, percents, level):
    """R-LVL-1..3 end to end: the `cast` event carries the spell level: an NPC at its
    modify level 33; a player warrior 33 - 5 = 28; a Shalafi witch with magic
    concentrate 1 cell away and intelligence 28: 45 -> 46 -> int(1.20469 * 46) = 55 ->
    62; spell craft 60 at the roll boundary (59: 47, 60: 45)."""
    world = duel(caster, "hp = 1000", extra=probe('save = "none"\n'))  # no save roll
    events = cast_events(world, monkeypatch, percents or ())
    assert [(e["kind"], e["level"]) for e in events] == [("cast", level)]


@pytest.mark.parametrize(("caster", "spell", "level"), [
    ('player = true\nlevel = 49\nprofession = "cleric"', PRAYER, 0),
    ('player = true\nlevel = 3\nprofession = "warrior"\nskill_level_bonus = -1', "", 0),
])
def test_r_lvl_4_a_cast_at_0_fails_end_to_end(duel, monkeypatch, caster, spell, level):
    """R-LVL-4 end to end: a prayer refused for want of religion (47 * 2 / 100 = 0) and
    a skill-level bonus of -1 on a level-1 cast both log `cast` at level 0, then
    `cast_failed`, and strike no one."""
    world = duel(caster, "hp = 1000", extra=probe(spell + 'save = "none"\ndamage = 5\n'))
    events = cast_events(world, monkeypatch)
    assert [(e["kind"], e["level"]) for e in events] == [("cast", level),
                                                         ("cast_failed", level)]
    assert events_of(world, "damage") == []
