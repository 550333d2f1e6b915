"""Spell shapes (R-SHAPE-1..7), line of effect (R-GRID-1) and the aiming preview (R-ELEC-7).

Maps are drawn as strings: "." floor, "#" wall, "+" shut door, "'" open door, "@" the
caster (entity 100), letters a..z creatures (entity 1 for "a", 2 for "b", ...; spawn
number = entity unless a test says otherwise). Expected cells are drawn as a second map
of "*" (reached) and "." (not), so a wrong cell shows where it is.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import affray
from affray.core.grid import Grid, Terrain
from affray.systems.rules.shapes import (
    EMPTY,
    SHAPES,
    ShapeResult,
    bresenham,
    burst_centre,
    is_area_shape,
    line_of_effect,
    resolve_shape,
    step_offset,
)

CASTER = 100


def parse(rows: tuple[str, ...]) -> tuple[Grid, dict[str, tuple[int, int]]]:
    """A Grid from drawn rows, and where each creature symbol stands."""
    terrain = np.zeros((len(rows), len(rows[0])), dtype=np.uint8)
    grid = Grid(terrain)
    where: dict[str, tuple[int, int]] = {}
    for y, row in enumerate(rows):
        for x, symbol in enumerate(row):
            if symbol == "#":
                grid.terrain[y, x] = Terrain.WALL
            elif symbol in "+'":
                grid.terrain[y, x] = Terrain.DOOR
                grid.shut[y, x] = symbol == "+"
            elif symbol == "@" or symbol.isalpha():
                entity = CASTER if symbol == "@" else ord(symbol) - ord("a") + 1
                grid.occupant[y, x] = entity
                where[symbol] = (x, y)
    return grid, where


def marked(rows: tuple[str, ...]) -> set[tuple[int, int]]:
    """The cells drawn "*"."""
    return {(x, y) for y, row in enumerate(rows) for x, symbol in enumerate(row)
            if symbol == "*"}


def entity(symbol: str) -> int:
    return CASTER if symbol == "@" else ord(symbol) - ord("a") + 1


def spawn_identity(entity_id: int) -> int:
    return entity_id


def cast(rows: tuple[str, ...], shape: str, aim: tuple[int, int] | str, *, range_: int = 8,
         radius: int = 1, spawn_of=spawn_identity) -> ShapeResult:
    """Resolve `shape` cast by "@" at a cell or at a creature symbol."""
    grid, where = parse(rows)
    target = None
    if isinstance(aim, str):
        target = entity(aim)
        aim = where[aim]
    return resolve_shape(grid, shape, where["@"], aim, range_=range_, radius=radius,
                         caster=CASTER, spawn_of=spawn_of, target=target)


# -- lines and line of effect -----------------------------------------------------------------
def test_bresenham_includes_both_ends_and_rounds_halves_away_r_shape_1():
    """R-SHAPE-1: the digital line includes a (first) and b (last); a minor step that
    falls exactly half way is taken away from a."""
    assert bresenham((0, 0), (4, 1)) == [(0, 0), (1, 0), (2, 1), (3, 1), (4, 1)]
    assert bresenham((0, 0), (2, 1)) == [(0, 0), (1, 1), (2, 1)]
    assert bresenham((5, 5), (2, 7)) == [(5, 5), (4, 6), (3, 6), (2, 7)]
    assert bresenham((3, 3), (3, 0)) == [(3, 3), (3, 2), (3, 1), (3, 0)]
    assert bresenham((1, 1), (4, 4)) == [(1, 1), (2, 2), (3, 3), (4, 4)]
    assert bresenham((2, 2), (2, 2)) == [(2, 2)]


def test_bresenham_steps_are_neighbours_and_mirror_symmetric_r_shape_1():
    """R-SHAPE-1: each step is one Chebyshev cell (so the k-th cell is at range k), and
    the line toward a mirrored point is the mirrored line (bursts come out symmetric)."""
    for dx in range(-6, 7):
        for dy in range(-6, 7):
            line = bresenham((0, 0), (dx, dy))
            assert len(line) == max(abs(dx), abs(dy)) + 1
            for k, (x, y) in enumerate(line):
                assert max(abs(x), abs(y)) == k
            assert bresenham((0, 0), (-dx, dy)) == [(-x, y) for x, y in line]
            assert bresenham((0, 0), (dx, -dy)) == [(x, -y) for x, y in line]
            assert bresenham((0, 0), (dy, dx)) == [(y, x) for x, y in line]


def test_line_of_effect_walls_and_shut_doors_block_between_only_r_grid_1():
    """R-GRID-1: a wall or a shut door strictly between blocks line of effect; an open
    door does not; the end cells themselves never block it."""
    grid, _ = parse(("....#.+.'..",))
    assert line_of_effect(grid, (0, 0), (3, 0))
    assert line_of_effect(grid, (0, 0), (4, 0))      # the wall itself is reached
    assert not line_of_effect(grid, (0, 0), (5, 0))  # behind the wall
    assert line_of_effect(grid, (5, 0), (6, 0))      # the shut door itself
    assert not line_of_effect(grid, (5, 0), (7, 0))  # behind the shut door
    assert line_of_effect(grid, (7, 0), (10, 0))     # through the open door
    grid.shut[0, 6] = False                          # open it
    assert line_of_effect(grid, (5, 0), (7, 0))


# -- burst ----------------------------------------------------------------------------------------
def test_burst_cells_blocked_by_wall_and_shut_door_r_shape_1():
    """R-SHAPE-1: a burst reaches every cell within Chebyshev r of its centre with line
    of effect from the centre; walls and shut doors are reached, what lies behind not.
    Cells come in scan order (y, then x)."""
    rows = (
        "@.........",
        "..........",
        "....#.....",
        "..........",
        ".....+....",
        "..........",
        "..........",
    )
    expect = (
        "..........",
        "..**.**...",
        "..*****...",
        "..*****...",
        "..****....",
        "..***.....",
        "..........",
    )
    result = cast(rows, "burst", (4, 3), radius=2)  # centre beside the wall and the door
    assert result.centre == (4, 3)
    assert set(result.area) == marked(expect)
    assert list(result.area) == sorted(result.area, key=lambda c: (c[1], c[0]))
    assert result.effect_cells == result.area  # R-SHAPE-7: a burst's every cell
    assert result.victims == ()


def test_burst_strikes_the_caster_it_covers_and_spares_it_otherwise_r_shape_1():
    """R-SHAPE-1: the caster's own cell is part of a burst that covers it."""
    rows = (
        ".....",
        ".@a..",
        "...b.",
        ".....",
    )
    covered = cast(rows, "burst", (2, 2), radius=1)
    assert (1, 1) in covered.area
    assert covered.victims == (1, 2, CASTER)  # spawn order: a=1, b=2, caster=100
    far = cast(rows, "burst", (3, 2), radius=1)
    assert (1, 1) not in far.area
    assert far.victims == (1, 2)


