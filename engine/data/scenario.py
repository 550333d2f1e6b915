"""Load a scenario file (SCENARIO.md) into a World, validating all of it first.

Nothing runs until the whole file is valid: the map, every creature, item and action,
and the inline content layered over the defaults. Each error names the file, the entry
and the field (R-ENG-1). `prepare_build` does the validation once and keeps a
`Blueprint`, which builds the World of any seed from copies (batch runs build thousands).
"""

from __future__ import annotations

import copy
import difflib
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field as field_of
from pathlib import Path
from typing import Any, Literal

import esper
import msgspec
import numpy as np
from msgspec import UNSET, Struct, field

from affray.components import Door, WaterBody
from affray.core.actions import AnyAction, Attack, Cast, Close, Move, Open
from affray.core.collector import collector_paused
from affray.core.errors import ScenarioError, UsageError
from affray.core.esper_context import keeps_esper_world
from affray.core.grid import Grid, Terrain, chebyshev
from affray.core.spawning import SpawnBatch
from affray.core.validate import MAX_PULSE as VALIDATE_MAX_PULSE
from affray.core.world import DEFAULT_LEGEND, World, default_rules
from affray.data.content_loader import (
    NAMED_KINDS,
    SINGLE_KINDS,
    Content,
    check_tables,
    default_content,
    parse_toml,
    read_source,
)
from affray.data.creatures import Copier, CreatureValues, check_template, resolve
from affray.data.defs import VIAS, CreatureFields, LimitsConfig, decode_error_field
from affray.systems.rules.registry import Rules

# Terrain name -> (terrain code, door state or None, locked, trapped).
TERRAIN_KINDS: dict[str, tuple[Terrain, str | None, bool, bool]] = {
    "floor": (Terrain.FLOOR, None, False, False),
    "wall": (Terrain.WALL, None, False, False),
    "water": (Terrain.WATER, None, False, False),
    "ice": (Terrain.ICE, None, False, False),
    "door": (Terrain.DOOR, "shut", False, False),
    "locked_door": (Terrain.DOOR, "shut", True, False),
    "trapped_door": (Terrain.DOOR, "shut", False, True),
    "open_door": (Terrain.DOOR, "open", False, False),
    "broken_door": (Terrain.DOOR, "broken", False, False),
}


class MapSpec(Struct, forbid_unknown_fields=True, kw_only=True):
    rows: list[str]
    legend: dict[str, str] = {}


class ScenarioCreature(CreatureFields, frozen=True,  # type: ignore[call-arg]
                       forbid_unknown_fields=True, kw_only=True):
    id: str
    at: tuple[int, int]
    template: str | None = None
    fighting: str | None = None


class ChestItem(Struct, forbid_unknown_fields=True, kw_only=True):
    item: str
    count: int = 1


class ScenarioItem(Struct, forbid_unknown_fields=True, kw_only=True):
    at: tuple[int, int]
    item: str
    count: int = 1
    contents: list[ChestItem] = []


class ScenarioAction(Struct, forbid_unknown_fields=True, kw_only=True):
    actor: str
    pulse: int = 0
    cast: str | None = None
    attack: str | None = None
    move: tuple[int, int] | None = None
    # A door beside the actor to open or close (affray.Open, affray.Close).
    open: tuple[int, int] | None = None
    close: tuple[int, int] | None = None
    target: str | tuple[int, int] | None = None
    via: str | None = None  # casts only; "mana" when not given


class ScenarioFile(Struct, forbid_unknown_fields=True, kw_only=True):
    map: MapSpec
    name: str = ""
    seed: int = 0
    pulses: int = 12
    creatures: list[ScenarioCreature] = []
    items: list[ScenarioItem] = []
    actions: list[ScenarioAction] = []
    content: dict[str, Any] = field(default_factory=dict)
    # Big rounds vectorised ("auto") or every blow scalar ("never"): World.vectorise.
    vectorise: Literal["auto", "never"] = "auto"


def _entry_name(raw: dict[str, Any], where: str) -> str:
    """Turn `creatures[2].level` into `creature 'mage' (creatures[2]), field 'level'`."""
    head, _, rest = where.partition(".")
    if "[" in head:
        section, _, index = head.partition("[")
        try:
            entry = raw.get(section, [])[int(index.rstrip("]"))]
        except (IndexError, ValueError, TypeError, AttributeError):
            entry = None
        label = section.rstrip("s")
        if isinstance(entry, dict) and isinstance(entry.get("id"), str):
            label = f"{label} {entry['id']!r}"
        elif isinstance(entry, dict) and isinstance(entry.get("actor"), str):
            label = f"{label} of {entry['actor']!r}"
        head = f"{label} ({head})"
        return f"{head}, field '{rest}'" if rest else head
    return f"field '{where}'"


