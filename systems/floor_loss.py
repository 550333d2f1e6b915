"""FloorItemLoss: floor items destroyed by area spells and breath (R-LOSS-1..7).

Reads `world.cast_records` (area, damage type, via, caster), the floor stacks (`Spawn`,
`Position`, `ItemStack` entities), content (`floor_loss`, `items`, `materials`,
`item_classes`) and `burst_spilled` (the stacks a broken chest spilled this pulse, which
the cast that broke it does not reach, R-FORCE-3). Writes the stacks' counts, deletes
the stacks that lose every item, and emits one `item_lost` event per stack that lost any.

Who is exposed (R-LOSS-1, R-LOSS-5): an area spell (burst, cone, line) from mana, scroll
or wand, and any breath, over every cell of its area; a trap's cast ruins nothing.
What can go (R-LOSS-4): only floor stacks, so carried and worn items (a creature's
equipment) and a chest's contents (inside a container) are never touched, nor an item
flagged indestructible.

Randomness (R-LOSS-2, R-GRID-6): one binomial draw per exposed stack (each of its items
lost at the row's chance), all stacks of a cast in one numpy call on the world's
generator, in spawn order: a seed fixes the log.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import esper
import numpy as np

from affray.components import ItemStack, Position, Spawn
from affray.events import ItemLost
from affray.systems.base import System
from affray.systems.burst import spilled_stacks

if TYPE_CHECKING:
    from affray.content_loader import Content
    from affray.defs import FloorLossDef
    from affray.systems.rules.casting import CastRecord
    from affray.world import World

EXPOSING_VIAS = ("mana", "scroll", "wand", "breath")  # R-LOSS-1; a trap ruins nothing


class Exposed(NamedTuple):
    """A floor stack a cast reaches whose items a row of the table fits."""

    spawn: int
    entity: int
    cell: tuple[int, int]
    stack: ItemStack
    chance: int


def loss_table(content: Content, damage_type: str) -> FloorLossDef | None:
    """The loss table of a canonical damage type (content names them by the seed's
    aliases: electricity, force, necrotic), or None when that type ruins nothing."""
    key = ("floor_loss", "tables")
    tables = content.cache.get(key)
    if tables is None:
        tables = {content.damage_type(name): table
                  for name, table in content.floor_loss.items()}
        content.cache[key] = tables
    return tables.get(damage_type)  # type: ignore[no-any-return]


def loss_chance(content: Content, damage_type: str, item: str) -> int | None:
    """R-LOSS-2/3: the chance (percent) of the first row that fits `item` for this
    damage type, by item class (a corpse is a food: `item_class_is`) or by the family of
    its main material; None when no row fits or it is indestructible (R-LOSS-4)."""
    key = ("floor_loss", damage_type, item)
    if key in content.cache:
        return content.cache[key]  # type: ignore[no-any-return]
    chance: int | None = None
    table = loss_table(content, damage_type)
    definition = content.items[item]
    if table is not None and not definition.indestructible:
        material = content.materials.get(definition.material)
        family = material.family if material is not None else None
        for row in table.rows:
            if row.item_class is not None:
                fits = content.item_class_is(definition.class_, row.item_class)
            else:
                fits = row.family == family
            if fits:
                chance = row.chance
                break
    content.cache[key] = chance
    return chance


def loss_message(content: Content, damage_type: str, item: str, count: int) -> str:
    """R-LOSS-7: "The {name} {verb}." for one, "{count} {plural} {verb_plural}." else."""
    table = loss_table(content, damage_type)
    assert table is not None
    definition = content.items[item]
    name = item.replace("_", " ")
    if count == 1:
        return f"The {name} {table.verb_one}."
    plural = definition.plural or f"{name}s"
    return f"{count} {plural} {table.verb_many}."


def exposes(record: CastRecord) -> bool:
    """R-LOSS-1 / R-LOSS-5: an area spell with a damage type from mana, scroll or wand,
    or a breath whatever its shape; never a trap's cast."""
    if record.via not in EXPOSING_VIAS or not record.damage_type:
        return False
    return record.via == "breath" or record.area_spell


def exposed_stacks(world: World, record: CastRecord, skip: set[int]) -> list[Exposed]:
    """The floor stacks on the cells of the cast's area that a row fits, in spawn order."""
    content, kind = world.content, record.damage_type
    area = set(record.area)
    found = []
    for entity, (spawn, position, stack) in esper.get_components(Spawn, Position, ItemStack):
        cell = (position.x, position.y)
        if cell not in area or entity in skip or stack.count < 1:
            continue
        chance = loss_chance(content, kind, stack.item)
        if chance:  # None: no row fits; 0: "Coins never" (no draw either way)
            found.append(Exposed(spawn.number, entity, cell, stack, chance))
    found.sort()
    return found


def lose_items(world: World, record: CastRecord, skip: set[int]) -> None:
    """One cast's losses: a binomial per stack, then an event per stack that lost any."""
    if loss_table(world.content, record.damage_type) is None:
        return
    exposed = exposed_stacks(world, record, skip)
    if not exposed:
        return
    counts = np.fromiter((e.stack.count for e in exposed), dtype=np.int64, count=len(exposed))
    chances = np.fromiter((e.chance for e in exposed), dtype=np.float64, count=len(exposed))
    lost = world.rng.numpy().binomial(counts, chances / 100.0)
    content, kind, cause, pulse = world.content, record.damage_type, record.caster_id, world.pulse
    emit = world.events.append
    for index in np.flatnonzero(lost).tolist():
        entry = exposed[index]
        gone = int(lost[index])
        stack = entry.stack
        stack.count -= gone
        if stack.count == 0:
            # R-LOSS-6: a corpse that burns away is gone, so it never rises.
            esper.delete_entity(entry.entity)
        emit(ItemLost(pulse, entry.cell, stack.item, gone, kind,
                      loss_message(content, kind, stack.item, gone), cause))


class FloorItemLossSystem(System):
    """Floor items lost to this pulse's area spells and breath, cast by cast (R-LOSS)."""

    name = "FloorItemLoss"
    rules = "R-LOSS-1..7 (floor items lost to area spells)"

    def process(self, world: World) -> None:
        records = getattr(world, "cast_records", ())
        if not records:
            return
        spilled = spilled_stacks(world)
        for index, record in enumerate(records):
            if exposes(record):
                lose_items(world, record, spilled.get(index, set()))

    def next_pulse(self, world: World) -> int | None:
        """None: floor losses follow a cast resolved in the same pulse, and the pulse a
        cast runs is reported by the Pulse system (World.run's skipping)."""
        return None
