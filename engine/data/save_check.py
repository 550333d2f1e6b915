"""Checking a save's payload (R-ENG-3): a save edited and re-hashed passes its checksum,
so its values and cross references are checked here as strictly as a scenario's, before
anything is built from them. Every error is a SaveError naming the entry and the field
(`load_world` puts the save file in front).

The payload's shape was already checked by msgspec (`affray.data.save.SavePayload`); here each
component goes through its registered dataclass (generic over components), then:

- the clock, the grid and lag arrays, the generator's state;
- entity ids (increasing, bounded) and entity kinds: each entity is a creature, an item
  stack, a chest, a door, a fire, an ice record or a water body, with the components its
  kind needs and none of another kind's; components a game registers may ride along,
  and an entity of a game's own components may also hold a Position and a Spawn;
- creatures: by_id, lag slots, every field a scenario sets through the scenario's own
  checks (`affray.data.creatures.check_template`, so a bound added there applies to saves
  too), and what a run changes by the rules the run keeps (hit points, positions, lag,
  statuses and their timers, affects, gear), the cell each stands on, the occupancy grid;
- cells: floor stacks and chests (and their contents) as a scenario's items, doors
  (state, one per door cell, the shut array), fires and ice records (a cell, their
  times), the ice array, water bodies (their entities and labels);
- spawn numbers (R-GRID-3) against the spawn counter and the entity ids; the creature
  ids a component names (fights, causes);
- queued and scripted actions, field by field, through the scenario's action check
  (`affray.data.scenario._to_action`);
- the event log: each event typed as its kind, in pulse order, naming known creatures.

Where a run can take a value past a scenario's bound (a degree of a status stacks past
`max_status_degree`; hit points go below 1), the save is held to what a run can reach
instead; docs/decisions.md lists those decisions.
"""

from __future__ import annotations

import binascii
import itertools
from types import SimpleNamespace
from typing import Any, cast

import msgspec
import numpy as np
from msgspec import UNSET, Struct, UnsetType

from affray.components import (
    COMPONENTS,
    DOOR_STATES,
    Affects,
    Chest,
    Combat,
    Creature,
    Defense,
    Door,
    Equipment,
    Fire,
    Ice,
    Immunities,
    ItemStack,
    Level,
    Mind,
    Offense,
    Position,
    Skills,
    Spawn,
    Stats,
    Statuses,
    Vitals,
    WaterBody,
)
from affray.core.actions import ActionQueue, AnyAction, Attack, Cast, Close, Move, Open
from affray.core.errors import SaveError, ScenarioError
from affray.core.events import EVENT_TYPES
from affray.core.grid import Grid, Terrain
from affray.core.rng import Rng
from affray.core.validate import MAX_PULSE
from affray.core.world import DEFAULT_LEGEND, MAX_SYSTEMS, system_class
from affray.data.creatures import INT32, check_template
from affray.data.defs import POSITIONS, ArmorBlock, CreatureFields, StatBlock, decode_error_field
from affray.data.save import SavePayload, _dec_hook, _decode_array, _enc_hook
from affray.data.scenario import MAX_SEED, TERRAIN_KINDS, ScenarioAction, _to_action
from affray.systems.rules.lag import LagTable

# Entity ids: a creature's id lives in the grid's 32-bit occupancy array, so no id may
# pass what it holds. Ids no saved entity holds (deleted entities) cost nothing on load
# (the id counter is set, no placeholder is made), but tables indexed by entity id (the
# spawn table of a flood, 8 bytes an id) grow with the largest: all the unused ids of a
# save together are bounded, at 16,777,216 (a world that deleted that many entities).
MAX_ENTITY_ID = 2**31 - 1
MAX_ID_GAP = 2**24
# A player stays alive down to -10 hit points (the source's ladder, damage.inflict).
PLAYER_LAST_HP = -10

# Entity kinds: the component that makes an entity one, and what that kind also needs.
CREATURE_PARTS = frozenset((Spawn, Position, Vitals, Level, Stats, Offense, Defense,
                            Immunities, Affects, Statuses, Skills, Equipment, Combat,
                            ActionQueue))
KINDS: dict[type, tuple[str, frozenset[type]]] = {
    Creature: ("a creature", CREATURE_PARTS),
    ItemStack: ("an item stack", frozenset((Spawn, Position))),
    Chest: ("a chest", frozenset((Spawn, Position))),
    Door: ("a door", frozenset((Position,))),
    Fire: ("a fire", frozenset((Position,))),
    Ice: ("an ice record", frozenset((Position,))),
    WaterBody: ("a water body", frozenset()),
}
# The engine's own components (any other registered one is a game's and may ride along).
ENGINE_PARTS = frozenset(COMPONENTS[name] for name in (
    "Spawn", "Position", "Creature", "Vitals", "Level", "Stats", "Offense", "Defense",
    "Immunities", "Affects", "Statuses", "Skills", "Equipment", "Combat", "ActionQueue",
    "ItemStack", "Chest", "Door", "Fire", "Ice", "WaterBody", "WornItem"))

