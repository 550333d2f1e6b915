"""Turn a creature entry (scenario or template) into validated component values.

A scenario creature's fields win over its template's, which win over the engine's
defaults. Every name it uses (profession, items, immunity bits, statuses, affects,
defences) is checked against content here, so a bad entry fails at load (R-ENG-1).
`Copier` hands each World built from a prepared scenario (`affray.data.scenario.Blueprint`)
its own deep copy of the values resolved once.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any

import msgspec
from msgspec import UNSET

from affray.components import (
    Affects,
    Combat,
    Defense,
    Equipment,
    Immunities,
    Level,
    Mind,
    Offense,
    Skills,
    Stats,
    Statuses,
    Vitals,
    WornItem,
)
from affray.core.dice import parse_dice
from affray.data import levels as levels_module
from affray.data.content_loader import dice_problem
from affray.data.defs import DEFENCE_NAMES, POSITIONS, CreatureFields, CreatureTemplate

_STAT_FIELDS = (("str_", "strength"), ("int_", "intelligence"), ("wis", "wisdom"),
                ("dex", "dexterity"), ("con", "constitution"), ("cha", "charisma"),
                ("willpower", "willpower"))


def pick(name: str, *layers: CreatureFields | None, default: Any = None) -> Any:
    """The first set value of a field among the layers (entry first), else default."""
    for layer in layers:
        if layer is None:
            continue
        value = getattr(layer, name)
        if value is not UNSET:
            return value
    return default


def set_fields(fields: CreatureFields | None) -> dict[str, Any]:
    """The fields an entry sets (not UNSET), as a dict: one pass instead of a look-up
    through the layers per field."""
    if fields is None:
        return {}
    return {name: value for name, value in msgspec.structs.asdict(fields).items()
            if value is not UNSET}


def check_template(content: Any, fields: CreatureFields) -> tuple[str, str] | None:
    """Return (field, message) for the first name content does not define, else None."""
    if pick("player", fields) and pick("npc", fields):
        return "npc", "a creature is a player or an NPC, not both (player = true, npc = true)"
    profession = pick("profession", fields)
    if profession is not None and profession not in content.professions:
        return "profession", f"unknown profession {profession!r}"
    position = pick("position", fields)
    if position is not None and position not in POSITIONS:
        return "position", f"unknown position {position!r} (known: {', '.join(POSITIONS)})"
    if position == "dead":  # every creature starts alive, hp 1 or more
        return "position", ("a creature starts alive (hp 1 or more), so not 'dead'; a "
                            "living creature may start mortal, incap, stunned or above")
    for kind in ("imm", "res", "vuln"):
        for name in pick(kind, fields) or ():
            if content.bit_of(name) is None:
                return kind, f"unknown damage type or immunity bit {name!r}"
    for name in pick("affects", fields) or ():
        if name not in content.world.affects:
            return "affects", f"unknown affect {name!r}"
    for name, degree in (pick("statuses", fields) or {}).items():
        if name not in content.statuses:
            return "statuses", f"unknown status {name!r}"
        if degree < 0:
            return "statuses", f"degree of {name!r} must be 0 or more"
        bound = content.world.limits.max_status_degree
        if degree > bound:
            return "statuses", (f"degree of {name!r} is {degree}, more than {bound} (the "
                                f"bound in content world.limits.max_status_degree)")
    for name in pick("defences", fields) or ():
        if name not in DEFENCE_NAMES:  # known, even if a game dropped it from the chain
            return "defences", f"unknown defence {name!r}"
    problem = check_spell_level_fields(fields) or check_mind_fields(content, fields)
    if problem:
        return problem
    return (_check_gear(content, fields) or _check_ranges(content, fields)
            or _check_numbers(content, fields) or check_level_fields(content, fields))


def _template_of(content: Any, fields: CreatureFields) -> CreatureFields | None:
    """The template a scenario entry names (None for a template or an unknown name,
    which the scenario reports itself)."""
    name = getattr(fields, "template", None)
    return content.creatures.get(name) if isinstance(name, str) else None


def check_level_fields(content: Any, fields: CreatureFields) -> tuple[str, str] | None:
    """A template's tier and style are content's (`levels`), and an NPC's; the numbers
    a level implies (affray.data.levels) fit the content's bounds like stated ones: a level
    past what a curve can give is refused, naming the level and the number."""
    tier, style = getattr(fields, "tier", UNSET), getattr(fields, "style", UNSET)
    levels = content.levels
    for name, value, known in (("tier", tier, levels.tiers), ("style", style, levels.styles)):
        if value is UNSET:
            continue
        if value not in known:
            return name, (f"unknown {name} {value!r} (known: {', '.join(known)}; content "
                          f"levels.{name}s)")
        if pick("player", fields):
            return name, (f"a {name} is an NPC's: a player character's numbers follow its "
                          f"level by content levels.pc")
    if style is not UNSET and tier is UNSET:
        return "style", "a style shapes a tier's numbers: give the template a tier too"
    template = _template_of(content, fields)
    if template is None and not isinstance(fields, CreatureTemplate):
        return None  # a creature of no template: its numbers are its own, checked above
    source = fields if template is None else template
    if template is not None and getattr(template, "tier", UNSET) is not UNSET \
            and pick("player", fields):
        name = getattr(fields, "template", "")
        return "player", f"template {name!r} has a tier: a creature of it is an NPC"
    if not levels_module.levelled(source):
        return None
    derived = levels_module.derived_fields(content, None if template is None else fields,
                                           source)
    own = set_fields(fields) if template is not None else {}
    if "armor" in own and "armor" in derived:  # the columns the entry leaves to its level
        derived["armor"] = {column: points for column, points in derived["armor"].items()
                            if getattr(own["armor"], column) is UNSET}
    return _check_derived(content, {k: v for k, v in derived.items()
                                    if k not in own or k == "armor"},
                          pick("level", fields, source, default=1))


def _check_derived(content: Any, derived: dict[str, Any], level: int
                   ) -> tuple[str, str] | None:
    """The derived numbers within `world.limits`, as a stated number must be."""
    limits = content.world.limits
    bounds = {"hp": (1, limits.max_hp, "max_hp"), "max_hp": (1, limits.max_hp, "max_hp"),
              "hitroll": (-limits.max_roll, limits.max_roll, "max_roll"),
              "damroll": (-limits.max_roll, limits.max_roll, "max_roll"),
              "saving_throw": (-limits.max_roll, limits.max_roll, "max_roll")}
    for name, value in derived.items():
        if name == "damage":
            problem = dice_problem(value, limits)
        elif name == "armor":
            worst = max(value.values(), key=abs, default=0)
            problem = (None if abs(worst) <= limits.max_armor else
                       f"{worst} is beyond +-{limits.max_armor} (the bound in content "
                       f"world.limits.max_armor)")
        else:
            low, high, knob = bounds[name]
            problem = (None if low <= value <= high else f"{value} is outside {low}..{high} "
                       f"(the bound in content world.limits.{knob})")
        if problem:
            return "level", (f"level {level} implies {name} {problem}; set {name} on the "
                             f"creature, or give it a lower level")
    return None


def _check_gear(content: Any, fields: CreatureFields) -> tuple[str, str] | None:
    """Wielded items are weapons; worn items have a slot, each slot filled at most as
    often as the content's wear order lists it (one body armour)."""
    for slot in ("wield", "second_wield"):
        weapon = pick(slot, fields)
        if weapon is None:
            continue
        if weapon not in content.items:
            return slot, f"unknown item {weapon!r}"
        item_class = content.items[weapon].class_
        if not content.item_class_is(item_class, "weapon"):
            return slot, (f"item {weapon!r} is not a weapon (its class is {item_class!r}); "
                          f"armour goes in `wear`")
    taken: dict[str, list[str]] = {}
    for name in pick("wear", fields) or ():
        if name not in content.items:
            return "wear", f"unknown item {name!r}"
        slot = content.items[name].slot
        if slot is None:
            return "wear", f"item {name!r} has no slot to wear it in"
        taken.setdefault(slot, []).append(name)
        room = max(1, content.gear.wear_order.count(slot))
        if len(taken[slot]) > room:
            return "wear", (f"{', '.join(repr(n) for n in taken[slot])} cannot all be worn: "
                            f"the {slot!r} slot holds {room}")
    return None


