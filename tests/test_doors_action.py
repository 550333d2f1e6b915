"""Doors from the keyboard: `affray.Open` and `affray.Close` (R-GRID-1: a shut door blocks
movement, sight and line of effect; an open one does not).

A shut, unlocked door beside the actor opens, at a step's time (`move_wait`), with a
`door` event; a locked one is refused; a doorway with a creature or an item in it is not
closed. The Door component, the grid's `shut` array and the snapshot agree, and minds
see through a door opened since they last looked.
"""

from __future__ import annotations

import pytest

import affray
from affray.display.text import render_event
from affray.systems.rules.sight import view_of

ROOM = '''
name = "doors"
[map]
rows = [
  "#######",
  "#..+..#",
  "#..L..#",
  "#..T..#",
  "#..'..#",
  "#######",
]
[[creatures]]
id = "hero"
at = [2, 1]
player = true
'''


def door(world: affray.World, cell: tuple[int, int]) -> dict:
    return next(d for d in world.snapshot()["doors"] if tuple(d["at"]) == cell)


def test_r_grid_1_open_a_shut_door_beside_the_actor(make_world):
    world = make_world(ROOM)
    assert world.grid.shut[1, 3] and world.grid.blocks(3, 1)
    world.submit(affray.Open(actor="hero", at=(3, 1)))
    world.tick()
    assert [e.to_dict() for e in world.events] == [
        {"pulse": 0, "kind": "door", "cell": [3, 1], "change": "opened", "cause": "hero",
         "trap_sprung": False}]
    assert door(world, (3, 1))["state"] == "open"
    assert not world.grid.shut[1, 3] and not world.grid.blocks(3, 1)
    assert world.snapshot()["map"][1] == "#..'..#"
    # a step's time: move_wait of wait, counted down from the next pulse (R-LAG-1)
    assert world.wait_of("hero") == world.content.world.move_wait
    world.submit(affray.Move(actor="hero", to=(3, 1)))  # through the doorway
    world.run(pulses=4)
    assert world.snapshot()["creatures"]["hero"]["at"] == [3, 1]


def test_close_an_open_door_and_it_blocks_again(make_world):
    world = make_world(ROOM.replace("at = [2, 1]", "at = [2, 4]"))
    world.submit(affray.Close(actor="hero", at=(3, 4)))
    world.tick()
    assert world.events[-1].to_dict()["change"] == "closed"
    assert door(world, (3, 4))["state"] == "shut"
    assert world.grid.shut[4, 3] and world.snapshot()["map"][4] == "#..+..#"
    assert render_event(world.events[-1]) == "hero closes the door at [3, 4]."


def test_a_locked_door_is_refused_at_submit_and_nothing_changes(make_world):
    world = make_world(ROOM.replace("at = [2, 1]", "at = [2, 2]"))
    before = world.snapshot()
    with pytest.raises(affray.ActionError, match=r"open: the door at \[3, 2\] is locked"):
        world.submit(affray.Open(actor="hero", at=(3, 2)))
    assert world.snapshot() == before and not world.events


def test_a_door_locked_after_the_submit_is_refused_when_the_action_runs(make_world):
    """What changed since the submit is checked again when it runs: a `refused` event
    with the reason `locked`, and the door stays shut."""
    world = make_world(ROOM)
    world.set_wait("hero", 3)
    world.submit(affray.Open(actor="hero", at=(3, 1)))
    world.enter()
    from affray.core.validate import door_at

    door_at((3, 1)).locked = True
    world.run(pulses=5)
    assert [e.to_dict() for e in world.events] == [
        {"pulse": 2, "kind": "refused", "actor": "hero", "action": "open",
         "reason": "locked"}]
    assert render_event(world.events[-1]) == "hero cannot open: the door is locked."
    assert world.grid.shut[1, 3]


@pytest.mark.parametrize("action, message", [
    (affray.Open(actor="hero", at=(5, 1)), r"open: \[5, 1\] is not beside 'hero'"),
    (affray.Open(actor="hero", at=(1, 1)), r"open: there is no door at \[1, 1\]"),
    (affray.Open(actor="hero", at=(9, 9)), r"open: at \[9, 9\] is out of bounds"),
    (affray.Close(actor="hero", at=(3, 1)), r"close: the door at \[3, 1\] is not open "
                                            r"\(it is shut\)"),
])
def test_bad_opens_and_closes_are_refused_at_submit(make_world, action, message):
    world = make_world(ROOM)
    with pytest.raises(affray.ActionError, match=message):
        world.submit(action)
    assert not world.events and world.grid.shut[1, 3]


