"""Checking a save's payload (R-ENG-3): a save edited and re-hashed passes its checksum,
so its values and cross references are checked here as strictly as a scenario's, before
anything is built from them. Every error is a SaveError naming the part of the payload.

The payload's shape was already checked by msgspec (`affray.save.SavePayload`); here each
component goes through its registered dataclass (generic over components), then: the
clock, the grid and lag arrays, entity ids and cells, creatures against `by_id`, the
occupancy grid, hit points and the names content defines, spawn numbers (R-GRID-3),
scripted actions and the event log.
"""

from __future__ import annotations

import binascii
import itertools
from typing import Any

import msgspec
import numpy as np
from msgspec import Struct

from affray.actions import AnyAction
from affray.components import (
    COMPONENTS,
    Affects,
    Combat,
    Creature,
    Equipment,
    Position,
    Skills,
    Spawn,
    Statuses,
    Vitals,
)
from affray.defs import POSITIONS, decode_error_field
from affray.errors import SaveError
from affray.events import event_from_dict
from affray.grid import Grid, Terrain
from affray.rng import Rng
from affray.save import SavePayload, _dec_hook, _decode_array, _enc_hook
from affray.scenario import MAX_SEED, TERRAIN_KINDS
from affray.systems.rules.lag import LagTable
from affray.validate import MAX_PULSE
from affray.world import DEFAULT_LEGEND

# A save may leave gaps in entity ids (deleted entities), but not absurd ones: each gap is
# a placeholder entity made and dropped on load.
MAX_ID_GAP = 1_000_000


class Parts(Struct, kw_only=True):
    """What `check_payload` decoded and checked, ready to put in a World."""

    terrain: Any
    ice_cm: Any
    shut: Any
    occupant: Any
    body: Any
    wait: Any
    daze: Any
    rng: Any
    entities: list[tuple[int, list[Any] | None]]
    scripted: list[tuple[int, Any]]
    events: list[Any]


def need(ok: bool, message: str) -> None:
    """SaveError(message) unless ok."""
    if not ok:
        raise SaveError(message)


def check_payload(data: SavePayload, content: Any) -> Parts:
    """Check a typed payload's values and cross references; SaveError names the part."""
    _check_clock(data)
    grid = _grid_arrays(data)
    lag = _lag_arrays(data)
    try:
        rng = Rng.from_state(msgspec.structs.asdict(data.rng))
    except (KeyError, TypeError, ValueError, binascii.Error) as error:
        raise SaveError(f"rng: not a generator state ({error})") from None
    entities, by_entity = _entities(data, grid["terrain"].shape)
    _check_creatures(data, by_entity, grid["occupant"], content)
    _check_links(data, by_entity)
    return Parts(terrain=grid["terrain"], ice_cm=grid["ice_cm"], shut=grid["shut"],
                 occupant=grid["occupant"], body=grid["body"], wait=lag["wait"],
                 daze=lag["daze"], rng=rng, entities=entities, scripted=_scripted(data),
                 events=_events(data))


def _check_clock(data: SavePayload) -> None:
    """Seed, pulse, the scenario's end (never before now), spawn count, legend."""
    need(0 <= data.seed <= MAX_SEED, f"seed: must be 0..{MAX_SEED}, got {data.seed}")
    need(0 <= data.pulse <= 2 * MAX_PULSE, f"pulse: must be 0..{2 * MAX_PULSE}, got "
         f"{data.pulse}")
    if data.end_pulse is not None:
        need(data.pulse <= data.end_pulse <= 2 * MAX_PULSE,
             f"end_pulse: {data.end_pulse} is before the current pulse {data.pulse}"
             if data.end_pulse < data.pulse else f"end_pulse: {data.end_pulse} is too large")
    need(data.spawned >= 0, f"spawned: must be 0 or more, got {data.spawned}")
    for symbol, name in data.legend.items():
        need(len(symbol) == 1, f"legend: symbol {symbol!r} must be one character")
        need(name in TERRAIN_KINDS or name in DEFAULT_LEGEND.values(),
             f"legend: {symbol!r} names unknown terrain {name!r}")


