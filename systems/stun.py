"""Stun: stuns wear off outside combat, one step a round (R-STUN-4).

The stun rules themselves (the round-start check, paralysis, standing up, weak stun's
halving) are in `affray.systems.rules.stun`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from affray.systems.base import System

if TYPE_CHECKING:
    from affray.world import World


class StunSystem(System):
    """Outside combat, stuns wear off one step per round (R-STUN-4)."""

    name = "Stun"
    rules = "R-STUN-1..6 (stun decay outside combat, stun checks at round start)"

    def process(self, world: World) -> None:
        if not world.stunned or world.pulse % world.content.fight.round_pulses:
            return
        for entity in sorted(world.stunned, key=lambda e: world.sheets[e].spawn.number):
            sheet = world.sheets[entity]
            if sheet.combat.fighting or not sheet.vitals.alive:
                continue
            if sheet.has("stun") and not sheet.has("paralysis"):
                world.set_stun(sheet, "weak_stun")
            elif sheet.has("weak_stun") and not sheet.has("stun"):
                world.set_stun(sheet, "none")

