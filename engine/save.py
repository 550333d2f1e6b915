"""Save and load a World as data (R-ENG-3): JSON, a format version and a checksum.

The file is two parts: a header line (format, version, length and SHA-256 of the
payload) and the payload, one JSON document. The payload is generic over components:
each entity's components are written under their registered names
(`affray.components.COMPONENTS`), so a component added later is saved with no new code.
It also holds the clock, the generator's exact state, the grid and lag arrays, the event
log, the pending actions and the scenario's end: `load_world(path).run()` finishes event
for event as the unsaved world would. Never pickle.
"""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path
from typing import Any

import esper
import msgspec
import numpy as np

from affray.actions import AnyAction
from affray.components import COMPONENTS
from affray.content_loader import default_content
from affray.errors import AffrayError, SaveError
from affray.events import event_from_dict
from affray.grid import Grid
from affray.rng import Rng
from affray.systems.rules.lag import LagTable

FORMAT = "affray-save"
VERSION = 1


def _encode_array(array: np.ndarray) -> dict[str, Any]:
    contiguous = np.ascontiguousarray(array)
    return {"dtype": contiguous.dtype.str, "shape": list(contiguous.shape),
            "data": base64.b64encode(contiguous.tobytes()).decode("ascii")}


def _decode_array(data: dict[str, Any]) -> np.ndarray:
    raw = base64.b64decode(data["data"], validate=True)
    return np.frombuffer(raw, dtype=np.dtype(data["dtype"])).reshape(data["shape"]).copy()


def _enc_hook(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return _encode_array(value)
    if isinstance(value, np.integer):
        return int(value)
    raise TypeError(f"cannot save a {type(value).__name__}")


def _dec_hook(kind: type, value: Any) -> Any:
    if kind is np.ndarray:
        return _decode_array(value)
    raise TypeError(f"cannot load a {kind}")


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
        "end_pulse": world.end_pulse, "spawned": world.spawned,
        "next_entity": _next_entity_id(),
        "legend": world.legend, "content": world.content_overlay,
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
    Path(path).write_bytes(header + b"\n" + payload)


def load_world(path: str | Path) -> Any:
    """Load a world saved by `World.save`; raises SaveError on any damage."""
    path = Path(path)
    try:
        blob = path.read_bytes()
    except OSError as error:
        raise SaveError(f"{path}: cannot read: {error.strerror}") from None
    head, newline, payload = blob.partition(b"\n")
    try:
        header = msgspec.json.decode(head)
    except msgspec.DecodeError:
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
        return _restore(msgspec.json.decode(payload))
    except AffrayError as error:
        raise SaveError(f"{path}: {error}") from None
    except (KeyError, TypeError, ValueError, msgspec.ValidationError) as error:
        raise SaveError(f"{path}: malformed save payload: {error}") from None


def _restore(data: dict[str, Any]) -> Any:
    from affray.world import World

    content = default_content().layered(data["content"], "save")
    g = data["grid"]
    grid = Grid(_decode_array(g["terrain"]), _decode_array(g["ice_cm"]))
    world = World(content, grid, data["seed"], name=data["name"], legend=data["legend"])
    world.content_overlay = data["content"]
    # Drop what the constructor built; the save has it all.
    esper.clear_database()
    grid.shut[...] = _decode_array(g["shut"])
    grid.occupant[...] = _decode_array(g["occupant"])
    grid.body[...] = _decode_array(g["body"])
    grid.dirty = g["dirty"]
    grid.labellings = g["labellings"]
    lag = LagTable()
    lag.count = data["lag"]["count"]
    lag.wait = _decode_array(data["lag"]["wait"])
    lag.daze = _decode_array(data["lag"]["daze"])
    world.lag = lag
    world.pulse = data["pulse"]
    world.end_pulse = data["end_pulse"]
    world.spawned = data["spawned"]
    world.rng = Rng.from_state(data["rng"])
    world.by_id = dict(data["by_id"])
    world.scripted = [(pulse, msgspec.convert(action, AnyAction))
                      for pulse, action in data["scripted"]]
    world.events = [event_from_dict(event) for event in data["events"]]
    _restore_entities(world, data["entities"], data["next_entity"])
    world.rebuild_views()
    return world


def _restore_entities(world: Any, entities: list[Any], next_entity: int) -> None:
    """Recreate entities with their saved ids (placeholders fill the gaps, then go)."""
    next_id = 1
    gaps = []
    for entity, components in [*entities, [next_entity, None]]:
        while next_id < entity:
            gaps.append(esper.create_entity())
            next_id += 1
        if components is None:
            break
        made = esper.create_entity(*(
            msgspec.convert(value, COMPONENTS[name], dec_hook=_dec_hook)
            for name, value in components.items()))
        if made != entity:
            raise SaveError(f"entity {entity} restored as {made}")
        next_id = entity + 1
    for gap in gaps:
        esper.delete_entity(gap, immediate=True)
