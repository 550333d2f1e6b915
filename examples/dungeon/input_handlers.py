"""Input handlers, as the python-tcod tutorial builds them: one class per mode, each
taking a key and returning the handler for the next key (itself, another, or None to
quit). Keys are plain names ("h", "S", "1", "enter", "escape", "up"...), whatever they
came from: a tcod window's events, a terminal's bytes, or `--keys` (`parse_keys`).
"""

from __future__ import annotations

from typing import Any

import affray

from game import Cell, Game

# Movement keys: vi keys and the arrows (the diagonals: y u b n).
MOVES: dict[str, tuple[int, int]] = {
    "h": (-1, 0), "j": (0, 1), "k": (0, -1), "l": (1, 0),
    "y": (-1, -1), "u": (1, -1), "b": (-1, 1), "n": (1, 1),
    "left": (-1, 0), "down": (0, 1), "up": (0, -1), "right": (1, 0),
}
CONFIRM = frozenset({"enter", "f"})


class Handler:
    """A mode of play; `title` names it on screen."""

    title = ""

    def __init__(self, game: Game) -> None:
        self.game = game

    def handle(self, key: str) -> Handler | None:
        """The next handler after `key`; None quits."""
        self.game.status = ""
        if key == "q":
            return None
        if key == "S":
            if self.game.alive:
                self.game.save()
            else:
                self.game.status = "The dead save nothing: L loads your last save."
            return self
        if key == "L":
            self.game.load()
            return after_turn(self.game)
        return self.on_key(key)

    def on_key(self, key: str) -> Handler | None:
        return self


class MainHandler(Handler):
    """Walk, attack by walking into a foe, open doors, wait, start a cast."""

    title = "exploring"

    def on_key(self, key: str) -> Handler | None:
        game = self.game
        if key in MOVES:
            game.step(*MOVES[key])
        elif key == ".":
            game.wait()
        elif key == "f":
            if not game.spells():
                game.status = "hero knows no spell."
                return self
            return SpellMenuHandler(game)
        return after_turn(game)


class SpellMenuHandler(Handler):
    """`f`: pick a spell from the hero's list by its number."""

    title = "choose a spell"

    def on_key(self, key: str) -> Handler | None:
        if key == "escape":
            return MainHandler(self.game)
        spells = self.game.spells()
        if key.isdigit() and 1 <= int(key) <= min(9, len(spells)):
            return AimHandler(self.game, spells[int(key) - 1])
        self.game.status = f"Press 1-{min(9, len(spells))} for a spell, Escape to cancel."
        return self


class AimHandler(Handler):
    """Move the cursor; the screen draws the preview of the cast at it (the cells it
    would reach, whom it strikes, whom the water would carry it to); Enter/f fires."""

    def __init__(self, game: Game, spell: str) -> None:
        super().__init__(game)
        self.spell = spell
        self.cursor: Cell = self._first_aim()

    @property
    def title(self) -> str:  # type: ignore[override]
        return f"aiming {self.spell.replace('_', ' ')}"

    def _first_aim(self) -> Cell:
        """The nearest monster in sight, else the hero's own cell."""
        game = self.game
        hx, hy = game.hero["at"]
        seen = [tuple(c["at"]) for i, c in game.snapshot["creatures"].items()
                if c["alive"] and i != "hero" and game.visible[c["at"][1], c["at"][0]]]
        if not seen:
            return (hx, hy)
        return min(seen, key=lambda cell: (max(abs(cell[0] - hx), abs(cell[1] - hy)),
                                           cell[1], cell[0]))  # type: ignore[return-value]

    @property
    def target(self) -> str | Cell:
        """A creature under the cursor is the target (a bolt follows it), else the cell."""
        occupant = self.game.creature_at(self.cursor)
        return occupant if occupant is not None and occupant != "hero" else self.cursor

    def preview(self) -> dict[str, Any] | str:
        """`world.preview(..., reveal=True)`, or why the cast cannot be made there."""
        try:
            return self.game.world.preview("hero", self.spell, self.target, reveal=True)
        except affray.ActionError as error:
            return str(error).split(": ", 1)[-1]

    def on_key(self, key: str) -> Handler | None:
        game = self.game
        if key == "escape":
            return MainHandler(game)
        if key in MOVES:
            dx, dy = MOVES[key]
            height, width = game.world.grid.terrain.shape
            x, y = self.cursor
            self.cursor = (min(max(x + dx, 0), width - 1), min(max(y + dy, 0), height - 1))
            return self
        if key in CONFIRM:
            game.cast(self.spell, self.target)
            return after_turn(game) if not game.status else self
        return self


class GameOverHandler(Handler):
    """The hero is dead: load a save or quit."""

    title = "dead"

    def on_key(self, key: str) -> Handler | None:
        self.game.status = "You are dead. L loads your save, q quits."
        return self


def after_turn(game: Game) -> Handler:
    """The main mode, or the end when the hero died."""
    return MainHandler(game) if game.alive else GameOverHandler(game)


# -- keys from text: `--keys "llljjf"` -----------------------------------------------------
NAMED = {"enter": "enter", "return": "enter", "esc": "escape", "escape": "escape",
         "up": "up", "down": "down", "left": "left", "right": "right"}


def parse_keys(text: str) -> list[str]:
    """Each character is a key; `<enter>`, `<esc>` (and `<up>`...) name the others, and
    a newline is Enter, ESC (\\x1b) Escape."""
    keys: list[str] = []
    index = 0
    while index < len(text):
        char = text[index]
        if char == "<" and ">" in text[index:]:
            name = text[index + 1:text.index(">", index)].lower()
            if name in NAMED:
                keys.append(NAMED[name])
                index += len(name) + 2
                continue
        keys.append({"\n": "enter", "\r": "enter", "\x1b": "escape"}.get(char, char))
        index += 1
    return keys
