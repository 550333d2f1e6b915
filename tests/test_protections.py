"""Protections (SPEC section 4), the damage pipeline (section 3) and armor reduction
(R-HIT-7..9), on worked examples with odd values (C++ truncating division).

A single step is run on a `Hit` built with `make_hit`; the whole list through `protect`
or through `World.damage`, which returns the hit points lost and logs an event.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product as itertools_product

import msgspec
import pytest
from conftest import fixed_blow, last_event, make_hit

from affray.systems.rules.hit import VictimDeath
from affray.systems.rules.protections import (
    alignment,
    armor_reduction,
    default_protections,
    flat_trim,
    liturgy,
    protect,
    sanctuary,
    temperature,
)

# ---------------------------------------------------------------------------------------
# R-PROT-1: sanctuary / stardust, else dark shroud, else resistance


@pytest.mark.parametrize(("affects", "dam", "expected"), [
    ('["sanctuary"]', 37, 18),
    ('["sanctuary"]', 1, 0),
    ('["stardust"]', 37, 18),
    ('["stardust"]', 11, 5),
    ('["dark_shroud"]', 37, 22),   # 37*6/10 = 222/10 = 22
    ('["dark_shroud"]', 1, 0),     # 6/10 = 0
    ('["dark_shroud", "clan_guard"]', 37, 18),
    ('["resistance"]', 37, 23),    # 37 - 74/5 = 37 - 14
    ('["resistance"]', 3, 2),      # 3 - 6/5 = 3 - 1
    ('["resistance"]', 1, 1),      # 1 - 2/5 = 1 - 0
    ('[]', 37, 37),
    ('["clan_guard"]', 37, 37),    # clan guard alone is no shroud
])
def test_r_prot_1_sanctuary_step_values(duel, affects, dam, expected):
    """R-PROT-1: sanctuary and stardust halve, a dark shroud keeps 6/10 (a clan guard's
    1/2), the resistance spell takes 2/5 off; all truncating."""
    world = duel(victim=f"affects = {affects}")
    hit = make_hit(world, dam, "fire")
    sanctuary(hit, world)
    assert hit.dam == expected


@pytest.mark.parametrize(("affects", "expected"), [
    ('["sanctuary", "dark_shroud"]', 18),           # not 37/2*6/10 = 10, not 22
    ('["dark_shroud", "sanctuary"]', 18),
    ('["stardust", "resistance"]', 18),             # not 18 - 7 = 11
    ('["sanctuary", "stardust"]', 18),              # not 9
    ('["dark_shroud", "resistance"]', 22),          # not 22 - 8 = 14
    ('["sanctuary", "dark_shroud", "resistance"]', 18),
])
def test_r_prot_1_only_one_of_them_applies(duel, affects, expected):
    """R-PROT-1: sanctuary beats a dark shroud, which beats the resistance spell; only
    one cut is taken, whatever order the affects were listed in."""
    world = duel(victim=f"affects = {affects}")
    hit = make_hit(world, 37, "fire")
    sanctuary(hit, world)
    assert hit.dam == expected


# ---------------------------------------------------------------------------------------
# R-PROT-2: alignment


@pytest.mark.parametrize(("affect", "attacker_alignment", "expected"), [
    ("protection_evil", -500, 28),   # 37 - 37/4 = 37 - 9
    ("protection_evil", -334, 28),   # evil is below -333
    ("protection_evil", -333, 37),
    ("protection_evil", 0, 37),
    ("protection_evil", 500, 37),
    ("protection_good", 500, 28),
    ("protection_good", 334, 28),    # good is above 333
    ("protection_good", 333, 37),
    ("protection_good", 0, 37),
    ("protection_good", -500, 37),
])
def test_r_prot_2_alignment_cut(duel, affect, attacker_alignment, expected):
    """R-PROT-2: protection from evil (good) takes dam/4 off a hit from an evil (good)
    attacker only; neutral and opposite attackers pass."""
    world = duel(attacker=f"alignment = {attacker_alignment}", victim=f'affects = ["{affect}"]')
    hit = make_hit(world, 37, "fire")
    alignment(hit, world)
    assert hit.dam == expected


def test_r_prot_2_odd_value_and_no_attacker(duel):
    """R-PROT-2: 7 from an evil attacker -> 7 - 1 = 6; a hit with no attacker is never
    cut, even on a victim with both protections."""
    world = duel(attacker="alignment = -1000",
                 victim='affects = ["protection_evil", "protection_good"]\nhp = 100')
    hit = make_hit(world, 7, "fire")
    alignment(hit, world)
    assert hit.dam == 6
    hit = make_hit(world, 37, "fire", source=None)
    alignment(hit, world)
    assert hit.dam == 37
    assert world.damage(None, "v", 37, "fire", ("spell",)) == 29  # only the flat trim


# ---------------------------------------------------------------------------------------
# R-PROT-3: temperature


@pytest.mark.parametrize(("affects", "damage_type", "dam", "expected"), [
    ('["protection_heat"]', "fire", 37, 28),
    ('["protection_heat"]', "fire", 3, 3),     # 3 - 3/4 = 3 - 0
    ('["protection_heat"]', "fire", 5, 4),
    ('["protection_heat"]', "cold", 37, 37),
    ('["protection_heat"]', "lightning", 37, 37),
    ('["protection_cold"]', "cold", 37, 28),
    ('["protection_cold"]', "fire", 37, 37),
    ('["protection_heat", "protection_cold"]', "fire", 37, 28),  # one cut, not 21
    ('["protection_heat", "protection_cold"]', "cold", 37, 28),
])
def test_r_prot_3_temperature(duel, affects, damage_type, dam, expected):
    """R-PROT-3: protection from heat takes dam/4 off fire only, protection from cold off
    cold only; never crossed."""
    world = duel(victim=f"affects = {affects}")
    hit = make_hit(world, dam, damage_type)
    temperature(hit, world)
    assert hit.dam == expected


# ---------------------------------------------------------------------------------------
# R-PROT-4: liturgy


@pytest.mark.parametrize(("level", "melee", "expected"), [
    (55, True, 35),    # 37 - 37*(3 + 5)/100 = 37 - 296/100 = 37 - 2
    (55, False, 36),   # 37 - 37*55/1200 = 37 - 2035/1200 = 37 - 1
    (100, True, 33),   # 37 - 37*13/100 = 37 - 4
    (100, False, 34),  # 37 - 3700/1200 = 37 - 3
    (9, True, 36),     # 37 - 37*3/100 = 37 - 1
    (9, False, 37),    # 37 - 333/1200 = 37 - 0
    (60, True, 91),    # 100 - 100*(3 + 6)/100 = 100 - 9 (60/10 = 6: the 10 matters)
    (70, True, 90),    # 100 - 100*10/100 = 100 - 10 exactly (the 100 matters)
    (12, False, 99),   # 100 - 1200/1200 = 100 - 1 exactly (the 1200 matters)
])
def test_r_prot_4_liturgy_two_formulas(duel, level, melee, expected):
    """R-PROT-4: a melee blow loses dam*(3 + Lv/10)/100, a pipeline hit dam*Lv/1200,
    truncating at each division (37, or 100 at the exact divisions)."""
    world = duel(victim=f'affects = ["liturgy"]\nlevel = {level}')
    dam = 100 if level in (60, 70, 12) else 37
    hit = make_hit(world, dam, "bash", flags=("weapon",), melee=melee)
    liturgy(hit, world)
    assert hit.dam == expected


def test_r_prot_4_no_liturgy_no_cut_and_a_skill_of_1_counts(duel):
    """R-PROT-4: a victim with neither the affect nor the skill loses nothing (level 100,
    100 of damage: liturgy would take 13 or 8); a skill of 1 is a skill: it counts."""
    plain = duel(victim="level = 100")
    for melee in (True, False):
        hit = make_hit(plain, 100, "bash", flags=("weapon",), melee=melee)
        liturgy(hit, plain)
        assert hit.dam == 100
    learned = duel(victim="level = 100\nskills = { liturgy = 1 }")
    hit = make_hit(learned, 100, "bash", flags=("weapon",), melee=True)
    liturgy(hit, learned)
    assert hit.dam == 87


def test_r_prot_4_liturgy_skill_and_remorts(duel):
    """R-PROT-4: the liturgy skill counts like the affect, and Lv is the modify level
    (level + remorts): level 50 with 5 remorts is Lv 55."""
    world = duel(victim="skills = { liturgy = 40 }\nlevel = 50\nremorts = 5")
    hit = make_hit(world, 37, "bash", flags=("weapon",), melee=True)
    liturgy(hit, world)
    assert hit.dam == 35
    hit = make_hit(world, 37, "fire")
    liturgy(hit, world)
    assert hit.dam == 36


def test_r_prot_4_blow_and_pipeline_use_their_own_formula(duel):
    """R-PROT-4: at Lv 100 a melee blow of 37 loses 13% (33 -> trim 26) while a
    pipeline hit of 37 loses 3700/1200 = 3 (34 -> trim 27)."""
    world = duel(attacker="level = 60\nhitroll = 60",
                 victim='affects = ["liturgy"]\nlevel = 100\nhp = 5000', seed=2)
    event = fixed_blow(world, 37)
    assert (event["kind"], event["raw"], event["amount"]) == ("damage", 37, 26)
    assert world.damage("a", "v", 37, "bash", ("weapon",)) == 27


def test_r_prot_4_no_liturgy_no_cut(duel):
    """R-PROT-4: without the affect or the skill nothing is taken off."""
    world = duel(victim="level = 100\nskills = { liturgy = 0 }")
    hit = make_hit(world, 37, "bash", flags=("weapon",), melee=True)
    liturgy(hit, world)
    assert hit.dam == 37


# ---------------------------------------------------------------------------------------
# R-PROT-5: on-immune hooks before the table


def _zero_and_handle(hit, world):
    hit.dam = 0
    return True


def test_r_prot_5_hook_zeroes_and_skips_table(duel):
    """R-PROT-5: an on-immune hook that zeroes the hit and handles it: a victim
    vulnerable to fire takes 0, and the pipeline emits `immune`."""
    world = duel(victim='vuln = ["fire"]\nhp = 100')
    world.rules.add_hook("on_immune", ("creature", "v"), _zero_and_handle)
    assert world.damage("a", "v", 37, "fire", ("spell", "magic")) == 0
    event = last_event(world).to_dict()
    assert event["kind"] == "immune"
    assert (event["source"], event["target"], event["damage_type"]) == ("a", "v", "fire")
    assert world.sheet("v").vitals.hp == 100


def test_r_prot_5_handled_hook_skips_table_without_zeroing(duel):
    """R-PROT-5: a hook that handles the hit (returns True) skips the table even when it
    leaves damage: vulnerability is not applied (37 -> trim 29, not 55 -> 44)."""
    world = duel(victim='vuln = ["fire"]\nhp = 100')
    world.rules.add_hook("on_immune", ("creature", "v"), lambda hit, w: True)
    assert world.damage("a", "v", 37, "fire", ("spell",)) == 29
    assert last_event(world).kind == "damage"


def test_r_prot_5_unhandled_hook_lets_table_run(duel):
    """R-PROT-5: a hook returning False is called, then the table applies: vulnerable
    37 -> 37 + 18 = 55 -> trim 44."""
    world = duel(victim='vuln = ["fire"]\nhp = 100')
    seen: list[int] = []

    def look(hit, w):
        seen.append(hit.dam)
        return False

    world.rules.add_hook("on_immune", ("creature", "v"), look)
    assert world.damage("a", "v", 37, "fire", ("spell",)) == 44
    assert seen == [37]
    event = last_event(world).to_dict()
    assert (event["kind"], event["amount"], event["raw"]) == ("damage", 44, 37)


def test_r_prot_5_hook_order_own_template_affect(duel):
    """R-PROT-5: the victim's own hooks run first, then its template's, then its
    affects'; the first that handles the hit stops the rest."""
    world = duel(victim='template = "kobold"\naffects = ["sanctuary"]\nhp = 100')
    calls: list[str] = []

    def recorder(name, handled):
        def hook(hit, w):
            calls.append(name)
            return handled
        return hook

    # Registered in reverse to show the order is by owner, not by registration.
    world.rules.add_hook("on_immune", ("affect", "sanctuary"), recorder("affect", False))
    world.rules.add_hook("on_immune", ("template", "kobold"), recorder("template", False))
    world.rules.add_hook("on_immune", ("creature", "v"), recorder("own", False))
    world.rules.add_hook("on_immune", ("creature", "a"), recorder("attacker", True))
    world.damage("a", "v", 37, "fire", ("spell",))
    assert calls == ["own", "template", "affect"]

    calls.clear()
    world.rules.add_hook("on_immune", ("template", "kobold"), _zero_and_handle)
    assert world.damage("a", "v", 37, "fire", ("spell",)) == 0
    assert calls == ["own", "template"]
    assert last_event(world).kind == "immune"


