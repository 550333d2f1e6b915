"""The World: one esper context, one seeded generator, the clock, the log, the grid.

A game makes a World (usually through `load_scenario`), submits actions, and steps it
pulse by pulse with `tick()`; the World runs the eight systems of `SCHEDULE` in order
(R-TIME-4) and appends typed events to `events` (R-ENG-4).

esper keeps one global "current world": each World owns a unique context name, switches
to it on every entry point and back to the caller's current world after it
(`affray.core.esper_context`), and deletes it on `close()` or when garbage-collected, so
thousands of worlds can be made and dropped in one process beside a game's own.
"""

from __future__ import annotations

import itertools
import weakref
from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import Any

import esper
import numpy as np

from affray.components import (
    Chest,
    Creature,
    Door,
    ItemStack,
    Position,
    Spawn,
)
from affray.core.actions import ActionQueue, AnyAction, Casting, action_name
from affray.core.collector import collector_paused
from affray.core.errors import (
    ActionError,
    ClosedWorldError,
    HookError,
    UnknownCreatureError,
    UsageError,
)
from affray.core.esper_context import CONTEXT_PREFIX, entry_point, keeps_esper_world, restore
from affray.core.event_log import EventLog
from affray.core.events import Event, Refused
from affray.core.grid import Grid, Terrain
from affray.core.rng import Rng
from affray.core.spawning import SWEEP_EVERY, SpawnBatch
from affray.core.validate import (
    MAX_LAG,
    MAX_PULSE,
    check_action,
    check_count,
    living_target,
)
from affray.data.content_loader import Content
from affray.data.creatures import CreatureValues
from affray.systems import SCHEDULE, System
from affray.systems.rules.casting import CastRecord
from affray.systems.rules.engagement import rebuild_fought_by
from affray.systems.rules.hit import Hit
from affray.systems.rules.lag import LagTable
from affray.systems.rules.minds import after_settled, rebuild_minded, stir
from affray.systems.rules.minds.rest import Stirs
from affray.systems.rules.protections import default_protections
from affray.systems.rules.registry import Rules
from affray.systems.rules.roster import Roster, rebuild_roster
from affray.systems.rules.sheet import Sheet, build_sheet
from affray.systems.rules.sight_cache import SightCache
from affray.systems.rules.statuses import begin as begin_statuses
from affray.systems.rules.statuses import rebuild_status_index
from affray.systems.terrain import relabel_water, sync_bodies

_contexts = itertools.count(1)

# The scenario legend's default symbols (SCENARIO.md), and those the snapshot adds.
DEFAULT_LEGEND: dict[str, str] = {
    ".": "floor", "#": "wall", "~": "water", "_": "ice", "+": "door",
    "L": "locked_door", "T": "trapped_door", "'": "open_door", "/": "broken_door",
}


def _drop_context(name: str) -> None:
    """Delete an esper context; switch away first if it is the current one."""
    if name not in esper.list_worlds():
        return
    if esper.current_world == name:
        esper.switch_world("default")
    esper.delete_world(name)


