"""Properties of minds over random maps and sides (hypothesis): R-SIDE-1, R-MIND-2,
R-MIND-3, R-MIND-5, R-MIND-7, and the windowed walking distances they rest on.

A random world is a small map of floor, walls, water, ice and doors (some shut), with a
handful of creatures on random sides, each with one of content's minds or none. Two
kinds of check:

- what every mind chooses, checked as it chooses: each content mind is wrapped by a
  registered mind of the same name (a registered name wins, R-MIND-1) that runs the
  built-in mind and then checks the action against the view it decided with;
- what happened, replayed from the log: every `moved`, `fled` and `pushed` event from
  the first snapshot, so that where everyone stood at each step is known.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
from conftest import world_from_text
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_minds import scenario

import affray
from affray.core.actions import Attack, Cast, Flee, Move
from affray.core.grid import Grid, Terrain
from affray.systems.rules import minds, sight, walking
from affray.systems.rules.minds.traits import decide

MINDS = ("brute", "pack", "coward", "guard", "caster", "hero", "hero_caster", "sentry",
         "runner")
# A mind that fights and flees often: every round's wimpy check succeeds.
RUNNER = ("[content.minds.runner]\naggressive = true\nassist = true\nwimpy = 60\n"
          "wimpy_chance = 100\n")
SIDES = ("red", "blue", "green")
TERRAIN = {".": Terrain.FLOOR, "#": Terrain.WALL, "~": Terrain.WATER, "_": Terrain.ICE}


def chebyshev(a: tuple[int, int], b: tuple[int, int]) -> int:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


@st.composite
def maps(draw: st.DrawFn, doors: bool = True, low: int = 4, high: int = 11) -> list[str]:
    """Rows of a random map: mostly floor, some walls, water, ice and doors."""
    width = draw(st.integers(low, high))
    height = draw(st.integers(3, high - 2))
    symbols = ".......##~_" + ("+'" if doors else "")
    return ["".join(draw(st.sampled_from(symbols)) for _ in range(width))
            for _ in range(height)]


@st.composite
def worlds(draw: st.DrawFn) -> str:
    """A scenario text: a random map, 2 to 6 creatures on free cells, on random sides,
    each with one of the minds or none, and a seed."""
    rows = draw(maps())
    free = [(x, y) for y, row in enumerate(rows) for x, c in enumerate(row) if c in ".~_'"]
    count = draw(st.integers(2, max(2, min(6, len(free)))))
    if len(free) < 2:
        rows = ["." * len(rows[0])] * len(rows)
        free = [(x, y) for y in range(len(rows)) for x in range(len(rows[0]))]
    cells = draw(st.lists(st.sampled_from(free), min_size=count, max_size=count,
                          unique=True))
    creatures = []
    for index, cell in enumerate(cells):
        lines = [f"hp = {draw(st.integers(3, 40))}", f"max_hp = {draw(st.integers(40, 60))}",
                 f"level = {draw(st.integers(1, 20))}"]
        if draw(st.booleans()):
            lines.append("player = true\nskills = { spark = 80, fireball = 60 }")
        side = draw(st.sampled_from((None, *SIDES)))
        if side is not None:
            lines.append(f'side = "{side}"')
        mind = draw(st.sampled_from((None, *MINDS, "brute", "pack", "runner")))
        if mind is not None:
            lines.append(f'mind = "{mind}"')
        creatures.append((f"c{index}", cell, "\n".join(lines)))
    return scenario(rows, creatures, RUNNER, seed=draw(st.integers(0, 2**31)))


@dataclass
class Checks:
    """What the wrapped minds found wrong, as (pulse, creature, what) records."""

    wrong: list[tuple[int, str, str]] = field(default_factory=list)
    world: affray.World | None = None

    def fail(self, view, actor: str, what: str) -> None:
        self.wrong.append((view.pulse, actor, what))


def check_action(checks: Checks, view, actor: str, action) -> None:
    """R-SIDE-1, R-MIND-3, R-MIND-6 on one decision, against the view it came from."""
    me = view.me
    if isinstance(action, Attack):
        foe = view.creature(action.target)
        if foe is None or foe.side == me.side:
            checks.fail(view, actor, f"attacks {action.target} of its own side or unseen")
    elif isinstance(action, Cast):
        target = view.creature(action.target) if isinstance(action.target, str) else None
        if target is None or target.side == me.side:
            checks.fail(view, actor, f"casts at {action.target}, its own side or unseen")
        reach = view.preview(action.spell, action.target)
        sides = view.sides_of(list(dict.fromkeys([*reach["struck"], *reach["water"]])))
        foes = sum(side != me.side for side in sides)
        if foes <= len(sides) - foes:
            checks.fail(view, actor, f"casts {action.spell} striking as many allies as foes")
        if action.spell not in view.spells:
            checks.fail(view, actor, f"casts {action.spell}, not in its list")
    elif isinstance(action, Move):
        if chebyshev(me.at, action.to) != 1 or action.to not in view.free_cells():
            checks.fail(view, actor, f"steps from {me.at} to {action.to}")
        elif not isinstance(action, Flee) and not (view.traits and view.traits.keep_range):
            check_shorter(checks, view, actor, action.to)


def check_shorter(checks: Checks, view, actor: str, step: tuple[int, int]) -> None:
    """R-MIND-3: a step toward its target (one it sees, one in a fight it sees, or the
    cell it last saw it on) is one nearer by the terrain's walking distance, on the
    whole map; or, when no nearer cell was free, one nearer by the way round the
    creatures (walking.detour: every creature but the walker and the goal blocks)."""
    memory = view.memory
    target = view.creature(memory.target) if memory.target else None
    grid, me = checks.world.grid, view.me
    goal = target.at if target is not None else memory.last_seen
    terrain = walking.compute(grid, (goal,), goal, None)
    old, new = terrain.at(me.at), terrain.at(step)
    if old is not None and new == old - 1:
        return
    around = walking.compute(grid, (goal,), goal, None, around=True)
    here = [v for v in around.around(me.at) if v is not None]
    if new is None or not here or around.at(step) != min(here):
        checks.fail(view, actor, f"step {me.at}->{step}: terrain walk {old} -> {new}, "
                                 f"and no step round a crowd")


@contextlib.contextmanager
def checked_minds(checks: Checks) -> Iterator[None]:
    """Every content mind, wrapped to check what it chooses (module docstring)."""
    def wrapped(view, actor):
        action = decide(view, actor)
        if action is not None:
            check_action(checks, view, actor, action)
        return action

    try:
        for name in MINDS:
            affray.register_mind(name, wrapped)
        yield
    finally:
        for name in MINDS:
            minds.unregister_mind(name)


def foes_beside(at: dict[str, tuple[int, int]], side: dict[str, str], mover: str,
                cell: tuple[int, int]) -> int:
    """The living creatures of another side than `mover`'s beside `cell`."""
    return sum(1 for cid, there in at.items()
               if cid != mover and side[cid] != side[mover] and chebyshev(there, cell) == 1)