def test_r_prot_5_immunity_sits_after_liturgy_before_trim(duel):
    """R-PROT-5 with R-PROT-1..4: the on-immune hook sees what sanctuary, alignment,
    temperature and liturgy left (37 -> 18 -> 14 -> 11 -> 11), not the trimmed value."""
    world = duel(attacker="alignment = -500",
                 victim='affects = ["sanctuary", "protection_evil", "protection_heat", '
                        '"liturgy"]\nlevel = 55\nhp = 100')
    seen: list[int] = []
    world.rules.add_hook("on_immune", ("creature", "v"),
                         lambda hit, w: seen.append(hit.dam) or False)
    # 37 /2 = 18; -18/4 = 14; -14/4 = 11; -11*55/1200 = 11; trim 11 -> 8.
    assert world.damage("a", "v", 37, "fire", ("spell",)) == 8
    assert seen == [11]


# ---------------------------------------------------------------------------------------
# R-PROT-6: flat trim


@pytest.mark.parametrize(("dam", "expected"), [
    (0, 0), (1, 1), (9, 9), (10, 10), (11, 8), (12, 9), (37, 29), (100, 80),
])
def test_r_prot_6_flat_trim(duel, dam, expected):
    """R-PROT-6: above 10 a hit becomes dam*4/5 truncated (11 -> 8); 10 stays 10."""
    world = duel()
    hit = make_hit(world, dam, "fire")
    flat_trim(hit, world)
    assert hit.dam == expected


