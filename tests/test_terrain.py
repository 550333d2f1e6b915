"""The Terrain system: fires expire (R-TERR-1), bodies relabel once per changed pulse and
only in the Terrain step (R-TERR-4, R-GRID-5); ray of frost bridges (R-SHAPE-2); body
members for electricity (R-ELEC-3)."""

from __future__ import annotations

import contextlib

import esper
import numpy as np

from affray.components import WaterBody
from affray.core.grid import Terrain, bodies_of
from affray.systems.terrain import TerrainSystem, body_members

LAKE = ["#########", "#.......#", "#~~~~~~~#", "#~~~~~~~#", "#~~~~~~~#", "#.......#",
        "#########"]


def scenario(rows, creatures, actions=(), extra=""):
    text = 'name = "terrain"\nseed = 2\npulses = 1\n[map]\nrows = [' + ", ".join(
        f'"{r}"' for r in rows) + "]\n"
    text += "".join(f"[[creatures]]\n{c}\n" for c in creatures)
    text += "".join(f"[[actions]]\n{a}\n" for a in actions)
    return text + extra


def creature(cid, at, hp=100, extra=""):
    return f'id = "{cid}"\nat = [{at[0]}, {at[1]}]\nlevel = 20\nhp = {hp}\n{extra}'


def cast(actor, spell, target, pulse=0):
    aim = f'"{target}"' if isinstance(target, str) else f"[{target[0]}, {target[1]}]"
    return f'pulse = {pulse}\nactor = "{actor}"\ncast = "{spell}"\ntarget = {aim}'


def test_r_shape_2_ray_of_frost_bridges_a_lake_one_cell_per_cast_and_splits_it(make_world):
    """R-SHAPE-2 / R-COLD-2 / R-GRID-5: each ray of frost freezes the one aimed cell;
    three casts make a bridge across the lake, and the pond is two bodies."""
    actions = [cast("mage", "ray_of_frost", (4, y), pulse=20 * (y - 2)) for y in (2, 3, 4)]
    world = make_world(scenario(LAKE, [creature("mage", (4, 1))], actions))
    counts = []
    for end in (1, 21, 41):
        world.run(pulses=end - world.pulse)
        counts.append(len(world.snapshot()["water_bodies"]))
    terrain = [(e.to_dict()["pulse"], e.to_dict()["cell"]) for e in world.events
               if e.kind == "terrain"]
    assert terrain == [(0, [4, 2]), (20, [4, 3]), (40, [4, 4])]
    assert counts == [1, 1, 2]
    west, east = world.snapshot()["water_bodies"]
    assert [4, 3] not in west + east and len(west) == len(east) == 9
    assert world.snapshot()["map"][3] == "#~~~_~~~#"


def test_r_terr_4_labels_change_only_in_the_terrain_step_once_per_pulse(make_world):
    """R-TERR-4: a freeze in the Burst step leaves `grid.body` as it was through Burst
    and FloorItemLoss; the Terrain step relabels it, once."""
    world = make_world(scenario(LAKE, [creature("mage", (4, 1))],
                                [cast("mage", "ray_of_frost", (4, 2))]))
    seen: list[tuple[str, np.ndarray, int]] = []
    for system in world.systems:
        original = system.process

        def wrapped(w, original=original, name=system.name):
            original(w)
            seen.append((name, w.grid.body.copy(), w.grid.labellings))
        system.process = wrapped
    before, labellings = world.grid.body.copy(), world.grid.labellings
    world.tick()
    by_name = {name: (body, count) for name, body, count in seen}
    for name in ("Pulse", "Stun", "Melee", "Spell", "Arc", "Burst", "FloorItemLoss"):
        assert np.array_equal(by_name[name][0], before), name
        assert by_name[name][1] == labellings
    assert world.grid.terrain[2, 4] == Terrain.ICE
    assert by_name["Terrain"][1] == labellings + 1
    assert by_name["Terrain"][0][2, 4] == 0  # ice: no body


ZAP = ('[content.spells.zap]\ntype = "electricity"\nshape = "bolt"\nrange = 8\n'
       'damage = "5"\nsave = "none"\n')
STRIP = ["#########", "#.......#", "#~~~~~~~#", "#.......#", "#########"]


def test_r_terr_4_electricity_sees_a_freeze_from_the_next_pulse(make_world):
    """R-TERR-4 / R-ELEC-3: a ray of frost cuts the strip of water at pulse 0 while a
    zap strikes `a` in it: the Arc step (before Burst) floods the old body, so `b` is
    struck through the water; at pulse 20 the bodies are two and `b` is spared."""
    world = make_world(scenario(STRIP, [creature("mage", (4, 1)), creature("zapper", (1, 3)),
                                        creature("a", (1, 2)), creature("b", (7, 2))],
                                [cast("mage", "ray_of_frost", (4, 2)),
                                 cast("zapper", "zap", "a"), cast("zapper", "zap", "a", 20)],
                                extra=ZAP))
    world.run(pulses=21)
    struck = [(e.to_dict()["pulse"], e.to_dict()["target"], e.to_dict()["cause"])
              for e in world.events if e.kind == "damage" and e.to_dict()["target"] == "b"]
    assert struck == [(0, "b", "water")]
    assert bodies_of(world.grid, (1, 2)) != bodies_of(world.grid, (7, 2))
    assert [e.to_dict()["pulse"] for e in world.events
            if e.kind == "damage" and e.to_dict()["target"] == "a"] == [0, 20]


