"""Load content: TOML files validated into frozen definitions, layered, cross-checked.

The default content (the TOML files of `affray.content`) is parsed once per process and
shared by every world (`default_content()`); a scenario's inline `[content.<kind>.<name>]`
tables are layered over it (`Content.layered`). Every error names the file, the entry and
the field (R-ENG-1).
"""

from __future__ import annotations

import functools
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Any

import msgspec

from affray.core.dice import parse_dice
from affray.core.errors import AffrayError, ContentError
from affray.data.defs import (
    ARMOR_COLUMNS,
    DEFENCE_NAMES,
    HARD_LIMITS,
    INT32_MAX,
    POSITIONS,
    SHAPES,
    CreatureTemplate,
    DamageDef,
    FightConfig,
    FloorLossDef,
    GearDef,
    ItemClassDef,
    ItemDef,
    LevelsConfig,
    MaterialDef,
    MindDef,
    ProfessionDef,
    SavesConfig,
    SpellDef,
    StatTables,
    StatusDef,
    WorldConfig,
    decode_error_field,
)

# Kinds whose tables hold named entries, and the definition type of each entry.
NAMED_KINDS: dict[str, type] = {
    "materials": MaterialDef,
    "item_classes": ItemClassDef,
    "items": ItemDef,
    "professions": ProfessionDef,
    "spells": SpellDef,
    "statuses": StatusDef,
    "creatures": CreatureTemplate,
    "floor_loss": FloorLossDef,
    "minds": MindDef,
}
# Kinds that are one table each (configs), deep-merged when layered.
SINGLE_KINDS: dict[str, type] = {
    "damage": DamageDef,
    "gear": GearDef,
    "stats": StatTables,
    "fight": FightConfig,
    "saves": SavesConfig,
    "world": WorldConfig,
    "levels": LevelsConfig,
}
# Singletons that may be missing from content: the rule's defaults apply (R-SAVE-1).
OPTIONAL_SINGLES = {"saves": SavesConfig(), "world": WorldConfig()}


