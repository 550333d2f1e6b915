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

from functools import cached_property
from typing import TYPE_CHECKING, Any, NamedTuple

from affray.grid import NEIGHBOURS
from affray.systems.rules import sight as vision
from affray.systems.rules.engagement import beside

if TYPE_CHECKING:
    from affray.components import Mind
    from affray.defs import MindDef
    from affray.systems.rules.sheet import Sheet
    from affray.world import World

Cell = tuple[int, int]
# Sight when a creature's mind is a game's (no `sight` trait): the built-in default.
DEFAULT_SIGHT = 8


# The walking distance of a cell that no foe can reach: farther than any reachable one.
UNREACHABLE = 10**9


def _far(field: vision.Distances, cell: Cell) -> int:
    """The walking distance from the nearest root of `field` to `cell`."""
    value = field.at(cell)
    return UNREACHABLE if value is None else value


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

    def __init__(self, world: World, sheet: Sheet) -> None:
        self._world = world
        self._sheet = sheet
        name = sheet.mind.name
        self.traits: MindDef | None = world.content.minds.get(name) if name else None
        self.pulse = world.pulse
        self.me = seen_of(sheet)

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
    def _seen_sheets(self) -> tuple[Sheet, ...]:
        """The living creatures it sees, itself left out, in spawn order."""
        fov = self._fov
        height, width = fov.seen.shape
        occupant = self._world.grid.occupant[fov.y0:fov.y0 + height, fov.x0:fov.x0 + width]
        entities = occupant[fov.seen & (occupant != 0)].tolist()
        sheets = self._world.sheets
        me = self._sheet.entity
        found = [sheets[e] for e in entities if e != me]
        found.sort(key=lambda s: s.spawn.number)
        return tuple(found)

    @cached_property
    def seen(self) -> tuple[Seen, ...]:
        """Every living creature it sees, in spawn order."""
        return tuple(seen_of(s) for s in self._seen_sheets)

    @cached_property
    def foes(self) -> tuple[Seen, ...]:
        """R-SIDE-1: those it sees of another side."""
        side = self.me.side
        return tuple(s for s in self.seen if s.side != side)

    @cached_property
    def allies(self) -> tuple[Seen, ...]:
        side = self.me.side
        return tuple(s for s in self.seen if s.side == side)

    def creature(self, creature_id: str) -> Seen | None:
        """A creature it sees, by id (None when it does not see it or it is dead)."""
        return next((s for s in self.seen if s.id == creature_id), None)

    # -- walking (R-MIND-3) ------------------------------------------------------------
    @cached_property
    def _reach(self) -> int:
        return max(2 * self.sight, 8)

    def _field(self, whole: bool = False) -> vision.Distances:
        key = (self._sheet.entity, "whole" if whole else "near")
        return vision.distances_from(self._world, key, (self.me.at,),
                                    None if whole else self._reach)

    def distance(self, target: str | Seen | Cell) -> int | None:
        """Walking distance to a creature it sees (to stand beside it and strike: 1 when
        beside) or to a cell (to stand on it; to beside it when someone stands there, as
        on a creature's); None when no path."""
        cell, creature = self._goal(target)
        if cell is None:
            return None
        for whole in (False, True):
            field = self._field(whole)
            value = vision.to_creature(field, cell) if creature else field.at(cell)
            if value is not None and field.exact(value, cell):
                return value
        return None

    def step_toward(self, target: str | Seen | Cell) -> Cell | None:
        """The first step of a shortest path to a creature (to beside it) or a cell (to
        it; to beside it when someone stands there: the cell a foe was last seen on,
        R-MIND-3, may still hold it); None when beside it already, at the cell, or no
        path."""
        cell, creature = self._goal(target)
        if cell is None or cell == self.me.at:
            return None
        if creature and max(abs(cell[0] - self.me.at[0]), abs(cell[1] - self.me.at[1])) == 1:
            return None
        for whole in (False, True):
            field = self._field(whole)
            goal = vision.approach_cell(field, cell) if creature else cell
            if goal is None:
                continue
            value = field.at(goal)
            if value is None or not field.exact(value, goal):
                continue
            return vision.first_step(field, goal)
        return None

    def _goal(self, target: str | Seen | Cell) -> tuple[Cell | None, bool]:
        """(cell, walked to beside it): an id of a creature it sees, a creature's record
        (seen or not: one in a fight it sees), or a cell (beside it when taken)."""
        if isinstance(target, Seen):
            return target.at, True
        if isinstance(target, str):
            seen = self.creature(target)
            return (seen.at if seen is not None else None), True
        cell = (int(target[0]), int(target[1]))
        grid = self._world.grid
        taken = (cell != self.me.at and grid.in_bounds(*cell)
                 and bool(grid.occupant[cell[1], cell[0]]))
        return cell, taken

    def free_cells(self) -> list[Cell]:
        """The neighbouring cells it could step to, in R-GRID-2's order."""
        grid = self._world.grid
        x, y = self.me.at
        out = []
        for dx, dy in NEIGHBOURS:
            nx, ny = x + dx, y + dy
            if (grid.in_bounds(nx, ny) and not grid.blocks(nx, ny)
                    and not grid.occupant[ny, nx]):
                out.append((nx, ny))
        return out

    def away_cell(self) -> Cell | None:
        """R-MIND-5: the neighbouring free cell farthest by walking distance from the foes
        it sees (ties: fewer foes beside it, then R-GRID-2's order), and never one with
        more foes beside it than it has now. Distances are those of the world after the
        step: the cell it leaves is free for its foes to walk through. A step that leaves
        it no better off than it stands (no farther, and beside no fewer foes) is no
        flee; None when there is no cell that is better."""
        foes = self.foes
        if not foes:
            return None
        roots = tuple(f.at for f in foes)
        here = self.me.at
        field = vision.distances_from(self._world, (self._sheet.entity, "away"), roots,
                                      None, free=(here,))
        here_near = self._foes_beside(here, foes)
        standing = (-_far(field, here), here_near)
        best: tuple[tuple[int, int], Cell] | None = None
        for cell in self.free_cells():
            near = self._foes_beside(cell, foes)
            if near > here_near:
                continue
            key = (-_far(field, cell), near)
            if key < standing and (best is None or key < best[0]):
                best = (key, cell)
        return None if best is None else best[1]

    @staticmethod
    def _foes_beside(cell: Cell, foes: tuple[Seen, ...]) -> int:
        return sum(1 for f in foes if max(abs(f.at[0] - cell[0]), abs(f.at[1] - cell[1])) == 1)

    def foes_beside(self) -> tuple[Seen, ...]:
        return tuple(f for f in self.foes
                     if max(abs(f.at[0] - self.me.at[0]), abs(f.at[1] - self.me.at[1])) == 1)

    # -- fights it sees (R-MIND-4) --------------------------------------------------------------
    def fights_of_allies(self) -> tuple[Seen, ...]:
        """The foes fighting, or fought by, a creature of its side, in a fight it sees
        (it sees one of the two), in spawn order."""
        world = self._world
        side = self.me.side
        found: dict[str, Seen] = {}
        for other in self._seen_sheets:
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

        return spell in self.spells and mana_check(self._world, self._sheet, spell,
                                                   "mana") is None

    def preview(self, spell: str, target: str | Cell) -> dict[str, Any] | None:
        """What a cast would strike (`World.preview(..., reveal=True)`: the cells, the
        creatures the shape strikes and those the water would carry it to), None when
        the cast is not allowed (out of range, not castable now)."""
        from affray.errors import ActionError

        try:
            return self._world.preview(self.me.id, spell, target, reveal=True)
        except ActionError:
            return None

    def sides_of(self, ids: list[str]) -> list[str]:
        """The sides of these creatures (from a preview's lists)."""
        world = self._world
        return [world.sheets[world.by_id[i]].creature.side for i in ids]

    # -- randomness (R-MIND-7) ----------------------------------------------------------
    def percent(self) -> int:
        """1..100 from the world's one generator."""
        return self._world.rng.percent()

    def chance(self, percent: int) -> bool:
        """True `percent` times in a hundred, from the world's generator."""
        return self._world.rng.chance(percent)

    def is_beside(self, other: Seen) -> bool:
        return max(abs(other.at[0] - self.me.at[0]), abs(other.at[1] - self.me.at[1])) == 1


__all__ = ["MindView", "Seen", "beside"]
