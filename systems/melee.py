"""Melee: R-TIME-2, R-TIME-3, R-MELEE-* (combat rounds and blows).

Not implemented yet: this processor holds its place in the schedule (R-TIME-4) and does
nothing until the damage-core issue lands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from affray.systems.base import System

if TYPE_CHECKING:
    from affray.world import World


class MeleeSystem(System):
    """Melee step of the pulse; does nothing yet (lands with the damage-core issue)."""

    name = "Melee"
    rules = "R-TIME-2, R-TIME-3, R-MELEE-* (combat rounds and blows)"

    def process(self, world: World) -> None:
        return None
