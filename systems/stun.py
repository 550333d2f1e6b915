"""Stun: R-STUN-1..6 (stun bookkeeping outside combat, paralysis early end).

Not implemented yet: this processor holds its place in the schedule (R-TIME-4) and does
nothing until the defences-lag-stun issue lands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from affray.systems.base import System

if TYPE_CHECKING:
    from affray.systems.sheet import Sheet
    from affray.world import World


def check_stun(world: World, fighter: Sheet) -> bool:
    """At the start of a fighter's round: may it attack? (R-STUN-2 lands with the
    defences-lag-stun issue; until then nobody loses a round to a stun.)"""
    return True


class StunSystem(System):
    """Stun step of the pulse; does nothing yet (lands with the defences-lag-stun issue)."""

    name = "Stun"
    rules = "R-STUN-1..6 (stun bookkeeping outside combat, paralysis early end)"

    def process(self, world: World) -> None:
        return None