# ---------------------------------------------------------------------------------------
# R-PROT-7 and R-HIT-7: armor, last, with the armor model only


def test_r_prot_7_armor_is_last(duel):
    """R-PROT-7: armor runs after the flat trim: 37 -> trim 29 -> 75% cap off -> 8
    (armor first would give 37 - 27 = 10, untrimmed)."""
    world = duel(victim="armor = { bash = 100 }\nlevel = 10\nhp = 100")
    assert world.rules.protections.names == [
        "sanctuary", "alignment", "temperature", "liturgy", "immunity", "flat_trim", "armor"]
    # k = 3*10 + 0 = 30; x = 100/30; x/(1+x) = 0.769 -> cap 0.75; 29 - int(21.75) = 8.
    assert world.damage("a", "v", 37, "bash", ("other",)) == 8
    event = last_event(world).to_dict()
    assert (event["amount"], event["raw"]) == (8, 37)


def test_r_prot_7_armor_uncapped_value(duel):
    """R-PROT-7 / R-HIT-8: armor 20 at victim level 10, no pierce: k 30, x 2/3,
    reduction 0.4; 37 -> trim 29 -> 29 - int(11.6) = 18."""
    world = duel(victim="armor = { slash = 20 }\nlevel = 10\nhp = 100")
    assert world.damage("a", "v", 37, "slash", ("weapon",)) == 18
    # The bash column is empty: a bash hit is only trimmed.
    assert world.damage("a", "v", 37, "bash", ("weapon",)) == 29


