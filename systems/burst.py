"""Burst: R-FIRE-2/3, R-COLD-2, R-FORCE-1..4 (cell effects of casts).

Not implemented yet: this processor holds its place in the schedule (R-TIME-4) and does
nothing until the spells issue lands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from affray.systems.base import System

if TYPE_CHECKING:
    from affray.world import World


class BurstSystem(System):
    """Burst step of the pulse; does nothing yet (lands with the spells issue)."""

    name = "Burst"
    rules = "R-FIRE-2/3, R-COLD-2, R-FORCE-1..4 (cell effects of casts)"

    def process(self, world: World) -> None:
        return None