# The engine keeps counters in 32-bit arrays and the source game's ints are 32-bit: a
# creature's numbers must fit, whatever the content's own bounds say.
INT32 = (-(2**31), 2**31 - 1)


def _check_numbers(content: Any, fields: CreatureFields) -> tuple[str, str] | None:
    """Every number within its range: the content's `world.limits` and 32 bits."""
    limits = content.world.limits
    damage = pick("damage", fields)
    if damage is not None:
        problem = dice_problem(damage, limits)
        if problem:
            return "damage", problem
    for name in ("level", "remorts", "hp", "max_hp", "move", "hitroll", "damroll",
                 "saving_throw", "alignment", "npc_tier"):
        value = pick(name, fields)
        if value is not None and not INT32[0] <= value <= INT32[1]:
            return name, f"{value} does not fit a 32-bit integer"
    bounded = (("level", 0, limits.max_level, "max_level"),
               ("remorts", 0, limits.max_remorts, "max_remorts"),
               ("hp", 1, limits.max_hp, "max_hp"),
               ("max_hp", 1, limits.max_hp, "max_hp"),
               ("hitroll", -limits.max_roll, limits.max_roll, "max_roll"),
               ("damroll", -limits.max_roll, limits.max_roll, "max_roll"),
               ("saving_throw", -limits.max_roll, limits.max_roll, "max_roll"))
    for name, low, high, knob in bounded:
        value = pick(name, fields)
        if value is not None and not low <= value <= high:
            return name, (f"{value} is outside {low}..{high} (the bound in content "
                          f"world.limits.{knob})")
    armor = pick("armor", fields)
    if armor is not None:
        for column in ("bash", "pierce", "slash", "exotic"):
            value = getattr(armor, column)
            if value is not UNSET and abs(value) > limits.max_armor:
                return "armor", (f"{column} = {value} is beyond +-{limits.max_armor} (the "
                                 f"bound in content world.limits.max_armor)")
    known = known_skills(content)
    for name, value in (pick("skills", fields) or {}).items():
        if name not in known:
            return "skills", (f"unknown skill {name!r} (known: a spell's name, a weapon "
                              f"class, or one of content world.skills: "
                              f"{', '.join(content.world.skills)})")
        if not 0 <= value <= 100:
            return "skills", f"skill {name!r} must be 0..100, got {value}"
    return None


