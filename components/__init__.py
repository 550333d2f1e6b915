"""affray.components: plain data (dataclasses with slots), no behaviour."""

from affray.components.cells import DOOR_STATES, Chest, Door, Fire, Ice, ItemStack, WaterBody
from affray.components.creature import (
    Affects,
    Combat,
    Creature,
    Defense,
    Equipment,
    Immunities,
    Level,
    Offense,
    Position,
    Skills,
    Spawn,
    Stats,
    Statuses,
    Vitals,
    WornItem,
)
from affray.components.registry import COMPONENTS, component

__all__ = [
    "COMPONENTS",
    "DOOR_STATES",
    "Affects",
    "Chest",
    "Combat",
    "Creature",
    "Defense",
    "Door",
    "Equipment",
    "Fire",
    "Ice",
    "Immunities",
    "ItemStack",
    "Level",
    "Offense",
    "Position",
    "Skills",
    "Spawn",
    "Stats",
    "Statuses",
    "Vitals",
    "WaterBody",
    "WornItem",
    "component",
]
