"""What a mind gets to decide with: a read-only view of the world from one creature.

`MindView(world, sheet)` is built for each decision and works out only what is asked:
what the creature sees (R-MIND-2), its foes and allies among them (R-SIDE-1), walking
distances and steps (R-MIND-3, R-MIND-5), a spell's preview with the water it would
reach (R-MIND-6), the creature's spell list and mana (R-BOOK-1, R-BOOK-2), and the
world's generator (R-MIND-7). Creatures are `Seen` records (plain values), never the
components: a game's mind reads the world and returns an action; it changes nothing
but its own memory (`view.memory`, the creature's `Mind`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, NamedTuple, TypeVar, overload

import numpy as np

from affray.core.grid import NEIGHBOURS
from affray.systems.rules import sight as vision
from affray.systems.rules import walking
from affray.systems.rules.engagement import beside
from affray.systems.rules.minds import crowd, march

if TYPE_CHECKING:
    from affray.components import Mind
    from affray.core.world import World
    from affray.data.defs import MindDef
    from affray.systems.rules.sheet import Sheet

Cell = tuple[int, int]
_T = TypeVar("_T")


class cached_property(Generic[_T]):
    """`functools.cached_property` without its lock (Python 3.11 takes an RLock on every
    first read; a mind builds a view per decision and reads a dozen of these): the
    value is worked out on first read and kept in the instance's dict, which then wins
    over this non-data descriptor. A view is never shared between threads."""

    def __init__(self, function: Callable[[Any], _T]) -> None:
        self.function = function
        self.name = function.__name__
        self.__doc__ = function.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> cached_property[_T]: ...

    @overload
    def __get__(self, instance: object, owner: type | None = None) -> _T: ...

    def __get__(self, instance: object, owner: type | None = None) -> Any:
        if instance is None:
            return self
        value = instance.__dict__[self.name] = self.function(instance)
        return value
# Sight when a creature's mind is a game's (no `sight` trait): the built-in default.
DEFAULT_SIGHT = 8
_NO_ROWS = np.zeros(0, dtype=np.int64)
_NO_ROWS.flags.writeable = False


class Seen(NamedTuple):
    """A creature as a mind sees it."""

    id: str
    at: Cell
    side: str
    hp: int
    max_hp: int
    fighting: str | None
    player: bool
    spawn: int


def seen_of(sheet: Sheet) -> Seen:
    position = sheet.position
    return Seen(sheet.id, (position.x, position.y), sheet.creature.side, sheet.vitals.hp,
                sheet.vitals.max_hp, sheet.combat.fighting, sheet.creature.player,
                sheet.spawn.number)


class MindView:
    """One creature's view of the world for one decision (module docstring)."""

    def __init__(self, world: World, sheet: Sheet, *,
                 side_look: object = march.UNASKED) -> None:
        self._world = world
        self._sheet = sheet
        if side_look is not march.UNASKED:
            # asked for already (march.advance), and asked once per decision
            self.__dict__["_side_look"] = side_look
        name = sheet.mind.name
        self.content = world.content
        self.traits: MindDef | None = world.content.minds.get(name) if name else None
        self.pulse = world.pulse
        self.me = seen_of(sheet)
        # The farthest cell (Chebyshev) whose creatures this decision read; None once it
        # read beyond any reach (the whole map's crowd, a preview, mana) or drew: a
        # decision that did not is a fixed point while nothing in reach changes
        # (minds/rest.py).
        self.extent: int | None = 0
        # What this decision read from its side's look (crowd.py), by kind: the nearest
        # foe's distance, the foe it names (row, cell), all eight neighbouring cells
        # taken, or cut off from that foe within its walk window. `_outside`: it read
        # something else of the world (a field of view, a fight, a crowd's detour):
        # then `look_reads` is None.
        self._look_reads: dict[str, object] = {}
        self._outside = False

    def _reads(self, reach: int) -> None:
        self._outside = True
        self._extend(reach)

    def _extend(self, reach: int) -> None:
        if self.extent is not None and reach > self.extent:
            self.extent = reach

    def _reads_look(self, kind: str, value: object, reach: int) -> None:
        """A read of the side's look (or, for "hemmed", of the eight cells around it;
        for "cut_off", of those and the walk window's free patches): recorded, so that
        a rest can check it again (`look_reads`, `rest.look_still`)."""
        self._look_reads[kind] = value
        self._extend(reach)

    @cached_property
    def _side_look(self) -> crowd.Look | None:
        """Its side's look (crowd.py), asked once per decision: the others do not move
        while it decides."""
        world = self._world
        return crowd.look_of(world, world.roster.code(self.me.side))

    def look_reads(self) -> tuple[tuple[str, object], ...] | None:
        """What the decision read of the world beyond the creature itself and the
        terrain, when all of it came from the side's look (module crowd.py): (kind,
        value) pairs that `rest.look_still` reads again. None when it read anything
        else (or drew: `extent` None)."""
        if self._outside or self.extent is None:
            return None
        return tuple(self._look_reads.items())

    def _reads_all(self) -> None:
        self.extent = None

    # -- the creature itself ---------------------------------------------------------
    @property
    def memory(self) -> Mind:
        """The mind's own memory: `target`, `last_seen`, `fleeing`, `next_cast`, and
        `wake` (a pulse to be asked again at even if nothing happens)."""
        return self._sheet.mind

    @property
    def sight(self) -> int:
        return self.traits.sight if self.traits is not None else DEFAULT_SIGHT

    @property
    def round_pulse(self) -> bool:
        """A combat round falls due this pulse (R-TIME-2)."""
        return self.pulse % self._world.content.fight.round_pulses == 0

    @property
    def next_round(self) -> int:
        every = self._world.content.fight.round_pulses
        return (self.pulse // every + 1) * every

    def can_move(self) -> bool:
        """Not held or webbed (R-STAT-5)."""
        return not (self._sheet.has("held") or self._sheet.has("webbed"))

    # -- sight (R-MIND-2) ------------------------------------------------------------------
    @cached_property
    def _fov(self) -> vision.View:
        return vision.view_of(self._world, self._sheet.entity, self.me.at, self.sight)

    def sees(self, cell: Cell) -> bool:
        return self._fov.sees(cell)

    @cached_property
    def _seen_any_order(self) -> np.ndarray:
        """The roster rows of the living creatures it sees, itself left out, in no set
        order (rows are: `roster.py`): sorting the thousands a soldier in an army sees
        cost more than its decision, and most decisions ask only for its foes."""
        fov = self._fov
        self._reads(self.sight)
        height, width = fov.seen.shape
        roster = self._world.roster
        count = roster.count
        if fov.whole and count <= 2 * height * width:
            # seen whole (sight.field_of_view): everyone living in the window, read
            # from the roster's columns (fewer creatures than cells: the cheaper way)
            x, y = roster.x[:count], roster.y[:count]
            inside = (roster.alive[:count] & (x >= fov.x0) & (x < fov.x0 + width)
                      & (y >= fov.y0) & (y < fov.y0 + height))
            rows = np.flatnonzero(inside)  # in row order already
        else:
            occupant = self._world.grid.occupant[fov.y0:fov.y0 + height,
                                                 fov.x0:fov.x0 + width]
            rows = roster.rows_of(occupant[fov.seen & (occupant != 0)])
        return rows[rows != self._sheet.creature.slot]

    @cached_property
    def _seen_rows(self) -> np.ndarray:
        """`_seen_any_order` in spawn order (rows are in spawn order)."""
        return np.sort(self._seen_any_order)

    @cached_property
    def _foes_any_order(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """R-SIDE-1: (rows, x, y) of those it sees of another side, in no set order: the
        living of another side on the cells of its field of view, read from the grid's
        occupants and the roster's side of each entity, so that only the foes are
        gathered, not everyone it sees. Nothing, without a field of view, when no
        creature of another side stands in its sight window at all
        (`crowd.others_near`)."""
        world = self._world
        roster = world.roster
        if not crowd.others_near(world, self.me.side, self.me.at, self.sight):
            self._reads(self.sight)  # what looking would have read
            return _NO_ROWS, _NO_ROWS, _NO_ROWS
        fov = self._fov
        self._reads(self.sight)
        height, width = fov.seen.shape
        occupant = world.grid.occupant[fov.y0:fov.y0 + height, fov.x0:fov.x0 + width]
        codes = roster.side_of[occupant]  # 0: nobody; the dead leave the grid
        foes = (codes != 0) & (codes != roster.code(self.me.side) + 1)
        if not fov.whole:
            foes &= fov.seen
        ys, xs = np.nonzero(foes)
        rows = roster.row_of[occupant[ys, xs]].astype(np.int64)
        return rows, xs + fov.x0, ys + fov.y0

    @cached_property
    def _foe_cells(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """`_foes_any_order` in spawn order (rows are in spawn order)."""
        rows, xs, ys = self._foes_any_order
        order = np.argsort(rows)  # rows are distinct: no tie to keep
        return rows[order], xs[order], ys[order]

    @property
    def _foe_rows(self) -> np.ndarray:
        """R-SIDE-1: the rows of those it sees of another side, in spawn order."""
        return self._foe_cells[0]

    def _sheets_of(self, rows: np.ndarray) -> tuple[Sheet, ...]:
        sheets, entity = self._world.sheets, self._world.roster.entity
        return tuple(sheets[e] for e in entity[rows].tolist())

    @cached_property
    def _seen_sheets(self) -> tuple[Sheet, ...]:
        return self._sheets_of(self._seen_rows)

    @cached_property
    def seen(self) -> tuple[Seen, ...]:
        """Every living creature it sees, in spawn order."""
        return tuple(seen_of(s) for s in self._seen_sheets)

    @cached_property
    def foes(self) -> tuple[Seen, ...]:
        """R-SIDE-1: those it sees of another side."""
        return tuple(seen_of(s) for s in self._sheets_of(self._foe_rows))

    @cached_property
    def allies(self) -> tuple[Seen, ...]:
        side = self.me.side
        return tuple(s for s in self.seen if s.side == side)

    def sees_a_foe(self) -> bool:
        nearest = self._crowd_distance()
        if nearest is not False:
            return nearest is not None
        return len(self._foes_any_order[0]) > 0

    def _crowd_distance(self) -> int | bool | None:
        """The Chebyshev distance to its nearest foe in sight from the side's look
        (crowd.py), when no wall or shut door stands within its sight (it sees the whole
        window: every foe in it); None: no foe in sight; False: not answered so."""
        if "_foes_any_order" in self.__dict__:
            return False  # looked already: the foes are at hand
        look = self._side_look
        if look is None or not walking.open_window(self._world.grid, self.me.at, self.sight):
            return False
        distance = look.in_sight(*self.me.at, self.sight)
        self._reads_look("distance", distance, self.sight)
        return None if distance == crowd.FAR else distance

    def _foe_distances(self, any_order: bool = False) -> np.ndarray:
        """Chebyshev distance from it to each foe it sees (the `_foe_rows` order, or
        `_foes_any_order`'s)."""
        _rows, xs, ys = self._foes_any_order if any_order else self._foe_cells
        x, y = self.me.at
        return np.maximum(np.abs(xs - x), np.abs(ys - y))

    def nearest_foe(self) -> Seen | None:
        """R-MIND-3: the foe it sees nearest by walking distance, ties to the earlier
        spawn; None when it sees none or can reach none. (`nearest(self.foes)`, in numpy:
        one look-up of its own walk field at the foes' cells; the earliest spawn among
        the nearest is the least row, so the foes need no sorting.) On open ground, the
        side's look answers (crowd.py)."""
        crowded = self._crowd_nearest()
        if crowded is not False:
            return crowded  # type: ignore[return-value]
        rows, xs, ys = self._foes_any_order
        if not len(rows):
            return None
        roster = self._world.roster
        for whole in (False, True):
            field = self._walk("me", (self.me.at,), whole)
            if isinstance(field, walking.OpenField):  # nothing in the way: Chebyshev
                distances = self._foe_distances(any_order=True)
                best = int(rows[distances == distances.min()].min())
                return seen_of(self._world.sheets[int(roster.entity[best])])
            fx, fy = xs - field.x0, ys - field.y0
            height, width = field.dist.shape
            inside = (fx >= 0) & (fx < width) & (fy >= 0) & (fy < height)
            values = np.full(len(rows), walking.UNREACHED, dtype=np.int64)
            values[inside] = field.dist[fy[inside], fx[inside]]
            value = int(values.min())
            if value == walking.UNREACHED:
                if field.radius is None:
                    return None
                continue
            # exact for every foe in sight: a walk that leaves the window and comes back
            # to a foe `sight` cells off is at least 2W + 2 - sight long
            if field.radius is None or value <= 2 * field.radius + 1 - self.sight:
                best = int(rows[values == value].min())
                return seen_of(self._world.sheets[int(roster.entity[best])])
        return None

    def _crowd_nearest(self) -> Seen | bool | None:
        """`nearest_foe` from the side's look (crowd.py), when it has one and the window
        of its walk field has no wall or shut door in it (it sees every cell within its
        sight, and walks there as the crow flies): the least row within the distance
        of the nearest foe. False: not answered so."""
        world = self._world
        look = self._side_look
        if look is None or not walking.open_window(world.grid, self.me.at, self._reach):
            return False
        x, y = self.me.at
        distance = look.in_sight(x, y, self.sight)
        self._reads_look("distance", distance, self.sight)
        if distance == crowd.FAR:
            return None
        best = look.first_within(x, y, distance)
        seen = seen_of(world.sheets[int(world.roster.entity[best])])
        self._reads_look("nearest", (best, seen.at), self.sight)
        return seen

    def foes_beside(self) -> tuple[Seen, ...]:
        near = np.sort(self._foes_any_order[0][self._foe_distances(any_order=True) == 1])
        return tuple(seen_of(s) for s in self._sheets_of(near))

    def nearest_foe_cells(self) -> int | None:
        """The Chebyshev distance to its nearest foe in sight (None: none)."""
        nearest = self._crowd_distance()
        if nearest is not False:
            return nearest  # type: ignore[return-value]
        rows = self._foes_any_order[0]
        return int(self._foe_distances(any_order=True).min()) if len(rows) else None

    def creature(self, creature_id: str) -> Seen | None:
        """A creature it sees, by id (None when it does not see it or it is dead): one
        of `seen`, found by its id rather than by building them all."""
        self._reads(self.sight)  # what looking at everyone it sees records
        world = self._world
        entity = world.by_id.get(creature_id)
        sheet = world.sheets.get(entity) if entity is not None else None
        if sheet is None or sheet is self._sheet or not sheet.vitals.alive:
            return None
        position = sheet.position
        return seen_of(sheet) if self._fov.sees((position.x, position.y)) else None

    def foes_within(self, cells: int) -> tuple[Seen, ...]:
        """The foes it sees at most `cells` away (Chebyshev), in spawn order: `foes`
        less the farther ones, without building those."""
        rows = self._foes_any_order[0]
        if not len(rows):
            return ()
        near = np.sort(rows[self._foe_distances(any_order=True) <= cells])
        return tuple(seen_of(s) for s in self._sheets_of(near))

    # -- walking (R-MIND-3, R-MIND-5; systems/rules/walking.py) ----------------------------
    @cached_property
    def _reach(self) -> int:
        return max(2 * self.sight, 8)

    def _walk(self, key: str, roots: tuple[Cell, ...], whole: bool
              ) -> walking.Field | walking.OpenField:
        return walking.field(self._world, (self._sheet.entity, key, whole), roots,
                             self.me.at, None if whole else self._reach)

    def _value(self, key: str, roots: tuple[Cell, ...], cell: Cell
               ) -> tuple[walking.Field | walking.OpenField, int | None]:
        """The field from `roots` and its value at `cell` (within a step of the centre):
        the window's when exact, else the whole map's."""
        near = self._walk(key, roots, False)
        value = near.at(cell)
        if value is not None and near.exact(value):
            return near, value
        whole = self._walk(key, roots, True)
        return whole, whole.at(cell)

    def distance(self, target: str | Seen | Cell) -> int | None:
        """Walking distance through the terrain (creatures do not count: they block a
        step, not the way) from it to a creature's cell (1 when beside it) or to a
        cell; None when no walk reaches it."""
        cell = self._goal(target)
        if cell is None:
            return None
        _field, value = self._value("me", (self.me.at,), cell)
        if value is not None and not _field.exact(value):
            return None
        return value

    def step_toward(self, target: str | Seen | Cell | tuple[Seen, ...]) -> Cell | None:
        """The step toward a creature, a cell, or the nearest of several creatures
        (`walking.step_down`): to the first free neighbour, in R-GRID-2's order, of
        least walking distance to them, when that is nearer than where it stands; for
        one goal with a crowd in the way, the step round it (`walking.detour`). None
        when beside a creature goal already, at a cell goal, or no step brings it
        nearer."""
        goals = self._goals(target)
        if not goals:
            return None
        here = self.me.at
        if any(max(abs(x - here[0]), abs(y - here[1])) <= (0 if cell_goal else 1)
               for (x, y), cell_goal in goals):
            return None
        roots = tuple(cell for cell, _ in goals)
        field, value = self._value(f"goal{len(roots)}", roots, here)
        if value is None:
            return None
        around = field.around(here)
        if not all(v is None or field.exact(v) for v in around):
            field = self._walk(f"goal{len(roots)}", roots, True)
            value, around = field.at(here), field.around(here)
        grid = self._world.grid
        free = walking.free_around(grid, here)
        if not any(free):
            # hemmed in: no step (one ends on a free cell), no detour to look for
            self._reads_look("hemmed", True, 1)
            return None
        index = walking.step_down(around, free, value)
        if index is None and len(roots) == 1:
            whole = field.radius is None
            if whole:
                self._reads_all()
            index = walking.detour(grid, roots[0], here, None if whole else self._reach,
                                   free)
            if index is None and not whole and isinstance(field, walking.OpenField):
                # cut off from its one goal on open ground: it read the eight cells and
                # the window's free patches, which `rest.look_still` asks again
                self._reads_look("cut_off", self._reach, self._reach)
                return None
            if not whole:
                self._reads(self._reach)
        self._reads(1)
        return None if index is None else walking.neighbour(here, index)

    def _goal(self, target: str | Seen | Cell) -> Cell | None:
        if isinstance(target, Seen):
            return target.at
        if isinstance(target, str):
            seen = self.creature(target)
            return seen.at if seen is not None else None
        return int(target[0]), int(target[1])

    def _goals(self, target: str | Seen | Cell | tuple[Seen, ...]
               ) -> list[tuple[Cell, bool]]:
        """(cell, is a cell goal) for each goal: a creature is reached beside it, a cell
        on it (beside it when someone stands there: the cell a foe was last seen on may
        still hold it)."""
        if isinstance(target, tuple) and target and isinstance(target[0], Seen):
            return [(seen.at, False) for seen in target]  # type: ignore[union-attr]
        if isinstance(target, Seen | str):
            cell = self._goal(target)  # type: ignore[arg-type]
            return [] if cell is None else [(cell, False)]
        cell = self._goal(target)  # type: ignore[arg-type]
        if cell is None:
            return []
        return [(cell, not self.occupied(cell))]

    def occupied(self, cell: Cell) -> bool:
        """Someone other than itself stands on the cell."""
        self._reads(max(abs(cell[0] - self.me.at[0]), abs(cell[1] - self.me.at[1])))
        grid = self._world.grid
        return (cell != self.me.at and grid.in_bounds(*cell)
                and bool(grid.occupant[cell[1], cell[0]]))

    def nearest(self, candidates: tuple[Seen, ...]) -> Seen | None:
        """R-MIND-3: the candidate nearest by walking distance, ties to the earlier spawn
        (the candidates come in spawn order); None when none is reachable."""
        best: tuple[int, Seen] | None = None
        for seen in candidates:
            value = self.distance(seen)
            if value is not None and (best is None or value < best[0]):
                best = (value, seen)
        return None if best is None else best[1]

    def free_cells(self) -> list[Cell]:
        """The neighbouring cells it could step to, in R-GRID-2's order."""
        here = self.me.at
        self._reads(1)
        return [walking.neighbour(here, i)
                for i, open_ in enumerate(walking.free_around(self._world.grid, here))
                if open_]

    def away_cell(self) -> Cell | None:
        """R-MIND-5: the step away from the foes it sees (`walking.step_up`): the free
        neighbour farthest from them by walking distance, ties to fewer foes beside it,
        then R-GRID-2's order; never beside more foes than now, and only a step that
        leaves it better off. None when there is no such cell."""
        _rows, xs, ys = self._foe_cells
        if not len(xs):
            return None
        roots = tuple(zip(xs.tolist(), ys.tolist(), strict=True))  # (the foes' order)
        here = self.me.at
        self._reads(1)
        field = self._walk("away", roots, True)
        # Foes beside it or beside a neighbouring cell stand within 2 cells of it.
        dx, dy = xs - here[0], ys - here[1]
        close = (np.abs(dx) <= 2) & (np.abs(dy) <= 2)
        offsets = list(zip(dx[close].tolist(), dy[close].tolist(), strict=True))
        crowd = [_beside_count(offsets, ox, oy) for ox, oy in NEIGHBOURS]
        index = walking.step_up(field.around(here),
                                walking.free_around(self._world.grid, here),
                                field.at(here), crowd, _beside_count(offsets, 0, 0))
        return None if index is None else walking.neighbour(here, index)


    # -- fights it sees (R-MIND-4) --------------------------------------------------------------
    def fights_of_allies(self) -> tuple[Seen, ...]:
        """The foes fighting, or fought by, a creature of its side, in a fight it sees
        (it sees one of the two), in spawn order. Only the world's fighters
        (`World.fighting`) are looked at, not everyone it sees: a crowd marching to
        battle has thousands in sight and no fight among them."""
        world = self._world
        self._reads(self.sight + 1)  # (the foe of an ally stamps the ally: rest.py)
        if not world.fighting:
            return ()
        roster = world.roster
        # Each fight found has a living creature of another side in it, one it sees or
        # one beside an ally it sees (fighters stand beside each other, R-ACT-3): none
        # within sight + 1, no such fight, and no field of view is needed.
        if not crowd.others_near(world, self.me.side, self.me.at, self.sight + 1):
            return ()
        fighters = roster.rows_of(np.fromiter(world.fighting, np.int64, len(world.fighting)))
        seen = np.zeros(roster.count, dtype=bool)
        seen[self._seen_any_order] = True
        side = self.me.side
        found: dict[str, Seen] = {}
        for other in self._sheets_of(np.sort(fighters[seen[fighters]])):
            foe_id = other.combat.fighting
            if foe_id is None:
                continue
            foe = world.sheets.get(world.by_id[foe_id]) if foe_id in world.by_id else None
            if foe is None or not foe.vitals.alive:
                continue
            if other.creature.side == side and foe.creature.side != side:
                found[foe.id] = seen_of(foe)
            elif other.creature.side != side and foe.creature.side == side:
                found[other.id] = seen_of(other)
        return tuple(sorted(found.values(), key=lambda s: s.spawn))

    # -- spells (R-MIND-6, R-BOOK-1, R-BOOK-2) ------------------------------------------
    @cached_property
    def spells(self) -> tuple[str, ...]:
        """Its spell list (R-BOOK-1)."""
        from affray.systems.rules.spellbook import spell_list

        return spell_list(self._world.content, self._sheet)

    def can_cast(self, spell: str) -> bool:
        """In its spell list, and affordable when the world counts mana (R-BOOK-2)."""
        from affray.systems.rules.spellbook import mana_check

        self._reads_all()  # mana comes back pulse by pulse, with no event
        return spell in self.spells and mana_check(self._world, self._sheet, spell,
                                                   "mana") is None

    def preview(self, spell: str, target: str | Cell) -> dict[str, Any] | None:
        """What a cast would strike (`World.preview(..., reveal=True)`: the cells, the
        creatures the shape strikes and those the water would carry it to), None when
        the cast is not allowed (out of range, not castable now)."""
        from affray.core.errors import ActionError

        self._reads_all()
        try:
            return self._world.preview(self.me.id, spell, target, reveal=True)
        except ActionError:
            return None

    def ally_first_on_line(self, foe: Seen) -> bool:
        """The first creature on the line from it to `foe` (`shapes.line_cells`) is one of
        its own side: a ray or bolt aimed at that foe would strike that ally instead
        (R-SHAPE-1), so no preview can show a foe struck (R-MIND-6's cheap refusal: an
        archer behind its own ranks)."""
        from affray.systems.rules.shapes import line_cells

        world = self._world
        here = self.me.at
        steps = max(abs(foe.at[0] - here[0]), abs(foe.at[1] - here[1]))
        occupant = world.grid.occupant
        me = self._sheet.entity
        for x, y in line_cells(world.grid, here, foe.at, steps):
            entity = int(occupant[y, x])
            if entity and entity != me:
                return bool(world.sheets[entity].creature.side == self.me.side)
        return False

    def sides_of(self, ids: list[str]) -> list[str]:
        """The sides of these creatures (from a preview's lists)."""
        world = self._world
        self._reads_all()
        return [world.sheets[world.by_id[i]].creature.side for i in ids]

    # -- randomness (R-MIND-7) ----------------------------------------------------------
    def percent(self) -> int:
        """1..100 from the world's one generator."""
        self._reads_all()  # a draw: never a fixed point (minds/rest.py)
        return self._world.rng.percent()

    def chance(self, percent: int) -> bool:
        """True `percent` times in a hundred, from the world's generator."""
        self._reads_all()
        return self._world.rng.chance(percent)

    def is_beside(self, other: Seen) -> bool:
        return max(abs(other.at[0] - self.me.at[0]), abs(other.at[1] - self.me.at[1])) == 1


def _beside_count(offsets: list[tuple[int, int]], ox: int, oy: int) -> int:
    """How many of the foes at these offsets stand beside the cell at offset (ox, oy)."""
    return sum(1 for x, y in offsets if max(abs(x - ox), abs(y - oy)) == 1)


__all__ = ["MindView", "Seen", "beside"]