# The component that holds each scenario field of a creature (for the error's wording).
FIELD_COMPONENT = {
    "player": "Creature", "npc": "Creature", "race": "Creature", "profession": "Creature",
    "undead": "Creature", "immortal": "Creature", "npc_tier": "Creature",
    "level": "Level", "remorts": "Level", "alignment": "Level", "clan": "Level",
    "religion": "Level", "skill_level_bonus": "Level", "max_hp": "Vitals", "hp": "Vitals",
    "move": "Vitals", "position": "Vitals", "stats": "Stats", "hitroll": "Offense",
    "damroll": "Offense", "damage": "Offense", "saving_throw": "Defense",
    "armor": "Defense", "defences": "Defense", "affects": "Affects", "skills": "Skills",
    "wield": "Equipment", "second_wield": "Equipment", "wear": "Equipment",
}


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
    # Fresh instances of the save's systems, in order; None: an older save (the schedule).
    systems: tuple[Any, ...] | None


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
    shaped = Grid(grid["terrain"], grid["ice_cm"])
    shaped.shut[...] = grid["shut"]
    _check_creatures(data, by_entity, shaped, grid["occupant"], content)
    _check_cells(data, by_entity, grid, content)
    _check_links(data, by_entity)
    _check_status_due(data, by_entity)
    _check_queues(data, by_entity, shaped, content)
    return Parts(terrain=grid["terrain"], ice_cm=grid["ice_cm"], shut=grid["shut"],
                 occupant=grid["occupant"], body=grid["body"], wait=lag["wait"],
                 daze=lag["daze"], rng=rng, entities=entities,
                 scripted=_scripted(data, shaped, content), events=_events(data),
                 systems=_systems(data))


# -- the systems ----------------------------------------------------------------------------
def _systems(data: SavePayload) -> tuple[Any, ...] | None:
    """Fresh systems for the save's names, in order (None: a save from before systems
    were saved, which runs the schedule, R-TIME-4). At most `MAX_SYSTEMS`; a name must be
    built in or registered in this process (`affray.register_system`), else a SaveError
    names it and says what to call."""
    names = data.systems
    if isinstance(names, UnsetType):
        return None
    need(len(names) <= MAX_SYSTEMS, f"systems: {len(names)} systems, more than the "
         f"{MAX_SYSTEMS} a save holds")
    made = []
    for index, name in enumerate(names):
        cls = system_class(name)
        if cls is None:
            raise SaveError(f"systems[{index}]: the save runs the system {name!r}, which is "
                            f"neither built in nor registered in this process: call "
                            f"affray.register_system({name!r}, <its class>) before loading")
        made.append(cls())
    return tuple(made)


# -- the clock, the arrays ----------------------------------------------------------------
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
    """wait and daze: 1-D, of the LagTable's dtype, long enough, never negative, and 0
    past the slots in use (a new creature's slot starts at 0, R-LAG-1)."""
    reference = LagTable()
    need(data.lag.count >= 0, "lag.count: must be 0 or more")
    lag = {}
    for name in ("wait", "daze"):
        try:
            lag[name] = _decode_array(getattr(data.lag, name),
                                      getattr(reference, name).dtype.str)
        except SaveError as error:
            raise SaveError(f"lag.{name}: {error}") from None
        column = lag[name]
        need(column.ndim == 1 and len(column) >= data.lag.count,
             f"lag.{name}: {column.shape} cannot hold {data.lag.count} slots")
        need(bool((column >= 0).all()), f"lag.{name}: a negative {name}")
        spare = data.lag.count + np.flatnonzero(column[data.lag.count:])
        need(len(spare) == 0, f"lag.{name}: slot {spare[0] if len(spare) else 0} holds a "
             f"{name}, but no creature has it (lag.count is {data.lag.count})")
    return lag


# -- entities -----------------------------------------------------------------------------
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
    if not _holds(back, value):
        extra = sorted(set(value) - set(back)) if isinstance(value, dict) else []
        detail = (f"unknown field {extra[0]!r}" if extra
                  else "a value that does not round-trip (a nested unknown field?)")
        raise SaveError(f"{where}, component {name}: {detail}")
    return made


def _holds(back: Any, value: Any) -> bool:
    """`value` (as read) is `back` (as re-encoded) but for fields it leaves out: a field
    with a default added since the save was made (an Attack's `why`) encodes back with
    its default, while a key the types do not know does not come back at all."""
    if isinstance(value, dict) and isinstance(back, dict):
        return all(key in back and _holds(back[key], item) for key, item in value.items())
    if isinstance(value, list) and isinstance(back, list):
        return len(value) == len(back) and all(map(_holds, back, value))
    return bool(back == value)


def _entities(data: SavePayload, shape: tuple[int, ...]
              ) -> tuple[list[tuple[int, list[Any] | None]], dict[int, dict[type, Any]]]:
    """Entity ids strictly increasing and bounded, components checked, each entity of
    one kind, positions on the map."""
    height, width = shape
    entities: list[tuple[int, list[Any] | None]] = []
    by_entity: dict[int, dict[type, Any]] = {}
    last = 0
    for entity, components in data.entities:
        where = f"entity {entity}"
        need(entity > last, f"{where}: entity ids must be 1 or more and increasing")
        need(entity <= MAX_ENTITY_ID, f"{where}: an entity id must be at most "
             f"{MAX_ENTITY_ID} (the grid's occupancy is 32-bit)")
        need(entity - len(entities) - 1 <= MAX_ID_GAP, f"{where}: {entity - len(entities) - 1} "
             f"ids below it belong to no entity, more than {MAX_ID_GAP}")
        last = entity
        made = [_component(name, value, where) for name, value in components.items()]
        parts = by_entity[entity] = {type(part): part for part in made}
        _check_kind(parts, where)
        entities.append((entity, made))
        position = parts.get(Position)
        if position is not None:
            need(0 <= position.x < width and 0 <= position.y < height,
                 f"{where}: at [{position.x}, {position.y}], off the {width}x{height} map")
    need(data.next_entity > last, f"next_entity: {data.next_entity} must be above the last "
         f"entity id {last}")
    need(data.next_entity - len(entities) - 1 <= MAX_ID_GAP and
         data.next_entity <= MAX_ENTITY_ID + 1,
         f"next_entity: {data.next_entity} is absurd ({len(entities)} entities)")
    return entities, by_entity


