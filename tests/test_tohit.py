"""To-hit and armor: the legacy THAC0 model, the armor model's hit chance and roll.

R-HIT-1..7, R-HIT-10. Statistical tests use a fixed seed and a 4-sigma binomial tolerance.
"""

from __future__ import annotations

import pytest
from conftest import four_sigma, make_hit

from affray.core.rng import Rng
from affray.systems.rules import tohit
from affray.systems.rules.protections import armor as armor_step

WARRIOR_50 = ('profession = "warrior"\nlevel = 50\nhitroll = 49\nstats = { str = 20 }\n'
              'skills = { dagger = 100 }\nwield = "dagger"\nplayer = true')
PIERCE_200 = 'level = 50\narmor = { pierce = 200 }\nstats = { dex = 20 }'


def test_r_hit_1_legacy_worked_example(duel):
    """R-HIT-1: source_notes section 4's example: a level-50 warrior (hitroll 49, STR 20,
    100% weapon) against pierce armor -200 and DEX 20 needs d >= -14."""
    world = duel(WARRIOR_50, PIERCE_200)
    attacker, victim = world.sheet("a"), world.sheet("v")
    skill = 20 + 100
    thac0 = tohit.legacy_thac0(attacker, skill, world.content)
    ac = tohit.legacy_armor_class(victim, "pierce", world.content)
    assert (thac0, ac, thac0 - ac) == (-37, -23, -14)


def test_r_hit_1_legacy_truncates_toward_zero_on_negatives(duel):
    """R-HIT-1: thac0 halving and compression, and AC compression, truncate toward zero
    (Python's floor would give other numbers)."""
    # level 7 warrior: interpolate = 18 + 7*(-28)/32 = 18 - 6 = 12 (floor: 18 - 7 = 11)
    world = duel('profession = "warrior"\nlevel = 7\nhitroll = 3\nskills = { dagger = 30 }\n'
                 'wield = "dagger"', 'level = 9\narmor = { slash = 333 }\nstats = { dex = 7 }')
    attacker = world.sheet("a")
    # hr = 3 - 7/2 = 0 -> thac0 12 - 0 + 5*(100-50)/100 = 12 + 2 = 14
    assert tohit.legacy_thac0(attacker, 50, world.content) == 14
    # AC: -333/10 = -33 (floor -34) -> ((-33+20)*2)/3 - 20 = -26/3 - 20 = -8 - 20 = -28
    assert tohit.legacy_armor_class(world.sheet("v"), "slash", world.content) == -28
    # level 70 warrior: 18 + 70*(-28)/32 = 18 - 61 = -43 -> -21 -> -5 + (-16)/2 = -13
    high = duel('profession = "warrior"\nlevel = 70\nhitroll = 35', "")
    assert tohit.legacy_thac0(high.sheet("a"), 100, high.content) == -13


def test_r_hit_1_legacy_roll_only_the_automatic_miss_remains(duel):
    """R-HIT-1: at -14 needed, every face but 0 hits: the hit rate is 19/20."""
    world = duel(WARRIOR_50, PIERCE_200, extra='[content.fight]\nmodel = "legacy"\n')
    attacker, victim = world.sheet("a"), world.sheet("v")
    rng, n = Rng(3), 20000
    hits = sum(tohit.roll_legacy(attacker, victim, 120, "pierce", rng, world.content, 0, 0).hit
               for _ in range(n))
    assert abs(hits / n - 0.95) <= four_sigma(0.95, n)


