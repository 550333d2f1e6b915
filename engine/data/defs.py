"""Typed, frozen definitions of every content kind (msgspec Structs).

Content is TOML in `content/` (and inline in scenarios); the loader validates each entry
into one of these at load, so the engine never sees an unchecked value (R-ENG-1).
A field's default here is the default of the rule that reads it; the TOML files restate
the defaults with a comment on why.
"""

from __future__ import annotations

import math
from typing import Annotated, Literal

import msgspec
from msgspec import UNSET, Struct, UnsetType, field

SHAPES = ("burst", "cone", "line", "ray", "bolt", "touch")
VIAS = ("mana", "scroll", "wand", "trap", "breath")
POSITIONS = ("dead", "mortal", "incap", "stunned", "sleeping", "resting", "sitting",
             "fighting", "standing")
PROFESSION_FLAGS = ("caster", "hybrid", "agile", "other")
ARMOR_COLUMNS = ("bash", "pierce", "slash", "exotic")
DEFENCE_NAMES = ("bat_swarm", "shield_block", "blink", "cross_block", "parry", "hand_block",
                 "dodge")


class Def(Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """Base of every content definition: frozen, unknown fields are errors."""


# Knob types. TOML reads `nan` and `inf` as floats: msgspec refuses NaN against any bound,
# and `require_finite` refuses infinities, which a rule would turn into a crash
# (Fraction(inf)) or a fight where nothing ever hits.
NonNegative = Annotated[float, msgspec.Meta(ge=0.0)]
Positive = Annotated[float, msgspec.Meta(gt=0.0)]
Share = Annotated[float, msgspec.Meta(ge=0.0, le=1.0)]
Percent = Annotated[int, msgspec.Meta(ge=0, le=100)]
# The armor model's weights and powers (R-HIT-2..9): a weight past 1,000 or a power past
# 16 turns every number of the model into an infinity (a hit chance of NaN) or an
# overflow (acc^hit_pow, armor^dr_pow in the vectorised round's exact cut), where the
# defaults are 0.2..2 and powers of 1 or 2 already span every useful curve.
Weight = Annotated[float, msgspec.Meta(ge=0.0, le=1000.0)]
Power = Annotated[float, msgspec.Meta(gt=0.0, le=16.0)]
FacesOf20 = Annotated[int, msgspec.Meta(ge=0, le=20)]


def require_finite(struct: Struct) -> None:
    """Raise ValueError (msgspec reports it with the entry's path) for a float field that
    is infinite or NaN (a bounded knob refuses NaN before this runs)."""
    for name in struct.__struct_fields__:
        value = getattr(struct, name)
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"{name} must be a finite number, got {value}")


# -- damage --------------------------------------------------------------------------
class DamageDef(Def, frozen=True, kw_only=True):
    """Damage types, aliases, damage flags and immunity bits (R-IMM-1, R-IMM-2, R-DMG-3)."""

    types: tuple[str, ...]
    aliases: dict[str, str]
    flags: tuple[str, ...]
    imm_bits: tuple[str, ...]
    no_bit: tuple[str, ...]
    physical: tuple[str, ...]
    armor_column: dict[str, str]
    spell_armor: tuple[str, ...]


# -- materials and items ---------------------------------------------------------
class MaterialDef(Def, frozen=True, kw_only=True):
    """A material: loss-table family, hardness, burns, immunity bits it names (R-IMM-9)."""

    family: str
    types: tuple[str, ...] = ()
    hardness: int = 0
    burns: int = 0
    flags: tuple[str, ...] = ()
    vuln: tuple[str, ...] = ()
    acid_resist: int = 0


class ItemClassDef(Def, frozen=True, kw_only=True):
    """An item class; `is_a` makes a corpse count as food for the loss table (R-LOSS-6)."""

    is_a: str | None = None
    description: str = ""


class GearDef(Def, frozen=True, kw_only=True):
    """Worn-gear order: body armour first, then these slots (R-ACID-2)."""

    wear_order: tuple[str, ...]


class ItemDef(Def, frozen=True, kw_only=True):
    """An item: class, main material, and what it does when wielded or worn."""

    class_: str = field(name="class")
    material: str
    plural: str | None = None
    slot: str | None = None
    indestructible: bool = False
    hardness: int = 0
    damage: str | int | None = None
    damage_type: str = "bash"
    weapon_class: str | None = None
    sharp: bool = False
    holy: bool = False
    armor: dict[str, int] = {}
    grants_affects: tuple[str, ...] = ()
    grants_imm: tuple[str, ...] = ()
    grants_res: tuple[str, ...] = ()


