"""`World.view()`: one record per creature, kept between calls and built again only for
what changed (issue 23). The key check: after every tick of scenarios where minds decide,
creatures fight, die, burn, are pushed, fall in, spend mana and get it back, and after a
load, the view equals what a full computation gives (the snapshot's values)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import duel_text

import affray
import affray.display.view as view_module
from affray.components import Vitals
from affray.core.event_log import EventLog
from affray.display.view import CreatureView

FIELDS = ("player", "glyph", "side", "mind", "fighting", "level", "hp", "max_hp", "mana",
          "max_mana", "alive")


def fresh(world: affray.World) -> dict[str, CreatureView]:
    """The records computed from nothing: the snapshot's creatures (another code path)."""
    return {creature_id: CreatureView(**{name: shown[name] for name in FIELDS},
                                      cell=(shown["at"][0], shown["at"][1]))
            for creature_id, shown in world.snapshot()["creatures"].items()}


def assert_view_is_fresh(world: affray.World) -> None:
    shown = world.view()
    expected = fresh(world)
    assert list(shown) == list(expected), f"pulse {world.pulse}: order"
    wrong = {cid: (shown[cid], expected[cid]) for cid in expected
             if shown[cid] != expected[cid]}
    assert not wrong, f"pulse {world.pulse}: {wrong}"


def tick_and_check(world: affray.World, pulses: int) -> None:
    """Tick `pulses` pulses (or to the end), checking the view after each."""
    assert_view_is_fresh(world)
    for _ in range(pulses):
        if world.end_pulse is not None and world.pulse >= world.end_pulse:
            break
        world.tick()
        assert_view_is_fresh(world)


@pytest.mark.parametrize("name, pulses", [
    ("ambush", 900),         # minds walk, fight, cast at waders, flee; deaths
    ("demo", 400),           # fights, a stun, a kill, a fireball (fire), frost on a pond
    ("door_blast", 12),      # a force burst: doors broken, pushes, a fall into water
    ("frozen_bridge", 250),  # frost, a walk, a fireball melting ice, a fall in, fire
    ("lake_storm", 36),      # lightning through water bodies, arcs, ice melting
    ("skirmish", 300),       # 81 creatures: the vectorised round (its events as columns)
])
def test_the_view_equals_a_full_computation_after_every_tick(name, pulses):
    world = affray.load_scenario(affray.builtin_scenario(name))
    alone = affray.load_scenario(affray.builtin_scenario(name))
    try:
        tick_and_check(world, pulses)
        for _ in range(world.pulse):
            alone.tick()
        assert world.events == alone.events  # looking changes nothing
        kinds = {event.kind for event in world.events}
        assert "damage" in kinds
    finally:
        world.close()
        alone.close()


def test_the_scenarios_above_do_what_the_test_says_they_do():
    """The kinds of events the scenarios of the test above log in the pulses it runs:
    what makes that test cover deaths, fire, pushes, falls and moves."""
    seen: set[str] = set()
    for name, pulses in (("ambush", 900), ("demo", 400), ("door_blast", 12),
                         ("frozen_bridge", 250)):
        world = affray.load_scenario(affray.builtin_scenario(name))
        try:
            world.run(pulses=min(pulses, world.end_pulse or pulses))
            seen |= {event.kind for event in world.events}
        finally:
            world.close()
    assert {"death", "fire", "pushed", "fell_in", "moved", "fight", "cast"} <= seen


MANA = "[content.world.casting]\nmana = true\nregen_pulses = 4\n"


def test_mana_spent_and_regained_without_an_event_shows_in_the_view(make_world):
    """R-BOOK-2: a cast from mana lowers it (a `cast` event); it comes back every
    `regen_pulses` with no event, and the view follows it, also over pulses `run`
    jumps."""
    world = make_world(duel_text('mana = 60\nmax_mana = 60\nhp = 500',
                                 'hp = 500', extra=MANA))
    assert_view_is_fresh(world)
    world.submit(affray.Cast(actor="a", spell="magic_missile", target="v"))
    tick_and_check(world, 6)
    spent = world.view()["a"].mana
    assert spent < 60
    for pulses in (1, 3, 4, 7):
        world.run(pulses=pulses)
        assert_view_is_fresh(world)
    assert world.view()["a"].mana > spent


def test_the_view_of_a_loaded_world_follows_it_as_the_unsaved_one(tmp_path: Path):
    path = affray.builtin_scenario("demo")
    world = affray.load_scenario(path)
    try:
        tick_and_check(world, 40)
        world.save(str(tmp_path / "w.save"))
        loaded = affray.load_world(str(tmp_path / "w.save"))
        try:
            assert dict(loaded.view()) == dict(world.view())
            tick_and_check(loaded, 10_000)  # to the scenario's end
            world.run()
            assert loaded.pulse == world.pulse == world.end_pulse
            assert dict(loaded.view()) == dict(world.view())
        finally:
            loaded.close()
    finally:
        world.close()