# The largest pulse count or action pulse a scenario may name. A World skips idle pulses,
# so a long run is cheap; past this the pulse numbers themselves would stop fitting the
# 64-bit integers of saves and arrays (2**62 leaves room to add a run length to a pulse).
MAX_PULSE = VALIDATE_MAX_PULSE
# Seeds: numpy's PCG64 takes any int 0 or more; saves and JSON carry 64-bit ints.
MAX_SEED = 2**63 - 1
# Top-level keys of a scenario (SCENARIO.md).
SCENARIO_KEYS = ("map", "name", "seed", "pulses", "creatures", "items", "actions", "content",
                 "vectorise")


def file_kind(data: dict[str, Any], source: str) -> str:
    """"scenario" or "content", decided by the top-level keys, the same for `affray check`
    and `affray run`. An empty file, or a key that is neither (a typo such as `[maps]`),
    is a ScenarioError naming the key and the nearest known one."""
    if not data:
        raise ScenarioError(f"{source}: the file is empty: a scenario needs at least [map], "
                            f"a content file at least one [<kind>] table")
    content_kinds = set(NAMED_KINDS) | set(SINGLE_KINDS)
    known = set(SCENARIO_KEYS) | content_kinds
    for key in data:
        if key not in known:
            near = difflib.get_close_matches(key, sorted(known), n=1)
            hint = f" (did you mean {near[0]!r}?)" if near else ""
            raise ScenarioError(
                f"{source}: [{key}]: neither a scenario key ({', '.join(SCENARIO_KEYS)}) nor "
                f"a content kind ({', '.join(sorted(content_kinds))}){hint}")
    # `creatures` and `items` are both: a scenario's are lists of tables ([[creatures]]),
    # content's are tables of named entries ([creatures.kobold]).
    scenario_only = [key for key in data if key in SCENARIO_KEYS
                     and (key not in content_kinds or not isinstance(data[key], dict))]
    content_only = [key for key in data if key not in scenario_only]
    if scenario_only and content_only:
        raise ScenarioError(
            f"{source}: mixes scenario keys ({', '.join(scenario_only)}) with content kinds "
            f"({', '.join(content_only)}): a scenario puts content under [content.<kind>]")
    return "scenario" if scenario_only else "content"


# A `[[creatures]]` or `[[items]]` table header at the start of a line.
_HEADER = {kind: re.compile(rf"^[ \t]*\[\[[ \t]*{kind}[ \t]*\]\]", re.MULTILINE)
           for kind in ("creatures", "items", "actions")}
_COUNTED = (("creatures", "max_creatures"), ("items", "max_items"), ("actions", "max_actions"))


def _count_problem(kind: str, count: int, limits: LimitsConfig) -> str | None:
    """Why a scenario holds too many creatures, item entries or actions, or None."""
    knob = dict(_COUNTED)[kind]
    bound = getattr(limits, knob)
    if count <= bound:
        return None
    return (f"{count} {kind}, more than {bound} (the bound in content world.limits.{knob}; "
            f"a file may raise it in [content.world.limits])")


def _precount(text: str, source: str, limits: LimitsConfig) -> None:
    """Refuse a file with too many `[[creatures]]`, `[[items]]` or `[[actions]]` from its text,
    before the TOML parse (the heavy part of loading a million creatures: most of its
    time and memory). Only when the file does not set the limit itself; otherwise, and
    for entries written as inline arrays, `_check_counts` counts the parsed tables."""
    for kind, knob in _COUNTED:
        bound = getattr(limits, knob)
        if text.count(f"[[{kind}]]") <= bound or knob in text:  # cheap: no regex yet
            continue
        count = sum(1 for _ in _HEADER[kind].finditer(text))
        problem = _count_problem(kind, count, limits)
        if problem:
            raise ScenarioError(f"{source}: field '{kind}': {problem}")


def _check_counts(raw: dict[str, Any], source: str, limits: LimitsConfig) -> None:
    """Refuse too many creatures, item entries or actions in parsed tables, before they are
    converted and built: `limits` with the file's own [content.world.limits] over it."""
    inline = raw.get("content", {})
    inline = inline.get("world", {}) if isinstance(inline, dict) else {}
    inline = inline.get("limits", {}) if isinstance(inline, dict) else {}
    for kind, knob in _COUNTED:
        entries = raw.get(kind)
        if not isinstance(entries, list):
            continue  # the type check names it
        bound = limits
        if knob in inline:
            override = inline[knob]
            if isinstance(override, bool) or not isinstance(override, int) or override < 1:
                continue  # a bad limit: the content check names it
            bound = msgspec.structs.replace(limits, **{knob: override})
        problem = _count_problem(kind, len(entries), bound)
        if problem:
            raise ScenarioError(f"{source}: field '{kind}': {problem}")


def parse_scenario(text: str, source: str, limits: LimitsConfig | None = None
                   ) -> tuple[ScenarioFile, dict[str, Any]]:
    """Parse and type-check a scenario's TOML; returns (typed, raw).

    With `limits` (the content's `world.limits` the scenario will be built over), a
    file with more creatures or item entries than they allow is refused before the
    parse where its text shows it, and before the type check otherwise (R-ENG-1); the
    build checks again against the layered content in any case."""
    if limits is not None:
        _precount(text, source, limits)
    with collector_paused():
        return _parse_checked(text, source, limits)


