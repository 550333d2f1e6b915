"""Creatures that act (SPEC section 16): R-MIND-1..5, R-MIND-7, R-SIDE-1, and a game's
own minds (`affray.register_mind`).

Each test builds a small map, runs it pulse by pulse and reads the log: the `moved`,
`fled` and `fight` events give the exact cells and the exact pulses. Where a test needs
what a mind sees or how far it must walk, it asks the creature's `MindView`, the
read-only view every mind decides with. The casters (R-MIND-6) are in
test_minds_casting.py, spell lists and mana (R-BOOK-1, R-BOOK-2) in test_spellbook.py,
the properties over random maps in test_minds_properties.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from collections.abc import Iterator

import pytest
from conftest import ROOT, four_sigma, world_from_text

import affray
from affray.data.scenario import parse_scenario, prepare_build
from affray.systems.rules import minds
from affray.systems.rules.minds.view import MindView

OPEN = ["..........", "..........", ".........."]  # 10 x 3
PLAYER = "player = true\nhp = 1000"
BRUTE = 'mind = "brute"\nhp = 1000'


def scenario(rows: list[str], creatures: list[tuple[str, tuple[int, int], str]],
             extra: str = "", seed: int = 3) -> str:
    """A scenario with these rows and creatures (id, cell, extra TOML lines)."""
    text = f'name = "minds"\nseed = {seed}\npulses = 0\n[map]\nrows = ['
    text += ", ".join(f'"{row}"' for row in rows) + "]\n"
    for cid, (x, y), more in creatures:
        text += f'[[creatures]]\nid = "{cid}"\nat = [{x}, {y}]\n{more}\n'
    return text + extra


def world_of(rows: list[str], creatures: list[tuple[str, tuple[int, int], str]],
             extra: str = "", seed: int = 3) -> affray.World:
    return world_from_text(scenario(rows, creatures, extra, seed))


def ticks(world: affray.World, count: int) -> affray.World:
    for _ in range(count):
        world.tick()
    return world


def steps(world: affray.World, who: str | None = None) -> list[tuple]:
    """(pulse, creature, from, to) of every `moved` and `fled` event."""
    return [(e.pulse, e.target, tuple(e.from_), tuple(e.to)) for e in world.events
            if e.kind in ("moved", "fled") and (who is None or e.target == who)]


def fights(world: affray.World) -> list[tuple]:
    """(pulse, source, target, change, why) of every `fight` event."""
    return [(e.pulse, e.source, e.target, e.change, e.why) for e in world.events
            if e.kind == "fight"]


def view_of(world: affray.World, creature: str) -> MindView:
    world.enter()
    return MindView(world, world.sheet(creature))


def mind_def(name: str, **traits: object) -> str:
    """An inline content mind."""
    lines = [f"[content.minds.{name}]"]
    for key, value in traits.items():
        lines.append(f"{key} = {json.dumps(value)}")
    return "\n".join(lines) + "\n"


@pytest.fixture
def registered() -> Iterator[list[str]]:
    """Names registered in a test, unregistered after it (minds are process-wide)."""
    names: list[str] = []
    yield names
    for name in names:
        minds.unregister_mind(name)


def register(names: list[str], name: str, function) -> None:
    affray.register_mind(name, function)
    names.append(name)


# -- R-MIND-1: who acts, and when -----------------------------------------------------------

def test_r_mind_1_a_creature_without_a_mind_does_nothing():
    """R-MIND-1: a player and a kobold, neither with a mind, three cells apart: nothing
    happens in 200 pulses, and nothing is left to happen."""
    world = world_of(OPEN, [("hero", (2, 1), PLAYER),
                            ("kobold", (5, 1), 'template = "kobold"')])
    world.run(pulses=200)
    assert list(world.events) == []
    assert world.snapshot()["creatures"]["kobold"]["at"] == [5, 1]
    assert world.minded == set()
    assert world.next_pulse() is None


@pytest.mark.parametrize("first", ["b1", "b2"])
def test_r_mind_1_two_brutes_wanting_one_cell_the_first_spawned_takes_it(first):
    """R-MIND-1: the hero's only free neighbour is (1, 1), one step from each brute.
    Minds act in spawn order, each seeing what the ones before it did this pulse: the
    first brute takes the cell, the second sees it taken and asks for nothing (no
    `refused` step into an occupied cell), and the first fights from its next pulse."""
    cells = {"b1": (0, 2), "b2": (2, 2)}
    second = "b2" if first == "b1" else "b1"
    world = ticks(world_of(["#.#", "#.#", "..."], [
        ("hero", (1, 0), PLAYER), (first, cells[first], BRUTE),
        (second, cells[second], BRUTE)]), 6)
    assert steps(world) == [(0, first, cells[first], (1, 1))]
    assert fights(world) == [(2, first, "hero", "started", "aggressive"),
                             (2, "hero", first, "started", "attacked")]
    assert not [e for e in world.events if e.kind == "refused"]


def test_r_mind_1_a_queued_action_runs_instead_of_the_mind_that_pulse():
    """R-MIND-1: a brute told to step back runs that step at pulse 0 (its mind is not
    asked), then its mind walks it to the hero from its next free pulse."""
    world = world_of(OPEN, [("hero", (8, 1), PLAYER), ("b", (3, 1), BRUTE)])
    world.submit(affray.Move(actor="b", to=(2, 1)))
    ticks(world, 5)
    assert steps(world) == [(0, "b", (3, 1), (2, 1)), (2, "b", (2, 1), (3, 1)),
                            (4, "b", (3, 1), (4, 1))]


def test_r_mind_1_the_schedule_keeps_its_eight_systems():
    """R-MIND-1: minds run in the Pulse system's action step; no system was added."""
    names = ["Pulse", "Stun", "Melee", "Spell", "Arc", "Burst", "FloorItemLoss", "Terrain"]
    assert [system.name for system in affray.systems.SCHEDULE] == names
    world = world_of(OPEN, [("hero", (8, 1), PLAYER), ("b", (3, 1), BRUTE)])
    assert [system.name for system in world.systems] == names


