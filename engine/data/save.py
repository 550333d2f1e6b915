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
from msgspec import UNSET, Struct, UnsetType

from affray.core.errors import AffrayError, SaveError, UsageError
from affray.core.esper_context import keeps_esper_world
from affray.core.event_log import EventLog
from affray.core.grid import Grid
from affray.data.content_loader import default_content
from affray.data.defs import decode_error_field
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
    try:
        spec = data if isinstance(data, SavedArray) else msgspec.convert(data, SavedArray)
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
    # The pulse the world next looks at statuses (`World.status_due`): derived from the
    # statuses' times, except after a status ended early, when the world keeps an
    # earlier one (and forgets the dead's statuses there). Older saves: derived.
    status_due: int | UnsetType | None = UNSET
    # The systems every pulse runs, in order, by name (built-in or registered:
    # `affray.register_system`). Older saves: the eight of the schedule.
    systems: list[str] | UnsetType = UNSET


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
        "vectorise": world.vectorise, "status_due": world.status_due,
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
        "systems": _system_names(world),
    }


def _system_names(world: Any) -> list[str]:
    """The world's systems by name; a SaveError for one whose class is not registered
    (a save must not lose it)."""
    from affray.core.world import MAX_SYSTEMS, system_name

    if len(world.systems) > MAX_SYSTEMS:
        raise SaveError(f"cannot save {len(world.systems)} systems: a save holds at most "
                        f"{MAX_SYSTEMS}")
    names = []
    for index, system in enumerate(world.systems):
        name = system_name(system)
        if name is None:
            kind = type(system).__name__
            raise SaveError(f"cannot save the system {kind} (systems[{index}]): its class "
                            f"is not registered; call affray.register_system(name, {kind}) "
                            f"so that a save can name it and a load make it again")
        names.append(name)
    return names


def _next_entity_id() -> int:
    """The id esper will give the next entity, read without consuming it.

    esper keeps an `itertools.count` per context; its repr is `count(N)`. Restoring the
    counter keeps entity ids made after a load the same as without the save.
    """
    text = repr(esper._entity_count)
    return int(text[text.index("(") + 1 : text.index(")")].split(",")[0])


@keeps_esper_world
def save_world(world: Any, path: str | Path) -> None:
    """Write the world to `path` (see the module docstring for the format)."""
    world.enter()  # read its entities; the caller's esper world comes back after
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


@keeps_esper_world
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
    from affray.core.world import World

    try:
        content = default_content().layered(data.content, "save")
    except AffrayError as error:
        raise SaveError(f"content: {error}") from None
    from affray.data.save_check import check_payload  # it reads this module's types

    parts = check_payload(data, content)
    grid = Grid(parts.terrain, parts.ice_cm)
    world = World(content, grid, data.seed, name=data.name, legend=data.legend)
    world.enter()  # the caller's esper world comes back after the load (keeps_esper_world)
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
        if parts.systems is not None:  # None: an older save keeps the schedule (R-TIME-4)
            world.systems = parts.systems
        world.spawned = data.spawned
        world.rng = parts.rng
        world.by_id = dict(data.by_id)
        world.scripted = parts.scripted
        world.events = EventLog(parts.events)
        _restore_entities(world, parts.entities, data.next_entity)
        try:
            world.rebuild_views()
        except KeyError as error:
            raise SaveError(f"a creature lacks the component {error}") from None
        if not isinstance(data.status_due, UnsetType):
            world.status_due = data.status_due
    except BaseException:
        world.close()
        raise
    return world


def _restore_entities(world: Any, entities: list[tuple[int, list[Any] | None]],
                      next_entity: int) -> None:
    """Recreate entities with their saved ids, and leave esper's counter at the saved
    next id: the counter is set before each entity (esper 3 keeps it per context, as
    `_next_entity_id` reads it), so a gap in the ids costs nothing, however wide."""
    for entity, components in entities:
        esper._entity_count = itertools.count(entity)
        made = esper.create_entity(*(components or ()))
        if made != entity:
            raise SaveError(f"entity {entity} restored as {made}")
    esper._entity_count = itertools.count(next_entity)
