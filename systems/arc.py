"""Arc: electricity carried on by arcs and water, first in, first out (R-ELEC-1..8).

For each electricity cast resolved this pulse (in `world.cast_records`), the strikes form
one queue, first in, first out (R-ELEC-8). The shape's own victims are at its head, struck
by the Spell system in spawn order. Walking the queue, each creature the cast HARMED
(R-TYPE-2):

1. floods its water body when it stands in water (R-ELEC-3): everyone standing in that
   body (R-GRID-5, the labels the Terrain system last computed, so terrain changed this
   pulse is seen from the next, R-TERR-4) and not yet struck is queued, in spawn order;
2. then, for a ray, bolt, touch or line only (a burst or a cone never arcs), rolls its
   arc (R-ELEC-1): one time in four (always when the caster has Conductor,
   R-IMM-8 / R-ELEC-6) the nearest creature beside it not yet struck (Euclidean nearest,
   ties to the earlier spawn, R-GRID-2) is queued.

A creature counts as struck from the moment it is queued, so each takes one hit per cast
(R-ELEC-4). Queued creatures are struck when their turn comes, at the cast's one roll, with
their own save (R-SAVE-10), no to-hit roll and no evasion; they may flood and arc in turn
(R-ELEC-2). Chain lightning (R-ELEC-5) takes its first jumps for certain (3..6 by the
caster's Willpower, `world.chain_lightning` in content) and each of its jumps reaches two
cells when nothing that blocks sight stands between; after those, a jump is one in four.

The rolls of the shape's own victims (their saves) are drawn before any arc's, since the
Spell system strikes them before this system walks the queue; the order of strikes is the
FIFO order above.

Reads: `world.cast_records`, `world.grid` (terrain, body labels, occupancy), sheets.
Writes: creature components through the damage pipeline; `record.strikes`; events.
"""

from __future__ import annotations

from itertools import repeat
from typing import TYPE_CHECKING

import numpy as np

from affray.core.collector import collector_paused
from affray.core.grid import Terrain
from affray.systems.base import System
from affray.systems.rules.flood import bulk_ready, strike_many
from affray.systems.rules.magic import strike
from affray.systems.rules.shapes import line_of_effect
from affray.systems.terrain import body_members

if TYPE_CHECKING:
    from affray.core.world import World
    from affray.systems.rules.casting import CastRecord
    from affray.systems.rules.sheet import Sheet

_WATER = int(Terrain.WATER)
# R-ELEC-1: only these shapes arc; a burst or a cone floods water (R-ELEC-3) and no more.
ARCING_SHAPES = frozenset(("ray", "bolt", "touch", "line"))
_ORTHOGONAL = ((1, 0), (-1, 0), (0, 1), (0, -1))
_DIAGONAL = ((1, 1), (-1, 1), (1, -1), (-1, -1))


def certain_jumps(world: World, caster: Sheet | None) -> int:
    """R-ELEC-5: clamp(base + (willpower - ref) // per, low, high); 3..6 by default."""
    config = world.content.world.chain_lightning
    willpower = caster.stats.willpower if caster is not None else config.willpower_ref
    jumps = config.base + (willpower - config.willpower_ref) // config.per
    return max(config.low, min(config.high, jumps))


def nearest_unstruck(world: World, cell: tuple[int, int], struck: set[int],
                     reach: int) -> int | None:
    """The nearest creature within Chebyshev `reach` of `cell` not yet struck: Euclidean
    distance first, then spawn order (R-GRID-2, R-GRID-3). At reach 2 (chain lightning)
    a creature counts only with line of effect to it (R-ELEC-5)."""
    grid = world.grid
    x, y = cell
    if reach == 1:
        return _nearest_beside(world, cell, struck)
    x0, x1 = max(0, x - reach), min(grid.width, x + reach + 1)
    y0, y1 = max(0, y - reach), min(grid.height, y + reach + 1)
    window = grid.occupant[y0:y1, x0:x1]
    ys, xs = np.nonzero(window)
    best: tuple[int, int, int] | None = None
    sheets = world.sheets
    for wy, wx in zip(ys.tolist(), xs.tolist(), strict=True):
        entity = int(window[wy, wx])
        cx, cy = wx + x0, wy + y0
        if entity in struck or (cx, cy) == cell:
            continue
        if not line_of_effect(grid, cell, (cx, cy)):  # reach 1 returned above
            continue
        key = ((cx - x) ** 2 + (cy - y) ** 2, sheets[entity].spawn.number, entity)
        if best is None or key < best:
            best = key
    return best[2] if best is not None else None


