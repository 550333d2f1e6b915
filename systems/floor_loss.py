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

from itertools import chain
from typing import TYPE_CHECKING

import esper
import numpy as np

from affray.components import ItemStack, Position, Spawn
from affray.core.events import ItemLost
from affray.systems.base import System
from affray.systems.burst import spilled_stacks

if TYPE_CHECKING:
    from affray.core.world import World
    from affray.data.content_loader import Content
    from affray.data.defs import FloorLossDef
    from affray.systems.rules.casting import CastRecord

EXPOSING_VIAS = ("mana", "scroll", "wand", "breath")  # R-LOSS-1; a trap ruins nothing


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
    return _message(content, table, item, count)


def _message(content: Content, table: FloorLossDef, item: str, count: int) -> str:
    name = item.replace("_", " ")
    if count == 1:
        return f"The {name} {table.verb_one}."
    plural = content.items[item].plural or f"{name}s"
    return f"{count} {plural} {table.verb_many}."


def exposes(record: CastRecord) -> bool:
    """R-LOSS-1 / R-LOSS-5: an area spell with a damage type from mana, scroll or wand,
    or a breath whatever its shape; never a trap's cast."""
    if record.via not in EXPOSING_VIAS or not record.damage_type:
        return False
    return record.via == "breath" or record.area_spell


class FloorIndex:
    """The floor stacks as numpy columns (spawn, x, y, item code), in spawn order.

    A cast's exposure is then a few array operations instead of an esper query and a
    Python pass over every stack (a 10,000-stack query alone costs ~15 ms). The index is
    kept in step with the `ItemStack` entities by set differences (C speed): stacks made
    since are appended (their spawn numbers are the newest, R-GRID-3), stacks gone are
    dropped. Counts are never copied: they are read from the components that a cast
    exposes, so they are never stale. Never saved: rebuilt after a load.

    Positions and item names are copied: the engine never moves a floor stack or changes
    what it is. A game that does must call `reset_floor_index(world)` after.
    Reads esper's private `_components` (esper 3.x, pinned `<4` in pyproject.toml).
    """

    def __init__(self) -> None:
        self.members: set[int] = set()
        self.entities = np.empty(0, dtype=np.int64)
        self.spawns = np.empty(0, dtype=np.int64)
        self.xs = np.empty(0, dtype=np.int64)
        self.ys = np.empty(0, dtype=np.int64)
        self.codes = np.empty(0, dtype=np.int64)
        self.stacks: list[ItemStack] = []
        self.item_codes: dict[str, int] = {}
        self.items: list[str] = []

    def sync(self) -> None:
        """Bring the index in step with the world's ItemStack entities (esper's own set of
        them: it has no public call for it, and its queries cost a Python pass)."""
        current = esper._components.get(ItemStack, set())
        if current == self.members:  # compared in place: the usual case copies nothing
            return
        live = set(current)
        gone = self.members - live
        if gone:
            keep = ~np.isin(self.entities, np.fromiter(gone, dtype=np.int64, count=len(gone)))
            self._take(keep)
            self.members -= gone
        new = live - self.members
        if new:
            self._append(sorted(new))

    def _take(self, keep: np.ndarray) -> None:
        self.entities, self.spawns = self.entities[keep], self.spawns[keep]
        self.xs, self.ys, self.codes = self.xs[keep], self.ys[keep], self.codes[keep]
        self.stacks = [stack for stack, kept in zip(self.stacks, keep.tolist(), strict=True)
                       if kept]

    def _append(self, entities: list[int]) -> None:
        rows = []
        database = esper._entities
        for entity in entities:
            parts = database[entity]
            spawn, position, stack = parts[Spawn], parts[Position], parts[ItemStack]
            code = self.item_codes.get(stack.item)
            if code is None:
                code = self.item_codes[stack.item] = len(self.items)
                self.items.append(stack.item)
            rows.append((spawn.number, position.x, position.y, code, entity, stack))
        rows.sort(key=lambda row: row[0])
        count = len(rows)
        columns = [np.fromiter((row[i] for row in rows), dtype=np.int64, count=count)
                   for i in range(5)]
        self.spawns = np.concatenate([self.spawns, columns[0]])
        self.xs = np.concatenate([self.xs, columns[1]])
        self.ys = np.concatenate([self.ys, columns[2]])
        self.codes = np.concatenate([self.codes, columns[3]])
        self.entities = np.concatenate([self.entities, columns[4]])
        self.stacks.extend(row[5] for row in rows)
        self.members.update(entities)
        if count and len(self.spawns) > count and columns[0][0] < self.spawns[-count - 1]:
            self._take(np.argsort(self.spawns, kind="stable"))  # restored out of order

    def chances(self, content: Content, damage_type: str) -> np.ndarray:
        """Each item code's loss chance for a damage type (0 where no row fits)."""
        return np.fromiter((loss_chance(content, damage_type, item) or 0
                            for item in self.items), dtype=np.int64, count=len(self.items))