def _parse_checked(text: str, source: str, limits: LimitsConfig | None
                   ) -> tuple[ScenarioFile, dict[str, Any]]:
    raw = parse_toml(text, source, ScenarioError)
    if file_kind(raw, source) != "scenario":
        raise ScenarioError(f"{source}: a content file ([{'], ['.join(raw)}]), not a "
                            f"scenario: a scenario needs [map] (`affray check` checks both)")
    if limits is not None:
        _check_counts(raw, source, limits)
    return _typed(raw, source), raw


def _typed(raw: dict[str, Any], source: str) -> ScenarioFile:
    """A scenario's parsed tables type-checked (msgspec), errors naming entry and field."""
    try:
        return msgspec.convert(raw, type=ScenarioFile)
    except msgspec.ValidationError as error:
        where, detail = decode_error_field(error)
        raise ScenarioError(f"{source}: {_entry_name(raw, where)}: {detail}") from None


def _grid_from_map(spec: MapSpec, content: Content, source: str
                   ) -> tuple[Grid, dict[str, str], list[tuple[tuple[int, int], Door]]]:
    legend = dict(DEFAULT_LEGEND)
    for symbol, name in spec.legend.items():
        if len(symbol) != 1:
            raise ScenarioError(f"{source}: map.legend: symbol {symbol!r} must be one character")
        if name not in TERRAIN_KINDS:
            raise ScenarioError(f"{source}: map.legend.{symbol}: unknown terrain {name!r} "
                                f"(known: {', '.join(TERRAIN_KINDS)})")
        legend[symbol] = name
    if not spec.rows:
        raise ScenarioError(f"{source}: map.rows: the map has no rows")
    width = len(spec.rows[0])
    if width == 0:
        raise ScenarioError(f"{source}: map.rows[0]: the row is empty (a map needs cells)")
    cells, bound = width * len(spec.rows), content.world.limits.max_map_cells
    if cells > bound:
        raise ScenarioError(f"{source}: map.rows: {width} x {len(spec.rows)} = {cells} cells, "
                            f"more than {bound} (the bound in content "
                            f"world.limits.max_map_cells)")
    for y, row in enumerate(spec.rows):
        if len(row) != width:
            raise ScenarioError(f"{source}: map.rows[{y}]: length {len(row)}, expected {width} "
                                f"(every row must be as wide as the first)")
    # One code point per cell, then one numpy pass per distinct symbol (a map has few):
    # a 2048 x 2048 map loads in a fraction of a second, not a Python loop per cell.
    points = np.frombuffer("".join(spec.rows).encode("utf-32-le"), dtype=np.uint32)
    points = points.reshape(len(spec.rows), width)
    terrain = np.zeros(points.shape, dtype=np.uint8)
    ice = np.zeros(points.shape, dtype=np.int16)
    doors: list[tuple[tuple[int, int], Door]] = []
    door_cells, most_doors = 0, content.world.limits.max_doors
    for point in np.unique(points).tolist():
        symbol = chr(point)
        cells = points == point
        if symbol not in legend:
            ys, xs = np.nonzero(cells)
            raise ScenarioError(f"{source}: map.rows[{ys[0]}]: unknown symbol {symbol!r} at "
                                f"[{xs[0]}, {ys[0]}] (add it to [map.legend])")
        code, door_state, locked, trapped = TERRAIN_KINDS[legend[symbol]]
        terrain[cells] = code
        if code == Terrain.ICE:
            ice[cells] = content.world.ice_cm
        if door_state is not None:
            ys, xs = np.nonzero(cells)
            door_cells += len(xs)
            if door_cells > most_doors:  # each door is an entity: refused before any is made
                raise ScenarioError(f"{source}: map.rows: more than {most_doors} doors (the "
                                    f"bound in content world.limits.max_doors)")
            doors.extend(((int(x), int(y)), Door(state=door_state, locked=locked,
                                                 trapped=trapped))
                         for y, x in zip(ys.tolist(), xs.tolist(), strict=True))
    doors.sort(key=lambda door: (door[0][1], door[0][0]))  # scan order, as written
    return Grid(terrain, ice), legend, doors


# The verbs of an `[[actions]]` entry: exactly one per entry.
ACTION_VERBS = ("cast", "attack", "move", "open", "close")