def test_r_prot_7_armor_off_in_legacy_model(duel):
    """R-PROT-7 / R-HIT-1: with the legacy model armor reduces nothing: 37 -> trim 29."""
    world = duel(victim="armor = { bash = 100 }\nlevel = 10\nhp = 100",
                 extra='[content.fight]\nmodel = "legacy"')
    assert world.content.fight.model == "legacy"
    assert world.damage("a", "v", 37, "bash", ("other",)) == 29


def test_r_hit_7_worn_armor_adds_to_own(duel):
    """R-HIT-7 / R-HIT-10: worn plate (bash 80) adds to the creature's own bash 20:
    100 points -> the 75% cap at level 10; 37 -> 29 -> 8."""
    world = duel(victim='armor = { bash = 20 }\nwear = ["plate_armor"]\nlevel = 10\nhp = 100')
    assert world.sheet("v").armor("bash") == 100
    assert world.damage("a", "v", 37, "bash", ("other",)) == 8


def test_r_hit_7_spell_types_use_half_exotic_and_caster_level(duel):
    """R-HIT-7: fire meets exotic * 0.5 pierced by caster level * 2. Exotic 100 -> 50;
    caster level 20: k = 30 + 40 = 70, reduction 50/120; 29 - int(12.08) = 17. With no
    caster, pierce 0: k 30, reduction 0.625; 29 - 18 = 11."""
    world = duel(attacker="level = 20", victim="armor = { exotic = 100 }\nlevel = 10\nhp = 200")
    assert world.damage("a", "v", 37, "fire", ("spell",)) == 17
    assert world.damage(None, "v", 37, "fire", ("spell",)) == 11


def test_r_hit_7_types_without_a_column_pass(duel):
    """R-HIT-7: poison, negative and other types are not reduced by armor; energy uses
    the exotic column at full value (no spell_factor)."""
    world = duel(victim="armor = { bash = 500, pierce = 500, slash = 500, exotic = 100 }"
                        "\nlevel = 10\nhp = 300")
    for damage_type in ("poison", "negative", "other", "mental", "holy"):
        assert world.damage(None, "v", 37, damage_type, ("spell",)) == 29, damage_type
    # energy: exotic 100 unscaled, k = 30 -> cap 0.75 -> 29 - 21 = 8.
    assert world.damage(None, "v", 37, "energy", ("spell",)) == 8


