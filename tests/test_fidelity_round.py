"""The combat round's order, end to end through `tick` (issue 9: R-STUN-5, R-STUN-6,
R-TIME-3).

Rolls that compare `number_percent()` with a chance are pinned with a fixed draw
(`world.rng.percent` monkeypatched), so an off-by-one in `<` fails a test.
"""

from __future__ import annotations

from fixed_draws import fixed_percent

SURE = ("[content.fight]\nauto_miss_in_20 = 0\nauto_critical_in_20 = 0\n"
        "[content.fight.armor]\np_floor = 1.0\np_cap = 1.0\n")
NEVER = ("[content.fight]\nauto_miss_in_20 = 0\nauto_critical_in_20 = 0\n"
         "[content.fight.armor]\np_floor = 0.0\np_cap = 0.0\n")
TOUGH = "level = 20\nhp = 1000"


def kinds(world, *wanted: str) -> list[dict]:
    return [e.to_dict() for e in world.events if e.kind in wanted]


def stood(world) -> list[tuple[int, str]]:
    return [(e["pulse"], e["target"]) for e in kinds(world, "position")
            if e["after"] == "fighting"]


def sitting_target(duel, affects: str, draw: int):
    """Attacker "a" (always misses) fights "v", who sits with `affects`."""
    world = duel(TOUGH, f'{TOUGH}\nposition = "sitting"\naffects = [{affects}]', extra=NEVER)
    fixed_percent(world, draw)
    world.start_fight("a", "v")
    return world


def test_r_stun_5_a_stunned_target_never_stands_after_the_round(duel):
    """R-STUN-5 end to end: after its attacker's round, a sitting target tries to stand
    (the source's stand_up_after_round). Stunned at pulse 0, it cannot, whatever the
    draw; its own round turns the stun to weak stun (round lost); at pulse 12 weak stun
    blocks standing on number_percent() < 50; the weak stun is then removed, and at
    pulse 24 it stands."""
    world = sitting_target(duel, '"stun"', 1)
    world.run(pulses=25)
    assert stood(world) == [(24, "v")]
    assert [(e["pulse"], e["why"]) for e in kinds(world, "lost_round")] == [
        (0, "stun"), (12, "weak_stun")]


def test_r_stun_5_weak_stun_blocks_standing_on_a_draw_below_50(duel):
    """R-STUN-5 boundary: weak stunned, a draw of 49 keeps the target down, 50 lets it
    stand at the end of the attacker's round (pulse 0)."""
    down = sitting_target(duel, '"weak_stun"', 49)
    down.run(pulses=1)
    assert stood(down) == []
    up = sitting_target(duel, '"weak_stun"', 50)
    up.run(pulses=1)
    assert stood(up) == [(0, "v")]


def test_r_stun_5_no_stun_stands_after_the_first_round(duel):
    """R-STUN-5 baseline: the same sitting target with no stun stands at pulse 0."""
    world = sitting_target(duel, "", 1)
    world.run(pulses=1)
    assert stood(world) == [(0, "v")]


def test_r_lag_3_a_prone_dazed_creature_stands_unless_the_draw_is_below_25(duel):
    """R-LAG-3 boundary, end to end: a dazed sitting target fails to stand when
    number_percent() < 25: 24 keeps it down, 25 lets it stand."""
    for draw, expected in ((24, []), (25, [(0, "v")])):
        world = sitting_target(duel, "", draw)
        world.set_daze("v", 40)
        world.run(pulses=1)
        assert stood(world) == expected, draw


def weak_stunning_round(duel, draw: int, thorns: bool) -> int:
    """Pulse 0 of a fight where "a" (an NPC, second attack 100: chance 50) hits "v";
    with `thorns`, every hit on v weak-stuns its attacker. Returns a's blows."""
    world = duel(f"{TOUGH}\nskills = {{ second_attack = 100 }}", TOUGH, extra=SURE)
    if thorns:
        world.rules.add_hook("post_damage", ("creature", "v"),
                             lambda hit, w: w.add_affect(hit.source.id, "weak_stun"))
    fixed_percent(world, draw)
    world.sheet("a").combat.fighting = "v"
    world.fighting.add(world.sheet("a").entity)
    world.tick()
    return len([e for e in kinds(world, "damage") if e["source"] == "a"])


def test_r_stun_6_a_weak_stun_taken_mid_round_halves_the_attack_skills_to_come(duel):
    """R-STUN-6 end to end: each attack skill is rolled just before its own blow, so a
    weak stun taken from the first blow halves the second attack's chance 50 -> 25:
    a draw of 30 gives the second blow without the stun and not with it; 24 gives it
    either way; 25 does not (`<`)."""
    assert weak_stunning_round(duel, 30, thorns=False) == 2
    assert weak_stunning_round(duel, 30, thorns=True) == 1
    assert weak_stunning_round(duel, 24, thorns=True) == 2
    assert weak_stunning_round(duel, 25, thorns=True) == 1
    assert weak_stunning_round(duel, 49, thorns=False) == 2
    assert weak_stunning_round(duel, 50, thorns=False) == 1