def _to_action(entry: ScenarioAction, index: int, source: str, world: World) -> AnyAction:
    def fail(field_name: str, message: str) -> ScenarioError:
        return ScenarioError(f"{source}: action of {entry.actor!r} (actions[{index}]), field "
                             f"'{field_name}': {message}")

    chosen = [k for k in ACTION_VERBS if getattr(entry, k) is not None]
    if len(chosen) != 1:
        raise fail("cast/attack/move", "give exactly one of cast, attack or move (or "
                   "open or close)")
    if entry.actor not in world.by_id:
        raise fail("actor", f"unknown creature {entry.actor!r}")
    if not 0 <= entry.pulse <= MAX_PULSE:
        raise fail("pulse", f"must be 0..{MAX_PULSE} (2**62), got {entry.pulse}")
    if entry.cast is None:
        kind = chosen[0]
        if entry.via is not None:
            raise fail("via", f"only a cast has a via; {kind} takes none (got {entry.via!r})")
        if entry.target is not None:
            raise fail("target", f"only a cast has a target; {kind} names its own "
                       f"(`{kind} = ...`)")
    if entry.move is not None:
        if not world.grid.in_bounds(*entry.move):
            raise fail("move", f"{list(entry.move)} is out of bounds")
        return Move(actor=entry.actor, to=entry.move)
    for verb, kind in (("open", Open), ("close", Close)):
        cell = getattr(entry, verb)
        if cell is not None:
            if not world.grid.in_bounds(*cell):
                raise fail(verb, f"{list(cell)} is out of bounds")
            return kind(actor=entry.actor, at=cell)
    if entry.attack is not None:
        if entry.attack not in world.by_id:
            raise fail("attack", f"unknown creature {entry.attack!r}")
        if entry.attack == entry.actor:
            raise fail("attack", f"{entry.actor!r} cannot attack itself")
        return Attack(actor=entry.actor, target=entry.attack)
    assert entry.cast is not None
    if entry.cast not in world.content.spells:
        raise fail("cast", f"unknown spell {entry.cast!r}")
    via = "mana" if entry.via is None else entry.via
    if via not in VIAS:
        raise fail("via", f"unknown via {via!r} (known: {', '.join(VIAS)})")
    if entry.target is None:
        raise fail("target", "a cast needs a target: a creature id or a cell [x, y]")
    if isinstance(entry.target, str) and entry.target not in world.by_id:
        raise fail("target", f"unknown creature {entry.target!r}")
    if not isinstance(entry.target, str) and not world.grid.in_bounds(*entry.target):
        raise fail("target", f"{list(entry.target)} is out of bounds")
    return Cast(actor=entry.actor, spell=entry.cast, target=entry.target, via=via)


@keeps_esper_world
def build_world(spec: ScenarioFile, raw: dict[str, Any], source: str,
                seed: int | None = None, content: Content | None = None) -> World:
    """Validate a parsed scenario completely, then build its World."""
    return _assemble(spec, raw, source, seed, content, None)


@dataclass(frozen=True, slots=True)
class PlannedCreature:
    """A validated creature entry, resolved once: each build adds a fresh copy
    (`make()`, a `Copier` of the resolved values)."""

    id: str
    at: tuple[int, int]
    template: str | None
    values: CreatureValues
    make: Callable[[], CreatureValues]


@dataclass(slots=True)
class _Kept:
    """What `prepare_build` keeps of the validating build (copies, before any change)."""

    creatures: list[PlannedCreature] = field_of(default_factory=list)
    doors: list[tuple[tuple[int, int], Callable[[], Door]]] = field_of(default_factory=list)


@dataclass(frozen=True, slots=True)
class Blueprint:
    """A scenario validated once, with everything of its World that does not depend on
    the seed worked out once: the layered content, the grid (doors shut, water labelled,
    no creatures), the resolved creatures, the default rules and the scripted actions.

    `build(seed)` gives a World equal in every way to `build_world(..., seed=seed)`
    (same entities in the same order, same log and snapshot for the same seed) at a
    fraction of the cost: batch runs build thousands. Each World gets its own copies of
    everything mutable (grid arrays, components, rules, the action list), so two runs
    of one blueprint never share state; the shared parts (content, the spec, actions,
    the raw TOML tables) are only read. One of those is reachable from each World:
    `World.content_overlay` is the content's `overlay` (every layer over the defaults:
    a content pack's, the scenario's inline tables), the same dict in every run (a save
    writes it out; nothing in the engine changes it, and a game must not).
    """

    spec: ScenarioFile
    raw: dict[str, Any]
    source: str
    content: Content
    grid: Grid
    water_bodies: int
    legend: dict[str, str]
    doors: tuple[tuple[tuple[int, int], Callable[[], Door]], ...]
    creatures: tuple[PlannedCreature, ...]
    rules: Rules
    actions: tuple[tuple[int, AnyAction], ...]
    end_pulse: int

    @keeps_esper_world
    def build(self, seed: int | None = None) -> World:
        """This scenario's World for `seed` (None: the file's seed)."""
        seed = check_seed(seed)
        with collector_paused():
            return self._build(seed)

    def _build(self, seed: int | None) -> World:
        spec = self.spec
        world = World(self.content, self.grid.copy(), spec.seed if seed is None else seed,
                      name=spec.name, legend=self.legend, rules=self.rules.copy(),
                      water_bodies=self.water_bodies)
        world.enter()  # for the build; the caller's esper world comes back after it
        try:
            world.content_overlay = self.content.overlay
            world.vectorise = spec.vectorise
            for at, make_door in self.doors:
                world.add_door(at, make_door())
            batch = SpawnBatch(world)  # add_creature's, the sets and roster written once
            try:
                for planned in self.creatures:
                    batch.checked(planned.id, planned.at, planned.make(), planned.template)
            finally:
                batch.flush()
            _add_items(world, spec, self.source)
            _start_fights(world, spec)
            world.scripted = list(self.actions)
            world.end_pulse = self.end_pulse
        except BaseException:
            world.close()
            raise
        return world