def test_r_hit_7_pipeline_physical_hit_pierced_by_attacker_hitroll(duel):
    """R-HIT-7: bash (and energy) hits are pierced by the attacker's effective hitroll.
    Armor 100 at level 10: with no hitroll k = 30, capped at 75% (37 -> 29 -> 8). A
    damage-pipeline hit has no blow skill: its effective hitroll is hitroll * 100% *
    (1 + str hit%) (docs/decisions.md): 100 * 1.03 = 103, k = 133, x = 100/133,
    reduction 0.429: 29 - 12 = 17."""
    attacker = ('level = 10\nwield = "mace"\nskills = {{ mace = 100 }}\n'
                'stats = {{ str = 18 }}\nhitroll = {}')
    victim = "armor = { bash = 100, exotic = 100 }\nlevel = 10\nhp = 500"
    weak = duel(attacker=attacker.format(0), victim=victim)
    strong = duel(attacker=attacker.format(100), victim=victim)
    assert weak.damage("a", "v", 37, "bash", ("weapon",)) == 8
    assert strong.damage("a", "v", 37, "bash", ("weapon",)) == 17
    assert strong.damage("a", "v", 37, "energy", ("spell",)) == 17


# ---------------------------------------------------------------------------------------
# R-HIT-8 / R-HIT-9: the pure armor formula


def test_r_hit_8_worked_example(duel):
    """R-HIT-8: dr_level 3, dr_pierce 1, dr_pow 1: armor 150, level 50, pierce 82 ->
    k = 232, x = 150/232, reduction = x/(1+x) = 150/382."""
    knobs = duel().content.fight.armor
    assert (knobs.dr_level, knobs.dr_pierce, knobs.dr_pow, knobs.dr_cap) == (3.0, 1.0, 1.0,
                                                                             75.0)
    assert armor_reduction(150, 50, 82, knobs) == pytest.approx(150 / 382, rel=1e-12)
    # pierce matters: none -> k 150, x 1, exactly one half.
    assert armor_reduction(150, 50, 0, knobs) == pytest.approx(0.5, rel=1e-12)


def test_r_hit_8_pow_and_cap(duel):
    """R-HIT-8: x is raised to dr_pow (armor 30, k 60, pow 2 -> x 1/4 -> 0.2), and the
    reduction never exceeds dr_cap% (armor 1000 at level 10 -> 0.75)."""
    knobs = duel().content.fight.armor
    assert armor_reduction(1000, 10, 0, knobs) == 0.75
    squared = msgspec.structs.replace(knobs, dr_pow=2.0)
    assert armor_reduction(30, 20, 0, squared) == pytest.approx(0.2, rel=1e-12)
    low_cap = msgspec.structs.replace(knobs, dr_cap=10.0)
    assert armor_reduction(150, 50, 82, low_cap) == pytest.approx(0.10, rel=1e-12)


def test_r_hit_9_hard_cap_99_percent(duel):
    """R-HIT-9: with dr_cap 100 (or more) no reduction exceeds 99%; below it the curve
    is untouched (armor 300, k 30 -> 10/11)."""
    knobs = msgspec.structs.replace(duel().content.fight.armor, dr_cap=100.0)
    assert armor_reduction(1_000_000, 10, 0, knobs) == Fraction(99, 100)
    assert armor_reduction(300, 10, 0, knobs) == pytest.approx(10 / 11, rel=1e-12)
    huge = msgspec.structs.replace(knobs, dr_cap=500.0)
    assert armor_reduction(1_000_000, 1, 0, huge) == Fraction(99, 100)


def test_r_hit_9_no_armor_and_zero_k(duel):
    """R-HIT-9: armor 0 or less reduces nothing; k = 0 (level 0, no pierce) never
    divides: armor above 0 then gives the cap, armor 0 still nothing."""
    knobs = duel().content.fight.armor
    assert armor_reduction(0, 50, 82, knobs) == 0.0
    assert armor_reduction(-40, 50, 82, knobs) == 0.0
    assert armor_reduction(10, 0, 0, knobs) == 0.75
    assert armor_reduction(0, 0, 0, knobs) == 0.0
    wide = msgspec.structs.replace(knobs, dr_cap=100.0)
    assert armor_reduction(10, 0, 0, wide) == Fraction(99, 100)


def test_r_hit_9_negative_armor_does_not_add_damage(duel):
    """R-HIT-9: negative armor points reduce nothing and never add damage."""
    world = duel(victim="armor = { bash = -50 }\nlevel = 10\nhp = 100")
    assert world.damage("a", "v", 37, "bash", ("weapon",)) == 29


