"""Profile the idle pulse: where `world.tick()` spends its time with nobody acting.

    python -m affray.benchmarks.profile_idle [--creatures 10000] [--pulses 200] [--top 15]

The suite says how long an idle pulse takes; this says why, with cProfile over the
pulses only (world building is outside the profile), sorted by cumulative time.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats

from affray.core.grid import Terrain
from affray.data.content_loader import default_content

from .worlds import open_floor, open_floor_side, populate, spread_cells


def profile_idle(creatures: int, pulses: int, top: int, sort: str = "cumulative") -> str:
    """The top `top` cProfile entries of `pulses` idle pulses at `creatures` creatures."""
    content = default_content()
    world = open_floor(content, open_floor_side(creatures))
    try:
        populate(world, content, spread_cells(creatures, world.grid.terrain == Terrain.FLOOR))
        world.run(10)  # warm-up, unprofiled
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(pulses):
            world.tick()
        profiler.disable()
    finally:
        world.close()
    stream = io.StringIO()
    pstats.Stats(profiler, stream=stream).sort_stats(sort).print_stats(top)
    return stream.getvalue()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m affray.benchmarks.profile_idle")
    parser.add_argument("--creatures", type=int, default=10_000)
    parser.add_argument("--pulses", type=int, default=200)
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--sort", default="cumulative", help="a pstats sort key (tottime, ...)")
    args = parser.parse_args()
    print(profile_idle(args.creatures, args.pulses, args.top, args.sort))
