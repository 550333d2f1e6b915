"""Big battles: one combat round of many fighters, vectorised and scalar (issue 12).

Rows, in one run so the machine's load is shared:
- a round of N fighters in N/2 pairs (armed players with shields and sanctuary, as
  blows.py) on the vectorised path and on the scalar path (World.vectorise "never"),
  the median of the rounds timed (World.tick on a round pulse). The vectorised round
  keeps its columns between rounds (World.volley_cache): the first round reads every
  fighter and is slower (its time is in the row's note), the median is a steady round;
- the bare numpy round: to-hit and dice damage for as many blows, subtracted from an hp
  array: the floor a Python engine can reach, which the vectorised round is measured
  against (target: within 30x);
- the same vectorised round with its events read (built into objects: the log keeps a
  vectorised round's events as columns until read, engine/core/event_log.py), what a game
  that renders every event pays; the scalar row is compared with this one;
- the crossover: the smallest fighter count at which the vectorised round beats the
  scalar one (the vectorised path forced on from 2 fighters), the figure behind
  content/fight.toml's `vectorise_min_fighters`; both with their events read.
"""

from __future__ import annotations

import time

import numpy as np

from affray.data.content_loader import Content

from .blows import fighting_pairs
from .timing import Result, result_from


def round_times(content: Content, fighters: int, mode: str, rounds: int,
                read: bool = False) -> tuple[list[float], int]:
    """Seconds per round pulse (World.tick) and blows per round, over `rounds` rounds;
    `read`: the round's events read too (a vectorised round's are built when read:
    engine/core/event_log.py), as a game that renders each of them does."""
    world = fighting_pairs(content, fighters, seed=4)
    try:
        world.vectorise = mode
        times, blows = [], 0
        for _ in range(rounds):
            before = len(world.events)
            start = time.perf_counter()
            world.tick()
            if read:
                world.events[before:]
            times.append(time.perf_counter() - start)
            blows += len(world.events) - before
            world.run(content.fight.round_pulses - 1)
        return times, max(1, blows // rounds)
    finally:
        world.close()


def bare_round_times(blows: int, rounds: int) -> list[float]:
    """A bare numpy round: a to-hit roll and 2d8+3 for every blow, subtracted from the
    victims' hit points."""
    gen = np.random.default_rng(1)
    hp = np.full(blows, 1_000_000, dtype=np.int64)
    victims = gen.permutation(blows)
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        hit = gen.random(blows) < 0.8
        dam = gen.integers(1, 9, size=(blows, 2)).sum(axis=1) + 3
        hp[victims] -= np.where(hit, dam, 0)
        times.append(time.perf_counter() - start)
    return times


def big_round(content: Content, fighters: int, rounds: int) -> list[Result]:
    """The vectorised, scalar and bare rows at one size."""
    size = f"{fighters:,} fighters"
    vector, blows = round_times(content, fighters, "auto", rounds)
    read, _ = round_times(content, fighters, "auto", rounds, read=True)
    scalar, scalar_blows = round_times(content, fighters, "never", rounds, read=True)
    bare = bare_round_times(blows, max(rounds, 5))
    vector_row = result_from("round, vectorised", size, "blow", blows, vector,
                             note=f"{blows:,} blows a round; first round (reads every "
                                  f"fighter) {vector[0] * 1000:.0f} ms")
    read_row = result_from("round, vectorised, events read", size, "blow", blows, read,
                           note="the round and the objects of its events (built when "
                                "read): what a game that renders every event pays")
    bare_row = result_from("round, bare numpy", size, "blow", blows, bare,
                           note="to-hit + 2d8+3 + hp subtract")
    scalar_row = result_from("round, scalar", size, "blow", scalar_blows, scalar,
                             note=f"{scalar_blows:,} blows a round")
    vector_row.ratio = vector_row.median_seconds / bare_row.median_seconds
    vector_row.ratio_of = "round, bare numpy"
    read_row.ratio = read_row.median_seconds / bare_row.median_seconds
    read_row.ratio_of = "round, bare numpy"
    scalar_row.ratio = scalar_row.median_seconds / read_row.median_seconds
    scalar_row.ratio_of = "round, vectorised, events read"
    return [vector_row, read_row, scalar_row, bare_row]


def crossover(content: Content, largest: int, rounds: int) -> Result:
    """The smallest fighter count (doubling from 8) at which a vectorised round is
    faster than a scalar one."""
    forced = content.layered({"fight": {"vectorise_min_fighters": 2}}, "benchmark")
    sizes, found = [], None
    times_at: list[float] = []
    fighters = 8
    while fighters <= largest:
        vector, _ = round_times(forced, fighters, "auto", rounds, read=True)
        scalar, _ = round_times(forced, fighters, "never", rounds, read=True)
        sizes.append(fighters)
        times_at = vector
        if np.median(vector) < np.median(scalar):
            found = fighters
            break
        fighters *= 2
    note = (f"vectorised faster from {found} fighters (tried {', '.join(map(str, sizes))})"
            if found else f"scalar faster up to {largest}")
    return result_from("round crossover", f"<= {largest:,} fighters", "round", 1,
                       times_at or [0.0], value=found or 0, note=note)


def volley_rounds(content: Content, sizes: tuple[int, ...], rounds: int) -> list[Result]:
    """The big-battle rows at the largest size of the plan, and the crossover."""
    largest = max(sizes)
    return [*big_round(content, largest, rounds), crossover(content, min(largest, 1024),
                                                            rounds)]
