"""`World.view()`: what a game draws each frame, one record per creature, at the cost of
what changed since the last frame rather than of the whole world.

`World.snapshot()` builds the whole state afresh (about 13 ms at 2,000 creatures): too
dear to call every frame. The view keeps one immutable `CreatureView` per creature in a
`ViewCache` (`World.view_cache`, made by the first `view()`, never saved) and, at each
`view()`, builds again only the records of the creatures that may have changed. How it
learns which (the same marks the world already keeps for its other per-creature caches,
docs/decisions.md, "`World.view()`: marked by events, not by every write"):

- every event logged since the view last looked marks the creatures it names
  (`source`, `target`, `actor`, `killer`, `cause`: `affray.core.events.mark_named`,
  which the vectorised round's column cache reads them by too): the engine logs an event for
  everything it does to a creature (a blow, a spell, a fight's start or end, a move, a
  push, a death, a status...);
- what logs nothing marks the creature where the roster hears of it: `World.place`,
  `World.add_creature`, `World.touch(id)` (a game's hand edit); `touch()` with no
  creature, a load (new sheets), another content, or a log that was replaced, edited
  or shrank makes the view start again;
- mana comes back with time, with no event (R-BOOK-2, computed when read): the
  records of creatures short of mana are built again whenever the clock crosses a
  regeneration tick (`casting.regen_pulses`);
- a big round's events still held as columns (`event_log`) are not built to be read:
  every record is built again instead (cheaper than the events, and such a round
  changes most of its fighters anyway).
"""

from __future__ import annotations

from itertools import islice
from types import MappingProxyType
from typing import TYPE_CHECKING, NamedTuple

from affray.core.event_log import EventLog
from affray.core.events import mark_named
from affray.display.replay import glyph_of
from affray.systems.rules.spellbook import current_mana

if TYPE_CHECKING:
    from collections.abc import Mapping

    from affray.core.world import World
    from affray.systems.rules.sheet import Sheet


class CreatureView(NamedTuple):
    """One creature as a game draws it: the snapshot's values of these fields (SCENARIO.md
    "final"), `cell` its `at` as a tuple. Immutable: a record that did not change is the
    same object from one `view()` to the next."""

    player: bool
    glyph: str
    side: str
    mind: str | None
    fighting: str | None
    level: int
    hp: int
    max_hp: int
    mana: int
    max_mana: int
    cell: tuple[int, int]
    alive: bool


def creature_view(world: World, sheet: Sheet) -> CreatureView:
    """A creature's record, computed from its components now."""
    creature, vitals, position = sheet.creature, sheet.vitals, sheet.position
    return CreatureView(
        player=creature.player, glyph=glyph_of(world, creature), side=creature.side,
        mind=sheet.mind.name, fighting=sheet.combat.fighting, level=sheet.level.level,
        hp=vitals.hp, max_hp=vitals.max_hp, mana=current_mana(world, sheet),
        max_mana=vitals.max_mana, cell=(position.x, position.y), alive=vitals.alive)


class ViewCache:
    """The records of `World.view()` and what tells them apart from the world now (the
    module docstring)."""

    def __init__(self, world: World) -> None:
        self.sheets_of = world.sheets       # a load replaces the dict: start again
        self.content = world.content
        self.log = world.events
        self.edits = world.events.edits if type(world.events) is EventLog else -1
        self.seen = len(world.events)       # the events already looked at
        self.dirty: set[int] = set()        # the entities whose records to build again
        self.short_of_mana: set[int] = set()
        self.regen_tick = self._regen_tick(world)
        self.records: dict[str, CreatureView] = {}
        self.mapping: Mapping[str, CreatureView] = MappingProxyType(self.records)
        sheets = world.sheets
        for entity in world.by_id.values():  # spawn order
            self._build(world, sheets[entity], entity)

    @staticmethod
    def _regen_tick(world: World) -> int:
        return world.pulse // world.content.world.casting.regen_pulses

    def touch(self, entity: int) -> None:
        """A creature changed in a way no event shows: build its record again."""
        self.dirty.add(entity)

    def _build(self, world: World, sheet: Sheet, entity: int) -> None:
        record = creature_view(world, sheet)
        if self.records.get(sheet.id) != record:
            self.records[sheet.id] = record
        if record.mana < record.max_mana:
            self.short_of_mana.add(entity)
        else:
            self.short_of_mana.discard(entity)

    def valid_for(self, world: World) -> bool:
        """False when the view must start again (the module docstring)."""
        events = world.events
        return (world.sheets is self.sheets_of and world.content is self.content
                and events is self.log and type(events) is EventLog
                and events.edits == self.edits and len(events) >= self.seen
                and not (events.pending and self.seen < events._tail_start()))

    def refresh(self, world: World) -> None:
        """Build again the records of what may have changed (`valid_for` holds)."""
        events = world.events
        by_id, dirty = world.by_id, self.dirty
        if len(events) > self.seen:
            mark_named(events[self.seen:], by_id, dirty)
            self.seen = len(events)
        tick = self._regen_tick(world)
        if tick != self.regen_tick:
            self.regen_tick = tick
            dirty |= self.short_of_mana
        sheets = world.sheets
        if len(self.records) < len(by_id):  # newcomers, in spawn order
            for entity in islice(by_id.values(), len(self.records), None):
                self._build(world, sheets[entity], entity)
                dirty.discard(entity)
        for entity in dirty:
            self._build(world, sheets[entity], entity)
        dirty.clear()


def view(world: World) -> Mapping[str, CreatureView]:
    """`World.view()`: the world's cache brought up to date, or a new one."""
    cache = world.view_cache
    if cache is None or not cache.valid_for(world):
        cache = world.view_cache = ViewCache(world)
    else:
        cache.refresh(world)
    return cache.mapping
