"""The terminal mode: the same console drawn with characters and ANSI colours (256), the
keys read from stdin in raw mode (termios). It runs wherever a terminal does: over ssh,
in tmux (`tmux send-keys` plays it, `tmux capture-pane -p` reads the screen).
"""

from __future__ import annotations

import os
import sys
import termios
import tty
from collections.abc import Callable, Iterator

import tcod.console

# Escape sequences of the keys the game knows beyond plain characters.
SEQUENCES = {"\x1b[A": "up", "\x1b[B": "down", "\x1b[C": "right", "\x1b[D": "left",
             "\x1bOA": "up", "\x1bOB": "down", "\x1bOC": "right", "\x1bOD": "left"}


def colour_code(rgb: tuple[int, int, int], ground: int) -> str:
    """The xterm-256 colour nearest an RGB triple (its 6x6x6 cube), as an SGR code:
    `ground` 38 for the foreground, 48 for the background."""
    r, g, b = (round(int(value) / 255 * 5) for value in rgb)
    return f"\x1b[{ground};5;{16 + 36 * r + 6 * g + b}m"


def frame(console: tcod.console.Console, colour: bool = True) -> str:
    """The console as one string for a terminal: home the cursor, each row, colours only
    where they change."""
    out = ["\x1b[H"]
    for y in range(console.height):
        last: tuple[bytes, bytes] | None = None
        for x in range(console.width):
            if colour:
                fg, bg = console.fg[y, x], console.bg[y, x]
                key = (fg.tobytes(), bg.tobytes())
                if key != last:
                    out.append("\x1b[0m" + colour_code(fg, 38) + colour_code(bg, 48))
                    last = key
            code = int(console.ch[y, x])
            out.append(chr(code) if code >= 32 else " ")
        out.append("\x1b[0m\x1b[K" + ("\r\n" if y < console.height - 1 else ""))
    return "".join(out)


def split_keys(data: str) -> Iterator[str]:
    """Raw terminal input as key names: Enter, Escape and the arrows named."""
    index = 0
    while index < len(data):
        for sequence, name in SEQUENCES.items():
            if data.startswith(sequence, index):
                yield name
                index += len(sequence)
                break
        else:
            char = data[index]
            yield {"\r": "enter", "\n": "enter", "\x1b": "escape", "\x03": "q"}.get(char, char)
            index += 1


def play(console: tcod.console.Console, draw: Callable[[], None],
         press: Callable[[str], bool]) -> None:
    """Draw, read keys, hand them to `press` (False: quit), until it quits."""
    if not sys.stdin.isatty():
        raise SystemExit("--terminal needs a terminal on stdin (try --headless --keys ...)")
    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    colour = "NO_COLOR" not in os.environ
    write = sys.stdout.write
    try:
        tty.setraw(fd)
        write("\x1b[?1049h\x1b[?25l\x1b[2J")  # the alternate screen, no cursor
        draw()
        write(frame(console, colour))
        sys.stdout.flush()
        while True:
            data = os.read(fd, 64).decode("utf-8", "replace")
            if not data:
                return
            for key in split_keys(data):
                if not press(key):
                    return
            draw()
            write(frame(console, colour))
            sys.stdout.flush()
    finally:
        write("\x1b[0m\x1b[?25h\x1b[?1049l")
        sys.stdout.flush()
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