# ---------------------------------------------------------------------------------------
# R-PROT-8: a game adds or removes a step


def test_r_prot_8_added_step_runs_in_its_place(duel):
    """R-PROT-8: a step added before flat_trim runs there: 37 - 5 = 32 -> trim 25 (after
    the trim it would be 29 - 5 = 24)."""
    world = duel(victim="hp = 100")
    seen: list[int] = []

    def ward(hit, w):
        seen.append(hit.dam)
        hit.dam -= 5

    world.rules.protections.add("ward", ward, before="flat_trim")
    names = world.rules.protections.names
    assert names.index("ward") == names.index("flat_trim") - 1
    assert names.index("ward") == names.index("immunity") + 1
    assert world.damage("a", "v", 37, "fire", ("spell",)) == 25
    assert seen == [37]


def test_r_prot_8_step_added_at_end_and_after(duel):
    """R-PROT-8: add() with no place appends (after armor); after= puts it right behind
    the named step. A step after the trim: 29 - 5 = 24."""
    world = duel(victim="hp = 100")

    def ward(hit, w):
        hit.dam -= 5

    world.rules.protections.add("ward", ward, after="flat_trim")
    assert world.rules.protections.names[-2:] == ["ward", "armor"]
    assert world.damage("a", "v", 37, "fire", ("spell",)) == 24
    world.rules.protections.remove("ward")
    world.rules.protections.add("ward", ward)
    assert world.rules.protections.names[-1] == "ward"
    assert world.damage("a", "v", 37, "fire", ("spell",)) == 24


def test_r_prot_8_removing_steps(duel):
    """R-PROT-8: removing sanctuary lets a sanctuary victim take the full hit (37 -> 29);
    removing the flat trim too leaves 37."""
    world = duel(victim='affects = ["sanctuary"]\nhp = 200')
    assert world.damage("a", "v", 37, "fire", ("spell",)) == 14
    removed = world.rules.protections.remove("sanctuary")
    assert removed is sanctuary
    assert world.damage("a", "v", 37, "fire", ("spell",)) == 29
    world.rules.protections.remove("flat_trim")
    assert world.damage("a", "v", 37, "fire", ("spell",)) == 37


def test_r_prot_8_reorder_and_replace(duel):
    """R-PROT-8: reordering puts armor before the trim (37 - 27 = 10, not trimmed, where
    the default order gives 8); replacing the trim keeps its place."""
    world = duel(victim="armor = { bash = 100 }\nlevel = 10\nhp = 200")
    steps = world.rules.protections
    assert world.damage("a", "v", 37, "bash", ("other",)) == 8
    names = steps.names
    names.remove("armor")
    names.insert(names.index("flat_trim"), "armor")
    steps.reorder(names)
    assert world.damage("a", "v", 37, "bash", ("other",)) == 10
    steps.replace("flat_trim", lambda hit, w: setattr(hit, "dam", hit.dam - 1))
    assert steps.names[-1] == "flat_trim"
    assert world.damage("a", "v", 37, "bash", ("other",)) == 9
    with pytest.raises(ValueError, match="exactly the steps"):
        steps.reorder(["armor"])


def test_r_prot_8_registry_is_per_world_and_checked(duel):
    """R-PROT-8: a step added to one world's list does not reach another world; names
    are unique, and an unknown anchor is an error."""
    first, second = duel(victim="hp = 100"), duel(victim="hp = 100")
    first.rules.protections.add("zero", lambda hit, w: setattr(hit, "dam", 0),
                                before="sanctuary")
    assert first.damage("a", "v", 37, "fire", ("spell",)) == 0
    assert second.damage("a", "v", 37, "fire", ("spell",)) == 29
    assert "zero" not in second.rules.protections.names
    with pytest.raises(ValueError, match="already registered"):
        first.rules.protections.add("zero", lambda hit, w: None)
    with pytest.raises(KeyError, match="no step named"):
        first.rules.protections.add("other", lambda hit, w: None, before="nonesuch")


# ---------------------------------------------------------------------------------------
# R-PROT-9: the worked example and whole-number steps


def test_r_prot_9_worked_example(duel):
    """R-PROT-9: 37 fire on sanctuary + protection from heat + fire resistance from a
    neutral attacker: 37/2 = 18; 18 - 4 = 14; 14 - 14/3 = 10; 10 is not trimmed."""
    world = duel(attacker="alignment = 0",
                 victim='affects = ["sanctuary", "protection_heat"]\nres = ["fire"]\nhp = 100')
    assert world.damage("a", "v", 37, "fire", ("spell", "magic")) == 10
    event = last_event(world).to_dict()
    assert (event["kind"], event["amount"], event["raw"]) == ("damage", 10, 37)
    assert world.sheet("v").vitals.hp == 90


