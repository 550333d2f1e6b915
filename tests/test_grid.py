"""The grid: cells, neighbours, spawn order, occupancy, water bodies, one generator.

R-GRID-1..6.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import ndimage

import affray
from affray.components import Spawn, WaterBody
from affray.core.grid import NEIGHBOURS, Grid, Terrain, chebyshev, distance_sq
from affray.core.world import World
from affray.systems.terrain import relabel_water

ROOM = """
name = "room"
[map]
rows = [
  "#######",
  "#..+..#",
  "#..#'.#",
  "#~~_~~#",
  "#######",
]
"""


def _creatures(*entries: str) -> str:
    return "".join(f"\n[[creatures]]\n{entry}\n" for entry in entries)


def test_r_grid_1_cells_are_addressed_x_y_with_one_terrain_each(make_world):
    """R-GRID-1: (x, y) with 0 <= x < width, 0 <= y < height; one terrain per cell."""
    world = make_world(ROOM)
    grid = world.grid
    assert (grid.width, grid.height) == (7, 5)
    assert grid.terrain_at(0, 0) == Terrain.WALL
    assert grid.terrain_at(1, 1) == Terrain.FLOOR
    assert grid.terrain_at(3, 1) == Terrain.DOOR  # x=3, y=1: the "+"
    assert grid.terrain_at(1, 3) == Terrain.WATER
    assert grid.terrain_at(3, 3) == Terrain.ICE
    assert grid.ice_cm[3, 3] == 10  # the default thickness, indexed [y, x]
    assert grid.in_bounds(6, 4) and not grid.in_bounds(7, 4) and not grid.in_bounds(0, -1)


def test_r_grid_1_walls_and_shut_doors_block_movement(make_world):
    """R-GRID-1: walls and shut doors block; an open door does not."""
    world = make_world(ROOM + _creatures('id = "a"\nat = [2, 1]', 'id = "b"\nat = [5, 2]'))
    assert world.grid.blocks(3, 2)  # wall
    assert world.grid.blocks(3, 1)  # shut door
    assert not world.grid.blocks(4, 2)  # open door "'"
    with pytest.raises(affray.ActionError, match="wall"):
        world.submit(affray.Move(actor="a", to=(3, 2)))
    world.submit(affray.Move(actor="a", to=(3, 1)))  # valid at submit; the door is shut
    world.submit(affray.Move(actor="b", to=(4, 2)))  # through the open door
    world.tick()
    kinds = [(e.kind, e.to_dict().get("reason")) for e in world.events]
    assert ("refused", "blocked") in kinds
    snap = world.snapshot()["creatures"]
    assert snap["a"]["at"] == [2, 1]
    assert snap["b"]["at"] == [4, 2]


def test_r_grid_2_neighbours_are_the_eight_orthogonal_first():
    """R-GRID-2: beside = Chebyshev 1; nearest by Euclidean distance (orthogonal first)."""
    assert len(NEIGHBOURS) == 8
    assert all(chebyshev((0, 0), n) == 1 for n in NEIGHBOURS)
    distances = [distance_sq((0, 0), n) for n in NEIGHBOURS]
    assert distances == sorted(distances)  # orthogonal (1) before diagonal (2)
    grid = Grid(np.zeros((3, 3), dtype=np.uint8))
    assert list(grid.neighbours(0, 0)) == [(1, 0), (0, 1), (1, 1)]
    assert chebyshev((2, 5), (4, 6)) == 2


def test_r_grid_2_attack_needs_an_adjacent_target_diagonals_included(make_world):
    """R-GRID-2 with R-MELEE-2: a diagonal neighbour is beside; two cells away is not."""
    world = make_world("[map]\nrows = ['.....', '.....', '.....']\n" + _creatures(
        'id = "a"\nat = [0, 0]', 'id = "b"\nat = [1, 1]', 'id = "c"\nat = [2, 2]'))
    world.submit(affray.Attack(actor="a", target="b"))
    with pytest.raises(affray.ActionError, match="out of range"):
        world.submit(affray.Attack(actor="a", target="c"))


def test_r_grid_3_spawn_numbers_increase_and_break_ties(make_world):
    """R-GRID-3: spawn numbers strictly increase over creatures and items; when two
    creatures step into the same cell on the same pulse, the earlier-spawned one wins,
    whatever the order the actions were submitted in."""
    text = "[map]\nrows = ['.....', '.....']\n" + _creatures(
        'id = "first"\nat = [0, 0]', 'id = "second"\nat = [2, 0]') + (
        "\n[[items]]\nat = [4, 1]\nitem = 'scroll'\n")
    world = make_world(text)
    numbers = [world.component(cid, Spawn).number for cid in ("first", "second")]
    item_spawns = [s.number for _e, s in _all(world, Spawn)]
    assert numbers == [1, 2]
    assert sorted(item_spawns) == [1, 2, 3]
    world.submit(affray.Move(actor="second", to=(1, 1)))  # submitted first
    world.submit(affray.Move(actor="first", to=(1, 1)))
    world.tick()
    snap = world.snapshot()["creatures"]
    assert snap["first"]["at"] == [1, 1]
    assert snap["second"]["at"] == [2, 0]
    refused = [e.to_dict() for e in world.events if e.kind == "refused"]
    assert refused == [{"pulse": 0, "kind": "refused", "actor": "second", "action": "move",
                        "reason": "occupied"}]


def _all(world: World, component_type: type) -> list:
    import esper

    world.enter()
    return esper.get_component(component_type)


def test_r_grid_4_one_creature_per_cell_items_stack(make_world):
    """R-GRID-4: a scenario may not put two creatures on one cell; items lie in stacks."""
    with pytest.raises(affray.ScenarioError, match=r"already taken"):
        make_world("[map]\nrows = ['...']\n" + _creatures('id = "a"\nat = [1, 0]',
                                                            'id = "b"\nat = [1, 0]'))
    world = make_world("[map]\nrows = ['...']\n[[items]]\nat = [2, 0]\nitem = 'potion'\n"
                       "count = 4\n")
    assert world.snapshot()["items"] == [{"at": [2, 0], "item": "potion", "count": 4}]
    assert world.grid.occupant.sum() == 0


POND = """
[map]
rows = [
  "~~.~",
  ".~.~",
  "__._",
  "~..~",
]
"""


def test_r_grid_5_water_bodies_are_8_connected_and_ice_splits_them(make_world):
    """R-GRID-5: diagonals connect water; ice is not water, so it splits a body."""
    world = make_world(POND)
    bodies = world.snapshot()["water_bodies"]
    # (0,0),(1,0),(1,1) touch; (3,0),(3,1) are a column; ice row 2 cuts (0,3) and (3,3) off.
    assert bodies == [[[0, 0], [1, 0], [1, 1]], [[0, 3]], [[3, 0], [3, 1]], [[3, 3]]]
    diagonal = make_world("[map]\nrows = ['~.', '.~']\n")
    assert diagonal.snapshot()["water_bodies"] == [[[0, 0], [1, 1]]]


def test_r_grid_5_bodies_are_entities_with_a_cell_lookup(make_world):
    """R-GRID-5 / R-TERR-4: each body is an entity; `grid.body` maps a cell to it."""
    world = make_world(POND)
    labels = {body.label: body for _e, body in _all(world, WaterBody)}
    assert len(labels) == 4
    for label, body in labels.items():
        for x, y in body.cells_in(world.grid).tolist():
            assert world.grid.body[y, x] == label
    assert world.grid.body[2, 0] == 0  # ice has no body


def test_r_grid_5_relabels_only_when_terrain_changed(make_world):
    """R-GRID-5 / R-TERR-4: no labelling without a terrain change; one per changed pulse."""
    world = make_world(POND)
    before = world.grid.labellings
    world.run(pulses=50)
    assert world.grid.labellings == before
    world.grid.set_terrain(0, 2, Terrain.WATER)  # melt the two ice cells of the west side
    world.grid.set_terrain(1, 2, Terrain.WATER)
    world.tick()
    assert world.grid.labellings == before + 1
    bodies = world.snapshot()["water_bodies"]
    # the melted cells join (0,0)-(1,1) with (0,3) into one body
    assert [[0, 0], [0, 2], [0, 3], [1, 0], [1, 1], [1, 2]] in bodies
    world.run(pulses=5)
    assert world.grid.labellings == before + 1


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=0, max_value=2**32 - 1), st.integers(2, 24), st.integers(2, 24))
def test_r_grid_5_bodies_match_scipy_label_with_8_connectivity(seed, width, height):
    """R-GRID-5: the bodies are exactly scipy.ndimage.label's 8-connected components."""
    rng = np.random.default_rng(seed)
    terrain = rng.choice(np.array([Terrain.FLOOR, Terrain.WATER, Terrain.ICE], dtype=np.uint8),
                         size=(height, width), p=[0.4, 0.45, 0.15])
    world = World(affray.default_content(), Grid(terrain), seed=0)
    try:
        expected, count = ndimage.label(terrain == Terrain.WATER, structure=np.ones((3, 3)))
        bodies = _all(world, WaterBody)
        assert len(bodies) == count
        got = {frozenset(map(tuple, b.cells_in(world.grid).tolist())) for _e, b in bodies}
        want = {frozenset((int(x), int(y)) for y, x in zip(*np.nonzero(expected == k),
                                                             strict=True))
                for k in range(1, count + 1)}
        assert got == want
    finally:
        world.close()


