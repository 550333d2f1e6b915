"""ASCII rendering of a world: terrain, creatures, fires, doors, items (`affray render`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import esper

from affray.components import Chest, Creature, Fire, ItemStack, Position, Spawn, Vitals
from affray.snapshot import map_rows

if TYPE_CHECKING:
    from affray.world import World

ITEM_SYMBOLS = {"scroll": "?", "potion": "!", "food": "%", "corpse": "%", "coins": "$",
                "wand": "/", "weapon": ")", "armor": "[", "container": "=", "light": "("}


def render_ascii(world: World) -> str:
    """The map with everything on it, then a key naming each creature."""
    world.enter()
    rows = [list(row) for row in map_rows(world)]
    for _e, (position, stack) in esper.get_components(Position, ItemStack):
        item_class = world.content.items[stack.item].class_
        rows[position.y][position.x] = ITEM_SYMBOLS.get(item_class, "*")
    for _e, (position, _chest) in esper.get_components(Position, Chest):
        rows[position.y][position.x] = "="
    for _e, (position, _fire) in esper.get_components(Position, Fire):
        rows[position.y][position.x] = "^"
    key = []
    creatures = sorted(esper.get_components(Spawn, Position, Creature, Vitals),
                       key=lambda row: row[1][0].number)
    for index, (_e, (_spawn, position, creature, vitals)) in enumerate(creatures):
        mark = "@" if creature.player else (chr(ord("a") + index) if index < 26 else "&")
        if vitals.alive:
            rows[position.y][position.x] = mark
        key.append(f"  {mark} {creature.id:<12} hp {vitals.hp}/{vitals.max_hp}"
                   f"{'' if vitals.alive else ' (dead)'} at [{position.x}, {position.y}]")
    head = f"{world.name or 'world'} - pulse {world.pulse}"
    return "\n".join([head, *("".join(row) for row in rows), *key])