def _check_kind(parts: dict[type, Any], where: str) -> None:
    """One kind per entity (`KINDS`), with what the kind needs and no engine component
    of another kind; an entity of none holds only a game's own components."""
    keys = [key for key in KINDS if key in parts]
    if len(keys) > 1:
        raise SaveError(f"{where}: is both {KINDS[keys[0]][0]} and {KINDS[keys[1]][0]} "
                        f"({keys[0].__name__} and {keys[1].__name__})")
    if not keys:  # a game's own entity: a cell and a spawn number may ride along
        own = any(kind not in ENGINE_PARTS for kind in parts)
        engine = sorted(kind.__name__ for kind in parts if kind in ENGINE_PARTS
                        and not (own and kind in (Position, Spawn)))
        need(not engine, f"{where}: component {engine[0] if engine else ''} without the "
             f"entity it belongs to (a Creature, ItemStack, Chest, Door, Fire, Ice or "
             f"WaterBody{', or a game component with a Position and a Spawn' if own else ''})")
        return
    key = keys[0]
    label, needed = KINDS[key]
    missing = sorted(kind.__name__ for kind in needed - set(parts))
    need(not missing, f"{where} ({label}): lacks the component {missing[0] if missing else ''}")
    stray = sorted(kind.__name__ for kind in parts
                   if kind in ENGINE_PARTS and kind is not key and kind not in needed)
    need(not stray, f"{where} ({label}): a {stray[0] if stray else ''} component does not "
         f"belong to {label}")


# -- creatures ----------------------------------------------------------------------------
def _check_creatures(data: SavePayload, by_entity: dict[int, dict[type, Any]], grid: Grid,
                     occupant: np.ndarray, content: Any) -> None:
    """by_id and the Creature components agree; lag slots are 0..count-1, one each;
    each creature's fields, state and cell; the occupancy grid holds exactly the
    living creatures."""
    slots: set[int] = set()
    occupied = 0
    for creature_id, entity in data.by_id.items():
        parts = by_entity.get(entity)
        need(parts is not None and Creature in parts,
             f"by_id: creature {creature_id!r} names entity {entity}, which is no creature")
        assert parts is not None
        creature = parts[Creature]
        need(creature.id == creature_id, f"by_id: creature {creature_id!r} names entity "
             f"{entity}, whose creature is {creature.id!r}")
        where = f"creature {creature_id!r} (entity {entity})"
        need(0 <= creature.slot < data.lag.count and creature.slot not in slots,
             f"{where}, component Creature, field 'slot': lag slot {creature.slot} is out "
             f"of range or shared")
        slots.add(creature.slot)
        _check_creature(data, parts, content, where)
        _check_stand(parts, grid, where)
        if Mind in parts:
            _check_mind(data, parts[Mind], grid, where)
        if parts[Vitals].alive:
            occupied += 1
            position = parts[Position]
            there = int(occupant[position.y, position.x])
            need(there == entity, f"{where}: stands at [{position.x}, {position.y}] but the "
                 f"grid's occupant there is {there}")
    for entity, parts in by_entity.items():
        if Creature in parts:
            need(data.by_id.get(parts[Creature].id) == entity,
                 f"entity {entity}: creature {parts[Creature].id!r} is missing from by_id")
    need(len(slots) == data.lag.count, f"lag.count: {data.lag.count} slots, "
         f"{len(slots)} creatures (each creature has one, and only they do)")
    need(int(np.count_nonzero(occupant)) == occupied,
         "grid.occupant: names cells no living creature stands on")


def _check_creature(data: SavePayload, parts: dict[type, Any], content: Any,
                    where: str) -> None:
    """A creature's fields: those a scenario sets through the scenario's own checks,
    then what a run changes, by the rules the run keeps."""
    creature = parts[Creature]
    _check_id(creature.id, where)
    need(creature.template is None or creature.template in content.creatures,
         f"{where}, component Creature, field 'template': unknown creature template "
         f"{creature.template!r}")
    need(parts[Level].religion != "none", f"{where}, component Level, field 'religion': "
         f"no religion is saved as null, not 'none'")
    problem = check_template(content, _creature_fields(parts))
    if problem is not None:
        name, message = problem
        raise SaveError(f"{where}, component {FIELD_COMPONENT.get(name, 'Creature')}, "
                        f"field '{name}': {message}")
    _check_vitals(data, parts, content, where)
    _check_bits(parts[Immunities], content, where)
    _check_affects(data, parts[Affects], where)
    _check_statuses(data, parts, content, where)
    _check_worn(parts[Equipment], content, where)
    need(parts[Combat].rounds >= 0, f"{where}, component Combat, field 'rounds': must be 0 "
         f"or more, got {parts[Combat].rounds}")
    side = creature.side
    need(isinstance(side, str) and 1 <= len(side) <= 64 and side.isprintable(),
         f"{where}, component Creature, field 'side': a side is a name of 1..64 "
         f"characters, got {side!r}")