def test_burst_through_a_wall_goes_off_before_it_r_shape_1():
    """R-SHAPE-1 decision: a burst whose way to the aim is blocked goes off at the last
    open cell before the obstacle, so it does not reach through the wall."""
    rows = (
        "..........",
        "@...#..a..",
        "..........",
    )
    result = cast(rows, "burst", "a", radius=1)
    assert result.centre == (3, 1)
    assert set(result.area) == marked((
        "..***.....",
        "..***.....",
        "..***.....",
    ))
    assert result.victims == ()


def test_burst_aimed_at_a_wall_or_beyond_range_r_shape_1():
    """R-SHAPE-1 decision: a burst aimed at a wall cell goes off on the open cell before
    it; one aimed beyond range goes off at range; one aimed through a wall beside the
    caster goes off on the caster (and strikes it)."""
    rows = (
        ".......",
        "@..#...",
        "#......",
    )
    grid, _ = parse(rows)
    assert burst_centre(grid, (0, 1), (3, 1), 8) == (2, 1)
    assert burst_centre(grid, (0, 1), (6, 1), 2) == (2, 1)
    assert burst_centre(grid, (0, 1), (6, 0), 4) == (4, 0)  # range 4, aim at 6: stops at 4
    assert burst_centre(grid, (0, 1), (0, 2), 8) == (0, 1)
    result = cast(rows, "burst", (0, 2), radius=1)
    assert result.centre == (0, 1)
    assert result.victims == (CASTER,)


def test_burst_window_is_clipped_at_the_map_edge_r_shape_1():
    """R-SHAPE-1: a burst in a corner reaches only cells on the map."""
    result = cast(("@..", "...", "..."), "burst", (0, 0), radius=2)
    assert set(result.area) == {(x, y) for x in range(3) for y in range(3)}


def test_burst_on_a_large_map_matches_a_small_one_r_shape_1():
    """R-SHAPE-1: the window sliced out of a 2048x2048 map gives the same cells as the
    same neighbourhood drawn alone."""
    small = (
        "..#....",
        ".......",
        "...#...",
        "...@...",
        ".......",
        ".+.....",
        ".......",
    )
    grid, _ = parse(small)
    big = Grid(np.zeros((2048, 2048), dtype=np.uint8))
    big.terrain[1000:1007, 1500:1507] = grid.terrain
    big.shut[1000:1007, 1500:1507] = grid.shut
    here = resolve_shape(grid, "burst", (3, 3), (3, 3), range_=8, radius=3, caster=CASTER,
                         spawn_of=spawn_identity)
    there = resolve_shape(big, "burst", (1503, 1003), (1503, 1003), range_=8, radius=3,
                          caster=CASTER, spawn_of=spawn_identity)
    assert [(x + 1500, y + 1000) for x, y in here.area] == list(there.area)
    shielded = {(2, 0), (3, 1), (3, 0), (0, 6)}  # behind the walls and the shut door
    assert not shielded & set(here.area)
    assert {(2, 2), (1, 5), (1, 6)} <= set(here.area)


