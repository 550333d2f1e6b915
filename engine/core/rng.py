"""The world's one source of randomness (R-GRID-6).

One seeded `numpy.random.Generator` per World. Drawing one number at a time from numpy
costs microseconds, so uniforms are drawn in blocks and handed out one by one; the order
of use is fixed by the rules, so a seed fixes the event log. The primitives mirror the
source game's (`number_range`, `number_percent`, `chance`, `dice`).

The state (generator state plus the unread part of the block) is plain data, so a save
restores the exact stream.
"""

from __future__ import annotations

import base64
import operator
from collections import deque
from collections.abc import Iterator
from itertools import islice
from typing import Any

import numpy as np

_BLOCK = 1024


class Rng:
    """Buffered uniform draws from one seeded PCG64 generator.

    The block is handed out through a list iterator: a draw is one `next()`, with no
    index to store back. `percent`, `number_range` and `dice` read the iterator
    themselves rather than call `random()` (a blow draws about five numbers; the call
    was a fifth of its cost), unless `random` is not this class's own: a subclass that
    overrides it, or a test that pins it on one instance (`world.rng.random = ...`),
    and then every primitive goes through it, as before. Which one is decided when the
    Rng is made and when `random` is set on it: patching `Rng.random` on the class
    afterwards is not seen by the primitives of an Rng that already exists (pin it on
    the instance instead).
    """

    # `__dict__` too, so a test can pin one primitive to a fixed draw on one world
    # (`world.rng.percent = lambda: 50`) to check a rule's boundary exactly.
    __slots__ = ("__dict__", "_block", "_generator", "_it", "_plain")

    def __init__(self, seed: int) -> None:
        self._generator = np.random.Generator(np.random.PCG64(seed))
        self._block: list[float] = []
        self._it: Iterator[float] = iter(self._block)
        # True while `random` is Rng.random itself: the primitives may read the block.
        self._plain = type(self).random is Rng.random

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)
        if name == "random":  # pinned on this instance: every primitive must call it
            object.__setattr__(self, "_plain", False)

    def _refill(self) -> float:
        """A new block once the last is read; returns its first number."""
        block = self._block = self._generator.random(_BLOCK).tolist()
        it = self._it = iter(block)
        return next(it)

    def random(self) -> float:
        """A uniform float in [0, 1)."""
        value = next(self._it, None)
        return self._refill() if value is None else value

    def number_range(self, low: int, high: int) -> int:
        """A uniform integer in [low, high]; `low` when low >= high (as the source)."""
        if low >= high:
            return low
        value = next(self._it, None) if self._plain else self.random()
        if value is None:
            value = self._refill()
        return low + int(value * (high - low + 1))

    def percent(self) -> int:
        """The source's `number_percent()`: 1..100."""
        value = next(self._it, None) if self._plain else self.random()
        if value is None:
            value = self._refill()
        return 1 + int(value * 100)

    def uniforms(self, count: int) -> np.ndarray:
        """The next `count` uniforms in [0, 1), as `count` calls of `random()` would give
        them (the same stream: a bulk draw and single draws interleave freely)."""
        if not self._plain:
            return np.fromiter((self.random() for _ in range(count)), np.float64, count)
        out = np.empty(count, dtype=np.float64)
        done = 0
        while done < count:
            read = len(self._block) - operator.length_hint(self._it)
            take = min(count - done, len(self._block) - read)
            if take == 0:
                out[done] = self._refill()
                done += 1
                continue
            out[done:done + take] = self._block[read:read + take]
            deque(islice(self._it, take), maxlen=0)  # the iterator past them, in C
            done += take
        return out

    def percents(self, count: int) -> np.ndarray:
        """`count` calls of `percent()` at once (the same draws, in order)."""
        if "percent" in self.__dict__:  # pinned on this instance: ask it each time
            return np.fromiter((self.percent() for _ in range(count)), np.int64, count)
        return 1 + (self.uniforms(count) * 100).astype(np.int64)

    def numbers(self, low: int, high: int, count: int) -> np.ndarray:
        """`count` calls of `number_range(low, high)` at once (the same draws)."""
        if "number_range" in self.__dict__ or low >= high:
            return np.fromiter((self.number_range(low, high) for _ in range(count)),
                               np.int64, count)
        return low + (self.uniforms(count) * (high - low + 1)).astype(np.int64)

    def chance(self, percent: int) -> bool:
        """The source's `chance(n)`: true when a 1..100 roll is at or under n."""
        return self.percent() <= percent

    def dice(self, count: int, size: int) -> int:
        """Sum of `count` rolls of 1..size; 0 when size is 0 (as the source)."""
        if size <= 0 or count <= 0:
            return 0
        if size == 1:
            return count
        total = count
        if not self._plain:
            for _ in range(count):
                total += int(self.random() * size)
            return total
        it = self._it
        for _ in range(count):
            value = next(it, None)
            if value is None:
                value = self._refill()
                it = self._it
            total += int(value * size)
        return total

    def numpy(self) -> np.random.Generator:
        """The underlying generator, for bulk draws (after the block is used up)."""
        return self._generator

    def state(self) -> dict[str, Any]:
        """JSON-ready state: generator state (big ints as strings) and the unread block."""
        raw = self._generator.bit_generator.state
        read = len(self._block) - operator.length_hint(self._it)  # what the iterator gave
        unread = np.asarray(self._block[read:], dtype=np.float64)
        return {
            "bit_generator": raw["bit_generator"],
            "state": {k: str(v) for k, v in raw["state"].items()},
            "has_uint32": int(raw["has_uint32"]),
            "uinteger": str(raw["uinteger"]),
            "unread": base64.b64encode(unread.tobytes()).decode("ascii"),
        }

    @classmethod
    def from_state(cls, data: dict[str, Any]) -> Rng:
        """Rebuild the exact stream saved by `state()`."""
        rng = cls(0)
        rng._generator.bit_generator.state = {
            "bit_generator": data["bit_generator"],
            "state": {k: int(v) for k, v in data["state"].items()},
            "has_uint32": int(data["has_uint32"]),
            "uinteger": int(data["uinteger"]),
        }
        unread = np.frombuffer(base64.b64decode(data["unread"]), dtype=np.float64)
        rng._block = unread.tolist()
        rng._it = iter(rng._block)
        return rng
