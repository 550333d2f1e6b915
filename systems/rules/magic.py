"""One creature struck by a cast, and magic's type rules on the creatures it harms.

`strike` is the one path every creature a cast reaches takes, whether the shape found it,
an arc jumped to it or the water carried the cast to it (R-ELEC-3, R-SAVE-10): its own
save, the damage pipeline, then the type rules of section 11 and the spell's own effects.
Melee never comes here (R-MELEE-8).

Order within one strike (a **decision**, docs/decisions.md):

1. Undead struck by necrotic harm are immune (R-NECRO-1): an `immune` event, nothing else.
2. The save (R-SAVE-10): every creature struck rolls its own, unless the spell says
   `save = "none"`. An immune victim always saves (R-SAVE-6).
3. The cast's damage roll (critical already doubled, R-SHAPE-4); necrotic adds half again,
   rounded down, against a creature below half its hit points (R-NECRO-1); a save halves
   what is left, rounded down (R-SAVE-10). Both before the protections.
4. The damage pipeline (R-DMG-1) with the spell's flags.
5. If harmed (at least 1 hit point lost, R-TYPE-2): the type's rule (fire, cold, poison,
   acid; lightning's arcs and force's pushes are the Arc and Burst systems' work).
6. The spell's own effects on a creature that failed its save (or on every creature
   struck, for a spell with no save): wait, daze (R-LAG-4/6: NPC tiers cut them), stun or
   weak stun, dispel (R-SAVE-9).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from affray.core.events import Dispelled, GearDamaged, Immune
from affray.systems.rules import immunity
from affray.systems.rules.casting import CastRecord, Strike
from affray.systems.rules.damage import damage_hit
from affray.systems.rules.engagement import engage
from affray.systems.rules.hit import Hit, VictimDeath
from affray.systems.rules.lag import raise_lag
from affray.systems.rules.saves import dispel, saves_spell
from affray.systems.rules.statuses import apply_status, end_status
from affray.systems.rules.tohit import effective_hitroll

if TYPE_CHECKING:
    from affray.core.world import World
    from affray.systems.rules.sheet import Sheet

SPELL_FLAGS = immunity.flags_of(("spell", "magic"))
PRAYER_FLAGS = immunity.flags_of(("spell", "prayer"))
# A dragon's breath is magic but no spell (decision). R-IMM-2 checks a magic hit against
# the magic and spell bits, so a spell or magic immunity stops a breath too; only a
# prayer immunity (checked by the spell flag) does not.
BREATH_FLAGS = immunity.flags_of(("magic",))


def cast_flags(record: CastRecord) -> int:
    """The damage flags of a cast (R-DMG-3): breath is magic; a prayer is spell and
    prayer; every other spell, from mana, scroll, wand or trap, spell and magic."""
    if record.via == "breath":
        return BREATH_FLAGS
    return PRAYER_FLAGS if record.definition.prayer else SPELL_FLAGS


def prepare(world: World, record: CastRecord) -> None:
    """Work out once per cast what every strike of it shares (flags, armor pierce,
    whether it has effects beyond damage)."""
    definition = record.definition
    record.flags = cast_flags(record)
    caster = world.sheets.get(record.caster)
    if caster is not None:  # R-HIT-7: a spell hit pierces with the hitroll at 100%
        record.pierce = effective_hitroll(caster, 100, world.content)
    record.has_effects = bool(definition.wait or definition.daze or definition.dispel
                              or definition.stun != "none")


def necrotic_bonus(dam: int, victim: Sheet) -> int:
    """R-NECRO-1: half again, rounded down, against a creature below 50% of its hit
    points (hp * 2 < max_hp, exact in integers): 7 -> 10, 10 -> 15."""
    vitals = victim.vitals
    if vitals.hp * 2 < vitals.max_hp:
        return dam + dam // 2
    return dam


def strike(world: World, record: CastRecord, victim: Sheet, cause: str) -> Strike:
    """Strike one creature with a resolved cast; record and return what happened.

    A kill is caught here (the `death` event is logged by the pipeline): a cast goes on
    to its other victims, and the strike says `killed`. A harmful spell, saved or not,
    harm or none, is an attack: the victim fights back or remembers the caster (R-ACT-1).
    """
    result = _strike(world, record, victim, cause)
    if record.definition.offensive and victim.vitals.alive:
        engage(world, world.sheets.get(record.caster), victim)
    return result


def _strike(world: World, record: CastRecord, victim: Sheet, cause: str) -> Strike:
    result = Strike(entity=victim.entity, cause=cause, critical=record.critical)
    record.strikes.append(result)
    definition = record.definition
    caster = world.sheets.get(record.caster)
    damage_type = record.damage_type
    if damage_type == "negative" and victim.creature.undead:
        # R-NECRO-1: the undead are immune to necrotic harm.
        world.emit(Immune(world.pulse, record.caster_id, victim.id, damage_type))
        return result
    flags = record.flags
    saved = False
    if definition.save != "none":
        saved = saves_spell(world, record.level, victim, damage_type, caster, flags)
    result.saved = saved
    dam = record.roll
    if dam > 0:
        if damage_type == "negative":
            dam = necrotic_bonus(dam, victim)
        if saved:
            dam //= 2  # R-SAVE-10: half, rounded down, before the protections
        hit = Hit(source=caster, victim=victim, dam=dam, damage_type=damage_type,
                  flags=flags, melee=False, cause=cause, spell=record.spell,
                  critical=record.critical, saved=saved)
        hit.pierce = record.pierce  # R-HIT-7: the caster's hitroll at 100%
        try:
            result.amount = damage_hit(world, hit)
        except VictimDeath:
            result.amount = hit.dam
            result.killed = True
            return result
    if result.harmed:
        type_rules(world, record, victim)
    if record.has_effects and not saved and victim.vitals.alive:
        spell_effects(world, record, victim)
    return result


def type_rules(world: World, record: CastRecord, victim: Sheet) -> None:
    """Section 11 on a creature the cast harmed (R-TYPE-1, R-TYPE-2)."""
    damage_type = record.damage_type
    if damage_type == "fire":
        # R-FIRE-1: Burning 1, one time in four, rolled per creature harmed.
        if world.rng.chance(world.content.world.burning_chance):
            apply_status(world, victim, "burning")
    elif damage_type == "cold":
        # R-COLD-1: Sluggish 1, and any Burning goes out.
        apply_status(world, victim, "sluggish")
        end_status(world, victim, "burning")
    elif damage_type == "poison":
        apply_status(world, victim, "poisoned")  # R-POIS-1: one degree more
    elif damage_type == "acid":
        apply_status(world, victim, "corroded")  # R-ACID-1
        if victim.creature.player:
            eat_gear(world, victim)  # R-ACID-2: player characters only


def eat_gear(world: World, victim: Sheet) -> None:
    """R-ACID-2: acid eats the first piece worn (body armour first, then the content's
    slot order): its material withstands it at `acid_resist` percent (a 1..100 roll at or
    under the chance); otherwise a sound piece is damaged and a damaged one destroyed.
    An indestructible piece is never eaten (and draws no roll): **decision**."""
    worn = victim.equipment.worn
    if not worn:
        return
    piece = worn[0]
    content = world.content
    item = content.items[piece.item]
    if item.indestructible:  # as floor items flagged so (R-LOSS-4): acid cannot eat it
        return
    material = content.materials[item.material]
    if world.rng.chance(material.acid_resist):
        return
    if piece.damaged:
        worn.pop(0)
        victim.refresh_gear(content)  # its armour and granted immunities go with it
        # ... and the affects it granted, unless another worn piece grants them too
        kept = {name for other in worn for name in content.items[other.item].grants_affects}
        for name in content.items[piece.item].grants_affects:
            if victim.affects.sources.get(name) == "equipment" and name not in kept:
                world.remove_affect(victim.id, name)
        world.emit(GearDamaged(world.pulse, victim.id, piece.item, "destroyed"))
    else:
        piece.damaged = True
        world.emit(GearDamaged(world.pulse, victim.id, piece.item, "damaged"))


def spell_effects(world: World, record: CastRecord, victim: Sheet) -> None:
    """The spell's own effects on a creature that did not save: lag put on it by another
    (so an NPC tier keeps only its share, R-LAG-6), a stun (R-STUN-1), a dispel
    (R-SAVE-9)."""
    definition = record.definition
    if definition.wait:
        raise_lag(world, victim, "wait", definition.wait, own=victim.entity == record.caster)
    if definition.daze:
        raise_lag(world, victim, "daze", definition.daze, own=victim.entity == record.caster)
    if definition.stun == "stun" or (definition.stun == "weak_stun"
                                     and not victim.has("stun")):
        world.set_stun(victim, definition.stun)
    if definition.dispel:
        for affect, removed in dispel(world, victim, record.level):  # R-SAVE-9
            world.emit(Dispelled(world.pulse, victim.id, affect, removed))
