"""The roster's look-ups match the creatures they stand for (systems/rules/roster.py).

Minds read the roster instead of the components (R-MIND-2, R-SIDE-1): `row_of` finds a
creature's row from its entity, and the block counts say at once that no creature of
another side stands in a sight window. Both are kept by hand where the engine moves,
kills, adds or touches a creature, so they are checked against a count made from
scratch: through random operations on a bare roster (hypothesis), and through a real
battle, its save and its load.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from types import SimpleNamespace

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import affray
from affray.systems.rules.roster import BLOCK_SHIFT, Roster

SIDES = ("red", "blue", "green")


def _sheet(slot: int, entity: int, x: int, y: int, side: str) -> SimpleNamespace:
    return SimpleNamespace(entity=entity, creature=SimpleNamespace(slot=slot, side=side),
                           position=SimpleNamespace(x=x, y=y),
                           vitals=SimpleNamespace(alive=True))


def _recount(sheets: list[SimpleNamespace], roster: Roster) -> np.ndarray:
    """The block counts made from scratch, shaped as the roster's."""
    counts = np.zeros_like(roster.blocks)
    for sheet in sheets:
        if sheet.vitals.alive:
            counts[roster.side_codes[sheet.creature.side], sheet.position.y >> BLOCK_SHIFT,
                   sheet.position.x >> BLOCK_SHIFT] += 1
    return counts


def _others_within(sheets: list[SimpleNamespace], side: str, window: tuple[int, ...]
                   ) -> bool:
    """Whether a living creature of another side stands in a block the window meets."""
    x0, y0, x1, y1 = window
    bx0, by0 = x0 >> BLOCK_SHIFT, y0 >> BLOCK_SHIFT
    bx1, by1 = (x1 - 1) >> BLOCK_SHIFT, (y1 - 1) >> BLOCK_SHIFT
    return any(s.vitals.alive and s.creature.side != side
               and bx0 <= s.position.x >> BLOCK_SHIFT <= bx1
               and by0 <= s.position.y >> BLOCK_SHIFT <= by1 for s in sheets)


operation = st.tuples(st.sampled_from(("add", "move", "die", "touch")),
                      st.integers(0, 10_000), st.integers(0, 40), st.integers(0, 40),
                      st.sampled_from(SIDES))


@settings(max_examples=300, deadline=None)
@given(st.lists(operation, min_size=1, max_size=60),
       st.lists(st.tuples(st.sampled_from(SIDES), st.integers(0, 40), st.integers(0, 40),
                          st.integers(1, 20), st.integers(1, 20)), min_size=1, max_size=8))
def test_block_counts_and_row_look_up_follow_every_change(operations, windows):
    """Adds (entities in any order, as after a load), steps across blocks or within one,
    deaths (twice over too) and touches: the counts equal a recount, `rows_of` gives
    each creature's row, and `others_within` says what a scan of the creatures says."""
    roster = Roster()
    sheets: list[SimpleNamespace] = []
    entities: set[int] = set()
    for kind, number, x, y, side in operations:
        if kind == "add" or not sheets:
            entity = number + 1
            if entity in entities:
                continue
            entities.add(entity)
            sheets.append(_sheet(len(sheets), entity, x, y, side))
            roster.put(sheets[-1])
            continue
        sheet = sheets[number % len(sheets)]
        if kind == "move":
            sheet.position.x, sheet.position.y = x, y
            roster.moved(sheet)
        elif kind == "die":
            sheet.vitals.alive = False
            roster.died(sheet)
        else:  # a game edited it by hand, then touched it
            sheet.position.x, sheet.position.y, sheet.creature.side = x, y, side
            roster.put(sheet)
    assert np.array_equal(roster.blocks, _recount(sheets, roster))
    assert roster.rows_of(np.array([s.entity for s in sheets])).tolist() == list(
        range(len(sheets)))
    assert roster.side_of[[s.entity for s in sheets]].tolist() == [
        roster.side_codes[s.creature.side] + 1 for s in sheets]
    for side, x0, y0, width, height in windows:
        window = (x0, y0, x0 + width, y0 + height)
        assert roster.others_within(side, *window) == _others_within(sheets, side, window)


