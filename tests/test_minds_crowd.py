"""A side's look (minds/crowd.py) answers as each of its creatures looking alone would
(R-MIND-2, R-MIND-3, R-SIDE-1).

The look is two maps of the grid made once per state of the other sides: the distance
to the nearest creature of another side, and who stands where. It answers
`nothing_near` and `MindView.nearest_foe` for a whole side while the others stand. It
must change the cost and nothing else: the same answers, the same logs, and no answer
from a look the others' moves made stale.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from conftest import world_from_text
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_minds_properties import worlds

import affray
from affray.data.armies import CONTENT as ARMY_CONTENT
from affray.systems.rules import walking
from affray.systems.rules.minds import crowd, march, nothing_near
from affray.systems.rules.minds.view import MindView


def _chebyshev(a: tuple[int, int], b: tuple[int, int]) -> int:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def _others(world: affray.World, sheet) -> list:
    return [s for s in world.sheets.values()
            if s.vitals.alive and s.creature.side != sheet.creature.side]


def _check_every_creature(world: affray.World, monkeypatch) -> int:
    """For every living creature: the look's distance is the least Chebyshev distance
    to a living creature of another side, `others_near` is exact with a look, and the
    look's nearest foe (when the window is open) is the long way's. Returns how many
    creatures the look answered for."""
    answered = 0
    for sheet in [s for s in world.sheets.values() if s.vitals.alive]:
        at = (sheet.position.x, sheet.position.y)
        others = _others(world, sheet)
        nearest = min((_chebyshev(at, (o.position.x, o.position.y)) for o in others),
                      default=None)
        look = crowd.make_look(world, world.roster.code(sheet.creature.side))
        assert look.nearest(*at) == (crowd.FAR if nearest is None else nearest)
        for radius in (0, 1, 2, 5, 8, 30):
            expected = nearest is not None and nearest <= radius
            monkeypatch.setattr(crowd, "WARM", 1)
            assert crowd.others_near(world, sheet.creature.side, at, radius) == expected
        monkeypatch.setattr(crowd, "look_of", lambda world, code: None)
        long_way = MindView(world, sheet).nearest_foe()
        sees, nearest_cells = (MindView(world, sheet).sees_a_foe(),
                               MindView(world, sheet).nearest_foe_cells())
        monkeypatch.undo()
        monkeypatch.setattr(crowd, "WARM", 1)
        assert MindView(world, sheet).sees_a_foe() == sees
        assert MindView(world, sheet).nearest_foe_cells() == nearest_cells
        view = MindView(world, sheet)
        quick = view._crowd_nearest()
        if walking.open_window(world.grid, at, view._reach):
            assert quick == long_way
            answered += 1
        else:
            assert quick is False  # a wall or a shut door in the window: the long way
        monkeypatch.undo()
    return answered


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(worlds(), st.integers(0, 30))
def test_the_look_answers_as_each_creature_looking_alone_on_random_maps(made, pulses):
    """R-MIND-2 / R-MIND-3 / R-SIDE-1 on random maps (walls, doors, water, several sides,
    after some pulses of play): the distance to the nearest creature of another side,
    whether one stands within a reach, whether it sees a foe and how far the nearest
    is, and the nearest foe of every creature whose window is open are the per-creature
    look's; with a wall in the window the look gives no answer."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        world = world_from_text(made)
        try:
            world.run(pulses)
            world.enter()
            _check_every_creature(world, monkeypatch)
        finally:
            world.close()


def test_the_look_answers_as_each_soldier_looking_alone_mid_battle(monkeypatch):
    """R-MIND-3 / R-SIDE-1 where the look is meant to work, an army on open ground: at
    three moments of a battle, every soldier's nearest foe from its side's look is the
    one it finds looking alone, ties to the earlier spawn included."""
    world = world_from_text(affray.army(30, seed=4))
    try:
        answered = 0
        for pulses in (120, 80, 120):
            world.run(pulses)
            world.enter()
            answered += _check_every_creature(world, monkeypatch)
        assert answered > 100
    finally:
        world.close()