@dataclass(frozen=True, slots=True)
class Content:
    """Validated content: named definitions by kind, and the config singletons."""

    damage: DamageDef
    gear: GearDef
    stats: StatTables
    fight: FightConfig
    saves: SavesConfig
    world: WorldConfig
    levels: LevelsConfig
    materials: Mapping[str, MaterialDef]
    item_classes: Mapping[str, ItemClassDef]
    items: Mapping[str, ItemDef]
    professions: Mapping[str, ProfessionDef]
    spells: Mapping[str, SpellDef]
    statuses: Mapping[str, StatusDef]
    creatures: Mapping[str, CreatureTemplate]
    floor_loss: Mapping[str, FloorLossDef]
    minds: Mapping[str, MindDef]
    # Where each entry came from, for error messages: (kind, name) -> file.
    origin: Mapping[tuple[str, str], str] = field(default_factory=dict)
    # Derived lookups, filled by __post_init__.
    bits: Mapping[str, int] = field(default_factory=dict)
    # Memo of values derived from content by the rule modules (e.g. a hit's immunity
    # bits per damage type and flags); content never changes, so it never goes stale.
    cache: dict[Any, Any] = field(default_factory=dict, compare=False)
    # The raw tables layered over the default content to make this one, every layer
    # merged into one ({kind: {name: table}} or {kind: table}): what a save writes, so
    # a load layers the same over the defaults (`World.content_overlay`).
    overlay: Mapping[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        bits = {name: 1 << i for i, name in enumerate(self.damage.imm_bits)}
        object.__setattr__(self, "bits", bits)

    # -- damage types and bits (R-IMM-1, R-IMM-2) -------------------------------------
    def damage_type(self, name: str) -> str | None:
        """The canonical damage type of a name or alias, or None if unknown."""
        if name in self.damage.aliases:
            return self.damage.aliases[name]
        return name if name in self.damage.types else None

    def bit_of(self, name: str) -> int | None:
        """The immunity bit of a bit name, damage type or alias; None if it has none."""
        canonical = self.damage.aliases.get(name, name)
        return self.bits.get(canonical)

    def bits_of(self, names: list[str] | tuple[str, ...]) -> int:
        """OR of the bits of names already validated to have one."""
        mask = 0
        for name in names:
            bit = self.bit_of(name)
            if bit is not None:
                mask |= bit
        return mask

    def item_class_is(self, item_class: str, wanted: str) -> bool:
        """True when a class is `wanted` or declares it with `is_a` (a corpse is food)."""
        seen = set()
        current: str | None = item_class
        while current is not None and current not in seen:
            if current == wanted:
                return True
            seen.add(current)
            definition = self.item_classes.get(current)
            current = definition.is_a if definition else None
        return False

    # -- layering -----------------------------------------------------------------------
    def layered(self, overlay: Mapping[str, Any], source: str,
                prefix: str = "content.") -> Content:
        """A new Content with `overlay` ({kind: {name: table}} or {kind: table}) on top.

        `prefix` is how errors name an entry: "content." for a scenario's inline tables.
        """
        if not overlay:
            return self
        raw = _raw_default()
        merged_named: dict[str, dict[str, Any]] = {}
        origin = dict(self.origin)
        changes: dict[str, Any] = {}
        layers = dict(self.overlay)
        for kind, table in overlay.items():
            if not isinstance(table, dict):
                raise ContentError(f"{source}: {prefix}{kind}: expected a table")
            if kind in NAMED_KINDS:
                entries = dict(getattr(self, kind))
                for name, entry in table.items():
                    entries[name] = _convert(NAMED_KINDS[kind], entry, source,
                                             f"{prefix}{kind}.{name}")
                    origin[(kind, name)] = f"{source}: {prefix}{kind}.{name}"
                merged_named[kind] = entries
                layers[kind] = {**layers.get(kind, {}), **table}  # an entry replaces
            elif kind in SINGLE_KINDS:
                # over this content's own table (the layers below), not the default's
                below = _deep_merge(raw.get(kind, {}), self.overlay.get(kind, {}))
                merged = _deep_merge(below, table)
                changes[kind] = _convert(SINGLE_KINDS[kind], merged, source, f"{prefix}{kind}")
                origin[(kind, "")] = f"{source}: {prefix}{kind}"
                layers[kind] = _deep_merge(layers.get(kind, {}), table)
            else:
                raise ContentError(f"{source}: {prefix}{kind}: unknown content kind "
                                   f"(known: {', '.join(sorted(NAMED_KINDS | SINGLE_KINDS))})")
        result = replace(self, origin=origin, cache={}, overlay=layers, **changes,
                         **merged_named)
        check_references(result)
        return result


def _deep_merge(base: Mapping[str, Any], top: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in top.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _deep_merge(out[key], value)
        else:
            out[key] = value
    return out


def _convert(kind_type: type, data: Any, source: str, entry: str) -> Any:
    """Validate one entry; an error names the file, the entry and the field."""
    try:
        return msgspec.convert(data, type=kind_type)
    except msgspec.ValidationError as error:
        where, detail = decode_error_field(error)
        field_part = f", field '{where}'" if where else ""
        raise ContentError(f"{source}: {entry}{field_part}: {detail}") from None


def _content_files() -> list[tuple[str, Any]]:
    root = resources.files("affray.content")
    return sorted(((entry.name, entry) for entry in root.iterdir()
                   if entry.name.endswith(".toml")), key=lambda pair: pair[0])


def _raw_default() -> dict[str, Any]:
    """The default content's raw tables, parsed once per process."""
    return _parse_defaults()[0]


@functools.cache
def _parse_defaults() -> tuple[dict[str, Any], dict[str, str]]:
    """Parse every default content file once: (raw tables by kind, file of each kind)."""
    raw: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for name, entry in _content_files():
        tables = _parse_kinds(entry.read_text(encoding="utf-8"), f"content/{name}", raw)
        raw.update(tables)
        sources.update(dict.fromkeys(tables, f"content/{name}"))
    return raw, sources


def _parse_kinds(text: str, source: str, seen: Mapping[str, Any]) -> dict[str, Any]:
    return check_kinds(parse_toml(text, source), source, seen)


def check_kinds(data: dict[str, Any], source: str, seen: Mapping[str, Any]) -> dict[str, Any]:
    """A content file's parsed tables, each a known kind not already in `seen`."""
    for kind in data:
        if kind not in NAMED_KINDS and kind not in SINGLE_KINDS:
            raise ContentError(f"{source}: [{kind}]: unknown content kind")
        if kind in seen:
            raise ContentError(f"{source}: [{kind}]: defined in two files")
    return data


def build_content(raw: Mapping[str, Any], sources: Mapping[str, str]) -> Content:
    """Validate raw kind tables into a Content; `sources` maps each kind to its file."""
    values: dict[str, Any] = {}
    origin: dict[tuple[str, str], str] = {}
    for kind, kind_type in NAMED_KINDS.items():
        entries = {}
        for name, entry in raw.get(kind, {}).items():
            source = sources.get(kind, "content")
            entries[name] = _convert(kind_type, entry, source, f"{kind}.{name}")
            origin[(kind, name)] = f"{source}: {kind}.{name}"
        values[kind] = entries
    for kind, kind_type in SINGLE_KINDS.items():
        if kind not in raw:
            if kind in OPTIONAL_SINGLES:
                values[kind] = OPTIONAL_SINGLES[kind]
                continue
            raise ContentError(f"content: [{kind}] is missing")
        values[kind] = _convert(kind_type, raw[kind], sources.get(kind, "content"), kind)
    content = Content(origin=origin, **values)
    check_references(content)
    return content


@functools.cache
def default_content() -> Content:
    """The default content, parsed and validated once per process."""
    raw, sources = _parse_defaults()
    return build_content(raw, sources)


def read_source(path: str | Path, error: type[AffrayError] = ContentError) -> str:
    """A scenario or content file's text; `error` names the file and, for text that is
    not UTF-8, the byte and its offset. A UTF-8 byte-order mark is allowed and dropped."""
    path = Path(path)
    try:
        blob = path.read_bytes()
    except OSError as problem:
        raise error(f"{path}: cannot read: {problem.strerror or problem}") from None
    try:
        return blob.decode("utf-8-sig")
    except UnicodeDecodeError as problem:
        line = blob.count(b"\n", 0, problem.start) + 1
        raise error(f"{path}: not UTF-8 text: byte 0x{blob[problem.start]:02x} at offset "
                    f"{problem.start} (line {line}) is {problem.reason}; save the file as "
                    f"UTF-8") from None


def parse_toml(text: str, source: str, error: type[AffrayError] = ContentError
               ) -> dict[str, Any]:
    """TOML text as tables; `error` names the file, line and column of a syntax error."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as problem:
        if text.startswith('{"format":"affray-save"'):
            raise error(f"{source}: an affray save, not a TOML file: load it with "
                        f"affray.load_world (or `affray render`)") from None
        raise error(f"{source}: not valid TOML: {problem}") from None
    except RecursionError:  # tomllib recurses once per level of nested arrays or tables
        raise error(f"{source}: not valid TOML: arrays or inline tables nested too deeply "
                    f"to read") from None


def load_content_file(path: str | Path) -> dict[str, Any]:
    """Parse one content TOML file (for `affray check`); raises ContentError."""
    return _parse_kinds(read_source(path), str(path), {})


def dice_problem(text: str | int, limits: Any) -> str | None:
    """Why a damage dice expression is refused, or None: not dice, a roll that can be
    negative, zero-sided dice, or past the content's bounds (`world.limits`)."""
    try:
        count, sides, bonus = parse_dice(text)
    except ValueError as problem:
        return str(problem)
    bound = "(the bound in content world.limits.{})"
    if count > limits.max_dice_count:
        return (f"{text!r} rolls {count} dice, more than {limits.max_dice_count} "
                + bound.format("max_dice_count"))
    if sides > limits.max_dice_sides:
        return (f"{text!r} has {sides}-sided dice, more than {limits.max_dice_sides} "
                + bound.format("max_dice_sides"))
    if abs(bonus) > limits.max_dice_bonus:
        return (f"{text!r} adds {bonus}, beyond +-{limits.max_dice_bonus} "
                + bound.format("max_dice_bonus"))
    if count > 0 and sides == 0:
        return f"{text!r} has 0-sided dice (NdM needs M of 1 or more)"
    if count + bonus < 0:
        return f"{text!r} can roll {count + bonus}: damage dice must not roll below 0"
    return None


def load_content(*paths: str | Path, base: Content | None = None) -> Content:
    """A game's own content pack: content files (TOML tables of content kinds, as the
    files of `content/`: `[spells.ice_lance]`, `[creatures.troll]`, `[world.casting]`...)
    layered in order over `base` (default: the default content), each over the ones
    before it: a named entry replaces the one of that name, a single table (`world`,
    `fight`...) is merged key by key. A folder stands for its `.toml` files in name
    order. Each file is validated as `affray check` validates it, and may use what the
    files before it define; an error is a ContentError naming the file, the entry and
    the field (R-ENG-1). Hand the result to `load_scenario(path, content=...)` or
    `World.new(rows, content=...)`; a scenario's inline content still layers on top,
    and a save of the world keeps it all."""
    from affray.core.errors import UsageError
    from affray.data.files import input_file

    content = default_content() if base is None else base
    if not isinstance(content, Content):
        raise UsageError(f"load_content: base must be a Content, got {type(base).__name__}")
    for path in _content_paths(paths):
        input_file(path, ContentError)  # a regular file within the size limit
        source = str(path)
        raw = parse_toml(read_source(path), source)
        if "map" in raw:
            raise ContentError(f"{source}: a scenario ([map]), not a content file: load it "
                               f"with affray.load_scenario(path, content=...)")
        content = content.layered(check_kinds(raw, source, {}), source, prefix="")
    return content


def _content_paths(paths: tuple[str | Path, ...]) -> list[Path]:
    """The files `load_content` reads, in order: each path, a folder's `.toml` files by
    name. UsageError for an argument that is no path."""
    from affray.core.errors import UsageError

    files: list[Path] = []
    for path in paths:
        if not isinstance(path, str | Path):
            raise UsageError(f"load_content: a path must be a str or Path, got {path!r}")
        path = Path(path)
        if path.is_dir():
            found = sorted(path.glob("*.toml"))
            if not found:
                raise ContentError(f"{path}: a folder with no .toml file in it")
            files.extend(found)
        else:
            files.append(path)
    return files


def check_file(path: str | Path) -> Content:
    """Validate a content file layered over the defaults (for `affray check`)."""
    return check_tables(load_content_file(path), str(path))


def check_tables(raw: dict[str, Any], source: str) -> Content:
    """Validate a content file's parsed tables layered over the defaults."""
    return default_content().layered(check_kinds(raw, source, {}), source, prefix="")


# -- cross references -------------------------------------------------------------------
def check_references(content: Content) -> None:
    """Check every name one definition uses is defined (R-ENG-1)."""

    def where(kind: str, name: str) -> str:
        return content.origin.get((kind, name), f"content: {kind}.{name}")

    def need(ok: bool, kind: str, name: str, field_name: str, message: str) -> None:
        if not ok:
            raise ContentError(f"{where(kind, name)}, field '{field_name}': {message}")

    def bounded(kind: str, name: str, field_name: str, value: int, low: int, high: int,
                knob: str, why: str = "") -> None:
        need(low <= value <= high, kind, name, field_name,
             f"{_shown(value)} is outside {low}..{high} (the bound in content "
             f"world.limits.{knob}{why})")

    dmg = content.damage
    limits = content.world.limits
    _check_configs(content, need, bounded)
    for alias, target in dmg.aliases.items():
        need(target in dmg.types, "damage", "", "aliases", f"alias {alias!r} names "
             f"unknown type {target!r}")
    for name, material in content.materials.items():
        need(0 <= material.acid_resist <= 100, "materials", name, "acid_resist",
             f"a percent chance 0..100, got {material.acid_resist}")
        # -1: indestructible, as the source's material table has it.
        bounded("materials", name, "hardness", material.hardness, -1, limits.max_hardness,
                "max_hardness")
        for bit in material.vuln:
            need(bit in content.bits, "materials", name, "vuln", f"unknown immunity bit {bit!r}")
    for name, profession in content.professions.items():  # R-HIT-1, R-HIT-2
        for knob in ("thac00", "thac32"):
            bounded("professions", name, knob, getattr(profession, knob), -limits.max_roll,
                    limits.max_roll, "max_roll")
    for name, item in content.items.items():
        need(item.class_ in content.item_classes, "items", name, "class",
             f"unknown item class {item.class_!r}")
        need(item.material in content.materials, "items", name, "material",
             f"unknown material {item.material!r}")
        need(content.damage_type(item.damage_type) is not None, "items", name, "damage_type",
             f"unknown damage type {item.damage_type!r}")
        # R-IMM-5: a blow always carries a type; "none" would skip every immunity.
        need(not (content.item_class_is(item.class_, "weapon")
                  and content.damage_type(item.damage_type) == "none"), "items", name,
             "damage_type", f"weapon {name!r} has damage type 'none': a blow always has a "
             f"type (R-IMM-5); use bash, pierce, slash or another")
        if item.damage is not None:
            problem = dice_problem(item.damage, limits)
            need(problem is None, "items", name, "damage", str(problem))
        for column, points in item.armor.items():
            need(column in ARMOR_COLUMNS, "items", name, "armor",
                 f"unknown armor column {column!r} (known: {', '.join(ARMOR_COLUMNS)})")
            need(abs(points) <= limits.max_armor, "items", name, "armor",
                 f"{column} = {points} is beyond +-{limits.max_armor} (the bound in content "
                 f"world.limits.max_armor)")
        for bit in (*item.grants_imm, *item.grants_res):
            need(content.bit_of(bit) is not None, "items", name, "grants_imm",
                 f"unknown immunity bit {bit!r}")
        if item.slot is not None:
            need(item.slot in content.gear.wear_order, "items", name, "slot",
                 f"unknown slot {item.slot!r}")
        bounded("items", name, "hardness", item.hardness, 0, limits.max_hardness,
                "max_hardness")
    for name, spell in content.spells.items():
        need(content.damage_type(spell.type) is not None, "spells", name, "type",
             f"unknown damage type {spell.type!r}")
        need(spell.shape in SHAPES, "spells", name, "shape", f"unknown shape {spell.shape!r}")
        need(spell.range >= 0, "spells", name, "range", "must be 0 or more")
        need(spell.radius >= 0, "spells", name, "radius", "must be 0 or more")
        need(0.0 <= spell.critical <= 1.0, "spells", name, "critical", "must be in 0..1")
        # R-LAG-1: lag in pulses, into the 32-bit wait and daze arrays.
        for knob in ("beats", "wait", "daze"):
            bounded("spells", name, knob, getattr(spell, knob), 0, limits.max_pulses,
                    "max_pulses", ", at most 2**31 - 1: lag fits 32 bits")
        for knob in ("range", "radius"):
            value = getattr(spell, knob)
            need(value <= limits.max_range, "spells", name, knob, f"{value} is more than "
                 f"{limits.max_range} (the bound in content world.limits.max_range)")
        bounded("spells", name, "blast", spell.blast, 0, limits.max_hardness, "max_hardness")
        need(spell.position in POSITIONS, "spells", name, "position",
             f"unknown position {spell.position!r}")
        problem = dice_problem(spell.damage, limits)
        need(problem is None, "spells", name, "damage", str(problem))
    for name, status in content.statuses.items():
        need(status.duration >= 1, "statuses", name, "duration", "must be 1 or more")
        need(status.period >= 0, "statuses", name, "period", "must be 0 or more")
        for knob, low in (("duration", 1), ("period", 0), ("wait_per_degree", 0)):
            bounded("statuses", name, knob, getattr(status, knob), low, limits.max_pulses,
                    "max_pulses")
        # R-STAT-1..4: a status harms (a negative tick would heal through the pipeline).
        for knob in ("damage_per_degree", "hp_per_degree"):
            bounded("statuses", name, knob, getattr(status, knob), 0, limits.max_dice_bonus,
                    "max_dice_bonus", "; a status harms, it never heals")
        if status.damage_type is not None:
            need(content.damage_type(status.damage_type) is not None, "statuses", name,
                 "damage_type", f"unknown damage type {status.damage_type!r}")
    for name, table in content.floor_loss.items():
        need(content.damage_type(name) is not None, "floor_loss", name, "",
             f"unknown damage type {name!r}")
        for row in table.rows:
            need((row.item_class is None) != (row.family is None), "floor_loss", name, "rows",
                 "each row names exactly one of item_class or family")
            if row.item_class is not None:
                need(row.item_class in content.item_classes, "floor_loss", name, "rows",
                     f"unknown item class {row.item_class!r}")
            need(0 <= row.chance <= 100, "floor_loss", name, "rows", "chance must be 0..100")
    order = content.fight.defence.order
    for name in order:
        need(name in DEFENCE_NAMES, "fight", "", "defence.order",
             f"unknown defence {name!r} (known: {', '.join(DEFENCE_NAMES)})")
        need(order.count(name) == 1, "fight", "", "defence.order",
             f"defence {name!r} is listed twice")
    for column in (*dmg.armor_column.values(),):
        need(column in ARMOR_COLUMNS, "damage", "", "armor_column",
             f"unknown armor column {column!r}")
    _check_levels(content, need)
    for name, mind in content.minds.items():
        for spell in mind.spells:
            need(spell in content.spells, "minds", name, "spells", f"unknown spell {spell!r}")
    from affray.data.creatures import check_template  # local: creatures imports this module

    for name, template in content.creatures.items():
        problem = check_template(content, template)
        if problem:
            field_name, message = problem
            need(False, "creatures", name, field_name, message)


def _shown(value: int) -> str:
    """A number for a message: whole, or its first digits and length when it is long
    (a typo of 400 nines should not fill the terminal)."""
    text = str(value)
    digits = len(text.lstrip("-"))
    return text if digits <= 24 else f"{text[:12]}... ({digits} digits)"


# The largest numerator or denominator of the critical multiplier (R-HIT-5): a blow's
# damage times it stays far inside the vectorised round's 64-bit columns.
MAX_MULTIPLIER_TERM = 1_000


def _check_configs(content: Content, need: Any, bounded: Any) -> None:
    """The config singletons' numbers that every rule divides by, counts with or bounds
    by: a clock that ticks, rounds that come, waits that are not negative and fit the
    lag arrays, ice that fits the ice array, chances that are percents, limits that are
    limits (and fit what they bound)."""
    world, fight = content.world, content.fight
    _check_limits(content, need)
    limits = world.limits
    need(world.pulses_per_second >= 1, "world", "", "pulses_per_second", "must be 1 or more")
    for knob in ("move_wait", "fall_in_wait", "fire_burst_pulses", "ice_cm"):
        need(getattr(world, knob) >= 0, "world", "", knob, "must be 0 or more")
    for knob in ("move_wait", "fall_in_wait", "fire_burst_pulses"):
        bounded("world", "", knob, getattr(world, knob), 0, limits.max_pulses, "max_pulses",
                ", at most 2**31 - 1: lag fits 32 bits")
    bounded("world", "", "ice_cm", world.ice_cm, 0, limits.max_ice_cm, "max_ice_cm",
            ", at most 32767: the grid's ice array is 16-bit")
    for knob in ("burning_chance", "arc_chance"):  # R-FIRE-1, R-ELEC-1
        value = getattr(world, knob)
        need(0 <= value <= 100, "world", "", knob, f"a percent chance 0..100, got {value}")
    need(world.bulk_strike_min >= 1, "world", "", "bulk_strike_min",
         f"must be 1 or more, got {world.bulk_strike_min}")
    need(fight.round_pulses >= 1, "fight", "", "round_pulses", "must be 1 or more")
    bounded("fight", "", "round_pulses", fight.round_pulses, 1, limits.max_pulses,
            "max_pulses")
    numerator, denominator = fight.critical_multiplier
    need(numerator >= 0 and denominator >= 1, "fight", "", "critical_multiplier",
         f"[{numerator}, {denominator}] must be a fraction [n, d] with n >= 0 and d >= 1")
    need(max(numerator, denominator) <= MAX_MULTIPLIER_TERM, "fight", "",
         "critical_multiplier", f"[{numerator}, {denominator}]: n and d must be at most "
         f"{MAX_MULTIPLIER_TERM}")
    need(fight.stun.tick_pulses >= 1, "fight", "", "stun.tick_pulses", "must be 1 or more")
    for knob, value in (("stun.tick_pulses", fight.stun.tick_pulses),
                        ("movement.tick_pulses", fight.movement.tick_pulses)):
        bounded("fight", "", knob, value, 1, limits.max_pulses, "max_pulses")
    for knob in ("player_min", "max_move"):  # movement points: 32-bit, as a creature's
        value = getattr(fight.movement, knob)
        need(value <= INT32_MAX, "fight", "", f"movement.{knob}",
             f"{_shown(value)} is more than 2147483647: movement points are 32-bit")
    chain = world.chain_lightning
    need(chain.per >= 1, "world", "", "chain_lightning.per", "must be 1 or more")
    need(0 <= chain.low <= chain.high, "world", "", "chain_lightning",
         f"low ({chain.low}) and high ({chain.high}) must be 0 <= low <= high (R-ELEC-5)")
    # The stat tables have a row per stat value 0..28; a stat above 28 (up to
    # world.limits.max_stat) reads row 28, as the source's tables are read.
    for stat in msgspec.structs.fields(content.stats):
        table = getattr(content.stats, stat.name)
        for column in msgspec.structs.fields(table):
            values = getattr(table, column.name)
            need(len(values) == 29, "stats", "", f"{stat.encode_name}.{column.name}",
                 f"has {len(values)} entries; a stat table needs 29 (values 0..28)")


def _check_levels(content: Content, need: Any) -> None:
    """What a level implies (content `levels`, affray.data.levels): curves a creature's
    numbers can be scaled by, at least one tier, class multipliers of known professions."""
    from affray.data.levels import curve_problems

    levels = content.levels
    for field_name, message in curve_problems(levels, content.world.limits.max_level):
        need(False, "levels", "", field_name, message)
    need(bool(levels.tiers), "levels", "", "tiers", "at least one tier (normal, elite, ...)")
    for stat in ("hp", "dmg"):
        for profession in getattr(levels.class_mult, stat):
            need(profession in content.professions, "levels", "", f"class_mult.{stat}",
                 f"unknown profession {profession!r}")


def _check_limits(content: Content, need: Any) -> None:
    """Each limit is 1 or more, and no more than what holds the numbers it bounds
    (`HARD_LIMITS`, else 2**31 - 1: a max_pulses past it would let lag overflow its
    array, a max_stack past it a stack's count overflow the floor-loss draw)."""
    limits = content.world.limits
    for limit in msgspec.structs.fields(limits):
        value = getattr(limits, limit.name)
        need(value >= 1, "world", "", f"limits.{limit.name}", f"must be 1 or more, got {value}")
        cap, why = HARD_LIMITS.get(limit.name, (INT32_MAX, "the engine's columns of "
                                                "creature and item numbers are 32-bit"))
        need(value <= cap, "world", "", f"limits.{limit.name}",
             f"{_shown(value)} is more than {cap}: {why}")