# -- cone ------------------------------------------------------------------------------------------
def test_cone_orthogonal_is_a_45_degree_wedge_r_shape_1():
    """R-SHAPE-1: cells within Chebyshev range whose direction is within 45 degrees of the
    aim (inclusive), with line of effect; never the caster's cell; no cell effects
    (R-SHAPE-3, R-SHAPE-7)."""
    rows = (
        ".........",
        ".........",
        ".........",
        ".........",
        "@........",
        ".........",
        ".........",
        ".........",
        ".........",
    )
    expect = (
        "....*....",
        "...**....",
        "..***....",
        ".****....",
        ".****....",
        ".****....",
        "..***....",
        "...**....",
        "....*....",
    )
    result = cast(rows, "cone", (2, 4), range_=4)  # the aim's distance does not matter
    assert set(result.area) == marked(expect)
    assert result.effect_cells == ()
    assert result.centre is None


def test_cone_diagonal_fills_the_quadrant_and_walls_shield_r_shape_1():
    """R-SHAPE-1: a diagonal aim covers the square quadrant (both axes at exactly 45
    degrees); a wall is reached and shields what lies behind it; creatures in the cone
    are struck in spawn order, the caster never."""
    rows = (
        "@.b...",
        ".#....",
        "a..c..",
        "......",
        "......",
    )
    expect = (
        ".***..",
        "**.*..",
        "*.....",
        "**....",
        "......",
    )
    result = cast(rows, "cone", (1, 1), range_=3)
    assert set(result.area) == marked(expect)
    assert result.victims == (1, 2)  # c stands behind the wall


def test_cone_aimed_at_the_caster_reaches_nothing_r_shape_1():
    """R-SHAPE-1 decision: a cone has no direction when aimed at its caster's cell."""
    assert cast(("@..",), "cone", (0, 0), range_=3) == EMPTY


# -- line ------------------------------------------------------------------------------------------
def test_line_runs_past_the_aim_to_range_r_shape_1():
    """R-SHAPE-1: a line runs from the caster through the aim to its range, striking all
    on it in spawn order; only its last cell gets cell effects (R-SHAPE-3, R-SHAPE-7)."""
    rows = (
        "@.b.......",
        "...a......",
        "..........",
    )
    result = cast(rows, "line", (2, 0), range_=6)
    assert result.area == ((1, 0), (2, 0), (3, 0), (4, 0), (5, 0), (6, 0))
    assert result.effect_cells == ((6, 0),)
    assert result.victims == (2,)
    slanted = cast(rows, "line", (4, 1), range_=6)  # runs on along the same slope
    assert slanted.area == ((1, 0), (2, 1), (3, 1), (4, 1), (5, 1), (6, 2))
    assert slanted.victims == (1,)


def test_line_stops_at_the_first_blocking_cell_r_shape_1():
    """R-SHAPE-1: a line stops at (and includes) the first wall or shut door; an open
    door lets it through; the map's edge ends it."""
    assert cast(("@.a+.b",), "line", (5, 0)).area == ((1, 0), (2, 0), (3, 0))
    assert cast(("@.a#.b",), "line", (5, 0)).effect_cells == ((3, 0),)
    assert cast(("@.a'.b",), "line", (5, 0)).area == ((1, 0), (2, 0), (3, 0), (4, 0), (5, 0))
    assert cast(("@.a'.b",), "line", (5, 0)).victims == (1, 2)


# -- ray and bolt ----------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", ["ray", "bolt"])
def test_ray_and_bolt_strike_the_first_creature_and_stop_r_shape_1(shape):
    """R-SHAPE-1, R-SHAPE-2: a ray or bolt strikes the first creature on its way, stops
    there, and does its cell effect on that creature's cell."""
    rows = (
        "@..a.b..",
        "........",
    )
    result = cast(rows, shape, "b")
    assert result.area == ((1, 0), (2, 0), (3, 0))
    assert result.victims == (1,)
    assert result.effect_cells == ((3, 0),)


@pytest.mark.parametrize("shape", ["ray", "bolt"])
def test_ray_that_strikes_nobody_affects_the_aimed_cell_r_shape_2(shape):
    """R-SHAPE-2: striking nobody, a ray does its cell effect on the aimed cell, though it
    travels on to its range."""
    result = cast(("@.......",), shape, (3, 0), range_=5)
    assert result.area == ((1, 0), (2, 0), (3, 0), (4, 0), (5, 0))
    assert result.victims == ()
    assert result.effect_cells == ((3, 0),)


