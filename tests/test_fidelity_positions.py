"""Position changes end to end (issue 9): the player's ladder is a `position` event with
player text (R-ENG-4)."""

from __future__ import annotations

from affray.text import render_event

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
    assert render_event(world.events[-1]) == (
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
    assert render_event([e for e in world.events if e.kind == "position"][0]) == (
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