def _check_mind(data: SavePayload, mind: Mind, grid: Grid, where: str) -> None:
    """What a mind remembers (SPEC section 16): a target among the creatures, a cell on
    the map, pulses the clock has or will reach, a log length it has seen."""
    place = f"{where}, component Mind"
    need(mind.target is None or mind.target in data.by_id,
         f"{place}, field 'target': unknown creature {mind.target!r}")
    if mind.last_seen is not None:
        need(grid.in_bounds(*mind.last_seen),
             f"{place}, field 'last_seen': {list(mind.last_seen)} is off the map")
    need(-1 <= mind.idle_since <= len(data.events), f"{place}, field 'idle_since': "
         f"{mind.idle_since} is not a length the log had (-1..{len(data.events)})")
    for name in ("wake", "next_cast"):
        value = getattr(mind, name)
        need(-1 <= value <= 2**63 - 1, f"{place}, field '{name}': {value} is not a pulse")


def _check_id(creature_id: str, where: str) -> None:
    """A creature id as a scenario takes it: a name, not empty, no spaces around it, no
    control characters (engine/data/scenario.py's rule, written there inline)."""
    need(bool(creature_id) and creature_id == creature_id.strip()
         and creature_id.isprintable(), f"{where}, component Creature, field 'id': an id "
         f"is a name: not empty, no spaces around it, no control characters")


def _creature_fields(parts: dict[type, Any]) -> CreatureFields:
    """The scenario fields of a creature that a run never changes, read back from its
    components, for `check_template`. Left out, and checked by `_check_vitals`,
    `_check_statuses` and `_check_affects`: hit points, movement, position, statuses
    (a run changes them), and the immunity bits (saved as numbers, not names)."""
    creature, level, stats = parts[Creature], parts[Level], parts[Stats]
    offense, defense, equipment = parts[Offense], parts[Defense], parts[Equipment]
    mind = parts.get(Mind)
    hand = offense.hand_dice
    return CreatureFields(
        player=creature.player, level=level.level, remorts=level.remorts,
        max_hp=parts[Vitals].max_hp, alignment=level.alignment, race=creature.race,
        profession=creature.profession, undead=creature.undead, immortal=creature.immortal,
        stats=StatBlock(str_=stats.strength, int_=stats.intelligence, wis=stats.wisdom,
                        dex=stats.dexterity, con=stats.constitution, cha=stats.charisma,
                        willpower=stats.willpower),
        hitroll=offense.hitroll, damroll=offense.damroll, saving_throw=defense.saving_throw,
        armor=ArmorBlock(bash=defense.armor_bash, pierce=defense.armor_pierce,
                         slash=defense.armor_slash, exotic=defense.armor_exotic),
        affects=list(parts[Affects].levels), skills=dict(parts[Skills].learned),
        damage=UNSET if hand is None else _dice_text(hand),
        defences=list(defense.defences),
        wield=UNSET if equipment.wield is None else equipment.wield,
        second_wield=UNSET if equipment.second is None else equipment.second,
        wear=[piece.item for piece in equipment.worn], npc_tier=creature.npc_tier,
        clan=UNSET if level.clan is None else level.clan,
        religion=UNSET if level.religion is None else level.religion,
        skill_level_bonus=level.skill_level_bonus,
        mind=UNSET if mind is None or mind.name is None else mind.name,
        mana=parts[Vitals].mana, max_mana=parts[Vitals].max_mana)


def _dice_text(dice: tuple[int, int, int]) -> str | int:
    """An NPC's hand dice as the scenario writes them (`parse_dice` reads it back)."""
    count, size, bonus = dice
    if count == 0 and size == 0:
        return bonus
    return f"{count}d{size}" + (f"{bonus:+d}" if bonus else "")


def _check_vitals(data: SavePayload, parts: dict[type, Any], content: Any,
                  where: str) -> None:
    """Hit points as a run leaves them: at most max_hp; a living NPC (and any immortal)
    1 or more, a living player down to -10 (the source's ladder), the dead 0 or less,
    positioned dead and fighting no one; movement 0 or more (32-bit); the position a
    known one; regeneration's pulse not after now."""
    vitals, creature = parts[Vitals], parts[Creature]
    prefix = f"{where}, component Vitals"
    need(vitals.position in POSITIONS, f"{prefix}, field 'position': unknown position "
         f"{vitals.position!r} (known: {', '.join(POSITIONS)})")
    need(vitals.hp <= vitals.max_hp, f"{prefix}, field 'hp': hp {vitals.hp} is above "
         f"max_hp {vitals.max_hp}")
    if vitals.alive:
        low = PLAYER_LAST_HP if creature.player and not creature.immortal else 1
        need(vitals.hp >= low, f"{prefix}, field 'hp': {vitals.hp} for a living "
             f"{'player' if low < 1 else 'creature'} (the living have {low} or more)")
    else:
        need(vitals.hp <= 0, f"{prefix}, field 'hp': a dead creature with {vitals.hp} hp")
        need(-content.world.limits.max_hp <= vitals.hp, f"{prefix}, field 'hp': "
             f"hp {vitals.hp} is absurd")
        need(vitals.position == "dead", f"{prefix}, field 'position': a dead creature is "
             f"positioned 'dead', not {vitals.position!r}")
        need(parts[Combat].fighting is None, f"{where}, component Combat, field "
             f"'fighting': a dead creature fights no one")
    need(0 <= vitals.move <= INT32[1], f"{prefix}, field 'move': must be 0..{INT32[1]}, "
         f"got {vitals.move}")
    need(0 <= vitals.move_pulse <= data.pulse, f"{prefix}, field 'move_pulse': "
         f"{vitals.move_pulse} is not a pulse of 0..{data.pulse} (now)")


