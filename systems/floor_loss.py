"""FloorItemLoss: R-LOSS-1..7 (floor items lost to area spells).

Not implemented yet: this processor holds its place in the schedule (R-TIME-4) and does
nothing until the floor-loss issue lands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from affray.systems.base import System

if TYPE_CHECKING:
    from affray.world import World


class FloorItemLossSystem(System):
    """FloorItemLoss step of the pulse; does nothing yet (lands with the floor-loss issue)."""

    name = "FloorItemLoss"
    rules = "R-LOSS-1..7 (floor items lost to area spells)"

    def process(self, world: World) -> None:
        return None
