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


def field_reaches(grid: Grid, goal: tuple[int, int], here: tuple[int, int],
                  radius: int | None, free: list[bool]) -> bool:
    """The rule read straight: the blocking field, made, reaches a free neighbour."""
    made = walking.compute(grid, (goal,), here, radius, around=True)
    return any(open_ and value is not None
               for open_, value in zip(free, made.around(here), strict=True))


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
@given(crowded(), st.booleans(), st.booleans())
def test_a_walker_cut_off_from_its_goal_is_told_so_without_the_field(case, free_goal,
                                                                     waited) -> None:
    """R-MIND-3: `cut_off` says the blocking field reaches none of the walker's free
    neighbours exactly when the field, made, has none of them reached (the goal a
    creature, or a free cell: a foe's last cell); and the detour is the field's step
    either way, whether the whole map's patches answer first (`waited`) or not."""
    grid, here, goal, radius = case
    if free_goal and goal != here:
        grid.occupant[goal[1], goal[0]] = 0
        grid.version += 1
    free = walking.free_around(grid, here)
    if not any(free):
        return
    reached = field_reaches(grid, goal, here, radius, free)
    assert walking.cut_off(grid, goal, here, radius, free, waited) is (not reached)
    assert walking.detour(grid, goal, here, radius, free, waited) == reference(
        grid, goal, here, radius)


def test_apart_on_the_whole_map_is_cut_off_without_the_window_s_patches() -> None:
    """R-MIND-3: a wall across the whole map between the walker and its goal: apart on
    the whole map, so cut off, and the window's own patches are never labelled; a gap
    in the wall outside the window joins them on the whole map but not in the window,
    which still says cut off (the whole map's "joined" decides nothing)."""
    terrain = np.zeros((20, 30), dtype=np.uint8)
    terrain[10, :] = int(Terrain.WALL)
    grid = Grid(terrain)
    here, goal = (5, 13), (5, 7)
    grid.occupant[here[1], here[0]], grid.occupant[goal[1], goal[0]] = 1, 2
    free = walking.free_around(grid, here)
    assert walking.cut_off(grid, goal, here, 8, free, waited=True)
    window = walking.walk_window(grid, here, 8)
    assert not walking.patches_labelled(grid, window)
    assert walking.patches_labelled(grid, (0, 0, 30, 20))
    grid.terrain[10, 28] = int(Terrain.FLOOR)  # a gap 23 cells off: outside the window
    grid.terrain_version += 1
    grid.version += 1
    assert walking.cut_off(grid, goal, here, 8, free, waited=True)
    assert walking.patches_labelled(grid, window)  # asked, after the whole map's
    assert not walking.cut_off(grid, goal, here, None, free, waited=True)  # no window


@st.composite
def far_crowded(draw: st.DrawFn) -> tuple[Grid, tuple[int, int], tuple[int, int], int | None]:
    """A bigger map (up to 40 x 30), the goal at any distance: boxes far smaller than
    the window, detours short and long."""
    width, height = draw(st.integers(12, 40)), draw(st.integers(8, 30))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    terrain = rng.choice(np.array([int(c) for c in CODES], dtype=np.uint8),
                         size=(height, width), p=[0.14] * 5 + [0.1, 0.1, 0.1])
    grid = Grid(terrain)
    density = draw(st.sampled_from((0.1, 0.3, 0.6)))
    grid.occupant[:] = (rng.random((height, width)) < density).astype(np.int32) * 5
    here = (draw(st.integers(0, width - 1)), draw(st.integers(0, height - 1)))
    goal = (draw(st.integers(0, width - 1)), draw(st.integers(0, height - 1)))
    grid.occupant[here[1], here[0]] = 1
    grid.occupant[goal[1], goal[0]] = 2 if goal != here else 1
    radius = draw(st.sampled_from((None, 6, 10, 20)))
    return grid, here, goal, radius


