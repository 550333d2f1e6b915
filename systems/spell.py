"""Spell: R-LVL-*, R-SHAPE-*, R-SAVE-*, section 11 (casts due this pulse).

Not implemented yet: this processor holds its place in the schedule (R-TIME-4) and does
nothing (beyond dropping the pulse's casts) until the spells issue lands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from affray.systems.base import System

if TYPE_CHECKING:
    from affray.world import World


class SpellSystem(System):
    """Spell step of the pulse; does nothing yet (lands with the spells issue)."""

    name = "Spell"
    rules = "R-LVL-*, R-SHAPE-*, R-SAVE-*, section 11 (casts due this pulse)"

    def process(self, world: World) -> None:
        # Until spells land, a cast only costs its caster the spell's beats of wait
        # (given when the action ran); drop the hand-over so it cannot pile up.
        world.casts_due.clear()
