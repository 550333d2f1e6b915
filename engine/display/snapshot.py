"""The snapshot: the whole state as a JSON-ready dict (SCENARIO.md "final")."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import esper

from affray.components import (
    Affects,
    Chest,
    Creature,
    Door,
    Fire,
    ItemStack,
    Position,
    Spawn,
    Statuses,
    Vitals,
)
from affray.core.grid import Terrain
from affray.display.replay import glyph_of
from affray.systems.rules.spellbook import current_mana

if TYPE_CHECKING:
    from affray.core.world import World


def terrain_symbols(world: World) -> dict[str, str]:
    """Terrain name -> symbol in the scenario's legend (first symbol that names it)."""
    symbols: dict[str, str] = {}
    for symbol, name in world.legend.items():
        symbols.setdefault(name, symbol)
    return symbols


def map_rows(world: World) -> list[str]:
    """Current terrain as map rows in the scenario legend; doors show their state."""
    symbols = terrain_symbols(world)
    by_code = {Terrain.FLOOR: symbols.get("floor", "."), Terrain.WALL: symbols.get("wall", "#"),
               Terrain.WATER: symbols.get("water", "~"), Terrain.ICE: symbols.get("ice", "_"),
               Terrain.DOOR: symbols.get("door", "+")}
    rows = [[by_code[Terrain(int(code))] for code in row] for row in world.grid.terrain]
    for _entity, (position, door) in esper.get_components(Position, Door):
        rows[position.y][position.x] = symbols.get(_door_name(door), "+")
    return ["".join(row) for row in rows]


def _door_name(door: Door) -> str:
    if door.state == "broken":
        return "broken_door"
    if door.state == "open":
        return "open_door"
    if door.trapped:
        return "trapped_door"
    return "locked_door" if door.locked else "door"


def snapshot(world: World) -> dict[str, Any]:
    """JSON-ready state: pulse, map, creatures, items, fires, doors, water bodies."""
    wait, daze = world.lag.wait, world.lag.daze
    creatures: dict[str, Any] = {}
    for entity in world.by_id.values():
        creature = esper.component_for_entity(entity, Creature)
        position = esper.component_for_entity(entity, Position)
        vitals = esper.component_for_entity(entity, Vitals)
        statuses = esper.component_for_entity(entity, Statuses)
        affects = esper.component_for_entity(entity, Affects)
        sheet = world.sheets[entity]
        creatures[creature.id] = {
            "at": [position.x, position.y], "hp": vitals.hp, "max_hp": vitals.max_hp,
            "alive": vitals.alive, "wait": int(wait[creature.slot]),
            "daze": int(daze[creature.slot]), "statuses": dict(statuses.degrees),
            "affects": list(affects.levels), "position": vitals.position,
            "player": creature.player, "glyph": glyph_of(world, creature),
            "level": sheet.level.level,
            "side": creature.side, "mind": sheet.mind.name,
            "fighting": sheet.combat.fighting,
            "mana": current_mana(world, sheet), "max_mana": vitals.max_mana,
        }
    items = []
    for _entity, (_spawn, position, stack) in sorted(
            esper.get_components(Spawn, Position, ItemStack), key=lambda row: row[1][0].number):
        items.append({"at": [position.x, position.y], "item": stack.item, "count": stack.count})
    chests = []
    for _entity, (_spawn, position, chest) in sorted(
            esper.get_components(Spawn, Position, Chest), key=lambda row: row[1][0].number):
        chests.append({"at": [position.x, position.y], "item": chest.item,
                       "contents": [{"item": s.item, "count": s.count} for s in chest.contents]})
    fires = sorted(({"at": [p.x, p.y], "pulses_left": f.pulses_left(world.pulse),
                     "cause": f.cause}
                    for _e, (p, f) in esper.get_components(Position, Fire)),
                   key=lambda row: (row["at"][1], row["at"][0]))
    doors = sorted(({"at": [p.x, p.y], "state": d.state, "locked": d.locked,
                     "trapped": d.trapped, "broken_by": d.broken_by}
                    for _e, (p, d) in esper.get_components(Position, Door)),
                   key=lambda row: (row["at"][1], row["at"][0]))
    # Every body's cells, each sorted, from the label array (the truth, R-TERR-4).
    bodies = sorted(sorted(cells.tolist()) for cells in world.grid.all_body_cells())
    return {"pulse": world.pulse, "map": map_rows(world), "creatures": creatures,
            "items": items, "chests": chests, "fires": fires, "doors": doors,
            "water_bodies": bodies}
