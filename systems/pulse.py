"""Pulse: lag countdown, then the actions whose actors are free to act (R-TIME-4 first).

Status ticks (burning, poison, corroded) join here with the statuses issue.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from affray.systems.base import System
from affray.systems.rules.actions import dispatch_ready

if TYPE_CHECKING:
    from affray.world import World


class PulseSystem(System):
    """Counts wait and daze down (R-LAG-1) and runs queued actions at wait 0 (R-LAG-2)."""

    name = "Pulse"
    rules = "R-LAG-1, R-LAG-2, R-TIME-1"

    def process(self, world: World) -> None:
        world.lag.count_down()
        if world.ready:
            dispatch_ready(world)
