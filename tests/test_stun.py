"""Stun: the two flags, the round check, paralysis, decay outside combat, standing up.

R-STUN-1..6.
"""

from __future__ import annotations

from typing import ClassVar

from conftest import four_sigma

import affray
from affray.core.rng import Rng
from affray.systems.melee import extra_blows
from affray.systems.rules.stun import attack_skill_chance, check_stun, paralysis_chance, try_stand

SURE = ("[content.fight]\nauto_miss_in_20 = 0\nauto_critical_in_20 = 0\n"
        "[content.fight.armor]\np_floor = 1.0\np_cap = 1.0\n")
TOUGH = "level = 20\nhp = 1000"



def events(world, *kinds: str) -> list[dict]:
    return [e.to_dict() for e in world.events if e.kind in kinds]


class Sneak(affray.Move):
    """A game's own action that a stunned creature may still issue."""

    keeps_hiding: ClassVar[bool] = True


def test_r_stun_1_a_stunned_creature_issues_no_command_but_hiding_ones(duel):
    """R-STUN-1: stun and weak stun are affect flags; a stunned creature's command is
    refused unless marked to keep hiding; a weak-stunned one may act."""
    world = duel('affects = ["stun", "paralysis"]', 'affects = ["weak_stun"]')
    assert world.sheet("a").has("stun") and world.sheet("v").has("weak_stun")
    world.submit(affray.Move(actor="a", to=(1, 2)))
    world.submit(affray.Move(actor="v", to=(3, 1)))
    world.tick()
    assert events(world, "refused") == [{"pulse": 0, "kind": "refused", "actor": "a",
                                         "action": "move", "reason": "stunned"}]
    assert world.snapshot()["creatures"]["v"]["at"] == [3, 1]
    world.lag.wait[world.sheet("a").creature.slot] = 0
    world.submit(Sneak(actor="a", to=(1, 2)))
    world.tick()
    assert world.snapshot()["creatures"]["a"]["at"] == [1, 2]


def test_r_stun_2_a_stun_costs_two_rounds(duel):
    """R-STUN-2: round 0: the stun cancels the attack and becomes weak stun; round 12:
    the weak stun cancels it and is removed; round 24: the fighter attacks."""
    world = duel(TOUGH + '\naffects = ["stun"]', TOUGH, extra=SURE)
    world.start_fight("a", "v")
    world.run(pulses=25)
    assert events(world, "lost_round", "stun") == [
        {"pulse": 0, "kind": "lost_round", "target": "a", "why": "stun"},
        {"pulse": 0, "kind": "stun", "target": "a", "state": "weak_stun"},
        {"pulse": 12, "kind": "lost_round", "target": "a", "why": "weak_stun"},
        {"pulse": 12, "kind": "stun", "target": "a", "state": "none"},
    ]
    a_blows = [e["pulse"] for e in events(world, "damage") if e["source"] == "a"]
    assert a_blows == [24]
    assert [e["pulse"] for e in events(world, "damage") if e["source"] == "v"] == [0, 12, 24]


def test_r_stun_3_paralysis_chance_formula(duel):
    """R-STUN-3: 15 per elapsed tick (240 pulses) + 3 per CON above 20 + 2 per level
    over the opponent, both signed, clamped 5..95."""
    world = duel('level = 30\naffects = ["stun", "paralysis"]\nstats = { con = 23 }',
                 "level = 25")
    sheet, opponent = world.sheet("a"), world.sheet("v")
    assert paralysis_chance(world, sheet, opponent) == 9 + 10            # 0 ticks yet
    world.pulse = 2 * 240 + 100
    assert paralysis_chance(world, sheet, opponent) == 30 + 9 + 10
    weak = duel('level = 10\naffects = ["stun", "paralysis"]\nstats = { con = 12 }',
                "level = 20")
    assert paralysis_chance(weak, weak.sheet("a"), weak.sheet("v")) == 5   # -24 - 20
    weak.pulse = 10 * 240
    assert paralysis_chance(weak, weak.sheet("a"), weak.sheet("v")) == 95  # 150 - 44