def replay(world: affray.World, first: dict, events: list) -> list[str]:
    """R-MIND-3, R-MIND-5: walk the log from the first snapshot; what went wrong."""
    walls = {(x, y) for y, row in enumerate(first["map"]) for x, c in enumerate(row)
             if c == "#"}
    shut = {tuple(door["at"]) for door in first["doors"] if door["state"] == "shut"}
    at = {cid: tuple(c["at"]) for cid, c in first["creatures"].items() if c["alive"]}
    side = {cid: c["side"] for cid, c in first["creatures"].items()}
    wrong = []
    for event in events:
        kind = event.kind
        if kind in ("moved", "fled"):
            mover, start, end = event.target, tuple(event.from_), tuple(event.to)
            others = {cell for cid, cell in at.items() if cid != mover}
            if at.get(mover) != start or chebyshev(start, end) != 1:
                wrong.append(f"{event}: not a step from where it stood ({at.get(mover)})")
            if end in walls or end in shut or end in others:
                wrong.append(f"{event}: into a wall, a shut door or a creature")
            if kind == "fled":
                before, after = (foes_beside(at, side, mover, cell) for cell in (start, end))
                if after > before:
                    wrong.append(f"{event}: beside more foes ({after}) than before ({before})")
            at[mover] = end
        elif kind == "pushed":
            at[event.target] = tuple(event.to)
        elif kind == "death":
            at.pop(event.target, None)
        elif kind == "door_broken":
            shut.discard(tuple(event.cell))
    final = {cid: tuple(c["at"]) for cid, c in world.snapshot()["creatures"].items()
             if c["alive"]}
    if final != at:
        wrong.append(f"the log's moves end at {at}, the world at {final}")
    return wrong


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(worlds())
def test_r_side_1_r_mind_3_r_mind_5_minds_choose_within_the_rules(made):
    """R-SIDE-1: no mind attacks or casts at a creature of its own side; R-MIND-6: no
    cast strikes as many allies as foes, and every cast is from its list; R-MIND-3:
    every step is to a free neighbouring cell, and a step toward a target is one step
    nearer it by walking distance; replayed from the log, no creature steps through a
    wall, a shut door or another creature, and no flee ends beside more foes than it
    started from (R-MIND-5)."""
    checks = Checks()
    with checked_minds(checks):
        world = checks.world = world_from_text(made)
        try:
            first = world.snapshot()
            world.run(pulses=150)
            wrong = replay(world, first, list(world.events))
        finally:
            world.close()
    assert checks.wrong == [] and wrong == []


