"""The game's state and its turns, on top of affray's World.

One turn: the player's action is submitted, then the world runs until the hero is free
again (`world.run(until=("free", hero))`): the monsters' minds act, fights go on by
themselves, fires burn, all between two keys. What happened is read back from the
events since a mark (`world.events.mark()` / `since`) for the message log, and from a
listener (`world.on("*", ...)`) for what to draw this turn (the cells a cast reached,
arcs, water strikes, pushes, deaths), because a listener sees each pulse as it ends,
with the creatures where they stood then.

The game keeps a little state of its own beside the World: the cells the player has
seen (field of view, `tcod.map.compute_fov`), the message log and this turn's marks.
A save is the World's own save (`world.save`) plus that state as JSON; neither is
pickle.
"""

from __future__ import annotations

import json
import os
import textwrap
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import esper
import numpy as np
import tcod.constants
import tcod.map

import affray
from affray.components import Door, Position
from affray.display.text import render_events

HERO = "hero"
FOV_RADIUS = 10
ROUND_PULSES = 12  # R-TIME-2: a combat round (a fight's blows come every 12 pulses)
LOG_KEPT = 200
LOG_WIDTH = 80
# Events the log leaves out: the map shows every step, and a quiet dungeon is no news.
QUIET_KINDS = frozenset({"moved", "settled"})
# affray's terrain codes (world.grid.terrain, uint8): 0 floor, 1 wall, 2 water, 3 ice, 4 door.
WALL = 1

Cell = tuple[int, int]


@dataclass
class TurnMarks:
    """What happened during the last turn, drawn on the map for that turn only."""

    cast_cells: list[Cell] = field(default_factory=list)  # the cells each cast reached
    arcs: list[Cell] = field(default_factory=list)  # creatures an arc struck
    water: list[Cell] = field(default_factory=list)  # creatures the water struck
    pushes: list[tuple[Cell, Cell]] = field(default_factory=list)  # from, to
    changed: list[Cell] = field(default_factory=list)  # ice, melt, fire lit, door broken
    deaths: list[Cell] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TurnMarks:
        def cells(name: str) -> list[Cell]:
            return [(int(x), int(y)) for x, y in data.get(name, [])]

        return cls(cast_cells=cells("cast_cells"), arcs=cells("arcs"), water=cells("water"),
                   pushes=[((int(a[0]), int(a[1])), (int(b[0]), int(b[1])))
                           for a, b in data.get("pushes", [])],
                   changed=cells("changed"), deaths=cells("deaths"))


