"""One hit travelling through a pipeline, and the death signal (R-DMG-1..3).

`Hit` carries everything the steps read and change: who hits whom, the running damage,
its type and flags, and what happened on the way (critical, saved, immune).
`VictimDeath` is raised when a hit kills; it derives from BaseException so no hook's
`except Exception` can swallow it (R-DMG-2).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from affray.data.defs import ItemDef
    from affray.systems.rules.sheet import Sheet


# The exact zero every hit starts its pierce and armor bonus at: one shared object (a
# Fraction is immutable), so a step can test `is ZERO` instead of calling Fraction.__bool__.
ZERO = Fraction(0)


@dataclass(slots=True)
class Hit:
    """A hit in flight. `dam` is whole hit points at every step (R-PROT-9)."""

    source: Sheet | None
    victim: Sheet
    dam: int
    damage_type: str
    flags: int
    melee: bool
    cause: str
    spell: str | None = None
    critical: bool = False
    saved: bool = False
    raw: int = 0
    orig_dam: int = 0
    immune: bool = False
    weapon: ItemDef | None = None
    # What the attacker's accuracy pierces armor with (R-HIT-7): effective hitroll.
    pierce: Fraction = ZERO
    # Armor a successful armor-use roll adds to the victim for this hit (R-HIT-3).
    armor_bonus: Fraction = ZERO
    # A status tick's name (burning, poisoned, corroded): its `damage` event names it.
    status: str | None = None
    # Skip the protections although the cause is not "raw" (corroded's raw ticks, R-STAT-3).
    unprotected: bool = False


class VictimDeath(BaseException):
    """A hit killed its victim. Propagates through hooks to the round (R-DMG-2)."""

    def __init__(self, victim: str, killer: str | None) -> None:
        super().__init__(f"{victim} was killed" + (f" by {killer}" if killer else ""))
        self.victim = victim
        self.killer = killer