# -- creatures -------------------------------------------------------------------
class StatBlock(Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """The stats table of a creature entry; every stat optional."""

    str_: int | UnsetType = field(name="str", default=UNSET)
    int_: int | UnsetType = field(name="int", default=UNSET)
    wis: int | UnsetType = UNSET
    dex: int | UnsetType = UNSET
    con: int | UnsetType = UNSET
    cha: int | UnsetType = UNSET
    willpower: int | UnsetType = UNSET


class ArmorBlock(Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """Armor points per column, higher protects more (R-HIT-10)."""

    bash: int | UnsetType = UNSET
    pierce: int | UnsetType = UNSET
    slash: int | UnsetType = UNSET
    exotic: int | UnsetType = UNSET


class CreatureFields(Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """Every creature field of SCENARIO.md; UNSET means "from the template, or default"."""

    player: bool | UnsetType = UNSET
    npc: bool | UnsetType = UNSET
    level: int | UnsetType = UNSET
    remorts: int | UnsetType = UNSET
    hp: int | UnsetType = UNSET
    max_hp: int | UnsetType = UNSET
    move: int | UnsetType = UNSET
    alignment: int | UnsetType = UNSET
    race: str | UnsetType = UNSET
    profession: str | UnsetType = UNSET
    undead: bool | UnsetType = UNSET
    immortal: bool | UnsetType = UNSET
    position: str | UnsetType = UNSET
    stats: StatBlock | UnsetType = UNSET
    hitroll: int | UnsetType = UNSET
    damroll: int | UnsetType = UNSET
    saving_throw: int | UnsetType = UNSET
    armor: ArmorBlock | UnsetType = UNSET
    imm: list[str] | UnsetType = UNSET
    res: list[str] | UnsetType = UNSET
    vuln: list[str] | UnsetType = UNSET
    affects: list[str] | UnsetType = UNSET
    statuses: dict[str, int] | UnsetType = UNSET
    skills: dict[str, int] | UnsetType = UNSET
    damage: str | int | UnsetType = UNSET
    defences: list[str] | UnsetType = UNSET
    wield: str | UnsetType = UNSET
    second_wield: str | UnsetType = UNSET
    wear: list[str] | UnsetType = UNSET
    npc_tier: int | UnsetType = UNSET
    # R-LVL-3: the Shalafi clan keeps half the class penalty; no religion weakens prayers;
    # equipment and affects add a skill-level bonus to every cast (may be negative).
    clan: str | UnsetType = UNSET
    religion: str | UnsetType = UNSET
    skill_level_bonus: int | UnsetType = UNSET
    # SPEC section 16: the side (R-SIDE-1), the mind (R-MIND-1; a content mind or a
    # game's registered one), and mana (R-BOOK-2; max_mana defaults to mana).
    side: Annotated[str, msgspec.Meta(min_length=1, max_length=64)] | UnsetType = UNSET
    mind: str | UnsetType = UNSET
    mana: Annotated[int, msgspec.Meta(ge=0, le=1_000_000)] | UnsetType = UNSET
    max_mana: Annotated[int, msgspec.Meta(ge=0, le=1_000_000)] | UnsetType = UNSET


class CreatureTemplate(CreatureFields, frozen=True):
    """A creature template in content (`[creatures.<name>]`)."""

    # The one character `affray render` and the replay draw it by (default: the first
    # letter of the template's name; players are always `@`).
    glyph: Annotated[str, msgspec.Meta(min_length=1, max_length=1)] | UnsetType = UNSET
    # An NPC's tier and style in content `levels` (trash, normal, elite, champion, boss,
    # legend; fortress, brute): the numbers the template leaves out come from the tier's
    # curve at its level (affray.data.levels). Only templates have them: a scenario creature
    # that wants another tier names another template.
    tier: Annotated[str, msgspec.Meta(min_length=1, max_length=64)] | UnsetType = UNSET
    style: Annotated[str, msgspec.Meta(min_length=1, max_length=64)] | UnsetType = UNSET


class ProfessionDef(Def, frozen=True, kw_only=True):
    """A profession's THAC0 pair and its spell-level class flag (R-HIT-2, R-LVL-2)."""

    thac00: int
    thac32: int
    flag: Literal["caster", "hybrid", "agile", "other"]
    tags: tuple[str, ...] = ()


class StrTable(Def, frozen=True, kw_only=True):
    hit: tuple[int, ...]
    carry: tuple[int, ...]
    wield: tuple[int, ...]
    web: tuple[int, ...]
    damage: tuple[int, ...]


class IntTable(Def, frozen=True, kw_only=True):
    learn: tuple[int, ...]
    slevel: tuple[int, ...]


class WisTable(Def, frozen=True, kw_only=True):
    practice: tuple[int, ...]
    learn: tuple[int, ...]
    slevel: tuple[int, ...]


class DexTable(Def, frozen=True, kw_only=True):
    missile_hit: tuple[int, ...]
    missile_damage: tuple[int, ...]
    defensive: tuple[int, ...]


class StatTables(Def, frozen=True, kw_only=True):
    """The source's stat tables, index = current stat value 0..28."""

    str_: StrTable = field(name="str")
    int_: IntTable = field(name="int")
    wis: WisTable
    dex: DexTable


# -- levels: what a level implies (content/levels.toml, affray.data.levels) ----------------
Level0 = Annotated[int, msgspec.Meta(ge=0)]
Multiplier = Annotated[float, msgspec.Meta(gt=0.0, le=1000.0)]
SignedMultiplier = Annotated[float, msgspec.Meta(ge=-1000.0, le=1000.0)]
CurveValues = tuple[Annotated[float, msgspec.Meta(ge=-1e9, le=1e9)], ...]


class NpcCurve(Def, frozen=True, kw_only=True):
    """The source's base curve of a mob (fight/mob_tiers.json `base`): hit points, the
    average damage of a blow and AC/10 at each listed level, read between the listed
    levels on a straight line (and past the last on the last one's slope)."""

    level: tuple[Level0, ...]
    hp: CurveValues
    dmg: CurveValues
    ac: CurveValues


class TierDef(Def, frozen=True, kw_only=True):
    """A tier's multipliers (fight/mob_tiers.json `tiers`): of the curve's hit points,
    damage and AC, and per level of hitroll and saving throw."""

    hp: Multiplier
    dmg: Multiplier
    ac: SignedMultiplier
    hitroll: SignedMultiplier = 0.0
    saves: SignedMultiplier = 0.0


class StyleDef(Def, frozen=True, kw_only=True):
    """A style's multipliers of hit points and damage (fortress: fat but mild)."""

    hp: Multiplier = 1.0
    dmg: Multiplier = 1.0


class ClassMultipliers(Def, frozen=True, kw_only=True):
    """Multipliers by profession name: hit points (mages, clerics), damage (warriors)."""

    hp: dict[str, Multiplier] = {}
    dmg: dict[str, Multiplier] = {}


class PcCurve(Def, frozen=True, kw_only=True):
    """A player character's median hit points, hitroll and damroll by level (the source's
    fight/pc_baseline.json), read like NpcCurve."""

    level: tuple[Level0, ...]
    hp: CurveValues
    hitroll: CurveValues
    damroll: CurveValues


class PcCurves(Def, frozen=True, kw_only=True):
    """The player bands: casters (a caster profession) and melee (every other)."""

    melee: PcCurve
    caster: PcCurve


class LevelsConfig(Def, frozen=True, kw_only=True):
    """What a creature's level implies (content/levels.toml)."""

    npc: NpcCurve
    tiers: dict[str, TierDef]
    styles: dict[str, StyleDef] = {}
    class_mult: ClassMultipliers = ClassMultipliers()
    pc: PcCurves


# -- spells and statuses ------------------------------------------------------------
class SpellDef(Def, frozen=True, kw_only=True):
    """A spell: damage type, shape, range, damage dice, save, and its special knobs."""

    type: str
    shape: Literal["burst", "cone", "line", "ray", "bolt", "touch"]
    range: int = 8
    radius: int = 1
    damage: str | int = 0
    save: Literal["half", "none"] = "half"
    blast: int = 0
    chain: bool = False
    critical: float = 0.0
    beats: int = 12
    prayer: bool = False
    position: str = "fighting"
    # R-LVL-3: the spell group picks the improved-casting skill (improved maladiction,
    # improved benediction, holy remedy); magic concentrate needs an offensive spell.
    group: Literal["none", "maladictions", "benedictions", "healing", "curative"] = "none"
    offensive: bool = True
    # What the spell does to a creature that fails its save (every creature it strikes
    # when `save = "none"`): lag in pulses put on it by another (an NPC tier keeps only its
    # share, R-LAG-6), a stun (R-STUN-1), a dispel of its affects at the spell level
    # (R-SAVE-9). A spell with damage 0 deals none and only does these.
    wait: int = 0
    daze: int = 0
    stun: Literal["none", "stun", "weak_stun"] = "none"
    dispel: bool = False
    # R-BOOK-2: what a cast from mana costs when the world's `casting.mana` is on.
    mana: Annotated[int, msgspec.Meta(ge=0, le=1_000_000)] = 0
    description: str = ""


class StatusDef(Def, frozen=True, kw_only=True):
    """A status's defaults (SPEC section 12); degrees stack."""

    duration: int
    period: int = 0
    damage_type: str | None = None
    damage_per_degree: int = 0
    raw: bool = False
    hp_per_degree: int = 0
    wait_per_degree: int = 0
    # Sluggish (R-HIT-3): evasion x max(evasion_floor, 1 - evasion_per_degree x degree).
    evasion_per_degree: NonNegative = 0.0
    evasion_floor: Share = 1.0

    def __post_init__(self) -> None:
        require_finite(self)


class LossRow(Def, frozen=True, kw_only=True):
    """One row of the floor-loss table: by item class or by material family (R-LOSS-2)."""

    chance: int
    item_class: str | None = None
    family: str | None = None


class FloorLossDef(Def, frozen=True, kw_only=True):
    """The rows and message verbs of one damage type (R-LOSS-3, R-LOSS-7)."""

    rows: tuple[LossRow, ...]
    verb_one: str
    verb_many: str


# -- configs -----------------------------------------------------------------------
class ArmorModel(Def, frozen=True, kw_only=True):
    """Knobs of the armor model (R-HIT-2..9); see content/fight.toml for each default.

    Each is a finite number in the range where its rule means what it says: weights and
    levels not negative, powers above 0 (0 would make every chance or cut a constant, a
    negative one turn it around), the hit chance's clamp a share with floor <= cap, a
    blind attacker's evasion factor at least 1 (blindness never helps). dr_cap may exceed
    100: R-HIT-9 caps every cut at 99% whatever it says. Weights and the blind factor are
    at most 1,000, powers at most 16 (`Weight`, `Power`): past them the numbers overflow."""

    base_w: Weight
    hit_pow: Power
    ev_level: Weight
    ev_dex: Weight
    p_floor: Share
    p_cap: Share
    blind_factor: Annotated[float, msgspec.Meta(ge=1.0, le=1000.0)]
    armor_use_bonus: Weight
    dr_level: Weight
    dr_pierce: Weight
    dr_pow: Power
    dr_cap: NonNegative
    spell_factor: Weight
    spell_pierce_level: Weight

    def __post_init__(self) -> None:
        require_finite(self)
        if self.p_floor > self.p_cap:
            raise ValueError(f"p_floor ({self.p_floor}) must not be above p_cap "
                             f"({self.p_cap})")


class DefenceConfig(Def, frozen=True, kw_only=True):
    """The defence chain's order and NPC defence chances (R-DEF-1, R-DEF-4, R-DEF-7)."""

    order: tuple[str, ...] = ("bat_swarm", "shield_block", "blink", "cross_block", "parry",
                              "hand_block", "dodge")
    npc_dodge: Percent = 50
    npc_other: Percent = 30


class StunConfig(Def, frozen=True, kw_only=True):
    """Stun knobs: the length of a paralysis tick in pulses (R-STUN-3), and the attack
    skills whose chance weak stun halves (R-STUN-6)."""

    tick_pulses: int = 240
    weak_stun_halves: tuple[str, ...] = ("second_attack", "third_attack", "fourth_attack",
                                         "fifth_attack")


class MovementConfig(Def, frozen=True, kw_only=True):
    """Movement regeneration (the source's move_gain, once a tick): a player gains
    max(player_min, level), an NPC its level, every `tick_pulses` pulses, up to
    `max_move` (content/fight.toml says where the figures come from)."""

    tick_pulses: Annotated[int, msgspec.Meta(ge=1)] = 240
    player_min: Annotated[int, msgspec.Meta(ge=0)] = 15
    max_move: Annotated[int, msgspec.Meta(ge=0)] = 100


class FightConfig(Def, frozen=True, kw_only=True):
    """The fight config: model switch, round length, critical multiplier, knobs."""

    model: Literal["armor", "legacy"] = "armor"
    round_pulses: int = 12
    critical_multiplier: tuple[int, int] = (3, 2)
    auto_miss_in_20: FacesOf20 = 1
    auto_critical_in_20: FacesOf20 = 1
    # A round with at least this many fighters is vectorised (world option vectorise).
    vectorise_min_fighters: Annotated[int, msgspec.Meta(ge=1)] = 64
    armor: ArmorModel
    defence: DefenceConfig = DefenceConfig()
    stun: StunConfig = StunConfig()
    movement: MovementConfig = MovementConfig()

    def __post_init__(self) -> None:
        # R-HIT-5: the automatic faces are faces of one d20.
        if self.auto_miss_in_20 + self.auto_critical_in_20 > 20:
            raise ValueError(f"auto_miss_in_20 + auto_critical_in_20 is "
                             f"{self.auto_miss_in_20 + self.auto_critical_in_20}: a d20 has "
                             f"20 faces")


class SavesModel1(Def, frozen=True, kw_only=True):
    """Model 1's curve knobs (R-SAVE-3). No defaults: a knob left out means the curve is
    not configured and saves fall back to model 0 (R-SAVE-1); content/saves.toml gives
    them all."""

    base: float | UnsetType = UNSET
    span: float | UnsetType = UNSET
    per_level: float | UnsetType = UNSET
    floor: float | UnsetType = UNSET
    ceiling: float | UnsetType = UNSET
    tau: float | UnsetType = UNSET
    level_floor: int | UnsetType = UNSET

    def __post_init__(self) -> None:
        require_finite(self)
        if self.tau is not UNSET and not self.tau > 0:
            raise ValueError(f"tau must be above 0, got {self.tau}")
        if self.level_floor is not UNSET and self.level_floor < 1:
            raise ValueError(f"level_floor must be 1 or more, got {self.level_floor}")
        if (self.floor is not UNSET and self.ceiling is not UNSET
                and self.floor > self.ceiling):
            raise ValueError(f"floor ({self.floor}) must not be above ceiling "
                             f"({self.ceiling})")

    def complete(self) -> bool:
        """True when every knob is given (R-SAVE-1: else model 0 runs)."""
        return all(getattr(self, name) is not UNSET for name in self.__struct_fields__)


class CharmConfig(Def, frozen=True, kw_only=True):
    per_point: int = 2
    low_cha: int = 18


class DispelConfig(Def, frozen=True, kw_only=True):
    base0: int = 50
    per_level0: int = 5
    base1: int = 500
    per_level1: int = 50
    min1: int = 50
    max1: int = 950


class SavesConfig(Def, frozen=True, kw_only=True):
    """The saves config (R-SAVE-1..9); a missing file or knob means model 0."""

    model: Literal[0, 1] = 0
    model1: SavesModel1 = SavesModel1()
    charm: CharmConfig = CharmConfig()
    dispel: DispelConfig = DispelConfig()


class ChainConfig(Def, frozen=True, kw_only=True):
    """Chain lightning's certain jumps: clamp(base + (willpower - ref) // per, lo, hi)."""

    base: int = 3
    willpower_ref: int = 10
    per: int = 4
    low: int = 3
    high: int = 6


# What the engine's arrays and integers hold: a content limit may not go past these
# (content_loader refuses one that does), so every bounded number fits where it lands.
INT16_MAX = 2**15 - 1
INT32_MAX = 2**31 - 1


class LimitsConfig(Def, frozen=True, kw_only=True):
    """Sanity bounds on numbers in content and scenarios: past them a value is a typo or
    nonsense, refused at load with the bound in the message (see content/world.toml).
    `HARD_LIMITS` caps the knobs whose numbers land in a fixed-width array."""

    max_level: int = 1_000
    max_remorts: int = 100
    max_hp: int = 1_000_000
    max_armor: int = 10_000
    max_roll: int = 10_000
    max_dice_count: int = 100
    max_dice_sides: int = 1_000
    max_dice_bonus: int = 100_000
    max_status_degree: int = 100
    max_range: int = 1_000
    max_stack: int = 1_000_000
    max_stat: int = 50
    max_pulses: int = 1_000_000
    max_ice_cm: int = 1_000
    max_hardness: int = 10_000
    max_creatures: int = 200_000
    max_items: int = 200_000
    max_map_cells: int = 16_777_216
    max_doors: int = 200_000
    max_water_bodies: int = 200_000
    max_actions: int = 1_000_000


# knob -> (the most it may be, what holds the numbers it bounds).
HARD_LIMITS: dict[str, tuple[int, str]] = {
    "max_hp": (INT32_MAX, "hit points are 32-bit"),
    "max_pulses": (INT32_MAX, "wait and daze live in 32-bit arrays"),
    "max_ice_cm": (INT16_MAX, "the grid's ice array is 16-bit"),
    "max_creatures": (INT32_MAX, "the grid's occupant array is 32-bit"),
    "max_map_cells": (INT32_MAX, "the grid's water labels are 32-bit"),
    # R-SHAPE-1: the cone's exact test squares products of range-sized numbers in 64 bits,
    # and line of effect compares slopes of range-sized fractions as floats.
    "max_range": (2**14, "the cone's exact test squares range-sized products in 64 bits"),
    # Each die of a roll is a draw of its own (Rng.dice): a million dice a blow is a hang.
    "max_dice_count": (10_000, "each die is a draw of its own"),
}


class MindDef(Def, frozen=True, kw_only=True):
    """A mind (`[minds.<name>]`, SPEC section 16): the traits the built-in mind reads.

    aggressive: it attacks the nearest foe it sees (R-MIND-3); assist: it joins the
    fights of its side that it sees (R-MIND-4); wimpy: it flees below this percent of
    its maximum hit points, 0 never (R-MIND-5), rolling `wimpy_chance` percent at each
    round's check; sight: how far it sees, in cells (R-MIND-2); spells: its spell list,
    cast with `cast_chance` percent at most once every `cast_every` pulses with a foe in
    sight (R-MIND-6, R-BOOK-1); keep_range: the cells it keeps from its nearest foe."""

    aggressive: bool = False
    assist: bool = False
    wimpy: Percent = 0
    wimpy_chance: Percent = 25
    sight: Annotated[int, msgspec.Meta(ge=0, le=64)] = 8
    spells: tuple[str, ...] = ()
    cast_chance: Percent = 60
    cast_every: Annotated[int, msgspec.Meta(ge=1, le=100_000)] = 16
    keep_range: Annotated[int, msgspec.Meta(ge=0, le=64)] = 0
    description: str = ""


class CastingConfig(Def, frozen=True, kw_only=True):
    """Spell lists and mana (R-BOOK-1, R-BOOK-2); both off by default, so scripts and
    games cast freely, as a game master would. Mana comes back every `regen_pulses`
    pulses (once a second, as the source's gainMana): max(1, (wis + 2 * int + level) //
    `regen_divisor`), the source's base gain over its /16, without its random share."""

    known_only: bool = False
    mana: bool = False
    regen_pulses: Annotated[int, msgspec.Meta(ge=1, le=100_000)] = 4
    regen_divisor: Annotated[int, msgspec.Meta(ge=1, le=100_000)] = 16


class WorldConfig(Def, frozen=True, kw_only=True):
    """World-level knobs: action waits, ice thickness, fire length, falls; the affects
    and skills a creature may carry, and the sanity limits on numbers."""

    pulses_per_second: int = 4
    move_wait: int = 2
    ice_cm: int = 10
    fire_burst_pulses: int = 240
    fall_in_wait: int = 12
    # R-FIRE-1: the percent chance that a fire spell leaves a creature it harms Burning.
    burning_chance: int = 25
    # R-ELEC-1: the percent chance that electricity arcs on from a creature it harmed.
    arc_chance: int = 25
    # A flood that queues at least this many creatures strikes them at once, in numpy
    # (affray.systems.rules.flood); fewer are struck one by one.
    bulk_strike_min: int = 16
    affects: tuple[str, ...] = ()
    # Skill names beyond spells (a spell's name is its skill) and weapon classes.
    skills: tuple[str, ...] = ()
    chain_lightning: ChainConfig = ChainConfig()
    limits: LimitsConfig = LimitsConfig()
    casting: CastingConfig = CastingConfig()


def decode_error_field(error: msgspec.ValidationError) -> tuple[str, str]:
    """Split msgspec's "detail - at `$.a.b`" into (field path, detail)."""
    text = str(error)
    if " - at `$" in text:
        detail, _, where = text.rpartition(" - at `$")
        return where.rstrip("`").lstrip("."), detail
    return "", text
