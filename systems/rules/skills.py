"""Effective skill values: what a roll compares against (source_notes section 8).

A player's skill is what it learned (0..100). An NPC never learned anything: its weapon
skill is 100 with a weapon and 2 x level + 40 bare-handed (the source's mob skill data),
capped at 100; other skills come from its `skills` table. Daze halves spell skill and cuts
other skills to two thirds (R-LAG-3).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from affray.arith import tdiv

if TYPE_CHECKING:
    from affray.systems.rules.sheet import Sheet
    from affray.world import World


def effective_skill(world: World, sheet: Sheet, name: str, spell: bool = False) -> int:
    """Learned percent, cut by daze (spell: /2, other: *2/3), clamped 0..100."""
    learned = sheet.skills.learned.get(name, 0)
    if not learned:
        return 0
    lag = world.lag
    if lag.dazed and lag.daze[sheet.creature.slot] > 0:
        learned = tdiv(learned, 2) if spell else tdiv(2 * learned, 3)
    return 100 if learned > 100 else 0 if learned < 0 else learned


def weapon_skill(world: World, sheet: Sheet) -> int:
    """Effective weapon skill 0..100 (the blow's skill is 20 plus this); the skill is
    the weapon's class (sword, dagger...) or hand to hand (`Sheet.weapon_skill`)."""
    name = sheet.weapon_skill
    if not sheet.creature.player and name not in sheet.skills.learned:
        learned = 100 if sheet.weapon is not None else min(100, 2 * sheet.level.level + 40)
        if world.lag.dazed and world.lag.daze[sheet.creature.slot] > 0:
            learned = tdiv(2 * learned, 3)
        return learned
    return effective_skill(world, sheet, name)