def test_r_mind_1_an_idle_mind_sees_a_creature_a_game_adds():
    """R-MIND-1: a brute alone has nothing to do and rests; a game then adds a player in
    its sight (`World.add_creature`, which logs no event): the brute walks to it at the
    next pulse, as it would have had the player been there from the start."""
    from affray.data.creatures import resolve
    from affray.data.defs import CreatureFields

    world = ticks(world_of(OPEN, [("b", (1, 1), BRUTE)]), 5)
    assert world.next_pulse() is None
    world.add_creature("hero", (5, 1), resolve(world.content, CreatureFields(
        player=True, hp=1000), None))
    assert world.next_pulse() == 5
    ticks(world, 3)
    assert steps(world) == [(5, "b", (1, 1), (2, 1)), (7, "b", (2, 1), (3, 1))]


# -- R-MIND-2: sight -----------------------------------------------------------------------

def test_r_mind_2_a_creature_sees_exactly_sight_cells_around_it():
    """R-MIND-2: on open floor a creature with sight 3 sees every cell within Chebyshev
    distance 3 (a 7 x 7 square), and none farther."""
    world = world_of(["." * 11] * 11, [("eye", (5, 5), 'mind = "eye3"')],
                     mind_def("eye3", aggressive=True, sight=3))
    view = view_of(world, "eye")
    seen = {(x, y) for x in range(11) for y in range(11) if view.sees((x, y))}
    assert seen == {(x, y) for x in range(2, 9) for y in range(2, 9)}


@pytest.mark.parametrize(("foe", "walks"), [((4, 3), True), ((4, 0), True),
                                            ((5, 1), False), ((5, 4), False)])
def test_r_mind_2_a_foe_at_sight_is_seen_one_cell_farther_is_not(foe, walks):
    """R-MIND-2: a brute with sight 3 at (1, 1) walks to a foe 3 cells away (Chebyshev),
    and leaves one 4 cells away alone: the world settles at once."""
    world = world_of(["......", "......", "......", "......", "......"],
                     [("b", (1, 1), 'mind = "eye3"\nhp = 1000'), ("hero", foe, PLAYER)],
                     mind_def("eye3", aggressive=True, sight=3))
    world.run(pulses=1)
    assert bool(steps(world)) is walks
    if not walks:
        assert world.next_pulse() is None


@pytest.mark.parametrize(("door", "sees"), [("+", False), ("'", True)])
def test_r_mind_2_a_shut_door_blocks_sight_an_open_door_does_not(door, sees):
    """R-MIND-2: a brute and a hero on either side of a door in a corridor. Shut, the
    brute sees nothing and nothing happens; open, it walks through to the hero."""
    world = world_of(["#######", f"#..{door}..#", "#######"],
                     [("b", (1, 1), BRUTE), ("hero", (5, 1), PLAYER)])
    assert view_of(world, "b").sees((5, 1)) is sees
    ticks(world, 8)
    if sees:
        assert steps(world) == [(0, "b", (1, 1), (2, 1)), (2, "b", (2, 1), (3, 1)),
                                (4, "b", (3, 1), (4, 1))]
        assert fights(world)[0] == (6, "b", "hero", "started", "aggressive")
    else:
        assert list(world.events) == []
        assert world.next_pulse() is None


# -- R-MIND-3: aggressive ------------------------------------------------------------------

ALLY = "hp = 1000"  # an NPC with no mind: the brute's side, standing still


def test_r_mind_3_walking_distance_is_the_terrain_s_and_a_crowd_is_walked_round():
    """R-MIND-3 (decision: walking distance is measured through the terrain; creatures
    block a step, not the measure): foe A is 3 steps from the brute, walled in by the
    brute's allies on every side but the far one; foe B is 4 steps off in the open. The
    brute goes for A, the nearer; its allies stand in the way, so it steps round them
    (walking.detour) and meets B on the way, which it fights once beside it."""
    world = world_of(["." * 11] * 7, [
        ("A", (4, 3), PLAYER), ("b", (1, 3), BRUTE),
        ("a1", (3, 2), ALLY), ("a2", (3, 3), ALLY), ("a3", (3, 4), ALLY),
        ("a4", (4, 2), ALLY), ("a5", (4, 4), ALLY), ("B", (5, 6), PLAYER)])
    view = view_of(world, "b")
    assert (view.distance("A"), view.distance("B")) == (3, 4)
    ticks(world, 9)
    assert world.sheet("b").mind.target == "B"
    assert steps(world) == [(0, "b", (1, 3), (2, 3)), (2, "b", (2, 3), (2, 4)),
                            (4, "b", (2, 4), (3, 5)), (6, "b", (3, 5), (4, 5))]
    assert fights(world)[0] == (8, "b", "B", "started", "aggressive")