@settings(max_examples=400, deadline=None)
@given(far_crowded())
def test_a_short_detour_from_its_box_is_the_window_s_step(case) -> None:
    """R-MIND-3: the step from the small box (`walking.short_detour`), whenever it gives
    one, is the window's blocking field's; and so is `detour`'s, box or no box."""
    grid, here, goal, radius = case
    free = walking.free_around(grid, here)
    expected = reference(grid, goal, here, radius)
    short = walking.short_detour(grid, goal, here, radius, free) if any(free) else None
    if short is not walking.LONG_WAY and any(free) and not walking.cut_off(
            grid, goal, here, radius, free):
        assert short == expected
    assert walking.detour(grid, goal, here, radius) == expected


def test_a_file_blocked_ahead_sidesteps_from_the_box_without_the_window_s_field(
        monkeypatch) -> None:
    """R-MIND-3, worked example: a soldier 20 cells west of its foe, the cell ahead (east)
    taken by its own file: the least value beside it is 20 (a sidestep), decided in a
    box of 28 x 47 cells (reach 23), not the window's 101 x 60; the step is south-east,
    the first of the two diagonals in R-GRID-2's order. A rank ahead from the bottom edge
    up to 4 cells short of the top is a long way round: the window's field decides."""
    grid = Grid(np.zeros((60, 140), dtype=np.uint8))
    here, goal = (40, 30), (60, 30)
    grid.occupant[30, 40] = 1
    grid.occupant[30, 60] = 2
    grid.occupant[30, 41] = 3  # the file ahead
    made: list[object] = []
    real = walking.blocking_field

    def recording(*args):  # type: ignore[no-untyped-def]
        made.append(args)
        return real(*args)

    monkeypatch.setattr(walking, "blocking_field", recording)
    step = walking.detour(grid, goal, here, 60)
    assert step == reference(grid, goal, here, 60)
    assert walking.NEIGHBOURS[step] == (1, 1)
    assert made == []  # the box decided
    grid.occupant[4:60, 41] = 3  # the rank: round its top end, far more than 23 steps
    free = walking.free_around(grid, here)
    assert walking.short_detour(grid, goal, here, 60, free) is walking.LONG_WAY
    step = walking.detour(grid, goal, here, 60)
    assert step == reference(grid, goal, here, 60)
    assert walking.NEIGHBOURS[step] == (0, -1)  # north, toward the end of the rank
    assert len(made) == 1  # the window's field


@settings(max_examples=200, deadline=None)
@given(far_crowded(), st.booleans())
def test_the_whole_map_s_patches_never_change_what_cut_off_says(case, waited) -> None:
    """R-MIND-3: on maps up to 40 x 30 with windows far smaller than the map, `cut_off`
    with the whole map's patches first (`waited`, or labelled already) says what the
    window's field says."""
    grid, here, goal, radius = case
    free = walking.free_around(grid, here)
    if not any(free):
        return
    reached = field_reaches(grid, goal, here, radius, free)
    assert walking.cut_off(grid, goal, here, radius, free, waited) is (not reached)
    assert walking.cut_off(grid, goal, here, radius, free) is (not reached)  # labelled


def test_a_goal_off_the_walk_window_is_no_root_for_the_box_either() -> None:
    """R-MIND-3: a goal 11 rows off a walker with a window of 10 (hypothesis found it):
    the box gives no step (LONG_WAY, not an index past its edge), and the detour waits,
    as the window's field, which has no root, says."""
    grid = Grid(np.zeros((30, 40), dtype=np.uint8))
    here, goal = (10, 9), (0, 20)
    grid.occupant[here[1], here[0]], grid.occupant[goal[1], goal[0]] = 1, 2
    free = walking.free_around(grid, here)
    assert walking.short_detour(grid, goal, here, 10, free) is walking.LONG_WAY
    assert walking.detour(grid, goal, here, 10, free) is None
    assert reference(grid, goal, here, 10) is None


