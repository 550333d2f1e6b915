"""affray.army and the built-in `battle`: two armies that march, meet, fight and rout,
every soldier on its mind (SPEC section 16)."""

from __future__ import annotations

import collections
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from conftest import world_from_text
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import affray
from affray.core.errors import UsageError
from affray.data.armies import BATTLE_PER_SIDE, MAX_PER_SIDE, army

ROOT = Path(__file__).resolve().parent.parent


def _spec(per_side: int, **kwargs) -> dict:
    return tomllib.loads(army(per_side, **kwargs))


def _world(tmp_path: Path, per_side: int, seed: int = 0) -> affray.World:
    path = tmp_path / f"army{per_side}_{seed}.toml"
    path.write_text(army(per_side, seed=seed), encoding="utf-8")
    return affray.load_scenario(path)


@pytest.mark.parametrize(("per_side", "kinds"), [
    (100, {"soldier": 50, "levy": 25, "bowman": 20, "battle_mage": 5}),
    # 3.5 -> 4 (round half to even), 1.75 -> 2, 1.4 -> 1, 0.35 -> 0
    (7, {"soldier": 4, "levy": 2, "bowman": 1}),
    (1, {"soldier": 1}),  # 0.5 -> 0 of everything: the missing one is a warrior
])
def test_each_side_has_the_mix_of_kinds(per_side, kinds):
    """Each side: half warriors, a quarter levies, a fifth archers, a twentieth mages,
    rounded, the rest warriors; ids red0.. and blue0.., minds matching the kinds."""
    spec = _spec(per_side)
    for side in ("red", "blue"):
        mine = [c for c in spec["creatures"] if c["side"] == side]
        assert [c["id"] for c in mine] == [f"{side}{i}" for i in range(per_side)]
        assert collections.Counter(c["template"] for c in mine) == kinds
        minds = {"soldier": "warrior", "levy": "levy", "bowman": "archer",
                 "battle_mage": "battle_mage"}
        assert all(c["mind"] == minds[c["template"]] for c in mine)


