"""Sides (R-SIDE-1) in what people read: the run summary, batch rows, the report; and
the command line's built-in names and saves (`affray run ambush`, `affray run SAVE`)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import world_from_text

import affray
from affray.display.summary import summarize

TWO_SIDES = """
name = "sides"
pulses = 400
[map]
rows = [".......", "......."]
[[creatures]]
id = "hero"
template = "human_warrior"
at = [1, 0]
fighting = "rat"
[[creatures]]
id = "rat"
at = [2, 0]
hp = 5
side = "vermin"
[[creatures]]
id = "bystander"
at = [6, 1]
hp = 10
side = "town"
"""


def affray_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "affray", *args], capture_output=True,
                          text=True, check=False, timeout=120)


def test_r_side_1_default_and_named_sides_in_the_snapshot():
    """R-SIDE-1: a player character is on "players", any other creature on "npcs",
    unless the scenario names its side."""
    world = world_from_text(TWO_SIDES + '[[creatures]]\nid = "imp"\nat = [4, 1]\n'
                                        '[[creatures]]\nid = "pc"\nat = [0, 1]\nplayer = true\n')
    sides = {cid: c["side"] for cid, c in world.snapshot()["creatures"].items()}
    assert sides == {"hero": "players", "rat": "vermin", "bystander": "town", "imp": "npcs",
                     "pc": "players"}


def test_r_side_1_the_summary_totals_each_side_and_names_no_winner_while_two_stand():
    """The summary's sides: creatures standing per side, their damage and kills; the
    town still stands beside the players, so nobody has won."""
    world = world_from_text(TWO_SIDES)
    world.run()
    summary = summarize(world)
    by_side = {row.side: row for row in summary.sides}
    assert (by_side["vermin"].creatures, by_side["vermin"].standing) == (1, 0)
    assert (by_side["players"].standing, by_side["players"].kills) == (1, 1)
    assert by_side["players"].dealt == by_side["vermin"].taken > 0
    assert summary.winner is None
    assert summary.to_dict()["sides"][0]["side"] == "players"


def test_r_side_1_the_only_side_left_standing_wins(tmp_path):
    """Without the town, the players are the only side standing: `affray run` names
    them, in the table of sides and the JSON."""
    path = tmp_path / "s.toml"
    path.write_text(TWO_SIDES.split('[[creatures]]\nid = "bystander"')[0], encoding="utf-8")
    done = affray_cli("run", str(path))
    assert done.returncode == 0, done.stderr
    assert "Winner: the players (the only side left standing)" in done.stdout
    assert "Sides" in done.stdout
    document = json.loads(affray_cli("run", "--json", str(path)).stdout)
    assert document["summary"]["winner"] == "players"
    assert {s["side"]: s["standing"] for s in document["summary"]["sides"]} == {
        "players": 1, "vermin": 0}


def test_r_side_1_batch_rows_name_the_winner_and_each_side_standing(tmp_path):
    """Each batch row has `winner` (the only side standing, else null) and
    `side.<name>.standing`; the report's table of wins by side counts them, with the
    rate's interval, and 'no winner' for the rest."""
    from affray.display.report import summarize as report

    path = tmp_path / "s.toml"
    path.write_text(TWO_SIDES, encoding="utf-8")
    rows = affray.batch(path, runs=4, seed=0).to_pylist()
    for row in rows:
        assert row["winner"] is None  # the town stands too
        assert (row["side.players.standing"], row["side.vermin.standing"],
                row["side.town.standing"]) == (1, 0, 1)
    lone = tmp_path / "lone.toml"
    lone.write_text(TWO_SIDES.split('[[creatures]]\nid = "bystander"')[0], encoding="utf-8")
    table = affray.batch(lone, runs=5, seed=0)
    assert table.column("winner").to_pylist() == ["players"] * 5
    wins = {row["side"]: row for row in report(table)["sides"]}
    assert (wins["players"]["wins"], wins["vermin"]["wins"], wins[None]["wins"]) == (5, 0, 0)
    assert wins["players"]["rate"] == 1.0 and wins["players"]["low"] < 1.0


def test_the_command_line_takes_a_built_in_scenario_by_name():
    """`affray run ambush` runs the built-in scenario (no file of that name here)."""
    done = affray_cli("run", "--until", "settled", "ambush")
    assert done.returncode == 0, done.stderr
    assert "-- ambush:" in done.stdout and "Sides" in done.stdout


def test_affray_run_continues_a_save(tmp_path):
    """`affray run SAVE` continues the saved world to its scenario's end, the log the
    world would have logged unsaved."""
    path = affray.builtin_scenario("ambush")
    straight = affray.load_scenario(path, seed=2)
    straight.run()
    cut = affray.load_scenario(path, seed=2)
    cut.run(150)
    save = tmp_path / "mid.save"
    cut.save(save)
    done = affray_cli("run", "--json", str(save))
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["events"] == [event.to_dict() for event in straight.events]
    assert document["final"] == straight.snapshot()


@pytest.mark.parametrize("name", ["ambush", "demo"])
def test_the_built_in_scenarios_with_minds_play_unscripted(name):
    """SPEC section 16 end to end: the ambush has no scripted action and still fights
    to a finish (somebody dies, a side is left standing); the demo's sentries answer
    the mage's fireball by going for it (R-ACT-1)."""
    world = affray.load_scenario(affray.builtin_scenario(name))
    if name == "ambush":
        assert world.scripted == []
    world.run(until="settled")
    kinds = [e.kind for e in world.events]
    assert "death" in kinds and "moved" in kinds and "fight" in kinds
    if name == "ambush":
        assert summarize(world).winner in ("party", "kobolds")
    else:
        went_for_mage = [e for e in world.events if e.kind == "fight" and e.target == "mage"
                         and e.source in ("kobold2", "kobold3")]
        assert went_for_mage and all(e.why == "attacked" for e in went_for_mage)