def test_a_battle_keeps_the_roster_true_through_steps_deaths_save_and_load():
    """R-MIND-2 / R-SIDE-1: after every stretch of a battle (soldiers step, fight and
    die) and after a save and load, the roster's rows, cells and block counts are the
    creatures'; and every fight is between two creatures beside each other (R-ACT-3)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "army.toml"
        path.write_text(affray.army(30))
        world = affray.load_scenario(str(path))
        try:
            fights = 0
            for _ in range(8):
                world.run(60)
                fights += _check(world)
            assert fights > 20  # fights were going on, and each was checked
            world.save(str(Path(folder) / "save.json"))
            loaded = affray.load_world(str(Path(folder) / "save.json"))
            try:
                _check(loaded)
                assert _padded(loaded.roster.blocks, world.roster.blocks) == _padded(
                    world.roster.blocks, loaded.roster.blocks)
            finally:
                loaded.close()
        finally:
            world.close()


def _check(world: affray.World) -> int:
    roster = world.roster
    sheets = list(world.sheets.values())
    # R-ACT-3, which a mind's look for its side's fights relies on (fights_of_allies):
    # everyone fighting stands beside its foe
    fights = [(s, world.sheet(s.combat.fighting)) for s in sheets
              if s.vitals.alive and s.combat.fighting is not None]
    assert all(max(abs(a.position.x - b.position.x), abs(a.position.y - b.position.y)) == 1
               for a, b in fights)
    rows = roster.rows_of(np.array([s.entity for s in sheets]))
    assert rows.tolist() == [s.creature.slot for s in sheets]
    assert roster.side_of[[s.entity for s in sheets]].tolist() == [
        roster.side_codes[s.creature.side] + 1 for s in sheets]
    assert roster.x[rows].tolist() == [s.position.x for s in sheets]
    assert roster.alive[rows].tolist() == [s.vitals.alive for s in sheets]
    assert any(not s.vitals.alive for s in sheets) or world.pulse < 200
    counts = np.zeros_like(roster.blocks)
    for sheet in sheets:
        if sheet.vitals.alive:
            counts[roster.side_codes[sheet.creature.side], sheet.position.y >> BLOCK_SHIFT,
                   sheet.position.x >> BLOCK_SHIFT] += 1
    assert np.array_equal(roster.blocks, counts)
    return len(fights)


def battle_log(per_side: int, seed: int) -> list[dict]:
    """The log of `affray.army(per_side, seed=seed)` played to settled."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "army.toml"
        path.write_text(affray.army(per_side, seed=seed))
        world = affray.load_scenario(str(path))
        try:
            world.run(until="settled")
            return [event.to_dict() for event in world.events]
        finally:
            world.close()


def _padded(blocks: np.ndarray, other: np.ndarray) -> list:
    """`blocks` grown to cover `other` too (a roster grows its blocks as creatures go)."""
    shape = tuple(max(a, b) for a, b in zip(blocks.shape, other.shape, strict=True))
    grown = np.zeros(shape, dtype=blocks.dtype)
    grown[:blocks.shape[0], :blocks.shape[1], :blocks.shape[2]] = blocks
    return grown.tolist()


def test_a_mind_that_skips_looking_when_no_foe_is_near_decides_the_same(monkeypatch):
    """R-MIND-2 / R-SIDE-1: with no creature of another side in its sight window a
    mind sees no foe without a field of view (`MindView._foe_rows`); a battle played
    with every soldier looking gives the same log, event for event. (The block counts
    answer when a side has no look: none here, minds/crowd.py.)"""
    from affray.systems.rules import roster as roster_module
    from affray.systems.rules.minds import crowd

    monkeypatch.setattr(crowd, "look_of", lambda world, code: None)
    calls = []
    real = roster_module.Roster.others_within
    monkeypatch.setattr(roster_module.Roster, "others_within",
                        lambda self, *args: calls.append(real(self, *args)) or calls[-1])
    skipping = battle_log(30, seed=4)
    assert calls.count(False) > 100 and calls.count(True) > 100  # both ways were taken
    monkeypatch.setattr(roster_module.Roster, "others_within", lambda self, *args: True)
    looking = battle_log(30, seed=4)
    assert len(skipping) > 500
    assert skipping == looking


