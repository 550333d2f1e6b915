"""The world generator's primitives (R-GRID-6): `percent`, `number_range` and `dice`
read the buffered block directly, and must give exactly the numbers `random()` would,
across block boundaries and through a save; a `random` pinned on one instance, or
overridden by a subclass, must still be what every primitive draws from."""

from __future__ import annotations

from affray.core.rng import Rng


class ThroughRandom(Rng):
    """Overrides random (calling the real one), so every primitive goes through it."""

    __slots__ = ("calls",)

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.calls = 0

    def random(self) -> float:
        self.calls += 1
        return super().random()


def mixed_draws(rng: Rng, rounds: int) -> list[float | int]:
    """Every primitive in turn, far past one block of 1,024 uniforms."""
    out: list[float | int] = []
    for i in range(rounds):
        out += [rng.percent(), rng.number_range(0, 19), rng.dice(3, 6), rng.random(),
                rng.number_range(-5, 5 + i % 7), rng.dice(1, 1), rng.chance(40)]
    return out


def test_r_grid_6_primitives_read_the_same_stream_as_random():
    """R-GRID-6: the block read directly gives the numbers the primitives built on
    random() give: the same seed, the same sequence, over 3 blocks."""
    plain, through = Rng(7), ThroughRandom(7)
    assert mixed_draws(plain, 500) == mixed_draws(through, 500)
    assert through.calls == 500 * 8  # 1 + 1 + 3 + 1 + 1 + 0 + 1 uniforms a round


def test_r_grid_6_a_random_pinned_on_one_instance_is_what_every_primitive_draws():
    """A test pins `random` on one world's generator: percent, number_range and dice
    draw from the pin; another generator is untouched."""
    pinned, other = Rng(3), Rng(3)
    pinned.random = lambda: 0.5  # type: ignore[method-assign]
    assert [pinned.percent(), pinned.number_range(0, 19), pinned.dice(2, 6)] == [51, 10, 8]
    assert mixed_draws(other, 200) == mixed_draws(ThroughRandom(3), 200)


def test_r_grid_6_state_mid_block_restores_the_exact_stream():
    """A state taken part-way through a block (after direct reads) restores the rest of
    the stream exactly, block boundary included."""
    rng = Rng(11)
    mixed_draws(rng, 100)  # 700 uniforms: inside the first block
    copy = Rng.from_state(rng.state())
    assert mixed_draws(copy, 300) == mixed_draws(rng, 300)


def test_bulk_draws_are_the_single_draws_across_a_block_boundary():
    """R-GRID-6: `uniforms`, `percents` and `numbers` hand out the stream's next numbers
    as that many single calls would, across the 1,024-number block's end, interleaved
    with single draws, and leave the same state behind (a save after either is one)."""
    bulk, single = Rng(99), Rng(99)
    for _ in range(1000):
        assert bulk.random() == single.random()
    got = bulk.uniforms(50)  # 24 from this block, 26 from the next
    assert got.tolist() == [single.random() for _ in range(50)]
    assert bulk.percent() == single.percent()
    assert bulk.percents(2000).tolist() == [single.percent() for _ in range(2000)]
    assert bulk.numbers(1, 1000, 777).tolist() == [single.number_range(1, 1000)
                                                   for _ in range(777)]
    assert bulk.numbers(-7, 3, 5).tolist() == [single.number_range(-7, 3) for _ in range(5)]
    assert bulk.numbers(4, 4, 3).tolist() == [4, 4, 4]  # low >= high: low, no draw
    assert bulk.uniforms(0).tolist() == []
    assert bulk.state() == single.state()
    assert bulk.random() == single.random()


def test_bulk_draws_ask_a_pinned_primitive():
    """A test that pins `percent` or `number_range` (or `random`) on one Rng gets its
    pinned values from the bulk draws too."""
    rng = Rng(1)
    rng.percent = lambda: 42  # type: ignore[method-assign]
    rng.number_range = lambda low, high: high  # type: ignore[method-assign]
    assert rng.percents(3).tolist() == [42, 42, 42]
    assert rng.numbers(1, 1000, 2).tolist() == [1000, 1000]
    other = Rng(1)
    other.random = lambda: 0.5  # type: ignore[method-assign]
    assert other.uniforms(2).tolist() == [0.5, 0.5]
    assert other.percents(2).tolist() == [51, 51]