def test_ray_stopped_by_a_wall_affects_the_wall_cell_r_shape_2():
    """R-SHAPE-2 decision: a ray a wall stops short of its aim does its cell effect on the
    blocking cell where it stopped; nobody behind is struck."""
    result = cast(("@.#.a.",), "ray", "a")
    assert result.area == ((1, 0), (2, 0))
    assert result.effect_cells == ((2, 0),)
    assert result.victims == ()
    door = cast(("@+..a.",), "bolt", (4, 0))
    assert door.area == ((1, 0),)
    assert door.effect_cells == ((1, 0),)


def test_ray_never_strikes_its_caster_r_shape_1():
    """R-SHAPE-1: the caster's cell is never part of a ray; aimed at itself it does
    nothing."""
    result = cast(("a@..b",), "ray", (4, 0))
    assert result.victims == (2,)
    assert (1, 0) not in result.area
    assert cast(("a@..b",), "ray", (1, 0)) == EMPTY


# -- touch -----------------------------------------------------------------------------------------
def test_touch_strikes_the_creature_beside_r_shape_1():
    """R-SHAPE-1, R-SHAPE-2: a touch strikes the target beside the caster (or whoever
    stands on the aimed cell); its one cell is the area and the effect cell."""
    rows = (
        "...",
        ".@a",
        "b..",
    )
    result = cast(rows, "touch", "a")
    assert result == ShapeResult(area=((2, 1),), effect_cells=((2, 1),), centre=None,
                                 victims=(1,))
    assert cast(rows, "touch", (0, 2)).victims == (2,)
    empty = cast(rows, "touch", (1, 0))
    assert empty.area == ((1, 0),) and empty.effect_cells == ((1, 0),)
    assert empty.victims == ()


def test_touch_reaches_only_beside_and_the_caster_itself_r_shape_1():
    """R-SHAPE-1: a touch reaches nothing two cells away; touching its own cell, the caster
    strikes itself (decision)."""
    rows = ("@.a",)
    assert cast(rows, "touch", "a") == EMPTY
    assert cast(rows, "touch", (0, 0)).victims == (CASTER,)


# -- victims, areas --------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", ["burst", "cone", "line"])
def test_victims_come_in_spawn_order_not_entity_or_cell_order_r_shape_6(shape):
    """R-SHAPE-6: creatures struck by one cast come in spawn order, whatever their entity
    ids or cells."""
    rows = ("@abcd.",)
    spawn = {1: 40, 2: 10, 3: 30, 4: 20, CASTER: 5}
    result = cast(rows, shape, (3, 0), range_=5, radius=2, spawn_of=spawn.__getitem__)
    assert result.victims == (2, 4, 3, 1)


def test_area_shapes_r_shape_5():
    """R-SHAPE-5: burst, cone and line are area spells; ray, bolt and touch are not."""
    assert [shape for shape in SHAPES if is_area_shape(shape)] == ["burst", "cone", "line"]


def test_effect_cells_per_shape_r_shape_7():
    """R-SHAPE-7: cell effects on a burst's every cell, none of a cone's, a line's last
    cell, one cell of a ray, bolt or touch."""
    rows = (".......", "@......", ".......")
    burst = cast(rows, "burst", (3, 1))
    assert burst.effect_cells == burst.area and len(burst.area) == 9
    cone = cast(rows, "cone", (3, 1), range_=3)
    assert cone.area and cone.effect_cells == ()
    line = cast(rows, "line", (3, 1), range_=4)
    assert line.effect_cells == ((4, 1),)
    for shape in ("ray", "bolt", "touch"):
        assert len(cast(rows, shape, (1, 1)).effect_cells) == 1


def test_unknown_shape_is_an_error():
    """An unknown shape name is a programming error, said plainly."""
    with pytest.raises(ValueError, match="unknown spell shape 'blob'"):
        cast(("@.",), "blob", (1, 0))


# -- property: line of effect, blocking cells, range -----------------------------------------------
@st.composite
def scenes(draw):
    """A small random map with walls, shut doors and creatures, a caster and an aim."""
    width = draw(st.integers(3, 9))
    height = draw(st.integers(3, 9))
    cells = st.tuples(st.integers(0, width - 1), st.integers(0, height - 1))
    symbols = draw(st.lists(st.sampled_from("....#+a"), min_size=width * height,
                            max_size=width * height))
    grid = Grid(np.zeros((height, width), dtype=np.uint8))
    spawn: dict[int, int] = {}
    for index, symbol in enumerate(symbols):
        x, y = index % width, index // width
        if symbol == "#":
            grid.terrain[y, x] = Terrain.WALL
        elif symbol == "+":
            grid.terrain[y, x] = Terrain.DOOR
            grid.shut[y, x] = True
        elif symbol == "a":
            grid.occupant[y, x] = index + 1
            spawn[index + 1] = 0
    origin = draw(cells)
    grid.terrain[origin[1], origin[0]] = Terrain.FLOOR
    grid.shut[origin[1], origin[0]] = False
    grid.occupant[origin[1], origin[0]] = CASTER
    spawn[CASTER] = 0
    order = draw(st.permutations(sorted(spawn)))  # spawn numbers are unique (R-GRID-3)
    spawn = {creature: number for number, creature in enumerate(order, 1)}
    return (grid, spawn, origin, draw(cells), draw(st.sampled_from(SHAPES)),
            draw(st.integers(0, 8)), draw(st.integers(0, 4)))


