"""Time: pulses, the fixed order of systems, lag counted in pulses.

R-TIME-1, R-TIME-4 (and the queue behaviour of R-LAG-2 the foundation needs).
"""

from __future__ import annotations

import affray
from affray.systems import SCHEDULE

OPEN = """
[map]
rows = [".....", ".....", "....."]
[[creatures]]
id = "walker"
at = [0, 1]
"""


def test_r_time_1_a_tick_is_one_pulse_four_to_a_second(make_world):
    """R-TIME-1: one tick advances the clock one pulse; 4 pulses make a second."""
    world = make_world(OPEN)
    assert world.content.world.pulses_per_second == 4
    assert world.pulse == 0
    world.tick()
    assert world.pulse == 1
    world.run(pulses=7)
    assert world.pulse == 8


def test_r_time_1_wait_counts_down_one_per_pulse(make_world):
    """R-TIME-1 with R-LAG-1/2: a step's wait of 2 pulses lets the next step run exactly
    two pulses later; queued actions wait, first in first out."""
    world = make_world(OPEN)
    assert world.content.world.move_wait == 2
    for x in (1, 2, 3):
        world.submit(affray.Move(actor="walker", to=(x, 1)))
    pulses_moved = []
    for _ in range(8):
        world.tick()
        pulses_moved = [e.pulse for e in world.events if e.kind == "moved"]
    assert pulses_moved == [0, 2, 4]
    assert world.snapshot()["creatures"]["walker"]["at"] == [3, 1]
    assert world.wait_of("walker") == 0


def test_r_time_1_a_cast_costs_its_beats_in_pulses(make_world):
    """R-TIME-1: a spell's beats (12 = one round, 3 s) are pulses of wait."""
    world = make_world(OPEN + '[[creatures]]\nid = "target"\nat = [4, 1]\n')
    world.submit(affray.Cast(actor="walker", spell="spark", target="target"))
    world.submit(affray.Move(actor="walker", to=(1, 1)))
    world.tick()
    assert world.wait_of("walker") == 12
    world.run(pulses=11)
    assert world.wait_of("walker") == 1
    assert not [e for e in world.events if e.kind == "moved"]
    world.tick()
    assert [e.pulse for e in world.events if e.kind == "moved"] == [12]


def test_r_time_4_the_schedule_is_fixed_and_printed():
    """R-TIME-4: Pulse, Stun, Melee, Spell, Arc, Burst, FloorItemLoss, Terrain."""
    names = [system.name for system in SCHEDULE]
    assert names == ["Pulse", "Stun", "Melee", "Spell", "Arc", "Burst", "FloorItemLoss",
                     "Terrain"]
    world = affray.load_scenario(affray.builtin_scenario("demo"))
    try:
        lines = world.schedule.splitlines()
        assert [line.split()[1] for line in lines] == names
    finally:
        world.close()


def test_r_time_4_each_tick_runs_every_system_once_in_order(make_world, monkeypatch):
    """R-TIME-4: every tick runs the eight systems in order, each finishing before the
    next starts."""
    world = make_world(OPEN)
    calls: list[tuple[int, str, str]] = []
    for system in world.systems:
        original = system.process

        def traced(w, system=system, original=original):
            calls.append((w.pulse, system.name, "start"))
            original(w)
            calls.append((w.pulse, system.name, "end"))

        monkeypatch.setattr(system, "process", traced)
    world.tick()  # tick() is one pulse; run() would jump these idle pulses
    world.tick()
    expected = []
    for pulse in (0, 1):
        for system in SCHEDULE:
            expected += [(pulse, system.name, "start"), (pulse, system.name, "end")]
    assert calls == expected


def test_r_time_4_actions_of_a_pulse_run_in_the_pulse_step(make_world):
    """R-TIME-4: an action submitted before tick() runs in that pulse's Pulse step, so
    the Terrain step of the same pulse already sees the creature on its new cell."""
    world = make_world(OPEN)
    world.submit(affray.Move(actor="walker", to=(1, 1)))
    seen = []
    terrain = world.systems[-1]
    original = terrain.process

    def spy(w):
        seen.append(int(w.grid.occupant[1, 1]) == w.entity("walker"))
        original(w)

    terrain.process = spy
    world.tick()
    assert seen == [True]