def test_the_api_s_changes_show_in_the_view(make_world):
    """What the API does that logs no event: a creature added, a push by `place`;
    what logs one: a scripted fight, scripted damage to death, a move."""
    world = make_world(duel_text("hp = 40", "hp = 40"))
    assert_view_is_fresh(world)
    world.add_creature("n", (4, 2), template="kobold", mind="brute")
    assert_view_is_fresh(world)
    assert list(world.view()) == ["a", "v", "n"]
    world.start_fight("a", "v")
    assert_view_is_fresh(world)
    world.submit(affray.Move(actor="n", to=(3, 2)))
    tick_and_check(world, 3)
    sheet = world.sheet("n")
    world.place(sheet.entity, sheet.position, 4, 0)
    assert_view_is_fresh(world)
    with pytest.raises(affray.VictimDeath):
        world.damage(None, "v", 1000, "fire", cause="raw")
    assert_view_is_fresh(world)
    assert world.view()["v"].alive is False


def test_a_hand_edit_shows_after_touch(make_world):
    """A game that edits components by hand calls `touch` (docs/api.md): with the id, or
    with none for many creatures."""
    world = make_world(duel_text("hp = 40", "hp = 40"))
    world.view()
    world.component("a", Vitals).hp = 7
    world.touch("a")
    assert world.view()["a"].hp == 7
    world.component("a", Vitals).hp = 5
    world.component("v", Vitals).hp = 6
    world.touch()
    assert (world.view()["a"].hp, world.view()["v"].hp) == (5, 6)
    assert_view_is_fresh(world)


def test_a_replaced_log_makes_the_view_start_again(make_world):
    """A game may empty the log (`events.clear()`) or replace it: the view cannot tell
    what the dropped events named, so it builds every record again."""
    world = make_world(duel_text("hp = 400", "hp = 400"))
    world.start_fight("a", "v")
    world.view()
    world.run(pulses=30)
    world.events.clear()
    assert_view_is_fresh(world)
    world.run(pulses=30)
    world.events = EventLog()
    world.run(pulses=30)
    assert_view_is_fresh(world)


def test_a_view_builds_again_only_the_records_of_what_changed(make_world, monkeypatch):
    """The cost is what changed: with 200 creatures standing idle and one duel, a view
    after a round builds the two fighters' records, not the 202 (counted, not timed)."""
    crowd = "\n".join(f'[[creatures]]\nid = "c{i}"\nat = [{i % 20}, {3 + i // 20}]'
                      for i in range(200))
    text = ('name = "crowd"\n[map]\nrows = [' + ", ".join(['"' + "." * 20 + '"'] * 13)
            + ']\n[[creatures]]\nid = "a"\nat = [1, 1]\nhp = 400\n[[creatures]]\nid = "v"\n'
            'at = [2, 1]\nhp = 400\nfighting = "a"\n' + crowd)
    world = make_world(text)
    world.view()
    built: list[str] = []
    counted = view_module.creature_view

    def counting(world_: affray.World, sheet: object) -> CreatureView:
        built.append(sheet.id)  # type: ignore[attr-defined]
        return counted(world_, sheet)  # type: ignore[arg-type]

    monkeypatch.setattr(view_module, "creature_view", counting)
    world.run(pulses=13)  # one combat round
    first = world.view()
    assert sorted(set(built)) == ["a", "v"] and len(built) == 2
    built.clear()
    assert world.view() is first and built == []
    monkeypatch.undo()
    assert_view_is_fresh(world)


def test_a_record_that_did_not_change_is_the_same_object(make_world):
    world = make_world(duel_text("hp = 400", "hp = 400", extra='[[creatures]]\nid = "x"\n'
                                                                'at = [4, 2]'))
    world.start_fight("a", "v")
    before = dict(world.view())
    world.run(pulses=13)
    after = world.view()
    assert after["x"] is before["x"]
    assert after["a"] is not before["a"] or after["v"] is not before["v"]


def test_the_view_leaves_a_big_round_s_events_as_columns():
    """The vectorised round keeps its events as columns until read (event_log): the view
    does not read them, it builds every record again instead (cheaper)."""
    world = affray.load_scenario(affray.builtin_scenario("skirmish"))
    try:
        world.view()
        for _ in range(30):  # two combat rounds of 80 fighters
            world.tick()
            world.view()
        assert world.events.pending
        assert_view_is_fresh(world)
        assert world.events.pending
    finally:
        world.close()
