"""Python's cyclic garbage collector, paused where affray makes many objects at once.

Building a scenario of 100,000 creatures, the events of a round of 10,000 blows or of a
spark through a lake of 10,000 creatures allocates tens of thousands of objects, none of
them garbage. Every few hundred allocations the collector runs, and every so often it
walks the whole heap (the whole world): 40% of `affray check` on 100,000 creatures, and
a spark into a crowded lake took 20 ms one time in three and 200 ms the next. Those
objects hold no reference cycles, so pausing the collector loses nothing; it runs again
after, once.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Callable, Iterator


def _collect_young() -> None:
    gc.collect(0)


def _nothing() -> None:
    pass


@contextlib.contextmanager
def collector_paused() -> Iterator[Callable[[], None]]:
    """The cyclic collector off inside the block, on again after (if it was on).

    The block gets a `sweep()`: the youngest generation collected now, if the collector
    was on (else nothing). A block making objects for long (`World.add_creatures`)
    sweeps every few hundred of its items: the first collection after the block walks
    every object made in it, and walking ten thousand creatures' objects long after
    they were made, out of the CPU's caches, cost a third of spawning them; swept
    while fresh, the same objects cost half as much to walk."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield _collect_young if enabled else _nothing
    finally:
        if enabled:
            gc.enable()