@st.composite
def grids(draw: st.DrawFn, high: int = 16) -> Grid:
    """A random grid: floor, walls, water, ice, and some shut doors."""
    rows = draw(maps(doors=False, high=high))
    terrain = np.array([[TERRAIN[c] for c in row] for row in rows], dtype=np.uint8)
    grid = Grid(terrain)
    shut = draw(st.lists(st.tuples(st.integers(0, grid.width - 1),
                                   st.integers(0, grid.height - 1)), max_size=4))
    for x, y in shut:
        grid.shut[y, x] = grid.terrain[y, x] != Terrain.WALL
    return grid


def cells_of(grid: Grid) -> st.SearchStrategy[tuple[int, int]]:
    return st.tuples(st.integers(0, grid.width - 1), st.integers(0, grid.height - 1))


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_r_mind_2_sight_is_symmetric_and_within_sight(data):
    """R-MIND-2: for equal sight, A sees B exactly when B sees A (symmetric
    shadowcasting), for any two cells a creature can stand on (not walls, not shut
    doors); nothing beyond `sight` cells (Chebyshev) is seen; a creature sees its own
    cell and every cell beside it."""
    grid = data.draw(grids())
    open_cells = [(x, y) for y in range(grid.height) for x in range(grid.width)
                  if not grid.blocks(x, y)]
    assume(open_cells)
    a, b = data.draw(st.sampled_from(open_cells)), data.draw(st.sampled_from(open_cells))
    reach = data.draw(st.integers(1, 10))
    from_a, from_b = sight.field_of_view(grid, a, reach), sight.field_of_view(grid, b, reach)
    assert from_a.sees(b) == from_b.sees(a)
    if from_a.sees(b):
        assert chebyshev(a, b) <= reach
    assert from_a.sees(a)
    for x, y in grid.neighbours(*a):
        assert from_a.sees((x, y))


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_r_mind_3_a_windowed_distance_the_bound_calls_exact_is_the_map_s(data):
    """R-MIND-3: a walking distance worked out in a window of radius W around its
    centre, read within a step of the centre and within the bound v <= 2W + 1 - r (r:
    the root's Chebyshev distance from the centre) is the whole map's; the step down a
    field (walking.step_down, all neighbours free) leads to a cell one step nearer."""
    grid = data.draw(grids(high=20))
    root = data.draw(cells_of(grid))
    assume(not grid.blocks(*root))  # a creature's cell, as every root of a mind's field
    centre = data.draw(cells_of(grid))
    radius = data.draw(st.integers(1, 6))
    near = walking.compute(grid, (root,), centre, radius)
    whole = walking.compute(grid, (root,), centre, None)
    for dx in (-1, 0, 1):
        for dy in (-1, 0, 1):
            cell = (centre[0] + dx, centre[1] + dy)
            value = near.at(cell)
            if value is not None and near.exact(value):
                assert whole.at(cell) == value, (cell, value, whole.at(cell))
    value = whole.at(centre)
    if value is not None and value > 0:
        free = [grid.in_bounds(*walking.neighbour(centre, i))
                and not grid.blocks(*walking.neighbour(centre, i)) for i in range(8)]
        index = walking.step_down(whole.around(centre), free, value)
        assert index is not None
        assert whole.at(walking.neighbour(centre, index)) == value - 1


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(made=worlds(), at=st.integers(1, 120))
def test_r_mind_7_a_random_world_runs_the_same_every_way(made, at, tmp_path_factory):
    """R-MIND-7: the same seed gives the same log on two builds; `run()` gives the log
    of tick after tick; saved at a random pulse, loaded and run on, the world gives the
    straight run's log and snapshot."""
    text = made
    pulses = 150
    straight = world_from_text(text)
    straight.run(pulses=pulses)
    again = world_from_text(text)
    for _ in range(pulses):
        again.tick()
    saved = world_from_text(text)
    saved.run(pulses=at)
    path = tmp_path_factory.mktemp("minds") / "random.save"
    saved.save(path)
    loaded = affray.load_world(path)
    loaded.run(pulses=pulses - at)
    logs = [[e.to_dict() for e in w.events] for w in (straight, again, loaded)]
    snapshots = [w.snapshot() for w in (straight, again, loaded)]
    for world in (straight, again, saved, loaded):
        world.close()
    assert logs[0] == logs[1] == logs[2]
    assert snapshots[0] == snapshots[1] == snapshots[2]