def _check_bits(immunities: Immunities, content: Any, where: str) -> None:
    """imm, res and vuln hold bits content defines (R-IMM-2), nothing else."""
    known = content.bits_of(tuple(content.bits))
    for name in ("imm", "res", "vuln"):
        value = getattr(immunities, name)
        need(value >= 0 and not value & ~known, f"{where}, component Immunities, field "
             f"'{name}': {value} holds bits content does not define (it defines "
             f"{len(content.bits)}: 0..{known})")


def _check_affects(data: SavePayload, affects: Affects, where: str) -> None:
    """Every affect has a source and the pulse it came (the three tables name the same
    affects); a level is -2 (permanent), -1 (its owner's level) or a level that fits 32
    bits (R-SAVE-9); it came at a pulse of 0..now."""
    prefix = f"{where}, component Affects"
    names = set(affects.levels)
    for table in ("sources", "since"):
        keys = set(getattr(affects, table))
        odd = sorted(keys ^ names)
        need(not odd, f"{prefix}, field '{table}': affect {odd[0] if odd else ''!r} is in "
             f"one of levels and {table} only")
    for name, level in affects.levels.items():
        need(-2 <= level <= INT32[1], f"{prefix}, field 'levels': {name!r} at level "
             f"{level} (-2 permanent, -1 its owner's level, else 0..{INT32[1]})")
    for name, pulse in affects.since.items():
        need(0 <= pulse <= data.pulse, f"{prefix}, field 'since': {name!r} came at pulse "
             f"{pulse}, not a pulse of 0..{data.pulse} (now)")


def _check_statuses(data: SavePayload, parts: dict[type, Any], content: Any,
                    where: str) -> None:
    """Statuses as a run keeps them (SPEC section 12, `systems/rules/statuses.py`):
    known names, degrees 1 or more (they stack past a scenario's bound, so 32 bits);
    every status ends at a pulse of now..now + its duration; a ticking status (period)
    has its next tick at now..now + its period, corroded its owed points (0..2 per
    degree) and its next tick by its end; no other status has either."""
    statuses = parts[Statuses]
    prefix = f"{where}, component Statuses"
    now = data.pulse
    for table in ("ends", "next_tick", "owed"):
        for name in getattr(statuses, table):
            need(name in statuses.degrees, f"{prefix}, field '{table}': status {name!r} "
                 f"is not one the creature has")
    for name, degree in statuses.degrees.items():
        status = content.statuses.get(name)
        need(status is not None, f"{prefix}, field 'degrees': unknown status {name!r}")
        need(1 <= degree <= INT32[1], f"{prefix}, field 'degrees': {name!r} at degree "
             f"{degree} (1..{INT32[1]}: an ended status is dropped, not kept at 0)")
        ends = statuses.ends.get(name)
        need(ends is not None and now <= ends <= now + status.duration,
             f"{prefix}, field 'ends': {name!r} ends at {ends}, not a pulse of "
             f"{now}..{now + status.duration} (now..now + its duration)")
        assert ends is not None
        tick = statuses.next_tick.get(name)
        if status.hp_per_degree:
            owed = statuses.owed.get(name)
            most = status.hp_per_degree * degree
            need(owed is not None and 0 <= owed <= most, f"{prefix}, field 'owed': "
                 f"{name!r} owes {owed}, not 0..{most} ({status.hp_per_degree} per degree)")
            need(tick is None or now <= tick <= ends, f"{prefix}, field 'next_tick': "
                 f"{name!r} ticks at {tick}, not a pulse of {now}..{ends} (its end)")
        else:
            need(name not in statuses.owed, f"{prefix}, field 'owed': {name!r} owes no "
                 f"hit points")
            if status.period > 0:
                need(tick is not None and now <= tick <= now + status.period,
                     f"{prefix}, field 'next_tick': {name!r} ticks at {tick}, not a pulse "
                     f"of {now}..{now + status.period} (now..now + its period)")
            else:
                need(tick is None, f"{prefix}, field 'next_tick': {name!r} does not tick")


def _check_worn(equipment: Equipment, content: Any, where: str) -> None:
    """Worn pieces in the slot content gives each, body armour first in the wear order
    (as a scenario's `wear` is laid out; acid eats them from the front, R-ACID-2)."""
    rank = {slot: i for i, slot in enumerate(content.gear.wear_order)}
    ranks = []
    for index, piece in enumerate(equipment.worn):
        slot = content.items[piece.item].slot or ""  # the item is known: check_template
        need(piece.slot == slot, f"{where}, component Equipment, field 'worn[{index}]': "
             f"{piece.item!r} is worn in slot {piece.slot!r}, content gives it {slot!r}")
        ranks.append(rank.get(slot, len(rank)))
    need(ranks == sorted(ranks), f"{where}, component Equipment, field 'worn': not in the "
         f"wear order of content (gear.wear_order)")


def _check_stand(parts: dict[type, Any], grid: Grid, where: str) -> None:
    """A creature stands where a scenario may put one: not in a wall or a shut door."""
    position = parts[Position]
    need(not grid.blocks(position.x, position.y), f"{where}, component Position: "
         f"[{position.x}, {position.y}] is a wall or a shut door, not a cell to stand on")