def test_r_mind_3_walking_distance_goes_round_walls():
    """R-MIND-3: through the terrain, round a wall: the cell behind the wall is 2 cells
    off on the grid and 4 steps away by walking, round the wall's foot over water and
    ice (walked on); a shut door walls as a wall does."""
    world = world_of(["..#....", "..#....", "..#....", ".~_~..."],
                     [("b", (1, 1), BRUTE), ("hero", (6, 3), PLAYER)])
    view = view_of(world, "b")
    assert view.distance((3, 1)) == 4  # (1, 2), the ice at (2, 3), (3, 2), (3, 1)
    assert view.distance((3, 0)) == 5
    doored = world_of(["..+....", "..#....", "..#....", "..#...."],
                      [("b", (1, 1), BRUTE), ("hero", (6, 3), PLAYER)])
    assert view_of(doored, "b").distance((3, 1)) is None


@pytest.mark.parametrize("first", ["west", "east"])
def test_r_mind_3_a_tie_goes_to_the_foe_that_came_first(first):
    """R-MIND-3: two foes 3 steps from the brute, one each way: it goes for the one that
    came first into the world."""
    cells = {"west": (0, 1), "east": (6, 1)}
    other = "east" if first == "west" else "west"
    world = ticks(world_of(["......."] * 3, [
        (first, cells[first], PLAYER), (other, cells[other], PLAYER),
        ("b", (3, 1), BRUTE)]), 1)
    step = {"west": (2, 1), "east": (4, 1)}[first]
    assert steps(world) == [(0, "b", (3, 1), step)]
    assert world.sheet("b").mind.target == first


WALLED = ["#########",
          "#...#...#",
          "#...#...#",
          "#...#...#",
          "#.......#",
          "#########"]


def test_r_mind_3_a_wall_hides_a_foe_that_a_path_goes_round_to():
    """R-MIND-2, R-MIND-3: the hero stands behind a wall with a way round it below. The
    brute could walk there (the path exists), but it does not see the hero, so it does
    not go: nothing happens."""
    world = world_of(WALLED, [("b", (2, 2), BRUTE), ("hero", (6, 2), PLAYER)])
    view = view_of(world, "b")
    assert not view.sees((6, 2))
    assert view.distance((5, 3)) == 3  # three steps to stand beside the hero
    world.run(pulses=100)
    assert list(world.events) == []
    assert world.next_pulse() is None


def test_r_mind_3_water_and_ice_are_walked_on():
    """R-MIND-3: the only way to the hero crosses water and ice: the brute wades and
    slides along it, a step every move wait."""
    world = ticks(world_of(["#########", "#.~~_~..#", "#########"],
                           [("b", (1, 1), BRUTE), ("hero", (7, 1), PLAYER)]), 12)
    assert steps(world) == [(0, "b", (1, 1), (2, 1)), (2, "b", (2, 1), (3, 1)),
                            (4, "b", (3, 1), (4, 1)), (6, "b", (4, 1), (5, 1)),
                            (8, "b", (5, 1), (6, 1))]
    assert fights(world)[0] == (10, "b", "hero", "started", "aggressive")


ROOM = ["#########", "#.......#", "#.......#", "#.......#", "#########"]


def test_r_mind_3_creatures_block_so_the_path_goes_round_them():
    """R-MIND-3: two of the brute's allies stand in its way. Its first step is the
    terrain's (5 -> 4); there the allies block every nearer cell, so it steps round them
    below (walking.detour: 4 -> 4), and on by the terrain (3, 2, then beside)."""
    world = world_of(ROOM, [("b", (1, 1), BRUTE), ("a1", (3, 1), ALLY),
                            ("a2", (3, 2), ALLY), ("hero", (6, 1), PLAYER)])
    walk = [view_of(world, "b").distance("hero")]
    for _ in range(12):
        before = len(steps(world))
        world.tick()
        if len(steps(world)) > before:
            walk.append(view_of(world, "b").distance("hero"))
    assert walk == [5, 4, 4, 3, 2, 1]
    assert [to for *_, to in steps(world)] == [(2, 1), (2, 2), (3, 3), (4, 3), (5, 2)]


def test_r_mind_3_a_fighter_does_not_walk():
    """R-MIND-3: a brute in a brawl with a creature of its own side (a scenario's
    `fighting`) sees a player 4 cells off. Free, it would walk to the player; fighting,
    it stays, and every blow it strikes is at the one it fights."""
    world = ticks(world_of(OPEN, [
        ("b", (1, 1), BRUTE + '\nfighting = "brawler"'), ("brawler", (0, 1), ALLY),
        ("hero", (5, 1), PLAYER)]), 49)
    assert steps(world) == []
    blows = [e.target for e in world.events
             if e.kind in ("damage", "miss", "defended") and e.source == "b"]
    assert blows and set(blows) == {"brawler"}


LAST_SEEN = ["#########",
             "#.......#",
             "#######.#",
             "#######.#",
             "#######.#",
             "#######.#",
             "#######.#",
             "#########"]