def test_close_is_refused_while_a_creature_or_an_item_is_in_the_doorway(make_world):
    world = make_world(ROOM.replace("at = [2, 1]", "at = [2, 4]") + '''
[[creatures]]
id = "kobold"
at = [3, 4]
''')
    with pytest.raises(affray.ActionError, match=r"a creature stands in the doorway"):
        world.submit(affray.Close(actor="hero", at=(3, 4)))
    other = make_world(ROOM.replace("at = [2, 1]", "at = [2, 4]") + '''
[[items]]
at = [3, 4]
item = "scroll"
''')
    with pytest.raises(affray.ActionError, match=r"items lie in the doorway at \[3, 4\]"):
        other.submit(affray.Close(actor="hero", at=(3, 4)))
    assert not other.events and not other.grid.shut[4, 3]


def test_a_creature_that_steps_into_the_doorway_before_the_close_runs_stops_it(make_world):
    world = make_world(ROOM.replace("at = [2, 1]", "at = [2, 4]") + '''
[[creatures]]
id = "kobold"
at = [4, 4]
''')
    world.set_wait("hero", 2)
    world.submit(affray.Close(actor="hero", at=(3, 4)))
    world.submit(affray.Move(actor="kobold", to=(3, 4)))
    world.run(pulses=3)
    assert [e.to_dict() for e in world.events] == [
        {"pulse": 0, "kind": "moved", "target": "kobold", "from": [4, 4], "to": [3, 4]},
        {"pulse": 1, "kind": "refused", "actor": "hero", "action": "close",
         "reason": "doorway taken"}]
    assert not world.grid.shut[4, 3]


def test_a_trapped_door_springs_its_trap_as_it_opens(make_world):
    """The trap goes off once (`trap_sprung`), and the open door holds no trap: what the
    trap does is the game's (docs/decisions.md, "Opening and closing doors")."""
    world = make_world(ROOM.replace("at = [2, 1]", "at = [2, 3]"))
    world.submit(affray.Open(actor="hero", at=(3, 3)))
    world.tick()
    assert world.events[-1].to_dict()["trap_sprung"] is True
    assert render_event(world.events[-1]) == ("hero opens the door at [3, 3], and its trap "
                                               "goes off.")
    assert door(world, (3, 3)) == {"at": [3, 3], "state": "open", "locked": False,
                                   "trapped": False, "broken_by": None}


def test_r_mind_2_a_mind_sees_through_a_door_once_it_is_open(make_world):
    """The minds' fields of view are kept while the terrain stands; opening a door is a
    terrain change (`grid.changed_terrain`), so they look again."""
    world = make_world(ROOM + '''
[[creatures]]
id = "kobold"
at = [5, 1]
mind = "brute"
''')
    entity = world.entity("kobold")
    assert not view_of(world, entity, (5, 1), 8).sees((2, 1))
    version = world.grid.terrain_version
    world.submit(affray.Open(actor="hero", at=(3, 1)))
    world.tick()
    assert world.grid.terrain_version == version + 1
    assert view_of(world, entity, (5, 1), 8).sees((2, 1))


def test_scenario_actions_open_and_close(make_world):
    world = make_world(ROOM + '''
[[actions]]
actor = "hero"
open = [3, 1]
[[actions]]
pulse = 4
actor = "hero"
close = [3, 1]
''')
    world.run()
    changes = [(e.pulse, e.kind, e.change) for e in world.events if e.kind == "door"]
    assert changes == [(0, "door", "opened"), (4, "door", "closed")]
    assert world.grid.shut[1, 3]


@pytest.mark.parametrize("line, message", [
    ('open = [30, 1]', r"field 'open': \[30, 1\] is out of bounds"),
    ('open = [3, 1]\nmove = [1, 1]', r"give exactly one of cast, attack or move"),
    ('close = "x"', r"close"),
])
def test_bad_scenario_door_actions_name_the_field(make_world, line, message):
    with pytest.raises(affray.ScenarioError, match=message):
        make_world(ROOM + f'[[actions]]\nactor = "hero"\n{line}\n')


def test_a_queued_open_is_saved_and_runs_after_the_load(make_world, tmp_path):
    world = make_world(ROOM)
    world.set_wait("hero", 3)
    world.submit(affray.Open(actor="hero", at=(3, 1)))
    world.save(str(tmp_path / "w.save"))
    loaded = affray.load_world(str(tmp_path / "w.save"))
    try:
        loaded.run(pulses=4)
        world.run(pulses=4)
        assert loaded.events == world.events
        assert [e.kind for e in loaded.events] == ["door"]
        assert loaded.snapshot() == world.snapshot()
    finally:
        loaded.close()