def test_the_armies_stand_apart_across_a_river_with_a_bridge():
    """Every soldier on its own floor cell, red left of the river and blue right of it;
    the river is two columns of water, walkable by the four rows of the bridge."""
    spec = _spec(300)
    rows = spec["map"]["rows"]
    width = len(rows[0])
    water = {(x, y) for y, row in enumerate(rows) for x, ch in enumerate(row) if ch == "~"}
    columns = sorted({x for x, _ in water})
    assert columns == [width // 2 - 1, width // 2]
    bridge = [y for y in range(len(rows)) if (width // 2, y) not in water]
    assert len(bridge) == 4 and bridge == list(range(bridge[0], bridge[0] + 4))
    cells = [tuple(c["at"]) for c in spec["creatures"]]
    assert len(set(cells)) == len(cells) == 600
    assert not water & set(cells)
    assert all(c["at"][0] < columns[0] for c in spec["creatures"] if c["side"] == "red")
    assert all(c["at"][0] > columns[1] for c in spec["creatures"] if c["side"] == "blue")
    assert {ch for row in rows for ch in row} == {".", "~"}


@pytest.mark.parametrize(("kwargs", "field"), [
    ({"per_side": 0}, "per_side"), ({"per_side": MAX_PER_SIDE + 1}, "per_side"),
    ({"per_side": True}, "per_side"), ({"per_side": 2.0}, "per_side"),
    ({"per_side": 5, "seed": -1}, "seed"), ({"per_side": 5, "seed": 2**63}, "seed"),
    ({"per_side": 5, "pulses": -3}, "pulses"), ({"per_side": 5, "name": 'a"b'}, "name"),
])
def test_bad_arguments_are_refused_naming_the_argument(kwargs, field):
    with pytest.raises(UsageError, match=f"army: {field}"):
        army(**kwargs)


def test_seed_name_and_pulses_reach_the_scenario():
    spec = _spec(4, seed=17, name="skirmish at the ford", pulses=900)
    assert (spec["seed"], spec["name"], spec["pulses"]) == (17, "skirmish at the ford", 900)


def test_the_built_in_battle_is_the_generator_s_output():
    """content/scenarios/battle.toml is `army(BATTLE_PER_SIDE)` (scripts/make_battle.py
    writes it): the file and the generator never drift apart."""
    shipped = affray.builtin_scenario("battle").read_text(encoding="utf-8")
    assert shipped == army(BATTLE_PER_SIDE, name="battle")
    assert (ROOT / "content" / "scenarios" / "battle.toml").read_text("utf-8") == shipped


def test_a_small_battle_marches_engages_and_routs(tmp_path):
    """R-MIND-3, R-MIND-5, R-MIND-6, R-ACT-1: nobody is scripted, yet the
    armies walk to each other, fight (aggressive and attacked fights), archers
    shoot arrows and mages throw fireballs, levies flee, soldiers die, and the battle
    settles with one side standing. After every pulse no two living creatures share a
    cell and every one stands on the map."""
    world = _world(tmp_path, 20, seed=1)
    try:
        width, height = world.grid.width, world.grid.height
        while world.pulse < world.end_pulse:
            world.run(1, until="settled")
            cells = [tuple(c["at"]) for c in world.snapshot()["creatures"].values()
                     if c["alive"]]
            assert len(cells) == len(set(cells)), world.pulse
            assert all(0 <= x < width and 0 <= y < height for x, y in cells)
            if type(world.events[-1]).__name__ == "Settled":
                break
        kinds = collections.Counter(type(e).__name__ for e in world.events)
        whys = {e.why for e in world.events if type(e).__name__ == "Fight"
                and e.change == "started"}
        spells = {e.spell for e in world.events if type(e).__name__ == "Cast"}
        moved = {e.target for e in world.events if type(e).__name__ == "Moved"}
        alive = {c["side"] for c in world.snapshot()["creatures"].values() if c["alive"]}
        assert len(moved) == 40  # every soldier walked
        assert {"aggressive", "attacked"} <= whys  # assist: they are aggressive first
        assert spells == {"arrow", "fireball"}
        assert kinds["Fled"] >= 1 and kinds["Death"] >= 20
        assert len(alive) == 1
    finally:
        world.close()


def test_the_battle_runs_from_the_command_line(tmp_path):
    """`affray run battle` plays the built-in battle to its end and prints its summary
    by side (capped here to its march and first clash to keep the suite quick)."""
    path = tmp_path / "battle.toml"
    path.write_text(army(BATTLE_PER_SIDE, name="battle", pulses=60), encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "affray", "run", str(path)],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    assert "red" in result.stdout and "blue" in result.stdout


def test_a_save_mid_march_continues_as_the_run_never_saved(tmp_path):
    """R-MIND-1, R-MIND-7: saved while the armies march (every soldier walking, none
    fighting yet) and again in the thick of it, a loaded world goes on event for event
    as the world that was never saved."""
    whole = _world(tmp_path, 12, seed=5)
    whole.run(400)
    expected = [event.to_dict() for event in whole.events]
    whole.close()
    world = _world(tmp_path, 12, seed=5)
    for at, name in ((12, "march"), (150, "clash")):
        world.run(at - world.pulse)
        if name == "march":
            assert not any(type(e).__name__ == "Fight" for e in world.events)
            assert any(type(e).__name__ == "Moved" for e in world.events)
        path = tmp_path / f"{name}.json"
        world.save(str(path))
        world.close()
        world = affray.load_world(path)
    world.run(400 - world.pulse)
    assert [event.to_dict() for event in world.events] == expected
    world.close()


@given(per_side=st.integers(1, 6), seed=st.integers(0, 10_000),
       walls=st.lists(st.tuples(st.integers(0, 40), st.integers(0, 43)), max_size=60))
@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
def test_no_two_soldiers_share_a_cell_and_none_walks_into_a_wall(per_side, seed, walls):
    """R-MIND-3, R-GRID-2: small armies on the field with walls put at random (never on
    a soldier), run 150 pulses: after every pulse each living creature stands on its own
    cell, and none on a wall."""
    spec = tomllib.loads(army(per_side, seed=seed, pulses=150))
    rows = [list(row) for row in spec["map"]["rows"]]
    taken = {tuple(c["at"]) for c in spec["creatures"]}
    wall_cells = {(x, y) for x, y in walls
                  if y < len(rows) and x < len(rows[0]) and (x, y) not in taken}
    for x, y in wall_cells:
        rows[y][x] = "#"
    text = army(per_side, seed=seed, pulses=150)
    original = "rows = [\n" + "".join(f'  "{row}",\n' for row in spec["map"]["rows"]) + "]"
    walled = "rows = [\n" + "".join(f'  "{"".join(row)}",\n' for row in rows) + "]"
    assert original in text
    world = world_from_text(text.replace(original, walled))
    try:
        while world.pulse < world.end_pulse:
            world.run(1)
            cells = [tuple(c["at"]) for c in world.snapshot()["creatures"].values()
                     if c["alive"]]
            assert len(cells) == len(set(cells)), world.pulse
            assert not wall_cells & set(cells), world.pulse
    finally:
        world.close()
