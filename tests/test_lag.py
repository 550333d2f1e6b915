"""Lag: wait and daze in pulses, the engine's setters, NPC tiers, the scripting fields.

R-LAG-1..7 (and R-STAT-2's extra wait on a Sluggish creature's own actions).
"""

from __future__ import annotations

import numpy as np
from conftest import four_sigma

import affray
from affray.core.rng import Rng
from affray.systems.rules.lag import raise_lag, raise_lag_rounds, script_set_lag, tier_cut
from affray.systems.rules.skills import effective_skill
from affray.systems.rules.stun import try_stand


def slot(world, creature_id: str) -> int:
    return world.sheet(creature_id).creature.slot


def test_r_lag_1_wait_and_daze_count_down_one_per_pulse_for_everyone(duel):
    """R-LAG-1: every creature's wait and daze go down by one each pulse, never below 0,
    in one bulk step."""
    world = duel()
    world.lag.wait[slot(world, "a")], world.lag.daze[slot(world, "a")] = 3, 1
    world.lag.wait[slot(world, "v")], world.lag.daze[slot(world, "v")] = 0, 5
    seen = []
    for _ in range(4):
        world.tick()
        seen.append((world.wait_of("a"), world.daze_of("a"), world.wait_of("v"),
                     world.daze_of("v")))
    assert seen == [(2, 0, 0, 4), (1, 0, 0, 3), (0, 0, 0, 2), (0, 0, 0, 1)]
    assert world.lag.wait.dtype == np.int32


def test_r_lag_2_a_waiting_creature_issues_no_command(duel):
    """R-LAG-2: with wait above 0 the queued action stays queued; at 0 it runs."""
    world = duel()
    world.lag.wait[slot(world, "a")] = 2
    world.submit(affray.Move(actor="a", to=(1, 2)))
    world.tick()
    assert world.snapshot()["creatures"]["a"]["at"] == [1, 1]
    world.tick()
    assert world.snapshot()["creatures"]["a"]["at"] == [1, 2]


def test_r_lag_3_daze_halves_spell_skill_and_cuts_others_to_two_thirds(duel):
    """R-LAG-3: dazed, a spell skill is halved and any other cut to 2/3 (truncated)."""
    world = duel("player = true\nskills = { fireball = 75, dodge = 75, parry = 100 }")
    sheet = world.sheet("a")
    assert effective_skill(world, sheet, "fireball", spell=True) == 75
    world.lag.daze[sheet.creature.slot] = 3
    assert effective_skill(world, sheet, "fireball", spell=True) == 37
    assert effective_skill(world, sheet, "dodge") == 50
    assert effective_skill(world, sheet, "parry") == 66


def test_r_lag_3_a_prone_dazed_creature_is_25_percent_less_likely_to_stand(duel):
    """R-LAG-3: sitting and dazed, standing up fails when number_percent() < 25: 76%
    stand; undazed, all do."""
    world = duel("", 'position = "sitting"')
    sheet = world.sheet("v")
    world.rng = Rng(31)
    n = 20000
    stood = 0
    for _ in range(n):
        sheet.vitals.position = "sitting"
        world.lag.daze[sheet.creature.slot] = 4
        stood += try_stand(world, sheet)
    assert abs(stood / n - 0.76) <= four_sigma(0.76, n)
    world.lag.daze[sheet.creature.slot] = 0
    sheet.vitals.position = "resting"
    assert try_stand(world, sheet) and sheet.vitals.position == "fighting"


def test_r_lag_4_setters_never_lower_and_rounds_are_twelve_pulses(duel):
    """R-LAG-4: raising wait or daze keeps the larger value; the combat-round variants
    count 12 pulses a round."""
    world = duel()
    sheet = world.sheet("a")
    assert raise_lag(world, sheet, "wait", 10, own=False) == 10
    assert raise_lag(world, sheet, "wait", 4, own=False) == 10
    assert raise_lag(world, sheet, "daze", 7, own=False) == 7
    assert raise_lag(world, sheet, "daze", 2, own=True) == 7
    assert raise_lag_rounds(world, sheet, "wait", 2, own=False) == 24
    assert raise_lag_rounds(world, sheet, "daze", 1, own=False) == 12
    assert raise_lag_rounds(world, sheet, "wait", 1, own=False) == 24


def test_r_lag_5_an_immortal_always_gets_a_wait_of_1(duel):
    """R-LAG-5: any wait set on an immortal is 1."""
    world = duel("immortal = true")
    sheet = world.sheet("a")
    assert raise_lag(world, sheet, "wait", 30, own=True) == 1
    assert raise_lag_rounds(world, sheet, "wait", 3, own=False) == 1
    world.submit(affray.Cast(actor="a", spell="spark", target="v"))
    world.tick()
    assert world.wait_of("a") == 1


def test_r_lag_6_strong_npcs_keep_part_of_others_lag_but_all_of_their_own(duel):
    """R-LAG-6: tier 1 keeps a quarter, tier 2 a third, tier 3 a half of lag others put
    on it (13 pulses -> 3, 4, 6); its own actions' lag is whole; players are never cut."""
    assert [tier_cut(tier, 13) for tier in (0, 1, 2, 3)] == [13, 3, 4, 6]
    for tier, kept in ((1, 3), (2, 4), (3, 6)):
        world = duel(f"npc_tier = {tier}")
        sheet = world.sheet("a")
        assert raise_lag(world, sheet, "wait", 13, own=False) == kept
        assert raise_lag(world, sheet, "daze", 13, own=False) == kept
    world = duel("npc_tier = 3")
    world.submit(affray.Cast(actor="a", spell="spark", target="v"))  # 12 beats, own
    world.tick()
    assert world.wait_of("a") == 12
    player = duel("player = true\nnpc_tier = 3")
    assert raise_lag(player, player.sheet("a"), "wait", 13, own=False) == 13


