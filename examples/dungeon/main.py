"""A small roguelike on affray and python-tcod: `python examples/dungeon/main.py`.

    --headless --keys "llljjf"   play those keys, print the final screen as text
    --terminal                   play in this terminal (characters and ANSI colours)
    (neither)                    play in a tcod window (needs a display)

The game is deterministic for a seed (`--seed`, default the scenario's): the same keys
give the same screen. See README.md beside this file for the keys and the code's tour.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import tcod.console

from game import Game
from input_handlers import Handler, after_turn, parse_keys
from render_functions import HEIGHT, MAP_HEIGHT, MAP_WIDTH, WIDTH, console_text, render

HERE = Path(__file__).resolve().parent
SCENARIO = HERE / "dungeon.toml"
FONTS = ("/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf",
         "/usr/share/fonts/TTF/DejaVuSansMono.ttf",
         "/System/Library/Fonts/Menlo.ttc", "C:/Windows/Fonts/consola.ttf")


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="A small roguelike on affray.")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--headless", action="store_true",
                      help="no window: play --keys, then print the screen as text")
    mode.add_argument("--terminal", action="store_true",
                      help="play in the terminal (characters, ANSI colours, raw keys)")
    parser.add_argument("--seed", type=int, default=None,
                        help="the world's seed (default: the scenario's)")
    parser.add_argument("--keys", default="",
                        help='keys to play first, e.g. "llljjf" (<enter>, <esc> name those)')
    parser.add_argument("--save-dir", type=Path, default=Path.home() / ".affray-dungeon",
                        help="where S saves and L loads (default: ~/.affray-dungeon)")
    parser.add_argument("--scenario", type=Path, default=SCENARIO,
                        help="the dungeon (a scenario TOML with a creature 'hero')")
    return parser.parse_args(argv)


def mode_of(args: argparse.Namespace) -> str:
    """headless, terminal, or the window by default."""
    return "headless" if args.headless else "terminal" if args.terminal else "window"


class Session:
    """A game, its current input handler and the console it is drawn on."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.handler: Handler = after_turn(game)
        self.console = tcod.console.Console(WIDTH, HEIGHT, order="C")

    def press(self, key: str) -> bool:
        """One key; False when the player quits."""
        handler = self.handler.handle(key)
        if handler is None:
            return False
        self.handler = handler
        return True

    def play(self, keys: Sequence[str]) -> bool:
        """Keys in order; False when one of them quit."""
        return all(self.press(key) for key in keys)

    def draw(self) -> None:
        render(self.console, self.game, self.handler)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    import affray

    try:
        game = Game.new(args.scenario, args.seed, args.save_dir)
    except affray.AffrayError as error:
        print(f"dungeon: {error}", file=sys.stderr)
        return 1
    height, width = game.world.grid.terrain.shape
    if width > MAP_WIDTH or height > MAP_HEIGHT:
        print(f"dungeon: {args.scenario}: the map is {width} x {height} cells; the screen "
              f"shows {MAP_WIDTH} x {MAP_HEIGHT}", file=sys.stderr)
        return 1
    session = Session(game)
    going = session.play(parse_keys(args.keys))
    mode = mode_of(args)
    if mode == "headless":
        session.draw()
        print("\n".join(console_text(session.console)))
        return 0
    if not going:
        return 0
    if mode == "terminal":
        import terminal

        terminal.play(session.console, session.draw, session.press)
        return 0
    return play_window(session)


def play_window(session: Session) -> int:
    """The tcod window: draw, wait for keys, until the window closes or `q`."""
    import tcod.context
    import tcod.event
    import tcod.tileset

    font = next((path for path in FONTS if Path(path).exists()), None)
    if font is None:
        print("dungeon: no monospace font found for the window (tried "
              f"{', '.join(FONTS)}); use --terminal", file=sys.stderr)
        return 2
    tileset = tcod.tileset.load_truetype_font(font, 0, 18)
    try:
        context = tcod.context.new(columns=WIDTH, rows=HEIGHT, tileset=tileset,
                                   title="affray dungeon", vsync=True)
    except RuntimeError as error:
        print(f"dungeon: the window needs a display ({str(error).strip().splitlines()[-1]}); "
              "use --terminal or --headless", file=sys.stderr)
        return 2
    with context:
        while True:
            session.draw()
            context.present(session.console)
            for event in tcod.event.wait():
                if isinstance(event, tcod.event.Quit):
                    return 0
                key = key_of(event)
                if key is not None and not session.press(key):
                    return 0


def key_of(event: object) -> str | None:
    """A tcod key event as the game's key name (letters, digits, `.`, Enter, Escape,
    the arrows; Shift makes a capital)."""
    import tcod.event

    if not isinstance(event, tcod.event.KeyDown):
        return None
    sym = event.sym
    named = {tcod.event.KeySym.RETURN: "enter", tcod.event.KeySym.KP_ENTER: "enter",
             tcod.event.KeySym.ESCAPE: "escape", tcod.event.KeySym.UP: "up",
             tcod.event.KeySym.DOWN: "down", tcod.event.KeySym.LEFT: "left",
             tcod.event.KeySym.RIGHT: "right"}
    if sym in named:
        return named[sym]
    code = int(sym)
    if 32 < code < 127:
        shift = event.mod & (tcod.event.Modifier.LSHIFT | tcod.event.Modifier.RSHIFT)
        return chr(code).upper() if shift and chr(code).isalpha() else chr(code)
    return None


if __name__ == "__main__":
    sys.exit(main())
