"""Position changes end to end (issue 9): the player's ladder is a `position` event with
player text (R-ENG-4), and a sleeping victim wakes and fights back (the source's damage
path; R-MELEE-4)."""

from __future__ import annotations

from conftest import last_event
from fixed_draws import fixed_percent

from affray.display.text import render_event

SURE = ("[content.fight]\nauto_miss_in_20 = 0\nauto_critical_in_20 = 0\n"
        "[content.fight.armor]\np_floor = 1.0\np_cap = 1.0\n")
TOUGH = "level = 20\nhp = 1000"


def positions(world) -> list[tuple[int, str, str, str]]:
    return [(e.pulse, e.target, e.before, e.after) for e in world.events
            if e.kind == "position"]


def test_r_eng_4_a_raw_hit_down_the_ladder_is_a_position_event(duel):
    """R-ENG-4: a 14-point raw hit takes a 10-hp player to -4: incapacitated, logged as a
    `position` event after the `damage` event, with player text."""
    world = duel("", "player = true\nhp = 10\nmax_hp = 10")
    world.damage(None, "v", 14, "harm", cause="raw")
    assert [e.kind for e in world.events] == ["damage", "position"]
    assert positions(world) == [(0, "v", "standing", "incap")]
    assert render_event(last_event(world)) == (
        "v is incapacitated and will slowly die if not aided.")


def test_r_eng_4_every_step_of_the_ladder_through_ticks(duel):
    """R-ENG-4 end to end: a player hit in melee (each blow 14 before protections: 11
    after the trim, a melee modifier) goes 10 -> -1 stunned (pulse 0) -> -12 dead
    (pulse 12); at 7 hp it would pass through incap and mortal: each step a `position`
    event with its text; death is a `death` event."""
    world = duel(TOUGH, "player = true\nhp = 10\nmax_hp = 10", extra=SURE)
    world.rules.add_modifier("melee", lambda hit, w: setattr(hit, "dam", 14))
    world.sheet("a").combat.fighting = "v"
    world.fighting.add(world.sheet("a").entity)
    world.run(pulses=13)
    assert positions(world) == [(0, "v", "standing", "stunned")]
    assert render_event(next(e for e in world.events if e.kind == "position")) == (
        "v is stunned, but will probably recover.")
    assert [e.target for e in world.events if e.kind == "death"] == ["v"]
    ladder = duel(TOUGH, "player = true\nhp = 7\nmax_hp = 10", extra=SURE)
    ladder.rules.add_modifier("melee", lambda hit, w: setattr(hit, "dam", 12))  # 9 after trim
    ladder.sheet("a").combat.fighting = "v"
    ladder.fighting.add(ladder.sheet("a").entity)
    ladder.run(pulses=1)   # 7 - 9 = -2: stunned
    ladder.damage(None, "v", 2, "harm", cause="raw")   # -4: incap
    ladder.damage(None, "v", 3, "harm", cause="raw")   # -7: mortal
    ladder.damage(None, "v", 1, "harm", cause="raw")   # -8: still mortal, no event
    assert [p[3] for p in positions(ladder)] == ["stunned", "incap", "mortal"]
    texts = [render_event(e) for e in ladder.events if e.kind == "position"]
    assert texts[-1] == "v is mortally wounded and will die soon if not aided."


def test_r_melee_4_a_sleeping_victim_wakes_on_the_first_blow_and_fights_back(duel):
    """R-MELEE-4: a victim hurt while above stunned fights its attacker; asleep, it wakes
    (a `position` event, "wakes up and fights"): the first blow got the sleeping x2 (10 ->
    20), the next ones are plain (10), and from the next round it strikes back."""
    world = duel(TOUGH, TOUGH + '\nposition = "sleeping"', extra=SURE)
    world.rules.add_modifier("melee", lambda hit, w: setattr(hit, "dam", 13))  # 10 after trim
    world.sheet("a").combat.fighting = "v"
    world.fighting.add(world.sheet("a").entity)
    world.run(pulses=13)
    assert positions(world) == [(0, "v", "sleeping", "fighting")]
    assert render_event(next(e for e in world.events if e.kind == "position")) == (
        "v wakes up and fights.")
    by_a = [(e.pulse, e.amount) for e in world.events if e.kind == "damage" and e.source == "a"]
    assert by_a[0] == (0, 20) and all(amount == 10 for _p, amount in by_a[1:])
    assert world.sheet("v").combat.fighting == "a"
    assert any(e.kind in ("damage", "miss") and e.source == "v" and e.pulse == 12
               for e in world.events)


def test_r_stun_5_a_stunned_sitting_victim_stays_down_when_hurt(duel):
    """R-STUN-5: a sitting victim that is hurt tries to stand by the standing-up rule:
    stunned, it stays down and every blow keeps the x3/2 of R-MELEE-4 (10 -> 15); not
    stunned, the first blow stands it up (a `position` event) and the next is plain."""
    down = duel(TOUGH, TOUGH + '\nposition = "sitting"\naffects = ["stun"]', extra=SURE)
    up = duel(TOUGH, TOUGH + '\nposition = "sitting"', extra=SURE)
    for world in (down, up):
        world.rules.add_modifier("melee", lambda hit, w: setattr(hit, "dam", 13))
        fixed_percent(world, 99)  # any draw: the stun alone keeps v down
        world.add_affect("a", "haste")  # two blows a round
        world.start_fight("a", "v")  # v fights too: its stun does not wear off (R-STUN-4)
        world.tick()
    assert positions(down) == []
    assert [e.amount for e in down.events if e.kind == "damage" and e.source == "a"] == [15, 15]
    assert positions(up) == [(0, "v", "sitting", "fighting")]
    assert [e.amount for e in up.events if e.kind == "damage" and e.source == "a"] == [15, 10]


def test_r_dmg_1_r_act_1_a_hit_of_0_runs_no_post_damage_effects_but_is_an_attack(duel):
    """R-DMG-1: a hit that takes nothing (0 after protections) is a damage event of 0
    with no inflict and no post-damage hooks. It is still an attack (R-ACT-1): the
    sleeping victim wakes first and fights its attacker beside it."""
    world = duel(TOUGH, TOUGH + '\nposition = "sleeping"')
    calls: list[int] = []
    world.rules.add_hook("post_damage", ("creature", "v"), lambda hit, w: calls.append(1))
    world.damage("a", "v", 0, "harm")
    assert calls == []
    assert positions(world) == [(0, "v", "sleeping", "fighting")]
    assert world.sheet("v").vitals.hp == world.sheet("v").vitals.max_hp
    assert world.sheet("v").combat.fighting == "a"


def test_a_creature_below_sleeping_does_not_start_fighting_when_hurt(duel):
    """Only a victim above stunned starts fighting its attacker: a player knocked to
    incapacitated (-4) by "a" does not fight it."""
    world = duel(TOUGH, "player = true\nhp = 10\nmax_hp = 10")
    world.damage("a", "v", 14, "harm", cause="raw")
    assert world.sheet("v").vitals.position == "incap"
    assert world.sheet("v").combat.fighting is None


def test_the_dead_lie_dead_and_fight_no_one(duel):
    """Death: the snapshot says position "dead" and fighting nothing (null)."""
    import pytest

    from affray.systems.rules.hit import VictimDeath

    world = duel(TOUGH, "hp = 5")
    world.start_fight("a", "v")
    with pytest.raises(VictimDeath):
        world.damage("a", "v", 50, "harm", cause="raw")
    creature = world.snapshot()["creatures"]["v"]
    assert creature["position"] == "dead"
    assert world.sheet("v").combat.fighting is None