def test_r_mind_3_a_foe_out_of_sight_is_followed_to_its_last_cell_then_forgotten():
    """R-MIND-3: a brute with sight 4 sees the hero 4 cells off at pulse 0 and steps
    toward it; the hero then walks away down a side corridor while the brute is held
    (a script sets its wait). When it can go on, the hero is out of sight: it walks to
    the cell where it last saw it, (5, 1), and, seeing no one from there, forgets it."""
    world = world_of(LAST_SEEN, [("b", (1, 1), 'mind = "eye4"\nhp = 1000'),
                                 ("hero", (5, 1), PLAYER)],
                     mind_def("eye4", aggressive=True, sight=4))
    for cell in [(6, 1), (7, 2), (7, 3), (7, 4), (7, 5), (7, 6)]:
        world.submit(affray.Move(actor="hero", to=cell))
    world.tick()
    assert steps(world, "b") == [(0, "b", (1, 1), (2, 1))]
    world.set_wait("b", 12)
    ticks(world, 11)
    assert world.snapshot()["creatures"]["hero"]["at"] == [7, 6]
    assert (world.sheet("b").mind.target, world.sheet("b").mind.last_seen) == ("hero", (5, 1))
    world.run(pulses=30)
    assert steps(world, "b")[1:] == [(12, "b", (2, 1), (3, 1)), (14, "b", (3, 1), (4, 1)),
                                     (16, "b", (4, 1), (5, 1))]
    assert (world.sheet("b").mind.target, world.sheet("b").mind.last_seen) == (None, None)
    assert world.next_pulse() is None


def test_r_mind_3_a_foe_lost_behind_a_wall_is_walked_to_not_forgotten():
    """R-MIND-3: the brute remembers the hero at the cell it last saw it on, behind a
    wall now; the hero still holds that cell. The brute walks to beside it, round the
    wall's foot, and fights it from (2, 2). (Found by test_minds_properties: the brute
    took the taken cell for one it could not reach, and forgot the hero at once.)"""
    world = world_of(["...#.....", "...#.....", "...#.....", "........."],
                     [("b", (5, 1), BRUTE), ("hero", (1, 1), PLAYER)])
    assert not view_of(world, "b").sees((1, 1))
    memory = world.sheet("b").mind
    memory.target, memory.last_seen = "hero", (1, 1)
    ticks(world, 7)
    assert steps(world) == [(0, "b", (5, 1), (4, 2)), (2, "b", (4, 2), (3, 3)),
                            (4, "b", (3, 3), (2, 2))]
    assert fights(world)[0] == (6, "b", "hero", "started", "aggressive")


def test_r_act_1_r_mind_3_struck_from_afar_a_mind_closes_in_on_its_attacker():
    """R-ACT-1, R-MIND-3: a sentry (neither aggressive nor assisting) struck by a magic
    missile from 5 cells off takes the caster as its target: it walks up from the next
    pulse and fights it (`fight` why attacked), and the snapshot shows both fights."""
    world = world_of(OPEN, [("hero", (1, 1), PLAYER), ("s", (6, 1), 'mind = "sentry"\nhp = 1000')])
    world.submit(affray.Cast(actor="hero", spell="magic_missile", target="s"))
    ticks(world, 10)
    assert steps(world) == [(1, "s", (6, 1), (5, 1)), (3, "s", (5, 1), (4, 1)),
                            (5, "s", (4, 1), (3, 1)), (7, "s", (3, 1), (2, 1))]
    assert fights(world) == [(9, "s", "hero", "started", "attacked"),
                             (9, "hero", "s", "started", "attacked")]
    shown = world.snapshot()["creatures"]
    assert {key: shown["s"][key] for key in ("side", "mind", "fighting", "position")} == {
        "side": "npcs", "mind": "sentry", "fighting": "hero", "position": "fighting"}
    assert (shown["hero"]["mind"], shown["hero"]["fighting"]) == (None, "s")


# -- R-MIND-4: assist ----------------------------------------------------------------------

GUARD = 'mind = "guard"\nhp = 1000'


def test_r_mind_4_assist_joins_a_fight_of_its_side_that_it_sees():
    """R-MIND-4: a guard (assist, not aggressive) sees its side's kobold fighting the
    hero: it walks up and joins, against the hero (`fight` why assist)."""
    world = ticks(world_of(OPEN, [
        ("g", (1, 1), GUARD), ("k", (5, 1), 'hp = 1000\nfighting = "hero"'),
        ("hero", (6, 1), PLAYER)]), 12)
    assert steps(world, "g") == [(0, "g", (1, 1), (2, 1)), (2, "g", (2, 1), (3, 1)),
                                 (4, "g", (3, 1), (4, 1)), (6, "g", (4, 1), (5, 2))]
    assert (8, "g", "hero", "started", "assist") in fights(world)


def test_r_mind_4_assist_does_not_join_a_fight_it_cannot_see():
    """R-MIND-4: the same fight behind a wall: the guard does not move."""
    world = ticks(world_of(WALLED, [
        ("g", (1, 2), GUARD), ("k", (6, 2), 'hp = 1000\nfighting = "hero"'),
        ("hero", (7, 2), PLAYER)]), 49)
    assert not view_of(world, "g").sees((6, 2))
    assert steps(world) == []
    assert [f for f in fights(world) if "g" in f[1:3]] == []