@st.composite
def walled(draw: st.DrawFn) -> tuple[Grid, tuple[int, int], int]:
    """A map with no wall or shut door at all, or a few (walls, and doors shut or not)."""
    width, height = draw(st.integers(1, 14)), draw(st.integers(1, 14))
    grid = Grid(np.full((height, width), int(Terrain.FLOOR), dtype=np.uint8))
    for _ in range(draw(st.integers(0, 3))):
        x, y = draw(st.integers(0, width - 1)), draw(st.integers(0, height - 1))
        if draw(st.booleans()):
            grid.terrain[y, x] = int(Terrain.WALL)
        else:
            grid.shut[y, x] = draw(st.booleans())
    grid.changed_terrain()
    centre = (draw(st.integers(0, width - 1)), draw(st.integers(0, height - 1)))
    return grid, centre, draw(st.integers(0, 16))


@settings(max_examples=300, deadline=None)
@given(walled())
def test_open_window_is_the_windows_own_count_of_walls_and_shut_doors(case) -> None:
    """R-MIND-3's open ground (the march path's and the view's test): a window is open
    exactly when no wall or shut door stands in it, read straight from the terrain. A
    map with none anywhere answers without the window's count; one wall or shut door
    in the window closes it, one outside it does not."""
    grid, (x, y), radius = case
    x0, y0 = max(0, x - radius), max(0, y - radius)
    window = (slice(y0, y + radius + 1), slice(x0, x + radius + 1))
    blocked = (grid.terrain[window] == int(Terrain.WALL)) | grid.shut[window]
    assert walking.open_window(grid, (x, y), radius) == (not blocked.any())


@settings(max_examples=300, deadline=None)
@given(walled(), st.lists(st.booleans(), min_size=196, max_size=196))
def test_free_around_is_each_neighbour_on_the_map_walkable_and_empty(case, taken) -> None:
    """R-GRID-2's neighbours and R-MIND-3's blocking, read straight: a step may end on a
    neighbour on the map, not a wall, not a shut door, nobody there; on a map with no
    wall or shut door anywhere (read from occupancy alone) as on one with some, and at
    the edges."""
    grid, here, _ = case
    height, width = grid.terrain.shape
    grid.occupant[:] = np.array(taken[:height * width]).reshape(height, width)
    expected = [0 <= here[0] + dx < width and 0 <= here[1] + dy < height
                and grid.terrain[here[1] + dy, here[0] + dx] != int(Terrain.WALL)
                and not grid.shut[here[1] + dy, here[0] + dx]
                and not grid.occupant[here[1] + dy, here[0] + dx]
                for dx, dy in walking.NEIGHBOURS]
    assert walking.free_around(grid, here) == expected


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 30), st.integers(1, 30), st.integers(-3, 33), st.integers(-3, 33),
       st.integers(0, 40))
def test_a_window_is_the_square_of_its_radius_clipped_to_the_map(width, height, x, y,
                                                                 radius) -> None:
    """R-MIND-2's sight window and R-MIND-3's walk window: the cells within Chebyshev
    `radius` of the centre that lie on the map, as [x0, x1) x [y0, y1), read straight
    cell by cell (centres off the map included: the bounds never leave it)."""
    from affray.systems.rules.sight import window

    grid = Grid(np.zeros((height, width), dtype=np.uint8))
    cells = [(cx, cy) for cy in range(height) for cx in range(width)
             if max(abs(cx - x), abs(cy - y)) <= radius]
    x0, y0, x1, y1 = window(grid, (x, y), radius)
    assert x0 >= 0 and y0 >= 0 and x1 <= width and y1 <= height
    if cells:
        assert (x0, y0, x1, y1) == (min(c[0] for c in cells), min(c[1] for c in cells),
                                    max(c[0] for c in cells) + 1,
                                    max(c[1] for c in cells) + 1)
    else:
        assert x0 >= x1 or y0 >= y1  # nothing of the map in it