def known_skills(content: Any) -> frozenset[str]:
    """The skill names a creature may have learned: content's `world.skills`, every
    spell (a spell's skill is its name) and every weapon class of the items."""
    key = ("known_skills",)
    cached = content.cache.get(key)
    if cached is None:
        cached = frozenset(content.world.skills) | frozenset(content.spells) | frozenset(
            item.weapon_class for item in content.items.values() if item.weapon_class)
        content.cache[key] = cached
    return cached


def _check_ranges(content: Any, fields: CreatureFields) -> tuple[str, str] | None:
    """The rules' own ranges: stats 0..max_stat (content), tiers 0..3, alignment
    -1000..1000. A stat indexes no table directly: where a table reads it, the rule
    clamps it to the table's rows 0..28 (`tohit.stat_index`), as the source does."""
    stats = pick("stats", fields)
    if stats is not None:
        top = content.world.limits.max_stat
        for key, _attr in _STAT_FIELDS:
            value = getattr(stats, key)
            if value is not UNSET and not 0 <= value <= top:
                name = key.rstrip("_")
                return "stats", (f"{name} must be 0..{top} (the bound in content "
                                 f"world.limits.max_stat; the stat tables read 0..28, a stat "
                                 f"above 28 reads as 28), got {value}")
    for name in ("level", "remorts", "move"):
        value = pick(name, fields)
        if value is not None and value < 0:
            return name, f"must be 0 or more, got {value}"
    tier = pick("npc_tier", fields)
    if tier is not None and not 0 <= tier <= 3:
        return "npc_tier", f"must be 0..3, got {tier}"
    alignment = pick("alignment", fields)
    if alignment is not None and not -1000 <= alignment <= 1000:
        return "alignment", f"must be -1000..1000, got {alignment}"
    return None


# R-LVL-3: a clan or religion is a plain name (the rules know "shalafi" and "none"); the
# skill-level bonus is a handful of levels either way, like the source's item bonuses.
NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_-")
SKILL_LEVEL_BONUS = (-100, 100)


def check_spell_level_fields(fields: CreatureFields) -> tuple[str, str] | None:
    """The spell-level fields (R-LVL-3): clan and religion are lowercase names (letters,
    digits, _ and -); the skill-level bonus is -100..100."""
    for name in ("clan", "religion"):
        value = pick(name, fields)
        if value is not None and (not value or not set(value) <= NAME_CHARS):
            return name, (f"must be a lowercase name (letters, digits, _ or -), "
                          f"got {value!r}")
    bonus = pick("skill_level_bonus", fields)
    low, high = SKILL_LEVEL_BONUS
    if bonus is not None and not low <= bonus <= high:
        return "skill_level_bonus", f"must be {low}..{high}, got {bonus}"
    return None