def test_r_lag_7_the_scripting_fields_assign_and_cut_only_a_raise(duel):
    """R-LAG-7: a script can shorten or clear lag; a raise on a tiered NPC is cut, and
    never ends below the current value."""
    world = duel("npc_tier = 1")
    sheet = world.sheet("a")
    world.lag.wait[sheet.creature.slot] = 20
    assert script_set_lag(world, sheet, "wait", 5) == 5      # shortened
    assert script_set_lag(world, sheet, "wait", 0) == 0      # cleared
    assert script_set_lag(world, sheet, "wait", 40) == 10    # a raise: a quarter kept
    assert script_set_lag(world, sheet, "wait", 12) == 10    # 12/4 = 3 < 10: stays 10
    assert script_set_lag(world, sheet, "daze", 9) == 2
    plain = duel()
    assert script_set_lag(plain, plain.sheet("a"), "daze", 9) == 9


def test_r_stat_2_a_sluggish_creatures_own_waits_are_longer(duel):
    """R-STAT-2 (wait part): each wait from its own actions is raised by 2*d pulses."""
    world = duel("statuses = { sluggish = 2 }")
    world.submit(affray.Move(actor="a", to=(1, 2)))
    world.tick()
    assert world.wait_of("a") == 2 + 4
    assert raise_lag(world, world.sheet("a"), "wait", 3, own=False) == 6  # others': no


def test_r_lag_7_the_world_exposes_the_scripting_fields(duel):
    """R-LAG-7: World.set_wait / set_daze are the scripting fields."""
    world = duel("npc_tier = 2")
    assert world.set_wait("a", 30) == 10
    assert world.set_wait("a", 4) == 4
    assert world.set_daze("a", 0) == 0
    assert world.wait_of("a") == 4


def test_r_lag_6_the_tier_keeps_a_fraction_of_the_new_value_then_the_larger(duel):
    """R-LAG-6, the reading recorded in docs/decisions.md: the tier keeps a fraction of
    the *new* value, then the larger of old and new is kept (R-LAG-4): a tier-1 NPC
    waiting 10 given 20 by another keeps 10 (max(10, 20/4 = 5)); not 10 + (20 - 10)/4 =
    12, nor 10 + 20/4 = 15; given 60 it waits 15; tier 3 given 25 while at 10: 12."""
    world = duel("npc_tier = 1")
    sheet = world.sheet("a")
    world.lag.wait[sheet.creature.slot] = 10
    assert raise_lag(world, sheet, "wait", 20, own=False) == 10
    assert raise_lag(world, sheet, "wait", 60, own=False) == 15
    third = duel("npc_tier = 3")
    third.lag.wait[third.sheet("a").creature.slot] = 10
    assert raise_lag(third, third.sheet("a"), "wait", 25, own=False) == 12


def test_r_lag_5_the_immortals_wait_is_stored_as_1(duel):
    """R-LAG-5: the stored wait (not just the setter's answer) is 1."""
    world = duel("immortal = true")
    raise_lag(world, world.sheet("a"), "wait", 30, own=False)
    assert world.wait_of("a") == 1


def test_r_lag_3_a_daze_counts_at_once_and_while_it_lasts(duel):
    """R-LAG-3: a daze cuts skills from the moment a setter puts it on (the engine's
    setter or the scripting field), and still on later pulses while it counts down:
    dodge 75 -> 50, until the daze runs out."""
    world = duel("player = true\nskills = { dodge = 75 }")
    sheet = world.sheet("a")
    world.tick()  # nobody dazed: the table knows it
    assert effective_skill(world, sheet, "dodge") == 75
    raise_lag(world, sheet, "daze", 3, own=False)
    assert effective_skill(world, sheet, "dodge") == 50
    world.tick()
    world.tick()
    assert world.daze_of("a") == 1 and effective_skill(world, sheet, "dodge") == 50
    world.tick()
    assert world.daze_of("a") == 0 and effective_skill(world, sheet, "dodge") == 75
    world.set_daze("a", 2)
    assert effective_skill(world, sheet, "dodge") == 50


def test_r_lag_1_more_creatures_than_the_first_table_holds(make_world):
    """R-LAG-1: the lag table grows past its first 64 slots: 70 creatures each keep
    their own wait and count down."""
    rows = ['"' + "." * 10 + '"'] * 7
    creatures = "".join(f'[[creatures]]\nid = "c{i}"\nat = [{i % 10}, {i // 10}]\n'
                        for i in range(70))
    world = make_world(f'name = "crowd"\n[map]\nrows = [{", ".join(rows)}]\n{creatures}')
    for i in (0, 63, 64, 69):
        world.set_wait(f"c{i}", 10 + i)
    world.tick()
    assert [world.wait_of(f"c{i}") for i in (0, 1, 63, 64, 69)] == [9, 0, 72, 73, 78]