INDEX = "floor_index"


def floor_index(world: World) -> FloorIndex:
    """The world's floor-stack index (a transient attribute, made on first use)."""
    index: FloorIndex | None = getattr(world, INDEX, None)
    if index is None:
        index = FloorIndex()
        setattr(world, INDEX, index)
    index.sync()
    return index


def reset_floor_index(world: World) -> None:
    """Forget the floor index (after a game moved a stack or changed its item)."""
    setattr(world, INDEX, None)


def lose_items(world: World, record: CastRecord, skip: set[int]) -> None:
    """One cast's losses: which stacks its area reaches and a row fits (numpy over the
    index), one binomial per such stack in spawn order, an event per stack that lost."""
    content, kind = world.content, record.damage_type
    if loss_table(content, kind) is None or not record.area:
        return
    index = floor_index(world)
    if not index.stacks:
        return
    grid = world.grid
    area = np.zeros((grid.height, grid.width), dtype=bool)
    flat = np.fromiter(chain.from_iterable(record.area), dtype=np.int64,
                       count=2 * len(record.area))
    area[flat[1::2], flat[0::2]] = True
    chance = index.chances(content, kind)[index.codes]
    exposed = np.flatnonzero(area[index.ys, index.xs] & (chance > 0))
    stacks = index.stacks
    if skip:  # R-FORCE-3: what this cast's blast spilled from a chest
        exposed = exposed[~np.isin(index.entities[exposed], list(skip))]
    counts = np.array([stacks[i].count for i in exposed.tolist()], dtype=np.int64)
    live = counts > 0  # a stack emptied earlier this pulse waits for esper's clean-up
    picked, counts = exposed[live], counts[live]
    if len(picked) == 0:
        return
    lost = world.rng.numpy().binomial(counts, chance[picked] / 100.0)
    hit = np.flatnonzero(lost)
    rows = picked[hit]
    _emit_losses(world, record, index, rows.tolist(), lost[hit].tolist())


def _emit_losses(world: World, record: CastRecord, index: FloorIndex, rows: list[int],
                 lost: list[int]) -> None:
    """Take the lost items off their stacks (deleting the emptied), one event each.

    Written as a few comprehensions rather than one loop: a cast over 10,000 stacks
    logs thousands of events, and this is its hot path.
    """
    content, kind, cause, pulse = world.content, record.damage_type, record.caster_id, world.pulse
    table = loss_table(content, kind)
    assert table is not None
    hit = [index.stacks[i] for i in rows]
    for stack, gone in zip(hit, lost, strict=True):
        stack.count -= gone
    entities = index.entities[rows].tolist()
    # R-LOSS-6: a stack that loses every item is gone (a burnt corpse never rises).
    for entity in [e for stack, e in zip(hit, entities, strict=True) if not stack.count]:
        esper.delete_entity(entity)
    items = [stack.item for stack in hit]
    # Messages by (item, count), kept across casts in the content's memo (content never
    # changes): a cast looks each up once, and makes only the ones never seen.
    known = content.cache.setdefault(("floor_loss", "messages", kind), {})
    texts = [known.get(key) for key in zip(items, lost, strict=True)]
    for n, text in enumerate(texts):
        if text is None:
            key = (items[n], lost[n])
            text = texts[n] = known.get(key) or _message(content, table, *key)
            known[key] = text
    cells = zip(index.xs[rows].tolist(), index.ys[rows].tolist(), strict=True)
    make = tuple.__new__  # an event without the NamedTuple's Python-level __new__
    world.events.extend([make(ItemLost, (pulse, cell, item, gone, kind, text, cause))
                         for cell, item, gone, text in zip(cells, items, lost, texts,
                                                           strict=True)])


class FloorItemLossSystem(System):
    """Floor items lost to this pulse's area spells and breath, cast by cast (R-LOSS)."""

    name = "FloorItemLoss"
    rules = "R-LOSS-1..7 (floor items lost to area spells)"
    own_pulses = False  # it follows the casts of the same pulse (World.next_pulse)

    def process(self, world: World) -> None:
        records = world.cast_records
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