class World:
    """A combat world: entities in esper, the grid in numpy, systems in a fixed order."""

    def __init__(self, content: Content, grid: Grid, seed: int = 0, *, name: str = "",
                 legend: dict[str, str] | None = None, rules: Rules | None = None,
                 water_bodies: int | None = None) -> None:
        """`rules` (default: a fresh `default_rules(content)`) must be this World's own.
        `water_bodies`, for a grid already labelled (`grid.body` right, `dirty` False),
        is its number of bodies: the labelling is not redone (a prepared scenario's
        runs, `affray.data.scenario.Blueprint`)."""
        self.context = f"{CONTEXT_PREFIX}{next(_contexts)}"
        previous = esper.current_world
        esper.switch_world(self.context)
        self._finalizer = weakref.finalize(self, _drop_context, self.context)
        try:
            self._init_state(content, grid, seed, name, legend, rules, water_bodies)
        finally:
            restore(previous)  # the caller's esper world stays current (esper_context)

    def _init_state(self, content: Content, grid: Grid, seed: int, name: str,
                    legend: dict[str, str] | None, rules: Rules | None,
                    water_bodies: int | None) -> None:
        """The constructor's work, in this world's esper context."""
        self.name = name
        self.seed = seed
        self.content = content
        self.grid = grid
        self.rng = Rng(seed)
        # "auto": big rounds take the vectorised path (systems/rules/volley.py); "never":
        # every blow through the scalar pipeline. Saved with the world.
        self._vectorise = "auto"
        # The vectorised round's fighters as numpy columns kept between rounds
        # (volley_columns.VolleyCache; never saved; `touch` after a hand edit).
        self.volley_cache: Any = None
        # `view()`'s records, made by its first call (affray.display.view.ViewCache; never saved).
        self.view_cache: Any = None
        self.pulse = 0
        # A list to its reader; a big round's events stay columns until read (event_log).
        self.events: EventLog = EventLog()
        self.systems: tuple[System, ...] = tuple(cls() for cls in SCHEDULE)
        # The systems `next_pulse` asks (own_pulses), worked out again if `systems` is
        # replaced.
        self._asked_of: tuple[System, ...] = ()
        self._asked: tuple[System, ...] = ()
        self.lag = LagTable()
        self.by_id: dict[str, int] = {}
        self.spawned = 0
        self.ready: set[int] = set()
        self.casts_due: list[Casting] = []
        # Casts resolved this pulse, for Arc, Burst and FloorItemLoss (never saved).
        self.cast_records: list[CastRecord] = []
        # Creatures with a timed status, and the next pulse one ticks or ends (R-STAT-*).
        self.afflicted: set[int] = set()
        self.status_due: int | None = None
        self.scripted: list[tuple[int, AnyAction]] = []
        self.end_pulse: int | None = None
        # The tables layered over the default content (a pack's, a scenario's inline
        # ones): what a save writes, so that a load rebuilds the same content.
        self.content_overlay: Any = content.overlay
        self.legend = dict(legend or DEFAULT_LEGEND)
        # A replay recorder (affray.display.replay) when `record()` was called (never saved).
        self.recorder: Any = None
        # A game's listeners (`on`): [kind, listener, the log index it has seen to].
        self.subscriptions: list[list[Any]] = []
        # Runtime views and indexes, rebuilt on load (never saved).
        self.sheets: dict[int, Sheet] = {}
        self.fighting: set[int] = set()
        # Who fights each creature (entity -> the entities whose target it is): derived
        # from Combat.fighting (systems/rules/engagement.py), rebuilt on load.
        self.fought_by: dict[int, set[int]] = {}
        # The living creatures with a mind (systems/rules/minds), and the minds' fields
        # of view and distance maps kept while nothing that blocks changes (sight.py).
        self.minded: set[int] = set()
        self.sight_cache: SightCache = SightCache()
        # Where creatures last changed, and the minds resting while nothing near them
        # does (systems/rules/minds/rest.py; made by the first minds' pulse, never saved).
        self.stirs: Stirs | None = None
        # Where each creature stands, its side, alive: numpy columns by lag slot, for
        # minds that look at many creatures at once (systems/rules/roster.py).
        self.roster = Roster()
        self.stunned: set[int] = set()
        self.rules = default_rules(content) if rules is None else rules
        self.rules.bind(self)  # hook owners are checked against this world (registry)
        # Set when a game's hook raised mid-pulse (registry.hook_failed): the world is
        # part-way through a pulse and refuses to tick on (HookError).
        self.broken: str | None = None
        if water_bodies is None:
            relabel_water(self)
        else:
            sync_bodies(water_bodies)

    # -- esper context -------------------------------------------------------------------
    def enter(self) -> None:
        """Make this world's esper context the current one (every entry point calls it)."""
        if not self._finalizer.alive:
            raise ClosedWorldError("this World was closed: load or build a new one")
        if esper.current_world != self.context:
            esper.switch_world(self.context)

    def close(self) -> None:
        """Drop the esper context and everything in it. The World is unusable after."""
        self._finalizer()

    def __enter__(self) -> World:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    @property
    def vectorise(self) -> str:
        """"auto": a combat round with at least `fight.vectorise_min_fighters` fighters
        computes its plain fighters' blows as numpy arrays (systems/rules/volley.py);
        "never": every blow through the scalar pipeline. Saved with the world."""
        return self._vectorise

    @vectorise.setter
    def vectorise(self, mode: str) -> None:
        if mode not in ("auto", "never"):
            raise UsageError(f"vectorise must be 'auto' or 'never', not {mode!r}")
        self._vectorise = mode

    @property
    def schedule(self) -> str:
        """The systems in the order every pulse runs them (R-TIME-4), one per line."""
        return "\n".join(f"{i}. {s.name:<14} {s.rules}" for i, s in enumerate(self.systems, 1))

    # -- spawning -------------------------------------------------------------------------
    def next_spawn(self) -> Spawn:
        """A new spawn number: strictly increasing, never reused (R-GRID-3)."""
        self.spawned += 1
        return Spawn(self.spawned)

    @entry_point
    def add_creature(self, creature_id: str, at: tuple[int, int],
                     values: CreatureValues | None = None, template: str | None = None,
                     **fields: Any) -> int:
        """Create a creature entity on a free cell; returns its entity id.

        The documented form takes the fields of a scenario's `[[creatures]]` entry as
        keywords (`add_creature("k1", (4, 2), template="kobold", hp=30, mind="pack")`),
        checked as a scenario checks an entry (`spawn`). The engine's own form takes
        values already resolved (`affray.data.creatures.resolve`), unchecked."""
        if values is None:
            return self.spawn(creature_id, at, template=template, **fields)
        if fields:
            raise UsageError(f"add_creature: give resolved values or the fields of a "
                             f"creature, not both (got {', '.join(fields)})")
        batch = SpawnBatch(self)
        try:
            return batch.checked(creature_id, at, values, template)
        finally:
            batch.flush()

    def _add_generic(self, creature_id: str, x: int, y: int, values: CreatureValues,
                     template: str | None) -> int:
        """`add_creature`'s work for any values, one step after another through esper's
        own calls: the reference `SpawnBatch.add` must match (tests/test_spawning.py),
        and the path of values it cannot take (`spawning.plain`)."""
        values.vitals.move_pulse = self.pulse  # movement regenerates from now on
        values.vitals.mana_pulse = self.pulse  # and mana (R-BOOK-2)
        creature = Creature(id=creature_id, slot=self.lag.new_slot(), template=template,
                            race=values.race, profession=values.profession,
                            player=values.player, undead=values.undead,
                            immortal=values.immortal, npc_tier=values.npc_tier,
                            side=values.side)
        entity = esper.create_entity(
            self.next_spawn(), Position(x, y), creature, values.vitals, values.level,
            values.stats, values.offense, values.defense, values.immunities, values.affects,
            values.statuses, values.skills, values.equipment, values.combat, ActionQueue(),
            values.mind)
        self.by_id[creature_id] = entity
        self.grid.occupant[y, x] = entity
        self.grid.version += 1
        sheet = self.sheets[entity] = build_sheet(entity, self.content)
        self.roster.put(sheet)
        if self.view_cache is not None:
            self.view_cache.touch(entity)
        stir(self)  # resting minds look again: a newcomer logs no event (R-MIND-1)
        if values.mind.name is not None:
            self.minded.add(entity)
        if sheet.has("stun") or sheet.has("weak_stun"):
            self.stunned.add(entity)
        for name in sheet.affects.levels:
            sheet.affects.since.setdefault(name, self.pulse)
        if sheet.statuses.degrees:
            begin_statuses(self, sheet)
        return entity

    @entry_point
    def add_creatures(self, creatures: Iterable[tuple[str, tuple[int, int], CreatureValues]],
                      template: str | None = None) -> list[int]:
        """Many `add_creature(id, at, values, template)` calls at once (the engine's form:
        resolved values, each creature its own, unchecked), in order; their entity ids.
        Python's cyclic collector is paused meanwhile (affray.core.collector): spawning ten
        thousand creatures makes hundreds of thousands of objects, none of them garbage,
        and the collector walking the growing world was a third of the time; only the
        youngest generation is collected, every `SWEEP_EVERY` creatures and after the
        last, while their objects are still in the CPU's caches (if the collector was on:
        `collector_paused`'s sweep). What can wait for the end of the batch (esper's
        per-type sets, the roster's columns...) is written once (`SpawnBatch`). Give each
        its own values: `affray.data.creatures.Copier(resolve(...))` makes fresh copies of one
        resolution far faster than resolving each.

        Each entry's shape is checked as it comes (an id, a cell on the map that nobody
        holds, values): a UsageError names the entry by its index and changes nothing
        for it; the entries before it stay added."""
        with collector_paused() as sweep:
            batch = SpawnBatch(self)
            entities: list[int] = []
            try:
                for index, entry in enumerate(creatures):
                    entities.append(batch.entry(index, entry, template))
                    if index % SWEEP_EVERY == SWEEP_EVERY - 1:
                        sweep()
            finally:
                batch.flush()
                if len(entities) >= SWEEP_EVERY:
                    sweep()  # the last few hundred, fresh too
            return entities

    def _creature_entry(self, index: int, entry: object
                        ) -> tuple[str, tuple[int, int], CreatureValues]:
        """An `add_creatures` entry, checked (`add_creatures`)."""
        call = f"add_creatures: entry {index}"
        if not isinstance(entry, tuple | list) or len(entry) != 3:
            raise UsageError(f"{call}: must be (id, at, values), got {entry!r}")
        creature_id, at, values = entry
        if not isinstance(creature_id, str) or not creature_id:
            raise UsageError(f"{call}: the id must be a non-empty str, got {creature_id!r}")
        x, y = _cell_argument(at, call)
        if not (0 <= x < self.grid.width and 0 <= y < self.grid.height):
            raise UsageError(f"{call} ({creature_id!r}): cell {[x, y]} is off the map "
                             f"({self.grid.width}x{self.grid.height})")
        if not isinstance(values, CreatureValues):
            raise UsageError(f"{call} ({creature_id!r}): values must be CreatureValues "
                             f"(affray.data.creatures.resolve), got {type(values).__name__}")
        if creature_id in self.by_id:
            raise UsageError(f"{call}: duplicate creature id {creature_id!r}")
        if self.grid.occupant[y, x]:
            raise UsageError(f"{call} ({creature_id!r}): cell {[x, y]} is already occupied")
        return creature_id, (x, y), values

    @entry_point
    def spawn(self, creature_id: str, at: tuple[int, int], **fields: Any) -> int:
        """Add a creature given by the fields of a scenario's `[[creatures]]` entry, as
        keywords (`template`, `hp`, `level`, `mind`, `side`, `skills`, `wield`,
        `fighting`...): checked as a scenario checks an entry, against the world as it
        is now (a free cell that is no wall or shut door, a new id, names content
        defines, a living foe beside it for `fighting`). A problem is a UsageError naming
        the creature and the field, and changes nothing. Returns the entity id."""
        from affray.data.scenario import creature_from_fields

        entry, values = creature_from_fields(self, creature_id, at, fields)
        entity = self.add_creature(entry.id, entry.at, values, template=entry.template)
        if entry.fighting is not None:
            self.start_fight(entry.id, entry.fighting)
        return entity

    @classmethod
    @keeps_esper_world  # the caller's esper world stays current (scenario.new_world's own)
    def new(cls, rows: Any, legend: dict[str, str] | None = None,
            content: Content | None = None, seed: int = 0, name: str = "") -> World:
        """A World built in code: `rows` are map rows in the scenario legend (a list of
        strings, or one block of text with a row a line), `legend` adds or overrides
        symbols (`{"W": "water"}`, as `[map.legend]`), `content` is what it is built on
        (default: the default content; `affray.load_content` for a game's own), `seed`
        seeds its one generator. It has the map's doors and water bodies and nothing
        else: add creatures, items and doors with `add_creature`, `add_item` and
        `add_door`. It has no end: `run()` needs `pulses` or `until`. A bad map is a
        UsageError naming the row and the symbol."""
        from affray.data.scenario import new_world

        return new_world(rows, legend=legend, content=content, seed=seed, name=name)

    # -- affects (use these, not the dict, so the stun index stays right) -----------------
    @entry_point
    def add_affect(self, creature_id: str, name: str, level: int = 0,
                   source: str = "script") -> None:
        """Give a creature an affect (sanctuary, stun, paralysis...)."""
        if name not in self.content.world.affects:
            raise ActionError(f"add_affect: unknown affect {name!r}")
        if isinstance(level, bool) or not isinstance(level, int):
            raise UsageError(f"add_affect: level must be a whole number, got {level!r}")
        sheet = self.sheet(creature_id)
        affects = sheet.affects
        if name in ("stun", "weak_stun"):
            if name == "stun" or not sheet.has("stun"):
                self.set_stun(sheet, name)
            return
        affects.levels[name] = level
        affects.sources[name] = source
        affects.since[name] = self.pulse
        self.touch(creature_id)

    @entry_point
    def remove_affect(self, creature_id: str, name: str) -> None:
        """Take an affect away (nothing happens if the creature lacks it)."""
        sheet = self.sheet(creature_id)
        if name in ("stun", "weak_stun"):
            if sheet.has(name):
                self.set_stun(sheet, "none")
            return
        for table in (sheet.affects.levels, sheet.affects.sources, sheet.affects.since):
            table.pop(name, None)
        self.touch(creature_id)

    def set_stun(self, sheet: Sheet, state: str) -> None:
        """Set a creature's stun state (stun, weak_stun or none) and emit a `stun` event."""
        from affray.core.events import Stun

        affects = sheet.affects
        for flag in ("stun", "weak_stun"):
            affects.levels.pop(flag, None)
            affects.sources.pop(flag, None)
            affects.since.pop(flag, None)
        if state == "none":
            self.stunned.discard(sheet.entity)
        else:
            affects.levels[state] = 0
            affects.sources[state] = "stun"
            affects.since[state] = self.pulse
            self.stunned.add(sheet.entity)
        self.emit(Stun(self.pulse, sheet.id, state))

    @entry_point
    def rebuild_views(self) -> None:
        """Rebuild the runtime views (sheets, the fighting and ready sets) from the
        components: after a load, they are derived, never saved; each holds what it
        holds in a run that was never saved (R-ENG-3). `ready` holds the living only:
        a death takes its creature out (`damage.kill`) and leaves its queue as it was."""
        self.sheets = {entity: build_sheet(entity, self.content)
                       for entity in self.by_id.values()}
        self.fighting = {entity for entity, sheet in self.sheets.items()
                         if sheet.vitals.alive and sheet.combat.fighting}
        self.stunned = {entity for entity, sheet in self.sheets.items()
                        if sheet.has("stun") or sheet.has("weak_stun")}
        self.ready = {entity for entity, sheet in self.sheets.items() if sheet.vitals.alive
                      and esper.component_for_entity(entity, ActionQueue).pending}
        rebuild_status_index(self)
        rebuild_fought_by(self)
        rebuild_minded(self)
        self.roster = rebuild_roster(self.sheets)
        self.sight_cache = SightCache()
        self.stirs = None

    def sheet(self, creature_id: str) -> Sheet:
        """The sheet (component references) of a creature by id; ActionError if unknown."""
        return self.sheets[self.entity(creature_id)]

    @entry_point
    def start_fight(self, attacker_id: str, victim_id: str, why: str = "scripted") -> None:
        """Make two creatures fight: `fight` events; the victim fights back when it is
        free, awake and above stunned (R-ACT-1). `why` is the attacker's event's reason
        (a game's own mind may say "aggressive" or "assist")."""
        from affray.core.validate import check_fight
        from affray.systems.rules.engagement import WHYS, start_fight

        if why not in WHYS:
            raise UsageError(f"start_fight: why must be one of {WHYS}, not {why!r}")
        attacker, victim = self.sheet(attacker_id), self.sheet(victim_id)
        check_fight(attacker, victim)  # ActionError, nothing changed
        start_fight(self, attacker, victim, why)
        self.touch(attacker_id)
        self.touch(victim_id)

    @entry_point
    def damage(self, source: str | None, target: str, amount: int, damage_type: str,
               flags: tuple[str, ...] = ("other",), *, cause: str = "script",
               spell: str | None = None) -> int:
        """Deal scripted damage through the damage pipeline (R-DMG-1).

        `cause="raw"` skips the protections (the source's rawdamage). Returns the hit
        points lost. A kill raises `affray.VictimDeath` (R-DMG-2): a hook that kills must
        let it propagate; a game calling this outside a tick catches it.
        """
        from affray.systems.rules.damage import damage_hit
        from affray.systems.rules.immunity import FLAG_BITS, flags_of
        from affray.systems.rules.tohit import effective_hitroll

        canonical = self.content.damage_type(damage_type)
        if canonical is None:
            raise ActionError(f"damage: unknown damage type {damage_type!r}")
        if isinstance(flags, str):
            raise ActionError(f"damage: flags must be a tuple of flag names, got {flags!r}")
        unknown = [flag for flag in flags if flag not in FLAG_BITS]
        if unknown:
            raise ActionError(f"damage: unknown damage flag {unknown[0]!r}")
        victim = living_target(self, target, "damage")
        attacker = None
        if source is not None:
            if source not in self.by_id:
                raise ActionError(f"damage: unknown source {source!r}")
            attacker = self.sheet(source)
        if isinstance(amount, bool) or not isinstance(amount, int) or amount < 0:
            raise ActionError(f"damage: amount must be a whole number 0 or more, got "
                              f"{amount!r}")
        hit = Hit(source=attacker, victim=self.sheets[victim], dam=int(amount),
                  damage_type=canonical, flags=flags_of(flags), melee=False, cause=cause,
                  spell=spell)
        if attacker is not None:  # R-HIT-7: no blow skill here: hitroll at 100%
            hit.pierce = effective_hitroll(attacker, 100, self.content)
        return damage_hit(self, hit)

    @entry_point
    def add_item(self, item: str, at: tuple[int, int], count: int = 1) -> int:
        """Lay a stack of items on a cell (R-GRID-4); containers become chests (fill one
        with `component_of(entity, Chest).contents`). Checked as a scenario's
        `[[items]]` entry: an item content defines, a cell on the map and not a wall, a
        count of 1..`world.limits.max_stack` (a container: 1); a problem is a
        UsageError and changes nothing."""
        from affray.data.scenario import item_problem

        cell = _cell_argument(at, "add_item")
        if not isinstance(item, str):
            raise UsageError(f"add_item: item must be an item name, got {item!r}")
        if isinstance(count, bool) or not isinstance(count, int):
            raise UsageError(f"add_item: count must be a whole number, got {count!r}")
        problem = item_problem(self.content, self.grid, item, cell, count)
        if problem is not None:
            raise UsageError(f"add_item: item {item!r}, field '{problem[0]}': {problem[1]}")
        return self._lay_item(item, cell, count)

    @entry_point
    def _lay_item(self, item: str, at: tuple[int, int], count: int = 1) -> int:
        """`add_item` without its checks of the cell and the count: the engine's own
        items on cells it knows (a corpse where a creature stood, R-DMG-2: on the map,
        no wall). An item content does not define is still `add_item`'s UsageError."""
        definition = self.content.items.get(item)
        if definition is None:
            return self.add_item(item, at, count)  # its UsageError
        if self.content.item_class_is(definition.class_, "container"):
            return esper.create_entity(self.next_spawn(), Position(*at),
                                       Chest(item=item, hardness=definition.hardness))
        return esper.create_entity(self.next_spawn(), Position(*at), ItemStack(item, count))

    @entry_point
    def add_door(self, at: tuple[int, int], door: Door | None = None, *,
                 locked: bool = False, trapped: bool = False, state: str = "shut") -> int:
        """Put a door on a cell: a floor cell becomes a door cell (R-GRID-1: a shut door
        blocks movement, sight and line of effect; an open one does not). `state` is
        shut, open or broken; a locked or trapped door is shut. Refused with a
        UsageError, changing nothing: a cell off the map, a wall, water or ice, a cell
        that has a door, one a creature stands on, a shut door over items. Minds look
        again (`grid.changed_terrain`). Returns the door's entity.

        The engine's own form, `add_door(at, Door(...))` on a cell the map made a door
        cell, is not checked (a scenario's build)."""
        if door is None:
            door = self._checked_door(at, locked, trapped, state)
            at = (int(at[0]), int(at[1]))
            self.grid.terrain[at[1], at[0]] = Terrain.DOOR
        self.grid.shut[at[1], at[0]] = door.state == "shut"
        self.grid.changed_terrain()
        return esper.create_entity(Position(*at), door)

    def _checked_door(self, at: Any, locked: bool, trapped: bool, state: str) -> Door:
        """`add_door`'s checks (UsageError); the Door it would put on `at`."""
        from affray.components.cells import DOOR_STATES
        from affray.core.validate import door_at, doorway_problem

        x, y = _cell_argument(at, "add_door")
        where = f"add_door: [{x}, {y}]"
        if state not in DOOR_STATES:
            raise UsageError(f"{where}: state must be one of {', '.join(DOOR_STATES)}, "
                             f"not {state!r}")
        for flag, value in (("locked", locked), ("trapped", trapped)):
            if not isinstance(value, bool):
                raise UsageError(f"{where}: {flag} must be True or False, got {value!r}")
            if value and state != "shut":
                raise UsageError(f"{where}: a {state} door is not {flag} (only a shut "
                                 f"door is)")
        if not self.grid.in_bounds(x, y):
            raise UsageError(f"{where} is off the map ({self.grid.width}x{self.grid.height})")
        terrain = Terrain(int(self.grid.terrain[y, x]))
        if door_at((x, y)) is not None:
            raise UsageError(f"{where} has a door already")
        if terrain not in (Terrain.FLOOR, Terrain.DOOR):
            raise UsageError(f"{where} is {terrain.name.lower()}: a door stands on floor")
        if self.grid.occupant[y, x]:
            raise UsageError(f"{where}: a creature stands there")
        if state == "shut" and doorway_problem(self, (x, y)) is not None:
            raise UsageError(f"{where}: items lie there, and a shut door cannot stand "
                             f"over them")
        bound = self.content.world.limits.max_doors
        if len(esper.get_component(Door)) >= bound:
            raise UsageError(f"{where}: the world has {bound} doors, the most content "
                             f"allows (world.limits.max_doors)")
        return Door(state=state, locked=locked, trapped=trapped)

    def place(self, entity: int, position: Position, x: int, y: int,
              why: str = "apart") -> None:
        """Move a creature to (x, y), keeping occupancy in step; a fight whose two are no
        longer beside each other ends at once (R-ACT-3, `why`: apart, or fled)."""
        from affray.systems.rules.engagement import moved_apart
        from affray.systems.rules.minds.rest import stamp_partners

        grid = self.grid
        grid.occupant[position.y, position.x] = 0
        stirs = self.stirs
        if stirs is not None:  # resting minds near either cell look again (minds/rest.py)
            stirs.stamp(position.x, position.y)
            stirs.stamp(x, y)
        position.x, position.y = x, y
        grid.occupant[y, x] = entity
        grid.version += 1
        if self.volley_cache is not None:
            self.volley_cache.touch(entity)
        if self.view_cache is not None:
            self.view_cache.touch(entity)
        sheet = self.sheets.get(entity)
        if sheet is not None:
            self.roster.moved(sheet)
            if sheet.combat.fighting is not None or entity in self.fought_by:
                if stirs is not None:
                    stamp_partners(self, sheet)
                moved_apart(self, sheet, why)

    # -- queries ----------------------------------------------------------------------------
    def entity(self, creature_id: str) -> int:
        """The entity of a creature id; UnknownCreatureError (an ActionError and a
        KeyError) if unknown."""
        try:
            return self.by_id[creature_id]
        except (KeyError, TypeError):  # TypeError: an unhashable id, e.g. a list
            known = ", ".join(itertools.islice(self.by_id, 10)) or "none"
            more = ", ..." if len(self.by_id) > 10 else ""
            raise UnknownCreatureError(f"unknown creature {creature_id!r} (known: "
                                       f"{known}{more})") from None

    @entry_point
    def component(self, creature_id: str, component_type: type) -> Any:
        """A creature's component by creature id."""
        return esper.component_for_entity(self.entity(creature_id), component_type)

    @entry_point
    def component_of(self, entity: int, component_type: type) -> Any:
        """A component of an entity, or None."""
        return esper.try_component(entity, component_type)

    @entry_point
    def wait_of(self, creature_id: str) -> int:
        """The creature's wait in pulses (R-LAG-1)."""
        return int(self.lag.wait[esper.component_for_entity(self.entity(creature_id),
                                                            Creature).slot])

    @entry_point
    def set_wait(self, creature_id: str, pulses: int) -> int:
        """The scripting field `wait`: assigns as given, so a script can shorten or clear
        lag; only a raise meets an NPC tier's cut (R-LAG-7). Returns the new wait."""
        from affray.systems.rules.lag import script_set_lag

        sheet = self.sheet(creature_id)
        return script_set_lag(self, sheet, "wait",
                              check_count(pulses, "set_wait: pulses", MAX_LAG))

    @entry_point
    def set_daze(self, creature_id: str, pulses: int) -> int:
        """The scripting field `daze`, as `set_wait` (R-LAG-7). Returns the new daze."""
        from affray.systems.rules.lag import script_set_lag

        sheet = self.sheet(creature_id)
        return script_set_lag(self, sheet, "daze",
                              check_count(pulses, "set_daze: pulses", MAX_LAG))

    @entry_point
    def daze_of(self, creature_id: str) -> int:
        """The creature's daze in pulses (R-LAG-1)."""
        return int(self.lag.daze[esper.component_for_entity(self.entity(creature_id),
                                                            Creature).slot])

    def touch(self, creature_id: str | None = None) -> None:
        """Tell the engine a creature's components were changed by hand (None: any
        creature, or many): the vectorised round's cached columns, the minds' roster,
        their kept blocking fields and rest records, and `view()` read it again. The
        engine's own changes and the API's need no call (docs/api.md)."""
        from affray.systems.rules.minds.rest import forget_all

        entity = None if creature_id is None else self.entity(creature_id)
        if self.volley_cache is not None:
            self.volley_cache.touch(entity)
        # What else may have moved unseen: the cells (the blocking fields kept while
        # `Grid.version` stands, walking.blocking_field) and what resting minds read
        # (minds/rest.py: no stamp says it). Both are looked at again.
        self.grid.version += 1
        forget_all(self)
        if entity is None:
            self.roster = rebuild_roster(self.sheets)
            self.view_cache = None
        else:
            self.roster.put(self.sheets[entity])
            if self.view_cache is not None:
                self.view_cache.touch(entity)

    def emit(self, event: Event) -> None:
        """Append an event to the log (R-ENG-4). The hottest paths (a blow's miss,
        defence and damage events, the vectorised round, the flood) append to
        `self.events` directly instead, so overriding this method does not see every
        event: read `events` instead."""
        self.events.append(event)

    # -- actions ------------------------------------------------------------------------------
    @entry_point
    def submit(self, action: AnyAction) -> None:
        """Check an action now and queue it on its actor (R-ENG-2, R-LAG-2).

        Raises ActionError, changing nothing, for an unknown or dead actor, an unknown
        spell or target, or a target out of bounds or out of range.
        """
        entity = check_action(self, action)
        queue = esper.component_for_entity(entity, ActionQueue)
        queue.pending.append(action)
        self.ready.add(entity)

    @entry_point
    def preview(self, actor: str, spell: str, target: str | tuple[int, int],
                reveal: bool = False) -> Any:
        """The cells a cast of `spell` by `actor` at `target` would reach: the shape's
        area and nothing else (R-ELEC-7): no arcs, no water spread, no randomness drawn,
        the world unchanged. The cast is checked as `submit` checks it (ActionError), from
        where the actor will stand when it would run (after its queued moves).

        `reveal=True` is for tools and AI, not for a player's aim: a dict with `cells`
        (as above), `struck` (the ids the shape itself strikes, in spawn order) and
        `water` (for electricity, the ids the water bodies of those struck would carry the
        cast to if they were harmed, in spawn order; never the random arcs).
        """
        from affray.core.actions import Cast
        from affray.core.validate import as_cell, projected_cell
        from affray.systems.rules.shapes import resolve_shape

        caster = check_action(self, Cast(actor=actor, spell=spell, target=target))
        definition = self.content.spells[spell]
        struck: int | None = None
        if isinstance(target, str):
            struck = living_target(self, target, "cast")
            position = esper.component_for_entity(struck, Position)
            aim = (position.x, position.y)
        else:
            aim = as_cell(target, "cast", "target")
        shape = resolve_shape(
            self.grid, definition.shape, projected_cell(caster), aim, range_=definition.range,
            radius=definition.radius, caster=caster, target=struck,
            spawn_of=lambda entity: esper.component_for_entity(entity, Spawn).number)
        if not reveal:
            return list(shape.area)
        return {"cells": list(shape.area), "struck": [self.sheets[e].id for e in shape.victims],
                "water": self._water_reach(definition.type, shape.victims)}

    def _water_reach(self, spell_type: str, victims: tuple[int, ...]) -> list[str]:
        """The creatures the water would carry an electricity cast to from `victims`
        (R-ELEC-3), in spawn order, the victims themselves left out."""
        from affray.core.grid import Terrain
        from affray.systems.terrain import body_members

        if self.content.damage_type(spell_type) != "lightning":
            return []
        labels = {int(self.grid.body[self.sheets[e].position.y, self.sheets[e].position.x])
                  for e in victims
                  if self.grid.terrain[self.sheets[e].position.y,
                                       self.sheets[e].position.x] == Terrain.WATER}
        carried = {member for label in labels if label
                   for member in body_members(self, label)} - set(victims)
        return [self.sheets[e].id for e in sorted(carried,
                                                  key=lambda e: self.sheets[e].spawn.number)]

    # -- running ------------------------------------------------------------------------------
    def _refuse_if_broken(self) -> None:
        if self.broken is not None:
            raise HookError(f"this world stopped part-way through a pulse and cannot go "
                            f"on: {self.broken}; build it again or load a save")

    @entry_point
    def tick(self) -> None:
        """Run one pulse: scenario actions due now, then the eight systems in order.
        A hook that raises ends the tick with a HookError, and the world refuses to
        tick again (`broken`)."""
        self._refuse_if_broken()
        if self.scripted:
            self._submit_scripted()
        for system in self.systems:
            system.process(self)
        esper.clear_dead_entities()
        self.pulse += 1
        if self.recorder is not None:
            self.recorder.capture(self)
        if self.subscriptions:
            self._deliver()

    # -- subscriptions ------------------------------------------------------------------
    def on(self, kind: str, listener: Callable[[Any], Any]) -> None:
        """Call `listener(event)` for every event of `kind` (an event kind, or "*" for
        all) logged from now on, in log order, after each tick: never inside the
        pipeline, so it may read the world, render, even submit. Not saved (code, as
        hooks): subscribe again on a loaded world. A listener that raises stops the
        delivery with a HookError naming it (the world is whole: the tick was over)."""
        from affray.core.events import EVENT_TYPES

        if kind != "*" and kind not in EVENT_TYPES:
            raise UsageError(f"on: unknown event kind {kind!r} (known: "
                             f"{', '.join(sorted(EVENT_TYPES))}, or '*')")
        if not callable(listener):
            raise UsageError(f"on: the listener must be callable, got {listener!r}")
        self.subscriptions.append([kind, listener, len(self.events)])

    def off(self, kind: str, listener: Callable[[Any], Any]) -> None:
        """Stop calling `listener` for `kind` (nothing happens if it was not subscribed)."""
        self.subscriptions = [s for s in self.subscriptions
                              if not (s[0] == kind and s[1] is listener)]

    def _deliver(self) -> None:
        """Hand each subscription the events logged since it last saw the log."""
        events = self.events
        end = len(events)
        start = min(s[2] for s in self.subscriptions)
        if start >= end:
            return
        for index, event in enumerate(events[start:end], start):
            for subscription in list(self.subscriptions):
                kind, listener, seen = subscription
                if index < seen or (kind != "*" and event.kind != kind):
                    continue
                subscription[2] = index + 1
                try:
                    listener(event)
                except Exception as error:
                    from affray.core.errors import HookError

                    name = getattr(listener, "__qualname__", repr(listener))
                    raise HookError(f"the {kind!r} listener {name} raised "
                                    f"{type(error).__name__}: {error} on the event "
                                    f"{event.to_dict()}") from error
        for subscription in self.subscriptions:
            subscription[2] = max(subscription[2], end)

    @entry_point
    def run(self, pulses: int | None = None,
            until: str | tuple[str, str] | None = None) -> None:
        """Run `pulses` pulses from now, or to the scenario's end when None.

        Pulses in which nothing can happen are jumped, not stepped: the log is the one
        `tick()` after `tick()` would give, event for event and pulse for pulse, and the
        world ends at the same pulse in the same state (see `next_pulse`).

        `until="settled"` stops early, at the first pulse from which nothing is left to
        happen (no fight, no queued action, no scenario action, nothing ticking), and
        logs a `settled` event there; a world that does not settle before the end stops
        at the end as usual, with no `settled` event. A world with no end (built through
        the API, `end_pulse` None) runs until it settles.

        `until=("free", creature_id)` stops as soon as that creature can act: an action
        submitted then runs in the next tick (alive, nothing queued, its wait at most 1,
        not stunned). It stops too when the creature dies or the world settles (with a
        `settled` event). A game's turn loop: `run(until=("free", "hero"))`, read the
        player's key, `submit`, again. With no `pulses` it runs past the scenario's end.
        """
        free_of = None
        if isinstance(until, tuple):
            if len(until) != 2 or until[0] != "free" or not isinstance(until[1], str):
                raise UsageError(f"run: until=('free', creature_id), not {until!r}")
            free_of = self.sheet(until[1])  # UnknownCreatureError if unknown
        elif until not in (None, "settled"):
            raise UsageError(f"run: until must be None, 'settled' or ('free', id), not "
                             f"{until!r}")
        self._refuse_if_broken()
        if pulses is not None:
            # The clock stays within 2 * MAX_PULSE (2**63): saves and arrays hold it.
            check_count(pulses, "run: pulses", max(0, 2 * MAX_PULSE - self.pulse))
        if pulses is None and (free_of is not None
                               or (self.end_pulse is None and until == "settled")):
            end = 2 * MAX_PULSE  # until it settles or the creature is free (clock's limit)
        elif pulses is None:
            end = max(self.pulse, self.end_pulse or 0)
        else:
            end = self.pulse + max(0, pulses)
        settles = until is not None
        while self.pulse < end:
            if free_of is not None:
                if self._can_act(free_of):
                    return
                free_at = self.pulse + max(int(self.lag.wait[free_of.creature.slot]) - 1, 0)
            due = self.next_pulse()
            if free_of is not None and not free_of.has("stun"):
                due = free_at if due is None else min(due, free_at)
            if due is None:
                if settles:
                    self._settle()
                    return
                due = end
            if due > self.pulse:
                self.skip(min(due, end) - self.pulse)
                if self.pulse >= end:
                    break
                continue  # look again: the creature may be free now
            self.tick()
        if settles and self.next_pulse() is None:
            self._settle()

    def _can_act(self, sheet: Sheet) -> bool:
        """`run(until=("free", id))`'s stop: dead, or an action submitted now would run
        in the next tick."""
        if not sheet.vitals.alive:
            return True
        return (sheet.entity not in self.ready and not sheet.has("stun")
                and int(self.lag.wait[sheet.creature.slot]) <= 1)

    @entry_point
    def next_pulse(self) -> int | None:
        """The first pulse, from now on, at which anything can happen; None when nothing
        ever will (the world is settled).

        The minimum of the next scenario action and every system's own `next_pulse`
        (a round of anyone fighting, a queued action's actor free of wait, a stun that
        wears off, a status tick...). A system that cannot tell answers "now", so an
        unknown system is never skipped over. Systems with no pulses of their own
        (`own_pulses` False: they follow the casts of their pulse) are not asked.
        """
        now = self.pulse
        due: int | None = None
        if self.scripted:
            due = self.scripted[0][0]
            if due <= now:
                return now
        if self._asked_of is not self.systems:  # the systems that can have a pulse
            self._asked_of = self.systems
            self._asked = tuple(system for system in self.systems if system.own_pulses)
        for system in self._asked:
            pulse = system.next_pulse(self)
            if pulse is not None and (due is None or pulse < due):
                if pulse <= now:
                    return now
                due = pulse
        return due

    def skip(self, pulses: int) -> None:
        """Jump `pulses` pulses in which nothing happens, in one step: wait and daze
        count down by the gap (R-LAG-1), never below 0, and the clock moves on.

        Only `run` calls this, over a gap `next_pulse` proved idle; skipping a pulse in
        which something was due would lose it.
        """
        if pulses <= 0:
            return
        self.lag.count_down(pulses)
        self.pulse += pulses
        if self.recorder is not None:
            self.recorder.capture(self)

    def _settle(self) -> None:
        """Log that nothing is left to happen from this pulse on: once, unless something
        happened since the last `settled` event."""
        from affray.core.events import Settled

        if not self.events or self.events[-1].kind != "settled":  # nothing new since
            self.emit(Settled(self.pulse))
            after_settled(self)  # the minds that rested rest on (R-MIND-7)

    def _submit_scripted(self) -> None:
        """Submit the scenario actions of this pulse; a refused one becomes an event."""
        while self.scripted and self.scripted[0][0] <= self.pulse:
            _pulse, action = self.scripted.pop(0)
            try:
                self.submit(action)
            except ActionError as error:
                self.emit(Refused(self.pulse, action.actor, action_name(action), str(error)))

    # -- output --------------------------------------------------------------------------------
    @entry_point
    def snapshot(self) -> dict[str, Any]:
        """The whole state as a JSON-ready dict (SCENARIO.md "final")."""
        from affray.display.snapshot import snapshot

        return snapshot(self)

    @entry_point
    def view(self) -> Mapping[str, Any]:
        """What a game draws each frame: creature id -> an immutable `CreatureView`
        (player, glyph, side, mind, fighting, level, hp, max_hp, mana, max_mana, cell,
        alive: the snapshot's values), in spawn order. It costs what changed since the
        last call, not the whole world: the records are kept (`view_cache`) and only
        those of creatures an event named, that moved, came or were `touch`ed since are
        built again (affray.display.view). A read-only mapping the next call updates: read it,
        or keep `dict(world.view())`; a record that did not change is the same object."""
        from affray.display.view import view

        return view(self)

    @entry_point
    def record(self) -> Any:
        """Start recording a replay: from now on every pulse is kept (a keyframe a
        round, deltas between; see affray.display.replay). Returns the `Recorder`."""
        from affray.display.replay import start_recording

        return start_recording(self)

    @entry_point
    def replay_html(self, path: str, pulses: int | None = None,
                    until: str | None = None) -> Any:
        """Write the replay page (one self-contained HTML file) to `path`.

        A world that is recording writes what it recorded, after running `pulses` more
        pulses (or `until="settled"`) if given. One that is not starts recording now and
        runs `pulses` (None: to the scenario's end; `until="settled"`: only until nothing
        is left to happen, as `run`) first. Returns the path written.
        """
        from affray.display.replay import record, write_html

        if self.recorder is None or pulses is not None or until is not None:
            record(self, pulses, until)
        return write_html(self, self.recorder, path)

    @entry_point
    def save(self, path: str) -> None:
        """Save the world as data (R-ENG-3); `affray.load_world(path)` continues it.
        A world a hook left part-way through a pulse is refused (HookError)."""
        self._refuse_if_broken()
        from affray.data.save import save_world

        save_world(self, path)

    def creature_ids(self) -> list[str]:
        """Creature ids in spawn order."""
        return list(self.by_id)

    def __repr__(self) -> str:
        return (f"World(name={self.name!r}, pulse={self.pulse}, creatures={len(self.by_id)}, "
                f"grid={self.grid.width}x{self.grid.height})")


