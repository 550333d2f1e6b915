"""Spell: the casts due this pulse (`R-LVL-*`, `R-SHAPE-*`, R-SAVE-10, `R-TYPE-*`, section 11).

A cast was checked at submit (R-ENG-2) and handed over by the action step through
`world.casts_due` with its beats of wait already paid. Here, in the order the casts were
issued (spawn order of their casters, R-GRID-3), each one:

1. is checked again against what may have changed (caster dead or out of position,
   target dead or moved out of range): a `refused` event, nothing else;
2. gets its spell level (R-LVL-1..4) and a `cast` event carrying it; at level 0 or
   below it fails (`cast_failed`);
3. resolves its shape on the grid (R-SHAPE-1, `affray.systems.rules.shapes`);
4. rolls its damage once (every creature the cast strikes, arcs and water included,
   takes that same roll, R-ELEC-1), doubled by a spell critical (R-SHAPE-4: touch, ray,
   bolt only);
5. strikes the shape's victims in spawn order (R-SHAPE-6) through
   `affray.systems.rules.magic.strike` (save, damage pipeline, type rules);
6. leaves a `CastRecord` in `world.cast_records` for Arc, Burst and FloorItemLoss.

Reads: `world.casts_due`, `world.sheets`, `world.grid`, `world.content.spells`, the rng.
Writes: `world.cast_records`, creature components through the damage pipeline, events.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from affray.core.actions import Casting
from affray.core.dice import dice_of
from affray.core.events import Cast, CastFailed, Refused
from affray.core.grid import chebyshev
from affray.systems.base import System
from affray.systems.rules.casting import CastRecord
from affray.systems.rules.magic import prepare, strike
from affray.systems.rules.shapes import resolve_shape
from affray.systems.rules.spell_level import cast_level
from affray.systems.rules.tohit import POSITION_RANK

if TYPE_CHECKING:
    from affray.core.world import World
    from affray.systems.rules.sheet import Sheet

CRITICAL_SHAPES = ("touch", "ray", "bolt")  # R-SHAPE-4: area shapes never crit
# Why a cast failed, in words for its `cast_failed` event (R-LVL-3, R-LVL-4).
_FAILURES = {"prayer": "no god hears a prayer from one without religion",
             "skill_level_bonus": "its skill-level penalty leaves no power"}


def _refuse(world: World, sheet: Sheet, reason: str) -> None:
    world.emit(Refused(world.pulse, sheet.id, "cast", reason))


def roll_damage(world: World, record: CastRecord) -> None:
    """Roll the cast's damage once (dice "NdM+K", never below 0); a touch, ray or bolt
    with a `critical` chance doubles it on a uniform draw below that chance (R-SHAPE-4)."""
    definition = record.definition
    count, size, bonus = dice_of(definition.damage)
    roll = max(0, world.rng.dice(count, size) + bonus)
    if (definition.critical > 0 and definition.shape in CRITICAL_SHAPES
            and world.rng.random() < definition.critical):
        roll *= 2
        record.critical = True
    record.roll = roll


def resolve_cast(world: World, casting: Casting) -> CastRecord | None:
    """Resolve one cast (steps 1-6 of the module docstring); None when it did not go off."""
    caster = world.sheets.get(casting.actor)
    if caster is None or not caster.vitals.alive:
        return None
    definition = world.content.spells[casting.spell]
    # R-LVL-5: the spell's position is a minimum
    if POSITION_RANK[caster.vitals.position] < POSITION_RANK[definition.position]:
        _refuse(world, caster, f"not in position ({caster.vitals.position})")
        return None
    origin = (caster.position.x, caster.position.y)
    target_entity: int | None = None
    if isinstance(casting.target, str):
        target_entity = world.by_id.get(casting.target)
        victim = world.sheets.get(target_entity) if target_entity is not None else None
        if victim is None or not victim.vitals.alive:
            _refuse(world, caster, f"target {casting.target!r} is dead")
            return None
        aim = (victim.position.x, victim.position.y)
    else:
        aim = (int(casting.target[0]), int(casting.target[1]))
    distance = chebyshev(origin, aim)
    reach = 1 if definition.shape == "touch" else definition.range
    if distance > reach:
        _refuse(world, caster, f"target {list(aim)} is out of range ({reach})")
        return None
    computed = cast_level(world, caster, definition, distance)  # R-LVL-1..3
    level = computed.level
    target = casting.target if isinstance(casting.target, str) else aim
    world.emit(Cast(world.pulse, caster.id, casting.spell, level, casting.via, target))
    if level <= 0:  # R-LVL-4: a cast at level 0 or below fails
        world.emit(CastFailed(world.pulse, caster.id, casting.spell, level,
                              _FAILURES.get(computed.refused or "",
                                            f"spell level {level}")))
        return None
    shape = resolve_shape(world.grid, definition.shape, origin, aim, range_=definition.range,
                          radius=definition.radius, caster=caster.entity,
                          spawn_of=lambda entity: world.sheets[entity].spawn.number,
                          target=target_entity)
    record = CastRecord(
        caster=caster.entity, caster_id=caster.id, spell=casting.spell, definition=definition,
        damage_type=world.content.damage_type(definition.type) or definition.type,
        via=casting.via, level=level, origin=origin, target=target, centre=shape.centre,
        area=list(shape.area), effect_cells=list(shape.effect_cells))
    prepare(world, record)
    roll_damage(world, record)
    for entity in shape.victims:  # R-SHAPE-6: spawn order
        victim = world.sheets.get(entity)
        if victim is not None and victim.vitals.alive:
            strike(world, record, victim, "spell")
    return record


class SpellSystem(System):
    """Resolves the casts due this pulse, in the order they were issued."""

    name = "Spell"
    rules = "R-LVL-*, R-SHAPE-*, R-SAVE-*, R-TYPE-*, section 11 (casts due this pulse)"

    def process(self, world: World) -> None:
        world.cast_records.clear()  # last pulse's records are done with
        if not world.casts_due:
            return
        casts, world.casts_due = world.casts_due, []
        for casting in casts:
            record = resolve_cast(world, casting)
            if record is not None:
                world.cast_records.append(record)

    def next_pulse(self, world: World) -> int | None:
        """Casts are handed over by the action step of the same pulse: only a cast
        already waiting makes this pulse busy."""
        return world.pulse if world.casts_due else None
