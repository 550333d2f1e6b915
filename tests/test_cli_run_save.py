"""`affray run SAVE` continues a save (issue 23): the command tells a save from a scenario
by its header, continues it, and prints what the run never saved would have printed
(R-ENG-3: save, load and continue gives the same log)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from test_registered_systems import Regen  # the game system of the registry tests

import affray
from affray.cli import main as cli_main


def output(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    status = cli_main(list(args))
    captured = capsys.readouterr()
    assert status == 0, captured.err
    return captured.out


@pytest.fixture
def ambush_save(tmp_path: Path) -> Path:
    """The ambush (minds, fights, casts, deaths) saved at pulse 150 of seed 2."""
    world = affray.load_scenario(affray.builtin_scenario("ambush"), seed=2)
    try:
        world.run(150)
        world.save(str(tmp_path / "mid.save"))
    finally:
        world.close()
    return tmp_path / "mid.save"


@pytest.mark.parametrize("options, continued", [
    ((), ()),
    (("--until", "settled"), ("--until", "settled")),
    (("--pulses", "400"), ("--pulses", "250")),  # a save's --pulses count from its pulse
    (("--json",), ("--json",)),
])
def test_r_eng_3_run_of_a_save_prints_what_the_run_never_saved_prints(
        capsys, ambush_save, options, continued):
    straight = output(capsys, "run", "ambush", "--seed", "2", *options)
    assert output(capsys, "run", str(ambush_save), *continued) == straight
    pulses = [int(p) for p in re.findall(r'(?:^\[\s*|"pulse": )(\d+)', straight, re.M)]
    assert max(pulses) > 150  # the part after the save has events of its own


def test_run_of_a_save_takes_no_seed(capsys, ambush_save):
    assert cli_main(["run", str(ambush_save), "--seed", "3"]) == 1
    assert "a save keeps its generator's state: --seed cannot re-seed it" in (
        capsys.readouterr().err)


def test_run_of_a_save_with_a_game_s_system_needs_it_registered(capsys, tmp_path):
    """The command line knows only the built-in systems: a save that runs a game's own
    is refused with the name and what to call; in a process that registered it (a
    game's own launcher calling `affray.cli.main`), it continues as never saved."""
    affray.register_system("regen", Regen)
    try:
        world = affray.load_scenario(affray.builtin_scenario("duel"), seed=4)
        straight = affray.load_scenario(affray.builtin_scenario("duel"), seed=4)
        for made in (world, straight):
            made.systems = (*made.systems, Regen())
        world.run(100)
        world.save(str(tmp_path / "w.save"))
        straight.run(until="settled")
        world.close()
        continued = output(capsys, "run", str(tmp_path / "w.save"), "--until", "settled",
                           "--json")
        assert '"status": "regen"' in continued
        assert json.loads(continued)["events"] == [e.to_dict() for e in straight.events]
        straight.close()
    finally:
        affray.unregister_system("regen")
    assert cli_main(["run", str(tmp_path / "w.save")]) == 1
    error = capsys.readouterr().err
    assert "the save runs the system 'regen', which is neither built in nor registered" in error
    assert str(tmp_path / "w.save") in error
