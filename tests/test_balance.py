"""The break-even solver (`affray.balance`, `affray balance`).

A scenario whose outcome is a step in the value gives exact answers: a bolt of fixed
energy damage (24 after the kobold's protections, every seed) at a kobold that does not
fight back; the players win (the kobold dies) exactly when its hit points are 24 or
fewer. The duel, whose win rate rises with the warrior's hit points, checks the search
on a real rate: each step's counts are those of a sweep at that value on the same seeds.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import affray
from affray.data.scenario import builtin_scenario
from affray.display.report import wilson

balancing = sys.modules["affray.runners.balancing"]
DUEL = builtin_scenario("duel")
BOLT = """
name = "bolt"
pulses = 24

[map]
rows = ["#######", "#.....#", "#######"]

[[creatures]]
id = "mage"
template = "human_mage"
at = [1, 1]

[[creatures]]
id = "kobold"
template = "kobold"
at = [4, 1]
hp = 30

[[actions]]
pulse = 0
actor = "mage"
cast = "zap"
target = "kobold"

[content.spells.zap]
type = "energy"
shape = "bolt"
range = 8
damage = "30"
save = "none"
"""
KILLS_UP_TO = 24  # the bolt's damage after the kobold's protections, every seed


@pytest.fixture
def bolt(tmp_path) -> Path:
    path = tmp_path / "bolt.toml"
    path.write_text(BOLT, encoding="utf-8")
    return path


def test_the_bolt_kills_exactly_up_to_24_hit_points(bolt):
    """The fixture's premise, checked: the players win every run at 24 and none at 25."""
    table = affray.sweep(bolt, vary={"creatures.kobold.hp": [KILLS_UP_TO, KILLS_UP_TO + 1]},
                         runs=30)
    winners = table.column("winner").to_pylist()
    assert winners == ["players"] * 30 + [None] * 30
    assert set(table.column("kobold.damage_taken").to_pylist()) == {KILLS_UP_TO}


def test_a_step_in_the_rate_is_found_exactly(bolt):
    """The rate is 100% up to 24 and 0% past it: the solver brackets 24 and 25 (each
    decided by its interval after the first 20 runs), answers 24 (a tie goes to the
    value at or above the target), and the range's ends were run first."""
    result = affray.balance(bolt, "creatures.kobold.hp", 1, 100, side="players", rate=0.5,
                            runs=20)
    assert result.value == KILLS_UP_TO
    assert (result.above.value, result.above.rate) == (KILLS_UP_TO, 1.0)
    assert (result.below.value, result.below.rate) == (KILLS_UP_TO + 1, 0.0)
    values = [step.value for step in result.steps]
    assert values[:2] == [1, 100]
    assert values[2:] == [50, 25, 13, 19, 22, 23, 24]  # halving 1..100 towards 24 | 25
    for step in result.steps:
        assert step.runs == 20 and step.errors == 0
        assert step.verdict == ("above" if step.value <= KILLS_UP_TO else "below")
        assert (step.low, step.high) == pytest.approx(wilson(step.wins, 20, 1.959963984540054))
    assert result.runs == 20 * len(values)
    assert result.message == "every step decided by its interval"


def test_a_range_with_no_break_even_says_so(bolt):
    """Every value of 30..60 survives the bolt: 0% at both ends, no value."""
    result = affray.balance(bolt, "creatures.kobold.hp", 30, 60, side="players", runs=20)
    assert result.value is None and result.below is None and result.above is None
    assert [step.value for step in result.steps] == [30, 60]
    assert result.message == "the rate is below the target at both ends: no break-even in " \
                             "30..60"


def test_on_a_real_rate_each_step_is_a_sweep_of_its_value():
    """The duel's win rate rises with the warrior's hit points. Each step's wins and runs
    are those of a sweep at that value on seeds 0.. (every step on the same seeds);
    runs are added 100 at a time until the 95% interval leaves 50%, or 400 were run;
    the answer's neighbours are one apart, on either side of the target."""
    result = affray.balance(DUEL, "creatures.warrior.hp", 10, 60, side="players", runs=100,
                            max_runs=400)
    below, above = result.below, result.above
    assert above.value - below.value == 1
    assert result.value in (below.value, above.value)
    # each on its side: by its interval, else (undecided after 400 runs) by its rate
    assert below.verdict == "below" or (below.verdict == "undecided" and below.rate < 0.5)
    assert above.verdict == "above" or (above.verdict == "undecided" and above.rate >= 0.5)
    z = 1.959963984540054
    for step in result.steps:
        assert step.runs % 100 == 0 and step.runs <= 400
        table = affray.sweep(DUEL, vary={"creatures.warrior.hp": [step.value]},
                             runs=step.runs)
        won = [winner == "players" for winner in table.column("winner").to_pylist()]
        assert step.wins == sum(won)
        assert (step.low, step.high) == pytest.approx(wilson(step.wins, step.runs, z))
        decided = step.low > 0.5 or step.high < 0.5
        assert (step.verdict != "undecided") == decided
        assert decided or step.runs == 400
        if step.runs > 100:  # it was not decided 100 runs earlier
            low, high = wilson(sum(won[:-100]), step.runs - 100, z)
            assert low <= 0.5 <= high
    values = [step.value for step in result.steps]
    assert values[:2] == [10, 60] and len(set(values)) == len(values)


def test_the_answer_is_the_same_on_two_workers(bolt):
    one = affray.balance(bolt, "creatures.kobold.hp", 1, 40, side="players", runs=20)
    two = affray.balance(bolt, "creatures.kobold.hp", 1, 40, side="players", runs=20,
                         workers=2)
    assert two == one


