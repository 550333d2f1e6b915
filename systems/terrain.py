"""Terrain: relabel water bodies when, and only when, terrain changed (R-GRID-5, R-TERR-4).

Fire expiry (R-TERR-1) and falls into water (R-TERR-3) join here with the spells issue.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import esper

from affray.components import WaterBody
from affray.systems.base import System

if TYPE_CHECKING:
    from affray.world import World


def relabel_water(world: World) -> None:
    """Rebuild the water bodies from the grid (scipy.ndimage.label, 8-connected).

    Bodies are numbered in scan order of their first cell; the body entities are updated
    in place, once, outside any query loop.
    """
    _labels, count = world.grid.label_water()
    bodies = world.grid.body_cells(count)
    # Reuse the body entities there are (in id order), then add or drop the difference:
    # each create or delete costs esper a cache clear, and a map can hold thousands.
    existing = sorted(esper.get_component(WaterBody), key=lambda pair: pair[0])
    for (_entity, body), (label, cells) in zip(existing, enumerate(bodies, start=1),
                                               strict=False):
        body.label, body.cells = label, cells
    for entity, _body in existing[count:]:
        esper.delete_entity(entity, immediate=True)
    for label in range(len(existing) + 1, count + 1):
        esper.create_entity(WaterBody(label=label, cells=bodies[label - 1]))


class TerrainSystem(System):
    """Relabels water bodies after a terrain change in this pulse (R-TERR-4)."""

    name = "Terrain"
    rules = "R-GRID-5, R-TERR-4"

    def process(self, world: World) -> None:
        if world.grid.dirty:
            relabel_water(world)
