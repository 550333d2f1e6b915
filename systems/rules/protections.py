"""Protections, in the seed's order, each on what the one before left (SPEC section 4).

Each step is a small function `step(hit, world)` that changes `hit.dam` in whole hit
points; its rounding is in its docstring. The steps sit in one ordered registry
(`default_protections()`); a game adds a protection by adding a step (R-PROT-8).
Raw damage skips them all (R-DMG-1).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from affray.arith import tdiv
from affray.systems.rules import immunity
from affray.systems.rules.registry import Steps

if TYPE_CHECKING:
    from affray.defs import ArmorModel
    from affray.systems.rules.hit import Hit
    from affray.world import World

GOOD, EVIL = 333, -333  # SCENARIO.md: evil below -333, good above 333


def sanctuary(hit: Hit, world: World) -> None:
    """R-PROT-1: sanctuary or stardust: dam/2. Else a dark shroud: dam*6/10 (dam/2 for a
    clan guard). Else the resistance spell: dam - dam*2/5. Truncating: 37 -> 18; shroud
    37 -> 22; resistance 37 -> 37 - 14 = 23."""
    affects = hit.victim.affects.levels
    if "sanctuary" in affects or "stardust" in affects:
        hit.dam = tdiv(hit.dam, 2)
    elif "dark_shroud" in affects:
        hit.dam = tdiv(hit.dam, 2) if "clan_guard" in affects else tdiv(hit.dam * 6, 10)
    elif "resistance" in affects:
        hit.dam -= tdiv(hit.dam * 2, 5)


def alignment(hit: Hit, world: World) -> None:
    """R-PROT-2: protection from evil (good) takes dam/4 off a hit from an evil (good)
    attacker. Truncating: 37 -> 37 - 9 = 28. No attacker, no cut."""
    source = hit.source
    if source is None:
        return
    attacker_alignment = source.level.alignment
    if EVIL <= attacker_alignment <= GOOD:
        return
    affects = hit.victim.affects.levels
    if ((attacker_alignment < EVIL and "protection_evil" in affects)
            or (attacker_alignment > GOOD and "protection_good" in affects)):
        hit.dam -= tdiv(hit.dam, 4)


def temperature(hit: Hit, world: World) -> None:
    """R-PROT-3: protection from heat takes dam/4 off fire; from cold, off cold.
    Truncating: 37 -> 28."""
    if ((hit.damage_type == "fire" and hit.victim.has("protection_heat"))
            or (hit.damage_type == "cold" and hit.victim.has("protection_cold"))):
        hit.dam -= tdiv(hit.dam, 4)


def liturgy(hit: Hit, world: World) -> None:
    """R-PROT-4: a victim with the liturgy affect or skill: a melee blow loses
    dam*(3 + Lv/10)/100, a damage-pipeline hit dam*Lv/1200 (Lv its modify level).
    Truncating at each division: Lv 55, 37 melee -> 37 - 37*8/100 = 37 - 2 = 35;
    37 spell -> 37 - 37*55/1200 = 37 - 1 = 36."""
    victim = hit.victim
    if "liturgy" not in victim.affects.levels and victim.skills.learned.get("liturgy", 0) <= 0:
        return
    level = victim.modify_level
    if hit.melee:
        hit.dam -= tdiv(hit.dam * (3 + tdiv(level, 10)), 100)
    else:
        hit.dam -= tdiv(hit.dam * level, 1200)


def immune(hit: Hit, world: World) -> None:
    """R-PROT-5: first the victim's on-immune hooks (its own, its template's, its
    affects'), any of which may handle the hit (and zero it); then the table (R-IMM-3).
    Then conductor: its owner resists electricity 25% more, dam - dam/4 (R-IMM-8).
    `hit.immune` is set when this step took a positive hit to 0."""
    before = hit.dam
    victim = hit.victim
    handled = False
    if world.rules.hooks["on_immune"]:
        for hook in world.rules.hooks_for("on_immune", victim.hook_owners()):
            if hook(hit, world):
                handled = True
                break
    if not handled:
        bits = immunity.hit_bits(world.content, hit.damage_type, hit.flags)
        if bits:
            own = victim.immunities
            outcome = immunity.resolve(bits, own.imm | victim.gear_imm, own.res | victim.gear_res,
                                       own.vuln | victim.gear_vuln)
            hit.dam = immunity.apply(outcome, hit.dam)
    if hit.damage_type == "lightning" and "conductor" in victim.affects.levels:
        hit.dam -= tdiv(hit.dam, 4)
    if before > 0 and hit.dam == 0:
        hit.immune = True


def flat_trim(hit: Hit, world: World) -> None:
    """R-PROT-6: a hit above 10 becomes dam*4/5, truncated: 11 -> 8, 37 -> 29; 10 stays."""
    if hit.dam > 10:
        hit.dam = tdiv(hit.dam * 4, 5)


def armor_reduction(armor: float, victim_level: int, pierce: float, knobs: ArmorModel) -> float:
    """R-HIT-8 / R-HIT-9: the fraction armor takes off.

    k = dr_level * victim level + dr_pierce * pierce; x = (armor / k) ^ dr_pow;
    reduction = min(dr_cap%, x / (1 + x)), never above 99%. Armor of 0 or less reduces
    nothing; a k of 0 or less with armor above 0 gives the cap (no division by zero).
    """
    if armor <= 0:
        return 0.0
    cap = min(knobs.dr_cap / 100.0, 0.99)
    k = knobs.dr_level * victim_level + knobs.dr_pierce * pierce
    if k <= 0:
        return cap
    x = armor / k if knobs.dr_pow == 1.0 else (armor / k) ** knobs.dr_pow
    reduction = x / (1.0 + x)
    return cap if reduction > cap else reduction


def armor(hit: Hit, world: World) -> None:
    """R-PROT-7 / R-HIT-7: armor, last, with the armor model on. Bash, pierce, slash use
    their column, energy the exotic one, pierced by the attacker's effective hitroll;
    fire, cold, lightning, acid, light use exotic * spell_factor, pierced by attacker
    level * spell_pierce_level; other types pass. The victim keeps the rounding:
    dam - floor(dam * reduction), so 37 at 39.4% loses 14 -> 23."""
    content = world.content
    fight = content.fight
    if fight.model != "armor" or hit.dam <= 0:
        return
    damage = content.damage
    column = damage.armor_column.get(hit.damage_type)
    if column is None:
        return
    knobs = fight.armor
    victim = hit.victim
    points = victim.armor(column) + hit.armor_bonus
    if points <= 0:
        return  # R-HIT-9: no armor, no reduction
    if hit.damage_type in damage.spell_armor:
        points *= knobs.spell_factor
        pierce = (hit.source.modify_level * knobs.spell_pierce_level
                  if hit.source is not None else 0.0)
    else:
        pierce = hit.pierce
    reduction = armor_reduction(points, victim.level.level + victim.level.remorts, pierce,
                                knobs)
    if reduction > 0:
        hit.dam -= int(hit.dam * reduction)


def default_protections() -> Steps:
    """The seed's order (R-PROT-1..7): sanctuary, alignment, temperature, liturgy,
    immunity, flat trim, armor."""
    return Steps([("sanctuary", sanctuary), ("alignment", alignment),
                  ("temperature", temperature), ("liturgy", liturgy), ("immunity", immune),
                  ("flat_trim", flat_trim), ("armor", armor)])


def protect(hit: Hit, world: World) -> None:
    """Run every registered protection step in order (R-PROT-8)."""
    for step in world.rules.protections:
        step(hit, world)