def check_mind_fields(content: Any, fields: CreatureFields) -> tuple[str, str] | None:
    """SPEC section 16's fields: a mind content defines or a game registered
    (`affray.register_mind`), mana no more than max_mana."""
    from affray.systems.rules.minds import registered_minds

    mind = pick("mind", fields)
    if mind is not None and mind not in content.minds and mind not in registered_minds():
        known = sorted({*content.minds, *registered_minds()})
        return "mind", (f"unknown mind {mind!r} (known: {', '.join(known)}; a game's own "
                        f"must be registered with affray.register_mind before loading)")
    mana, max_mana = pick("mana", fields), pick("max_mana", fields)
    if mana is not None and max_mana is not None and mana > max_mana:
        return "mana", f"{mana} is more than max_mana {max_mana}"
    return None


@dataclass(slots=True)
class CreatureValues:
    """The resolved components of one creature, before it has an entity."""

    profession: str
    race: str
    player: bool
    undead: bool
    immortal: bool
    npc_tier: int
    vitals: Vitals
    level: Level
    stats: Stats
    offense: Offense
    defense: Defense
    immunities: Immunities
    affects: Affects
    statuses: Statuses
    skills: Skills
    equipment: Equipment
    combat: Combat
    side: str = "npcs"
    mind: Mind = field(default_factory=Mind)


def resolve(content: Any, entry: CreatureFields, template: CreatureFields | None,
            fighting: str | None = None) -> CreatureValues:
    """Merge entry over template over defaults into component values."""
    # The entry's fields win over what its level implies (affray.data.levels), which wins
    # over the template's own numbers (they are the template's level's).
    derived = levels_module.derived_fields(content, entry, template)
    derived_armor = derived.pop("armor", {})
    merged = {**set_fields(template), **derived, **set_fields(entry)}
    get = merged.get  # a field's merged value, or the default given

    hp = get("hp")
    max_hp = get("max_hp")
    if hp is None and max_hp is None:
        hp = max_hp = 20
    elif hp is None:
        hp = max_hp
    elif max_hp is None:
        max_hp = hp
    stats = Stats()
    for block in (template, entry):  # template first, then the entry's stats win
        if block is None or block.stats is UNSET:
            continue
        for key, attr in _STAT_FIELDS:
            value = getattr(block.stats, key)
            if value is not UNSET:
                setattr(stats, attr, value)
    armor = {"bash": 0, "pierce": 0, "slash": 0, "exotic": 0}
    for block in (template, entry):
        if block is not None and block.armor is not UNSET:
            for column in armor:
                value = getattr(block.armor, column)
                if value is not UNSET:
                    armor[column] = value
        if block is template:  # the template's columns at the creature's level
            armor.update(derived_armor)
    damage = get("damage")
    hand = parse_dice(damage) if damage is not None else None
    status_degrees = {k: v for k, v in dict(get("statuses", {})).items() if v > 0}
    worn = _worn(content, get("wear", []))
    affect_names = list(get("affects", []))
    sources = {name: "scenario" for name in affect_names}
    for piece in worn:
        for granted in content.items[piece.item].grants_affects:
            if granted not in affect_names:
                affect_names.append(granted)
                sources[granted] = "equipment"
    # Gear-granted bits are not folded in here: the sheet adds them while the piece is
    # worn, so dispelling the creature's own immunities never removes them (R-IMM-6).
    imm = content.bits_of(get("imm", []))
    res = content.bits_of(get("res", []))
    player = bool(get("player", False))
    max_mana = get("max_mana", get("mana", 100))
    return CreatureValues(
        profession=get("profession", "mobile"),
        race=get("race", "human"),
        player=player,
        undead=bool(get("undead", False)),
        immortal=bool(get("immortal", False)),
        npc_tier=int(get("npc_tier", 0)),
        vitals=Vitals(hp=hp, max_hp=max_hp, move=get("move", 100),
                      position=get("position", "standing"), mana=get("mana", max_mana),
                      max_mana=max_mana),
        level=Level(level=get("level", 1), remorts=get("remorts", 0),
                    alignment=get("alignment", 0), clan=get("clan"),
                    religion=None if get("religion") == "none" else get("religion"),
                    skill_level_bonus=get("skill_level_bonus", 0)),
        stats=stats,
        offense=Offense(hitroll=get("hitroll", 0), damroll=get("damroll", 0), hand_dice=hand),
        defense=Defense(saving_throw=get("saving_throw", 0), armor_bash=armor["bash"],
                        armor_pierce=armor["pierce"], armor_slash=armor["slash"],
                        armor_exotic=armor["exotic"], defences=tuple(get("defences", []))),
        immunities=Immunities(imm=imm, res=res, vuln=content.bits_of(get("vuln", []))),
        affects=Affects(levels={name: -2 if sources[name] == "equipment" else 0
                                for name in affect_names}, sources=sources),
        statuses=Statuses(degrees=status_degrees),  # timed by statuses.begin at spawn
        skills=Skills(learned=dict(get("skills", {}))),
        equipment=Equipment(wield=get("wield"), worn=worn, second=get("second_wield")),
        combat=Combat(fighting=fighting),
        side=get("side", "players" if player else "npcs"),  # R-SIDE-1
        mind=Mind(name=get("mind")),
    )


