"""Resting minds (systems/rules/minds/rest.py): a mind that found nothing to do is not
asked again while nothing within its reach changed, and that changes nothing (R-MIND-1,
R-MIND-7).

The plain rule asks a resting mind again whenever the log grows; the skip leaves out
the askings that provably give the same nothing. Each test runs a world both ways
(`rest.ENABLED`) and asks for the same log, event for event, and, where it matters, for
the askings the skip saved: a far monster is asked once, not every round of a fight in
another corner; one that the change reaches is asked at the pulse the plain rule asks it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import numpy as np
import pytest
from conftest import world_from_text
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_minds import scenario
from test_minds_properties import worlds

import affray
from affray.core.grid import Grid, Terrain
from affray.data.armies import army
from affray.systems.rules import minds
from affray.systems.rules.minds import rest

FIELD = ["." * 40] * 40
FIGHT = [("hero", (1, 1), "player = true\nhp = 3000"),
         ("troll", (2, 1), 'template = "orc_brute"\nhp = 3000\nfighting = "hero"')]
FAR = [("far1", (30, 30), 'template = "orc_brute"\nmind = "brute"'),
       ("far2", (35, 5), 'template = "orc_brute"\nmind = "brute"'),
       ("far3", (5, 35), 'template = "orc_brute"\nmind = "brute"')]


@pytest.fixture
def asked(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counter[str]]:
    """How many times each creature's mind is asked (`minds.think`)."""
    counts: Counter[str] = Counter()
    think = minds.think

    def counting(world, sheet):
        counts[sheet.id] += 1
        return think(world, sheet)

    monkeypatch.setattr(minds, "think", counting)
    yield counts