BAD = {
    "unknown_side": ({"side": "player"}, affray.UsageError,
                     "balance: side 'player' is not one of the scenario's sides (players, "
                     "npcs) (did you mean 'players'?)"),
    "rate_0": ({"rate": 0}, affray.UsageError, "rate must be a number above 0.0 and below 1.0"),
    "rate_1": ({"rate": 1.0}, affray.UsageError, "rate must be a number above 0.0"),
    "rate_nan": ({"rate": float("nan")}, affray.UsageError, "rate must be a number"),
    "rate_text": ({"rate": "half"}, affray.UsageError, "rate must be a number"),
    "confidence_low": ({"confidence": 0.3}, affray.UsageError,
                       "confidence must be a number above 0.5 and below 1.0"),
    "confidence_high": ({"confidence": 0.99999}, affray.UsageError,
                        "confidence must be at most 0.9999"),
    "low_not_below_high": ({"low": 50, "high": 50}, affray.UsageError,
                           "low (50) must be below high (50)"),
    "low_a_float": ({"low": 1.5}, affray.UsageError, "low must be a whole number, got 1.5"),
    "runs_0": ({"runs": 0}, affray.UsageError, "runs must be 1 or more, got 0"),
    "max_runs_below_runs": ({"runs": 300, "max_runs": 200}, affray.UsageError,
                            "max_runs must be 300 or more, got 200"),
    "bad_path": ({"path": "creatures.warior.hp"}, affray.UsageError,
                 "no creature 'warior'"),
    "an_end_the_scenario_refuses": ({"low": 0}, affray.ScenarioError,
                                    "balance: creatures.warrior.hp = 0: creature 'warrior' "
                                    "(creatures[0]), field 'hp': 0 is outside 1..1000000"),
    "a_text_field": ({"path": "creatures.warrior.wield"}, affray.ScenarioError,
                     "creatures.warrior.wield = 10: creature 'warrior' (creatures[0]), field "
                     "'wield': Expected `str`, got `int`"),
    "workers_0": ({"workers": 0}, affray.UsageError, "balance: workers must be 1 or more"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_arguments_are_refused_before_any_run(case, monkeypatch):
    arguments, error, message = BAD[case]
    monkeypatch.setattr(balancing, "run_plan",
                        lambda *a, **k: pytest.fail("a run started before the check"))
    call = {"scenario": DUEL, "path": "creatures.warrior.hp", "low": 10, "high": 60,
            "side": "players", **arguments}
    with pytest.raises(error, match=re.escape(message)):
        affray.balance(**call)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "affray", *args], capture_output=True,
                          text=True, timeout=240, check=False)


def test_the_balance_command_prints_the_value_and_the_rates_on_either_side(bolt):
    result = _cli("balance", str(bolt), "--vary", "creatures.kobold.hp=1:100", "--side",
                  "players", "--runs", "20")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[-1] == (
        "break-even: creatures.kobold.hp = 24 (players win 100.0%, 83.9% - 100.0%, 20 runs); "
        "below the target at 25: 0.0%, 0.0% - 16.1%, 20 runs (every step decided by its "
        "interval)")
    assert any("<- break-even" in line and line.split("│")[1].strip() == "24"
               for line in lines)
    document = json.loads(_cli("balance", str(bolt), "--vary", "creatures.kobold.hp=1:100",
                               "--side", "players", "--runs", "20", "--json").stdout)
    expected = affray.balance(bolt, "creatures.kobold.hp", 1, 100, side="players", runs=20)
    assert document["value"] == 24 and document["runs"] == expected.runs
    assert document["steps"] == json.loads(json.dumps(expected.to_dict()["steps"]))


def test_the_balance_command_exits_1_without_a_break_even(bolt):
    result = _cli("balance", str(bolt), "--vary", "creatures.kobold.hp=30:60", "--side",
                  "players", "--runs", "20")
    assert result.returncode == 1
    assert result.stdout.splitlines()[-1] == (
        "no break-even: the rate is below the target at both ends: no break-even in 30..60")


@pytest.mark.parametrize("args, message", [
    (["--vary", "creatures.kobold.hp=1:100:5"], "the solver takes PATH=LO:HI, no step"),
    (["--vary", "creatures.kobold.hp=1.5:9"], "LO and HI must be whole numbers"),
    (["--vary", "creatures.kobold.hp=1,5"], "expected PATH=LO:HI with whole numbers"),
    (["--vary", "creatures.kobold.hp=1:9", "--rate", "1.5"],
     "argument --rate: must be above 0.0 and below 1.0, got 1.5"),
    (["--vary", "creatures.kobold.hp=1:9", "--runs", "300", "--max-runs", "200"],
     "--max-runs (200) must be at least --runs (300)"),
])
def test_balance_usage_errors_exit_2(bolt, args, message):
    result = _cli("balance", str(bolt), "--side", "players", *args)
    assert result.returncode == 2, result.stderr
    assert message in result.stderr


def test_the_balance_command_shows_its_progress_on_a_terminal(bolt):
    """On a terminal a line says which value runs, its runs and rate so far."""
    from test_cli import _on_a_terminal

    shown = _on_a_terminal("balance", str(bolt), "--vary", "creatures.kobold.hp=1:100",
                           "--side", "players", "--runs", "20", env={"COLUMNS": "160"})
    assert "creatures.kobold.hp = 100: 20 runs, players win 0.0%" in shown, shown
    assert "Traceback" not in shown