def test_r_hit_1_legacy_hobbit_hits_on_the_zero_face_and_sleepers_are_easier(duel):
    """R-HIT-1: face 0 is a hit for a hobbit; a victim below fighting gets AC +4, asleep
    +6 more, with no movement points +10."""
    world = duel('level = 1\nrace = "hobbit"', 'level = 1\narmor = { bash = 40 }',
                 extra='[content.fight]\nmodel = "legacy"\n')
    attacker, victim = world.sheet("a"), world.sheet("v")
    # mobile level 1: thac0 = 20 + (1 * -24) / 32 = 20; hr = 0; skill 62: + 5*38/100 = 1
    assert tohit.legacy_thac0(attacker, 62, world.content) == 21
    assert tohit.legacy_armor_class(victim, "bash", world.content) == -4
    rng, n = Rng(9), 20000

    def rate() -> float:
        return sum(tohit.roll_legacy(attacker, victim, 62, "bash", rng, world.content, 0,
                                     0).hit for _ in range(n)) / n

    # needs d >= 25: only face 19 and (a hobbit's) face 0 hit: 2 in 20
    assert abs(rate() - 0.10) <= four_sigma(0.10, n)
    victim.vitals.position = "sleeping"
    victim.vitals.move = 0
    # AC -4 + 4 + 6 + 10 = 16: needs d >= 5: faces 5..19 and 0: 16 in 20
    assert abs(rate() - 0.80) <= four_sigma(0.80, n)


def test_r_hit_2_accuracy_class_base_and_effective_hitroll(duel, make_world):
    """R-HIT-2: classBase = 20 - interpolate(level, thac00, thac32), never below 1;
    effective hitroll = hitroll * skill% * (1 + strength hit bonus)."""
    world = duel(WARRIOR_50, 'profession = "witch"\nlevel = 50')
    warrior, witch = world.sheet("a"), world.sheet("v")
    assert tohit.class_base(warrior) == 45          # 20 - (18 - 43)
    assert tohit.class_base(witch) == 20            # 20 - (18 + 50*(-12)/32 = 0)
    assert tohit.effective_hitroll(warrior, 120, world.content) == pytest.approx(49 * 1.2 * 1.04)
    assert tohit.accuracy(warrior, 120, world.content) == pytest.approx(2 * 45 + 61.152)
    low = duel('profession = "clumsy"\nlevel = 0', extra=(
        '[content.professions.clumsy]\nthac00 = 25\nthac32 = 25\nflag = "other"\n'))
    assert tohit.class_base(low.sheet("a")) == 1    # 20 - 25 < 1


def test_r_hit_3_evasion_terms(duel):
    """R-HIT-3: ev_level * Lv + ev_dex * (-dex defensive) * min(1, Lv/100); halved below
    fighting or with no movement; x blind_factor for a blind attacker who fails."""
    knobs = "[content.fight.armor]\nev_level = 1.4\nev_dex = 1.0\nblind_factor = 1.5\n"
    world = duel("", "level = 50\nstats = { dex = 20 }", extra=knobs)
    victim, content = world.sheet("v"), world.content
    assert tohit.evasion(victim, content, False) == pytest.approx(1.4 * 50 + 50 * 0.5)
    assert tohit.evasion(victim, content, True) == pytest.approx(95 * 1.5)
    victim.vitals.position = "sitting"
    assert tohit.evasion(victim, content, False) == pytest.approx(47.5)
    victim.vitals.position = "standing"
    victim.vitals.move = 0
    assert tohit.evasion(victim, content, False) == pytest.approx(47.5)
    high = duel("", "level = 150\nstats = { dex = 25 }", extra=knobs)  # min(1, Lv/100): 1
    assert tohit.evasion(high.sheet("v"), content, False) == pytest.approx(1.4 * 150 + 120)


