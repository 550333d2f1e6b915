"""R-MIND-3: the step round a crowd (`walking.detour`) is the same whether or not the
walker is hemmed in: the short-cut that skips the blocking field when no neighbour is
free gives exactly what the field would (hypothesis, random terrain and crowds)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from affray.core.grid import Grid, Terrain
from affray.systems.rules import walking

CODES = (Terrain.FLOOR,) * 5 + (Terrain.WALL, Terrain.WATER, Terrain.ICE)


def reference(grid: Grid, goal: tuple[int, int], here: tuple[int, int],
              radius: int | None) -> int | None:
    """The rule read straight: the field with every creature blocking, always made."""
    made = walking.compute(grid, (goal,), here, radius, around=True)
    values = [v for v in made.around(here) if v is not None]
    value = min(values) + 1 if values else None  # its own cell, as if it were free
    return walking.step_down(made.around(here), walking.free_around(grid, here), value)


@st.composite
def crowded(draw: st.DrawFn) -> tuple[Grid, tuple[int, int], tuple[int, int], int | None]:
    width, height = draw(st.integers(3, 12)), draw(st.integers(3, 12))
    cells = draw(st.lists(st.sampled_from(CODES), min_size=width * height,
                          max_size=width * height))
    terrain = np.array([int(c) for c in cells], dtype=np.uint8).reshape(height, width)
    grid = Grid(terrain)
    here = (draw(st.integers(0, width - 1)), draw(st.integers(0, height - 1)))
    goal = (draw(st.integers(0, width - 1)), draw(st.integers(0, height - 1)))
    density = draw(st.sampled_from((0.3, 0.7, 1.0)))
    taken = draw(st.lists(st.floats(0, 1), min_size=width * height,
                          max_size=width * height))
    occupant = (np.array(taken).reshape(height, width) < density).astype(np.int32)
    occupant[here[1], here[0]] = 1  # the walker
    occupant[goal[1], goal[0]] = 2 if goal != here else 1  # its goal (a creature)
    grid.occupant[:] = occupant
    radius = draw(st.sampled_from((None, 2, 4, 8)))
    return grid, here, goal, radius


@settings(max_examples=400, deadline=None)
@given(crowded())
def test_detour_is_the_blocking_fields_step_hemmed_in_or_not(case) -> None:
    """R-MIND-3: detour (with its short-cut) == the blocking field's step, every time."""
    grid, here, goal, radius = case
    assert walking.detour(grid, goal, here, radius) == reference(grid, goal, here, radius)
    free = walking.free_around(grid, here)
    assert walking.detour(grid, goal, here, radius, free) == reference(grid, goal, here,
                                                                       radius)


def test_a_walker_hemmed_in_waits_without_a_field(monkeypatch) -> None:
    """R-MIND-3: all eight neighbours taken: no step, and no Dijkstra is made for it."""
    grid = Grid(np.zeros((5, 5), dtype=np.uint8))
    grid.occupant[1:4, 1:4] = 7
    grid.occupant[0, 0] = 9  # the goal, beyond the ring

    def refuse(*args, **kwargs):
        raise AssertionError("a field was made for a walker that cannot step")

    monkeypatch.setattr(walking, "compute", refuse)
    assert walking.detour(grid, (0, 0), (2, 2), None) is None
    grid.occupant[2, 3] = 0  # one neighbour freed: the field is needed again
    with pytest.raises(AssertionError, match="a field was made"):
        walking.detour(grid, (0, 0), (2, 2), None)


@settings(max_examples=300, deadline=None)
@given(crowded(), st.lists(st.tuples(st.integers(0, 11), st.integers(0, 11),
                                     st.integers(0, 11), st.integers(0, 11),
                                     st.booleans()), min_size=1, max_size=12))
def test_walkers_sharing_a_blocking_field_step_as_if_each_made_its_own(case, turns) -> None:
    """R-MIND-3: walkers toward one goal share its blocking field while the grid stands
    (`walking.blocking_field`); a creature that steps in between (the grid's version
    moves on, as `World.place` moves it) makes the next walker look afresh. Every
    walker's step equals the field made for it alone."""
    grid, _walker, goal, radius = case
    for x, y, to_x, to_y, move in turns:
        walker = (x % grid.width, y % grid.height)
        if move:  # a creature steps from one cell to another, as World.place does
            source, target = walker, (to_x % grid.width, to_y % grid.height)
            if grid.occupant[source[1], source[0]] and not grid.occupant[target[1],
                                                                          target[0]]:
                grid.occupant[target[1], target[0]] = grid.occupant[source[1], source[0]]
                grid.occupant[source[1], source[0]] = 0
                grid.version += 1
            continue
        assert walking.detour(grid, goal, walker, radius) == reference(grid, goal, walker,
                                                                       radius)


def test_walkers_behind_one_foe_share_one_dijkstra(monkeypatch) -> None:
    """R-MIND-3: on a map inside the window, three soldiers behind a wall of their own
    side make one blocking field between them; once one steps, the next makes another."""
    grid = Grid(np.zeros((7, 7), dtype=np.uint8))
    grid.occupant[2, 1:6] = 5  # a rank in the way
    grid.occupant[0, 3] = 9  # the foe beyond it
    for x in (1, 3, 5):
        grid.occupant[4, x] = 7
    made = []
    real = walking.compute
    monkeypatch.setattr(walking, "compute", lambda *a, **k: made.append(a[1]) or real(*a, **k))
    steps = [walking.detour(grid, (3, 0), (x, 4), 60) for x in (1, 3, 5)]
    assert steps == [reference(grid, (3, 0), (x, 4), 60) for x in (1, 3, 5)]
    assert len([m for m in made if m == ((3, 0),)]) == 1 + 3  # one shared, three references
    grid.occupant[4, 1], grid.occupant[3, 0] = 0, 7  # one soldier stepped
    grid.version += 1
    made.clear()
    walking.detour(grid, (3, 0), (3, 4), 60)
    assert made == [((3, 0),)]


@settings(max_examples=400, deadline=None)
@given(crowded(), st.booleans())
def test_a_walker_cut_off_from_its_goal_is_told_so_without_the_field(case, free_goal) -> None:
    """R-MIND-3: `cut_off` says the blocking field reaches none of the walker's free
    neighbours exactly when the field, made, has none of them reached (the goal a
    creature, or a free cell: a foe's last cell); and the detour is the field's step
    either way."""
    grid, here, goal, radius = case
    if free_goal and goal != here:
        grid.occupant[goal[1], goal[0]] = 0
        grid.version += 1
    free = walking.free_around(grid, here)
    if not any(free):
        return
    made = walking.compute(grid, (goal,), here, radius, around=True)
    reached = any(open_ and value is not None
                  for open_, value in zip(free, made.around(here), strict=True))
    assert walking.cut_off(grid, goal, here, radius, free) is (not reached)
    assert walking.detour(grid, goal, here, radius, free) == reference(grid, goal, here,
                                                                       radius)