def both_ways(text: str, pulses: int, monkeypatch: pytest.MonkeyPatch,
              between: object = None) -> tuple[list[dict], list[dict]]:
    """The log of `text` run `pulses` with the plain rule and with the skip; `between`
    (a function of the world) runs at half time in both."""
    logs = []
    for enabled in (False, True):
        monkeypatch.setattr(rest, "ENABLED", enabled)
        world = world_from_text(text)
        world.run(pulses=pulses // 2)
        if callable(between):
            between(world)
        world.run(pulses=pulses - pulses // 2)
        logs.append([event.to_dict() for event in world.events])
        world.close()
    return logs[0], logs[1]


def test_r_mind_7_a_far_monster_is_asked_once_not_every_round(asked, monkeypatch):
    """R-MIND-7: three brutes far from a long fight rest; the plain rule asks them again
    at every round (the fight grows the log), the skip at most once (none when no
    creature of another side is within sight + 1: `minds.nothing_near`); same log."""
    text = scenario(FIELD, FIGHT + FAR)
    monkeypatch.setattr(rest, "ENABLED", False)
    plain = world_from_text(text)
    plain.run(pulses=200)
    plain_asked = {cid: asked[cid] for cid in ("far1", "far2", "far3")}
    asked.clear()
    monkeypatch.setattr(rest, "ENABLED", True)
    resting = world_from_text(text)
    resting.run(pulses=200)
    assert [e.to_dict() for e in plain.events] == [e.to_dict() for e in resting.events]
    assert all(count > 10 for count in plain_asked.values()), plain_asked
    assert all(asked[cid] <= 1 for cid in ("far1", "far2", "far3")), asked


def test_r_mind_1_a_change_in_reach_wakes_it_at_the_pulse_the_plain_rule_does(
        monkeypatch):
    """R-MIND-1: a foe that walks into a resting brute's sight is seen at once: the brute
    goes for it at the same pulse either way (the step onto a cell in its reach stamps
    it). The negative of the far monster: a change in reach is never skipped."""
    walker = [("walker", (10, 20), "player = true\nhp = 500")]
    brute = [("brute", (20, 20), 'template = "orc_brute"\nmind = "brute"')]
    text = scenario(FIELD, FIGHT + walker + brute)

    def walk(world: affray.World) -> None:
        for x in range(11, 14):
            world.submit(affray.Move(actor="walker", to=(x, 20)))
            world.run(pulses=4)

    plain, skipped = both_ways(text, 80, monkeypatch, between=walk)
    assert plain == skipped
    went = [e for e in skipped if e["kind"] == "moved" and e["target"] == "brute"]
    assert went, "the brute never went for the walker"


def test_r_mind_4_a_fight_that_starts_in_sight_wakes_a_resting_guard(monkeypatch):
    """R-MIND-4: a guard rests beside two who stand apart; when one of its side attacks
    the other (nobody steps: the fight's start is the only change), the guard joins at
    the pulse the plain rule has it join."""
    party = [("guard", (20, 20), 'template = "orc_brute"\nmind = "guard"'),
             ("kobold", (24, 20), 'template = "kobold"\nhp = 500'),
             ("paladin", (25, 20), "player = true\nhp = 2000")]
    text = scenario(FIELD, FIGHT + party)

    def attack(world: affray.World) -> None:
        world.submit(affray.Attack(actor="kobold", target="paladin"))

    plain, skipped = both_ways(text, 80, monkeypatch, between=attack)
    assert plain == skipped
    assert any(e["kind"] == "fight" and e["source"] == "guard" and e["why"] == "assist"
               for e in skipped)


def test_r_mind_7_a_newcomer_is_noticed(monkeypatch):
    """R-MIND-7: a game adds a foe beside a resting brute (no event: `stir`); every
    record is forgotten, so it is asked and attacks, as with the plain rule."""
    brute = [("brute", (20, 20), 'template = "orc_brute"\nmind = "brute"')]
    text = scenario(FIELD, FIGHT + brute)

    def arrive(world: affray.World) -> None:
        world.spawn("newcomer", (21, 20), template="human_warrior", side="players")

    plain, skipped = both_ways(text, 60, monkeypatch, between=arrive)
    assert plain == skipped
    assert any(e["kind"] == "fight" and e["source"] == "brute" for e in skipped)


def test_r_mind_7_a_game_s_mind_is_asked_as_the_plain_rule_says(asked, monkeypatch):
    """R-MIND-7: a registered mind may read anything, so it is never skipped: it is
    asked every time the log has grown, far from the fight or not."""
    affray.register_mind("idle", lambda view, actor: None)
    try:
        idle = [("idler", (30, 30), 'template = "orc_brute"\nmind = "idle"')]
        text = scenario(FIELD, FIGHT + idle)
        monkeypatch.setattr(rest, "ENABLED", True)
        world = world_from_text(text)
        world.run(pulses=200)
        rounds = len({e.pulse for e in world.events if e.kind == "damage"})
        assert asked["idler"] >= rounds > 10
        world.close()
    finally:
        affray.unregister_mind("idle")


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_r_mind_7_battles_give_the_plain_rule_s_log(seed, monkeypatch):
    """R-MIND-7: two armies of 24 (warriors, levies that run, archers that keep range
    and shoot, mages with fireball) march, fight and rout: the log, to the last event,
    is the plain rule's."""
    plain, skipped = both_ways(army(24, seed=seed), 700, monkeypatch)
    assert plain == skipped
    assert sum(e["kind"] == "death" for e in skipped) > 5  # they did fight


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(made=worlds(), newcomer=st.booleans())
def test_r_mind_7_random_worlds_give_the_plain_rule_s_log(made, newcomer):
    """R-MIND-7 over random maps (walls, water, ice, doors), sides and minds, with or
    without a creature added half-way: the same log both ways."""
    def arrive(world: affray.World) -> None:
        if not newcomer:
            return
        grid = world.grid
        free = np.argwhere((grid.occupant == 0) & ~grid.shut
                           & (grid.terrain != Terrain.WALL))
        if len(free):
            y, x = (int(v) for v in free[0])
            world.spawn("late", (x, y), template="kobold", mind="brute")

    with pytest.MonkeyPatch.context() as patch:
        plain, skipped = both_ways(made, 160, patch, between=arrive)
    assert plain == skipped


def test_stirs_blocks_hold_what_changed_near_a_cell():
    """The stamps: a block of 8 x 8 cells; a change is near a cell when its block meets
    the cells within the reach (a block may say near for a change just out of reach,
    never not near for one in it)."""
    stirs = rest.Stirs.of(Grid(np.zeros((20, 19), dtype=np.uint8)))
    assert stirs.blocks.shape == (3, 3)
    stirs.stamp(7, 7)
    assert stirs.changed_near(7, 7, 0, since=0)
    assert not stirs.changed_near(8, 8, 0, since=0)  # the next block
    assert stirs.changed_near(8, 8, 1, since=0)
    assert not stirs.changed_near(7, 7, 0, since=1)  # not after the clock's 1
    assert not stirs.changed_near(18, 19, 5, since=0)
    assert not stirs.changed_near(18, 19, 11, since=0)  # rows 8.. only: not block 0
    assert stirs.changed_near(18, 19, 12, since=0)  # 19 - 12 = 7: the stamped block
    assert stirs.changed_near(0, 0, 30, since=0)  # a reach past the map's edges


@settings(max_examples=300, deadline=None)
@given(height=st.integers(1, 40), width=st.integers(1, 40),
       stamps=st.lists(st.tuples(st.integers(0, 39), st.integers(0, 39)), max_size=12),
       x=st.integers(0, 39), y=st.integers(0, 39), reach=st.integers(0, 60),
       since=st.integers(0, 12))
def test_changed_near_is_a_stamp_after_since_in_a_block_the_reach_meets(
        height, width, stamps, x, y, reach, since):
    """R-MIND-7's coarse change test, read straight: a block stamped after `since` that
    holds a cell within `reach` of (x, y). A reach that meets every block answers from
    the clock alone; it must say what the blocks say, and a stamp at or before `since`
    is no change."""
    stirs = rest.Stirs.of(Grid(np.zeros((height, width), dtype=np.uint8)))
    for sx, sy in stamps:
        stirs.stamp(sx % width, sy % height)
    x, y = x % width, y % height
    expected = any(
        stirs.blocks[by, bx] > since
        for by in range(stirs.blocks.shape[0]) for bx in range(stirs.blocks.shape[1])
        if any(max(abs(cx - x), abs(cy - y)) <= reach
               for cy in range(by * 8, min(height, by * 8 + 8))
               for cx in range(bx * 8, min(width, bx * 8 + 8))))
    assert stirs.changed_near(x, y, reach, since) == expected


def test_the_sight_cache_keeps_at_most_its_limit_the_oldest_going_first():
    """Minds' fields of view and distance maps (`World.sight_cache`) hold at most their
    limit of array bytes; past it the entries put in longest ago go, one put in again
    goes to the back; a world that loses them decides the same (the battles above run
    with the default limit, this one with room for a handful)."""
    from affray.systems.rules.sight_cache import SightCache
    from affray.systems.rules.walking import Field

    def field(cells: int) -> Field:
        return Field(0, (), (0, 0), 1, 0, 0, np.zeros(cells, dtype=np.int32))

    cache = SightCache(limit=1000)
    cache["a"], cache["b"] = field(100), field(100)  # 400 bytes each
    cache["a"] = field(100)  # to the back: "b" is now the oldest
    cache["c"] = field(100)
    assert "b" not in cache and "a" in cache and "c" in cache and cache.bytes == 800
    cache["huge"] = field(10_000)  # past the limit alone: it stays, the rest go
    assert len(cache) == 1 and cache.get("huge") is not None and cache.get("a") is None


def test_r_mind_7_a_small_sight_cache_gives_the_same_battle(monkeypatch):
    """R-MIND-7: with a sight cache that holds a few fields, every field is worked out
    again: the log is the one the default cache gives."""
    from affray.systems.rules import sight_cache

    plain = world_from_text(army(24, seed=1))
    plain.run(pulses=500)
    monkeypatch.setattr(sight_cache, "MAX_BYTES", 20_000)
    small = world_from_text(army(24, seed=1))
    assert small.sight_cache.limit == 20_000
    small.run(pulses=500)
    assert [e.to_dict() for e in plain.events] == [e.to_dict() for e in small.events]
    assert small.sight_cache.bytes <= 20_000 or len(small.sight_cache) == 1
