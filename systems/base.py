"""The base of every system: an esper Processor that is handed the World explicitly."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

import esper

if TYPE_CHECKING:
    from affray.world import World


class System(esper.Processor):
    """One step of the pulse (R-TIME-4). Subclasses implement `process(world)`."""

    name: ClassVar[str] = "system"
    rules: ClassVar[str] = ""

    def process(self, world: World) -> None:  # type: ignore[override]
        raise NotImplementedError