@keeps_esper_world
def prepare_build(spec: ScenarioFile, raw: dict[str, Any], source: str,
                  content: Content | None = None) -> Blueprint:
    """Validate a parsed scenario completely (a World is built with the file's seed and
    closed, as `build_world`) and keep what every seed's World shares: a `Blueprint`."""
    kept = _Kept()
    world = _assemble(spec, raw, source, None, content, kept)
    try:
        world.enter()
        grid = world.grid.copy()
        grid.occupant[...] = 0  # the creatures come back with each build
        return Blueprint(
            spec=spec, raw=raw, source=source, content=world.content, grid=grid,
            water_bodies=len(esper.get_component(WaterBody)), legend=dict(world.legend),
            doors=tuple(kept.doors), creatures=tuple(kept.creatures),
            rules=default_rules(world.content),
            actions=tuple(world.scripted), end_pulse=world.end_pulse or 0)
    finally:
        world.close()


def _assemble(spec: ScenarioFile, raw: dict[str, Any], source: str, seed: int | None,
              content: Content | None, kept: _Kept | None) -> World:
    """build_world's work; with `kept`, the doors and each creature's resolved values
    are copied into it before the World takes them (and can change them)."""
    with collector_paused():
        return _assemble_world(spec, raw, source, seed, content, kept)


def _assemble_world(spec: ScenarioFile, raw: dict[str, Any], source: str, seed: int | None,
                    content: Content | None, kept: _Kept | None) -> World:
    seed = check_seed(seed)
    _check_top(spec, source)
    base = content or default_content()
    content = base.layered(spec.content, source)
    for kind, _knob in _COUNTED:  # before any of them is built (R-ENG-1)
        problem = _count_problem(kind, len(getattr(spec, kind)), content.world.limits)
        if problem:
            raise ScenarioError(f"{source}: field '{kind}': {problem}")
    grid, legend, doors = _grid_from_map(spec.map, content, source)
    _labels, bodies = grid.label_water()  # R-GRID-5; each body is an entity of the World
    if bodies > content.world.limits.max_water_bodies:
        raise ScenarioError(f"{source}: map.rows: {bodies} bodies of water, more than "
                            f"{content.world.limits.max_water_bodies} (the bound in content "
                            f"world.limits.max_water_bodies)")
    world = World(content, grid, spec.seed if seed is None else seed, name=spec.name,
                  legend=legend, water_bodies=bodies)
    world.enter()  # for the build; the caller's esper world comes back after it
    world.content_overlay = content.overlay  # every layer: a save keeps them
    world.vectorise = spec.vectorise
    if kept is not None:
        kept.doors = [(at, Copier(copy.deepcopy(door))) for at, door in doors]
    for at, door in doors:
        world.add_door(at, door)
    try:
        _populate(world, spec, source, kept)
    except BaseException:
        world.close()
        raise
    return world


def _check_top(spec: ScenarioFile, source: str) -> None:
    """The scenario's own numbers: a seed and a run length of 0 or more, and not past
    what the integers of the engine hold (MAX_SEED, MAX_PULSE)."""
    if not 0 <= spec.seed <= MAX_SEED:
        raise ScenarioError(f"{source}: field 'seed': must be 0..{MAX_SEED} (2**63 - 1), "
                            f"got {spec.seed}")
    if not 0 <= spec.pulses <= MAX_SEED:
        raise ScenarioError(f"{source}: field 'pulses': must be 0..{MAX_SEED} (2**63 - 1), "
                            f"got {spec.pulses}")


@dataclass(frozen=True, slots=True)
class _Shape:
    """What every creature entry of one shape shares: the problem `check_template` finds
    in it (or None), and its resolved values, with a Copier of them."""

    problem: tuple[str, str] | None
    prototype: CreatureValues | None  # None when there is a problem
    make: Callable[[], CreatureValues]


