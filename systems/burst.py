"""Burst: the cell effects of casts (R-SHAPE-7) and force pushes.

R-FIRE-2 (fire melts ice), R-FIRE-3 (a fire burst lights its centre), R-COLD-2 (cold
freezes water and puts fires out), R-FORCE-2 (a force blast breaks shut doors on its effect cells),
R-FORCE-3 (and chests it reaches the hardness of), R-FORCE-4 (and thin ice), R-TERR-3
(whoever stands on ice that melts or shatters falls in), R-FORCE-1 (pushes).

Reads `world.cast_records` (what the Spell and Arc systems resolved this pulse: only
casts make records, so melee never does any of this, R-MELEE-8), `world.grid`
(`terrain`, `ice_cm`, `shut`, `occupant`), the creatures' sheets (position, vitals,
affects, statuses) and the cell entities (`Door`, `Fire`, `Ice`, `Chest`, with
`Position`). Writes the grid (through `set_terrain`, which marks the bodies stale for
the Terrain step, R-TERR-4), those entities, creatures' positions (`world.place`),
their Burning (ended) and wait (raised); emits `terrain`, `fire`, `door_broken`,
`chest_broken`, `fell_in`, `pushed`. Leaves `spilled_stacks(world)` (record index -> the stacks
a broken chest spilled) for FloorItemLoss, which must not expose them to that cast.

Order (decisions recorded in docs/decisions.md): records in cast order; within one, the
effect cells in scan order (y, then x), every effect of a cell before the next cell;
then the pushes, in spawn order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import esper

from affray.components import Chest, Door, Fire, Ice, Position, Spawn
from affray.core.events import ChestBroken, DoorBroken, FellIn, FireChanged, Pushed, TerrainChanged
from affray.core.grid import TERRAIN_NAMES, Terrain
from affray.systems.base import System
from affray.systems.rules.lag import raise_lag
from affray.systems.rules.shapes import sign
from affray.systems.rules.statuses import end_status

if TYPE_CHECKING:
    from affray.core.world import World
    from affray.systems.rules.casting import CastRecord
    from affray.systems.rules.sheet import Sheet

Cell = tuple[int, int]


def push_direction(position: Cell, source: Cell) -> Cell:
    """One cell straight away from `source` (R-FORCE-1 decision): the sign of dx and of
    dy, so a creature off the axes goes diagonally, one on an axis along it; (0, 0) when
    it stands on the source (it is not pushed)."""
    return sign(position[0] - source[0]), sign(position[1] - source[1])


class _CellEntities:
    """The cell entities of one kind by cell, gathered once per cast that needs them."""

    def __init__(self, kind: type) -> None:
        self.by_cell: dict[Cell, list[int]] = {}
        parts: tuple[Any, ...]
        for entity, parts in esper.get_components(Position, kind):
            position = parts[0]
            self.by_cell.setdefault((position.x, position.y), []).append(entity)

    def at(self, cell: Cell) -> list[int]:
        return self.by_cell.get(cell, [])


class CastEffects:
    """The cell effects and pushes of one resolved cast (one CastRecord)."""

    def __init__(self, world: World, record: CastRecord, index: int) -> None:
        self.world = world
        self.record = record
        self.index = index
        self.cause = record.caster_id
        self.kind = record.damage_type
        self.blast = record.definition.blast if self.kind == "energy" else 0
        self.ice: _CellEntities | None = None

    # -- entry ----------------------------------------------------------------------------
    def run(self) -> None:
        record = self.record
        cells = sorted(set(record.effect_cells), key=lambda cell: (cell[1], cell[0]))
        if self.kind == "fire":
            for cell in cells:
                self.melt(cell)  # R-FIRE-2
            if record.definition.shape == "burst" and record.centre is not None:
                self.light(record.centre)  # R-FIRE-3
        elif self.kind == "cold":
            fires = _CellEntities(Fire)
            for cell in cells:
                if self.world.grid.terrain[cell[1], cell[0]] == Terrain.WATER:
                    self.freeze(cell)  # R-COLD-2
                for entity in fires.at(cell):  # R-COLD-2: fires there go out
                    esper.delete_entity(entity, immediate=True)
                    self.world.emit(FireChanged(self.world.pulse, cell, "out", self.cause))
        elif self.kind == "energy":
            if self.blast > 0:
                self.blast_cells(cells)
            self.pushes()  # R-FORCE-1

    # -- terrain ----------------------------------------------------------------------------
    def _change(self, cell: Cell, after: Terrain, ice_cm: int = 0) -> None:
        grid = self.world.grid
        before = Terrain(int(grid.terrain[cell[1], cell[0]]))
        grid.set_terrain(cell[0], cell[1], after, ice_cm)  # marks bodies stale (R-TERR-4)
        self.world.emit(TerrainChanged(self.world.pulse, cell, TERRAIN_NAMES[before],
                                       TERRAIN_NAMES[after], self.cause))

    def melt(self, cell: Cell) -> None:
        """R-FIRE-2: ice melts to water; whoever stands on it falls in (R-TERR-3)."""
        if self.world.grid.terrain[cell[1], cell[0]] == Terrain.ICE:
            self.unfreeze(cell)

    def unfreeze(self, cell: Cell) -> None:
        """Ice turns to water (melted or shattered): drop its cause record, then the
        creature on it falls in."""
        if self.ice is None:
            self.ice = _CellEntities(Ice)  # once per cast: a big melt is one query
        for entity in self.ice.at(cell):
            esper.delete_entity(entity, immediate=True)
        self._change(cell, Terrain.WATER)
        occupant = int(self.world.grid.occupant[cell[1], cell[0]])
        if occupant:
            fall_in(self.world, self.world.sheets[occupant], cell, self.cause)

    def freeze(self, cell: Cell) -> int:
        """R-COLD-2 / R-TERR-2: water freezes to ice `ice_cm` thick (content); the cell
        records who froze it (an `Ice` entity beside its Position)."""
        thickness = self.world.content.world.ice_cm
        self._change(cell, Terrain.ICE, thickness)
        return esper.create_entity(Position(*cell), Ice(cause=self.cause,
                                                        pulse=self.world.pulse))

    def light(self, cell: Cell) -> None:
        """R-FIRE-3: a fire on the burst's centre for `fire_burst_pulses` (60 s); a fire
        already there burns on from now (one fire per cell, relit)."""
        world = self.world
        ends = world.pulse + world.content.world.fire_burst_pulses
        existing = _CellEntities(Fire).at(cell)
        if existing:
            fire = esper.component_for_entity(existing[0], Fire)
            fire.ends, fire.cause = max(fire.ends, ends), self.cause
        else:
            esper.create_entity(Position(*cell), Fire(ends=ends, cause=self.cause))
        world.emit(FireChanged(world.pulse, cell, "lit", self.cause))

    # -- blast (force only) ---------------------------------------------------------------------
    def blast_cells(self, cells: list[Cell]) -> None:
        """R-FORCE-2..4 on each effect cell (R-SHAPE-7: a burst's every cell, a line's
        last, a ray's, bolt's or touch's one, a cone's none): shut doors, chests, thin
        ice. A ray, bolt, touch or line does to its cell what a burst does to each of its
        cells (R-SHAPE-2, R-SHAPE-3), doors included (the R-FORCE-2 ruling)."""
        grid = self.world.grid
        doors = _CellEntities(Door)
        chests = _CellEntities(Chest)
        for cell in cells:
            for entity in doors.at(cell):
                self.break_door(entity, cell)
            spawned = sorted(chests.at(cell),
                             key=lambda e: esper.component_for_entity(e, Spawn).number)
            for entity in spawned:
                self.break_chest(entity, cell)
            # R-FORCE-4: thinner than 1 cm per 100 of the blast: ice_cm * 100 < blast.
            if (grid.terrain[cell[1], cell[0]] == Terrain.ICE
                    and int(grid.ice_cm[cell[1], cell[0]]) * 100 < self.blast):
                self.unfreeze(cell)

    def break_door(self, entity: int, cell: Cell) -> None:
        """R-FORCE-2: every shut door, however sturdy, locked or trapped; its trap is
        destroyed and strikes no one. Open and broken doors are left as they are."""
        door = esper.component_for_entity(entity, Door)
        if door.state != "shut":
            return
        trapped = door.trapped
        door.state, door.trapped, door.broken_by = "broken", False, self.cause
        self.world.grid.shut[cell[1], cell[0]] = False
        self.world.grid.changed_terrain()
        self.world.emit(DoorBroken(self.world.pulse, cell, trapped, self.cause))

    def break_chest(self, entity: int, cell: Cell) -> None:
        """R-FORCE-3: blast >= hardness breaks the chest (decision); its contents spill
        onto the cell as floor stacks, unexposed to this cast (FloorItemLoss skips them)."""
        chest = esper.component_for_entity(entity, Chest)
        if self.blast < chest.hardness:
            return
        esper.delete_entity(entity, immediate=True)
        self.world.emit(ChestBroken(self.world.pulse, cell, chest.item, self.cause))
        spilled = spilled_stacks(self.world).setdefault(self.index, set())
        for stack in chest.contents:
            spilled.add(self.world.add_item(stack.item, cell, stack.count))

    # -- pushes ------------------------------------------------------------------------------------
    def pushes(self) -> None:
        """R-FORCE-1: each creature the cast harmed by at least a third of its maximum hit
        points (amount * 3 >= max_hp), or by a critical, is knocked one cell away, in
        spawn order (R-GRID-3)."""
        world = self.world
        due: list[Sheet] = []
        for strike in self.record.strikes:
            sheet = world.sheets.get(strike.entity)
            if sheet is None or not sheet.vitals.alive or not strike.harmed:
                continue  # R-TYPE-2: no harm, no push; the dead are not pushed
            if strike.amount * 3 >= sheet.vitals.max_hp or strike.critical:
                due.append(sheet)
        for sheet in sorted(due, key=lambda s: s.spawn.number):
            self.push(sheet)

    def source_for(self, sheet: Sheet, at: Cell) -> Cell | None:
        """Away from a burst's centre, else from the caster; the creature at the centre
        is pushed from the caster, and a caster at its own burst's centre not at all."""
        record = self.record
        if record.centre is not None and at != record.centre:
            return record.centre
        if sheet.entity == record.caster:
            return None
        return record.origin

    def push(self, sheet: Sheet) -> None:
        world, grid = self.world, self.world.grid
        position = sheet.position
        at = (position.x, position.y)
        source = self.source_for(sheet, at)
        if source is None:
            return
        dx, dy = push_direction(at, source)
        if (dx, dy) == (0, 0):
            return
        x, y = at[0] + dx, at[1] + dy
        if sheet.has("held") or sheet.has("webbed"):  # R-STAT-5
            return
        if not grid.in_bounds(x, y) or grid.blocks(x, y) or grid.occupant[y, x]:
            return  # a cell that is not free stops the push
        world.place(sheet.entity, position, x, y)
        world.emit(Pushed(world.pulse, sheet.id, at, (x, y), self.cause))
        if grid.terrain[y, x] == Terrain.WATER:
            end_status(world, sheet, "burning")  # R-STAT-1: entering water


