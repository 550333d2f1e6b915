"""`World.view()` against `World.snapshot()`: what a game pays per frame to draw (issue 23).

One row: 2,000 idle creatures on an open floor, 10 of them wounded by scripted damage
before each frame (each a `damage` event), then `view()`. The view builds again only the
10 records the events name (affray.display.view); the snapshot builds all 2,000 and the map. The
row's ratio is the snapshot's cost over the view's (how many times cheaper the view
is), measured on the same world.
"""

from __future__ import annotations

import statistics
import time

from affray.core.grid import Terrain
from affray.data.content_loader import Content

from .timing import Result, result_from, time_repeats
from .worlds import open_floor, open_floor_side, populate, spread_cells

CREATURES = 2_000
CHANGED = 10


def view_versus_snapshot(content: Content, frames: int, repeats: int) -> list[Result]:
    """The row (module docstring): `repeats` blocks of `frames` views, each after
    `CHANGED` creatures took 1 hit point of raw damage."""
    world = open_floor(content, open_floor_side(CREATURES))
    try:
        populate(world, content, spread_cells(CREATURES, world.grid.terrain == Terrain.FLOOR))
        ids = world.creature_ids()
        world.view()  # the first view builds every record: setup, not a frame
        snapshot_times = time_repeats(world.snapshot, repeats)
        wounded = 0
        blocks: list[float] = []
        for _ in range(repeats):
            spent = 0.0
            for _ in range(frames):
                for _ in range(CHANGED):  # a different creature each time: none dies
                    world.damage(None, ids[wounded % CREATURES], 1, "fire", cause="raw")
                    wounded += 1
                start = time.perf_counter()
                world.view()
                spent += time.perf_counter() - start
            blocks.append(spent)
        snapshot_ms = statistics.median(snapshot_times) * 1e3
        row = result_from(f"view, {CHANGED} changed", f"{CREATURES:,} creatures", "view",
                          frames, blocks, ratio_of="world.snapshot() (its cost / the view's)")
        row.ratio = snapshot_ms * 1e3 / row.per_unit_us  # how many times cheaper
        row.note = f"snapshot {snapshot_ms:.1f} ms"
        return [row]
    finally:
        world.close()