def _nearest_beside(world: World, cell: tuple[int, int], struck: set[int]) -> int | None:
    """Reach 1 without numpy: the four orthogonal neighbours are nearer than the four
    diagonal ones (R-GRID-2); within a ring, the earliest spawn wins (R-GRID-3)."""
    grid = world.grid
    occupant = grid.occupant
    width, height = grid.width, grid.height
    sheets = world.sheets
    x, y = cell
    for ring in (_ORTHOGONAL, _DIAGONAL):
        best: int | None = None
        best_spawn = 0
        for dx, dy in ring:
            nx, ny = x + dx, y + dy
            if 0 <= nx < width and 0 <= ny < height:
                entity = int(occupant[ny, nx])
                if entity and entity not in struck:
                    spawn = sheets[entity].spawn.number
                    if best is None or spawn < best_spawn:
                        best, best_spawn = entity, spawn
        if best is not None:
            return best
    return None


def spread(world: World, record: CastRecord) -> None:
    """Walk one electricity cast's strike queue (R-ELEC-8), striking as it goes."""
    sheets = world.sheets
    caster = sheets.get(record.caster)
    conductor = caster is not None and caster.has("conductor")
    chain = record.definition.chain
    arcs = record.definition.shape in ARCING_SHAPES  # R-ELEC-1: a burst or cone never arcs
    certain = certain_jumps(world, caster) if chain else 0
    reach = 2 if chain else 1
    jumps = 0
    arc_chance = world.content.world.arc_chance
    struck = {result.entity for result in record.strikes}
    # Queue entries: (entity, cause, resolved strike or None).
    queue: list[tuple[int, str, object]] = [(r.entity, r.cause, r) for r in record.strikes]
    flooded: set[int] = set()
    index = 0
    bulk_min = world.content.world.bulk_strike_min
    while index < len(queue):
        if queue[index][2] is None and queue[index][1] == "water":
            walk = _strike_flood_at_once(world, record, queue, index, bulk_min, struck,
                                         flooded, arcs and reach != 1)
            if walk is not None:  # the run struck at once: visit only those that may act
                todo, index = walk
                for entry in todo:
                    jumps = _visit(world, record, queue, entry, struck, flooded, arcs, reach,
                                   conductor, certain, arc_chance, jumps)
                continue
        index += 1
        jumps = _visit(world, record, queue, index - 1, struck, flooded, arcs, reach,
                       conductor, certain, arc_chance, jumps)


def _visit(world: World, record: CastRecord, queue: list, index: int, struck: set[int],
           flooded: set[int], arcs: bool, reach: int, conductor: bool, certain: int,
           arc_chance: float, jumps: int) -> int:
    """Queue entry `index`'s turn in the walk: struck now if not yet, then, when harmed,
    its flood and its arc (R-ELEC-3, R-ELEC-1); returns the jumps taken so far."""
    entity, cause, result = queue[index]
    sheet = world.sheets[entity]
    if result is None:
        if not sheet.vitals.alive:
            return jumps
        result = strike(world, record, sheet, cause)
    if not result.harmed:  # type: ignore[attr-defined]
        return jumps  # R-TYPE-2: no harm, no spread (and a chain ends here, R-ELEC-5)
    grid = world.grid
    x, y = sheet.position.x, sheet.position.y
    if grid.terrain[y, x] == _WATER:  # R-ELEC-3: the water carries it
        label = int(grid.body[y, x])
        if label and label not in flooded:
            flooded.add(label)
            joining = [m for m in body_members(world, label) if m not in struck]
            struck.update(joining)
            queue.extend(zip(joining, repeat("water"), repeat(None)))
    if not arcs:
        return jumps
    target = nearest_unstruck(world, (x, y), struck, reach)
    if target is None:
        return jumps
    # R-IMM-8: Conductor makes every arc happen; R-ELEC-5: chain lightning's certain
    # jumps; otherwise R-ELEC-1: one time in four.
    if conductor or jumps < certain or world.rng.chance(arc_chance):
        jumps += 1
        struck.add(target)
        queue.append((target, "arc", None))
    return jumps