class _Shapes:
    """Creature entries by shape: every field but `id`, `at` and `fighting` (which
    `check_template` and `resolve` never read), and the template. A battle of 100,000
    kobolds has a handful of shapes, so each is checked and resolved once and every
    creature gets a copy (a Copier, several times cheaper than resolving again)."""

    __slots__ = ("_content", "_encode", "_known")

    def __init__(self, content: Content) -> None:
        self._content = content
        self._encode = msgspec.json.Encoder().encode  # any int, unlike msgpack
        self._known: dict[tuple[str | None, bytes], _Shape] = {}

    def of(self, entry: ScenarioCreature, template: CreatureFields | None) -> _Shape:
        """The shape of a scenario entry, checked and resolved once."""
        key = (entry.template, self._encode(msgspec.structs.replace(
            entry, id="", at=(0, 0), fighting=None)))
        shape = self._known.get(key)
        if shape is None:
            problem = check_template(self._content, entry)
            prototype = resolve(self._content, entry, template) if problem is None else None
            shape = _Shape(problem, prototype, Copier(prototype))
            self._known[key] = shape
        return shape


def _populate(world: World, spec: ScenarioFile, source: str,
              kept: _Kept | None = None) -> None:
    content, grid = world.content, world.grid
    shapes = _Shapes(content)
    blocked = grid.terrain == Terrain.WALL  # grid.blocks for every cell, computed once
    blocked |= grid.shut
    ids = Counter(c.id for c in spec.creatures)  # linear in creatures, not quadratic
    # A fight's foe without a scan per creature (the first of an id, as a scan found).
    foes = {c.id: c for c in reversed(spec.creatures)}
    for index, entry in enumerate(spec.creatures):
        def fail(field_name: str, message: str, entry: ScenarioCreature = entry,
                 index: int = index) -> ScenarioError:
            return ScenarioError(f"{source}: creature {entry.id!r} (creatures[{index}]), "
                                 f"field '{field_name}': {message}")

        if ids[entry.id] > 1:
            raise fail("id", f"duplicate id {entry.id!r}")
        placed = _placement_problem(entry, grid, bool(blocked[entry.at[1], entry.at[0]])
                                    if grid.in_bounds(*entry.at) else False, content)
        if isinstance(placed, tuple):
            raise fail(*placed)
        shape = shapes.of(entry, placed)
        if shape.problem:
            raise fail(*shape.problem)
        if entry.fighting is not None and (entry.fighting not in ids or entry.fighting == entry.id):
            raise fail("fighting", f"{entry.fighting!r} is not another creature of the scenario")
        if entry.fighting is not None:
            foe = foes[entry.fighting]
            if chebyshev(entry.at, foe.at) != 1:  # R-MELEE-2: a fight is between neighbours
                raise fail("fighting", f"{entry.fighting!r} at {list(foe.at)} is not beside "
                           f"{entry.id!r} at {list(entry.at)}: melee needs adjacent cells")
        problem = _values_problem(entry, shape.prototype)
        if problem:
            raise fail(*problem)
        prototype = shape.prototype
        assert prototype is not None  # no problem, so resolved
        if kept is not None:  # the prototype is never handed out, so never changed
            kept.creatures.append(PlannedCreature(entry.id, entry.at, entry.template,
                                                  prototype, shape.make))
        world.add_creature(entry.id, entry.at, shape.make(), template=entry.template)
    _add_items(world, spec, source)
    _start_fights(world, spec)
    actions = [(entry.pulse, _to_action(entry, i, source, world))
               for i, entry in enumerate(spec.actions)]
    actions.sort(key=lambda pair: pair[0])  # stable: file order within a pulse
    world.scripted = actions
    last = max((pulse for pulse, _ in actions), default=0)
    # A run length past the clock's limit (2**63 pulses, what saves and arrays hold) ends
    # at the limit: `pulses = 9223372036854775807` is "run until nothing is left".
    world.end_pulse = min(last + spec.pulses, 2 * MAX_PULSE)


def _placement_problem(entry: ScenarioCreature, grid: Grid, blocked: bool,
                       content: Content) -> tuple[str, str] | CreatureFields | None:
    """A creature entry's id, cell and template checked: (field, message) for the first
    problem, else its template (None when it names none). `blocked`: its cell is a wall
    or a shut door."""
    if not entry.id or entry.id != entry.id.strip() or not entry.id.isprintable():
        return "id", ("an id is a name: not empty, no spaces around it, no control "
                      "characters")
    x, y = entry.at
    if not grid.in_bounds(x, y):
        return "at", f"{list(entry.at)} is off the map ({grid.width}x{grid.height})"
    if blocked:
        return "at", f"{list(entry.at)} is a wall or a shut door, not a cell to stand on"
    if grid.occupant[y, x]:
        return "at", f"{list(entry.at)} is already taken by another creature"
    if entry.template is None:
        return None
    template = content.creatures.get(entry.template)
    if template is None:
        return "template", f"unknown creature template {entry.template!r}"
    return template


def _values_problem(entry: ScenarioCreature, prototype: CreatureValues | None
                    ) -> tuple[str, str] | None:
    """A creature entry's numbers checked: a level of 0 or more, hit points of 1 or
    more, and no more than its maximum."""
    for name in ("level", "hp", "max_hp"):
        value = getattr(entry, name)
        if value is not UNSET and value < (0 if name == "level" else 1):
            return name, "must be positive"
    if prototype is not None and prototype.vitals.hp > prototype.vitals.max_hp:
        return "hp", f"hp {prototype.vitals.hp} is above max_hp {prototype.vitals.max_hp}"
    return None


