"""A mind's short look-ups equal the long way round (R-MIND-2, R-SIDE-1).

`MindView.creature(id)` finds one creature it sees without building every `Seen`, and
`MindView.foes_within(cells)` the foes within a reach without building the farther
ones. Mid-battle, from every soldier's eyes (walls and a river in the way, the dead
left behind), each must give what filtering `seen` and `foes` gives.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_minds_properties import worlds

import affray
from affray.systems.rules.minds.view import MindView


def test_creature_and_foes_within_match_seen_and_foes_mid_battle():
    """R-MIND-2 / R-SIDE-1: for every living soldier, `creature(id)` of every creature
    (itself, the dead, the unseen and an unknown id included) is the one of `seen` with
    that id, and `foes_within(r)` is `foes` within Chebyshev r, order kept."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "army.toml"
        path.write_text(affray.army(30, seed=2))
        world = affray.load_scenario(str(path))
        try:
            world.run(260)
            sheets = list(world.sheets.values())
            assert any(not s.vitals.alive for s in sheets)
            ids = [s.id for s in sheets] + ["nobody"]
            checked_seen = checked_far = 0
            for sheet in sheets:
                if not sheet.vitals.alive:
                    continue
                view = MindView(world, sheet)
                by_id = {seen.id: seen for seen in view.seen}
                for creature_id in ids:
                    assert MindView(world, sheet).creature(creature_id) == by_id.get(
                        creature_id)
                checked_seen += len(by_id)
                me = view.me.at
                for reach in (0, 1, 3, 8, 30):
                    near = tuple(f for f in view.foes
                                 if max(abs(f.at[0] - me[0]), abs(f.at[1] - me[1])) <= reach)
                    assert MindView(world, sheet).foes_within(reach) == near
                    checked_far += len(view.foes) - len(near)
            assert checked_seen > 1000 and checked_far > 100  # both ways were met
        finally:
            world.close()


def lookout_world(others: str, width: int = 20) -> affray.World:
    """A lookout (sight 4, assist) of side blue at (3, 1), its sight window ending where
    the roster's first 8 x 8 block does, on a `width` x 3 field, with `others` (TOML
    creature entries)."""
    from conftest import world_from_text

    row = f'"{"." * width}"'
    return world_from_text(f"""
name = "lookout"
seed = 1
pulses = 0
[map]
rows = [{row}, {row}, {row}]
[content.minds.lookout]
assist = true
sight = 4
[[creatures]]
id = "lookout"
at = [3, 1]
side = "blue"
mind = "lookout"
{others}""")


def _fight_in_sight(foe_x: int) -> affray.World:
    """The lookout; its ally at (foe_x - 1, 1) fights a foe at (foe_x, 1)."""
    return lookout_world(f"""[[creatures]]
id = "friend"
at = [{foe_x - 1}, 1]
side = "blue"
fighting = "foe"
[[creatures]]
id = "foe"
at = [{foe_x}, 1]
side = "red"
fighting = "friend"
""")


def test_a_fight_just_past_sight_is_seen_through_the_ally_in_it():
    """R-MIND-4: the lookout sees its ally 4 cells off, so it sees the ally's fight with
    a foe 5 cells off (sight + 1, in the next block); one cell farther, neither is seen;
    farther still, past
    the 8 x 8 blocks the roster counts, the mind finds no fight without a field of view
    (no creature of another side within sight + 1)."""
    world = _fight_in_sight(8)
    try:
        world.enter()
        view = MindView(world, world.sheet("lookout"))
        assert [seen.id for seen in view.fights_of_allies()] == ["foe"]
    finally:
        world.close()
    world = _fight_in_sight(9)
    try:
        world.enter()
        assert MindView(world, world.sheet("lookout")).fights_of_allies() == ()
    finally:
        world.close()
    world = _fight_in_sight(17)
    try:
        world.enter()
        view = MindView(world, world.sheet("lookout"))
        assert view.fights_of_allies() == ()
        assert "_fov" not in view.__dict__  # it never looked
        assert view.extent == 5  # and read as far as looking would (sight + 1)
    finally:
        world.close()


def test_the_nearest_foe_and_the_foes_beside_match_the_long_way_mid_battle():
    """R-MIND-3 / R-MIND-5: from every soldier's eyes at three moments of a battle,
    `nearest_foe()` is `nearest(foes)` (walking distance, ties to the earlier spawn),
    `foes_beside()` the foes one cell off in spawn order, and `nearest_foe_cells()` the
    least Chebyshev distance: worked out from the foes unsorted, they must not depend
    on the order the grid gave them in."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "army.toml"
        path.write_text(affray.army(30, seed=5))
        world = affray.load_scenario(str(path))
        try:
            ties = checked = 0
            for pulses in (150, 110, 100):
                world.run(pulses)
                for sheet in [s for s in world.sheets.values() if s.vitals.alive]:
                    long_way = MindView(world, sheet)
                    foes = long_way.foes
                    me = long_way.me.at
                    chebyshev = [max(abs(f.at[0] - me[0]), abs(f.at[1] - me[1])) for f in foes]
                    view = MindView(world, sheet)
                    assert view.nearest_foe() == long_way.nearest(foes)
                    assert MindView(world, sheet).foes_beside() == tuple(
                        f for f, d in zip(foes, chebyshev, strict=True) if d == 1)
                    assert MindView(world, sheet).nearest_foe_cells() == (
                        min(chebyshev) if foes else None)
                    ties += chebyshev.count(min(chebyshev, default=-1)) > 1
                    checked += bool(foes)
            assert checked > 50 and ties > 10  # foes seen, and nearest ones tied
        finally:
            world.close()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(worlds(), st.integers(0, 40))
def test_the_quick_foe_look_ups_match_the_long_way_among_walls(made, pulses):
    """R-MIND-3 / R-MIND-5 on random maps (walls, doors, water, several sides): every
    living creature's `nearest_foe()`, `foes_beside()` and `nearest_foe_cells()` are
    worked out from `foes` the long way, after some pulses of play."""
    from conftest import world_from_text

    world = world_from_text(made)
    try:
        world.run(pulses)
        world.enter()
        for sheet in [s for s in world.sheets.values() if s.vitals.alive]:
            long_way = MindView(world, sheet)
            foes = long_way.foes
            me = long_way.me.at
            chebyshev = [max(abs(f.at[0] - me[0]), abs(f.at[1] - me[1])) for f in foes]
            assert MindView(world, sheet).nearest_foe() == long_way.nearest(foes)
            assert MindView(world, sheet).foes_beside() == tuple(
                f for f, d in zip(foes, chebyshev, strict=True) if d == 1)
            assert MindView(world, sheet).nearest_foe_cells() == (
                min(chebyshev) if foes else None)
    finally:
        world.close()