def test_r_prot_9_every_step_whole_numbers(duel):
    """R-PROT-9: each step truncates on what the one before left: 37 through dark shroud
    (22), protection from evil (17), heat (13), liturgy Lv 100 spell (13 - 1 = 12),
    vulnerable (18), trim (14)."""
    world = duel(attacker="alignment = -900",
                 victim='affects = ["dark_shroud", "protection_evil", "protection_heat", '
                        '"liturgy"]\nvuln = ["fire"]\nlevel = 100\nhp = 100')
    hit = make_hit(world, 37, "fire")
    protect(hit, world)
    assert hit.dam == 14
    assert isinstance(hit.dam, int)


# ---------------------------------------------------------------------------------------
# R-DMG-1..3: one pipeline, flags, the death signal


@pytest.mark.parametrize("cause", ["spell", "script", "status", "arc", "water"])
def test_r_dmg_1_every_cause_meets_the_protections(duel, cause):
    """R-DMG-1: spell, scripted and affect damage all pass the protections: 37 on a
    sanctuary victim -> 18 -> trim 14."""
    world = duel(victim='affects = ["sanctuary"]\nhp = 100')
    assert world.damage("a", "v", 37, "fire", ("spell",), cause=cause) == 14
    event = last_event(world).to_dict()
    assert (event["amount"], event["raw"], event["cause"]) == (14, 37, cause)


def test_r_dmg_1_raw_skips_protections(duel):
    """R-DMG-1: cause "raw" skips every protection: sanctuary, immunity, trim, armor."""
    world = duel(victim='affects = ["sanctuary"]\nimm = ["fire"]\narmor = { bash = 500 }'
                        '\nhp = 200')
    assert world.damage("a", "v", 37, "fire", ("spell",), cause="raw") == 37
    assert world.damage("a", "v", 37, "bash", ("weapon",), cause="raw") == 37
    event = last_event(world).to_dict()
    assert (event["kind"], event["amount"], event["raw"], event["cause"]) == (
        "damage", 37, 37, "raw")
    assert world.sheet("v").vitals.hp == 200 - 74
    assert world.damage("a", "v", 37, "fire", ("spell",)) == 0  # not raw: immune


def test_r_dmg_1_self_damage_uses_the_pipeline(duel):
    """R-DMG-1: self-damage goes through the same protections: 37 -> 18 -> 14."""
    world = duel(victim='affects = ["sanctuary"]\nhp = 100')
    assert world.damage("v", "v", 37, "fire", ("other",)) == 14
    assert world.sheet("v").vitals.hp == 86


def test_r_dmg_1_hooks_around_protections(duel):
    """R-DMG-1: pre-damage hooks see the hit before the protections, post-damage hooks
    after inflict; raw damage still runs the hooks."""
    world = duel(victim='affects = ["sanctuary"]\nhp = 100')
    seen: list[tuple[str, int, int]] = []
    world.rules.add_hook("pre_damage", ("creature", "v"),
                         lambda hit, w: seen.append(("pre", hit.dam, w.sheet("v").vitals.hp)))
    world.rules.add_hook("post_damage", ("creature", "v"),
                         lambda hit, w: seen.append(("post", hit.dam, w.sheet("v").vitals.hp)))
    world.damage("a", "v", 37, "fire", ("spell",))
    assert seen == [("pre", 37, 100), ("post", 14, 86)]
    seen.clear()
    world.damage("a", "v", 37, "fire", ("spell",), cause="raw")
    assert seen == [("pre", 37, 86), ("post", 37, 49)]


@pytest.mark.parametrize(("imm", "flags", "expected"), [
    ('["weapon"]', ("weapon",), 0),
    ('["weapon"]', ("spell",), 29),
    ('["spell"]', ("weapon",), 29),
    ('["spell"]', ("spell",), 0),
])
def test_r_dmg_3_flags_meet_different_bits(duel, imm, flags, expected):
    """R-DMG-3: the same 37 bash hit carries different flags; a weapon-flag hit meets the
    weapon bit, a spell-flag one the spell bit."""
    world = duel(victim=f"imm = {imm}\nhp = 100")
    assert world.damage("a", "v", 37, "bash", flags) == expected
    assert last_event(world).kind == ("immune" if expected == 0 else "damage")