# -- cells: items, chests, doors, fires, ice, water ---------------------------------------
def _check_cells(data: SavePayload, by_entity: dict[int, dict[type, Any]],
                 arrays: dict[str, np.ndarray], content: Any) -> None:
    """The cell entities (each kind needs its Position: `_check_kind`) and what the
    grid's arrays say about them."""
    terrain = arrays["terrain"]
    doors: dict[tuple[int, int], int] = {}
    cells: dict[type, set[tuple[int, int]]] = {Fire: set(), Ice: set()}
    for entity, parts in by_entity.items():
        position = parts.get(Position)
        if position is None or Creature in parts:
            continue  # a water body, a game's own entity; creatures: _check_creatures
        where, cell = f"entity {entity}", (position.x, position.y)
        if ItemStack in parts:
            _check_stack(parts[ItemStack], cell, terrain, content, f"{where} (an item stack)")
        elif Chest in parts:
            _check_chest(parts[Chest], cell, terrain, content, f"{where} (a chest)")
        elif Door in parts:
            need(cell not in doors, f"{where} (a door): a second door on [{cell[0]}, "
                 f"{cell[1]}] (entity {doors.get(cell)} is the first)")
            doors[cell] = entity
            _check_door(data, parts[Door], cell, arrays, f"{where} (a door)")
        elif Fire in parts or Ice in parts:
            kind = Fire if Fire in parts else Ice
            need(cell not in cells[kind], f"{where}: a second {kind.__name__} on "
                 f"[{cell[0]}, {cell[1]}]")
            cells[kind].add(cell)
            _check_timed(data, parts, cell, terrain, content, where)
    door_cells = {(int(x), int(y)) for y, x in zip(*np.nonzero(terrain == Terrain.DOOR),
                                                   strict=True)}
    lonely = sorted(door_cells - set(doors), key=lambda c: (c[1], c[0]))
    need(not lonely, f"grid.terrain: the door cell {list(lonely[0]) if lonely else ''} has "
         f"no Door entity (each door cell of a map has one)")
    need(not (arrays["shut"] & (terrain != Terrain.DOOR)).any(),
         "grid.shut: a cell that is no door is shut")
    _check_ice(arrays)
    _check_water(data, by_entity, arrays)


def _on_floor(cell: tuple[int, int], terrain: np.ndarray, where: str) -> None:
    need(terrain[cell[1], cell[0]] != Terrain.WALL, f"{where}, component Position: "
         f"[{cell[0]}, {cell[1]}] is a wall")


def _check_count(count: int, content: Any, where: str) -> None:
    stack = content.world.limits.max_stack
    need(1 <= count <= stack, f"{where}, field 'count': must be 1..{stack} (the bound in "
         f"content world.limits.max_stack), got {count}")


def _check_stack(stack: ItemStack, cell: tuple[int, int], terrain: np.ndarray, content: Any,
                 where: str) -> None:
    """A floor stack as a scenario's item: a known item, a count of 1..max_stack, not in
    a wall; never a container (a container lies as a chest, `World.add_item`)."""
    definition = content.items.get(stack.item)
    need(definition is not None, f"{where}, component ItemStack, field 'item': unknown "
         f"item {stack.item!r}")
    need(not content.item_class_is(definition.class_, "container"), f"{where}, component "
         f"ItemStack, field 'item': {stack.item!r} is a container: it lies as a Chest")
    _check_count(stack.count, content, f"{where}, component ItemStack")
    _on_floor(cell, terrain, where)


def _check_chest(chest: Chest, cell: tuple[int, int], terrain: np.ndarray, content: Any,
                 where: str) -> None:
    """A chest as a scenario's container item: a known container, the hardness content
    gives it (R-FORCE-3), contents of known items in counts of 1..max_stack."""
    definition = content.items.get(chest.item)
    need(definition is not None, f"{where}, component Chest, field 'item': unknown item "
         f"{chest.item!r}")
    need(content.item_class_is(definition.class_, "container"), f"{where}, component "
         f"Chest, field 'item': {chest.item!r} is no container")
    need(chest.hardness == definition.hardness, f"{where}, component Chest, field "
         f"'hardness': {chest.hardness}, content gives {chest.item!r} {definition.hardness}")
    for index, inner in enumerate(chest.contents):
        inside = f"{where}, component Chest, field 'contents[{index}]'"
        need(inner.item in content.items, f"{inside}: unknown item {inner.item!r}")
        _check_count(inner.count, content, inside)
    _on_floor(cell, terrain, where)


def _check_door(data: SavePayload, door: Door, cell: tuple[int, int],
                arrays: dict[str, np.ndarray], where: str) -> None:
    """A door as a map draws it and blasts leave it (R-GRID-1, R-FORCE-2): on a door
    cell; shut, open or broken; only a shut door is trapped (a blast destroys the trap);
    only a broken one names who broke it; the shut array agrees."""
    x, y = cell
    need(arrays["terrain"][y, x] == Terrain.DOOR, f"{where}, component Position: "
         f"[{x}, {y}] is no door cell")
    need(door.state in DOOR_STATES, f"{where}, component Door, field 'state': unknown "
         f"state {door.state!r} (known: {', '.join(DOOR_STATES)})")
    need(not door.trapped or door.state == "shut", f"{where}, component Door, field "
         f"'trapped': a {door.state} door holds no trap")
    need(door.broken_by is None or door.state == "broken", f"{where}, component Door, "
         f"field 'broken_by': the door is {door.state}, not broken")
    need(door.broken_by is None or door.broken_by in data.by_id, f"{where}, component "
         f"Door, field 'broken_by': unknown creature {door.broken_by!r}")
    need(bool(arrays["shut"][y, x]) == (door.state == "shut"), f"grid.shut: [{x}, {y}] "
         f"says {'shut' if arrays['shut'][y, x] else 'not shut'}, its door is {door.state}")