def creature_from_fields(world: World, creature_id: object, at: object,
                         fields: dict[str, Any], call: str = "add_creature"
                         ) -> tuple[ScenarioCreature, CreatureValues]:
    """A creature given by a game in code (`World.add_creature(id, at, **fields)`), with
    the fields of a scenario's `[[creatures]]` entry as keywords, checked as a scenario
    checks an entry against this world as it is now (a free cell to stand on, a unique
    id, names content defines, a foe beside it for `fighting`): the entry and its
    resolved values, or a UsageError naming the creature and the field."""
    def fail(field_name: str, message: str) -> UsageError:
        return UsageError(f"{call}: creature {creature_id!r}, field '{field_name}': {message}")

    if isinstance(at, list):
        at = tuple(at)
    known = {f.encode_name for f in msgspec.structs.fields(ScenarioCreature)}
    for name in fields:
        if name not in known or name in ("id", "at"):
            near = difflib.get_close_matches(name, sorted(known), n=1)
            hint = f" (did you mean {near[0]!r}?)" if near else ""
            raise fail(name, f"not a field of a creature{hint}")
    try:
        entry = msgspec.convert({"id": creature_id, "at": at, **fields},
                                type=ScenarioCreature)
    except msgspec.ValidationError as error:
        where, detail = decode_error_field(error)
        raise fail(where.split(".")[0].split("[")[0] or "id", detail) from None
    content, grid = world.content, world.grid
    bound = content.world.limits.max_creatures
    if len(world.by_id) >= bound:
        raise fail("id", f"the world holds {bound} creatures, the most content allows "
                   f"(world.limits.max_creatures)")
    if entry.id in world.by_id:
        raise fail("id", f"duplicate id {entry.id!r}: the world has a creature of that id")
    blocked = grid.in_bounds(*entry.at) and grid.blocks(*entry.at)
    placed = _placement_problem(entry, grid, blocked, content)
    if isinstance(placed, tuple):
        raise fail(*placed)
    problem = check_template(content, entry)
    if problem:
        raise fail(*problem)
    values = resolve(content, entry, placed)
    problem = _values_problem(entry, values)
    if problem:
        raise fail(*problem)
    if entry.fighting is not None:
        foe = world.by_id.get(entry.fighting)
        if foe is None:
            raise fail("fighting", f"unknown creature {entry.fighting!r}")
        there = world.sheets[foe].position
        if chebyshev(entry.at, (there.x, there.y)) != 1:  # R-MELEE-2
            raise fail("fighting", f"{entry.fighting!r} at {[there.x, there.y]} is not "
                       f"beside {entry.id!r} at {list(entry.at)}: melee needs adjacent cells")
        if not world.sheets[foe].vitals.alive:
            raise fail("fighting", f"{entry.fighting!r} is dead")
    return entry, values


def item_problem(content: Content, grid: Grid, item: str, at: tuple[int, int], count: int
                 ) -> tuple[str, str] | None:
    """An item stack laid on a cell checked as a scenario's `[[items]]` entry: (field,
    message) for the first problem, else None: an item content defines, a cell on the
    map and not a wall, a count of 1..max_stack (a container is one chest)."""
    if item not in content.items:
        return "item", f"unknown item {item!r}"
    if not grid.in_bounds(*at):
        return "at", f"{list(at)} is off the map"
    if grid.terrain[at[1], at[0]] == Terrain.WALL:
        return "at", f"{list(at)} is a wall"
    stack = content.world.limits.max_stack
    if count != 1 and content.item_class_is(content.items[item].class_, "container"):
        return "count", (f"a container is one chest (its `contents` are what it holds), got "
                         f"{count}")
    if not 1 <= count <= stack:
        return "count", (f"must be 1..{stack} (the bound in content world.limits.max_stack), "
                         f"got {count}")
    return None


def _add_items(world: World, spec: ScenarioFile, source: str) -> None:
    """The scenario's items, checked, in file order (chests with their contents)."""
    content, grid = world.content, world.grid
    for index, item in enumerate(spec.items):
        where = f"{source}: item {item.item!r} (items[{index}])"
        found = item_problem(content, grid, item.item, item.at, item.count)
        if found:
            raise ScenarioError(f"{where}, field '{found[0]}': {found[1]}")
        stack = content.world.limits.max_stack
        problem = _count_problem("items", len(item.contents), content.world.limits)
        if problem:
            raise ScenarioError(f"{where}, field 'contents': {problem}")
        for inner in item.contents:
            if inner.item not in content.items:
                raise ScenarioError(f"{where}, field 'contents': unknown item {inner.item!r}")
            if not 1 <= inner.count <= stack:
                raise ScenarioError(f"{where}, field 'contents': count of {inner.item!r} must "
                                    f"be 1..{stack}, got {inner.count}")
        entity = world.add_item(item.item, item.at, item.count)
        if item.contents:
            from affray.components import Chest, ItemStack

            chest = world.component_of(entity, Chest)
            if chest is None:
                raise ScenarioError(f"{where}, field 'contents': only a container has contents")
            chest.contents = [ItemStack(i.item, i.count) for i in item.contents]


