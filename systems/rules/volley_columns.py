"""The fighters of a round as numpy columns, for the vectorised round (volley.py).

One Python pass reads each creature's components into one tuple of whole numbers (the
only per-creature Python work of a vectorised round); every value derived from them
(effective skills with daze, class base, evasion, armor class...) is then computed for
all creatures at once, with the scalar rules' integer rounding.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from itertools import chain
from typing import TYPE_CHECKING, Any

import numpy as np

from affray.defs import ARMOR_COLUMNS
from affray.systems.rules.blow import CLASS_DIVISOR
from affray.systems.rules.defence import FIGHTERS
from affray.systems.rules.tohit import POSITION_RANK
from affray.systems.rules.volley_protect import affect_mask, tdiv_many

if TYPE_CHECKING:
    from affray.systems.rules.sheet import Sheet
    from affray.world import World

# Skills a blow reads, in column order of `Columns.learned`.
SKILLS = ("blind_fighting", "armor_use", "liturgy", "shield_block", "blink", "cross_block",
          "parry", "hand_block", "dodge", "second_attack", "third_attack", "fourth_attack",
          "fifth_attack")
SKILL = {name: i for i, name in enumerate(SKILLS)}
# Defences an NPC's template may list, as bits of `Columns.npc_defences`.
DEFENCE_BIT = {name: 1 << i for i, name in enumerate(
    ("shield_block", "blink", "cross_block", "parry", "hand_block", "dodge"))}
# Profession codes the defences read.
PROF_OTHER, PROF_FIGHTER, PROF_THIEF, PROF_NINJA, PROF_ANTI = 0, 1, 2, 3, 4
WEAPON_NONE, WEAPON_OTHER, WEAPON_FLAIL, WEAPON_WHIP = 0, 1, 2, 3

# Plain numbers read straight off the sheet, by one C-level getter per creature.
_NUMBERS = {
    "player": "creature.player", "immortal": "creature.immortal", "slot": "creature.slot",
    "level": "level.level", "remorts": "level.remorts", "alignment": "level.alignment",
    "hp": "vitals.hp", "move": "vitals.move", "alive": "vitals.alive",
    "strength": "stats.strength", "dexterity": "stats.dexterity",
    "hitroll": "offense.hitroll", "damroll": "offense.damroll",
    "thac00": "profession.thac00", "thac32": "profession.thac32",
    "own_bash": "defense.armor_bash", "own_pierce": "defense.armor_pierce",
    "own_slash": "defense.armor_slash", "own_exotic": "defense.armor_exotic",
    "own_imm": "immunities.imm", "own_res": "immunities.res", "own_vuln": "immunities.vuln",
    "gear_imm": "gear_imm", "gear_res": "gear_res", "gear_vuln": "gear_vuln",
    "shield": "shield", "weapon_bits": "weapon_bits", "x": "position.x", "y": "position.y",
}
_NUMBER_GETTER = operator.attrgetter(*_NUMBERS.values())
# Values that change with the fight, read every round.
_OBJECTS = operator.attrgetter("vitals.position", "affects.levels", "skills.learned",
                               "statuses.degrees", "equipment.second", "weapon_skill",
                               "combat.fighting")
# Immutable definitions (and the gear view `refresh_gear` replaces whole): what they
# give is worked out once per distinct combination and kept (StaticRows).
_STATIC = operator.attrgetter("profession", "weapon", "weapon_dice", "offense.hand_dice",
                              "defense.defences", "gear_armor", "creature.race",
                              "creature.profession", "creature.player")
_STATIC_FIELDS = ("thac00", "thac32", "divisor", "profession", "hobbit", "wield", "wclass",
                  "sharp", "holy", "dice_n", "dice_s", "dice_b", "has_dice", "hand_n",
                  "hand_s", "hand_b", "has_hand", "npc_defences", "gear_bash",
                  "gear_pierce", "gear_slash", "gear_exotic")


class StaticRows:
    """The numbers the immutable parts of a sheet give, one table row per distinct
    combination (keyed by the objects' identities; the objects are kept alive here so an
    identity is never reused). Held by the World (`World.volley_cache`)."""

    __slots__ = ("index", "keep", "last", "rows", "table")

    def __init__(self) -> None:
        self.index: dict[tuple[Any, ...], int] = {}
        self.last: dict[int, tuple[tuple[Any, ...], int]] = {}  # entity -> (parts, row)
        self.keep: list[tuple[Any, ...]] = []
        self.rows: list[tuple[int, ...]] = []
        self.table = np.zeros((0, len(_STATIC_FIELDS)), dtype=np.int64)

    def row(self, parts: tuple[Any, ...]) -> int:
        key = (id(parts[0]), id(parts[1]), id(parts[2]), id(parts[3]), id(parts[4]),
               id(parts[5]), parts[6], parts[7], parts[8])
        found = self.index.get(key)
        if found is None:
            found = self.index[key] = len(self.rows)
            self.keep.append(parts)
            self.rows.append(_static_values(parts))
        return found


def _static_values(parts: tuple[Any, ...]) -> tuple[int, ...]:
    profession, weapon, dice, hand, defences, gear, race, job, player = parts
    wclass, sharp, holy = _weapon_row(weapon)
    dice3 = dice or (0, 0, 0)
    hand3 = hand or (0, 0, 0)
    return (profession.thac00, profession.thac32,
            CLASS_DIVISOR.get(profession.flag, 0) if player else 0, _profession_code(job),
            int(race == "hobbit"), int(weapon is not None), wclass, sharp, holy, *dice3,
            int(dice is not None), *hand3, int(hand is not None), _defence_mask(defences),
            *(gear.get(column, 0) for column in ARMOR_COLUMNS))


def _static_rows(world: World, sheets: list[Sheet]) -> np.ndarray:
    cache = world.volley_cache
    if cache is None or len(cache.rows) > 4 * len(sheets) + 1024:
        cache = world.volley_cache = StaticRows()
    row, last = cache.row, cache.last
    index: list[int] = []
    append = index.append
    for sheet, parts in zip(sheets, map(_STATIC, sheets), strict=True):
        known = last.get(sheet.entity)
        if known is not None and known[0] == parts:  # the same objects as last time
            append(known[1])
        else:
            found = row(parts)
            last[sheet.entity] = (parts, found)
            append(found)
    if len(cache.table) < len(cache.rows):
        cache.table = np.array(cache.rows, dtype=np.int64).reshape(len(cache.rows),
                                                                   len(_STATIC_FIELDS))
    return cache.table[np.fromiter(index, dtype=np.int64, count=len(index))]


def _profession_code(name: str) -> int:
    if name in FIGHTERS:
        return PROF_FIGHTER
    return {"thief": PROF_THIEF, "ninja": PROF_NINJA, "anti-paladin": PROF_ANTI}.get(
        name, PROF_OTHER)


def _weapon_row(weapon: Any) -> tuple[int, int, int]:
    """(weapon class code, sharp, holy) of a wielded item definition (or None)."""
    if weapon is None:
        return WEAPON_NONE, 0, 0
    kind = weapon.weapon_class
    code = WEAPON_FLAIL if kind == "flail" else WEAPON_WHIP if kind == "whip" else WEAPON_OTHER
    return code, int(weapon.sharp), int(weapon.holy)


def _column(values: list[Any]) -> np.ndarray:
    return np.fromiter(values, dtype=np.int64, count=len(values))


@dataclass(slots=True)
class Columns:
    """Per creature (row i of `sheets`): the raw numbers and the effective skills."""

    sheets: list[Sheet]
    raw: dict[str, np.ndarray]
    learned: np.ndarray        # (len(SKILLS), n): effective skill 0..100 (daze applied)
    weapon_skill: np.ndarray   # effective weapon skill 0..100 (the blow's is 20 + this)
    types: list[str]           # each creature's weapon damage type (R-IMM-5)
    positions: list[str]       # each creature's position, as read
    fighting: list[str | None]  # whom each fights, as read

    def __getattr__(self, name: str) -> np.ndarray:
        try:
            return self.raw[name]
        except KeyError:
            raise AttributeError(name) from None

    @property
    def modify_level(self) -> np.ndarray:
        return self.raw["level"] + self.raw["remorts"]


def gather(world: World, sheets: list[Sheet]) -> Columns:
    """Read the creatures into columns (C-level getters, then look-up tables), then the
    effective skills."""
    n = len(sheets)
    numbers = np.fromiter(chain.from_iterable(map(_NUMBER_GETTER, sheets)), dtype=np.int64,
                          count=n * len(_NUMBERS)).reshape(n, len(_NUMBERS))
    raw = {name: numbers[:, i] for i, name in enumerate(_NUMBERS)}
    objects = list(map(_OBJECTS, sheets))
    (positions, affects, learned_dicts, degrees, seconds, weapon_skills, fighting) = (
        list(column) for column in zip(*objects, strict=True)) if n else ([],) * 7
    raw["rank"] = _column([POSITION_RANK[p] for p in positions])
    raw["affects"] = _column([affect_mask(levels) if levels else 0 for levels in affects])
    static = _static_rows(world, sheets)
    for i, name in enumerate(_STATIC_FIELDS):
        raw[name] = static[:, i]
    for column in ARMOR_COLUMNS:  # own points plus the gear's (Sheet.armor)
        raw[f"armor_{column}"] = raw[f"own_{column}"] + raw[f"gear_{column}"]
    raw["imm"] = raw["own_imm"] | raw["gear_imm"]
    raw["res"] = raw["own_res"] | raw["gear_res"]
    raw["vuln"] = raw["own_vuln"] | raw["gear_vuln"]
    raw["second"] = _column([w is not None for w in seconds])
    raw["sluggish"] = _column([d.get("sluggish", 0) if d else 0 for d in degrees])
    lag = world.lag
    if lag.dazed:
        raw["dazed"] = (lag.daze[raw["slot"]] > 0).astype(np.int64)
    else:
        raw["dazed"] = np.zeros(n, dtype=np.int64)
    # The skills a blow reads: (creature, skill, learned) triples, then one scatter.
    learned_raw = np.zeros((len(SKILLS), n), dtype=np.int64)
    found = [(SKILL[name], i, value) for i, known in enumerate(learned_dicts) if known
             for name, value in known.items() if name in SKILL]
    if found:
        where = np.fromiter(chain.from_iterable(found), dtype=np.int64,
                            count=3 * len(found)).reshape(len(found), 3)
        learned_raw[where[:, 0], where[:, 1]] = where[:, 2]
    raw["weapon_learned"] = _column([k.get(name, -1) for k, name in
                                     zip(learned_dicts, weapon_skills, strict=True)])
    dazed = raw["dazed"] != 0
    learned = effective_many(learned_raw, dazed)
    # weapon_skill: an NPC that never learned its weapon's skill has 100 with a weapon,
    # 2 x level + 40 bare-handed (capped 100), cut to 2/3 when dazed; else effective.
    weapon_learned = raw["weapon_learned"]
    untaught = (raw["player"] == 0) & (weapon_learned < 0)
    npc_value = np.where(raw["wield"] != 0, 100, np.minimum(100, 2 * raw["level"] + 40))
    npc_value = np.where(dazed, tdiv_many(2 * npc_value, 3), npc_value)
    taught = effective_many(np.maximum(weapon_learned, 0), dazed)
    weapon_skill = np.where(untaught, npc_value, taught)
    return Columns(sheets, raw, learned, weapon_skill, [s.weapon_type for s in sheets],
                   positions, fighting)


def _defence_mask(names: tuple[str, ...]) -> int:
    mask = 0
    for name in names:
        mask |= DEFENCE_BIT.get(name, 0)
    return mask


def effective_many(learned: np.ndarray, dazed: np.ndarray) -> np.ndarray:
    """`skills.effective_skill` for arrays (not a spell): 0 stays 0; dazed x2/3;
    clamped 0..100."""
    value = np.where(dazed, tdiv_many(2 * learned, 3), learned)
    return np.where(learned == 0, 0, np.clip(value, 0, 100))