def _worn(content: Any, names: list[str]) -> list[WornItem]:
    """The worn pieces in the content's wear order (body first). Most creatures wear
    nothing: no rank table is made for them (`resolve` runs for every creature)."""
    if not names:
        return []
    slot_rank = {slot: i for i, slot in enumerate(content.gear.wear_order)}
    return sorted((WornItem(item=name, slot=content.items[name].slot or "")
                   for name in names),
                  key=lambda piece: slot_rank.get(piece.slot, len(slot_rank)))


# Values a component field holds that are never changed in place: shared, not copied.
_SCALARS = frozenset((int, str, bool, float, type(None)))


class Copier:
    """Called, a new deep copy of `prototype` each time, by a function written out once
    for the prototype's exact shape (`_copy_function`): a prepared scenario resolves
    each creature once and gives every run's World its own copy, which must share
    nothing mutable with it or with another run's. Several times cheaper than
    `copy.deepcopy` or a generic walk.

    The prototype must never change afterwards (the first call reads it, and every
    call shares its immutable values and copies its dicts). A Copier pickles
    as its prototype (batch jobs go to worker processes); the function is written
    again, on first use, where it is unpickled.
    """

    __slots__ = ("_make", "prototype")

    def __init__(self, prototype: Any) -> None:
        self.prototype = prototype
        self._make: Callable[[], Any] | None = None

    def __call__(self) -> Any:
        make = self._make
        if make is None:
            make = self._make = _copy_function(self.prototype)
        return make()

    def __reduce__(self) -> tuple[type[Copier], tuple[Any]]:
        return Copier, (self.prototype,)


def _copy_function(prototype: Any) -> Callable[[], Any]:
    """The function a Copier calls: slotted dataclasses (components) rebuilt field by
    field, lists item by item, dicts of scalars copied; scalars and tuples of scalars
    shared (immutable); anything else deep-copied. The generated code names only the
    dataclasses' own fields; every value it reads is bound in its namespace, never
    written as text. A scalar field is bound as it is when the function is written, not
    read from the prototype on every call (which never changes), and an empty dict is
    made as `{}`: a tenth of a copy's cost, a copy for every creature spawned."""
    namespace: dict[str, Any] = {"new_object": object.__new__, "set_field": object.__setattr__,
                                 "deepcopy": copy.deepcopy}
    lines = ["def make():"]

    def bind(value: Any) -> str:
        name = f"g{len(namespace)}"
        namespace[name] = value
        return name

    def build(value: Any) -> str:
        """Emit the statements making a copy of `value`; return the expression for it."""
        kind = type(value)
        if kind in _SCALARS or (kind is tuple and all(type(i) in _SCALARS for i in value)):
            return bind(value)
        if kind is dict and all(type(v) in _SCALARS for v in value.values()):
            return f"{bind(value)}.copy()" if value else "{}"
        if kind is list:
            return "[" + ", ".join(build(item) for item in value) + "]"
        if not (hasattr(kind, "__dataclass_fields__") and hasattr(kind, "__slots__")):
            return f"deepcopy({bind(value)})"
        frozen = kind.__dataclass_params__.frozen  # type: ignore[attr-defined]
        made = f"v{len(lines)}"
        lines.append(f"    {made} = new_object({bind(kind)})")
        for field_ in fields(value):
            expression = build(getattr(value, field_.name))
            lines.append(f"    set_field({made}, {field_.name!r}, {expression})" if frozen
                         else f"    {made}.{field_.name} = {expression}")
        return made

    lines.append(f"    return {build(prototype)}")
    exec("\n".join(lines), namespace)  # dataclass field names and bound names only
    make: Callable[[], Any] = namespace["make"]
    return make