def _start_fights(world: World, spec: ScenarioFile) -> None:
    """The fights the scenario starts with, in file order: `World.start_fight`'s checks
    and fights, without its `touch` of the two (a game's call tells the caches and
    resting minds of a change; a World being built has read nothing yet)."""
    from affray.core.validate import check_fight
    from affray.systems.rules.engagement import start_fight

    for entry in spec.creatures:
        if entry.fighting is not None:
            attacker, victim = world.sheet(entry.id), world.sheet(entry.fighting)
            check_fight(attacker, victim)
            start_fight(world, attacker, victim, "scripted")


@keeps_esper_world
def load_scenario(path: str | Path, seed: int | None = None,
                  content: Content | None = None) -> World:
    """Load, validate and build a scenario; `seed` overrides the file's seed. `content`
    (a game's own content pack, `affray.load_content`) is what it is built on instead of
    the default content; the scenario's inline `[content.<kind>.<name>]` tables still
    layer on top of it."""
    seed = check_seed(seed)
    if not isinstance(path, str | Path):
        raise UsageError(f"load_scenario: path must be a str or Path, got "
                         f"{type(path).__name__}")
    if content is not None and not isinstance(content, Content):
        raise UsageError(f"load_scenario: content must be a Content (affray.load_content), "
                         f"got {type(content).__name__}")
    path = Path(path)
    base = default_content() if content is None else content
    spec, raw = parse_scenario(read_source(path, ScenarioError), str(path),
                               base.world.limits)
    return build_world(spec, raw, str(path), seed=seed, content=content)


@keeps_esper_world
def check_path(path: str | Path) -> str:
    """What `affray check` does with one file, reading and parsing it once: "scenario"
    (built with the file's seed and closed, as `load_scenario`) or "content" (layered
    over the defaults, as `content_loader.check_file`), told apart by `file_kind` as
    `affray run` tells them. Raises the same errors, with the same messages, as telling
    the kind from one parse and then loading the file (a second parse: a third of the
    time of checking 100,000 creatures); a file with too many creatures or items is
    refused from its text, before any parse."""
    source = str(path)
    text = read_source(path)
    limits = default_content().world.limits
    _precount(text, source, limits)  # a content file has no [[creatures]] or [[items]]
    with collector_paused():
        raw = parse_toml(text, source)
        kind = file_kind(raw, source)
        if kind == "content":
            check_tables(raw, source)
            return kind
        _check_counts(raw, source, limits)
        spec = _typed(raw, source)
    build_world(spec, raw, source).close()
    return kind


def check_seed(seed: object) -> int | None:
    """A seed argument: None (the file's) or a whole number 0..MAX_SEED; UsageError."""
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise UsageError(f"seed must be a whole number 0..{MAX_SEED}, got {seed!r}")
    if not 0 <= int(seed) <= MAX_SEED:
        raise UsageError(f"seed must be 0..{MAX_SEED} (2**63 - 1), got {seed}")
    return int(seed)


def builtin_scenario(name: str) -> Path:
    """Path of a scenario shipped in affray.content.scenarios."""
    from importlib import resources

    path = Path(str(resources.files("affray.content") / "scenarios" / f"{name}.toml"))
    if not path.is_file():
        raise ScenarioError(f"no built-in scenario named {name!r}")
    return path


@keeps_esper_world
def new_world(rows: Any, legend: dict[str, str] | None = None,
              content: Content | None = None, seed: int = 0, name: str = "") -> World:
    """`World.new`: a World of map rows in the scenario legend (`legend` adds or
    overrides symbols, as `[map.legend]`), built on `content` (default: the default
    content), with no creatures and no end (`end_pulse` None). The map is checked as a
    scenario's `[map]` is; a problem is a UsageError naming the row and the symbol."""
    if isinstance(rows, str):  # a block of text: one row a line, blank edges dropped
        rows = rows.strip("\n").splitlines()
    checked_seed = check_seed(seed) or 0
    if content is not None and not isinstance(content, Content):
        raise UsageError(f"World.new: content must be a Content (affray.load_content, "
                         f"affray.default_content), got {type(content).__name__}")
    if not isinstance(name, str):
        raise UsageError(f"World.new: name must be a str, got {name!r}")
    raw = {"map": {"rows": rows, "legend": {} if legend is None else legend},
           "name": name, "seed": checked_seed, "pulses": 0}
    try:
        spec = _typed(raw, "World.new")
        world = build_world(spec, raw, "World.new", content=content)
    except ScenarioError as error:
        raise UsageError(str(error)) from None
    world.end_pulse = None
    return world
