"""R-MIND-6: an archer does not preview a bolt whose line meets its own side first
(`MindView.ally_first_on_line`); the choice is the one the previews would give, so the
log of a battle is the same with the look and without it (every foe previewed)."""

from __future__ import annotations

import pytest
from conftest import world_from_text

from affray.data.armies import army
from affray.systems.rules.minds.view import MindView, seen_of


def _log(text: str, pulses: int) -> list[str]:
    world = world_from_text(text)
    try:
        world.run(pulses=pulses)
        return [repr(event) for event in world.events]
    finally:
        world.close()


@pytest.mark.parametrize("seed", [0, 5])
def test_a_battle_plays_the_same_with_the_look_along_the_bolt(monkeypatch, seed) -> None:
    """R-MIND-6: army(30) (archers behind the ranks shoot arrows, a bolt): same log,
    event for event, whether or not bolts blocked by an ally are skipped unpreviewed."""
    text = army(30, seed=seed)
    looked = _log(text, 500)
    casts = sum(1 for line in looked if "Cast" in line.split("(")[0])
    assert casts > 20, "the archers must shoot for this test to say anything"
    monkeypatch.setattr(MindView, "ally_first_on_line", lambda self, foe: False)
    assert _log(text, 500) == looked


ROWS = ["..........", "..........", "..#.......", ".........."]
PLACED = (("archer", "red", (0, 0)), ("friend", "red", (2, 0)),
          ("foe_behind", "blue", (5, 0)), ("foe_clear", "blue", (0, 2)),
          ("foe_past_wall", "blue", (3, 3)))


def aim_scenario() -> str:
    """A row with an archer, its friend and a foe behind the friend; a foe in the clear;
    a foe behind a wall."""
    creatures = "".join(f'\n[[creatures]]\nid = "{cid}"\ntemplate = "kobold"\n'
                        f'side = "{side}"\nat = [{x}, {y}]\n'
                        for cid, side, (x, y) in PLACED)
    return f'name = "aim"\nseed = 1\n[map]\nrows = {ROWS}\n' + creatures


def test_the_first_on_the_line_decides(make_world) -> None:
    """R-MIND-6: an ally first on the line: True; a clear line to the foe:
    False; a wall first (no one struck), or a foe first: False (the preview decides)."""
    world = make_world(aim_scenario())
    view = MindView(world, world.sheets[world.by_id["archer"]])
    foes = {i: seen_of(world.sheets[world.by_id[i]])
            for i in ("foe_behind", "foe_clear", "foe_past_wall")}
    assert view.ally_first_on_line(foes["foe_behind"]) is True
    assert view.ally_first_on_line(foes["foe_clear"]) is False
    assert view.ally_first_on_line(foes["foe_past_wall"]) is False
    friend_view = MindView(world, world.sheets[world.by_id["friend"]])
    behind = foes["foe_behind"]
    assert friend_view.ally_first_on_line(behind) is False  # the foe itself is first
