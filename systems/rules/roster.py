"""The creatures as numpy columns for minds: where each stands, its side, alive or not.

A mind looks at everything it sees; a crowd of minds, at thousands of creatures each
pulse. Reading each creature's components in Python costs more than the decision
itself, so the World keeps a `Roster`: one row per creature, by its lag slot
(`Creature.slot`, dense and in the order creatures came into the world, so rows are in
spawn order), holding its entity, cell, side (a small int per side name) and whether it
lives. It is written where the engine changes those: `World.add_creature`, `World.place`
(every step, push and flee), `damage.kill`, a load (`World.rebuild_views`), and
`World.touch` for a game that edited a creature by hand.

An occupant's entity finds its row in `row_of` (`rows_of`) and its side in `side_of`,
tables indexed by entity id: one gather for the thousands of creatures a soldier in an
army sees, where a binary search cost as much as the rest of its decision. Entity ids
are esper's, handed out one after another to creatures, items, fires and water bodies
alike, so the tables are about as long as the entities ever made (4 bytes each).

It also counts the living of each side per block of 8x8 cells (`blocks`), so a mind can
tell at once that no creature of another side stands anywhere in its sight window
(`others_within`): a soldier marching among thousands of its own side then looks at no
field of view at all.

And it stamps each change: `changes[code]` counts the changes to the cells or lives of
a side's creatures (a step, a death), `total` every change (a creature written by
`put` counts for every side), so `others_stamp(code)` moves on exactly when the
creatures of the other sides may stand elsewhere than before: what the minds of one
side work out together from the others' cells holds while it stands
(minds/crowd.py).

Reads and writes only itself; the World calls it.
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from affray.systems.rules.sheet import Sheet


BLOCK_SHIFT = 3  # blocks of 8 x 8 cells
# What `put_many` reads of each sheet, in one C-level call.
_PUT_FIELDS = operator.attrgetter("creature.slot", "entity", "position.x", "position.y",
                                  "creature.side", "vitals.alive")


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
        self.row_of = np.full(64, -1, dtype=np.int32)  # by entity id: its row, -1 none
        self.side_of = np.zeros(64, dtype=np.int32)  # by entity id: side code + 1, 0 none
        # [side code, y >> BLOCK_SHIFT, x >> BLOCK_SHIFT]: the living creatures there
        self.blocks = np.zeros((1, 1, 1), dtype=np.int32)
        self.changes: list[int] = []  # by side code: steps and deaths of that side
        self.total = 0  # every change, `put` included

    def code(self, side: str) -> int:
        """The small int standing for a side name (given on first sight)."""
        code = self.side_codes.get(side)
        if code is None:
            code = self.side_codes[side] = len(self.side_codes)
            self.changes.append(0)
        return code

    def others_stamp(self, code: int) -> int:
        """A number that moves on whenever a creature of a side other than `code` may
        have changed its cell or died, or any creature was written (module docstring)."""
        return self.total - self.changes[code]

    def _grow(self, size: int) -> None:
        if size <= len(self.entity):
            return
        new = max(size, 2 * len(self.entity))
        for name in ("entity", "x", "y", "side", "alive"):
            column = getattr(self, name)
            grown = np.zeros(new, dtype=column.dtype)
            grown[:len(column)] = column
            setattr(self, name, grown)

    def _count(self, side: int, x: int, y: int, delta: int) -> None:
        """Add `delta` to the block count of `side` at cell (x, y)."""
        by, bx = y >> BLOCK_SHIFT, x >> BLOCK_SHIFT
        blocks = self.blocks
        sides, rows, columns = blocks.shape
        if side >= sides or by >= rows or bx >= columns:
            grown = np.zeros((max(side + 1, sides), max(by + 1, rows), max(bx + 1, columns)),
                             dtype=np.int32)
            grown[:sides, :rows, :columns] = blocks
            self.blocks = blocks = grown
        blocks[side, by, bx] += delta

    def _fit_entities(self, size: int) -> None:
        """Grow the tables by entity id (`row_of`, `side_of`) to `size` entries."""
        rows = np.full(size, -1, dtype=np.int32)
        rows[:len(self.row_of)] = self.row_of
        sides = np.zeros(size, dtype=np.int32)
        sides[:len(self.side_of)] = self.side_of
        self.row_of, self.side_of = rows, sides

    def _uncount(self, row: int) -> None:
        """Take a living row out of the block counts, where the roster has it."""
        self._count(int(self.side[row]), int(self.x[row]), int(self.y[row]), -1)

    def put(self, sheet: Sheet) -> None:
        """Write a creature's row (its slot), as it is now."""
        self.total += 1
        row = sheet.creature.slot
        self._grow(row + 1)
        if row >= self.count:
            self.count = row + 1
        elif self.alive[row]:
            self._uncount(row)  # written again (a touch): its old place uncounted
        entity = sheet.entity
        if entity >= len(self.row_of):
            self._fit_entities(max(entity + 1, 2 * len(self.row_of)))
        self.row_of[entity] = row
        self.entity[row] = entity
        x, y = sheet.position.x, sheet.position.y
        side = self.code(sheet.creature.side)
        self.side_of[entity] = side + 1
        self.x[row] = x
        self.y[row] = y
        self.side[row] = side
        alive = sheet.vitals.alive
        self.alive[row] = alive
        if alive:
            self._count(side, x, y, 1)

    def put_many(self, sheets: list[Sheet],
                 fields: list[tuple[int, int, int, int, str, bool]] | None = None) -> None:
        """`put` of each sheet in turn, the columns written at once when the rows are the
        next ones (a batch of newcomers, `World.add_creatures`): five numpy writes of one
        item per creature cost more than the rest of its row. The same columns, count,
        side codes (given in the same order), entity tables, block counts and capacity
        as the puts. `fields`: each sheet's (slot, entity, x, y, side, alive) as they are
        now, when the caller read them already (a spawn batch, while they were in the
        CPU's caches: read again at the batch's end, they cost more than the writes)."""
        count = self.count
        if len(sheets) < 8:
            for sheet in sheets:
                self.put(sheet)
            return
        self.total += 1  # (one change for the batch: the stamps only need to move on)
        rows_read = fields if fields is not None else map(_PUT_FIELDS, sheets)
        slots, entities, xs, ys, names, alive = zip(*rows_read, strict=True)
        end = count + len(sheets)
        if slots != tuple(range(count, end)):  # not the next rows: one by one
            for sheet in sheets:
                self.put(sheet)
            return
        capacity = len(self.entity)
        while capacity < end:  # as one put after another grows it
            capacity = max(capacity + 1, 2 * capacity)
        self._grow(capacity)
        size = len(self.row_of)
        if max(entities) >= size:
            for entity in entities:  # as one put after another grows the tables
                if entity >= size:
                    size = max(entity + 1, 2 * size)
            self._fit_entities(size)
        self.count = end
        for name in dict.fromkeys(names):  # codes given in first-seen order, as put gives
            self.code(name)
        sides = np.array(list(map(self.side_codes.__getitem__, names)), dtype=np.int64)
        rows = np.array(entities, dtype=np.int64)
        self.entity[count:end] = rows
        self.row_of[rows] = np.arange(count, end, dtype=np.int32)
        self.side_of[rows] = sides + 1
        self.x[count:end] = xs
        self.y[count:end] = ys
        self.side[count:end] = sides
        living = np.array(alive, dtype=bool)
        self.alive[count:end] = living
        if living.any():
            side = sides[living]
            by = self.y[count:end][living].astype(np.int64) >> BLOCK_SHIFT
            bx = self.x[count:end][living].astype(np.int64) >> BLOCK_SHIFT
            # the farthest corner first, so the counts grow once, then every one counted
            self._count(int(side.max()), int(bx.max()) << BLOCK_SHIFT,
                        int(by.max()) << BLOCK_SHIFT, 0)
            blocks = self.blocks
            flat = np.ravel_multi_index((side, by, bx), blocks.shape)
            blocks += np.bincount(flat, minlength=blocks.size).reshape(blocks.shape).astype(
                blocks.dtype)

    def moved(self, sheet: Sheet) -> None:
        row = sheet.creature.slot
        side = int(self.side[row])
        self.changes[side] += 1
        self.total += 1
        x, y = sheet.position.x, sheet.position.y
        if self.alive[row] and ((x ^ int(self.x[row])) | (y ^ int(self.y[row]))) >> BLOCK_SHIFT:
            self._uncount(row)  # into another block
            self.x[row], self.y[row] = x, y
            self._count(side, x, y, 1)
        else:
            self.x[row], self.y[row] = x, y

    def died(self, sheet: Sheet) -> None:
        row = sheet.creature.slot
        self.changes[int(self.side[row])] += 1
        self.total += 1
        if self.alive[row]:
            self._uncount(row)
        self.alive[row] = False

    def others_within(self, side: str, x0: int, y0: int, x1: int, y1: int) -> bool:
        """Whether a living creature of a side other than `side` may stand in the cells
        [x0, x1) x [y0, y1) (blocks overlapping them hold one); False: none does."""
        blocks = self.blocks[:, y0 >> BLOCK_SHIFT:((y1 - 1) >> BLOCK_SHIFT) + 1,
                             x0 >> BLOCK_SHIFT:((x1 - 1) >> BLOCK_SHIFT) + 1]
        counts = blocks.sum(axis=(1, 2))
        code = self.side_codes.get(side)
        if code is not None and code < len(counts):
            counts[code] = 0
        return bool(counts.any())

    def rows_of(self, entities: np.ndarray) -> np.ndarray:
        """The rows of these creature entities (each must be a creature's)."""
        return self.row_of[entities].astype(np.int64)


def rebuild_roster(sheets: dict[int, Sheet]) -> Roster:
    """A roster of these creatures (after a load)."""
    roster = Roster()
    for sheet in sorted(sheets.values(), key=lambda s: s.creature.slot):
        roster.put(sheet)
    return roster
