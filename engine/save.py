"""Save and load a World as data (R-ENG-3): JSON, a format version and a checksum.

The file is two parts: a header line (format, version, length and SHA-256 of the
payload) and the payload, one JSON document. The payload is generic over components:
each entity's components are written under their registered names
(`affray.components.COMPONENTS`), so a component added later is saved with no new code.
It also holds the clock, the generator's exact state, the grid and lag arrays, the event
log, the pending actions and the scenario's end: `load_world(path).run()` finishes event
for event as the unsaved world would. Never pickle.

A save that was edited and re-hashed is checked as strictly as a scenario: the payload
against the `SavePayload` structs (msgspec), each component against its dataclass's field
types (generic: a component added later is checked with no new code, and a round trip
must give back exactly what was read, so unknown keys fail), then the cross references
(`check_payload`): ids, cells, occupancy, hit points, names content defines, the clock.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import itertools
import math
from pathlib import Path
from typing import Any, Literal

import esper
import msgspec
import numpy as np
from msgspec import Struct

from affray.actions import AnyAction
from affray.components import COMPONENTS
from affray.content_loader import default_content
from affray.defs import decode_error_field
from affray.errors import AffrayError, SaveError, UsageError
from affray.events import event_from_dict
from affray.grid import Grid, Terrain
from affray.rng import Rng
from affray.systems.rules.lag import LagTable

FORMAT = "affray-save"
VERSION = 1


def _encode_array(array: np.ndarray) -> dict[str, Any]:
    contiguous = np.ascontiguousarray(array)
    return {"dtype": contiguous.dtype.str, "shape": list(contiguous.shape),
            "data": base64.b64encode(contiguous.tobytes()).decode("ascii")}


# Array element types a save may hold: numbers and booleans, never objects (an object
# array read from bytes would be raw pointers).
_ARRAY_KINDS = "biuf"


def _decode_array(data: Any, expect: str | None = None) -> np.ndarray:
    """An array from its saved form; SaveError for a bad dtype, shape or data."""
    if isinstance(data, SavedArray):
        data = msgspec.structs.asdict(data)
    try:
        spec = msgspec.convert(data, SavedArray)
        dtype = np.dtype(spec.dtype)
    except (msgspec.ValidationError, TypeError, ValueError) as error:
        raise SaveError(f"array: {error}") from None
    if dtype.kind not in _ARRAY_KINDS or (expect is not None and dtype.str != expect):
        wanted = expect or "a number or boolean type"
        raise SaveError(f"array: dtype {spec.dtype!r} is not {wanted}")
    if any(size < 0 for size in spec.shape) or len(spec.shape) > 3:
        raise SaveError(f"array: bad shape {spec.shape}")
    try:
        raw = base64.b64decode(spec.data, validate=True)
    except (binascii.Error, ValueError):
        raise SaveError("array: data is not base64") from None
    cells = math.prod(spec.shape)  # Python ints: a forged shape cannot wrap around
    if len(raw) != cells * dtype.itemsize:
        raise SaveError(f"array: {len(raw)} bytes of data for shape {spec.shape} of "
                        f"{spec.dtype} ({cells * dtype.itemsize} expected)")
    return np.frombuffer(raw, dtype=dtype).reshape(spec.shape).copy()


def _enc_hook(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return _encode_array(value)
    if isinstance(value, np.integer):
        return int(value)
    raise TypeError(f"cannot save a {type(value).__name__}")


def _dec_hook(kind: type, value: Any) -> Any:
    if kind is np.ndarray:
        try:
            return _decode_array(value)
        except SaveError as error:
            raise ValueError(str(error)) from None  # msgspec adds where it was
    raise TypeError(f"cannot load a {kind}")


# -- the payload's shape (msgspec structs; unknown keys are errors) ------------------------
class _Saved(Struct, forbid_unknown_fields=True, kw_only=True):
    """Base of the payload structs."""


class SavedArray(_Saved):
    dtype: str
    shape: list[int]
    data: str


class SavedGrid(_Saved):
    terrain: SavedArray
    ice_cm: SavedArray
    shut: SavedArray
    occupant: SavedArray
    body: SavedArray
    dirty: bool
    labellings: int


class SavedLag(_Saved):
    count: int
    wait: SavedArray
    daze: SavedArray


class SavedRng(_Saved):
    bit_generator: str
    state: dict[str, str]
    has_uint32: int
    uinteger: str
    unread: str


class SavePayload(_Saved):
    """A save's payload (`world_payload`); a field added there is added here."""

    name: str
    seed: int
    pulse: int
    end_pulse: int | None
    spawned: int
    next_entity: int
    legend: dict[str, str]
    content: dict[str, Any]
    rng: SavedRng
    grid: SavedGrid
    lag: SavedLag
    by_id: dict[str, int]
    entities: list[tuple[int, dict[str, dict[str, Any]]]]
    scripted: list[tuple[int, dict[str, Any]]]
    events: list[dict[str, Any]]
    # The vectorised round's switch (systems/rules/volley.py); older saves: the default.
    vectorise: Literal["auto", "never"] = "auto"