def _blocks(grid: Grid, cell: tuple[int, int]) -> bool:
    return grid.blocks(*cell)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenes())
def test_shapes_respect_line_of_effect_and_range_property_r_shape_1(scene):
    """R-SHAPE-1, R-GRID-1 (property): every reached cell is on the map and has line of
    effect from the shape's source (a burst's centre, else the caster), so blocking cells
    are reached but nothing behind them; nothing lies beyond range; victims are exactly
    the creatures on the area (the caster only in a burst), in spawn order."""
    grid, spawn, origin, aim, shape, range_, radius = scene
    result = resolve_shape(grid, shape, origin, aim, range_=range_, radius=radius,
                           caster=CASTER, spawn_of=spawn.__getitem__)
    area = list(result.area)
    assert len(set(area)) == len(area)
    assert all(grid.in_bounds(*cell) for cell in area)
    assert set(result.effect_cells) <= set(area)

    def dist(a, b):
        return max(abs(a[0] - b[0]), abs(a[1] - b[1]))

    if shape == "burst":
        centre = result.centre
        assert centre is not None and dist(origin, centre) <= range_
        # it travelled there along the aim line, through no blocking cell
        travel = [(origin[0] + ox, origin[1] + oy) for ox, oy in (
            step_offset(aim[0] - origin[0], aim[1] - origin[1], k)
            for k in range(1, dist(origin, centre) + 1))]
        assert travel[-1:] == ([centre] if centre != origin else [])
        assert not any(_blocks(grid, cell) for cell in travel)
        assert all(dist(centre, cell) <= radius for cell in area)
        assert all(line_of_effect(grid, centre, cell) for cell in area)
        expected = {(x, y) for x in range(grid.width) for y in range(grid.height)
                    if dist(centre, (x, y)) <= radius and line_of_effect(grid, centre, (x, y))}
        assert set(area) == expected
    elif shape == "cone":
        assert all(1 <= dist(origin, cell) <= range_ for cell in area)
        assert all(line_of_effect(grid, origin, cell) for cell in area)
        expected = set()
        if aim != origin:  # the 45-degree test again, in floating point
            ax, ay = aim[0] - origin[0], aim[1] - origin[1]
            for x in range(grid.width):
                for y in range(grid.height):
                    vx, vy = x - origin[0], y - origin[1]
                    if not 1 <= dist(origin, (x, y)) <= range_:
                        continue
                    cosine = (ax * vx + ay * vy) / math.hypot(ax, ay) / math.hypot(vx, vy)
                    if cosine >= math.cos(math.pi / 4) - 1e-12 and line_of_effect(
                            grid, origin, (x, y)):
                        expected.add((x, y))
        assert set(area) == expected
    elif shape == "touch":
        assert all(dist(origin, cell) <= 1 for cell in area)
    else:  # line, ray, bolt: a path of neighbours from beside the caster
        path = [origin, *area]
        assert all(dist(a, b) == 1 for a, b in itertools.pairwise(path))
        assert all(dist(origin, cell) == k for k, cell in enumerate(path))
        assert len(area) <= range_
        assert not any(_blocks(grid, cell) for cell in area[:-1])
        if aim != origin and range_ > 0:  # it ends only at range, a blocker, a creature, the edge
            dx, dy = step_offset(aim[0] - origin[0], aim[1] - origin[1], len(area) + 1)
            ended = (len(area) == range_ or not grid.in_bounds(origin[0] + dx, origin[1] + dy)
                     or (area and _blocks(grid, area[-1])))
            if shape != "line":
                ended = ended or (area and grid.occupant[area[-1][1], area[-1][0]] != 0)
            assert ended
    if shape != "touch":
        assert origin not in area or shape == "burst"
    occupants = [int(grid.occupant[y, x]) for x, y in area]
    if shape in ("ray", "bolt"):
        assert len(result.victims) <= 1
        others = [e for e in occupants if e and e != CASTER]
        assert result.victims == tuple(others[:1])
        if result.victims:
            assert area[-1] == next(c for c, e in zip(area, occupants, strict=True)
                                    if e == result.victims[0])
    else:
        keep_caster = shape in ("burst", "touch")
        struck = [e for e in occupants if e and (keep_caster or e != CASTER)]
        assert result.victims == tuple(sorted(struck, key=spawn.__getitem__))