def test_r_hit_3_armor_use_adds_armor_per_level(duel):
    """R-HIT-3: a successful armor-use roll (number_percent() < effective) adds
    armor_use_bonus armor per victim level (0.5 x 40 = 20, exactly). Pinned draws: with
    armor use 100 a draw of 99 succeeds and 100 fails (a 1% failure, not "always");
    with 60, 59 succeeds and 60 fails; effective 1 means never practised: no roll."""
    from fixed_draws import PinnedRng

    world = duel('level = 30\nhitroll = 10', 'level = 40\nskills = { armor_use = 100 }')
    attacker, victim = world.sheet("a"), world.sheet("v")

    def bonus(draw: int, effective: int) -> tuple[object, int]:
        rng = PinnedRng(1, draw)
        roll = tohit.roll_armor_model(attacker, victim, 100, rng, world.content, 0, effective)
        return roll.armor_bonus, rng.draws

    assert bonus(99, 100) == (20, 1)
    assert bonus(100, 100) == (0, 1)
    assert bonus(59, 60) == (20, 1)
    assert bonus(60, 60) == (0, 1)
    assert bonus(1, 1) == (0, 0)  # effective 1: never practised, no draw


def test_r_hit_4_hit_chance_is_the_power_ratio_clamped(duel):
    """R-HIT-4: P = acc^p / (acc^p + ev^p), clamped to p_floor..p_cap."""
    content = duel().content
    assert tohit.hit_chance(200.0, 100.0, content) == pytest.approx(0.8)
    assert tohit.hit_chance(100.0, 100.0, content) == pytest.approx(0.5)
    assert tohit.hit_chance(1.0, 1000.0, content) == 0.05
    assert tohit.hit_chance(1000.0, 1.0, content) == 0.95
    assert tohit.hit_chance(0.0, 10.0, content) == 0.05
    assert tohit.hit_chance(10.0, 0.0, content) == 0.95


@pytest.mark.parametrize("chance", [0.05, 0.3, 0.77, 0.95])
def test_r_hit_5_overall_hit_rate_equals_p(duel, chance):
    """R-HIT-5: 1 in 20 misses, 1 in 20 is a critical, the rest hit at (P - .05)/.9:
    over many rolls the hit rate is P and the critical rate 5%."""
    content = duel().content
    rng, n = Rng(2024), 40000
    rolls = [tohit.roll_d20(chance, False, rng, content) for _ in range(n)]
    hits = sum(hit for hit, _crit in rolls) / n
    crits = sum(crit for _hit, crit in rolls) / n
    assert abs(hits - chance) <= four_sigma(chance, n)
    assert abs(crits - 0.05) <= four_sigma(0.05, n)


def test_r_hit_5_a_hobbits_miss_becomes_a_critical(duel):
    """R-HIT-5: a hobbit's automatic-miss face is a critical: crits 10%, hits P + 5%."""
    content = duel().content
    rng, n, chance = Rng(77), 40000, 0.6
    rolls = [tohit.roll_d20(chance, True, rng, content) for _ in range(n)]
    crits = sum(crit for _hit, crit in rolls) / n
    hits = sum(hit for hit, _crit in rolls) / n
    assert abs(crits - 0.10) <= four_sigma(0.10, n)
    assert abs(hits - 0.65) <= four_sigma(0.65, n)


def test_r_hit_5_a_critical_multiplies_damage_by_three_halves_before_protections(duel):
    """R-HIT-5: a critical blow's damage x critical_multiplier (3/2) before protections."""
    extra = "[content.fight]\nauto_miss_in_20 = 0\nauto_critical_in_20 = 20\n"
    world = duel("level = 10", "level = 10\nhp = 500", extra=extra)

    def fixed(hit, w):
        hit.dam = 13

    world.rules.add_modifier("melee", fixed)
    world.start_fight("a", "v")
    world.tick()
    blow = next(e.to_dict() for e in world.events if e.kind == "damage" and e.source == "a")
    assert blow["critical"] is True
    assert blow["raw"] == 19           # 13 * 3 / 2, truncated
    assert blow["amount"] == 15        # flat trim: 19 * 4 / 5


def test_r_hit_6_knobs_come_from_the_fight_config(duel):
    """R-HIT-6: changing a knob in content changes the rule, no code change."""
    world = duel(WARRIOR_50, "", extra="[content.fight.armor]\nbase_w = 3.0\nev_level = 2.0\n")
    assert tohit.accuracy(world.sheet("a"), 120, world.content) == pytest.approx(3 * 45 + 61.152)
    assert world.content.fight.armor.ev_level == 2.0
    assert world.content.fight.armor.hit_pow == 2.0  # untouched knob keeps its default


