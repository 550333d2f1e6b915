"""Damage types and immunity (SPEC section 6): flag collection, resolution, materials.

All pure functions of plain values (bit masks and ints), shared by both pipelines.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from affray.core.arith import tdiv

if TYPE_CHECKING:
    from affray.data.content_loader import Content
    from affray.data.defs import ItemDef

# Damage flags a hit carries (R-DMG-3), as bits.
WEAPON, SPELL, MAGIC, PRAYER, OTHER, WATER = 1, 2, 4, 8, 16, 32
FLAG_BITS = {"weapon": WEAPON, "spell": SPELL, "magic": MAGIC, "prayer": PRAYER,
             "other": OTHER, "water": WATER}

IMMUNE, RESISTANT, VULNERABLE, NORMAL = "immune", "resistant", "vulnerable", "normal"


def flags_of(names: list[str] | tuple[str, ...]) -> int:
    """The flag bits of flag names; KeyError names an unknown one."""
    mask = 0
    for name in names:
        mask |= FLAG_BITS[name]
    return mask


def hit_bits(content: Content, damage_type: str, flags: int) -> int | None:
    """R-IMM-2: the immunity bits a hit is checked against; None for type `none`.

    weapon flag -> weapon; spell flag -> any of spell, magic, prayer; prayer flag ->
    prayer and spell; magic flag -> magic and spell; water flag -> drowning; then the bit
    of the damage type itself (none, other and harm have none).
    """
    key = (damage_type, flags)
    cache = content.cache
    mask: int | None = cache.get(key, -1)  # -1: not worked out yet (masks are >= 0)
    if mask != -1:
        return mask
    if damage_type == "none":
        cache[key] = None
        return None
    bits = content.bits
    mask = 0
    if flags & WEAPON:
        mask |= bits["weapon"]
    if flags & SPELL:
        mask |= bits["spell"] | bits["magic"] | bits["prayer"]
    if flags & PRAYER:
        mask |= bits["prayer"] | bits["spell"]
    if flags & MAGIC:
        mask |= bits["magic"] | bits["spell"]
    if flags & WATER:
        mask |= bits["drowning"]
    if damage_type not in content.damage.no_bit:
        mask |= bits.get(damage_type, 0)
    cache[key] = mask
    return mask


def resolve(mask: int | None, imm: int, res: int, vuln: int) -> str:
    """R-IMM-3 / R-IMM-4: immune beats all; resistant and vulnerable cancel; one cut only.

    Several resisting bits still give one "resistant": resists never stack.
    """
    if not mask:
        return NORMAL
    if mask & imm:
        return IMMUNE
    resistant, vulnerable = bool(mask & res), bool(mask & vuln)
    if resistant and vulnerable:
        return NORMAL
    if resistant:
        return RESISTANT
    return VULNERABLE if vulnerable else NORMAL


def apply(outcome: str, dam: int) -> int:
    """R-IMM-3: immune -> 0; resistant -> dam - dam/3; vulnerable -> dam + dam/2.

    Truncating divisions: 37 resisted -> 37 - 12 = 25; 37 vulnerable -> 37 + 18 = 55.
    """
    if outcome == IMMUNE:
        return 0
    if outcome == RESISTANT:
        return dam - tdiv(dam, 3)
    if outcome == VULNERABLE:
        return dam + tdiv(dam, 2)
    return dam


def material_bits(content: Content, item: ItemDef) -> int:
    """R-IMM-9: the immunity bits the materials of an item name (ORed)."""
    material = content.materials[item.material]
    return content.bits_of(material.vuln)