# -- the preview (R-ELEC-7) ------------------------------------------------------------------------
LAKE = """
name = "lake"
[map]
rows = [
  "##########",
  "#........#",
  "#.~~~~~~.#",
  "#.~~~~~~.#",
  "#....#...#",
  "##########",
]
[[creatures]]
id = "mage"
at = [1, 1]
[[creatures]]
id = "eel"
at = [4, 2]
[[creatures]]
id = "frog"
at = [5, 3]
[[creatures]]
id = "toad"
at = [7, 3]
"""


def _untouched(world):
    return (world.pulse, len(world.events), world.rng.state(), world.snapshot())


def test_preview_shows_a_lines_cells_only_no_water_spread_r_elec_7(make_world):
    """R-ELEC-7: aiming a line of electricity into a lake with three creatures in it shows
    the line's cells only (no water spread, no arcs), and the world is unchanged: no
    event, no draw from the generator, same state."""
    world = make_world(LAKE)
    before = _untouched(world)
    cells = world.preview("mage", "lightning_bolt", "eel")
    # From (1,1) through (4,2), on to range 8, stopped by the east wall at (9,4)?
    # (1,1)+k*(3,1): k=1 (2,1), k=2 (3,2), k=3 (4,2), k=4 (5,2), k=5 (6,3), k=6 (7,3),
    # k=7 (8,3), k=8 (9,4): the wall, reached and included.
    assert cells == [(2, 1), (3, 2), (4, 2), (5, 2), (6, 3), (7, 3), (8, 3), (9, 4)]
    assert (5, 3) not in cells  # the frog shares the eel's water but is not on the line
    assert _untouched(world) == before


def test_preview_burst_and_touch_cells_r_elec_7(make_world):
    """R-ELEC-7: a burst's preview is its cells (the wall reached, nothing behind it); a
    touch's is its one cell; a bolt's stops at the first creature."""
    world = make_world(LAKE)
    before = _untouched(world)
    burst = world.preview("mage", "fireball", [5, 3])
    assert burst == [(4, 2), (5, 2), (6, 2), (4, 3), (5, 3), (6, 3), (4, 4), (5, 4), (6, 4)]
    assert world.preview("mage", "shocking_grasp", [2, 2]) == [(2, 2)]
    assert world.preview("mage", "spark", "toad") == [(2, 1), (3, 2), (4, 2)]  # the eel
    assert _untouched(world) == before


def test_preview_runs_from_where_the_actor_will_stand_r_elec_7(make_world):
    """R-ELEC-7: the preview aims from the actor's cell after its queued moves, as the
    cast would run."""
    world = make_world(LAKE)
    world.submit(affray.Move(actor="mage", to=(2, 1)))
    assert world.preview("mage", "shocking_grasp", [3, 1]) == [(3, 1)]
    assert world.preview("mage", "spark", [5, 1]) == [(3, 1), (4, 1), (5, 1), (6, 1), (7, 1),
                                                    (8, 1), (9, 1)]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("ghost", "spark", "eel"), "unknown actor 'ghost'"),
        (("mage", "meteor", "eel"), "unknown spell 'meteor'"),
        (("mage", "spark", "nobody"), "unknown target 'nobody'"),
        (("mage", "spark", [30, 1]), "out of bounds"),
        (("mage", "spark", "not a cell"), "unknown target"),
        (("mage", "spark", [1, 2, 3]), "must be a cell"),
        (("mage", "shocking_grasp", "eel"), "out of range"),
        (("mage", "burning_hands", [8, 1]), "out of range"),
    ],
)
def test_preview_checks_like_submit_and_changes_nothing_r_elec_7(make_world, args, message):
    """R-ELEC-7: a preview is checked as `submit` checks a cast: ActionError, world
    unchanged."""
    world = make_world(LAKE)
    before = _untouched(world)
    with pytest.raises(affray.ActionError, match=message):
        world.preview(*args)
    assert _untouched(world) == before


# -- end to end: scenario, Cast, tick, events ----------------------------------------------------
def _spell(name: str, shape: str, **fields: object) -> str:
    """A scenario-inline cold spell of 20 damage, no save (no draw decides who is hit)."""
    lines = [f"[content.spells.{name}]", 'type = "cold"', f'shape = "{shape}"',
             'damage = "20"', 'save = "none"']
    lines += [f"{key} = {value}" for key, value in fields.items()]
    return "\n".join(lines) + "\n"


def _creatures(*placed: tuple[str, int, int]) -> str:
    return "".join(f'[[creatures]]\nid = "{cid}"\nat = [{x}, {y}]\nlevel = 20\nhp = 100\n'
                   for cid, x, y in placed)


def _cast_events(world, actor: str, spell: str, target) -> list[dict]:
    start = len(world.events)
    world.submit(affray.Cast(actor=actor, spell=spell, target=target))
    world.tick()
    return [event.to_dict() for event in world.events[start:]]


