"""A pack's tally from its unbuilt log (engine/runners/pack_tally.py) is `batch.Tally`'s.

`PackTally` sums the vectorised round's blows as columns instead of building each blow's
event; these tests play packs of built-in scenarios (melee, spells, water, doors) and
check every figure against `Tally` reading the same log built, creature by creature:
damage taken and dealt by type (a type present at 0 included), hits taken and landed,
death pulses and kills. Also a game's plain list as the log, and a lazy block whose
source cannot give columns (built and read as events).
"""

from __future__ import annotations

import pytest

import affray.runners.packing as packing
from affray.core.event_log import EventLog
from affray.core.events import Damage, Death
from affray.data.scenario import builtin_scenario
from affray.runners.batch import Tally, prepare
from affray.runners.pack_tally import PackTally


def _pack(name: str, copies: int, seed: int):  # type: ignore[no-untyped-def]
    job = packing.pack_job(prepare(builtin_scenario(name)), copies)
    world = packing.build_pack(job, copies, seed)
    packing.play_pack(world, job)
    names = [packing.copy_id(creature, copy) for copy in range(copies)
             for creature in job.creatures]
    return world, job, names


def _figures_of_tally(world, job, names):  # type: ignore[no-untyped-def]
    tally = Tally(world, packing._Names(tuple(names), job.sides))  # builds the log
    return ([tally.taken[n] for n in names], [tally.struck[n] for n in names],
            [tally.dealt[n] for n in names], [tally.hits[n] for n in names],
            [tally.died[n] for n in names], [tally.kills[n] for n in names])


def _figures_of_pack(log, names):  # type: ignore[no-untyped-def]
    tally = PackTally(names).read(log)
    taken, struck, dealt, hits = tally.figures()
    return (taken, struck, dealt, hits, [tally.died[n] for n in names],
            [tally.kills[n] for n in names])


@pytest.mark.parametrize(("name", "copies", "seed"), [
    ("duel", 300, 4), ("skirmish", 20, 1), ("door_blast", 12, 2),
    ("frozen_bridge", 12, 5), ("lake_storm", 6, 3)])
def test_a_pack_s_tally_from_columns_is_tally_s_from_events(name, copies, seed) -> None:
    """Every figure of every creature of the pack, from the log still held as columns,
    equals Tally's from the log built."""
    world, job, names = _pack(name, copies, seed)
    try:
        log = world.events
        had_columns = log.pending
        fast = _figures_of_pack(log, names)
        assert log.pending == had_columns  # the tally built nothing
        slow = _figures_of_tally(world, job, names)
        assert fast == slow
        if name == "duel":  # the blows were summed as columns, and a death was counted
            assert had_columns
            assert sum(fast[1]) > 0 and any(pulse is not None for pulse in fast[4])
            assert sum(fast[5]) == sum(pulse is not None for pulse in fast[4])
    finally:
        world.close()


def test_a_game_s_plain_list_log_is_tallied_as_events() -> None:
    """A game that replaced the log with a plain list gets the same figures."""
    world, job, names = _pack("duel", 40, 9)
    try:
        expected = _figures_of_tally(world, job, names)
        assert _figures_of_pack(list(world.events), names) == expected
    finally:
        world.close()


class _ObjectsOnly:
    """A lazy source that can only build its events (no `damage_columns`)."""

    def __init__(self, events: list) -> None:
        self.events = events

    def objects(self) -> list:
        return self.events


def test_a_block_without_columns_is_built_and_read_as_events() -> None:
    """Worked example: a block of three events (two hits of two types, one of 0, on b;
    b's death by a) and an event outside it. a deals 7+0 of two types and kills once;
    b takes them, is struck three times (the scripted 5 has no dealer) and dies at 3."""
    block = [Damage(1, "a", "b", 7, 7, "slash", "melee", None, False, False, None),
             Damage(2, "a", "b", 0, 4, "fire", "spell", None, False, False, None),
             Death(3, "b", "a")]
    log = EventLog([Damage(0, None, "b", 5, 5, "slash", "script", None, False, False,
                           None)])
    log.push_lazy(_ObjectsOnly(block), 0, 3)
    taken, struck, dealt, hits, died, kills = _figures_of_pack(log, ["a", "b"])
    assert taken == [{}, {"slash": 12, "fire": 0}]
    assert struck == [0, 3]
    assert dealt == [{"slash": 7, "fire": 0}, {}]
    assert hits == [2, 0]
    assert died == [None, 3] and kills == [1, 0]


def test_a_damage_event_on_no_tallied_creature_is_an_error_as_in_tally() -> None:
    """Tally refuses a damage event whose target is not one of the run's creatures (a
    KeyError, the batch's error row); the pack's tally does the same."""
    log = [Damage(0, None, "ghost", 5, 5, "slash", "script", None, False, False, None)]
    with pytest.raises(KeyError):
        PackTally(["a"]).read(log)