def _log(text: str, pulses: int) -> list[str]:
    world = world_from_text(text)
    try:
        world.run(pulses)
        return [repr(event) for event in world.events]
    finally:
        world.close()


def _mixed_battle(seed: int) -> str:
    """Three sides spawned interleaved (every creature's turn may move another side's)
    on a 40 x 24 field with walls, a pond and a shut door; the army's soldiers."""
    rng = random.Random(seed)
    width, height = 40, 24
    rows = [["."] * width for _ in range(height)]
    for _ in range(70):
        rows[rng.randrange(height)][rng.randrange(width)] = "#"
    for y in range(9, 13):
        for x in range(18, 22):
            rows[y][x] = "~"
    rows[2][2] = "+"
    free = [(x, y) for y in range(height) for x in range(width) if rows[y][x] == "."]
    cells = rng.sample(free, 72)
    kinds = (("soldier", "warrior"), ("levy", "levy"), ("bowman", "archer"))
    lines = [f"name = \"mixed\"\nseed = {seed}\npulses = 100000\n[map]\nrows = ["]
    lines += [f'  "{"".join(row)}",' for row in rows]
    lines.append("]")
    for index, (x, y) in enumerate(cells):
        template, mind = kinds[index % 3]
        side = ("red", "blue", "green")[index % 3 if index % 2 else (index // 2) % 3]
        lines += ["[[creatures]]", f'id = "c{index}"', f'template = "{template}"',
                  f'side = "{side}"', f'mind = "{mind}"', f"at = [{x}, {y}]"]
    return "\n".join(lines) + "\n" + ARMY_CONTENT


@pytest.mark.parametrize(("text", "pulses"), [
    pytest.param(affray.army(40, seed=1), 500, id="army(40) seed 1"),
    pytest.param(_mixed_battle(3), 400, id="three sides interleaved, walls"),
    pytest.param(_mixed_battle(8), 400, id="three sides interleaved, walls, seed 8"),
])
def test_a_battle_logs_the_same_with_looks_made_at_once_or_never(text, pulses, monkeypatch):
    """R-MIND-1 / R-MIND-7: the look changes what a pulse costs, never what happens: a
    battle logs event for event the same whether every side's look is made at its first
    ask (WARM = 1), after the default warm-up, or never (every creature looks alone)."""
    default = _log(text, pulses)
    monkeypatch.setattr(crowd, "WARM", 1)
    at_once = _log(text, pulses)
    monkeypatch.setattr(crowd, "look_of", lambda world, code: None)
    never = _log(text, pulses)
    assert len(default) > 300
    assert at_once == default
    assert never == default


def _field_world() -> affray.World:
    """On a 30 x 12 field: red `a` at (2, 2) and `b` at (3, 9); blue `c` at (20, 2)."""
    row = '"' + "." * 30 + '"'
    rows = ", ".join([row] * 12)
    world = world_from_text(f"""
name = "field"
seed = 1
pulses = 0
[map]
rows = [{rows}]
[content.minds.watch]
aggressive = true
sight = 6
[[creatures]]
id = "a"
at = [2, 2]
side = "red"
mind = "watch"
[[creatures]]
id = "b"
at = [3, 9]
side = "red"
mind = "watch"
[[creatures]]
id = "c"
at = [20, 2]
side = "blue"
mind = "watch"
""")
    world.enter()
    return world


def test_a_side_asks_warm_times_before_its_look_is_made_and_keeps_it_while_the_others_stand():
    """The look is made at a side's WARM-th ask at one stamp of the others, then kept;
    a step of its own side keeps it (the maps are of the others), a step or a death of
    another side, or a creature written again, makes it stale."""
    world = _field_world()
    try:
        red = world.roster.code("red")
        for _ in range(crowd.WARM - 1):
            assert crowd.look_of(world, red) is None
        look = crowd.look_of(world, red)
        assert look is not None and look.nearest(2, 2) == 18
        assert crowd.look_of(world, red) is look
        world.place(world.entity("b"), world.sheet("b").position, 4, 9, why="apart")
        assert crowd.look_of(world, red) is look  # its own side moved: still good
        world.place(world.entity("c"), world.sheet("c").position, 19, 2, why="apart")
        assert crowd.look_of(world, red) is None  # the foe stepped: stale
        for _ in range(crowd.WARM - 1):
            crowd.look_of(world, red)
        fresh = crowd.look_of(world, red)
        assert fresh is not None and fresh is not look and fresh.nearest(2, 2) == 17
        world.touch("a")
        assert crowd.look_of(world, red) is None  # written by hand: looked at again
    finally:
        world.close()


def test_the_look_finds_no_foe_where_the_blocks_would_send_a_mind_to_look():
    """`nothing_near` with a look is exact: a foe 8 cells off (sight 6 + 2) stands in a
    block the roster's counts overlap, so without a look the mind is asked (and finds
    nothing); with the look it is known at once that nothing is near. One cell nearer
    (sight + 1), something is near either way."""
    world = _field_world()
    try:
        c = world.sheet("c")
        world.place(c.entity, c.position, 10, 2, why="apart")
        a = world.sheet("a")
        assert world.roster.others_within("red", 0, 0, 10, 10)  # the blocks: maybe
        for _ in range(crowd.WARM):
            crowd.look_of(world, world.roster.code("red"))
        assert nothing_near(world, a)
        world.place(c.entity, c.position, 9, 2, why="apart")
        assert not nothing_near(world, a)
    finally:
        world.close()


def test_a_look_is_made_for_a_side_with_no_foe_at_all():
    """With nobody of another side alive, every cell is FAR from one: nothing near,
    no foe."""
    world = _field_world()
    try:
        from affray.systems.rules.damage import kill
        from affray.systems.rules.hit import VictimDeath

        with pytest.raises(VictimDeath):
            kill(world, world.sheet("c"), world.sheet("a"))
        look = crowd.make_look(world, world.roster.code("red"))
        assert look.nearest(2, 2) == crowd.FAR
        assert look.first_within(2, 2, 30) == crowd.NOBODY
    finally:
        world.close()


def _ring_world(near: tuple[int, int], far: tuple[int, int], tie: tuple[int, int]) -> str:
    """Red `me` at (10, 10) on a 21 x 21 field; blue `far` (spawned first, one cell
    beyond the nearest distance), blue `tie` and blue `near` (spawned last), at these
    offsets from `me`."""
    row = '"' + "." * 21 + '"'
    lines = ["name = \"ring\"\nseed = 1\npulses = 0\n[map]", f"rows = [{', '.join([row] * 21)}]",
             "[content.minds.watch]\naggressive = true\nsight = 8"]
    for name, side, (dx, dy) in (("far", "blue", far), ("tie", "blue", tie),
                                 ("me", "red", (0, 0)), ("near", "blue", near)):
        lines += ["[[creatures]]", f'id = "{name}"', f'side = "{side}"', 'mind = "watch"',
                  f"at = [{10 + dx}, {10 + dy}]"]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(("near", "far", "tie", "expected"), [
    ((3, 0), (4, 0), (-3, 2), "tie"),     # the nearest two tie: the earlier spawn
    ((0, 3), (0, 4), (0, -5), "near"),    # below; one farther below, spawned before
    ((0, -3), (1, -4), (2, 6), "near"),   # above
    ((-3, 1), (-4, -1), (7, 7), "near"),  # left
    ((3, -2), (4, 4), (-6, 0), "near"),   # right, the farther one on a corner
    ((2, 2), (3, 3), (-2, -2), "tie"),    # corners
])
def test_the_looks_nearest_foe_is_the_least_row_at_the_least_distance(
        near, far, tie, expected, monkeypatch):
    """R-MIND-3: the foe it goes for is the nearest (Chebyshev, on open ground), ties to
    the earlier spawn: a foe one cell farther is never taken, however early it came,
    on each side of the square; both the look and the long way say so."""
    world = world_from_text(_ring_world(near, far, tie))
    try:
        world.enter()
        me = world.sheet("me")
        monkeypatch.setattr(crowd, "WARM", 1)
        assert MindView(world, me).nearest_foe().id == expected
        look = crowd.look_of(world, world.roster.code("red"))
        distance = look.nearest(10, 10)
        assert distance == max(abs(near[0]), abs(near[1]))
        assert look.first_within(10, 10, distance) == world.sheet(expected).creature.slot
        monkeypatch.setattr(crowd, "look_of", lambda world, code: None)
        assert MindView(world, me).nearest_foe().id == expected
    finally:
        world.close()


def _hemmed_world() -> affray.World:
    """Red `me` (aggressive, sight 6) at (5, 5) among eight red allies with no mind,
    blue `foe` at (10, 5) in its sight, blue `far` at (5, 13) beyond it, on a 16 x 14
    field."""
    row = '"' + "." * 16 + '"'
    allies = [(x, y) for x in (4, 5, 6) for y in (4, 5, 6) if (x, y) != (5, 5)]
    lines = ["name = \"hemmed\"\nseed = 1\npulses = 100\n[map]",
             f"rows = [{', '.join([row] * 14)}]",
             "[content.minds.watch]\naggressive = true\nsight = 6",
             "[[creatures]]\nid = \"me\"\nside = \"red\"\nmind = \"watch\"\nat = [5, 5]"]
    for index, (x, y) in enumerate(allies):
        lines += ["[[creatures]]", f'id = "ally{index}"', 'side = "red"', f"at = [{x}, {y}]"]
    lines += ["[[creatures]]\nid = \"foe\"\nside = \"blue\"\nat = [10, 5]",
              "[[creatures]]\nid = \"far\"\nside = \"blue\"\nat = [5, 13]"]
    return world_from_text("\n".join(lines) + "\n")


def _settle_in(world: affray.World) -> None:
    """Two decisions of `me`: the first takes its foe into its memory, the second finds
    nothing changed in itself and is recorded (`minds.stir` has it asked again)."""
    from affray.systems.rules.minds import stir

    world.tick()
    stir(world)
    world.tick()


def _decides(world: affray.World, creature: str):
    from affray.systems.rules.minds.traits import decide

    sheet = world.sheet(creature)
    return decide(MindView(world, sheet), sheet.id)


def test_a_soldier_hemmed_in_rests_while_its_cells_stay_taken_and_its_foe_stands(monkeypatch):
    """R-MIND-3 / R-MIND-1: hemmed in by its own side, a soldier going for the foe its
    side's look names does nothing; that rest holds through changes within its sight
    (`rest.still` is True, and asking it gives nothing again) until a neighbouring cell
    frees, its foe steps, or a nearer foe comes: then it is asked (False), and asking
    does something else."""
    from affray.systems.rules.minds import rest

    monkeypatch.setattr(crowd, "WARM", 1)
    world = _hemmed_world()
    try:
        _settle_in(world)
        me, foe = world.sheet("me"), world.sheet("foe")
        record = world.stirs.rests[me.entity]
        assert dict(record.looked) == {"distance": 5, "nearest": (foe.creature.slot, (10, 5)),
                                       "hemmed": True}
        assert me.mind.target == "foe" and me.mind.last_seen == (10, 5)
        world.stirs.stamp(8, 8)  # something changed within its sight
        assert rest.still(world, me) and _decides(world, "me") is None
        # its foe steps: its memory would change
        world.place(foe.entity, foe.position, 10, 6, why="apart")
        assert not rest.still(world, me)
        world.place(foe.entity, foe.position, 10, 5, why="apart")
        assert rest.still(world, me)
        # a nearer foe comes into sight: it would go for that one
        far = world.sheet("far")
        world.place(far.entity, far.position, 5, 8, why="apart")
        assert not rest.still(world, me)
        assert _decides(world, "me") is None and me.mind.target == "far"
        me.mind.target, me.mind.last_seen = "foe", (10, 5)  # as recorded
        world.place(far.entity, far.position, 5, 13, why="apart")
        assert rest.still(world, me)
        # an ally steps away: a cell frees and it steps into it
        ally = world.sheet("ally7")
        assert (ally.position.x, ally.position.y) == (6, 6)
        world.place(ally.entity, ally.position, 7, 7, why="apart")
        assert not rest.still(world, me)
        assert _decides(world, "me") is not None
    finally:
        world.close()


def test_a_hemmed_rest_needs_the_look(monkeypatch):
    """Without its side's look (a wall in its walk window, or none made yet) the rest
    of a hemmed soldier is an ordinary one: a change within its reach has it asked."""
    from affray.systems.rules.minds import rest

    monkeypatch.setattr(crowd, "look_of", lambda world, code: None)
    world = _hemmed_world()
    try:
        _settle_in(world)
        me = world.sheet("me")
        assert world.stirs.rests[me.entity].looked is None
        world.stirs.stamp(8, 8)
        assert not rest.still(world, me)
    finally:
        world.close()


def _cut_off_world() -> affray.World:
    """Red `me` (aggressive, sight 6: a walk window of 12) at (5, 4) on a 16 x 9 field,
    a wall of nine red allies with no mind down column 6, blue `foe` at (9, 4) beyond
    it: every way to the foe crosses the wall."""
    row = '"' + "." * 16 + '"'
    lines = ["name = \"cut off\"\nseed = 1\npulses = 100\n[map]",
             f"rows = [{', '.join([row] * 9)}]",
             "[content.minds.watch]\naggressive = true\nsight = 6",
             "[[creatures]]\nid = \"me\"\nside = \"red\"\nmind = \"watch\"\nat = [5, 4]"]
    for y in range(9):
        lines += ["[[creatures]]", f'id = "wall{y}"', 'side = "red"', f"at = [6, {y}]"]
    lines += ["[[creatures]]\nid = \"foe\"\nside = \"blue\"\nat = [9, 4]"]
    return world_from_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("enabled", [True, False])
def test_a_soldier_cut_off_by_its_own_front_rests_until_a_way_opens(enabled, monkeypatch):
    """R-MIND-3 / R-MIND-1: cut off from the foe its side's look names by a wall of its
    own side (free cells round it, none joined to the foe within its walk window), a
    soldier waits, remembering the foe; the march path and the view record the same
    rest, read from the look and the window's free patches. It holds through changes
    that keep it cut off (`rest.still` True, and asking gives nothing again), and not
    when a cell one step nearer frees (it would step there) or a gap opens in the wall
    (it would go round): then asking does something."""
    from affray.systems.rules.minds import rest

    monkeypatch.setattr(crowd, "WARM", 1)
    monkeypatch.setattr(march, "ENABLED", enabled)
    world = _cut_off_world()
    try:
        _settle_in(world)
        me, foe = world.sheet("me"), world.sheet("foe")
        record = world.stirs.rests[me.entity]
        assert record.looked == (("distance", 4), ("nearest", (foe.creature.slot, (9, 4))),
                                 ("cut_off", 12))
        assert me.mind.target == "foe" and (me.position.x, me.position.y) == (5, 4)
        world.stirs.stamp(1, 8)  # a change within its reach that leaves it cut off
        assert rest.still(world, me) and _decides(world, "me") is None
        # wall3 steps aside: a cell one step nearer frees (it would step into it);
        # wall0 steps aside: a gap opens at the wall's end, out of its step (it would
        # go round); each steps back and the rest holds again
        for brick_id, row in (("wall3", 3), ("wall0", 0)):
            brick = world.sheet(brick_id)
            world.place(brick.entity, brick.position, 7, row, why="apart")
            assert not rest.still(world, me), brick_id
            assert _decides(world, "me") is not None, brick_id
            world.place(brick.entity, brick.position, 6, row, why="apart")
            assert rest.still(world, me), brick_id
    finally:
        world.close()


@pytest.mark.parametrize(("per_side", "seed", "pulses"), [(120, 2, 420), (200, 7, 300)])
def test_a_battle_logs_the_same_with_hemmed_rests_or_without(per_side, seed, pulses,
                                                            monkeypatch):
    """R-MIND-1 / R-MIND-7: the rests read from the look (soldiers hemmed in behind the
    front, archers holding their range, soldiers with nothing in sight) hold until what
    they read changes; asking each of them every pulse instead gives the same battle,
    event for event (and such a rest held many times)."""
    from affray.systems.rules.minds import rest

    held = []
    real = rest.look_still
    monkeypatch.setattr(rest, "look_still",
                        lambda world, sheet, looked: held.append(real(world, sheet, looked))
                        or held[-1])
    text = affray.army(per_side, seed=seed)
    resting = _log(text, pulses)
    assert held.count(True) > 200
    monkeypatch.setattr(rest, "look_still", lambda world, sheet, looked: False)
    asked = _log(text, pulses)
    assert len(resting) > 1000
    assert resting == asked


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(worlds(), st.integers(0, 30))
def test_the_step_away_counts_the_foes_beside_each_cell_as_the_rule_says(made, pulses):
    """R-MIND-5 on random maps: `away_cell` is `walking.step_up` over the walk field from
    the foes it sees, with the foes beside each neighbouring cell and beside its own
    counted one by one from `foes` (what the rule says, written the long way here)."""
    from affray.core.grid import NEIGHBOURS

    world = world_from_text(made)
    try:
        world.run(pulses)
        world.enter()
        for sheet in [s for s in world.sheets.values() if s.vitals.alive]:
            view = MindView(world, sheet)
            foes = view.foes
            here = view.me.at
            expected = None
            if foes:
                field = walking.compute(world.grid, tuple(f.at for f in foes), here, None)

                def beside(cell, foes=foes):
                    return sum(1 for f in foes if _chebyshev(f.at, cell) == 1)

                crowd_ = [beside((here[0] + dx, here[1] + dy)) for dx, dy in NEIGHBOURS]
                index = walking.step_up(field.around(here),
                                        walking.free_around(world.grid, here),
                                        field.at(here), crowd_, beside(here))
                expected = None if index is None else walking.neighbour(here, index)
            assert MindView(world, sheet).away_cell() == expected
    finally:
        world.close()


@pytest.mark.parametrize(("offset", "seen"), [((8, 0), True), ((9, 0), False),
                                              ((-8, 8), True), ((0, -9), False)])
@pytest.mark.parametrize("with_look", [True, False])
def test_a_foe_at_the_edge_of_sight_is_seen_and_one_past_it_is_not(offset, seen, with_look,
                                                                  monkeypatch):
    """R-MIND-2: sight 8 sees a foe 8 cells off (Chebyshev) and not one 9 off, with the
    side's look or looking alone: `sees_a_foe`, `nearest_foe_cells` and `nearest_foe`
    agree."""
    if with_look:
        monkeypatch.setattr(crowd, "WARM", 1)
    else:
        monkeypatch.setattr(crowd, "look_of", lambda world, code: None)
    world = world_from_text(_ring_world(offset, (10, 10), (10, -10)))
    try:
        world.enter()
        me = world.sheet("me")
        assert MindView(world, me).sees_a_foe() is seen
        assert MindView(world, me).nearest_foe_cells() == (8 if seen else None)
        foe = MindView(world, me).nearest_foe()
        assert (foe.id if foe else None) == ("near" if seen else None)
    finally:
        world.close()


def _holding_world() -> affray.World:
    """Red `bow` (keeps 4 cells from its foe, sight 8) at (3, 3), blue `foe` 4 cells off
    at (7, 3), on a 16 x 8 field."""
    row = '"' + "." * 16 + '"'
    return world_from_text(f"""
name = "holding"
seed = 1
pulses = 100
[map]
rows = [{", ".join([row] * 8)}]
[content.minds.bow]
aggressive = true
keep_range = 4
sight = 8
[[creatures]]
id = "bow"
side = "red"
mind = "bow"
at = [3, 3]
[[creatures]]
id = "foe"
side = "blue"
at = [7, 3]
""")


def test_a_creature_holding_its_range_rests_while_the_nearest_foe_stays_that_far(monkeypatch):
    """R-MIND-6 (keep range) / R-MIND-1: at its range from the nearest foe it holds,
    having read nothing but that distance from its side's look; the rest holds while the
    nearest foe stays that far, whichever foe and cell it is, and ends when one comes
    nearer (it steps away) or goes farther (it closes in)."""
    from affray.core.actions import Move
    from affray.systems.rules.minds import rest

    monkeypatch.setattr(crowd, "WARM", 1)
    world = _holding_world()
    try:
        world.tick()
        bow, foe = world.sheet("bow"), world.sheet("foe")
        assert dict(world.stirs.rests[bow.entity].looked) == {"distance": 4}
        world.place(foe.entity, foe.position, 7, 6, why="apart")  # elsewhere, as far
        assert rest.still(world, bow) and _decides(world, "bow") is None
        world.place(foe.entity, foe.position, 6, 3, why="apart")  # nearer: it steps away
        assert not rest.still(world, bow)
        assert isinstance(_decides(world, "bow"), Move)
        world.place(foe.entity, foe.position, 8, 3, why="apart")  # farther: it closes in
        assert not rest.still(world, bow)
        assert _decides(world, "bow") == Move(actor="bow", to=(4, 3))
    finally:
        world.close()


@st.composite
def _row_maps(draw):
    """A `rows` map (creatures of another side by roster row, NOBODY elsewhere) of any
    size, thin slivers included, and a query round any cell at any distance."""
    height, width = draw(st.integers(1, 80)), draw(st.integers(1, 80))
    cells = draw(st.lists(st.tuples(st.integers(0, width - 1), st.integers(0, height - 1)),
                          max_size=60, unique=True))
    rows = np.full((height, width), crowd.NOBODY, dtype=np.int32)
    for row, (x, y) in enumerate(cells):
        rows[y, x] = draw(st.integers(0, 10 * len(cells))) if row % 2 else row
    x, y = draw(st.integers(0, width - 1)), draw(st.integers(0, height - 1))
    return rows, x, y, draw(st.integers(0, 90))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(made=_row_maps(), again=_row_maps())
def test_first_within_is_the_least_row_in_the_square_however_it_is_read(made, again):
    """R-MIND-3 (ties to the earlier spawn, the least row): `first_within` reads four
    squares of a kept table instead of scanning, and must give the scan's answer
    everywhere: boxes clipped at every edge and corner, slivers one cell thick, boxes of
    one cell, distances past the tables' largest square (sight 32 and more) and past
    the map; a second query of the same look reads the tables it made for the first."""
    rows, x, y, distance = made
    look = crowd.Look(None, 0, rows, rows)
    for qx, qy, qd in ((x, y, distance), (again[1] % rows.shape[1], again[2] % rows.shape[0],
                                          again[3])):
        expected = int(rows[max(0, qy - qd):qy + qd + 1, max(0, qx - qd):qx + qd + 1].min())
        assert look.first_within(qx, qy, qd) == expected


def test_first_within_reads_its_tables_inside_the_map_and_scans_the_slivers():
    """The tables are used where they should be (a negative and a positive case): a box
    of 61 x 61 inside the map, or 61 x 32 at its top edge, reads the side-32 table; a
    sliver 3 x 61 across a map 3 cells tall is scanned and makes no table."""
    rows = np.full((80, 100), crowd.NOBODY, dtype=np.int32)
    rows[40, 70] = 7
    rows[0, 40] = 3
    inside = crowd.Look(None, 0, rows, rows)
    assert inside.first_within(50, 40, 30) == 7
    assert len(inside.squares) == 5 and inside.squares[4].shape == (80 - 31, 100 - 31)
    assert inside.first_within(50, 1, 30) == 3  # 61 x 32: four squares of 32 cover it
    thin = np.full((3, 100), crowd.NOBODY, dtype=np.int32)
    thin[2, 79] = 5
    sliver = crowd.Look(None, 0, thin, thin)
    assert sliver.first_within(50, 1, 30) == 5  # x 20 to 80 holds 79
    assert sliver.first_within(50, 1, 28) == crowd.NOBODY  # x 22 to 78 does not
    assert sliver.squares == []
