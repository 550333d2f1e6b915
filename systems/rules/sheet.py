"""A creature's sheet: its components gathered once, for the hot paths.

A blow reads a dozen components of two creatures. Looking each up in esper costs a dict
walk per read; the sheet holds direct references to the (mutable) component objects, plus
values derived from gear (armor per column, the wielded weapon's definition, the immunity
bits its gear grants). Sheets are runtime views, never saved; a world rebuilds them on
creation and load, and `refresh_gear` when gear changes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import esper

from affray.components import (
    Affects,
    Combat,
    Creature,
    Defense,
    Equipment,
    Immunities,
    Level,
    Mind,
    Offense,
    Position,
    Skills,
    Spawn,
    Stats,
    Statuses,
    Vitals,
)
from affray.core.dice import dice_of
from affray.data.defs import ItemDef, ProfessionDef
from affray.systems.rules.immunity import material_bits

if TYPE_CHECKING:
    from affray.data.content_loader import Content


@dataclass(slots=True)
class Sheet:
    """References to one creature's components, and values derived from its gear."""

    entity: int
    spawn: Spawn
    creature: Creature
    position: Position
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
    profession: ProfessionDef
    # What it decides with and remembers (SPEC section 16).
    mind: Mind = field(default_factory=Mind)
    weapon: ItemDef | None = None
    # The wielded weapon's canonical damage type, dice and material bits (R-IMM-9),
    # resolved once when gear changes rather than on every blow.
    weapon_type: str = "bash"
    weapon_dice: tuple[int, int, int] | None = None
    weapon_bits: int = 0
    weapon_skill: str = "hand_to_hand"
    shield: bool = False
    gear_armor: dict[str, int] = field(default_factory=dict)
    gear_imm: int = 0
    gear_res: int = 0
    gear_vuln: int = 0

    @property
    def id(self) -> str:
        return self.creature.id

    @property
    def modify_level(self) -> int:
        """Level plus remort levels (R-LVL-1)."""
        return self.level.level + self.level.remorts

    @property
    def npc(self) -> bool:
        return not self.creature.player

    def has(self, affect: str) -> bool:
        return affect in self.affects.levels

    def hook_owners(self) -> list[tuple[str, str]]:
        """Who this creature's hooks belong to: everyone, itself, its template, its
        affects (R-PROT-5's order: own, prototype, affects), then its worn items."""
        owners = [("all", ""), ("creature", self.creature.id)]
        if self.creature.template:
            owners.append(("template", self.creature.template))
        owners.extend(("affect", name) for name in self.affects.levels)
        owners.extend(("item", piece.item) for piece in self.equipment.worn)
        return owners

    def armor(self, column: str) -> int:
        """Armor points in a column: the creature's own plus its worn gear's (R-HIT-10)."""
        defense = self.defense
        own = (defense.armor_bash if column == "bash" else defense.armor_pierce
               if column == "pierce" else defense.armor_slash if column == "slash"
               else defense.armor_exotic)
        return own + self.gear_armor.get(column, 0)

    def imm_mask(self) -> int:
        return self.immunities.imm | self.gear_imm

    def res_mask(self) -> int:
        return self.immunities.res | self.gear_res

    def vuln_mask(self) -> int:
        return self.immunities.vuln | self.gear_vuln

    def refresh_gear(self, content: Content) -> None:
        """Recompute what gear gives: weapon, shield, armor, granted immunity (R-IMM-6)."""
        equipment = self.equipment
        weapon = self.weapon = content.items[equipment.wield] if equipment.wield else None
        if weapon is None:
            self.weapon_type, self.weapon_dice, self.weapon_bits = "bash", None, 0
            self.weapon_skill = "hand_to_hand"
        else:  # R-IMM-5: a blow always has a type; a punch is bash
            self.weapon_skill = weapon.weapon_class or "exotic"
            self.weapon_type = content.damage_type(weapon.damage_type) or "bash"
            self.weapon_dice = dice_of(weapon.damage) if weapon.damage else None
            self.weapon_bits = material_bits(content, weapon)
        armor: dict[str, int] = {}
        imm = res = 0
        shield = False
        for piece in equipment.worn:
            item = content.items[piece.item]
            shield = shield or piece.slot == "shield"
            for column, points in item.armor.items():
                armor[column] = armor.get(column, 0) + points
            imm |= content.bits_of(item.grants_imm)
            res |= content.bits_of(item.grants_res)
        self.gear_armor, self.gear_imm, self.gear_res, self.shield = armor, imm, res, shield


def _add_mind(entity: int) -> Mind:
    """A mindless Mind for a creature of a save made before minds existed."""
    mind = Mind()
    esper.add_component(entity, mind)
    return mind


def build_sheet(entity: int, content: Content) -> Sheet:
    """Gather a creature's components (in the current esper context) into a sheet."""
    parts: tuple[Any, ...] = esper.components_for_entity(entity)
    by_type = {type(part): part for part in parts}
    creature = by_type[Creature]
    sheet = Sheet(
        entity=entity, spawn=by_type[Spawn], creature=creature, position=by_type[Position],
        vitals=by_type[Vitals], level=by_type[Level], stats=by_type[Stats],
        offense=by_type[Offense], defense=by_type[Defense], immunities=by_type[Immunities],
        affects=by_type[Affects], statuses=by_type[Statuses], skills=by_type[Skills],
        equipment=by_type[Equipment], combat=by_type[Combat],
        profession=content.professions[creature.profession],
        mind=by_type.get(Mind) or _add_mind(entity),
    )
    sheet.refresh_gear(content)
    return sheet
