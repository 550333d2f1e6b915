"""Rule-module corners the formula tests leave open (mutation testing after the
one-definition rewrite, issue 12): defence, tohit, blow, protections and skills.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from fixed_draws import fixed_percent

from affray.core.arith import tdiv
from affray.systems.rules import defence, skills, tohit
from affray.systems.rules.hit import Hit

SURE = ("[content.fight]\nauto_miss_in_20 = 0\nauto_critical_in_20 = 0\n"
        "[content.fight.armor]\np_floor = 1.0\np_cap = 1.0\n")


def blind_dodger(blind_fighting: int) -> str:
    return ('player = true\nlevel = 20\nprofession = "mobile"\nhp = 1000\n'
            f"skills = {{ dodge = 100, blind_fighting = {blind_fighting} }}\n"
            'stats = { dex = 20 }\naffects = ["blind"]')


# -- defence -----------------------------------------------------------------------------
def test_r_def_3_blind_fighting_of_1_is_never_rolled(duel):
    """R-DEF-3 / R-DEF-8: blind fighting at effective 1 is "never practised": a blind
    defender with it draws no blind-fighting roll (the same number of percent draws in a
    round as with none at all) and divides by 4. Dodge 100: 100/2 = 50, /4 = 12: a
    draw of 11 dodges every blow, 12 none."""
    draws = []
    for blind_fighting in (0, 1):
        world = duel("level = 20\nhp = 1000", blind_dodger(blind_fighting), extra=SURE)
        pinned = fixed_percent(world, 11)
        world.start_fight("a", "v")
        world.tick()
        dodged = [e for e in world.events if e.kind == "defended" and e.target == "v"]
        assert dodged and all(e.defence == "dodge" for e in dodged)
        draws.append(pinned.draws)
    assert draws[0] == draws[1]
    world = duel("level = 20\nhp = 1000", blind_dodger(1), extra=SURE)
    fixed_percent(world, 12)
    world.start_fight("a", "v")
    world.tick()
    assert not [e for e in world.events if e.kind == "defended" and e.target == "v"]


def test_r_def_2_bat_swarm_against_a_hit_with_no_attacker(duel):
    """R-DEF-2: with no attacker (a status tick's hit has no source) the level gap is the
    defender's own modify level (level + remorts) minus nothing: a level 7 defender with
    2 remorts has 50 + 9 = 59; a draw of 59 is stopped, 60 is not."""
    world = duel("level = 20", 'level = 7\nremorts = 2\naffects = ["bat_swarm"]')
    victim = world.sheet("v")
    assert defence.level_gap(victim, None) == 9
    hit = Hit(source=None, victim=victim, dam=10, damage_type="pound", flags=0, melee=True,
              cause="test")
    fixed_percent(world, 59)
    assert defence.bat_swarm(world, hit)
    fixed_percent(world, 60)
    assert not defence.bat_swarm(world, hit)


# -- tohit -------------------------------------------------------------------------------
@pytest.mark.parametrize(("strength", "remorts"), [(-3, 0), (1, 0), (29, 0), (35, 0), (18, 5)])
def test_r_hit_2_the_armor_roll_uses_the_accuracy_formula(duel, monkeypatch, strength, remorts):
    """R-HIT-2 / R-HIT-7: the armor model's roll (which writes the class base and the
    strength table read out inline) uses accuracy() itself: the modify level (level +
    remorts: level 10 with 5 remorts is 15, class base 20 - (20 - 360/32) = 11) and the
    strength hit bonus read as an index 0..28 (-3 reads index 0, 29 and 35 read 28); the
    pierce it hands armor is that effective hitroll, exact."""
    world = duel(f"level = 10\nremorts = {remorts}\nhitroll = 13", "level = 20")
    attacker, victim = world.sheet("a"), world.sheet("v")
    attacker.stats.strength = strength
    seen: list[float] = []
    chance_value = tohit._hit_chance_value

    def spy(acc: float, *rest: object) -> float:
        seen.append(acc)
        return chance_value(acc, *rest)

    monkeypatch.setattr(tohit, "_hit_chance_value", spy)
    roll = tohit.roll_armor_model(attacker, victim, 97, world.rng, world.content, 0, 0)
    assert seen == [tohit.accuracy(attacker, 97, world.content)]
    index = min(max(strength, 0), 28)
    hitroll = 13 * 97 * (100 + world.content.stats.str_.hit[index])
    assert roll.pierce == Fraction(hitroll, 10000)
    knobs = world.content.fight.armor
    base = 11 if remorts else 20 - (20 + tdiv(10 * -24, 32))
    assert tohit.class_base(attacker) == base
    assert seen[0] == knobs.base_w * base + hitroll / 10000


@pytest.mark.parametrize("acc", [1e-200, 1e200])
def test_r_hit_4_any_accuracy_against_no_evasion_is_the_cap(acc):
    """R-HIT-4: accuracy above 0 against evasion 0 is a share of 1 before the clamp, so
    the cap, even where acc^2 underflows to 0 or overflows to inf (0/0 and inf/inf would
    be NaN, which the floor clamp would turn into the floor); ints and arrays alike."""
    assert tohit.hit_chance_value(acc, 0.0, 2.0, 0.05, 0.95) == 0.95
    assert tohit.hit_chance_value(acc, 0.0, 1.5, 0.05, 0.95) == 0.95
    with np.errstate(over="ignore"):  # 1e200 squared: inf, as for the Python float
        chances = tohit.hit_chance_value(np.array([acc, acc, 3.0]),
                                         np.array([0.0, -1.0, 4.0]), 2.0, 0.05, 0.95)
    assert chances.tolist() == [0.95, 0.95, 9.0 / 25.0]


def test_r_hit_4_no_evasion_is_a_share_of_exactly_1():
    """R-HIT-4: against evasion 0 or less the share is 1 before the clamp: with a cap
    above 1 (content refuses one since the knobs got ranges; the formula itself takes any
    cap) the chance is 1.0, not more."""
    assert tohit.hit_chance_value(5.0, 0.0, 2.0, 0.0, 1.5) == 1.0
    assert tohit.hit_chance_value(5.0, -2.0, 1.5, 0.0, 1.5) == 1.0
    chances = tohit.hit_chance_value(np.array([5.0, 0.0]), np.array([0.0, 0.0]), 2.0, 0.0, 1.5)
    assert chances.tolist() == [1.0, 0.0]


# -- skills ------------------------------------------------------------------------------
def test_r_lag_3_effective_value_of_0_and_1():
    """R-LAG-3: a skill never learned (0) is 0 dazed or not; 1 stays 1 undazed and
    dazed falls to 2/3 of 1 = 0 (spell: 1/2 = 0); ints and arrays alike."""
    assert skills.effective_value(0, False) == 0 and skills.effective_value(0, True) == 0
    assert skills.effective_value(1, False) == 1 and skills.effective_value(1, True) == 0
    assert skills.effective_value(1, True, True) == 0 and skills.effective_value(3, True) == 2
    learned = np.array([0, 1, 1, 3])
    dazed = np.array([False, False, True, True])
    assert skills.effective_value(learned, dazed).tolist() == [0, 1, 0, 2]


def test_r_lag_3_effective_skill_of_a_player(duel):
    """R-LAG-3: a player's effective skill: an unlearned one is 0, a learned one its
    percent, also when a game wrote the percent as a numpy integer (not cut: undazed);
    its weapon skill is the weapon class's learned percent, 0 if not learned (never the
    NPC formula)."""
    world = duel('player = true\nlevel = 10\nwield = "long_sword"\nskills = { dodge = 61 }')
    sheet = world.sheet("a")
    assert skills.effective_skill(world, sheet, "parry") == 0
    assert skills.effective_skill(world, sheet, "dodge") == 61
    sheet.skills.learned["dodge"] = np.int64(61)
    assert skills.effective_skill(world, sheet, "dodge") == 61
    assert skills.weapon_skill(world, sheet) == 0
    sheet.skills.learned[sheet.weapon_skill] = 77
    assert skills.weapon_skill(world, sheet) == 77


def test_r_lag_3_an_npc_weapon_skill_dazed_by_its_own_daze(duel):
    """R-LAG-3: an NPC's weapon skill (never learned): 100 wielding, 2 x level + 40
    bare-handed (level 10: 60); x2/3 while its own daze is above 0 (a daze of 1 counts),
    not while only someone else is dazed."""
    world = duel("level = 10", 'level = 10\nwield = "long_sword"')
    bare, armed = world.sheet("a"), world.sheet("v")
    assert skills.weapon_skill(world, bare) == 60
    assert skills.weapon_skill(world, armed) == 100
    world.lag.daze[armed.creature.slot] = 1
    world.lag.dazed = True
    assert skills.weapon_skill(world, bare) == 60
    assert skills.weapon_skill(world, armed) == 66