def test_r_stun_3_paralysis_outcomes(duel):
    """R-STUN-3: roll 1..100: <= chance/2 ends it and the creature attacks; <= chance
    drops to weak stun (round lost); else the round is lost and the stun stays.
    Three ticks in, CON 20, equal levels: chance 45: 22% end, 23% weak stun, 55% stay."""
    n = 20000
    outcomes = {"attack": 0, "weak": 0, "stay": 0}
    world = duel('level = 30\nstats = { con = 20 }', "level = 30")
    world.rng = Rng(8)
    sheet = world.sheet("a")
    sheet.combat.fighting = "v"
    world.pulse = 3 * 240
    world.add_affect("a", "paralysis")
    world.sheet("a").affects.since["paralysis"] = 0
    assert paralysis_chance(world, sheet, world.sheet("v")) == 45
    for _ in range(n):
        world.add_affect("a", "paralysis")
        world.sheet("a").affects.since["paralysis"] = 0
        world.add_affect("a", "stun")
        attacks = check_stun(world, sheet)
        if attacks:
            outcomes["attack"] += 1
        elif sheet.has("weak_stun"):
            outcomes["weak"] += 1
        else:
            assert sheet.has("stun") and sheet.has("paralysis")
            outcomes["stay"] += 1
        world.remove_affect("a", "weak_stun")
    for key, p in (("attack", 0.22), ("weak", 0.23), ("stay", 0.55)):
        assert abs(outcomes[key] / n - p) <= four_sigma(p, n), (key, outcomes)


def test_r_stun_4_outside_combat_a_stun_wears_off_round_by_round(duel):
    """R-STUN-4: not fighting: stun -> weak stun on one round pulse, cleared on the
    next; a paralysis stun does not wear off this way."""
    world = duel('affects = ["stun"]', 'affects = ["stun", "paralysis"]')
    world.run(pulses=25)
    assert events(world, "stun") == [
        {"pulse": 0, "kind": "stun", "target": "a", "state": "weak_stun"},
        {"pulse": 12, "kind": "stun", "target": "a", "state": "none"},
    ]
    assert world.sheet("v").has("stun")
    assert world.stunned == {world.sheet("v").entity}


def test_r_stun_5_standing_up_when_stunned(duel):
    """R-STUN-5: stunned, standing up always fails; weak stunned, it fails when
    number_percent() < 50: 51% stand."""
    world = duel("", 'position = "sitting"\naffects = ["stun", "paralysis"]')
    sheet = world.sheet("v")
    assert not any(try_stand(world, sheet) for _ in range(200))
    world.remove_affect("v", "stun")
    world.add_affect("v", "weak_stun")
    world.rng = Rng(12)
    n, stood = 20000, 0
    for _ in range(n):
        sheet.vitals.position = "resting"
        stood += try_stand(world, sheet)
    assert abs(stood / n - 0.51) <= four_sigma(0.51, n)


def test_r_stun_5_a_prone_fighter_stands_up_to_attack(duel):
    """R-STUN-5: a sitting fighter stands at the start of its round (a `position`
    event) and attacks."""
    world = duel(TOUGH + '\nposition = "sitting"', TOUGH, extra=SURE)
    world.start_fight("a", "v")
    world.tick()
    assert events(world, "position") == [{"pulse": 0, "kind": "position", "target": "a",
                                          "before": "sitting", "after": "fighting"}]


def test_r_stun_6_weak_stun_halves_marked_attack_skills(duel):
    """R-STUN-6: weak stun halves the attack skills the fight config marks: an NPC's
    second attack at 100 gives chance 50 (49% on number_percent() < 50), 25 when weak
    stunned (24%)."""
    halved = ("second_attack",)
    world = duel('skills = { second_attack = 100 }', "")
    sheet = world.sheet("a")
    assert attack_skill_chance(sheet, "second_attack", 51, halved) == 51
    assert attack_skill_chance(sheet, "kick", 51, halved) == 51
    world.rng = Rng(4)
    n = 20000
    plain = sum(extra_blows(world, sheet) for _ in range(n)) / n
    world.add_affect("a", "weak_stun")
    assert attack_skill_chance(sheet, "second_attack", 51, halved) == 25
    weak = sum(extra_blows(world, sheet) for _ in range(n)) / n
    assert abs(plain - 0.49) <= four_sigma(0.49, n)
    assert abs(weak - 0.24) <= four_sigma(0.24, n)
