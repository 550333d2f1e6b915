"""Misuses of the Python API (issue 10): each raises an `affray.AffrayError` subclass and
changes nothing (R-ENG-2: an invalid action or call leaves the world as it was).

Where a misuse raised a plain Python error before (TypeError, ValueError, KeyError,
RuntimeError), the affray error is also of that type, so old `except` clauses still work.
"""

from __future__ import annotations

import json

import pytest
from conftest import duel_text, world_from_text

import affray
from affray.components import Vitals


@pytest.fixture
def world():
    """"a" at [1, 1] beside "v" at [2, 1] in a 5x3 room, plus "far" at [4, 2]."""
    made = world_from_text(duel_text(extra='[[creatures]]\nid = "far"\nat = [4, 2]\n'))
    yield made
    made.close()


def state(world: affray.World) -> str:
    """Everything observable: the snapshot, the log, the pulse and the queues."""
    return json.dumps({"snapshot": world.snapshot(), "pulse": world.pulse,
                       "events": [e.to_dict() for e in world.events],
                       "ready": sorted(world.ready), "fighting": sorted(world.fighting)},
                      sort_keys=True)


MISUSES = {
    "run_negative": (lambda w: w.run(-1), affray.UsageError, "0 or more"),
    "run_string": (lambda w: w.run("x"), affray.UsageError, "whole number"),
    "run_float": (lambda w: w.run(2.5), affray.UsageError, "whole number"),
    "run_bool": (lambda w: w.run(True), affray.UsageError, "whole number"),
    "run_until_unknown": (lambda w: w.run(until="forever"), affray.UsageError, "until"),
    "set_wait_unknown_id": (lambda w: w.set_wait("ghost", 3), affray.UnknownCreatureError,
                            "unknown creature 'ghost'"),
    "set_wait_negative": (lambda w: w.set_wait("a", -1), affray.UsageError, "0 or more"),
    "set_wait_string": (lambda w: w.set_wait("a", "x"), affray.UsageError, "whole number"),
    "set_wait_past_32_bits": (lambda w: w.set_wait("a", 2**40), affray.UsageError,
                              "at most 2147483647"),
    "set_daze_past_32_bits": (lambda w: w.set_daze("a", 2**31), affray.UsageError,
                              "at most"),
    "run_past_the_clock": (lambda w: w.run(10**30), affray.UsageError, "at most"),
    "set_daze_unknown_id": (lambda w: w.set_daze("ghost", 1), affray.UnknownCreatureError,
                            "'ghost'"),
    "wait_of_unknown_id": (lambda w: w.wait_of("ghost"), affray.UnknownCreatureError,
                           "'ghost'"),
    "component_unknown_id": (lambda w: w.component("ghost", Vitals),
                             affray.UnknownCreatureError, "'ghost'"),
    "sheet_unhashable_id": (lambda w: w.sheet(["a"]), affray.UnknownCreatureError,
                            "unknown creature"),
    "start_fight_unknown_attacker": (lambda w: w.start_fight("ghost", "v"),
                                     affray.UnknownCreatureError, "'ghost'"),
    "start_fight_unknown_victim": (lambda w: w.start_fight("a", "ghost"),
                                   affray.UnknownCreatureError, "'ghost'"),
    "start_fight_not_adjacent": (lambda w: w.start_fight("a", "far"), affray.ActionError,
                                 "not beside"),
    "start_fight_itself": (lambda w: w.start_fight("a", "a"), affray.ActionError,
                           "cannot fight itself"),
    "add_affect_unknown": (lambda w: w.add_affect("a", "flying"), affray.ActionError,
                           "unknown affect"),
    "add_affect_unknown_id": (lambda w: w.add_affect("ghost", "blind"),
                              affray.UnknownCreatureError, "'ghost'"),
    "remove_affect_unknown_id": (lambda w: w.remove_affect("ghost", "blind"),
                                 affray.UnknownCreatureError, "'ghost'"),
    "damage_unknown_type": (lambda w: w.damage("a", "v", 5, "boredom"), affray.ActionError,
                            "unknown damage type"),
    "damage_negative": (lambda w: w.damage("a", "v", -5, "fire"), affray.ActionError,
                        "0 or more"),
    "damage_unknown_target": (lambda w: w.damage("a", "ghost", 5, "fire"),
                              affray.ActionError, "'ghost'"),
    "damage_amount_string": (lambda w: w.damage("a", "v", "x", "fire"), affray.ActionError,
                             "whole number"),
    "damage_amount_float": (lambda w: w.damage("a", "v", 2.5, "fire"), affray.ActionError,
                            "whole number"),
    "damage_flags_a_string": (lambda w: w.damage("a", "v", 3, "fire", flags="spell"),
                              affray.ActionError, "tuple of flag names"),
    "add_affect_level_string": (lambda w: w.add_affect("a", "blind", level="x"),
                                affray.UsageError, "level must be a whole number"),
    "submit_not_an_action": (lambda w: w.submit("attack v"), affray.ActionError,
                             "not an action"),
    "submit_unknown_actor": (lambda w: w.submit(affray.Attack(actor="ghost", target="v")),
                             affray.ActionError, "unknown actor"),
    "submit_attack_far": (lambda w: w.submit(affray.Attack(actor="a", target="far")),
                          affray.ActionError, "out of range"),
    "submit_attack_itself": (lambda w: w.submit(affray.Attack(actor="a", target="a")),
                             affray.ActionError, "itself"),
    "submit_move_off_map": (lambda w: w.submit(affray.Move(actor="a", to=(99, 99))),
                            affray.ActionError, "out of bounds"),
    "submit_move_not_a_cell": (lambda w: w.submit(affray.Move(actor="a", to="north")),
                               affray.ActionError, "must be a cell"),
    "submit_unknown_spell": (lambda w: w.submit(affray.Cast(actor="a", spell="wish",
                                                            target="v")),
                             affray.ActionError, "unknown spell"),
    "submit_unknown_via": (lambda w: w.submit(affray.Cast(actor="a", spell="fireball",
                                                          target="v", via="telepathy")),
                           affray.ActionError, "unknown via"),
}