# -- systems by name (saves keep a world's systems by name: register_system) ------------
_SYSTEMS: dict[str, type[System]] = {}
# The most systems a save holds (a bound on what a tampered save can make a load build).
MAX_SYSTEMS = 256


def _builtin_systems() -> dict[str, type[System]]:
    """The eight systems of the schedule (R-TIME-4), by their names."""
    return {cls.name: cls for cls in SCHEDULE}


def register_system(name: str, cls: type[System]) -> None:
    """Register a game's own system class under `name`, process-wide (systems are code,
    like minds and hooks): a World whose `systems` include an instance of `cls` saves it
    by that name, and a load makes a fresh `cls()` for it. `cls` subclasses
    `affray.systems.System` (`process(world)`, and `next_pulse(world)` if it can tell
    when it next has work). It is made anew at each load, so what it must remember
    belongs in the world's components, not in the instance. The eight built-in names
    (Pulse, Stun, Melee, Spell, Arc, Burst, FloorItemLoss, Terrain) are taken."""
    if not isinstance(name, str) or not name or not name.isprintable():
        raise UsageError(f"register_system: name must be a non-empty printable str, got "
                         f"{name!r}")
    if not isinstance(cls, type) or not issubclass(cls, System):
        raise UsageError(f"register_system: {cls!r} is not a subclass of "
                         f"affray.systems.System")
    builtin = _builtin_systems()
    if name in builtin:
        raise UsageError(f"register_system: {name!r} is a built-in system's name "
                         f"(built-in: {', '.join(builtin)})")
    if cls in builtin.values():
        raise UsageError(f"register_system: {cls.__name__} is built in, as {cls.name!r}: "
                         f"it is saved by that name without registering")
    _SYSTEMS[name] = cls