def test_a_mind_with_no_foe_near_rests_without_being_asked_and_the_battle_is_the_same(
        monkeypatch):
    """R-MIND-1 / R-MIND-7: a built-in mind after no one, not fleeing, with no creature
    of another side within sight + 1 answers nothing, so `minds.act` rests it without a
    view (`minds.nothing_near`); a battle where every such mind is asked gives the same
    log, event for event."""
    from affray.systems.rules import minds

    answers = []
    real = minds.nothing_near
    monkeypatch.setattr(minds, "nothing_near",
                        lambda world, sheet: answers.append(real(world, sheet)) or answers[-1])
    resting = battle_log(100, seed=6)
    assert answers.count(True) > 100 and answers.count(False) > 1000  # both ways taken
    monkeypatch.setattr(minds, "nothing_near", lambda world, sheet: False)
    asked = battle_log(100, seed=6)
    assert len(resting) > 500
    assert resting == asked


def test_nothing_near_is_false_for_a_mind_with_something_to_do():
    """R-MIND-3 / R-MIND-5 / R-ACT-1: a foe at sight + 1 (one beside an ally it may see
    fighting), a memory of its attacker, a flight under way, or a game's own mind: the
    mind must be asked."""
    from test_mind_view_lookups import lookout_world

    from affray.systems.rules import minds

    def lone(foe_x: int) -> affray.World:
        return lookout_world(f'[[creatures]]\nid = "foe"\nat = [{foe_x}, 1]\nside = "red"\n',
                             width=24)

    world = lone(8)  # 5 cells off: sight + 1, in the next 8 x 8 block
    try:
        assert not minds.nothing_near(world, world.sheet("lookout"))
    finally:
        world.close()
    world = lone(20)  # far off, blocks away
    try:
        sheet = world.sheet("lookout")
        assert minds.nothing_near(world, sheet)
        sheet.mind.target = "foe"  # attacked from afar (R-ACT-1): it closes in
        assert not minds.nothing_near(world, sheet)
        sheet.mind.target, sheet.mind.fleeing = None, True
        assert not minds.nothing_near(world, sheet)
        sheet.mind.fleeing = False
        affray.register_mind("lookout", lambda view, actor: None)
        try:
            assert not minds.nothing_near(world, sheet)  # a game's own mind decides
        finally:
            minds.unregister_mind("lookout")
        assert minds.nothing_near(world, sheet)
    finally:
        world.close()


def test_a_hand_move_and_touch_make_the_kept_fields_and_rests_look_again():
    """docs/api.md: a game that moves a creature by hand calls `touch`; then the roster
    has its new cell (and block), the blocking fields kept for one state of the grid
    are let go (`Grid.version` moves on: walking.blocking_field), and the resting minds'
    records are forgotten (no stamp said what changed: minds/rest.py)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "army.toml"
        path.write_text(affray.army(30))
        world = affray.load_scenario(str(path))
        try:
            world.run(200)
            assert world.stirs is not None and world.stirs.rests  # minds at rest
            grid = world.grid
            sheet = next(s for s in world.sheets.values() if s.vitals.alive
                         and not grid.occupant[s.position.y, s.position.x + 1]
                         and s.position.x + 1 < grid.width and s.combat.fighting is None)
            x, y = sheet.position.x, sheet.position.y
            grid.occupant[y, x], grid.occupant[y, x + 1] = 0, sheet.entity
            sheet.position.x = x + 1
            version = grid.version
            world.touch(sheet.id)
            assert grid.version > version
            assert world.stirs.rests == {}
            _check(world)  # rows, cells and block counts follow the move
            world.run(100)  # and the battle goes on from there
            _check(world)
        finally:
            world.close()
