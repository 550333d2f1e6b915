"""Movement points end to end (issue 9): a player pays per blow, a blow it cannot pay
for is a `too_tired` event, and movement regenerates once a tick (content
`fight.movement`), computed lazily so that a jump over idle pulses gives exactly what
single pulses would."""

from __future__ import annotations

import pytest

from affray.data.defs import MovementConfig
from affray.display.text import render_event

SURE = ("[content.fight]\nauto_miss_in_20 = 0\nauto_critical_in_20 = 0\n"
        "[content.fight.armor]\np_floor = 1.0\np_cap = 1.0\n")
TOUGH = "level = 10\nhp = 100000"


def log(world) -> list[tuple[int, str]]:
    return [(e.pulse, e.kind) for e in world.events
            if e.kind in ("damage", "miss", "defended", "immune", "too_tired")
            and e.source == "a"]


def tired_player(duel, move: int = 2, level: int = 10):
    world = duel(f"player = true\nlevel = {level}\nhp = 1000\nmove = {move}", TOUGH,
                 extra=SURE)
    world.start_fight("a", "v")
    return world


def test_a_tired_player_strikes_nothing_and_says_so(duel):
    """A level-10 player pays 1 movement point a blow: with 2 it strikes at pulses 0 and
    12; at 24 it has none: a `too_tired` event with player text, and no blow."""
    world = tired_player(duel)
    world.run(pulses=25)
    assert log(world) == [(0, "damage"), (12, "damage"), (24, "too_tired")]
    tired = next(e for e in world.events if e.kind == "too_tired")
    assert render_event(tired) == "a is too tired to strike v."
    assert world.sheet("a").vitals.move == 0


def test_movement_comes_back_once_a_tick_and_the_player_strikes_again(duel):
    """The tick at pulse 240 gives a level-10 player max(15, 10) = 15 points: too tired
    on every round from 24 to 228, striking again at 240 (15 - 1 = 14 left)."""
    world = tired_player(duel)
    world.run(pulses=241)
    entries = log(world)
    assert [p for p, kind in entries if kind == "too_tired"] == list(range(24, 240, 12))
    assert entries[-1] == (240, "damage")
    assert world.sheet("a").vitals.move == 14


@pytest.mark.parametrize(("level", "move", "pulses", "expected"), [
    (10, 0, 1008, 60),     # ticks at 240, 480, 720, 960: 4 x 15
    (40, 0, 468, 40),      # one tick (240): max(15, 40)
    (40, 0, 480, 80),      # the tick at 480 counts on its own pulse
    (50, 90, 240, 100),    # never above max_move
    (10, 100, 4992, 100),  # full stays full
])
def test_a_jump_over_idle_pulses_regenerates_as_single_pulses_do(make_world, level, move,
                                                                  pulses, expected):
    """World.run jumps idle pulses; the points a player has when it next strikes are the
    same as after the same pulses one by one (a reference model: a gain on every
    multiple of 240, counted to the pulse it strikes on, a round pulse), and the two logs
    are byte for byte the same."""
    text = ('name = "regen"\n[map]\nrows = ["...."]\n[[creatures]]\nid = "a"\nat = [0, 0]\n'
            f"player = true\nlevel = {level}\nmove = {move}\nhp = 1000\n"
            f'[[creatures]]\nid = "v"\nat = [1, 0]\n{TOUGH}\n{SURE}')
    jumped, stepped = make_world(text, seed=5), make_world(text, seed=5)
    jumped.run(pulses=pulses)
    for _ in range(pulses):
        stepped.tick()
    assert jumped.pulse == stepped.pulse == pulses
    for world in (jumped, stepped):
        world.start_fight("a", "v")
        world.run(pulses=1)
    gain = max(15, level)
    reference = move
    for pulse in range(1, pulses + 1):  # the strike is on pulse `pulses` itself
        if pulse % 240 == 0 and reference < 100:
            reference = min(100, reference + gain)
    assert reference == expected
    paid = max(level // 20, 1) if expected else 0  # min(max(level/20, 1), move)
    assert jumped.sheet("a").vitals.move == stepped.sheet("a").vitals.move == expected - paid
    assert [e.to_dict() for e in jumped.events] == [e.to_dict() for e in stepped.events]


def test_an_npc_regenerates_its_level_and_its_movement_counts_when_struck(duel):
    """An NPC gains its level a tick (it never pays for blows, but a scenario can start
    it at 0, which halves its evasion): level 7, 0 points, struck at pulse 480: 14."""
    world = duel(TOUGH, "level = 7\nhp = 1000\nmove = 0", extra=SURE)
    world.run(pulses=480)
    world.start_fight("a", "v")
    world.tick()
    assert world.sheet("v").vitals.move == 14


def test_the_movement_knobs_come_from_content(duel):
    """The rate is content: a tick of 12 pulses and a floor of 1 (level 1) gives a
    level-1 player one point a round: it strikes every round after its first."""
    knobs = "[content.fight.movement]\ntick_pulses = 12\nplayer_min = 1\n"
    world = duel("player = true\nlevel = 1\nhp = 1000\nmove = 1", TOUGH, extra=SURE + knobs)
    assert world.content.fight.movement == MovementConfig(tick_pulses=12, player_min=1,
                                                          max_move=100)
    world.start_fight("a", "v")
    world.run(pulses=37)
    assert log(world) == [(0, "damage"), (12, "damage"), (24, "damage"), (36, "damage")]


def test_movement_ticks_count_from_the_last_update_not_from_zero(duel):
    """Each refresh adds only the ticks since the last one: the tired player gets 15 at
    240, spends it by pulse 408, and gets 15 more at 480 (not the two ticks since pulse
    0 again): 15 - 1 after the blow at 480 = 14."""
    world = tired_player(duel)
    world.run(pulses=481)
    assert world.sheet("a").vitals.move == 14


def test_movement_above_the_maximum_is_kept(duel):
    """A scenario may give more than max_move: regeneration never takes points away
    (300 stays 300 over a tick, less what the blows cost)."""
    world = duel("player = true\nlevel = 10\nhp = 1000\nmove = 300", TOUGH, extra=SURE)
    world.start_fight("a", "v")
    world.run(pulses=241)
    blows = len([e for e in world.events if e.kind == "damage" and e.source == "a"])
    assert world.sheet("a").vitals.move == 300 - blows