def world_payload(world: Any) -> dict[str, Any]:
    """The world as plain data (the save's payload)."""
    entities = []
    for entity in sorted(esper.get_entities()):  # every entity of the context, by id
        parts: tuple[Any, ...] = esper.components_for_entity(entity)
        components = {type(part).__name__: msgspec.to_builtins(part, enc_hook=_enc_hook)
                      for part in parts}
        entities.append([entity, components])
    grid = world.grid
    return {
        "name": world.name, "seed": world.seed, "pulse": world.pulse,
        # A world run past its end (run(pulses=...)) keeps running 0 pulses on run():
        # saved as ending now, so a load can insist an end is never in the past.
        "end_pulse": (None if world.end_pulse is None
                      else max(world.end_pulse, world.pulse)),
        "spawned": world.spawned,
        "next_entity": _next_entity_id(),
        "legend": world.legend, "content": world.content_overlay,
        "vectorise": world.vectorise,
        "rng": world.rng.state(),
        "grid": {"terrain": _encode_array(grid.terrain), "ice_cm": _encode_array(grid.ice_cm),
                 "shut": _encode_array(grid.shut), "occupant": _encode_array(grid.occupant),
                 "body": _encode_array(grid.body), "dirty": grid.dirty,
                 "labellings": grid.labellings},
        "lag": {"count": world.lag.count, "wait": _encode_array(world.lag.wait),
                "daze": _encode_array(world.lag.daze)},
        "by_id": world.by_id,
        "entities": entities,
        "scripted": [[pulse, msgspec.to_builtins(action)] for pulse, action in world.scripted],
        "events": [event.to_dict() for event in world.events],
    }


def _next_entity_id() -> int:
    """The id esper will give the next entity, read without consuming it.

    esper keeps an `itertools.count` per context; its repr is `count(N)`. Restoring the
    counter keeps entity ids made after a load the same as without the save.
    """
    text = repr(esper._entity_count)
    return int(text[text.index("(") + 1 : text.index(")")].split(",")[0])


def save_world(world: Any, path: str | Path) -> None:
    """Write the world to `path` (see the module docstring for the format)."""
    payload = msgspec.json.encode(world_payload(world))
    header = msgspec.json.encode({"format": FORMAT, "version": VERSION,
                                  "length": len(payload),
                                  "sha256": hashlib.sha256(payload).hexdigest()})
    try:
        Path(path).write_bytes(header + b"\n" + payload)
    except OSError as error:
        raise SaveError(f"{path}: cannot write the save: {error.strerror or error}") from None
    except TypeError:
        raise UsageError(f"save: path must be a str or Path, got {path!r}") from None


