"""The generator's primitives against an independent oracle (R-GRID-6, issue 11).

tests/test_rng.py checks that the primitives reading the block directly agree with the
same primitives going through `random()`; both share the formulas, so a wrong formula
would pass it. Here the oracle is numpy's own PCG64 stream for the seed, and the
source's formulas written out: number_percent() = 1 + int(u * 100), number_range(lo, hi)
= lo + int(u * (hi - lo + 1)), dice(n, s) = n + sum(int(u * s)); degenerate ranges and
dice draw nothing.
"""

from __future__ import annotations

import numpy as np
import pytest

from affray.core.rng import Rng


class Oracle:
    """The seed's uniforms in order, straight from numpy (one long draw)."""

    def __init__(self, seed: int, count: int = 5000) -> None:
        self.uniforms = np.random.Generator(np.random.PCG64(seed)).random(count).tolist()
        self.used = 0

    def next(self) -> float:
        value = self.uniforms[self.used]
        self.used += 1
        return value

    def percent(self) -> int:
        return 1 + int(self.next() * 100)

    def number_range(self, low: int, high: int) -> int:
        return low if low >= high else low + int(self.next() * (high - low + 1))

    def dice(self, count: int, size: int) -> int:
        if size <= 0 or count <= 0:
            return 0
        if size == 1:
            return count
        return count + sum(int(self.next() * size) for _ in range(count))


RANGES = [(0, 19), (1, 100), (-5, 5), (-7, -3), (3, 3), (9, 2), (0, 1)]
DICE = [(3, 6), (1, 20), (2, 1), (0, 6), (4, 0), (-1, 6), (5, 3)]


def test_r_grid_6_primitives_follow_the_seeds_numpy_stream_across_blocks():
    """R-GRID-6: percent, number_range (odd, negative and degenerate ranges), dice
    (degenerate dice included), chance and random give exactly the source's formulas on
    numpy's PCG64 stream for the seed, uniform after uniform, over three blocks."""
    rng, oracle = Rng(2024), Oracle(2024)
    for i in range(600):
        low, high = RANGES[i % len(RANGES)]
        count, size = DICE[i % len(DICE)]
        assert rng.percent() == oracle.percent()
        assert rng.number_range(low, high) == oracle.number_range(low, high)
        assert rng.dice(count, size) == oracle.dice(count, size)
        assert rng.chance(37) == (oracle.percent() <= 37)
        assert rng.random() == oracle.next()
    assert oracle.used > 2 * 1024  # the stream crossed two block boundaries
    assert rng.random() == oracle.next()


def test_r_grid_6_degenerate_draws_take_nothing_from_the_stream():
    """R-GRID-6: number_range(lo, hi) with lo >= hi is lo and dice with no count, no
    size or size 1 are fixed: none of them uses up a uniform (the next percent is the
    stream's first)."""
    rng, oracle = Rng(5), Oracle(5)
    assert [rng.number_range(4, 4), rng.number_range(6, -2), rng.dice(0, 8), rng.dice(3, 0),
            rng.dice(-2, 4), rng.dice(7, 1)] == [4, 6, 0, 0, 0, 7]
    assert rng.percent() == oracle.percent()


@pytest.mark.parametrize(("uniform", "percent", "face", "two_d6", "signed"), [
    (0.0, 1, 0, 2, -5),
    (0.5, 51, 10, 8, 0),
    (0.99, 100, 19, 12, 5),
    (0.999999, 100, 19, 12, 5),
])
def test_the_ends_of_every_range(uniform, percent, face, two_d6, signed):
    """The source's number_percent, number_range and dice: with `random` pinned on the
    instance, number_percent() is 1..100, a d20 face 0..19, 2d6 2..12 and
    number_range(-5, 5) -5..5, both ends reached and never passed."""
    rng = Rng(1)
    rng.random = lambda: uniform  # type: ignore[method-assign]
    assert rng.percent() == percent
    assert rng.number_range(0, 19) == face
    assert rng.dice(2, 6) == two_d6
    assert rng.number_range(-5, 5) == signed


def test_r_grid_6_bulk_draws_follow_the_block():
    """R-GRID-6: uniforms are drawn from the generator 1,024 at a time, so bulk draws
    (`numpy()`) continue the stream after the block the primitives are reading: after one
    percent, the generator's next uniform is the seed's 1,025th."""
    rng, oracle = Rng(9), Oracle(9)
    assert rng.percent() == oracle.percent()
    assert rng.numpy().random() == oracle.uniforms[1024]


def test_r_grid_6_a_state_restores_the_stream_from_a_new_block():
    """R-GRID-6: a state taken at a block's end (every uniform of it read) and one taken
    before any draw both restore the seed's stream exactly."""
    fresh = Rng.from_state(Rng(13).state())
    oracle = Oracle(13)
    assert [fresh.percent() for _ in range(5)] == [oracle.percent() for _ in range(5)]
    rng, oracle = Rng(13), Oracle(13)
    for _ in range(1024):
        assert rng.random() == oracle.next()
    copy = Rng.from_state(rng.state())
    assert [copy.dice(3, 6) for _ in range(400)] == [oracle.dice(3, 6) for _ in range(400)]