def test_r_mind_4_a_fight_of_no_creature_of_its_side_is_not_joined():
    """R-MIND-4: two players fight each other in the guard's sight: neither is of the
    guard's side, so it stays where it is."""
    world = ticks(world_of(OPEN, [
        ("g", (1, 1), GUARD), ("p1", (5, 1), PLAYER + '\nfighting = "p2"'),
        ("p2", (6, 1), PLAYER)]), 49)
    assert steps(world) == []


@pytest.mark.parametrize(("mind", "attacks"), [("guard", False), ("pack", True)])
def test_r_mind_4_a_lone_foe_that_fights_no_one_is_left_alone_unless_aggressive(
        mind, attacks):
    """R-MIND-4: a hero in sight who fights no one: a guard (assist only) leaves it
    alone and the world settles; a pack hunter (aggressive and assist) goes for it."""
    world = world_of(OPEN, [("g", (1, 1), f'mind = "{mind}"\nhp = 1000'),
                            ("hero", (4, 1), PLAYER)])
    world.run(pulses=12)
    if attacks:
        assert steps(world) == [(0, "g", (1, 1), (2, 1)), (2, "g", (2, 1), (3, 1))]
        assert fights(world)[0] == (4, "g", "hero", "started", "aggressive")
    else:
        assert list(world.events) == []
        assert world.next_pulse() is None


@pytest.mark.parametrize(("mind", "ally_fights", "why"), [
    ("guard", False, None), ("guard", True, "assist"), ("brute", False, "aggressive")])
def test_r_mind_4_a_held_creature_strikes_only_what_it_would_walk_to(mind, ally_fights,
                                                                    why):
    """R-MIND-3, R-MIND-4: held (it cannot walk), a creature with a foe beside it goes
    for that foe only as it would if free: a guard leaves a hero who fights no one
    alone, and joins the fight when the hero fights its side's kobold; a brute goes for
    any foe. (A held guard used to strike any foe beside it.)"""
    kobold = 'hp = 1000' + ('\nfighting = "hero"' if ally_fights else "")
    world = ticks(world_of(OPEN, [
        ("g", (1, 1), f'mind = "{mind}"\nhp = 1000\naffects = ["held"]'),
        ("hero", (2, 1), PLAYER), ("k", (3, 1), kobold)]), 3)
    started = [f for f in fights(world) if f[1] == "g"]
    assert started == ([] if why is None else [(0, "g", "hero", "started", why)])


# -- R-MIND-5: wimpy -----------------------------------------------------------------------

def wimpy(hp: int = 40, chance: int = 100, more: str = "") -> str:
    """A creature at `hp` of 100 whose mind flees below half its hit points, rolling
    `chance` percent at each round's check."""
    return f'mind = "runner"\nhp = {hp}\nmax_hp = 100\n{more}'


RUNNER = mind_def("runner", assist=True, wimpy=50, wimpy_chance=100)


def test_r_mind_5_it_flees_to_the_free_cell_farthest_from_its_foes():
    """R-MIND-5: the runner at (3, 2) fights the hero beside it to the west; a second
    player stands at (5, 4). East of the runner is a wall; every free neighbour but
    (4, 1) is beside one of the two, and (4, 1) is two steps from both. It flees there
    at the round's check (pulse 0), not to (3, 3), the first free cell in R-GRID-2's
    order, nor to (4, 3), the first two cells from the hero: a `fled` event, and both
    fights end with why fled, before any blow."""
    world = ticks(world_of([".......", ".......", "....#..", ".......", "......."], [
        ("hero", (2, 2), PLAYER), ("c", (3, 2), wimpy(more='fighting = "hero"')),
        ("p2", (5, 4), PLAYER)], RUNNER), 1)
    assert steps(world) == [(0, "c", (3, 2), (4, 1))]
    assert [e.kind for e in world.events] == ["fight", "fight", "fled", "fight", "fight"]
    assert fights(world)[2:] == [(0, "c", "hero", "ended", "fled"),
                                 (0, "hero", "c", "ended", "fled")]
    assert world.sheet("c").combat.fighting is None


def test_r_mind_5_the_cell_it_leaves_is_free_for_its_foes_to_walk_through():
    """R-MIND-5: walls at (3, 1) and (4, 2). With the runner's own cell counted as a
    wall, (4, 1) would be three steps from the hero and (4, 3) two; but once it has
    stepped, the hero walks through the cell it left, and both are two steps off. The
    tie goes to R-GRID-2's order: (4, 3)."""
    world = ticks(world_of([".......", "...#...", "....#..", "......."], [
        ("hero", (2, 2), PLAYER), ("c", (3, 2), wimpy(more='fighting = "hero"'))],
        RUNNER), 1)
    assert steps(world) == [(0, "c", (3, 2), (4, 3))]


def test_r_mind_5_beside_two_foes_it_steps_beside_only_one():
    """R-MIND-5: in a corridor two cells wide, the runner has a foe on each side in its
    row and every free neighbour is beside one of them. (2, 2) is beside both: no better
    than where it stands. (3, 2) and (1, 2) are no farther but beside one foe only: it
    steps to (3, 2), the first of them in R-GRID-2's order."""
    world = ticks(world_of(["#####", "#...#", "#...#", "#####"], [
        ("w", (1, 1), PLAYER), ("c", (2, 1), wimpy(more='fighting = "w"')),
        ("e", (3, 1), PLAYER)], RUNNER), 1)
    assert steps(world) == [(0, "c", (2, 1), (3, 2))]


