"""A mind's short look-ups equal the long way round (R-MIND-2, R-SIDE-1).

`MindView.creature(id)` finds one creature it sees without building every `Seen`, and
`MindView.foes_within(cells)` the foes within a reach without building the farther
ones. Mid-battle, from every soldier's eyes (walls and a river in the way, the dead
left behind), each must give what filtering `seen` and `foes` gives.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

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


def _fight_in_sight(foe_x: int) -> affray.World:
    """A lookout (sight 4) at (3, 1), its sight window ending where the roster's first
    8 x 8 block does; its ally at (foe_x - 1, 1) fights a foe at (foe_x, 1); nobody else
    on a 20 x 3 field."""
    from conftest import world_from_text

    return world_from_text(f"""
name = "lookout"
seed = 1
pulses = 0
[map]
rows = ["....................", "....................", "...................."]
[content.minds.lookout]
assist = true
sight = 4
[[creatures]]
id = "lookout"
at = [3, 1]
side = "blue"
mind = "lookout"
[[creatures]]
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