def unregister_system(name: str) -> None:
    """Forget a registered system (nothing happens if it is not registered)."""
    _SYSTEMS.pop(name, None)


def registered_systems() -> Mapping[str, type[System]]:
    """The systems games registered, by name (read-only; the built-in ones aside)."""
    return MappingProxyType(_SYSTEMS)


def system_name(system: object) -> str | None:
    """The name a system is saved by: a built-in's own, a registered class's; None for
    a system whose class is neither."""
    for registry in (_builtin_systems(), _SYSTEMS):
        for name, cls in registry.items():
            if type(system) is cls:
                return name
    return None


def system_class(name: str) -> type[System] | None:
    """The class a saved system name stands for (built-in or registered), or None."""
    return _builtin_systems().get(name) or _SYSTEMS.get(name)


def _cell_argument(at: object, call: str) -> tuple[int, int]:
    """A cell argument of the building calls: two whole numbers, or a UsageError."""
    if (not isinstance(at, tuple | list) or len(at) != 2
            or any(isinstance(v, bool) or not isinstance(v, int | np.integer) for v in at)):
        raise UsageError(f"{call}: at must be a cell (x, y) of two whole numbers, got {at!r}")
    return (int(at[0]), int(at[1]))


def default_rules(content: Content) -> Rules:
    """A fresh copy of the engine's default protections and defence chain."""
    from affray.systems.rules.defence import default_defences

    return Rules(protections=default_protections(), defences=default_defences(content))