def test_r_mind_5_it_keeps_fleeing_while_a_foe_is_beside_it():
    """R-MIND-5: a brute chases the runner along a corridor: each time the brute steps
    beside it, it flees another step, with no new roll (it is fleeing), until the end
    of the corridor, where every free cell is beside the brute: it can flee no farther
    and fights on."""
    world = ticks(world_of(["#########", "#.......#", "#########"], [
        ("hero", (3, 1), BRUTE + "\nplayer = true\nlevel = 30"),
        ("c", (4, 1), wimpy(more='fighting = "hero"'))], RUNNER), 30)
    assert steps(world) == [(0, "c", (4, 1), (5, 1)), (1, "hero", (3, 1), (4, 1)),
                            (2, "c", (5, 1), (6, 1)), (3, "hero", (4, 1), (5, 1)),
                            (4, "c", (6, 1), (7, 1)), (5, "hero", (5, 1), (6, 1))]
    assert fights(world)[4:6] == [(7, "hero", "c", "started", "aggressive"),
                                  (7, "c", "hero", "started", "attacked")]
    assert world.sheet("c").combat.fighting == "hero"


@pytest.mark.parametrize("walls", ["dead end", "corner"])
def test_r_mind_5_a_creature_that_cannot_step_away_fights_on(walls):
    """R-MIND-5: a runner whose only free neighbours are walls (a dead end) or cells
    beside the hero as well (a corner: a step there is no farther off) does not flee:
    no `fled` event in 48 pulses, and it is still fighting the hero."""
    rows, at = {"dead end": (["#####", "#..##", "#####"], (1, 1)),
                "corner": (["....", "....", "...."], (2, 1))}[walls]
    corner = (3, 2) if walls == "corner" else (2, 1)
    world = ticks(world_of(rows, [("hero", at, PLAYER),
                                  ("c", corner, wimpy(more='fighting = "hero"'))],
                           RUNNER), 49)
    assert steps(world) == []
    assert world.sheet("c").combat.fighting == "hero"


def test_r_mind_5_above_the_threshold_it_does_not_flee():
    """R-MIND-5: at exactly half its hit points (not below) the runner stays."""
    world = ticks(world_of(OPEN, [("hero", (4, 1), PLAYER + "\nlevel = 1\nhitroll = -100"),
                                  ("c", (5, 1), wimpy(hp=50, more='fighting = "hero"'))],
                           RUNNER), 1)
    assert steps(world) == []


def test_r_mind_5_the_wimpy_roll_flees_wimpy_chance_percent_of_the_time():
    """R-MIND-5: at the round's check a runner below its threshold flees with
    `wimpy_chance` percent (25 here, the source's): over 2,000 seeds, the share that
    fled at pulse 0 is within four binomial sigmas of 0.25."""
    text = scenario(OPEN, [("hero", (4, 1), PLAYER),
                           ("c", (5, 1), wimpy(more='fighting = "hero"'))],
                    mind_def("runner", assist=True, wimpy=50, wimpy_chance=25))
    spec, raw = parse_scenario(text, "wimpy.toml")
    blueprint = prepare_build(spec, raw, "wimpy.toml")
    trials, fled = 2000, 0
    for seed in range(trials):
        world = blueprint.build(seed)
        world.tick()
        fled += any(e.kind == "fled" for e in world.events)
        world.close()
    assert abs(fled / trials - 0.25) <= four_sigma(0.25, trials)


# -- R-SIDE-1: sides ----------------------------------------------------------------------

def test_r_side_1_the_default_sides_are_players_and_npcs():
    """R-SIDE-1: a player character is on `players`, anything else on `npcs`, unless its
    `side` says otherwise; the snapshot shows it."""
    world = world_of(OPEN, [("hero", (1, 1), PLAYER), ("kobold", (3, 1), "hp = 10"),
                            ("orc", (5, 1), 'side = "orcs"'),
                            ("turncoat", (7, 1), 'player = true\nside = "npcs"')])
    sides = {cid: c["side"] for cid, c in world.snapshot()["creatures"].items()}
    assert sides == {"hero": "players", "kobold": "npcs", "orc": "orcs",
                     "turncoat": "npcs"}


def test_r_side_1_minds_never_pick_their_own_side_even_when_it_is_nearest():
    """R-SIDE-1: an orc brute with another orc beside it (the nearest creature) and a
    kobold of the default npcs side 4 cells off: the kobold is its foe; the orc never
    is. Two brutes of one side alone never fight: that world settles at once."""
    world = ticks(world_of(OPEN, [
        ("orc", (2, 1), 'side = "orcs"\nhp = 1000'),
        ("b", (1, 1), BRUTE + '\nside = "orcs"'),
        ("kobold", (5, 1), "hp = 1000")]), 10)
    assert steps(world) == [(0, "b", (1, 1), (2, 2)), (2, "b", (2, 2), (3, 2)),
                            (4, "b", (3, 2), (4, 2))]
    assert fights(world)[0] == (6, "b", "kobold", "started", "aggressive")
    alone = world_of(OPEN, [("b1", (1, 1), BRUTE), ("b2", (3, 1), BRUTE)])
    alone.run(pulses=100)
    assert list(alone.events) == []
    assert alone.next_pulse() is None


# -- a game's own minds ---------------------------------------------------------------------

