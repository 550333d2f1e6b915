"""A game's own esper world survives every affray call (issue 19, "Embedding").

esper 3 keeps one global current world. A game that keeps its own entities in esper
switches to its world; every affray entry point must leave that world current with the
game's entities in its queries, whatever it does inside (builds, ticks, saves, loads,
replays, batches, closes).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass

import esper
import pytest

import affray
from affray import World

GAME = "my_game"


@dataclass
class Renderable:
    glyph: str


@pytest.fixture
def game_world():
    """The game's esper world, current, with two entities of its own."""
    before = esper.current_world
    esper.switch_world(GAME)
    esper.clear_database()
    esper.create_entity(Renderable("@"))
    esper.create_entity(Renderable("k"))
    yield
    esper.switch_world("default")
    esper.delete_world(GAME)
    if before in esper.list_worlds():
        esper.switch_world(before)


def assert_game_world_intact() -> None:
    assert esper.current_world == GAME
    assert sorted(r.glyph for _e, r in esper.get_component(Renderable)) == ["@", "k"]


def test_every_entry_point_leaves_the_game_s_esper_world_current(game_world, tmp_path):
    """Build, tick, run, submit, preview, damage, affects, lag, fights, snapshot, save,
    load, replay, render, close: after each, esper's current world is the game's and
    its queries still find its own components."""
    from affray.display.render import render_ascii

    world = affray.load_scenario(affray.builtin_scenario("demo"), seed=3)
    assert_game_world_intact()
    world.tick()
    assert_game_world_intact()
    ids = world.creature_ids()
    mage = next(i for i in ids if "mage" in i)
    world.preview(mage, "fireball", (5, 2))
    assert_game_world_intact()
    world.submit(affray.Cast(actor=mage, spell="fireball", target=(5, 2)))
    assert_game_world_intact()
    world.run(pulses=30)
    assert_game_world_intact()
    other = next(i for i in ids if i != mage and world.snapshot()["creatures"][i]["alive"])
    world.add_affect(other, "sanctuary")
    world.remove_affect(other, "sanctuary")
    world.set_wait(other, 3)
    world.set_daze(other, 2)
    assert world.wait_of(other) == 3 and world.daze_of(other) == 2
    world.component(other, affray.components.Vitals)
    world.damage(None, other, 1, "fire")
    assert_game_world_intact()
    world.snapshot()
    path = tmp_path / "w.save"
    world.save(path)
    assert_game_world_intact()
    loaded = affray.load_world(path)
    assert_game_world_intact()
    loaded.run(pulses=12)
    render_ascii(loaded)
    assert_game_world_intact()
    loaded.replay_html(str(tmp_path / "r.html"), pulses=12)
    assert_game_world_intact()
    world.close()
    loaded.close()
    assert_game_world_intact()


def test_a_batch_and_a_blueprint_leave_it_current_too(game_world):
    """A batch in this process (workers=1) makes, runs and closes worlds; a prepared
    scenario builds them: the game's world is current after both."""
    from affray.data.scenario import parse_scenario, prepare_build

    affray.batch(affray.builtin_scenario("duel"), runs=2, seed=0, workers=1)
    assert_game_world_intact()
    path = affray.builtin_scenario("duel")
    spec, raw = parse_scenario(path.read_text(encoding="utf-8"), str(path))
    blueprint = prepare_build(spec, raw, str(path))
    assert_game_world_intact()
    with blueprint.build(seed=1) as world:
        world.run(pulses=24)
        assert_game_world_intact()
    assert_game_world_intact()


def test_a_hook_runs_in_the_world_s_context_and_the_game_s_world_comes_back(game_world):
    """Inside a tick (a hook), esper's current world is affray's: a hook reads the
    world's own entities; after the tick the game's is current again."""
    from affray.components import Creature

    world = affray.load_scenario(affray.builtin_scenario("duel"), seed=3)
    seen: list[str] = []

    def on_fight(fighter, w):  # type: ignore[no-untyped-def]
        seen.append(esper.current_world)
        assert {c.id for _e, c in esper.get_component(Creature)} == set(w.creature_ids())

    world.rules.add_hook("on_fight", ("all", ""), on_fight)
    world.run(pulses=13)
    assert seen and set(seen) == {world.context}
    assert_game_world_intact()
    world.close()


def test_an_error_inside_an_entry_point_still_gives_the_world_back(game_world):
    """A refused call (ActionError, UsageError) leaves the game's world current."""
    world = affray.load_scenario(affray.builtin_scenario("duel"), seed=3)
    with pytest.raises(affray.ActionError):
        world.submit(affray.Move(actor="nobody", to=(1, 1)))
    assert_game_world_intact()
    with pytest.raises(affray.UsageError):
        world.run(-1)
    assert_game_world_intact()
    world.close()
    with pytest.raises(affray.ClosedWorldError):
        world.tick()
    assert_game_world_intact()


# Methods that never touch esper's storage: they need no context of their own.
NO_ESPER = {"enter", "close", "entity", "sheet", "touch", "emit", "place", "set_stun",
            "next_spawn", "creature_ids", "skip", "vectorise", "schedule", "on", "off"}


def test_every_public_world_method_keeps_the_caller_s_esper_world():
    """A new public World method must either be an entry point (it switches to the
    world's context and back) or be listed above as never touching esper."""
    unguarded = []
    for name, member in inspect.getmembers(World):
        if name.startswith("_") or name in NO_ESPER or not callable(member):
            continue
        if not getattr(member, "keeps_esper_world", False):
            unguarded.append(name)
    assert unguarded == []
