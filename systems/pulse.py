"""Pulse: lag countdown, status ticks, then the action step: queued actions and minds.

Lag counts down first (R-LAG-1); then statuses tick and end (burning, poison, corroded:
`R-STAT-*`), before the actions, so a creature that steps into water this pulse has
already taken the pulse's burn; then the action step runs, in one spawn-order pass
(R-GRID-3), each free actor's first queued action (R-LAG-2) and, for a free creature
with a mind and nothing queued, what its mind chooses (R-MIND-1..7,
`affray.systems.rules.minds`): minds live inside this step, so the schedule keeps its
eight systems (R-TIME-4).

Reads and writes `world.lag` (wait, daze), `world.ready` and each ready actor's
`ActionQueue`; `world.afflicted`, `world.status_due` and the afflicted creatures'
`Statuses`; `world.minded` and each minded creature's `Mind` (memory, idle marks), with
the grid and `world.sight_cache` for sight and paths. The actions it runs (`rules.actions`)
move creatures (`Position`, the grid), start fights (`Combat`, `world.fighting`,
`world.fought_by`), strike (Vitals, through the blow pipeline) and hand casts to
`world.casts_due`; status ticks go through the damage pipeline.

`next_pulse` tells `World.run` when this system next has work, so idle pulses can be
jumped: the first queued action whose actor's wait runs out, the next status tick or
end (`next_status_pulse`), and the first pulse a mind may act (`minds.next_pulse`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from affray.systems.base import System
from affray.systems.rules import minds
from affray.systems.rules.actions import dispatch_ready
from affray.systems.rules.statuses import next_status_pulse, tick_statuses

if TYPE_CHECKING:
    from affray.core.world import World


def next_action_pulse(world: World) -> int | None:
    """The first pulse at which a queued action runs, or None when none is queued.

    A tick at pulse p counts wait down before it dispatches, so an actor whose wait is w
    now acts at p + max(w - 1, 0) (R-LAG-1, R-LAG-2). Daze holds no action: it only
    counts down, and a jump counts it down by the gap.
    """
    if not world.ready:
        return None
    wait = world.lag.wait
    slowest = min(int(wait[world.sheets[entity].creature.slot]) for entity in world.ready)
    return world.pulse + max(slowest - 1, 0)


class PulseSystem(System):
    """Counts wait and daze down (R-LAG-1) and runs queued actions at wait 0 (R-LAG-2)."""

    name = "Pulse"
    rules = ("R-LAG-1, R-LAG-2, R-TIME-1, R-STAT-1..4 (status ticks), R-MIND-1..7 "
             "(minds, in the action step)")

    def process(self, world: World) -> None:
        world.lag.count_down()
        due = world.status_due  # tick_statuses' own guard, read here to save its call
        if due is not None and due <= world.pulse:
            tick_statuses(world)  # R-STAT-1..4: ticks and ends due this pulse
        if world.ready or world.minded:
            dispatch_ready(world)  # queued actions and minds, in spawn order (R-MIND-1)

    def next_pulse(self, world: World) -> int | None:
        """The earliest of the next queued action, the next status tick and the next
        pulse a mind may act (minds.next_pulse)."""
        due = [pulse for pulse in (next_status_pulse(world),
                                   next_action_pulse(world) if world.ready else None,
                                   minds.next_pulse(world) if world.minded else None)
               if pulse is not None]
        return min(due) if due else None