def test_burst_end_to_end_wall_shields_and_caster_is_struck_r_shape_1(make_world):
    """R-SHAPE-1 end to end: a radius-2 burst centred beside a wall strikes the caster it
    covers and a goblin seen past the wall's corner, never the orc behind the wall; the
    cast's area is exactly what the preview showed (R-ELEC-7)."""
    world = make_world(
        'name = "shielded"\n[map]\nrows = ["#########", "#.......#", "#...#...#", '
        '"#.......#", "#########"]\n'
        + _creatures(("mage", 1, 1), ("orc", 5, 2), ("gob", 5, 1))
        + _spell("frost_burst", "burst", radius=2))
    shown = world.preview("mage", "frost_burst", [3, 2])
    log = _cast_events(world, "mage", "frost_burst", [3, 2])
    assert [e["target"] for e in log if e["kind"] == "damage"] == ["mage", "gob"]
    assert world.sheet("orc").vitals.hp == 100
    assert world.cast_records[0].area == shown
    assert (5, 2) not in shown and (4, 2) in shown  # the wall reached, the orc behind not


def test_burst_end_to_end_does_not_go_through_a_wall_r_shape_1(make_world):
    """R-SHAPE-1 decision end to end: a burst aimed at a creature behind a wall goes off
    on the last open cell before the wall: the creature is not struck."""
    world = make_world(
        'name = "through"\n[map]\nrows = ["#########", "#...#...#", "#########"]\n'
        + _creatures(("mage", 1, 1), ("orc", 6, 1))
        + _spell("frost_burst", "burst", radius=1))
    log = _cast_events(world, "mage", "frost_burst", "orc")
    assert log[0]["kind"] == "cast"
    assert [e for e in log if e["kind"] == "damage"] == []
    assert world.cast_records[0].centre == (3, 1)


def test_ray_end_to_end_strikes_the_first_creature_only_r_shape_2(make_world):
    """R-SHAPE-1, R-SHAPE-2 end to end: a ray aimed at the far orc strikes the near one
    standing in its way, and nobody else."""
    world = make_world(
        'name = "ray"\n[map]\nrows = ["#########", "#.......#", "#########"]\n'
        + _creatures(("mage", 1, 1), ("near", 3, 1), ("far", 6, 1))
        + _spell("frost_ray", "ray"))
    log = _cast_events(world, "mage", "frost_ray", "far")
    assert [e["target"] for e in log if e["kind"] == "damage"] == ["near"]


LAKE_ROW = 'name = "pond"\n[map]\nrows = ["#########", "#..~~~~.#", "#########"]\n'


def test_ray_of_frost_bridges_a_lake_one_cell_per_cast_r_shape_2(make_world):
    """R-SHAPE-2 end to end: a ray of frost striking nobody freezes the aimed water cell
    only, though it travels on: one cell per cast."""
    world = make_world(LAKE_ROW + _creatures(("mage", 1, 1)))
    log = _cast_events(world, "mage", "ray_of_frost", [3, 1])
    frozen = [e["cell"] for e in log if e["kind"] == "terrain"]
    assert frozen == [[3, 1]]
    world.run(world.wait_of("mage"))
    log = _cast_events(world, "mage", "ray_of_frost", [4, 1])
    assert [e["cell"] for e in log if e["kind"] == "terrain"] == [[4, 1]]


@pytest.mark.parametrize(("shape", "frozen"), [("line", [[6, 1]]), ("cone", [])])
def test_line_freezes_its_last_cell_and_a_cone_none_r_shape_7(make_world, shape, frozen):
    """R-SHAPE-3, R-SHAPE-7 end to end: a cold line over a pond freezes only its last
    cell; a cold cone freezes nothing."""
    world = make_world(LAKE_ROW + _creatures(("mage", 1, 1))
                       + _spell("frost_" + shape, shape, range=5))
    log = _cast_events(world, "mage", "frost_" + shape, [2, 1])
    assert [e["cell"] for e in log if e["kind"] == "terrain"] == frozen


# -- big radii: the octant sweep (issue: radius 1,000 asked for 29.8 GiB) ------------------------
def _random_grid(rng: np.random.Generator, width: int, height: int) -> Grid:
    """Walls and shut doors at a random density (0 to 40%), a few open doors."""
    grid = Grid(np.zeros((height, width), dtype=np.uint8))
    draw = rng.random((height, width))
    density = rng.random() * 0.4
    grid.terrain[draw < density] = Terrain.WALL
    doors = (draw >= density) & (draw < density + 0.04)
    grid.terrain[doors] = Terrain.DOOR
    grid.shut[doors] = rng.random(int(doors.sum())) < 0.7
    return grid


def _seen_by_tracing(grid: Grid, centre: tuple[int, int], radius: int) -> set:
    return {(x, y) for x in range(grid.width) for y in range(grid.height)
            if max(abs(x - centre[0]), abs(y - centre[1])) <= radius
            and line_of_effect(grid, centre, (x, y))}