def load_world(path: str | Path) -> Any:
    """Load a world saved by `World.save`; raises SaveError on any damage."""
    if not isinstance(path, str | Path):
        raise UsageError(f"load_world: path must be a str or Path, got {path!r}")
    path = Path(path)
    try:
        blob = path.read_bytes()
    except OSError as error:
        raise SaveError(f"{path}: cannot read: {error.strerror}") from None
    head, newline, payload = blob.partition(b"\n")
    try:
        header = msgspec.json.decode(head)
    except (msgspec.DecodeError, RecursionError):
        raise SaveError(f"{path}: not an affray save (no header)") from None
    if not newline or not isinstance(header, dict) or header.get("format") != FORMAT:
        raise SaveError(f"{path}: not an affray save")
    if header.get("version") != VERSION:
        raise SaveError(f"{path}: save format version {header.get('version')!r} is not "
                        f"supported (this affray reads version {VERSION})")
    length = header.get("length")
    if not isinstance(length, int) or isinstance(length, bool) or length < 0:
        raise SaveError(f"{path}: not an affray save (bad payload length {length!r})")
    if len(payload) < length:
        raise SaveError(f"{path}: truncated save ({len(payload)} of {length} bytes)")
    if len(payload) > length:
        raise SaveError(f"{path}: damaged save: {len(payload) - length} bytes more than "
                        f"the {length} its header declares")
    if hashlib.sha256(payload).hexdigest() != header.get("sha256"):
        raise SaveError(f"{path}: checksum mismatch: the save was altered or damaged")
    try:
        data = msgspec.json.decode(payload, type=SavePayload)
    except RecursionError:
        raise SaveError(f"{path}: malformed save payload: nested too deeply to read") from None
    except (msgspec.ValidationError, msgspec.DecodeError) as error:
        where, detail = decode_error_field(error) if isinstance(
            error, msgspec.ValidationError) else ("", str(error))
        at = f" (at {where})" if where else ""
        raise SaveError(f"{path}: malformed save payload: {detail}{at}") from None
    try:
        return _restore(data)
    except AffrayError as error:
        raise SaveError(f"{path}: {error}") from None
    except (KeyError, TypeError, ValueError, IndexError, msgspec.ValidationError) as error:
        # A last guard: check_payload should have caught it with a clearer message.
        raise SaveError(f"{path}: malformed save payload: {type(error).__name__} "
                        f"{error}") from None


def _restore(data: SavePayload) -> Any:
    from affray.world import World

    try:
        content = default_content().layered(data.content, "save")
    except AffrayError as error:
        raise SaveError(f"content: {error}") from None
    parts = check_payload(data, content)
    grid = Grid(parts.terrain, parts.ice_cm)
    world = World(content, grid, data.seed, name=data.name, legend=data.legend)
    try:
        world.content_overlay = data.content
        # Drop what the constructor built; the save has it all.
        esper.clear_database()
        grid.shut[...] = parts.shut
        grid.occupant[...] = parts.occupant
        grid.body[...] = parts.body
        grid.dirty = data.grid.dirty
        grid.labellings = data.grid.labellings
        lag = LagTable()
        lag.count = data.lag.count
        lag.wait = parts.wait
        lag.daze = parts.daze
        world.lag = lag
        world.pulse = data.pulse
        world.end_pulse = data.end_pulse
        world.vectorise = data.vectorise
        world.spawned = data.spawned
        world.rng = parts.rng
        world.by_id = dict(data.by_id)
        world.scripted = parts.scripted
        world.events = parts.events
        _restore_entities(world, parts.entities, data.next_entity)
        try:
            world.rebuild_views()
        except KeyError as error:
            raise SaveError(f"a creature lacks the component {error}") from None
    except BaseException:
        world.close()
        raise
    return world


def _restore_entities(world: Any, entities: list[tuple[int, list[Any] | None]],
                      next_entity: int) -> None:
    """Recreate entities with their saved ids (placeholders fill the gaps, then go)."""
    next_id = 1
    gaps = []
    last: list[tuple[int, list[Any] | None]] = [(next_entity, None)]
    for entity, components in [*entities, *last]:
        while next_id < entity:
            gaps.append(esper.create_entity())
            next_id += 1
        if components is None:
            break
        made = esper.create_entity(*components)
        if made != entity:
            raise SaveError(f"entity {entity} restored as {made}")
        next_id = entity + 1
    for gap in gaps:
        esper.delete_entity(gap, immediate=True)


# -- checking a payload ------------------------------------------------------------------
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