def test_register_mind_a_game_mind_gets_a_view_and_its_creature_s_id(registered):
    """A registered mind is called with the creature's view and id when it is free, and
    what it returns is carried out: here a step toward the foe it sees."""
    calls = []

    def stalker(view, actor):
        calls.append((view.pulse, actor, view.me.at, [s.id for s in view.foes]))
        step = view.step_toward(view.foes[0]) if view.foes else None
        return affray.Move(actor=actor, to=step) if step else None

    register(registered, "stalker", stalker)
    world = ticks(world_of(OPEN, [("m", (1, 1), 'mind = "stalker"'),
                                  ("hero", (5, 1), PLAYER)]), 3)
    assert calls == [(0, "m", (1, 1), ["hero"]), (2, "m", (2, 1), ["hero"])]
    assert steps(world) == [(0, "m", (1, 1), (2, 1)), (2, "m", (2, 1), (3, 1))]


@pytest.mark.parametrize(("returned", "action", "reason"), [
    (lambda actor: affray.Move(actor=actor, to=(5, 1)), "move", "not beside"),
    (lambda actor: affray.Attack(actor=actor, target="hero"), "attack", "beside"),
    (lambda actor: affray.Move(actor="hero", to=(4, 0)), "move", "its own creature"),
    (lambda actor: "north", "str", "its own creature"),
])
def test_register_mind_a_bad_action_is_a_refused_event_once(registered, returned, action,
                                                             reason):
    """A game mind's action is checked as `submit` checks one: a step that is not beside
    it, an attack from afar, an action of another creature, or no action at all is a
    `refused` event naming it, and changes nothing else; the mind is not asked again
    until something happens, so one refusal is logged, not one a pulse."""
    register(registered, "clumsy", lambda view, actor: returned(actor))
    world = world_of(OPEN, [("m", (1, 1), 'mind = "clumsy"'), ("hero", (4, 1), PLAYER)])
    world.run(pulses=50)
    refused = [e for e in world.events if e.kind == "refused"]
    assert [(e.pulse, e.actor, e.action) for e in refused] == [(0, "m", action)]
    assert reason in refused[0].reason
    assert len(world.events) == 1
    assert world.snapshot()["creatures"]["m"]["at"] == [1, 1]


def test_register_mind_a_registered_mind_wins_over_a_content_mind_of_its_name(registered):
    """A game's mind registered as "brute" replaces the content's brute: this one only
    ever steps west. Unregistered, the content's brute walks to the hero again."""
    def westward(view, actor):
        x, y = view.me.at
        return affray.Move(actor=actor, to=(x - 1, y)) if x > 0 else None

    register(registered, "brute", westward)
    world = ticks(world_of(OPEN, [("b", (3, 1), BRUTE), ("hero", (8, 1), PLAYER)]), 7)
    assert [to for *_, to in steps(world)] == [(2, 1), (1, 1), (0, 1)]
    minds.unregister_mind("brute")
    world = ticks(world_of(OPEN, [("b", (3, 1), BRUTE), ("hero", (8, 1), PLAYER)]), 3)
    assert [to for *_, to in steps(world)] == [(4, 1), (5, 1)]


def test_an_unknown_mind_in_a_scenario_is_a_scenario_error_naming_the_field():
    """R-MIND-1: a creature naming a mind that content does not define and no game
    registered is refused at load, naming the file, the creature and the field."""
    with pytest.raises(affray.ScenarioError) as caught:
        world_of(OPEN, [("m", (1, 1), 'mind = "telepath"')])
    message = str(caught.value)
    assert "test.toml" in message and "mind" in message and "telepath" in message
    assert "creatures[0]" in message or "'m'" in message


def test_a_save_with_a_registered_mind_loads_only_when_it_is_registered_again(
        registered, tmp_path):
    """R-MIND-7: a save keeps the mind by name. Loaded where the game did not register it
    again, it is a SaveError naming the creature and the mind (not a creature that
    silently stops thinking); registered again, the load continues as the unsaved
    world does."""
    def stalker(view, actor):
        step = view.step_toward(view.foes[0]) if view.foes else None
        return affray.Move(actor=actor, to=step) if step else None

    register(registered, "stalker", stalker)
    text = scenario(OPEN, [("m", (1, 1), 'mind = "stalker"\nhp = 1000'),
                           ("hero", (8, 1), PLAYER)])
    world = ticks(world_from_text(text), 3)
    path = tmp_path / "stalker.save"
    world.save(path)
    minds.unregister_mind("stalker")
    with pytest.raises(affray.SaveError) as caught:
        affray.load_world(path)
    assert "stalker" in str(caught.value) and "'m'" in str(caught.value)
    register(registered, "stalker", stalker)
    loaded = affray.load_world(path)
    loaded.run(pulses=20)
    straight = ticks(world_from_text(text), 23)
    assert [e.to_dict() for e in loaded.events] == [e.to_dict() for e in straight.events]


# -- R-MIND-7: the same seed, saves, idle pulses ---------------------------------------------