@pytest.mark.parametrize("case", sorted(MISUSES))
def test_api_misuse_is_an_affray_error_and_changes_nothing_r_eng_2(world, case):
    """R-ENG-2: every misuse raises an AffrayError subclass with a clear message, and the
    world is exactly as before (snapshot, log, pulse, queues, fights)."""
    call, error, fragment = MISUSES[case]
    before = state(world)
    with pytest.raises(error, match=fragment) as caught:
        call(world)
    assert isinstance(caught.value, affray.AffrayError)
    assert state(world) == before


def test_old_except_clauses_still_catch_the_new_errors(world):
    """UsageError is a TypeError and a ValueError; UnknownCreatureError a KeyError; a
    closed world's error a RuntimeError; SaveError an OSError."""
    with pytest.raises(TypeError):
        world.run("x")
    with pytest.raises(ValueError):
        world.run(-1)
    with pytest.raises(KeyError):
        world.set_wait("ghost", 1)
    assert str(affray.UnknownCreatureError("unknown creature 'x'")) == "unknown creature 'x'"
    world.close()
    with pytest.raises(RuntimeError):
        world.tick()


@pytest.mark.parametrize("call", ["tick", "run", "snapshot", "submit", "save", "set_wait"])
def test_a_closed_world_refuses_every_call(tmp_path, call):
    """`tick()` (or anything) after `close()` is a ClosedWorldError, never a silent use of
    another world's esper context."""
    made = world_from_text(duel_text())
    made.close()
    calls = {"tick": lambda: made.tick(), "run": lambda: made.run(3),
             "snapshot": lambda: made.snapshot(),
             "submit": lambda: made.submit(affray.Move(actor="a", to=(1, 0))),
             "save": lambda: made.save(str(tmp_path / "x.sav")),
             "set_wait": lambda: made.set_wait("a", 2)}
    with pytest.raises(affray.ClosedWorldError, match="closed"):
        calls[call]()
    assert not (tmp_path / "x.sav").exists()


@pytest.mark.parametrize("seed, error", [(-1, "0.."), ("x", "whole number"),
                                         (1.5, "whole number"), (True, "whole number"),
                                         (2**63, "0.."), ([7], "whole number")])
def test_load_scenario_rejects_a_bad_seed(tmp_path, seed, error):
    """`load_scenario(path, seed=...)`: a UsageError, not numpy's ValueError/TypeError."""
    path = tmp_path / "duel.toml"
    path.write_text(duel_text(), encoding="utf-8")
    with pytest.raises(affray.UsageError, match=error):
        affray.load_scenario(path, seed=seed)


def test_load_scenario_rejects_a_path_that_is_no_path():
    with pytest.raises(affray.UsageError, match="path must be a str or Path"):
        affray.load_scenario(42)


def test_a_save_that_cannot_be_written_is_a_save_error_and_an_oserror(world, tmp_path):
    """A save into a missing folder or onto a folder: SaveError naming the path, which is
    also an OSError so `except OSError` still works."""
    for target in (tmp_path / "no" / "such" / "dir.sav", tmp_path):
        with pytest.raises(affray.SaveError, match="cannot write the save") as caught:
            world.save(str(target))
        assert isinstance(caught.value, OSError)
        assert str(target) in str(caught.value)
    assert list(tmp_path.iterdir()) == []


def test_builtin_scenario_is_a_path_and_an_unknown_one_is_an_error():
    """The README's `affray.builtin_scenario("demo")` is a path to give load_scenario."""
    path = affray.builtin_scenario("demo")
    with affray.load_scenario(path) as world:
        assert world.creature_ids()
    with pytest.raises(affray.ScenarioError, match="no built-in scenario named 'nope'"):
        affray.builtin_scenario("nope")


@pytest.mark.parametrize("path", [5, None, ["a.sav"]])
def test_load_world_rejects_a_path_that_is_no_path(path):
    with pytest.raises(affray.UsageError, match="load_world: path must be a str or Path"):
        affray.load_world(path)