@pytest.mark.parametrize("seed", range(6))
def test_big_bursts_reach_exactly_the_cells_with_line_of_effect_r_shape_1(seed):
    """R-SHAPE-1, R-GRID-1: past shapes.TABLE_RADIUS a burst's line of effect comes from
    the octant sweep, not the table of cells between: on random maps with walls and shut
    doors, bursts of radius 33..80 (clipped by the map's edges, the centre anywhere) reach
    exactly the cells within the radius that `line_of_effect` traces clear, in row-major
    order, and strike exactly the creatures on them."""
    from affray.systems.rules.shapes import TABLE_RADIUS

    rng = np.random.default_rng(seed)
    for _ in range(6):
        width, height = (int(n) for n in rng.integers(1, 60, 2))
        grid = _random_grid(rng, width, height)
        centre = (int(rng.integers(0, width)), int(rng.integers(0, height)))
        grid.terrain[centre[1], centre[0]] = Terrain.FLOOR
        grid.shut[centre[1], centre[0]] = False
        crowd = rng.random((height, width)) < 0.2
        grid.occupant[crowd] = np.arange(1, int(crowd.sum()) + 1)
        radius = int(rng.integers(TABLE_RADIUS + 1, 81))
        result = resolve_shape(grid, "burst", centre, centre, range_=0, radius=radius,
                               caster=CASTER, spawn_of=spawn_identity)
        expected = _seen_by_tracing(grid, centre, radius)
        assert list(result.area) == sorted(expected, key=lambda cell: (cell[1], cell[0]))
        assert result.victims == tuple(sorted(
            int(grid.occupant[y, x]) for x, y in expected if grid.occupant[y, x]))


@pytest.mark.parametrize("radius", [2, 5, 12, 20, 32])
def test_the_sweep_and_the_table_agree_wherever_both_answer_r_shape_1(radius):
    """R-SHAPE-1: the two ways of tracing line of effect over a window give the same
    mask at every radius the table serves, in open and crowded windows, whole or cut by
    the map's edge (so a burst's cells do not change at TABLE_RADIUS)."""
    from affray.systems.rules.shapes import Window, _blocking, _sweep_visible, _visible

    rng = np.random.default_rng(radius)
    grid = _random_grid(rng, 90, 70)
    for centre in ((45, 35), (0, 0), (89, 3), (10, 69), (radius, radius)):
        window = Window.around(grid, centre, radius)
        table = _visible(grid, window)
        swept = _sweep_visible(_blocking(grid, window), window)
        assert table.shape == swept.shape == (window.y1 - window.y0, window.x1 - window.x0)
        assert np.array_equal(table, swept), centre


def test_big_cones_reach_the_wedge_with_line_of_effect_r_shape_1():
    """R-SHAPE-1: a cone of range 200 on a 50x40 map (the window cut to the map, the
    cone's 45-degree test worked out on it alone) reaches exactly the cells within 45
    degrees of the aim that have line of effect, as its small-range form would."""
    rng = np.random.default_rng(11)
    grid = _random_grid(rng, 50, 40)
    origin = (20, 17)
    grid.terrain[origin[1], origin[0]] = Terrain.FLOOR
    grid.shut[origin[1], origin[0]] = False
    for aim in ((49, 17), (25, 39), (0, 0), (21, 39), (3, 5)):
        result = resolve_shape(grid, "cone", origin, aim, range_=200, radius=0,
                               caster=CASTER, spawn_of=spawn_identity)
        ax, ay = aim[0] - origin[0], aim[1] - origin[1]
        expected = []
        for y in range(grid.height):
            for x in range(grid.width):
                vx, vy = x - origin[0], y - origin[1]
                dot = ax * vx + ay * vy
                if (dot > 0 and 2 * dot * dot >= (ax * ax + ay * ay) * (vx * vx + vy * vy)
                        and line_of_effect(grid, origin, (x, y))):
                    expected.append((x, y))
        assert list(result.area) == expected, aim


@pytest.mark.parametrize("shape", ["burst", "cone"])
def test_a_radius_past_the_map_costs_no_more_than_the_map_r_shape_1(shape):
    """R-SHAPE-1: a burst of radius 1,000 (or a cone of range 1,000) on a 40x30 map
    reaches what one of radius 40 reaches, and allocates no more than the map's worth of
    memory (a table of the cells between for radius 1,000 was 29.8 GiB; radius 300's
    864 MB and 33 s): its peak is within 4 MB, however big the radius."""
    import tracemalloc

    rng = np.random.default_rng(3)
    grid = _random_grid(rng, 40, 30)
    grid.terrain[12, 17] = Terrain.FLOOR
    grid.shut[12, 17] = False

    def reach(size: int) -> ShapeResult:
        return resolve_shape(grid, shape, (17, 12), (30, 20), range_=size, radius=size,
                             caster=CASTER, spawn_of=spawn_identity)

    small = reach(40)
    tracemalloc.start()
    try:
        big = reach(1000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert big.area == small.area and big.area
    assert peak < 4 * 2**20, peak