def _strike_flood_at_once(world: World, record: CastRecord, queue: list, start: int,
                          bulk_min: int, struck: set[int], flooded: set[int],
                          arcs_far: bool) -> tuple[list[int], int] | None:
    """A flood queues its body's members together: strike that run at once when it is
    long enough and nothing in the cast needs the one-by-one path (`flood.bulk_ready`),
    filling in each entry's Strike. Returns the run's end and the entries of it the walk
    must still visit, in order (None: the run goes one by one). The others would do
    nothing in their turn, so the walk skips them: those dead before the run or not
    harmed (R-TYPE-2), and those harmed whose water is flooded already (R-ELEC-3) and
    who cannot arc: no arcing shape (R-ELEC-1), or no living unstruck creature beside
    them now (`arcs_far` False: reach 1; the struck set only grows, so none later)."""
    end = start
    while end < len(queue) and queue[end][2] is None and queue[end][1] == "water":
        end += 1
    if end - start < bulk_min:
        return None
    sheets, roster = world.sheets, world.roster
    entities = [entry[0] for entry in queue[start:end]]
    rows = roster.rows_of(np.array(entities, dtype=np.int64))
    alive = roster.alive[rows]  # the roster's: alive as the sheets say (roster.py)
    living_rows = rows[alive]
    living_at = (np.flatnonzero(alive) + start).tolist()
    living = [sheets[queue[i][0]] for i in living_at]
    if not living or not bulk_ready(world, record, living):
        return None
    strikes = strike_many(world, record, living, "water")
    arcs = record.definition.shape in ARCING_SHAPES
    may_act = _may_act(world, living_rows, strikes, struck, flooded, arcs, arcs_far)
    todo = []
    for i, result, act in zip(living_at, strikes, may_act, strict=True):
        if act:  # the walk reads no other entry of the run again
            queue[i] = (queue[i][0], "water", result)
            todo.append(i)
    return todo, end


def _may_act(world: World, rows: np.ndarray, strikes: list, struck: set[int],
             flooded: set[int], arcs: bool, arcs_far: bool) -> list[bool]:
    """Per struck creature of a run (its roster rows), whether its turn in the walk may
    do anything: it was harmed, and it stands outside flooded water or may arc (an
    arcing shape, and either a reach past 1 or a living, unstruck creature on one of
    its 8 neighbours), in numpy over the window that holds them."""
    grid, roster = world.grid, world.roster
    n = len(rows)
    harmed = np.fromiter([r.amount >= 1 for r in strikes], bool, n)
    xs, ys = roster.x[rows].astype(np.int64), roster.y[rows].astype(np.int64)
    labels = grid.body[ys, xs]
    on_flooded = (grid.terrain[ys, xs] == _WATER) & (labels > 0) & np.isin(
        labels, np.fromiter(flooded, np.int64, len(flooded)))
    if not arcs:
        could_arc = np.zeros(n, dtype=bool)
    elif arcs_far:
        could_arc = np.ones(n, dtype=bool)
    else:
        x0, y0 = max(0, int(xs.min()) - 1), max(0, int(ys.min()) - 1)
        x1, y1 = min(grid.width, int(xs.max()) + 2), min(grid.height, int(ys.max()) + 2)
        window = grid.occupant[y0:y1, x0:x1]
        struck_ids = np.fromiter(struck, np.int64, len(struck))
        open_ = (window != 0) & ~np.isin(window, struck_ids)
        padded = np.pad(open_, 1)
        near = np.zeros_like(open_)
        height, width = open_.shape
        for dx, dy in (*_ORTHOGONAL, *_DIAGONAL):
            near |= padded[1 + dy:1 + dy + height, 1 + dx:1 + dx + width]
        could_arc = near[ys - y0, xs - x0]
    return (harmed & (~on_flooded | could_arc)).tolist()  # type: ignore[no-any-return]


class ArcSystem(System):
    """Carries each electricity cast on through water and arcs (R-ELEC-1..8)."""

    name = "Arc"
    rules = "R-ELEC-1..8 (arcs and water spread, first in first out)"
    own_pulses = False  # it follows the casts of the same pulse (World.next_pulse)

    def process(self, world: World) -> None:
        for record in world.cast_records:
            if record.damage_type == "lightning":
                with collector_paused():  # a lake's strikes: thousands of new objects
                    spread(world, record)

    def next_pulse(self, world: World) -> int | None:
        """Arcs only follow casts, which the Spell step of the same pulse hands over."""
        return None
