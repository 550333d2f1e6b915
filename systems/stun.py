"""Stun: stuns wear off outside combat, one step a round (R-STUN-4).

Reads `world.stunned` and those creatures' Affects (stun, weak_stun, paralysis),
Combat (fighting) and Vitals (alive); writes their stun through `World.set_stun` (which
keeps `world.stunned` and emits the `stun` event).

The stun rules themselves (the round-start check, paralysis, standing up, weak stun's
halving) are in `affray.systems.rules.stun`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from affray.systems.base import System

if TYPE_CHECKING:
    from affray.core.world import World
    from affray.systems.rules.sheet import Sheet


class StunSystem(System):
    """Outside combat, stuns wear off one step per round (R-STUN-4)."""

    name = "Stun"
    rules = "R-STUN-4 (stun decay outside combat; round-start checks run in Melee)"

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

    def next_pulse(self, world: World) -> int | None:
        """The next round pulse when some stun would wear off on it, else None.

        Mirrors `process`: only a living creature outside combat whose stun can step
        down (not held by paralysis) makes a round pulse work for this system.
        """
        if not world.stunned or not any(_decays(world.sheets[entity])
                                        for entity in world.stunned):
            return None
        return next_round(world)


def _decays(sheet: Sheet) -> bool:
    """Would `process` change this creature's stun on a round pulse?"""
    if sheet.combat.fighting or not sheet.vitals.alive:
        return False
    if sheet.has("stun"):
        return not sheet.has("paralysis")
    return sheet.has("weak_stun")


def next_round(world: World) -> int:
    """The first round pulse (a multiple of the round length) at or after now."""
    return world.pulse + -world.pulse % world.content.fight.round_pulses