def check_payload(data: SavePayload, content: Any) -> Parts:
    """Check a typed payload's values and cross references; SaveError names the part."""
    from affray.components import (
        Combat,
        Creature,
        Equipment,
        Position,
        Spawn,
        Statuses,
        Vitals,
    )
    from affray.creatures import known_skills
    from affray.defs import POSITIONS
    from affray.scenario import MAX_PULSE, MAX_SEED

    def need(ok: bool, message: str) -> None:
        if not ok:
            raise SaveError(message)

    need(0 <= data.seed <= MAX_SEED, f"seed: must be 0..{MAX_SEED}, got {data.seed}")
    need(0 <= data.pulse <= 2 * MAX_PULSE, f"pulse: must be 0..{2 * MAX_PULSE}, got "
         f"{data.pulse}")
    if data.end_pulse is not None:
        need(data.pulse <= data.end_pulse <= 2 * MAX_PULSE,
             f"end_pulse: {data.end_pulse} is before the current pulse {data.pulse}"
             if data.end_pulse < data.pulse else f"end_pulse: {data.end_pulse} is too large")
    need(data.spawned >= 0, f"spawned: must be 0 or more, got {data.spawned}")
    for symbol in data.legend:
        need(len(symbol) == 1, f"legend: symbol {symbol!r} must be one character")
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
    height, width = terrain.shape
    lag_reference = LagTable()
    lag = {}
    for name in ("wait", "daze"):
        try:
            lag[name] = _decode_array(getattr(data.lag, name),
                                      getattr(lag_reference, name).dtype.str)
        except SaveError as error:
            raise SaveError(f"lag.{name}: {error}") from None
        need(lag[name].ndim == 1 and len(lag[name]) >= data.lag.count,
             f"lag.{name}: {lag[name].shape} cannot hold {data.lag.count} slots")
        need(bool((lag[name] >= 0).all()), f"lag.{name}: a negative {name}")
    need(data.lag.count >= 0, "lag.count: must be 0 or more")
    try:
        rng = Rng.from_state(msgspec.structs.asdict(data.rng))
    except (KeyError, TypeError, ValueError, binascii.Error) as error:
        raise SaveError(f"rng: not a generator state ({error})") from None

    # Entities: ids strictly increasing, each component checked against its dataclass.
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
    need(data.next_entity <= last + 1_000_000, f"next_entity: {data.next_entity} is absurd")

    # Creatures: by_id and the Creature components agree; cells, hit points, names.
    slots: set[int] = set()
    occupied = 0
    known = known_skills(content)
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
        need(1 <= vitals.max_hp <= content.world.limits.max_hp,
             f"{where}: max_hp {vitals.max_hp} is outside 1..{content.world.limits.max_hp}")
        need(vitals.hp <= vitals.max_hp, f"{where}: hp {vitals.hp} is above max_hp "
             f"{vitals.max_hp}")
        need(vitals.hp >= -content.world.limits.max_hp, f"{where}: hp {vitals.hp} is absurd")
        need(vitals.position in POSITIONS, f"{where}: unknown position {vitals.position!r}")
        need(creature.profession in content.professions,
             f"{where}: unknown profession {creature.profession!r}")
        position = parts[Position]
        if vitals.alive:
            occupied += 1
            need(int(arrays["occupant"][position.y, position.x]) == entity,
                 f"{where}: stands at [{position.x}, {position.y}] but the grid's occupant "
                 f"there is {int(arrays['occupant'][position.y, position.x])}")
        _check_names(parts, content, known, where)
    for entity, parts in by_entity.items():
        if Creature in parts:
            need(data.by_id.get(parts[Creature].id) == entity,
                 f"entity {entity}: creature {parts[Creature].id!r} is missing from by_id")
        for kind in (Equipment, Statuses):
            if kind in parts and Creature not in parts:
                raise SaveError(f"entity {entity}: {kind.__name__} without a Creature")
    need(int(np.count_nonzero(arrays["occupant"])) == occupied,
         "grid.occupant: names cells no living creature stands on")
    spawns = [parts[Spawn].number for parts in by_entity.values() if Spawn in parts]
    need(len(spawns) == len(set(spawns)), "entities: two share a spawn number (R-GRID-3)")
    need(data.spawned >= max(spawns, default=0), f"spawned: {data.spawned} is below a spawn "
         f"number in use ({max(spawns, default=0)}): new spawns would reuse it (R-GRID-3)")
    for creature_id, entity in data.by_id.items():
        foe = by_entity[entity].get(Combat)
        if foe is not None and foe.fighting is not None:
            need(foe.fighting in data.by_id and foe.fighting != creature_id,
                 f"creature {creature_id!r}: fights {foe.fighting!r}, no other creature")

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
    events = []
    for index, event in enumerate(data.events):
        try:
            events.append(event_from_dict(event))
        except KeyError as error:
            raise SaveError(f"events[{index}]: missing or unknown {error}") from None
        except (TypeError, ValueError) as error:
            raise SaveError(f"events[{index}]: {error}") from None
    return Parts(terrain=terrain, ice_cm=arrays["ice_cm"], shut=arrays["shut"],
                 occupant=arrays["occupant"], body=arrays["body"], wait=lag["wait"],
                 daze=lag["daze"], rng=rng, entities=entities, scripted=scripted,
                 events=events)


def _check_names(parts: dict[type, Any], content: Any, known: frozenset[str],
                 where: str) -> None:
    """The names a creature's components use are names content defines."""
    from affray.components import Affects, Equipment, Skills, Statuses

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