def test_r_terr_4_body_members_are_the_creatures_in_a_body_in_spawn_order(make_world):
    """R-TERR-4 / R-GRID-3: `body_members` lists who stands in a body, in spawn order
    (not map order); another body's and the dead are not members."""
    rows = ["#######", "#~~~.~#", "#~~~.~#", "#######"]
    world = make_world(scenario(rows, [creature("late", (1, 1)), creature("c", (3, 2)),
                                       creature("other", (5, 1)), creature("d", (2, 1)),
                                       creature("shore", (4, 1))]))
    label = bodies_of(world.grid, (1, 1))
    assert label and label != bodies_of(world.grid, (5, 1)) and bodies_of(world.grid, (4, 1)) == 0
    ids = {entity: cid for cid, entity in world.by_id.items()}
    assert [ids[e] for e in body_members(world, label)] == ["late", "c", "d"]
    from affray.systems.rules.damage import VictimDeath

    with contextlib.suppress(VictimDeath):  # the kill propagates out of a scripted hit
        world.damage(None, "c", 500, "fire", cause="raw")
    assert [ids[e] for e in body_members(world, label)] == ["late", "d"]
    assert body_members(world, 0) == []


def test_r_terr_4_bodies_are_entities_whose_cells_come_from_the_label_array(make_world):
    """R-TERR-4: a body is an entity (labels 1..n) with its cells read when asked."""
    world = make_world(scenario(["~.~", "~.~"], []))
    world.enter()  # read esper's storage: the world's context
    bodies = sorted(esper.get_component(WaterBody), key=lambda row: row[1].label)
    assert [b.label for _e, b in bodies] == [1, 2]
    assert bodies[0][1].cells_in(world.grid).tolist() == [[0, 0], [0, 1]]
    world.grid.set_terrain(1, 0, Terrain.WATER)
    world.tick()
    assert [b.label for _e, b in esper.get_component(WaterBody)] == [1]
    assert len(esper.get_component(WaterBody)[0][1].cells_in(world.grid)) == 5


def test_r_terr_1_fires_expire_at_their_end_even_when_idle_pulses_are_jumped(make_world):
    """R-TERR-1: the Terrain system reports the next fire expiry (`next_pulse`), so a
    run that jumps idle pulses still removes the fire at pulse 240, event and all."""
    world = make_world(scenario(["#######", "#.....#", "#######"],
                                [creature("mage", (1, 1))], [cast("mage", "fireball", (4, 1))]))
    world.tick()
    terrain = TerrainSystem()
    world.enter()  # a system asked by hand, outside run: in the world's esper context
    assert terrain.next_pulse(world) == 240
    world.run(pulses=400)
    fires = [e.to_dict() for e in world.events if e.kind == "fire"]
    assert [(f["pulse"], f["change"]) for f in fires] == [(0, "lit"), (240, "expired")]
    assert terrain.next_pulse(world) is None
    world.grid.dirty = True
    assert terrain.next_pulse(world) == world.pulse  # a terrain change: now


def test_builtin_frozen_bridge_scenario_end_to_end():
    """R-SHAPE-2, R-GRID-5, R-FIRE-2, R-TERR-3, R-FIRE-3, R-TERR-1, R-LOSS-7: the built-in
    "frozen bridge": three rays make a bridge that splits the lake; a fireball melts it
    under the knight, who falls in (his new Burning ends); the scrolls burn; the fire on
    the centre dies down 240 pulses later."""
    import affray
    from affray.data.scenario import builtin_scenario
    from affray.display.text import render_event

    world = affray.load_scenario(builtin_scenario("frozen_bridge"))
    try:
        world.run(pulses=41)
        assert len(world.snapshot()["water_bodies"]) == 2  # the bridge splits the lake
        world.run()
        log = [(e.pulse, render_event(e)) for e in world.events if e.pulse >= 70]
        assert (70, "knight falls into the water at [4, 3].") in log
        burning = [text for _p, text in log if "burning" in text]
        assert burning == ["knight is burning (1).", "knight is no longer burning."]
        assert any(text.endswith("scrolls burn up.") or text == "The scroll burns up."
                   for _p, text in log)
        assert log[-1] == (310, "The fire dies down at [4, 3].")
        assert len(world.snapshot()["water_bodies"]) == 1  # melted: one lake again
        assert world.snapshot()["creatures"]["knight"]["at"] == [4, 3]
    finally:
        world.close()


def test_r_eng_3_save_and_load_keeps_fires_ice_records_and_bodies(tmp_path):
    """R-ENG-3 with R-TERR-1/4: the frozen bridge saved mid-way (ice records, a split
    lake) and again with its fire burning continues event for event as never stopping."""
    import json

    import affray
    from affray.data.scenario import builtin_scenario

    path = builtin_scenario("frozen_bridge")
    straight = affray.load_scenario(path)
    straight.run()
    want = json.dumps([e.to_dict() for e in straight.events])
    for stop in (45, 75):
        world = affray.load_scenario(path)
        world.run(pulses=stop)
        world.save(str(tmp_path / f"at{stop}.json"))
        world.close()
        loaded = affray.load_world(str(tmp_path / f"at{stop}.json"))
        loaded.run()
        assert json.dumps([e.to_dict() for e in loaded.events]) == want, stop
        assert loaded.snapshot() == straight.snapshot()
        loaded.close()
    straight.close()