@pytest.mark.parametrize(
    ("damage_type", "column_armor", "expected"),
    [
        # bash, pierce, slash: own column, pierced by the attacker's effective hitroll (60)
        ("bash", 'armor = { bash = 150 }', 37 - int(37 * (150 / 210) / (1 + 150 / 210))),
        ("slash", 'armor = { slash = 150, bash = 999 }',
         37 - int(37 * (150 / 210) / (1 + 150 / 210))),
        # energy: the exotic column, same pierce
        ("energy", 'armor = { exotic = 150 }', 37 - int(37 * (150 / 210) / (1 + 150 / 210))),
        # fire: exotic * 0.5, pierced by attacker level 20 * 2 = 40: k = 150 + 40
        ("fire", 'armor = { exotic = 150 }', 37 - int(37 * (75 / 190) / (1 + 75 / 190))),
        # poison: not reduced by armor
        ("poison", 'armor = { exotic = 150, bash = 150 }', 37),
    ],
)
def test_r_hit_7_armor_column_and_pierce_by_damage_type(duel, damage_type, column_armor,
                                                         expected):
    """R-HIT-7: which column and which pierce each damage type meets (victim level 50:
    k = 3 * 50 + pierce)."""
    world = duel("level = 20", f"level = 50\n{column_armor}")
    hit = make_hit(world, 37, damage_type)
    hit.pierce = 60
    armor_step(hit, world)
    assert hit.dam == expected


def test_r_hit_10_armor_points_protect_more_when_higher_and_gear_adds(duel):
    """R-HIT-10: armor points, higher protects more; worn gear adds to the creature's own;
    the legacy model reads AC = -points."""
    world = duel("", 'level = 20\narmor = { slash = 10 }\nwear = ["chain_mail"]')
    victim = world.sheet("v")
    assert victim.armor("slash") == 10 + 60
    less, more = make_hit(world, 40, "slash"), make_hit(world, 40, "slash")
    armor_step(less, world)
    victim.defense.armor_slash = 200
    armor_step(more, world)
    assert more.dam < less.dam < 40
    # legacy AC = -points: -260/10 = -26, compressed: ((-26 + 20) * 2) / 3 - 20 = -24
    assert tohit.legacy_armor_class(victim, "slash", world.content) == -24


def test_r_hit_10_armor_model_is_on_in_default_content(duel):
    """R-HIT-10: the armor model is on by default; legacy gives no armor reduction."""
    world = duel("", "level = 20\narmor = { bash = 300 }")
    assert world.content.fight.model == "armor"
    legacy = duel("", "level = 20\narmor = { bash = 300 }",
                  extra='[content.fight]\nmodel = "legacy"\n')
    on, off = make_hit(world, 40, "bash"), make_hit(legacy, 40, "bash")
    armor_step(on, world)
    armor_step(off, legacy)
    assert on.dam < 40 and off.dam == 40


def test_r_stat_2_sluggish_multiplies_evasion_with_a_floor(duel):
    """R-STAT-2 (evasion part): Sluggish d multiplies evasion by 1 - 0.1 d, never
    below 0.5."""
    knobs = "[content.fight.armor]\nev_level = 1.4\nev_dex = 1.0\n"
    plain = duel("", "level = 50\nstats = { dex = 20 }", extra=knobs)
    base = tohit.evasion(plain.sheet("v"), plain.content, False)
    for degree, factor in ((1, 0.9), (3, 0.7), (5, 0.5), (8, 0.5)):
        victim = f"level = 50\nstats = {{ dex = 20 }}\nstatuses = {{ sluggish = {degree} }}"
        world = duel("", victim, extra=knobs)
        assert tohit.evasion(world.sheet("v"), world.content, False) == pytest.approx(
            base * factor)