def test_r_time_3_on_fight_hooks_run_in_the_round_a_fighter_kills(duel):
    """R-TIME-3 / R-DMG-2: the blow that kills ends the fighter's blows, not its round:
    its on-fight hooks still run; the dead target's never do."""
    world = duel(TOUGH, "hp = 3", extra=SURE)
    world.rules.add_modifier("melee", lambda hit, w: setattr(hit, "dam", 50))
    calls: list[tuple[str, int]] = []
    for who in ("a", "v"):
        world.rules.add_hook("on_fight", ("creature", who),
                             lambda fighter, w: calls.append((fighter.id, w.pulse)))
    world.start_fight("a", "v")
    world.run(pulses=13)
    assert [e["target"] for e in kinds(world, "death")] == ["v"]
    assert calls == [("a", 0)]


def paralysed_round(duel, draw: int) -> list[tuple[str, str]]:
    """"a" (CON 20, level 30) is stunned by paralysis and fights "v" (level 30); draws of
    100 keep it stunned until pulse 720 (3 ticks elapsed: chance 45, half 22); then one
    round with `draw`: a's stun and lost-round events and whether it struck."""
    world = duel("hp = 1000\nlevel = 30\nstats = { con = 20 }\n"
                 'affects = ["stun", "paralysis"]', "hp = 1000\nlevel = 30", extra=SURE)
    pinned = fixed_percent(world, 100)
    world.start_fight("a", "v")
    world.run(pulses=720)
    assert world.sheet("a").has("stun") and world.sheet("a").has("paralysis")
    start = len(world.events)
    pinned.value = draw
    world.tick()
    out = [("paralysis", "kept" if world.sheet("a").has("paralysis") else "gone")]
    for event in world.events[start:]:
        if event.kind == "stun" and event.target == "a":
            out.append(("stun", event.state))
        elif event.kind == "lost_round" and event.target == "a":
            out.append(("lost_round", event.why))
        elif event.kind in ("damage", "miss") and event.source == "a":
            out.append(("blow", event.kind))
    return out


def test_r_stun_3_paralysis_roll_boundaries_end_to_end(duel):
    """R-STUN-3 through tick, chance 45: a roll at or under 22 (chance/2) ends it and
    the creature attacks this round; 23..45 drop it to weak stun and lose the round;
    46 loses the round and the stun stays. Paralysis goes in the first two cases."""
    weakened = sorted([("paralysis", "gone"), ("stun", "weak_stun"), ("lost_round", "stun")])
    assert paralysed_round(duel, 22) == [("paralysis", "gone"), ("stun", "none"),
                                         ("blow", "damage")]
    assert sorted(paralysed_round(duel, 23)) == weakened
    assert sorted(paralysed_round(duel, 45)) == weakened
    assert paralysed_round(duel, 46) == [("paralysis", "kept"), ("lost_round", "stun")]


def test_r_stun_3_the_level_term_and_elapsed_ticks_in_a_running_world(duel):
    """R-STUN-3 end to end: the chance counts 2 per level over the creature fought
    (level 30 against 25: +10) and ticks from the pulse the paralysis came (added at
    pulse 240, checked at 960: 3 ticks): 45 + 10 = 55, half 27: a draw of 27 ends it,
    28 drops it to weak stun, 55 too, 56 keeps it."""
    def round_at_960(draw: int) -> list[tuple[str, str]]:
        world = duel("hp = 1000\nlevel = 30\nstats = { con = 20 }", "hp = 1000\nlevel = 25",
                     extra=SURE)
        pinned = fixed_percent(world, 100)
        world.run(pulses=240)
        world.add_affect("a", "paralysis")
        world.add_affect("a", "stun")
        world.start_fight("a", "v")
        world.run(pulses=720)
        start = len(world.events)
        pinned.value = draw
        world.tick()
        return sorted((e.kind, getattr(e, "state", getattr(e, "why", "")))
                      for e in world.events[start:]
                      if e.kind in ("stun", "lost_round") and e.target == "a")

    assert round_at_960(27) == [("stun", "none")]
    assert round_at_960(28) == [("lost_round", "stun"), ("stun", "weak_stun")]
    assert round_at_960(55) == [("lost_round", "stun"), ("stun", "weak_stun")]
    assert round_at_960(56) == [("lost_round", "stun")]


def test_r_stun_5_standing_needs_wait_0_and_daze_of_1_counts(duel):
    """R-STUN-5 / R-LAG-3: a prone creature with a wait of 1 does not stand (and says so:
    try_stand is False); a daze of 1 pulse is a daze (a draw of 24 keeps it down); a
    creature that is not prone does not stand up."""
    from affray.systems.rules.stun import try_stand

    world = duel("", 'position = "sitting"')
    sheet = world.sheet("v")
    fixed_percent(world, 24)
    world.lag.wait[sheet.creature.slot] = 1
    assert try_stand(world, sheet) is False and sheet.vitals.position == "sitting"
    world.lag.wait[sheet.creature.slot] = 0
    world.lag.daze[sheet.creature.slot] = 1
    world.lag.dazed = True
    assert try_stand(world, sheet) is False and sheet.vitals.position == "sitting"
    world.rng.value = 25
    assert try_stand(world, sheet) is True and sheet.vitals.position == "fighting"
    assert try_stand(world, sheet) is False  # standing already
    stunned = duel("", 'position = "sitting"\naffects = ["stun"]')
    assert try_stand(stunned, stunned.sheet("v")) is False
