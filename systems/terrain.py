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
    """Rebuild the water-body entities from the grid (scipy.ndimage.label, 8-connected).

    Old bodies are deleted and new ones created in label order (scan order of their first
    cell), once, outside any query loop.
    """
    for entity, _body in esper.get_component(WaterBody):
        esper.delete_entity(entity, immediate=True)
    _labels, count = world.grid.label_water()
    for label, cells in enumerate(world.grid.body_cells(count), start=1):
        esper.create_entity(WaterBody(label=label, cells=cells))


class TerrainSystem(System):
    """Relabels water bodies after a terrain change in this pulse (R-TERR-4)."""

    name = "Terrain"
    rules = "R-GRID-5, R-TERR-4"

    def process(self, world: World) -> None:
        if world.grid.dirty:
            relabel_water(world)
