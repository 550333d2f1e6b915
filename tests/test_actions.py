"""Actions: checked at submit, refused without a trace, queued while lagged (R-ENG-2)."""

from __future__ import annotations

import copy

import pytest

import affray
from affray.core.actions import ActionQueue

ARENA = """
name = "arena"
[map]
rows = [
  "#########",
  "#.......#",
  "#.......#",
  "#########",
]
[[creatures]]
id = "mage"
at = [1, 1]
[[creatures]]
id = "orc"
at = [2, 1]
[[creatures]]
id = "far"
at = [7, 2]
"""


def _state(world):
    queues = {cid: list(world.component(cid, ActionQueue).pending) for cid in world.by_id}
    return copy.deepcopy(world.snapshot()), queues, len(world.events), set(world.ready)


@pytest.mark.parametrize(
    ("action", "message"),
    [
        (affray.Cast(actor="mage", spell="meteor", target="orc"), "unknown spell 'meteor'"),
        (affray.Cast(actor="ghost", spell="spark", target="orc"), "unknown actor 'ghost'"),
        (affray.Cast(actor="mage", spell="spark", target=(30, 1)), "out of bounds"),
        (affray.Cast(actor="mage", spell="spark", target=(-1, 1)), "out of bounds"),
        (affray.Cast(actor="mage", spell="spark", target="nobody"), "unknown target"),
        (affray.Cast(actor="mage", spell="shocking_grasp", target="far"), "out of range"),
        (affray.Cast(actor="mage", spell="spark", target="orc", via="prayer"), "unknown via"),
        (affray.Attack(actor="mage", target="far"), "out of range"),
        (affray.Attack(actor="mage", target="mage"), "itself"),
        (affray.Move(actor="mage", to=(3, 1)), "not beside"),
        (affray.Move(actor="mage", to=(0, 1)), "wall"),
        (affray.Move(actor="mage", to=(1, 9)), "out of bounds"),
    ],
)
def test_r_eng_2_invalid_actions_raise_and_change_nothing(make_world, action, message):
    """R-ENG-2: an invalid action raises ActionError and leaves the world unchanged."""
    world = make_world(ARENA)
    world.submit(affray.Move(actor="orc", to=(3, 2)))  # some state to keep
    before = _state(world)
    with pytest.raises(affray.ActionError, match=message):
        world.submit(action)
    assert _state(world) == before


def test_r_eng_2_a_dead_actor_is_refused(make_world):
    """R-ENG-2: a dead actor's action raises ActionError."""
    from affray.components import Vitals

    world = make_world(ARENA)
    world.component("orc", Vitals).alive = False
    with pytest.raises(affray.ActionError, match="'orc' is dead"):
        world.submit(affray.Move(actor="orc", to=(3, 1)))
    with pytest.raises(affray.ActionError, match="target 'orc' is dead"):
        world.submit(affray.Attack(actor="mage", target="orc"))


def test_r_eng_2_a_lagged_creatures_action_waits_in_its_queue(make_world):
    """R-ENG-2 / R-LAG-2: a valid action from a creature with wait waits, first in first
    out, and runs on the first pulse its wait is 0."""
    world = make_world(ARENA)
    world.submit(affray.Cast(actor="mage", spell="spark", target="far"))  # 12 beats
    world.tick()
    assert world.wait_of("mage") == 12
    world.submit(affray.Move(actor="mage", to=(1, 2)))
    world.submit(affray.Move(actor="mage", to=(2, 2)))
    assert len(world.component("mage", ActionQueue).pending) == 2
    world.run(pulses=11)
    assert world.snapshot()["creatures"]["mage"]["at"] == [1, 1]
    world.tick()  # pulse 12: wait reached 0
    assert world.snapshot()["creatures"]["mage"]["at"] == [1, 2]
    world.run(pulses=2)  # move_wait 2 later
    assert world.snapshot()["creatures"]["mage"]["at"] == [2, 2]
    assert world.component("mage", ActionQueue).pending == []


def test_r_eng_2_queued_moves_are_checked_from_where_the_actor_will_be(make_world):
    """R-ENG-2: "one cell per move" is checked against the end of the queued moves."""
    world = make_world(ARENA)
    world.submit(affray.Move(actor="mage", to=(1, 2)))
    world.submit(affray.Move(actor="mage", to=(2, 2)))  # beside (1, 2), not beside (1, 1)
    with pytest.raises(affray.ActionError, match="not beside"):
        world.submit(affray.Move(actor="mage", to=(4, 2)))


def test_r_eng_2_scenario_actions_refused_at_run_time_become_events(make_world):
    """R-ENG-2: a scenario action that is no longer valid when due is a `refused` event,
    not a crash; the rest of the scenario runs."""
    world = make_world(ARENA + """
[[actions]]
pulse = 0
actor = "orc"
move = [3, 1]
[[actions]]
pulse = 1
actor = "mage"
attack = "orc"
""")
    world.run(pulses=3)
    refused = [e.to_dict() for e in world.events if e.kind == "refused"]
    assert len(refused) == 1
    assert refused[0]["actor"] == "mage" and refused[0]["action"] == "attack"
    assert "out of range" in refused[0]["reason"]


def test_attack_starts_a_fight_both_ways(make_world):
    """SCENARIO.md Attack: the attacker fights its target, and the target fights back."""
    from affray.components import Combat

    world = make_world(ARENA)
    world.submit(affray.Attack(actor="mage", target="orc"))
    world.tick()
    assert world.component("mage", Combat).fighting == "orc"
    assert world.component("orc", Combat).fighting == "mage"


def test_r_eng_2_a_stunned_creature_is_refused_when_its_turn_comes(make_world):
    """SCENARIO.md: a stunned creature's action is refused when due: a `refused` event."""
    world = make_world(ARENA.replace('id = "mage"\nat = [1, 1]',
                                     'id = "mage"\nat = [1, 1]\naffects = ["stun"]'))
    world.submit(affray.Move(actor="mage", to=(1, 2)))
    world.tick()
    assert [e.to_dict() for e in world.events if e.kind == "refused"] == [
        {"pulse": 0, "kind": "refused", "actor": "mage", "action": "move", "reason": "stunned"}]
    assert world.snapshot()["creatures"]["mage"]["at"] == [1, 1]
