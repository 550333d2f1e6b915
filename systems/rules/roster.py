"""The creatures as numpy columns for minds: where each stands, its side, alive or not.

A mind looks at everything it sees; a crowd of minds, at thousands of creatures each
pulse. Reading each creature's components in Python costs more than the decision
itself, so the World keeps a `Roster`: one row per creature, by its lag slot
(`Creature.slot`, dense and in the order creatures came into the world, so rows are in
spawn order), holding its entity, cell, side (a small int per side name) and whether it
lives. It is written where the engine changes those: `World.add_creature`, `World.place`
(every step, push and flee), `damage.kill`, a load (`World.rebuild_views`), and
`World.touch` for a game that edited a creature by hand.

Entities grow with the slots (both are handed out in creation order), so an occupant's
entity finds its row by binary search (`rows_of`), with no array as large as the
largest entity id.

Reads and writes only itself; the World calls it.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from affray.systems.rules.sheet import Sheet


class Roster:
    """Per creature (row = lag slot): entity, x, y, side code, alive."""

    def __init__(self) -> None:
        self.count = 0
        self.entity = np.zeros(64, dtype=np.int64)
        self.x = np.zeros(64, dtype=np.int32)
        self.y = np.zeros(64, dtype=np.int32)
        self.side = np.zeros(64, dtype=np.int32)
        self.alive = np.zeros(64, dtype=bool)
        self.side_codes: dict[str, int] = {}
        self.monotonic = True  # entities increase with the rows (`rows_of` may bisect)

    def code(self, side: str) -> int:
        """The small int standing for a side name (given on first sight)."""
        code = self.side_codes.get(side)
        if code is None:
            code = self.side_codes[side] = len(self.side_codes)
        return code

    def _grow(self, size: int) -> None:
        if size <= len(self.entity):
            return
        new = max(size, 2 * len(self.entity))
        for name in ("entity", "x", "y", "side", "alive"):
            column = getattr(self, name)
            grown = np.zeros(new, dtype=column.dtype)
            grown[:len(column)] = column
            setattr(self, name, grown)

    def put(self, sheet: Sheet) -> None:
        """Write a creature's row (its slot), as it is now."""
        row = sheet.creature.slot
        self._grow(row + 1)
        if row >= self.count:
            if self.count and sheet.entity <= int(self.entity[self.count - 1]):
                self.monotonic = False
            self.count = row + 1
        self.entity[row] = sheet.entity
        self.x[row] = sheet.position.x
        self.y[row] = sheet.position.y
        self.side[row] = self.code(sheet.creature.side)
        self.alive[row] = sheet.vitals.alive

    def put_many(self, sheets: list[Sheet]) -> None:
        """`put` of each sheet in turn, the columns written at once when the rows are the
        next ones (a batch of newcomers, `World.add_creatures`): five numpy writes of one
        item per creature cost more than the rest of its row. The same columns, count,
        side codes (given in the same order), `monotonic` flag and capacity as the puts."""
        count = self.count
        if len(sheets) < 8 or any(sheet.creature.slot != row for row, sheet
                                  in enumerate(sheets, count)):
            for sheet in sheets:
                self.put(sheet)
            return
        end = count + len(sheets)
        capacity = len(self.entity)
        while capacity < end:  # as one put after another grows it
            capacity = max(capacity + 1, 2 * capacity)
        self._grow(capacity)
        entities = [sheet.entity for sheet in sheets]
        chain = ([int(self.entity[count - 1])] if count else []) + entities
        if any(later <= earlier for earlier, later in itertools.pairwise(chain)):
            self.monotonic = False
        self.count = end
        self.entity[count:end] = entities
        self.x[count:end] = [sheet.position.x for sheet in sheets]
        self.y[count:end] = [sheet.position.y for sheet in sheets]
        code = self.code
        self.side[count:end] = [code(sheet.creature.side) for sheet in sheets]
        self.alive[count:end] = [sheet.vitals.alive for sheet in sheets]

    def moved(self, sheet: Sheet) -> None:
        row = sheet.creature.slot
        self.x[row] = sheet.position.x
        self.y[row] = sheet.position.y

    def died(self, sheet: Sheet) -> None:
        self.alive[sheet.creature.slot] = False

    def rows_of(self, entities: np.ndarray) -> np.ndarray:
        """The rows of these creature entities (each must be a creature's)."""
        if self.monotonic:
            return np.searchsorted(self.entity[:self.count], entities)
        order = np.argsort(self.entity[:self.count], kind="stable")
        return order[np.searchsorted(self.entity[:self.count], entities, sorter=order)]


def rebuild_roster(sheets: dict[int, Sheet]) -> Roster:
    """A roster of these creatures (after a load)."""
    roster = Roster()
    for sheet in sorted(sheets.values(), key=lambda s: s.creature.slot):
        roster.put(sheet)
    return roster