def test_r_grid_5_relabel_rebuilds_body_entities_without_leaking(make_world):
    """R-GRID-5: relabelling replaces the body entities; the count stays the bodies'."""
    world = make_world(POND)
    for _ in range(3):
        world.grid.dirty = True
        relabel_water(world)
    assert len(_all(world, WaterBody)) == 4


# A real fight for R-GRID-6: six fighters in three pairs, with weapons, extra attacks,
# haste, defences (dodge, parry, blink, hand block), a weak-stunned sitter, a paralysed
# stun, a sleeper that wakes, and a player who runs out of movement and gets it back (the
# tick at 240): every kind of draw the melee makes. And a mage casting into it: a spark
# into the pond (water strikes, arcs, saves), a fireball (burning's one in four, floor
# items lost), acid on a player's armour, a force blast (pushes), frost on the pond.
BRAWL = """
name = "brawl"
seed = 11
pulses = 300
[map]
rows = ["........", "........", "..~~~~..", "........"]
[[creatures]]
id = "mage"
at = [7, 2]
level = 30
hp = 900
[[creatures]]
id = "eel1"
at = [3, 2]
hp = 300
[[creatures]]
id = "eel2"
at = [4, 2]
hp = 300
[[creatures]]
id = "eel3"
at = [5, 2]
hp = 300
[[items]]
at = [0, 2]
item = "scroll"
count = 6
[[actions]]
pulse = 1
actor = "mage"
cast = "spark"
target = "eel3"
[[actions]]
pulse = 20
actor = "mage"
cast = "fireball"
target = [1, 2]
[[actions]]
pulse = 40
actor = "mage"
cast = "acid_splash"
target = [4, 1]
[[actions]]
pulse = 60
actor = "mage"
cast = "force_blast"
target = [4, 2]
[[actions]]
pulse = 80
actor = "mage"
cast = "frost_burst"
target = [4, 2]
[[creatures]]
id = "w1"
at = [1, 0]
player = true
profession = "warrior"
level = 30
hp = 900
hitroll = 40
damroll = 10
wield = "long_sword"
skills = { sword = 90, dodge = 80, parry = 70, second_attack = 90, third_attack = 60 }
[[creatures]]
id = "k1"
at = [2, 0]
level = 28
hp = 900
damage = "3d6"
defences = ["dodge", "parry"]
affects = ["haste"]
skills = { second_attack = 100 }
[[creatures]]
id = "p2"
at = [4, 1]
player = true
profession = "ninja"
level = 25
hp = 700
position = "sitting"
affects = ["weak_stun"]
skills = { blink = 75, hand_block = 60, second_attack = 80 }
wear = ["leather_armor"]
[[creatures]]
id = "k2"
at = [5, 1]
level = 26
hp = 700
damage = "2d8"
defences = ["dodge"]
affects = ["stun", "paralysis"]
stats = { con = 22 }
[[creatures]]
id = "n3"
at = [1, 3]
player = true
level = 20
hp = 600
move = 6
skills = { dodge = 90 }
[[creatures]]
id = "k3"
at = [2, 3]
level = 22
hp = 600
damage = "2d6"
position = "sleeping"
[[actions]]
pulse = 0
actor = "w1"
attack = "k1"
[[actions]]
pulse = 0
actor = "p2"
attack = "k2"
[[actions]]
pulse = 0
actor = "n3"
attack = "k3"
"""