class Game:
    """A World, the hero in it, and what the player has seen and read."""

    def __init__(self, world: affray.World, save_dir: Path) -> None:
        self.save_dir = save_dir
        self.world = world
        self.explored = np.zeros(world.grid.terrain.shape, dtype=bool)
        self.visible = np.zeros_like(self.explored)
        self.log: list[str] = []
        self.turn = TurnMarks()
        self.status = ""  # one line for the player about the last key (not the log)
        self._listen(world)
        self.start()

    @classmethod
    def new(cls, scenario: Path, seed: int | None, save_dir: Path) -> Game:
        """A new game in a scenario (seed None: the scenario's own)."""
        return cls(affray.load_scenario(scenario, seed=seed), save_dir)

    # -- the world's pulses ------------------------------------------------------------
    def _listen(self, world: affray.World) -> None:
        """Listeners are code, never saved: subscribe again on every loaded world."""
        world.on("*", self._witness)

    def _witness(self, event: Any) -> None:
        """Called after each pulse for its events: note what to draw this turn."""
        kind, turn = event.kind, self.turn
        if kind == "cast":
            # The cast event does not carry the cells it reached; the Spell system's
            # records of the pulse that just ended do (affray.display.render reads them too).
            for record in self.world.cast_records:
                if record.caster_id == event.actor and record.spell == event.spell:
                    turn.cast_cells.extend((int(x), int(y)) for x, y in record.area)
        elif kind == "damage" and event.cause in ("arc", "water"):
            (turn.arcs if event.cause == "arc" else turn.water).append(self.at(event.target))
        elif kind == "pushed":
            turn.pushes.append((tuple(event.from_), tuple(event.to)))
        elif kind in ("terrain", "door_broken") or (kind == "fire" and event.change == "lit"):
            turn.changed.append(tuple(event.cell))
        elif kind == "death":
            turn.deaths.append(self.at(event.target))

    def at(self, creature_id: str) -> Cell:
        position = self.world.sheet(creature_id).position
        return (position.x, position.y)

    def start(self) -> None:
        """Run the world until the hero can first act (a scenario may begin mid-fight)."""
        mark = self.world.events.mark()
        self.world.run(until=("free", HERO))
        self._read(mark)

    # -- the hero --------------------------------------------------------------------
    @property
    def hero(self) -> dict[str, Any]:
        return self.snapshot["creatures"][HERO]  # type: ignore[no-any-return]

    @property
    def snapshot(self) -> dict[str, Any]:
        return self.world.snapshot()

    @property
    def alive(self) -> bool:
        return bool(self.hero["alive"])

    def spells(self) -> list[str]:
        """The hero's spell list: the spells among its skills, in the order learned
        (R-BOOK-1)."""
        learned = self.world.sheet(HERO).skills.learned
        return [name for name in learned if name in self.world.content.spells]

    def spell_cost(self, spell: str) -> int:
        return self.world.content.spells[spell].mana

    def creature_at(self, cell: Cell) -> str | None:
        """The living creature standing on a cell, if any."""
        for creature_id, creature in self.snapshot["creatures"].items():
            if creature["alive"] and tuple(creature["at"]) == cell:
                return str(creature_id)
        return None

    # -- turns -----------------------------------------------------------------------
    def step(self, dx: int, dy: int) -> None:
        """A movement key: walk, attack what stands there, or open a shut door."""
        x, y = self.hero["at"]
        cell = (x + dx, y + dy)
        occupant = self.creature_at(cell)
        if occupant is not None:
            self.attack(occupant)
        elif self._door(cell) == "shut":
            self.open_door(cell)
        elif self._door(cell) == "locked":
            self.status = f"The door at [{cell[0]}, {cell[1]}] is locked."
        else:
            self.act(affray.Move(actor=HERO, to=cell))
            if tuple(self.hero["at"]) == cell:
                self.status = self.items_here(cell)

    def items_here(self, cell: Cell) -> str:
        """"hero sees 2 scrolls here." for the floor stacks and chests on a cell (affray
        has no pick-up: items lie where they are, and area spells may ruin them)."""
        snapshot = self.snapshot
        names = [(item["item"], item["count"]) for item in snapshot["items"]
                 if tuple(item["at"]) == cell]
        names += [(chest["item"], 1) for chest in snapshot["chests"] if tuple(chest["at"]) == cell]
        if not names:
            return ""
        plural = self.world.content.items
        words = [(f"{count} {plural[name].plural or name + 's'}" if count > 1 else
                  f"{'an' if name[0] in 'aeiou' else 'a'} {name}").replace("_", " ")
                 for name, count in names]
        return f"hero sees {', '.join(words)} here."

    def attack(self, target: str) -> None:
        """Bumping a foe: attack it (or keep fighting it) for one round of blows. An
        Attack starts the fight; the blows then come every round by themselves."""
        mark = self.world.events.mark()
        if not self._submit(affray.Attack(actor=HERO, target=target)):
            return
        self.world.run(until=("free", HERO))  # the attack runs: the fight starts
        if self.alive and self.hero["fighting"] is not None:
            self.world.run(pulses=self._to_round_end())
            self.world.run(until=("free", HERO))
        self._read(mark)

    def cast(self, spell: str, target: str | Cell) -> None:
        self.act(affray.Cast(actor=HERO, spell=spell, target=target))

    def wait(self) -> None:
        """`.`: let a round go by (a fight's blows come by themselves)."""
        mark = self.world.events.mark()
        self.turn = TurnMarks()
        self.world.run(pulses=ROUND_PULSES)
        self.world.run(until=("free", HERO))
        self._read(mark)

    def act(self, action: affray.Move | affray.Cast) -> None:
        """Submit the hero's action and run the world until the hero is free again."""
        mark = self.world.events.mark()
        if self._submit(action):
            self.world.run(until=("free", HERO))
            self._read(mark)

    def _submit(self, action: Any) -> bool:
        """Submit, or say why not: an invalid action changes nothing (ActionError)."""
        self.turn = TurnMarks()
        try:
            self.world.submit(action)
        except affray.ActionError as error:
            self.status = _short(str(error))
            return False
        return True

    def _to_round_end(self) -> int:
        """Pulses to run so that the next round's blows (pulse divisible by 12) are in."""
        return (-self.world.pulse) % ROUND_PULSES + 1

    # -- doors: affray has no "open" action, so the game opens a door itself ----------
    def _door(self, cell: Cell) -> str | None:
        for door in self.snapshot["doors"]:
            if tuple(door["at"]) == cell:
                return "locked" if door["locked"] and door["state"] == "shut" else \
                    str(door["state"])
        return None

    def open_door(self, cell: Cell) -> None:
        """Open a shut door: its Door component and the grid's `shut` array together
        (what the save's check asks), and `grid.version` counted up, so the minds' cached
        fields of view see through it (affray.systems.rules.sight). Takes a step's time."""
        x, y = cell
        world = self.world
        world.enter()  # esper's storage of this world (docs/api.md "esper's current world")
        for _entity, (position, door) in esper.get_components(Position, Door):
            if (position.x, position.y) == cell and door.state == "shut":
                door.state = "open"
        world.grid.shut[y, x] = False
        world.grid.version += 1
        mark = world.events.mark()
        self.turn = TurnMarks()
        self.world.run(pulses=world.content.world.move_wait)
        self.world.run(until=("free", HERO))
        self._read(mark, first=f"hero opens the door at [{x}, {y}].")

    # -- after a turn ---------------------------------------------------------------------
    def _read(self, mark: Any, first: str | None = None) -> None:
        """The turn's events as player text in the log (affray.display.text), and the view."""
        events = self.world.events.since(mark)
        lines = [first] if first else []
        for event, line in zip(events, render_events(events), strict=True):
            if line is not None and event.kind not in QUIET_KINDS:
                lines.append(line)
        for line in lines:
            self.log.extend(textwrap.wrap(line, LOG_WIDTH - 1) or [""])
        del self.log[:-LOG_KEPT]
        self.update_fov()

    def update_fov(self) -> None:
        """What the hero sees now: walls and shut doors block sight (R-GRID-1)."""
        grid = self.world.grid
        transparency = (grid.terrain != WALL) & ~grid.shut
        x, y = self.hero["at"]
        self.visible = tcod.map.compute_fov(transparency, (y, x), radius=FOV_RADIUS,
                                            algorithm=tcod.constants.FOV_SYMMETRIC_SHADOWCAST)
        self.explored |= self.visible

    # -- save and load ----------------------------------------------------------------------
    @property
    def world_path(self) -> Path:
        return self.save_dir / "dungeon.save"

    @property
    def state_path(self) -> Path:
        return self.save_dir / "dungeon.json"

    def save(self) -> None:
        """The World's save (data, R-ENG-3) and the game's own state beside it."""
        state = {"pulse": self.world.pulse, "log": self.log, "turn": self.turn.to_json(),
                 "explored": ["".join("#" if seen else "." for seen in row)
                              for row in self.explored]}
        temporary = self.world_path.with_suffix(".save.tmp")
        try:
            self.save_dir.mkdir(parents=True, exist_ok=True)
            _write_atomically(self.state_path, json.dumps(state).encode())
            self.world.save(str(temporary))  # SaveError is an OSError too
            os.replace(temporary, self.world_path)
        except (OSError, affray.AffrayError) as error:
            self.status = _short(f"Cannot save: {error}")
            return
        self.status = f"Saved at pulse {self.world.pulse}."

    def load(self) -> None:
        """Back to the save: the world as it was (minds by name: the built-in ones load
        with no registration), the log, the map seen, the turn's marks."""
        if not self.world_path.exists() or not self.state_path.exists():
            self.status = "There is no save to load."
            return
        try:
            world = affray.load_world(str(self.world_path))
        except (affray.AffrayError, OSError) as error:
            self.status = _short(f"Cannot load: {error}")
            return
        try:
            log, turn, explored = _decode_state(
                json.loads(self.state_path.read_text(encoding="utf-8")), world)
        except (OSError, ValueError, KeyError, TypeError) as error:
            world.close()
            self.status = _short(f"Cannot load {self.state_path.name}: {error}")
            return
        self.world.close()
        self.world = world
        self._listen(world)
        self.log, self.turn, self.explored = log, turn, explored
        self.update_fov()
        self.status = f"Loaded the save of pulse {world.pulse}."


def _decode_state(state: Any, world: affray.World) -> tuple[list[str], TurnMarks, Any]:
    """The game's saved state, checked against the world saved with it (ValueError,
    KeyError or TypeError when it is not what `Game.save` wrote)."""
    if state["pulse"] != world.pulse:
        raise ValueError(f"it is of pulse {state['pulse']}, the world of pulse "
                         f"{world.pulse}: the two files are not one save")
    explored = np.array([[ch == "#" for ch in row] for row in state["explored"]], dtype=bool)
    if explored.shape != world.grid.terrain.shape:
        raise ValueError(f"its map is {explored.shape[::-1]}, the world's "
                         f"{world.grid.terrain.shape[::-1]}")
    return [str(line) for line in state["log"]], TurnMarks.from_json(state["turn"]), explored


def _write_atomically(path: Path, data: bytes) -> None:
    temporary = path.with_suffix(path.suffix + ".tmp")
    temporary.write_bytes(data)
    os.replace(temporary, path)


def _short(message: str, width: int = LOG_WIDTH - 1) -> str:
    return message if len(message) <= width else message[: width - 3] + "..."
