"""Arc: R-ELEC-1..8 (arcs and water spread, first in first out).

Not implemented yet: this processor holds its place in the schedule (R-TIME-4) and does
nothing until the electricity issue lands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from affray.systems.base import System

if TYPE_CHECKING:
    from affray.world import World


class ArcSystem(System):
    """Arc step of the pulse; does nothing yet (lands with the electricity issue)."""

    name = "Arc"
    rules = "R-ELEC-1..8 (arcs and water spread, first in first out)"

    def process(self, world: World) -> None:
        return None