def _check_timed(data: SavePayload, parts: dict[type, Any], cell: tuple[int, int],
                 terrain: np.ndarray, content: Any, where: str) -> None:
    """A fire burns out at a pulse of now..now + a fire burst's length (R-TERR-1); an
    ice record lies on ice, frozen at a pulse of 0..now; both name a known creature."""
    now = data.pulse
    if Fire in parts:
        fire, label = parts[Fire], f"{where} (a fire), component Fire"
        longest = content.world.fire_burst_pulses
        need(now <= fire.ends <= now + longest, f"{label}, field 'ends': {fire.ends}, not "
             f"a pulse of {now}..{now + longest} (now..now + world.fire_burst_pulses)")
        cause = fire.cause
    else:
        ice, label = parts[Ice], f"{where} (an ice record), component Ice"
        need(terrain[cell[1], cell[0]] == Terrain.ICE, f"{label}: [{cell[0]}, {cell[1]}] "
             f"is not ice")
        need(0 <= ice.pulse <= now, f"{label}, field 'pulse': {ice.pulse}, not a pulse of "
             f"0..{now} (now)")
        cause = ice.cause
    need(cause is None or cause in data.by_id, f"{label}, field 'cause': unknown creature "
         f"{cause!r}")


def _check_ice(arrays: dict[str, np.ndarray]) -> None:
    """Ice is 0 cm thick or more (at most what the 16-bit array holds); no other cell
    has a thickness (`Grid.set_terrain` clears it)."""
    ice_cm, is_ice = arrays["ice_cm"], arrays["terrain"] == Terrain.ICE
    need(not ice_cm[~is_ice].any(), "grid.ice_cm: a cell that is not ice has a thickness")
    need(bool((ice_cm[is_ice] >= 0).all()), "grid.ice_cm: a negative thickness")


def _check_water(data: SavePayload, by_entity: dict[int, dict[type, Any]],
                 arrays: dict[str, np.ndarray]) -> None:
    """Water bodies (R-GRID-5, R-TERR-4): their entities hold the labels 1..n, once
    each; the label array holds 0..n; and unless terrain changed since the last
    labelling (`dirty`), it is exactly the labelling of the terrain's water."""
    labels = sorted(parts[WaterBody].label for parts in by_entity.values()
                    if WaterBody in parts)
    count = len(labels)
    need(labels == list(range(1, count + 1)), f"water bodies: the entities hold labels "
         f"{labels[:10]}, not 1..{count} once each")
    body = arrays["body"]
    need(bool(((body >= 0) & (body <= count)).all()), f"grid.body: labels outside 0..{count} "
         f"(there are {count} water bodies)")
    if not data.grid.dirty:
        fresh = Grid(arrays["terrain"])
        _labels, found = fresh.label_water()
        need(found == count and bool((fresh.body == body).all()),
             f"grid.body: not the water bodies of the map ({found} bodies there, {count} "
             f"saved), and the grid is not marked dirty")


# -- links: spawn numbers, fights, the status pulse ---------------------------------------
def _check_links(data: SavePayload, by_entity: dict[int, dict[type, Any]]) -> None:
    """Spawn numbers 1 or more, strictly increasing with the entity ids (both are handed
    out at creation, R-GRID-3), at most the spawn counter, which is below the next
    entity id (every spawn makes an entity); fights between creatures."""
    last = 0
    for entity, parts in by_entity.items():
        spawn = parts.get(Spawn)
        if spawn is None:
            continue
        need(spawn.number > last, f"entity {entity}, component Spawn, field 'number': "
             f"{spawn.number} after {last}: spawn numbers are 1 or more, unique, in the "
             f"order the entities came (R-GRID-3)")
        last = spawn.number
    need(data.spawned >= last, f"spawned: {data.spawned} is below a spawn number in use "
         f"({last}): new spawns would reuse it (R-GRID-3)")
    need(data.spawned < data.next_entity, f"spawned: {data.spawned} spawns, but only "
         f"{data.next_entity - 1} entities were ever made (each spawn makes one)")
    for creature_id, entity in data.by_id.items():
        foe = by_entity[entity][Combat]
        if foe.fighting is not None:
            need(foe.fighting in data.by_id and foe.fighting != creature_id,
                 f"creature {creature_id!r}: fights {foe.fighting!r}, no other creature")


def _check_status_due(data: SavePayload, by_entity: dict[int, dict[type, Any]]) -> None:
    """The world's next status pulse: none only when no creature has a status; else a
    pulse of now..the earliest status time (earlier than that after a status ended
    early, never later: a later one would skip a tick)."""
    due = data.status_due
    if isinstance(due, UnsetType):
        return  # an older save: worked out from the statuses (rebuild_status_index)
    times = [time for parts in by_entity.values() if Statuses in parts
             for table in (parts[Statuses].ends, parts[Statuses].next_tick)
             for time in table.values()]
    if due is None:
        need(not times, "status_due: null, but creatures have statuses that tick or end")
        return
    top = min(times, default=2 * MAX_PULSE)
    need(data.pulse <= due <= top, f"status_due: {due}, not a pulse of "
         f"{data.pulse}..{top} (now..the first status tick or end)")