def _grid_arrays(data: SavePayload) -> dict[str, np.ndarray]:
    """The grid's arrays, each of the dtype a Grid makes and the terrain's shape."""
    reference = Grid(np.zeros((1, 1), dtype=np.uint8))
    arrays = {}
    for name in ("terrain", "ice_cm", "shut", "occupant", "body"):
        try:
            arrays[name] = _decode_array(getattr(data.grid, name),
                                         getattr(reference, name).dtype.str)
        except SaveError as error:
            raise SaveError(f"grid.{name}: {error}") from None
    terrain = arrays["terrain"]
    need(terrain.ndim == 2 and terrain.size > 0, "grid.terrain: must be a non-empty 2-D map")
    for name, array in arrays.items():
        need(array.shape == terrain.shape, f"grid.{name}: shape {list(array.shape)}, the "
             f"map is {list(terrain.shape)}")
    need(bool(np.isin(terrain, [int(t) for t in Terrain]).all()),
         "grid.terrain: holds a code that is no terrain")
    need(data.grid.labellings >= 0, "grid.labellings: must be 0 or more")
    return arrays


def _lag_arrays(data: SavePayload) -> dict[str, np.ndarray]:
    """wait and daze: 1-D, of the LagTable's dtype, long enough, never negative."""
    reference = LagTable()
    need(data.lag.count >= 0, "lag.count: must be 0 or more")
    lag = {}
    for name in ("wait", "daze"):
        try:
            lag[name] = _decode_array(getattr(data.lag, name),
                                      getattr(reference, name).dtype.str)
        except SaveError as error:
            raise SaveError(f"lag.{name}: {error}") from None
        need(lag[name].ndim == 1 and len(lag[name]) >= data.lag.count,
             f"lag.{name}: {lag[name].shape} cannot hold {data.lag.count} slots")
        need(bool((lag[name] >= 0).all()), f"lag.{name}: a negative {name}")
    return lag


def _component(name: str, value: Any, where: str) -> Any:
    """One saved component through its registered dataclass: its field types decide, and
    the value must encode back to exactly what was read (so unknown keys are errors)."""
    kind = COMPONENTS.get(name)
    if kind is None:
        raise SaveError(f"{where}: unknown component {name!r}")
    try:
        made = msgspec.convert(value, kind, dec_hook=_dec_hook)
    except msgspec.ValidationError as error:
        field_path, detail = decode_error_field(error)
        raise SaveError(f"{where}, component {name}"
                        + (f", field '{field_path}'" if field_path else "")
                        + f": {detail}") from None
    back = msgspec.json.decode(msgspec.json.encode(made, enc_hook=_enc_hook))
    if back != value:
        extra = sorted(set(value) - set(back)) if isinstance(value, dict) else []
        detail = (f"unknown field {extra[0]!r}" if extra
                  else "a value that does not round-trip (a nested unknown field?)")
        raise SaveError(f"{where}, component {name}: {detail}")
    return made


def _entities(data: SavePayload, shape: tuple[int, ...]
              ) -> tuple[list[tuple[int, list[Any] | None]], dict[int, dict[type, Any]]]:
    """Entity ids strictly increasing, components checked, positions on the map."""
    height, width = shape
    entities: list[tuple[int, list[Any] | None]] = []
    by_entity: dict[int, dict[type, Any]] = {}
    last = 0
    for entity, components in data.entities:
        where = f"entity {entity}"
        need(entity > last, f"{where}: entity ids must be 1 or more and increasing")
        last = entity
        made = [_component(name, value, where) for name, value in components.items()]
        by_entity[entity] = {type(part): part for part in made}
        entities.append((entity, made))
        position = by_entity[entity].get(Position)
        if position is not None:
            need(0 <= position.x < width and 0 <= position.y < height,
                 f"{where}: at [{position.x}, {position.y}], off the {width}x{height} map")
    need(data.next_entity > last, f"next_entity: {data.next_entity} must be above the last "
         f"entity id {last}")
    need(data.next_entity <= last + MAX_ID_GAP, f"next_entity: {data.next_entity} is absurd")
    return entities, by_entity


