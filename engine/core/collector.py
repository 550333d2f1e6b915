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
from collections.abc import Iterator


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic collector off inside the block, on again after (if it was on)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