# -- actions ------------------------------------------------------------------------------
def _check_action(action: Any, pulse: int, index: int, where: str, by_id: dict[str, int],
                  grid: Grid, content: Any) -> None:
    """One queued or scripted action, field by field, through the scenario's own action
    check (`_to_action`): a known actor, spell and via, a creature or a cell on the map
    for a target, a cell on the map to move to, no attack on itself."""
    entry = ScenarioAction(actor=action.actor, pulse=pulse)
    if isinstance(action, Cast):
        entry = msgspec.structs.replace(entry, cast=action.spell, target=action.target,
                                        via=action.via)
    elif isinstance(action, Attack):
        entry = msgspec.structs.replace(entry, attack=action.target)
    elif isinstance(action, Move):
        entry = msgspec.structs.replace(entry, move=action.to)
    elif isinstance(action, Open):
        entry = msgspec.structs.replace(entry, open=action.at)
    elif isinstance(action, Close):
        entry = msgspec.structs.replace(entry, close=action.at)
    world = SimpleNamespace(by_id=by_id, grid=grid, content=content)
    try:
        _to_action(entry, index, "", cast(Any, world))
    except ScenarioError as error:
        text = str(error)
        marker = "), field "
        detail = "field " + text.split(marker, 1)[1] if marker in text else text
        raise SaveError(f"{where}: {detail}") from None


def _check_queues(data: SavePayload, by_entity: dict[int, dict[type, Any]], grid: Grid,
                  content: Any) -> None:
    """Each creature's queued actions are its own, and each checks as a scenario
    action (the living's and the dead's: a death leaves the queue as it was)."""
    for creature_id, entity in data.by_id.items():
        queue = by_entity[entity][ActionQueue]
        for index, action in enumerate(queue.pending):
            where = (f"creature {creature_id!r} (entity {entity}), component ActionQueue, "
                     f"pending[{index}]")
            need(action.actor == creature_id, f"{where}, field 'actor': {action.actor!r} "
                 f"in the queue of {creature_id!r}")
            _check_action(action, 0, index, where, data.by_id, grid, content)


def _scripted(data: SavePayload, grid: Grid, content: Any) -> list[tuple[int, Any]]:
    """The scenario actions still to come: typed, each a scenario action, due from now
    to the scenario's end, in pulse order."""
    scripted = []
    last = MAX_PULSE if data.end_pulse is None else min(MAX_PULSE, data.end_pulse)
    for index, (pulse, action) in enumerate(data.scripted):
        where = f"scripted[{index}]"
        need(data.pulse <= pulse <= last, f"{where}: pulse {pulse}, not a pulse of "
             f"{data.pulse}..{last} (now..the scenario's end)")
        try:
            typed = msgspec.convert(action, AnyAction)
        except msgspec.ValidationError as error:
            raise SaveError(f"{where}: not an action: {error}") from None
        need(typed.actor in data.by_id, f"{where}: unknown actor {typed.actor!r}")
        _check_action(typed, pulse, index, where, data.by_id, grid, content)
        scripted.append((pulse, typed))
    need(all(a[0] <= b[0] for a, b in itertools.pairwise(scripted)),
         "scripted: actions out of pulse order")
    return scripted


# -- the event log ------------------------------------------------------------------------
# Event fields that name a creature when they hold a name (a cast's target may be a cell).
_CREATURE_FIELDS = ("source", "target", "actor", "killer")


def _events(data: SavePayload) -> list[Any]:
    """The event log: each event of a known kind, every field of its type (unknown keys
    refused), pulses in order and none after now, creature fields naming creatures."""
    events = []
    last = 0
    for index, row in enumerate(data.events):
        where = f"events[{index}]"
        kind = EVENT_TYPES.get(row.get("kind"))  # type: ignore[arg-type]
        need(kind is not None, f"{where}: missing or unknown kind {row.get('kind')!r}")
        assert kind is not None
        keys = [key for _name, key in kind._keys]  # type: ignore[attr-defined]
        extra = sorted(set(row) - {"pulse", "kind", *keys})
        need(not extra, f"{where} ({row['kind']}): unknown field {extra[0] if extra else ''!r}")
        defaults = kind._field_defaults  # type: ignore[attr-defined]
        missing = [key for name, key in kind._keys  # type: ignore[attr-defined]
                   if key not in row and name not in defaults]
        absent = ["pulse"] if "pulse" not in row else missing
        need(not absent, f"{where} ({row['kind']}): missing field "
             f"{absent[0] if absent else ''!r}")
        values = [row["pulse"]] + [row.get(key, defaults.get(name))
                                   for name, key in kind._keys]  # type: ignore[attr-defined]
        try:
            event = msgspec.convert(values, kind)
        except msgspec.ValidationError as error:
            field_path, detail = decode_error_field(error)
            position = field_path.strip("[]").split("]")[0]
            name = (["pulse", *keys][int(position)] if position.isdigit() else field_path)
            raise SaveError(f"{where} ({row['kind']}), field '{name}': {detail}") from None
        need(last <= event.pulse <= data.pulse, f"{where} ({row['kind']}), field 'pulse': "
             f"{event.pulse}, not a pulse of {last}..{data.pulse} (the log is in pulse order "
             f"and ends now)")
        last = event.pulse
        for key in _CREATURE_FIELDS:
            value = row.get(key)
            need(not isinstance(value, str) or value in data.by_id,
                 f"{where} ({row['kind']}), field '{key}': unknown creature {value!r}")
        events.append(event)
    return events