RUN_AND_PRINT = (
    "import json, sys\n"
    "import affray\n"
    "world = affray.load_scenario(sys.argv[1])\n"
    "world.run()\n"
    "sys.stdout.write(json.dumps([e.to_dict() for e in world.events]))\n"
    "sys.stdout.write(json.dumps(world.snapshot(), sort_keys=True))\n"
)


def test_r_grid_6_same_seed_same_log_byte_for_byte(make_world, tmp_path):
    """R-GRID-6: the same scenario, seed and actions give the same log, byte for byte, in
    two separate processes (no state shared through the interpreter: hash seeds, caches,
    import order), for a real fight with every kind of melee draw and casts of five
    damage types; in one process too;
    another seed gives another log."""
    import subprocess
    import sys

    path = tmp_path / "brawl.toml"
    path.write_text(BRAWL, encoding="utf-8")
    outputs = [subprocess.run([sys.executable, "-c", RUN_AND_PRINT, str(path)],
                              capture_output=True, check=True, timeout=120).stdout
               for _ in range(2)]
    assert outputs[0] == outputs[1]
    one, other = make_world(BRAWL), make_world(BRAWL, seed=12)
    for world in (one, other):
        world.run()
    log = [e.to_dict() for e in one.events]
    assert outputs[0].startswith(json.dumps(log).encode())
    kinds = {e["kind"] for e in log}
    assert {"damage", "miss", "defended", "stun", "lost_round", "position",
            "too_tired", "cast", "status", "terrain"} <= kinds
    causes = {e["cause"] for e in log if e["kind"] == "damage"}
    assert {"melee", "spell", "water", "status"} <= causes
    assert {e["defence"] for e in log if e["kind"] == "defended"} >= {"dodge", "parry"}
    assert log != [e.to_dict() for e in other.events]
    assert one.seed == 11 and other.seed == 12


