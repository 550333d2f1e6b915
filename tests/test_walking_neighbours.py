"""R-MIND-3 / R-GRID-2: a walker's eight neighbours read the quick way are the rule's.

`walking.free_around` reads a cell's 3x3 block at once (off the edge, one by one), and an
`OpenField` with one root writes its eight distances out; both must give, in R-GRID-2's
order, exactly what the definitions give neighbour by neighbour (hypothesis: random
terrain with walls and shut doors, crowds, cells on the edge and inside, fields whose
window cuts the neighbours off)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from affray.core.grid import Grid, Terrain
from affray.systems.rules import walking

CODES = (Terrain.FLOOR,) * 4 + (Terrain.WALL, Terrain.WATER, Terrain.ICE, Terrain.DOOR)


@st.composite
def grids(draw: st.DrawFn) -> Grid:
    width, height = draw(st.integers(1, 9)), draw(st.integers(1, 9))
    cells = draw(st.lists(st.sampled_from(CODES), min_size=width * height,
                          max_size=width * height))
    grid = Grid(np.array([int(c) for c in cells], dtype=np.uint8).reshape(height, width))
    shut = draw(st.lists(st.booleans(), min_size=width * height, max_size=width * height))
    grid.shut[:] = np.array(shut).reshape(height, width) & (grid.terrain == Terrain.DOOR)
    taken = draw(st.lists(st.booleans(), min_size=width * height, max_size=width * height))
    grid.occupant[:] = np.array(taken, dtype=np.int32).reshape(height, width)
    return grid


def free_by_the_rule(grid: Grid, cell: tuple[int, int]) -> list[bool]:
    x, y = cell
    return [0 <= x + dx < grid.width and 0 <= y + dy < grid.height
            and grid.terrain[y + dy, x + dx] != Terrain.WALL
            and not grid.shut[y + dy, x + dx] and not grid.occupant[y + dy, x + dx]
            for dx, dy in walking.NEIGHBOURS]


@settings(max_examples=300, deadline=None)
@given(grids())
def test_free_around_is_the_rule_on_every_cell(grid) -> None:
    """R-GRID-2 order; a step ends on the map, on walkable terrain, on an empty cell."""
    for y in range(grid.height):
        for x in range(grid.width):
            assert walking.free_around(grid, (x, y)) == free_by_the_rule(grid, (x, y))
    grid.shut[:] = False  # a door opened: the walkable map is read again
    grid.terrain_version += 1
    for y in range(grid.height):
        for x in range(grid.width):
            assert walking.free_around(grid, (x, y)) == free_by_the_rule(grid, (x, y))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(-3, 12), st.integers(-3, 12)), min_size=1, max_size=3),
       st.tuples(st.integers(0, 9), st.integers(0, 9)), st.integers(0, 10),
       st.tuples(st.integers(-2, 12), st.integers(-2, 12)))
def test_an_open_fields_neighbours_are_its_values_one_by_one(roots, corner, size, cell):
    """R-MIND-3: the Chebyshev distance to the nearest root, None off the window."""
    x0, y0 = corner
    field = walking.OpenField(0, tuple(roots), cell, size, x0, y0, x0 + size, y0 + size)
    assert field.around(cell) == [field.at((cell[0] + dx, cell[1] + dy))
                                  for dx, dy in walking.NEIGHBOURS]


@settings(max_examples=300, deadline=None)
@given(grids(), st.data())
def test_the_whole_map_open_is_measured_as_the_dijkstra_measures_it(grid, data) -> None:
    """R-MIND-3 / R-MIND-5: a field of the whole map (a flight from every foe in sight)
    on a map with no wall and no shut door anywhere is an `OpenField`, and its value at
    every cell, with one root or many (numpy past MANY_ROOTS), is tcod's Dijkstra's;
    with a wall or a shut door anywhere, it is the Dijkstra's own field."""
    import tcod.path

    if data.draw(st.booleans()):  # open the map: no walls, every door open
        grid.terrain[grid.terrain == Terrain.WALL] = int(Terrain.FLOOR)
        grid.shut[:] = False
        grid.changed_terrain()
    cells = [(x, y) for y in range(grid.height) for x in range(grid.width)]
    roots = tuple(data.draw(st.lists(st.sampled_from(cells), min_size=1, max_size=20,
                                     unique=True)))
    made = walking.compute(grid, roots, roots[0], None)
    is_open = not ((grid.terrain == Terrain.WALL) | grid.shut).any()
    assert isinstance(made, walking.OpenField) is is_open
    cost = walking.walkable(grid, 0, 0, grid.width, grid.height)
    dist = np.full((grid.height, grid.width), walking.UNREACHED, dtype=np.int32)
    for x, y in roots:
        dist[y, x] = 0
    tcod.path.dijkstra2d(dist, cost, 1, 1, out=dist)
    for x, y in cells:
        expected = None if dist[y, x] == walking.UNREACHED else int(dist[y, x])
        assert made.at((x, y)) == expected
        assert made.around((x, y)) == [
            None if not (0 <= x + dx < grid.width and 0 <= y + dy < grid.height)
            or dist[y + dy, x + dx] == walking.UNREACHED else int(dist[y + dy, x + dx])
            for dx, dy in walking.NEIGHBOURS]