# The World attribute holding, for this pulse, record index -> the stacks a broken chest
# spilled (R-FORCE-3: unexposed to that cast). Set afresh by every Burst step.
SPILLED = "burst_spilled"


def spilled_stacks(world: World) -> dict[int, set[int]]:
    """This pulse's spilled stacks by cast-record index (empty before Burst has run)."""
    spilled: dict[int, set[int]] | None = getattr(world, SPILLED, None)
    if spilled is None:
        spilled = {}
        setattr(world, SPILLED, spilled)
    return spilled


def fall_in(world: World, sheet: Sheet, cell: Cell, cause: str | None) -> None:
    """R-TERR-3: it now stands in water: a `fell_in` event, its Burning ends, and its wait
    is raised to at least one combat round (`fall_in_wait`), as lag the cast put on it."""
    world.emit(FellIn(world.pulse, sheet.id, cell, cause))
    end_status(world, sheet, "burning")
    raise_lag(world, sheet, "wait", world.content.world.fall_in_wait, own=False)


class BurstSystem(System):
    """Cell effects of every cast resolved this pulse, then its pushes (see module doc)."""

    name = "Burst"
    rules = "R-FIRE-2/3, R-COLD-2, R-FORCE-1..4, R-TERR-3 (cell effects of casts)"
    own_pulses = False  # it follows the casts of the same pulse (World.next_pulse)

    def process(self, world: World) -> None:
        setattr(world, SPILLED, {})
        for index, record in enumerate(world.cast_records):
            CastEffects(world, record, index).run()

    def next_pulse(self, world: World) -> int | None:
        """None: cell effects follow a cast resolved in the same pulse, and the pulse a
        cast runs is reported by the Pulse system (World.run's skipping)."""
        return None


__all__ = ["BurstSystem", "CastEffects", "fall_in", "push_direction", "spilled_stacks"]