def test_r_grid_6_all_randomness_comes_from_the_world_generator():
    """R-GRID-6: the primitives draw from the world's generator only: a seed fixes them."""
    from affray.core.rng import Rng

    a, b = Rng(5), Rng(5)
    seq_a = [a.number_range(1, 6) for _ in range(50)] + [a.percent() for _ in range(50)]
    seq_b = [b.number_range(1, 6) for _ in range(50)] + [b.percent() for _ in range(50)]
    assert seq_a == seq_b
    assert set(seq_a[:50]) == {1, 2, 3, 4, 5, 6}
    assert min(seq_a[50:]) >= 1 and max(seq_a[50:]) <= 100
    assert a.number_range(7, 3) == 7  # low >= high gives low, as the source
    assert a.dice(3, 0) == 0 and a.dice(4, 1) == 4


def test_r_grid_5_relabel_follows_merges_and_splits(make_world):
    """R-GRID-5 / R-TERR-4: joining two bodies leaves one body entity; freezing a channel
    splits it again; every cell's label points at its body."""
    world = make_world("[map]\nrows = ['~.~', '~.~']\n")
    assert len(_all(world, WaterBody)) == 2
    world.grid.set_terrain(1, 0, Terrain.WATER)
    world.tick()
    bodies = _all(world, WaterBody)
    assert len(bodies) == 1 and len(bodies[0][1].cells_in(world.grid)) == 5
    world.grid.set_terrain(1, 0, Terrain.ICE, 10)
    world.tick()
    bodies = sorted(body.cells_in(world.grid).tolist() for _e, body in _all(world, WaterBody))
    assert bodies == [[[0, 0], [0, 1]], [[2, 0], [2, 1]]]
    for _e, body in _all(world, WaterBody):
        cells = body.cells_in(world.grid).tolist()
        assert all(world.grid.body[y, x] == body.label for x, y in cells)
