"""Terrain: fires expire (R-TERR-1); water bodies are relabelled once per pulse after a
terrain change, and only then (R-GRID-5, R-TERR-4).

Reads and writes: `world.grid` (`dirty`, `body`, `labellings`), the `Fire` and
`WaterBody` entities; emits `fire` events (change `expired`). Runs last in the pulse
(R-TIME-4), so a freeze or a melt of this pulse is seen by electricity (the Arc system,
through `grid.body`) from the next pulse on, never half-way through a pulse.

Bodies: the label array `grid.body` is the truth. A body stays an entity (`WaterBody`,
its label) with its cells and members read from the grid when asked (`cells_of`,
`body_members`), so a relabel costs about one `scipy.ndimage.label` and no per-body work.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import esper
import numpy as np

from affray.components import Fire, Position, WaterBody
from affray.core.events import FireChanged
from affray.core.grid import bodies_of
from affray.systems.base import System

if TYPE_CHECKING:
    from affray.core.world import World

__all__ = ["TerrainSystem", "bodies_of", "body_members", "expire_fires", "relabel_water",
           "sync_bodies"]


def relabel_water(world: World) -> None:
    """Relabel the water bodies from the grid (scipy.ndimage.label, 8-connected).

    Bodies are numbered in scan order of their first cell. The body entities hold labels
    1..n: only the difference with the last count is created or deleted (each costs
    esper a cache clear, and a map can hold thousands), nothing else is touched.
    """
    _labels, count = world.grid.label_water()
    sync_bodies(count)


def sync_bodies(count: int) -> None:
    """Make the current context's body entities hold labels 1..count: create or delete
    only the difference (a fresh world built from an already labelled grid creates all)."""
    existing = esper.get_component(WaterBody)
    had = len(existing)
    if count < had:
        for entity, body in list(existing):
            if body.label > count:
                esper.delete_entity(entity, immediate=True)
    for label in range(had + 1, count + 1):
        esper.create_entity(WaterBody(label=label))


def body_members(world: World, label: int) -> list[int]:
    """The creatures standing in water body `label`, in spawn order (R-ELEC-3, R-GRID-3).

    Read from the grid's occupancy (the dead leave it), all in numpy: one mask over the
    map, the members' spawn numbers from a table by entity id, one argsort. A lake of
    10,000 creatures costs no Python loop over them.
    """
    if label <= 0:
        return []
    grid = world.grid
    occupants = grid.occupant[grid.body == label]
    occupants = occupants[occupants != 0]
    if len(occupants) == 0:
        return []
    spawns = spawn_table(world)[occupants]
    return occupants[np.argsort(spawns, kind="stable")].tolist()  # type: ignore[no-any-return]


def spawn_table(world: World) -> np.ndarray:
    """Spawn number by creature entity id (R-GRID-3), rebuilt when a creature is added
    (creatures are never removed: the dead stay). A transient attribute, never saved."""
    cached: tuple[int, np.ndarray] | None = getattr(world, "_spawn_table", None)
    if cached is not None and cached[0] == len(world.sheets):
        return cached[1]
    sheets = world.sheets
    table = np.zeros(max(sheets, default=0) + 1, dtype=np.int64)
    for entity, sheet in sheets.items():
        table[entity] = sheet.spawn.number
    world._spawn_table = (len(sheets), table)  # type: ignore[attr-defined]
    return table


def expire_fires(world: World) -> None:
    """Remove the fires whose time is up, in scan order of their cells (R-TERR-1)."""
    due = sorted((position.y, position.x, entity)
                 for entity, (position, fire) in esper.get_components(Position, Fire)
                 if fire.ends <= world.pulse)
    for y, x, entity in due:
        esper.delete_entity(entity, immediate=True)
        world.emit(FireChanged(world.pulse, (x, y), "expired"))


def next_fire_expiry(world: World) -> int | None:
    """The first pulse at or after now on which a fire expires, None without fires."""
    fires = esper.get_component(Fire)
    if not fires:
        return None
    return max(world.pulse, min(fire.ends for _entity, fire in fires))


class TerrainSystem(System):
    """Fires expire (R-TERR-1); bodies are relabelled after a terrain change (R-TERR-4)."""

    name = "Terrain"
    rules = "R-TERR-1, R-TERR-4, R-GRID-5"

    def process(self, world: World) -> None:
        if esper.get_component(Fire):
            expire_fires(world)
        if world.grid.dirty:
            relabel_water(world)

    def next_pulse(self, world: World) -> int | None:
        """Now when terrain changed since the last relabel, else the next fire expiry
        (None without fires): World.run's skipping of idle pulses."""
        if world.grid.dirty:
            return world.pulse
        return next_fire_expiry(world)
