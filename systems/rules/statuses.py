"""Statuses: burning, sluggish, corroded, poisoned (SPEC section 12).

A status has a degree (degrees stack: each application adds one) and absolute pulses: the
pulse it ends on, and for those that tick, the pulse of the next tick. Absolute times mean
an idle world can jump pulses without touching anyone, and `next_status_pulse` tells it
where the next tick or end falls.

- R-STAT-1 Burning d: d fire damage every `period` (4) pulses through the damage pipeline
  as affect damage (cause `status`: no type rules, so it sets no one else burning), for
  `duration` (48) pulses, refreshed when reapplied; ended by cold harm (R-COLD-1), by
  entering or falling into water (R-TERR-3).
- R-STAT-2 Sluggish d: no ticks; its wait and evasion terms are read by the lag and to-hit
  rules (`affray.systems.rules.lag`, `tohit`); 48 pulses, refreshed.
- R-STAT-3 Corroded d: 2 hit points owed per degree, lost one at a time, evenly over the
  48 pulses from the last application, as raw damage (no protections).
- R-STAT-4 Poisoned d: d poison damage every 12 pulses through the pipeline, 120 pulses,
  refreshed.

Every change and every tick is an event: `status` (applied, ended) and `damage` with
cause `status` and the status's name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from affray.core.events import StatusChanged
from affray.systems.rules.damage import damage_hit
from affray.systems.rules.hit import Hit, VictimDeath
from affray.systems.rules.immunity import flags_of

if TYPE_CHECKING:
    from affray.core.world import World
    from affray.data.defs import StatusDef
    from affray.systems.rules.sheet import Sheet

# Affect damage carries the "other" flag: no spell, magic or weapon bit (R-DMG-3).
_AFFECT_FLAGS = flags_of(("other",))


def _corroded_period(status: StatusDef, owed: int) -> int:
    """R-STAT-3: the owed points spread evenly over the duration: one every
    duration/owed pulses (24/d for a fresh degree d), never less than one pulse."""
    return max(1, status.duration // max(1, owed))


def _schedule(world: World, sheet: Sheet, name: str) -> None:
    """Set the next tick of a status from now (ticking statuses only) and note when the
    world must next look at statuses."""
    status = world.content.statuses[name]
    statuses = sheet.statuses
    if status.hp_per_degree:
        statuses.next_tick[name] = world.pulse + _corroded_period(status,
                                                                  statuses.owed.get(name, 0))
    elif status.period > 0 and name not in statuses.next_tick:
        statuses.next_tick[name] = world.pulse + status.period
    world.afflicted.add(sheet.entity)
    due = min([statuses.ends[name], *statuses.next_tick.values()])
    if world.status_due is None or due < world.status_due:
        world.status_due = due


def apply_status(world: World, sheet: Sheet, name: str, degrees: int = 1) -> None:
    """Add `degrees` to a status (degrees stack) and refresh its duration; a `status`
    event (change `applied`) gives the new degree. A ticking status already running keeps
    its tick rhythm; a new one ticks first `period` pulses from now."""
    if not sheet.vitals.alive or degrees <= 0:
        return
    status = world.content.statuses[name]
    statuses = sheet.statuses
    degree = statuses.degrees.get(name, 0) + degrees
    statuses.degrees[name] = degree
    statuses.ends[name] = world.pulse + status.duration
    if status.hp_per_degree:
        statuses.owed[name] = statuses.owed.get(name, 0) + status.hp_per_degree * degrees
    _schedule(world, sheet, name)
    world.emit(StatusChanged(world.pulse, sheet.id, name, degree, "applied"))


def end_status(world: World, sheet: Sheet, name: str) -> bool:
    """End a status now (cold puts out burning, water does too): a `status` event with
    degree 0 and change `ended`. Returns False when the creature did not have it."""
    statuses = sheet.statuses
    if name not in statuses.degrees:
        return False
    for table in (statuses.degrees, statuses.ends, statuses.next_tick, statuses.owed):
        table.pop(name, None)
    if not statuses.degrees:
        world.afflicted.discard(sheet.entity)
    world.emit(StatusChanged(world.pulse, sheet.id, name, 0, "ended"))
    return True


def begin(world: World, sheet: Sheet) -> None:
    """Time the statuses a creature was created with (a scenario's `statuses`): each
    starts now, as if just applied, without an event (nothing happened in the world)."""
    statuses = sheet.statuses
    for name, degree in list(statuses.degrees.items()):
        if name in statuses.ends:
            continue
        status = world.content.statuses[name]
        statuses.ends[name] = world.pulse + status.duration
        if status.hp_per_degree:
            statuses.owed[name] = status.hp_per_degree * degree
        _schedule(world, sheet, name)


def next_status_pulse(world: World) -> int | None:
    """The first pulse at or after now when some status ticks or ends; None if none."""
    return world.status_due


def tick_statuses(world: World) -> None:
    """The Pulse system's status step: every creature with a status, in spawn order, takes
    the ticks due now (in content order of statuses), then loses the statuses that end now.
    A tick that kills ends that creature's statuses (no event: the death says it)."""
    due = world.status_due
    if due is None or due > world.pulse:
        return
    sheets = world.sheets
    for entity in sorted(world.afflicted, key=lambda e: sheets[e].spawn.number):
        sheet = sheets[entity]
        if not sheet.vitals.alive:  # killed by something else since the last look
            _forget(world, sheet)
            continue
        try:
            _tick_one(world, sheet)
        except VictimDeath:
            _forget(world, sheet)
    _recompute_due(world)


def _forget(world: World, sheet: Sheet) -> None:
    """A dead creature's statuses end with it, without events (its death says it)."""
    statuses = sheet.statuses
    for table in (statuses.degrees, statuses.ends, statuses.next_tick, statuses.owed):
        table.clear()
    world.afflicted.discard(sheet.entity)


def _tick_one(world: World, sheet: Sheet) -> None:
    statuses = sheet.statuses
    pulse = world.pulse
    for name in [n for n in world.content.statuses if n in statuses.degrees]:
        status = world.content.statuses[name]
        if statuses.next_tick.get(name, pulse + 1) <= pulse:
            _tick(world, sheet, name, status)
        if name in statuses.ends and statuses.ends[name] <= pulse:
            end_status(world, sheet, name)


def _tick(world: World, sheet: Sheet, name: str, status: StatusDef) -> None:
    """One tick: damage through the pipeline (R-STAT-1, R-STAT-4) or one owed point of
    raw damage (R-STAT-3); then the next tick is scheduled."""
    statuses = sheet.statuses
    degree = statuses.degrees[name]
    if status.hp_per_degree:
        owed = statuses.owed.get(name, 0)
        if owed <= 0:
            statuses.next_tick.pop(name, None)
            return
        # One point a tick; more only when more is owed than pulses are left (over 24
        # degrees), so that every point owed is lost by the end: ceil(owed / pulses left).
        pulses_left = max(1, statuses.ends[name] - world.pulse + 1)
        points = -(-owed // pulses_left)
        statuses.owed[name] = owed - points
        if owed - points > 0:
            remaining = max(1, statuses.ends[name] - world.pulse)
            statuses.next_tick[name] = world.pulse + max(1, remaining // (owed - points))
        else:
            statuses.next_tick.pop(name, None)
        damage_type = world.content.damage_type(status.damage_type or "other") or "other"
        hit = Hit(source=None, victim=sheet, dam=points, damage_type=damage_type,
                  flags=_AFFECT_FLAGS, melee=False, cause="status", status=name,
                  unprotected=True)
        damage_hit(world, hit)
        return
    statuses.next_tick[name] = world.pulse + status.period
    damage_type = world.content.damage_type(status.damage_type or "other") or "other"
    hit = Hit(source=None, victim=sheet, dam=degree * status.damage_per_degree,
              damage_type=damage_type, flags=_AFFECT_FLAGS, melee=False, cause="status",
              status=name, unprotected=status.raw)
    damage_hit(world, hit)


def _recompute_due(world: World) -> None:
    """The earliest tick or end over every afflicted creature."""
    due: int | None = None
    sheets = world.sheets
    for entity in world.afflicted:
        statuses = sheets[entity].statuses
        for value in (*statuses.ends.values(), *statuses.next_tick.values()):
            if due is None or value < due:
                due = value
    world.status_due = due


def rebuild_status_index(world: World) -> None:
    """After a load: the afflicted set and the next due pulse, from the components, as
    an unsaved run holds them (R-ENG-3).

    The dead are afflicted too while they still carry statuses: a creature killed by
    anything but a status tick keeps its statuses until the next status look, which
    forgets them (`_forget`, no event). Leaving the dead out kept their statuses for good
    after a load. The due pulse is the earliest tick or end; a save that recorded the
    world's own due pulse (it can be earlier, after a status ended early) restores that
    one over it (`affray.data.save`).
    """
    world.afflicted = {entity for entity, sheet in world.sheets.items()
                       if sheet.statuses.degrees}
    _recompute_due(world)