CHASE = scenario(["############",
                  "#..........#",
                  "#..~~~.....#",
                  "#..~~~..#..#",
                  "#.......#..#",
                  "############"], [
    ("hero", (2, 1), 'template = "human_warrior"\nhp = 300\nmind = "hero"'),
    ("mage", (1, 4), 'player = true\nhp = 120\nmind = "hero_caster"\n'
                     'skills = { spark = 90, magic_missile = 90 }\nstats = { int = 20 }'),
    ("k1", (10, 1), 'template = "kobold"\nhp = 60\nmind = "pack"'),
    ("k2", (6, 4), 'template = "kobold"\nhp = 110\nmax_hp = 300\nmind = "scared"'),
    ("shaman", (9, 2), 'template = "kobold"\nhp = 80\nmind = "caster"'),
], mind_def("scared", assist=True, wimpy=40, wimpy_chance=60), seed=11)


def run_log(world: affray.World) -> list[dict]:
    return [event.to_dict() for event in world.events]


def test_r_mind_7_the_chase_is_a_real_fight():
    """The scenario the R-MIND-7 tests share walks, flees, casts and fights (a test of
    determinism over a log with none of it would prove nothing): the hero and k1 walk
    up to each other from pulse 0, k2 flees at pulse 12 and is still fleeing at 13,
    the two casters cast every 16 pulses."""
    world = world_from_text(CHASE)
    world.run(pulses=13)
    assert world.sheet("k2").mind.fleeing
    world.run(pulses=387)
    kinds = {event["kind"] for event in run_log(world)}
    assert {"moved", "fled", "fight", "cast", "damage", "death"} <= kinds


def test_r_mind_7_two_builds_of_one_seed_give_the_same_log():
    """R-MIND-7: minds draw only from the world's generator: two builds of the same seed
    give the same log, event for event; another seed another log."""
    spec, raw = parse_scenario(CHASE, "chase.toml")
    blueprint = prepare_build(spec, raw, "chase.toml")
    logs = []
    for seed in (5, 5, 6):
        world = blueprint.build(seed)
        world.run(pulses=400)
        logs.append(run_log(world))
        world.close()
    assert logs[0] == logs[1]
    assert logs[0] != logs[2]


def test_r_mind_7_two_processes_give_the_same_log(tmp_path):
    """R-MIND-7: the same scenario and seed run in two processes, with different hash
    seeds (so any order taken from a set of entities would differ), print the same
    JSON log as this process does."""
    path = tmp_path / "chase.toml"
    path.write_text(CHASE.replace("pulses = 0", "pulses = 400"))
    outputs = []
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run([sys.executable, "-m", "affray", "run", str(path), "--json"],
                              capture_output=True, text=True, env=env, timeout=300,
                              check=True)
        outputs.append(json.loads(done.stdout)["events"])
    world = affray.load_scenario(path)
    world.run()
    assert outputs[0] == outputs[1] == json.loads(json.dumps(run_log(world)))


@pytest.mark.parametrize("mana", [False, True])
@pytest.mark.parametrize("at", [3, 13, 40, 100, 200])
def test_r_mind_7_save_load_continue_is_the_straight_run(tmp_path, at, mana):
    """R-MIND-7: saved mid-chase (pulse 3), mid-flee (13), between casts (40, 100) and
    late (200), loaded and run on, the world gives the straight run's log and snapshot;
    with mana counted too (R-BOOK-2: what is left, and when it comes back, are saved)."""
    text = CHASE + ("[content.world.casting]\nmana = true\n" if mana else "")
    straight = world_from_text(text)
    straight.run(pulses=400)
    world = world_from_text(text)
    world.run(pulses=at)
    world.save(tmp_path / "chase.save")
    loaded = affray.load_world(tmp_path / "chase.save")
    loaded.run(pulses=400 - at)
    assert run_log(loaded) == run_log(straight)
    assert loaded.snapshot() == straight.snapshot()


def test_r_mind_7_run_gives_the_log_of_tick_after_tick():
    """R-MIND-7: `run()` jumps the pulses in which no mind can act; the log and the
    final state are those of 400 single ticks."""
    jumped = world_from_text(CHASE)
    jumped.run(pulses=400)
    stepped = ticks(world_from_text(CHASE), 400)
    assert run_log(jumped) == run_log(stepped)
    assert jumped.snapshot() == stepped.snapshot()


def test_r_mind_7_a_world_whose_minds_have_nothing_left_to_do_settles():
    """R-MIND-7: a brute kills a 1-hp hero; then no mind has anything to do: the world
    settles (`run(until="settled")` logs `settled`), and neither the world nor the minds
    name a next pulse."""
    world = world_of(OPEN, [("b", (1, 1), BRUTE + "\nhitroll = 100\ndamroll = 20"),
                            ("hero", (4, 1), "player = true\nhp = 1")],
                     "[content.fight]\nauto_miss_in_20 = 0\n")
    world.run(pulses=1000, until="settled")
    kinds = [e.kind for e in world.events]
    assert "death" in kinds and kinds[-1] == "settled"
    assert world.pulse < 1000
    assert minds.next_pulse(world) is None and world.next_pulse() is None


# -- packaging -------------------------------------------------------------------------------

def test_the_minds_package_is_listed_for_the_wheel():
    """The engine imports affray.systems.rules.minds: every folder of the source tree
    that holds an __init__.py must be listed in pyproject.toml's packages, or a wheel
    (not the editable install the tests run on) leaves it out and affray fails to
    import."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(project["packages"])
    mapped = {folder: package for package, folder in project["package-dir"].items()}
    found = set()
    for folder, package in mapped.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            parts = init.parent.relative_to(ROOT / folder).parts
            found.add(".".join((package, *parts)))
    assert found - listed == set()

