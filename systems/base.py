"""The base of every system: an esper Processor that is handed the World explicitly."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

import esper

if TYPE_CHECKING:
    from affray.core.world import World


class System(esper.Processor):
    """One step of the pulse (R-TIME-4). Subclasses implement `process(world)`."""

    name: ClassVar[str] = "system"
    rules: ClassVar[str] = ""
    # False for a system that only works on what an earlier step of the same pulse hands
    # it (the casts Spell resolved): its `next_pulse` is always None, so `World.run`
    # need not ask it when looking for the next busy pulse.
    own_pulses: ClassVar[bool] = True

    def process(self, world: World) -> None:  # type: ignore[override]
        raise NotImplementedError

    def next_pulse(self, world: World) -> int | None:
        """The first pulse, at or after `world.pulse`, at which this system has work to
        do; None when it has none until something else changes the world. `World.run`
        jumps idle pulses with it. The default says "this very pulse": a system that
        does not know better is never skipped."""
        return world.pulse
