"""affray.systems: one module per system, plus the rule modules they share.

`SCHEDULE` is the order every pulse runs them in (R-TIME-4), in one place.
"""

from affray.systems.arc import ArcSystem
from affray.systems.base import System
from affray.systems.burst import BurstSystem
from affray.systems.floor_loss import FloorItemLossSystem
from affray.systems.melee import MeleeSystem
from affray.systems.pulse import PulseSystem
from affray.systems.spell import SpellSystem
from affray.systems.stun import StunSystem
from affray.systems.terrain import TerrainSystem

#: R-TIME-4: Pulse, Stun, Melee, Spell, Arc, Burst, FloorItemLoss, Terrain.
SCHEDULE: tuple[type[System], ...] = (
    PulseSystem,
    StunSystem,
    MeleeSystem,
    SpellSystem,
    ArcSystem,
    BurstSystem,
    FloorItemLossSystem,
    TerrainSystem,
)

__all__ = ["SCHEDULE", "System"]
