"""The fighters of a round as numpy columns, for the vectorised round (volley.py).

One Python pass reads each creature's components into one tuple of whole numbers (the
only per-creature Python work of a vectorised round); every value derived from them
(effective skills with daze, class base, evasion, armor class...) is then computed for
all creatures at once, with the scalar rules' integer rounding.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

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
FIGHTER_PROFESSIONS = ("warrior", "samurai", "paladin")
# Profession codes the defences read.
PROF_OTHER, PROF_FIGHTER, PROF_THIEF, PROF_NINJA, PROF_ANTI = 0, 1, 2, 3, 4
WEAPON_NONE, WEAPON_OTHER, WEAPON_FLAIL, WEAPON_WHIP = 0, 1, 2, 3
CLASS_DIVISORS = {"hybrid": 130, "agile": 110, "other": 100}

_FIELDS = ("player", "level", "remorts", "alignment", "hp", "move", "rank", "affects",
           "strength", "dexterity", "hitroll", "damroll", "thac00", "thac32", "divisor",
           "profession", "hobbit", "dazed", "armor_bash", "armor_pierce", "armor_slash",
           "armor_exotic", "imm", "res", "vuln", "shield", "wield", "second",
           "sluggish", "npc_defences", "weapon_learned", "wclass", "sharp", "holy",
           "weapon_bits", "dice_n", "dice_s", "dice_b", "hand_n", "hand_s", "hand_b",
           "has_hand", "has_dice")


def _profession_code(name: str) -> int:
    if name in FIGHTER_PROFESSIONS:
        return PROF_FIGHTER
    return {"thief": PROF_THIEF, "ninja": PROF_NINJA, "anti-paladin": PROF_ANTI}.get(
        name, PROF_OTHER)


def _row(sheet: Sheet, daze: np.ndarray | None) -> tuple[int, ...]:
    """One creature's raw numbers (see _FIELDS)."""
    creature, vitals, level, stats = sheet.creature, sheet.vitals, sheet.level, sheet.stats
    offense, defense, own = sheet.offense, sheet.defense, sheet.immunities
    gear = sheet.gear_armor
    profession = sheet.profession
    weapon = sheet.weapon
    learned = sheet.skills.learned
    npc_defences = 0
    for name in defense.defences:
        npc_defences |= DEFENCE_BIT.get(name, 0)
    if weapon is None:
        wclass, sharp, holy = WEAPON_NONE, 0, 0
    else:
        kind = weapon.weapon_class
        wclass = WEAPON_FLAIL if kind == "flail" else WEAPON_WHIP if kind == "whip" \
            else WEAPON_OTHER
        sharp, holy = int(weapon.sharp), int(weapon.holy)
    dice = sheet.weapon_dice or (0, 0, 0)
    hand = offense.hand_dice
    weapon_learned = learned.get(sheet.weapon_skill, -1)  # -1: never learned
    return (
        int(creature.player), level.level, level.remorts, level.alignment, vitals.hp,
        vitals.move, POSITION_RANK[vitals.position], affect_mask(sheet.affects.levels),
        stats.strength, stats.dexterity, offense.hitroll, offense.damroll,
        profession.thac00, profession.thac32,
        CLASS_DIVISORS.get(profession.flag, 0) if creature.player else 0,
        _profession_code(creature.profession), int(creature.race == "hobbit"),
        int(daze is not None and daze[creature.slot] > 0),
        defense.armor_bash + gear.get("bash", 0), defense.armor_pierce + gear.get("pierce", 0),
        defense.armor_slash + gear.get("slash", 0), defense.armor_exotic + gear.get("exotic", 0),
        own.imm | sheet.gear_imm, own.res | sheet.gear_res, own.vuln | sheet.gear_vuln,
        int(sheet.shield), int(sheet.equipment.wield is not None),
        int(sheet.equipment.second is not None),
        sheet.statuses.degrees.get("sluggish", 0), npc_defences, weapon_learned,
        wclass, sharp, holy, sheet.weapon_bits, dice[0], dice[1], dice[2],
        *(hand if hand is not None else (0, 0, 0)), int(hand is not None),
        int(sheet.weapon_dice is not None),
    )


@dataclass(slots=True)
class Columns:
    """Per creature (row i of `sheets`): the raw numbers and the effective skills."""

    sheets: list[Sheet]
    raw: dict[str, np.ndarray]
    learned: np.ndarray        # (len(SKILLS), n): effective skill 0..100 (daze applied)
    weapon_skill: np.ndarray   # effective weapon skill 0..100 (the blow's is 20 + this)
    types: list[str]           # each creature's weapon damage type (R-IMM-5)

    def __getattr__(self, name: str) -> np.ndarray:
        try:
            return self.raw[name]
        except KeyError:
            raise AttributeError(name) from None

    @property
    def modify_level(self) -> np.ndarray:
        return self.raw["level"] + self.raw["remorts"]


def gather(world: World, sheets: list[Sheet]) -> Columns:
    """Read the creatures into columns (one Python pass), then the effective skills."""
    lag = world.lag
    daze = lag.daze if lag.dazed else None
    table = np.array([_row(sheet, daze) for sheet in sheets], dtype=np.int64).reshape(
        len(sheets), len(_FIELDS))
    raw = {name: table[:, i] for i, name in enumerate(_FIELDS)}
    learned_raw = np.array([[sheet.skills.learned.get(name, 0) for name in SKILLS]
                            for sheet in sheets], dtype=np.int64).reshape(len(sheets),
                                                                         len(SKILLS)).T
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
    return Columns(sheets, raw, learned, weapon_skill, [s.weapon_type for s in sheets])


def effective_many(learned: np.ndarray, dazed: np.ndarray) -> np.ndarray:
    """`skills.effective_skill` for arrays (not a spell): 0 stays 0; dazed x2/3;
    clamped 0..100."""
    value = np.where(dazed, tdiv_many(2 * learned, 3), learned)
    return np.where(learned == 0, 0, np.clip(value, 0, 100))