def test_r_dmg_3_unknown_type_or_flag_refused(duel):
    """R-DMG-3: a hit's type and flags must be known names."""
    from affray.core.errors import ActionError

    world = duel()
    with pytest.raises(ActionError, match="unknown damage type"):
        world.damage("a", "v", 5, "plasma", ("spell",))
    with pytest.raises(ActionError, match="unknown damage flag"):
        world.damage("a", "v", 5, "fire", ("arcane",))


def test_r_dmg_2_kill_raises_victim_death(duel):
    """R-DMG-2: a hit that kills raises VictimDeath (a BaseException) to the caller."""
    world = duel(victim="hp = 10")
    assert issubclass(VictimDeath, BaseException)
    assert not issubclass(VictimDeath, Exception)
    with pytest.raises(VictimDeath) as caught:
        world.damage("a", "v", 37, "fire", ("spell",))
    assert (caught.value.victim, caught.value.killer) == ("v", "a")
    assert not world.sheet("v").vitals.alive
    assert last_event(world).to_dict()["kind"] == "death"


def test_r_dmg_2_hook_cannot_swallow_death(duel):
    """R-DMG-2: a post-damage hook that kills someone with world.damage inside
    `try/except Exception` does not swallow the death: it leaves world.damage."""
    world = duel(attacker="hp = 20", victim="hp = 100")
    reached: list[str] = []

    def thorns(hit, w):
        try:
            w.damage("v", "a", 1000, "other", ("other",), cause="raw")
            reached.append("after the kill")
        except Exception:  # the point: this must not catch the death
            reached.append("swallowed")

    world.rules.add_hook("post_damage", ("creature", "v"), thorns)
    with pytest.raises(VictimDeath) as caught:
        world.damage("a", "v", 5, "fire", ("spell",))
    assert (caught.value.victim, caught.value.killer) == ("a", "v")
    assert reached == []
    assert not world.sheet("a").vitals.alive
    assert world.sheet("v").vitals.hp == 95
    kinds = [event.kind for event in world.events]
    # v fights back (R-ACT-1), its thorns kill a, and the fight ends with a (R-ACT-2)
    assert kinds == ["damage", "fight", "damage", "death", "fight"]


# ---------------------------------------------------------------------------------------
# R-PROT-8: the default list's shortcut (protections.default_steps) is the plain loop

VICTIMS = [
    "",
    'affects = ["sanctuary", "protection_evil", "protection_heat", "conductor"]',
    'affects = ["dark_shroud", "clan_guard", "protection_good", "protection_cold"]',
    'affects = ["resistance", "liturgy"]\nlevel = 37\nremorts = 4',
    'skills = { liturgy = 1 }\nlevel = 55\nwear = ["plate_armor", "ring_of_warmth"]',
    'affects = ["stardust"]\nimm = ["fire"]\nres = ["slash", "cold"]\nvuln = ["lightning"]',
    'affects = ["dark_shroud"]\nres = ["weapon"]\narmor = { bash = -20, exotic = 300 }',
]
SOURCES = ["alignment = -1000\nlevel = 30", "alignment = 1000\nhitroll = 40", "alignment = 0"]


@pytest.mark.parametrize("victim", VICTIMS)
def test_r_prot_8_default_steps_match_the_loop_over_the_registry(duel, victim):
    """R-PROT-8: with the default registry `protect` takes a shortcut that skips the
    steps that cannot change a hit; over every damage type, melee or not, pierced or not,
    with and without an armor-use bonus, from good, evil and no attackers and at many
    amounts, it leaves every hit exactly as running each registered step in turn does."""
    from affray.systems.rules.hit import Hit
    from affray.systems.rules.immunity import MAGIC, SPELL, WEAPON

    checked = 0
    for source_lines in SOURCES:
        world = duel(source_lines, victim)
        assert world.rules.protections.items() == default_protections().items()
        sources = [world.sheet("a"), None]
        for damage_type in world.content.damage.types:
            for source, flags, melee, pierce, bonus, dam in itertools_product(
                    sources, (WEAPON, SPELL | MAGIC), (True, False),
                    (0, Fraction(1237, 100)), (0, Fraction(15, 2)),
                    (-3, 0, 1, 7, 10, 11, 37, 250)):
                hits = [Hit(source, world.sheet("v"), dam, damage_type, flags, melee, "test",
                            pierce=pierce, armor_bonus=bonus) for _ in range(2)]
                protect(hits[0], world)  # the default list: the shortcut
                for step in world.rules.protections:
                    step(hits[1], world)
                assert hits[0] == hits[1], (damage_type, source, flags, melee, dam)
                checked += 1
    assert checked > 5000
