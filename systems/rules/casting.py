"""What a cast reached and did, handed from the Spell system to the systems after it.

The Spell system resolves a cast's shape, strikes every creature it reaches (saves,
damage pipeline, magic's type rules on creatures), and the Arc system carries
electricity on through arcs and water (`R-ELEC-*`). Each resolved cast leaves one
`CastRecord` in `world.cast_records` for the rest of the pulse: Burst reads its
`effect_cells` and `strikes` (cell effects, R-SHAPE-7; pushes, R-FORCE-1),
FloorItemLoss its `area` (R-LOSS-1). The list is emptied at the start of the next
Spell step, so a record never outlives its pulse and is never saved.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING

from affray.systems.rules.shapes import is_area_shape

if TYPE_CHECKING:
    from affray.data.defs import SpellDef

Cell = tuple[int, int]


@dataclass(slots=True)
class Strike:
    """One creature struck by a cast (R-ELEC-4: at most once per cast).

    `amount` is the hit points it lost after protections (0 when saved to nothing,
    immune or missed); "harmed" is `amount >= 1` (R-TYPE-2). `cause` is `spell` for the
    shape's own victims, `arc` or `water` for electricity's spread.
    """

    entity: int
    cause: str
    amount: int = 0
    critical: bool = False
    saved: bool = False
    killed: bool = False

    @property
    def harmed(self) -> bool:
        return self.amount >= 1


@dataclass(slots=True)
class CastRecord:
    """One resolved cast: who, what, from where, the cells it reached and whom it struck.

    - `area`: every cell of the shape (R-LOSS-1: all cells of a burst, cone or line; the
      one cell of a ray, bolt or touch), in the shape module's order.
    - `effect_cells`: the cells that get the type's cell effects (R-SHAPE-7): a burst's
      cells, a line's last cell, a ray/bolt/touch's one cell, none for a cone.
    - `centre`: a burst's centre (pushes go away from it, R-FORCE-1), else None.
    - `origin`: the caster's cell when it cast (pushes from the caster).
    - `strikes`: every creature struck, in strike order (shape victims in spawn order,
      then arcs and water strikes first in, first out, R-ELEC-8).
    """

    caster: int
    caster_id: str
    spell: str
    definition: SpellDef
    damage_type: str
    via: str
    level: int
    origin: Cell
    target: str | Cell
    roll: int = 0
    critical: bool = False
    centre: Cell | None = None
    area: list[Cell] = field(default_factory=list)
    effect_cells: list[Cell] = field(default_factory=list)
    strikes: list[Strike] = field(default_factory=list)
    # Worked out once per cast rather than once per creature struck (a lake can hold
    # thousands): the damage flags, what the caster's hitroll pierces armor with, and
    # whether the spell has effects beyond its damage.
    flags: int = 0
    pierce: Fraction = Fraction(0)
    has_effects: bool = False

    @property
    def area_spell(self) -> bool:
        """Burst, cone and line are area spells (R-SHAPE-5)."""
        return is_area_shape(self.definition.shape)
