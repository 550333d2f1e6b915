"""Whole casts through `World.tick`: a burst into a crowd, lightning into a crowded lake.

A cast's cost is its shape plus one strike (save, damage pipeline, type rules) per
creature it reaches, plus, for electricity, the water spread and the arcs (R-ELEC-*).
Rows, each the median over repeats of the one pulse the cast resolves in:

- a radius-5 fire burst into a square crowd of 1,000 creatures (it strikes the 121 on
  its cells), per cast and per creature struck;
- a spark into one lake holding 10,000 creatures (100 x 100 water, one on every cell):
  the water carries it to all of them (issue 21: 20 ms or less), per cast and per creature
  struck.

Creatures have enough hit points never to die, so every repeat strikes the same crowd;
the caster's beats pass between repeats with `run` (idle pulses are jumped).
"""

from __future__ import annotations

import time

import affray
from affray.data.scenario import build_world, parse_scenario

from .timing import Result, result_from

_SPELLS = """
[content.spells.bench_burst]
type = "fire"
shape = "burst"
range = 30
radius = 5
damage = "2d6"

[content.spells.bench_spark]
type = "electricity"
shape = "bolt"
range = 4
damage = "2d6"
"""


def _crowd_world(side: int, terrain: str, caster_at: tuple[int, int]) -> affray.World:
    """A side x side map of one terrain, a creature on every cell but the caster's row
    above it, all with hit points that never run out."""
    rows = ["." * side] + [terrain * side for _ in range(side)]
    lines = [f"seed = 3\n[map]\nrows = {rows!r}\n".replace("'", '"'), _SPELLS]
    lines.append(f'[[creatures]]\nid = "caster"\nat = [{caster_at[0]}, {caster_at[1]}]\n'
                 f"level = 40\nhp = 1000000\n")
    for y in range(1, side + 1):
        for x in range(side):
            lines.append(f'[[creatures]]\nid = "c{x}_{y}"\nat = [{x}, {y}]\n'
                         f"hp = 1000000\n")
    spec, raw = parse_scenario("".join(lines), "bench")
    return build_world(spec, raw, "bench")


def _time_casts(world: affray.World, spell: str, target: str | tuple[int, int],
                repeats: int) -> tuple[list[float], int]:
    times: list[float] = []
    struck = 0
    for _ in range(repeats + 1):  # the first cast warms caches, untimed
        world.submit(affray.Cast(actor="caster", spell=spell, target=target))
        start_events = len(world.events)
        start = time.perf_counter()
        world.tick()
        elapsed = time.perf_counter() - start
        struck = sum(1 for event in world.events[start_events:] if event.kind == "damage")
        times.append(elapsed)
        world.events.clear()
        world.run(40)
    return times[1:], struck


def spell_casts(burst_repeats: int, lake_side: int, lake_repeats: int) -> list[Result]:
    """The rows of the module docstring; `lake_side` 100 is the 10,000-creature lake."""
    rows: list[Result] = []
    world = _crowd_world(32, ".", (16, 0))
    try:
        times, struck = _time_casts(world, "bench_burst", (16, 16), burst_repeats)
    finally:
        world.close()
    rows.append(result_from("fire burst r5 into a crowd", "1,024 creatures", "cast", 1, times,
                            value=struck))
    rows.append(result_from("fire burst r5 into a crowd", "per creature struck", "strike",
                            struck, times))
    world = _crowd_world(lake_side, "~", (lake_side // 2, 0))
    creatures = lake_side * lake_side
    try:
        target = f"c{lake_side // 2}_1"
        times, struck = _time_casts(world, "bench_spark", target, lake_repeats)
    finally:
        world.close()
    rows.append(result_from("spark into a crowded lake", f"{creatures:,} creatures", "cast", 1,
                            times, value=struck))
    rows.append(result_from("spark into a crowded lake", "per creature struck", "strike",
                            struck, times))
    return rows
