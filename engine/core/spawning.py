"""Spawning creatures, the fast way: `World.add_creature`'s work with what can wait done
once per batch.

Spawning was 17 us a creature, most of it bookkeeping repeated per creature: esper's
`create_entity` walking sixteen components into sixteen sets, the sheet gathered back
out of esper by a dict walk, five numpy writes of one item each into the roster, the
grid's version and a stir of the resting minds. A `SpawnBatch` writes each creature's
own state at once (its entity and components in esper, its id, its cell, its sheet, its
mind, stun and statuses) and leaves to `flush` what only the batch's end can tell
apart: esper's per-type sets, the roster's columns, the grid's version, the stir. Nothing
in between reads those (a spawn runs no rule and no hook), and `flush` runs in a
`finally`, so a world after a batch, even one cut short by a bad entry, is the world
the calls one by one leave: the same entities, components (in the same order), sets,
sheets, rows, spawn numbers and draws (none).

A creature whose values are not plain (a component of another type than its field's,
an unknown profession) takes `World._add_generic`, the reference path, after a flush;
so does an `add_creatures` entry not plainly right, through `World._creature_entry`,
which names what is wrong (UsageError).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import esper

from affray.components import (
    Affects,
    Combat,
    Creature,
    Defense,
    Equipment,
    Immunities,
    Level,
    Mind,
    Offense,
    Position,
    Skills,
    Spawn,
    Stats,
    Statuses,
    Vitals,
)
from affray.core.actions import ActionQueue
from affray.data.creatures import CreatureValues
from affray.systems.rules.minds import stir
from affray.systems.rules.sheet import Sheet
from affray.systems.rules.statuses import begin as begin_statuses

if TYPE_CHECKING:
    from affray.core.world import World

# `World.add_creatures` collects the youngest generation every so many creatures, while
# their objects are in the CPU's caches (affray.core.collector): a few hundred creatures'
# objects fit a core's L2 cache.
SWEEP_EVERY = 256

# A creature entity's components, in `World._add_generic`'s order (`create_entity`'s
# arguments): esper's entity dict and the per-type sets get them in this order.
KINDS: tuple[type, ...] = (Spawn, Position, Creature, Vitals, Level, Stats, Offense, Defense,
                           Immunities, Affects, Statuses, Skills, Equipment, Combat,
                           ActionQueue, Mind)

# The types of CreatureValues' components, field by field (`plain`).
_VALUE_KINDS: tuple[type, ...] = (Vitals, Level, Stats, Offense, Defense, Immunities, Affects,
                                  Statuses, Skills, Equipment, Combat, Mind)


def plain(values: CreatureValues, content: Any) -> bool:
    """The values are what `resolve` and `Copier` make: each component of its field's own
    type (esper files a component under its exact type, the sheet reads them so) and a
    profession content defines. Other values take the reference path."""
    return (type(values) is CreatureValues and values.profession in content.professions
            and (type(values.vitals), type(values.level), type(values.stats),
                 type(values.offense), type(values.defense), type(values.immunities),
                 type(values.affects), type(values.statuses), type(values.skills),
                 type(values.equipment), type(values.combat),
                 type(values.mind)) == _VALUE_KINDS)


class SpawnBatch:
    """Creatures being added to one world, in order; `flush` (always, in a `finally`)
    writes what their adds left for the end."""

    __slots__ = ("entities", "rows", "sheets", "world")

    def __init__(self, world: World) -> None:
        self.world = world
        self.entities: list[int] = []
        self.sheets: list[Sheet] = []
        # What the roster takes of each (Roster.put_many), read while it is at hand.
        self.rows: list[tuple[int, int, int, int, str, bool]] = []

    def entry(self, index: int, entry: object, template: str | None) -> int:
        """An `add_creatures` entry (id, (x, y), values): added at once when it is plainly
        right (a tuple; a non-empty str; a tuple of two ints on the map, free; values;
        a new id), else checked as `World._creature_entry` checks it, which names the
        problem (UsageError) or hands it on."""
        world = self.world
        if type(entry) is tuple and len(entry) == 3:
            creature_id, at, values = entry
            if (type(creature_id) is str and creature_id and type(at) is tuple
                    and len(at) == 2 and type(values) is CreatureValues):
                x, y = at
                grid = world.grid
                if (type(x) is int and type(y) is int and 0 <= x < grid.width
                        and 0 <= y < grid.height and creature_id not in world.by_id
                        and not grid.occupant[y, x]):
                    return self.add(creature_id, x, y, values, template)
        self.flush()  # what follows sees (and extends) the world as the batch left it
        return world.add_creature(*world._creature_entry(index, entry), template=template)

    def checked(self, creature_id: str, at: tuple[int, int], values: CreatureValues,
                template: str | None) -> int:
        """`World.add_creature`'s form: a new id and a free cell, else a ValueError
        (nothing added for it); its entity."""
        x, y = at
        if creature_id in self.world.by_id:
            raise ValueError(f"duplicate creature id {creature_id!r}")
        if self.world.grid.occupant[y, x]:
            raise ValueError(f"cell {list(at)} is already occupied")
        return self.add(creature_id, x, y, values, template)

    def add(self, creature_id: str, x: int, y: int, values: CreatureValues,
            template: str | None) -> int:
        """A creature on a free cell under a new id (checked by the caller); its entity.
        What `World._add_generic` does, in its order, but for `flush`'s part."""
        world = self.world
        if not plain(values, world.content):
            self.flush()
            return world._add_generic(creature_id, x, y, values, template)
        pulse = world.pulse
        vitals = values.vitals
        vitals.move_pulse = pulse  # movement regenerates from now on
        vitals.mana_pulse = pulse  # and mana (R-BOOK-2)
        creature = Creature(creature_id, world.lag.new_slot(), template, values.race,
                            values.profession, values.player, values.undead,
                            values.immortal, values.npc_tier, values.side)
        spawn = world.next_spawn()  # R-GRID-3
        position = Position(x, y)
        mind = values.mind
        parts: dict[type, Any] = {
            Spawn: spawn, Position: position, Creature: creature, Vitals: vitals,
            Level: values.level, Stats: values.stats, Offense: values.offense,
            Defense: values.defense, Immunities: values.immunities, Affects: values.affects,
            Statuses: values.statuses, Skills: values.skills, Equipment: values.equipment,
            Combat: values.combat, ActionQueue: ActionQueue([]), Mind: mind}
        entity: int = next(esper._entity_count)  # esper.create_entity, sets left to flush
        esper._entities[entity] = parts
        self.entities.append(entity)
        world.by_id[creature_id] = entity
        world.grid.occupant[y, x] = entity
        equipment = values.equipment
        sheet = world.sheets[entity] = Sheet(  # build_sheet's, from the parts in hand
            entity, spawn, creature, position, vitals, values.level, values.stats,
            values.offense, values.defense, values.immunities, values.affects,
            values.statuses, values.skills, equipment, values.combat,
            world.content.professions[values.profession], mind)
        if equipment.wield or equipment.worn:  # else a new sheet's gear fields are right
            sheet.refresh_gear(world.content)
        self.sheets.append(sheet)
        self.rows.append((creature.slot, entity, x, y, values.side, vitals.alive))
        if world.view_cache is not None:
            world.view_cache.touch(entity)
        if mind.name is not None:
            world.minded.add(entity)
        levels = values.affects.levels
        if "stun" in levels or "weak_stun" in levels:
            world.stunned.add(entity)
        if levels:
            since = values.affects.since
            for name in levels:
                since.setdefault(name, pulse)
        if values.statuses.degrees:
            begin_statuses(world, sheet)
        return entity

    def flush(self) -> None:
        """Write what the adds since the last flush left: each component type's esper
        set (in `KINDS` order, as `create_entity` would have made new ones), esper's
        query cache marked stale, the grid's version (one step a creature), the roster's
        rows, and one stir of the resting minds for them all (R-MIND-1: a newcomer logs
        no event). Then the batch is empty."""
        entities = self.entities
        if not entities:
            return
        world = self.world
        components = esper._components
        for kind in KINDS:
            members = components.get(kind)
            if members is None:
                members = components[kind] = set()
            if len(entities) == 1:  # `add_creature`: one set.add, as create_entity's
                members.add(entities[0])
            else:
                members.update(entities)
        esper.clear_cache()
        world.grid.version += len(entities)
        world.roster.put_many(self.sheets, self.rows)
        stir(world, newest=entities[-1])
        self.entities, self.sheets, self.rows = [], [], []