def _check_creatures(data: SavePayload, by_entity: dict[int, dict[type, Any]],
                     occupant: np.ndarray, content: Any) -> None:
    """by_id and the Creature components agree; each creature's slot, hit points,
    position and cell, and the names it uses; the occupancy grid holds exactly the
    living creatures."""
    from affray.creatures import known_skills

    slots: set[int] = set()
    occupied = 0
    known = known_skills(content)
    limit = content.world.limits.max_hp
    for creature_id, entity in data.by_id.items():
        where = f"creature {creature_id!r}"
        parts = by_entity.get(entity)
        need(parts is not None and Creature in parts,
             f"by_id: {where} names entity {entity}, which is no creature")
        assert parts is not None
        creature, vitals = parts[Creature], parts.get(Vitals)
        need(creature.id == creature_id, f"by_id: {where} names entity {entity}, whose "
             f"creature is {creature.id!r}")
        need(Position in parts and vitals is not None, f"{where}: lacks Position or Vitals")
        assert vitals is not None
        need(0 <= creature.slot < data.lag.count and creature.slot not in slots,
             f"{where}: lag slot {creature.slot} is out of range or shared")
        slots.add(creature.slot)
        need(1 <= vitals.max_hp <= limit,
             f"{where}: max_hp {vitals.max_hp} is outside 1..{limit}")
        need(vitals.hp <= vitals.max_hp, f"{where}: hp {vitals.hp} is above max_hp "
             f"{vitals.max_hp}")
        need(vitals.hp >= -limit, f"{where}: hp {vitals.hp} is absurd")
        need(vitals.position in POSITIONS, f"{where}: unknown position {vitals.position!r}")
        need(creature.profession in content.professions,
             f"{where}: unknown profession {creature.profession!r}")
        position = parts[Position]
        if vitals.alive:
            occupied += 1
            there = int(occupant[position.y, position.x])
            need(there == entity, f"{where}: stands at [{position.x}, {position.y}] but the "
                 f"grid's occupant there is {there}")
        _check_names(parts, content, known, where)
    for entity, parts in by_entity.items():
        if Creature in parts:
            need(data.by_id.get(parts[Creature].id) == entity,
                 f"entity {entity}: creature {parts[Creature].id!r} is missing from by_id")
        for kind in (Equipment, Statuses):
            if kind in parts and Creature not in parts:
                raise SaveError(f"entity {entity}: {kind.__name__} without a Creature")
    need(int(np.count_nonzero(occupant)) == occupied,
         "grid.occupant: names cells no living creature stands on")


def _check_links(data: SavePayload, by_entity: dict[int, dict[type, Any]]) -> None:
    """Spawn numbers unique and below `spawned` (R-GRID-3); fights between creatures."""
    spawns = [parts[Spawn].number for parts in by_entity.values() if Spawn in parts]
    need(len(spawns) == len(set(spawns)), "entities: two share a spawn number (R-GRID-3)")
    need(data.spawned >= max(spawns, default=0), f"spawned: {data.spawned} is below a spawn "
         f"number in use ({max(spawns, default=0)}): new spawns would reuse it (R-GRID-3)")
    for creature_id, entity in data.by_id.items():
        foe = by_entity[entity].get(Combat)
        if foe is not None and foe.fighting is not None:
            need(foe.fighting in data.by_id and foe.fighting != creature_id,
                 f"creature {creature_id!r}: fights {foe.fighting!r}, no other creature")


def _scripted(data: SavePayload) -> list[tuple[int, Any]]:
    """The scenario actions still to come: typed, by known actors, in pulse order."""
    scripted = []
    for index, (pulse, action) in enumerate(data.scripted):
        where = f"scripted[{index}]"
        need(0 <= pulse <= MAX_PULSE, f"{where}: pulse {pulse} out of 0..{MAX_PULSE}")
        try:
            typed = msgspec.convert(action, AnyAction)
        except msgspec.ValidationError as error:
            raise SaveError(f"{where}: not an action: {error}") from None
        need(typed.actor in data.by_id, f"{where}: unknown actor {typed.actor!r}")
        scripted.append((pulse, typed))
    need(all(a[0] <= b[0] for a, b in itertools.pairwise(scripted)),
         "scripted: actions out of pulse order")
    return scripted


def _events(data: SavePayload) -> list[Any]:
    """The event log, each event rebuilt from its dict (a known kind, every field)."""
    events = []
    for index, event in enumerate(data.events):
        try:
            events.append(event_from_dict(event))
        except KeyError as error:
            raise SaveError(f"events[{index}]: missing or unknown {error}") from None
        except (TypeError, ValueError) as error:
            raise SaveError(f"events[{index}]: {error}") from None
    return events


def _check_names(parts: dict[type, Any], content: Any, known: frozenset[str],
                 where: str) -> None:
    """The names a creature's components use are names content defines."""
    affects = parts.get(Affects)
    if affects is not None:
        for name in affects.levels:
            if name not in content.world.affects:
                raise SaveError(f"{where}: unknown affect {name!r}")
    statuses = parts.get(Statuses)
    if statuses is not None:
        for name, degree in statuses.degrees.items():
            if name not in content.statuses or degree < 0:
                raise SaveError(f"{where}: unknown status {name!r} or negative degree")
    skills = parts.get(Skills)
    if skills is not None:
        for name, value in skills.learned.items():
            if name not in known or not 0 <= value <= 100:
                raise SaveError(f"{where}: unknown skill {name!r} or value out of 0..100")
    equipment = parts.get(Equipment)
    if equipment is not None:
        for name in (equipment.wield, equipment.second, *(w.item for w in equipment.worn)):
            if name is not None and name not in content.items:
                raise SaveError(f"{where}: unknown item {name!r}")
