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
