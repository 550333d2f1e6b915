"""Effective skill values: what a roll compares against (source_notes section 8).

A player's skill is what it learned (0..100). An NPC never learned anything: its weapon
skill is 100 with a weapon and 2 x level + 40 bare-handed (the source's mob skill data),
capped at 100; other skills come from its `skills` table. Daze halves spell skill and cuts
other skills to two thirds (R-LAG-3).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from affray.core.arith import clamp, minimum, select, tdiv

if TYPE_CHECKING:
    from affray.core.world import World
    from affray.systems.rules.sheet import Sheet


# -- the formulas, one definition each (ints or numpy arrays: issue 12) -----------------
def effective_value(learned: Any, dazed: Any, spell: bool = False) -> Any:
    """Learned percent, cut by daze (R-LAG-3; spell: /2, other: x2/3), clamped 0..100;
    a skill never learned (0) stays 0."""
    cut = tdiv(learned, 2) if spell else tdiv(2 * learned, 3)
    return select(learned == 0, 0, clamp(select(dazed, cut, learned), 0, 100))


def npc_weapon_skill(wielding: Any, level: Any, dazed: Any) -> Any:
    """An NPC's weapon skill when it never learned its weapon's: 100 with a weapon,
    2 x level + 40 bare-handed (capped 100), x2/3 when dazed (R-LAG-3)."""
    value = select(wielding, 100, minimum(2 * level + 40, 100))
    return select(dazed, tdiv(2 * value, 3), value)


# Memos for the scalar callers (a C-level look-up on every roll instead of the formula's
# Python calls; the formula stays the one definition).
_effective_value = functools.lru_cache(maxsize=4096)(effective_value)
# undazed, not a spell (most rolls): one argument, the memo's fastest key
_plain_value = functools.lru_cache(maxsize=4096)(
    lambda learned: effective_value(learned, False))
_npc_weapon_skill = functools.lru_cache(maxsize=4096)(npc_weapon_skill)


def effective_skill(world: World, sheet: Sheet, name: str, spell: bool = False) -> int:
    """Learned percent, cut by daze (spell: `/2`, other: `*2/3`), clamped 0..100."""
    learned = sheet.skills.learned.get(name, 0)
    if not learned:
        return 0
    lag = world.lag
    if lag.dazed and lag.daze[sheet.creature.slot] > 0:
        return _effective_value(learned, True, spell)
    return _plain_value(learned) if type(learned) is int else effective_value(learned, False)


def weapon_skill(world: World, sheet: Sheet) -> int:
    """Effective weapon skill 0..100 (the blow's skill is 20 plus this); the skill is
    the weapon's class (sword, dagger...) or hand to hand (`Sheet.weapon_skill`)."""
    name = sheet.weapon_skill
    if not sheet.creature.player and name not in sheet.skills.learned:
        lag = world.lag
        return _npc_weapon_skill(sheet.weapon is not None, sheet.level.level,
                                 bool(lag.dazed and lag.daze[sheet.creature.slot] > 0))
    return effective_skill(world, sheet, name)
