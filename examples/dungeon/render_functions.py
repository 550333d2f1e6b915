"""Drawing the game into a `tcod.console.Console` (80 x 24), and reading it back as text.

The screen: the map (52 x 17, top left) with the field of view (cells seen before are
drawn dim, without what stands on them), the sidebar (the hero's hp and mana, the mode,
the spells or the aim, the monsters in sight), one status line and the last lines of the
message log. What happened this turn is drawn over the map: the cells each cast reached
(`*` on empty cells), arcs and water strikes (the creatures they struck, on yellow and
blue), pushes (an arrow on the cell the creature was pushed from), cells that changed
(ice, melt, fire, a broken door, on a dim blue) and deaths (`x`; the corpse the engine
leaves is the item `%`).

The characters alone tell most of it without colour (headless mode prints `console_text`
and the tests read it); the backgrounds add the rest.
"""

from __future__ import annotations

from typing import Any

import tcod.console

from affray.display.replay import item_symbols

from game import HERO, Cell, Game
from input_handlers import AimHandler, Handler, SpellMenuHandler

WIDTH, HEIGHT = 80, 24
MAP_WIDTH, MAP_HEIGHT = 52, 17
SIDEBAR_X = 53
STATUS_Y = 17
LOG_Y, LOG_LINES = 18, 6

RGB = tuple[int, int, int]
BLACK: RGB = (0, 0, 0)
WHITE: RGB = (255, 255, 255)
GREY: RGB = (150, 150, 150)
# terrain code (world.grid.terrain) -> glyph, colour in sight, colour remembered
TERRAIN: dict[int, tuple[str, RGB, RGB]] = {
    0: (".", (130, 130, 120), (55, 55, 60)),
    1: ("#", (190, 170, 130), (80, 70, 60)),
    2: ("~", (70, 130, 255), (30, 50, 100)),
    3: ("_", (200, 240, 255), (80, 100, 110)),
}
DOORS: dict[str, tuple[str, RGB]] = {"shut": ("+", (200, 140, 60)),
                                     "open": ("'", (200, 140, 60)),
                                     "broken": ("/", (150, 100, 50))}
FIRE: tuple[str, RGB] = ("^", (255, 110, 30))
CHEST: tuple[str, RGB] = ("=", (200, 160, 80))
ITEM_COLOUR: RGB = (230, 210, 90)
CREATURE_COLOURS: dict[str, RGB] = {"@": WHITE, "k": (210, 130, 70), "K": (230, 90, 230),
                                    "g": (90, 200, 90), "o": (230, 70, 70)}
CAST_BG: RGB = (110, 40, 0)
AIM_BG: RGB = (0, 70, 110)
CURSOR_BG: RGB = (180, 180, 0)
ARC_BG: RGB = (160, 160, 0)
WATER_BG: RGB = (0, 60, 200)
CHANGED_BG: RGB = (60, 60, 110)
DEATH: tuple[str, RGB] = ("x", (255, 40, 40))  # killed here this turn (a corpse is `%`)
# A push, drawn on the cell it came from, pointing the way it went.
ARROWS: dict[tuple[int, int], str] = {
    (1, 0): "→", (-1, 0): "←", (0, 1): "↓", (0, -1): "↑",
    (1, 1): "↘", (-1, 1): "↙", (1, -1): "↗", (-1, -1): "↖",
}


def render(console: tcod.console.Console, game: Game, handler: Handler) -> None:
    """The whole screen for this game and mode."""
    console.clear()
    snapshot = game.snapshot
    draw_terrain(console, game)
    draw_turn(console, game, snapshot)
    draw_things(console, game, snapshot)
    draw_creatures(console, game, snapshot)
    draw_deaths(console, game, snapshot)
    if isinstance(handler, AimHandler):
        draw_aim(console, game, handler)
    draw_sidebar(console, game, handler, snapshot)
    console.print(0, STATUS_Y, game.status[:WIDTH], fg=(255, 220, 120))
    for row, line in enumerate(game.log[-LOG_LINES:]):
        console.print(0, LOG_Y + row, line[:WIDTH], fg=GREY if row < LOG_LINES - 1 else WHITE)


def console_text(console: tcod.console.Console) -> list[str]:
    """The characters of the screen, one string a row (trailing blanks dropped)."""
    return ["".join(chr(code) for code in row).rstrip() for row in console.ch]


# -- the map ------------------------------------------------------------------------------
def draw_terrain(console: tcod.console.Console, game: Game) -> None:
    """The terrain seen now, or remembered (dim)."""
    terrain = game.world.grid.terrain
    visible, explored = game.visible, game.explored
    height, width = terrain.shape
    for y in range(min(height, MAP_HEIGHT)):
        for x in range(min(width, MAP_WIDTH)):
            if not explored[y, x]:
                continue
            glyph, lit, dim = TERRAIN.get(int(terrain[y, x]), TERRAIN[0])
            console.print(x, y, glyph, fg=lit if visible[y, x] else dim)


def draw_things(console: tcod.console.Console, game: Game, snapshot: dict[str, Any]) -> None:
    """Doors (remembered too), and the items, chests and fires in sight: over this
    turn's marks, which then show as their background."""
    explored, visible = game.explored, game.visible
    for door in snapshot["doors"]:
        x, y = door["at"]
        if explored[y, x]:
            glyph, colour = DOORS.get(door["state"], DOORS["shut"])
            console.print(x, y, glyph, fg=colour if visible[y, x] else _dim(colour))
    symbols = item_symbols(game.world)
    for item in snapshot["items"]:
        _put_seen(console, game, item["at"], symbols.get(item["item"], "*"), ITEM_COLOUR)
    for chest in snapshot["chests"]:
        _put_seen(console, game, chest["at"], *CHEST)
    for fire in snapshot["fires"]:
        _put_seen(console, game, fire["at"], *FIRE)


def _put_seen(console: tcod.console.Console, game: Game, at: list[int], glyph: str,
              colour: RGB) -> None:
    x, y = at
    if game.visible[y, x] and x < MAP_WIDTH and y < MAP_HEIGHT:
        console.print(x, y, glyph, fg=colour)


def _dim(colour: RGB) -> RGB:
    return (colour[0] // 3, colour[1] // 3, colour[2] // 3)


def _occupied(snapshot: dict[str, Any]) -> set[Cell]:
    return {tuple(c["at"]) for c in snapshot["creatures"].values()  # type: ignore[misc]
            if c["alive"]}


def draw_turn(console: tcod.console.Console, game: Game, snapshot: dict[str, Any]) -> None:
    """This turn's casts, changed cells and pushes, under the creatures."""
    turn, occupied = game.turn, _occupied(snapshot)
    for x, y in turn.changed:
        console.bg[y, x] = CHANGED_BG
    for x, y in turn.cast_cells:
        console.bg[y, x] = CAST_BG
        if (x, y) not in occupied:
            console.print(x, y, "*", fg=(255, 160, 60), bg=CAST_BG)
    for (fx, fy), (tx, ty) in turn.pushes:
        step = ((tx > fx) - (tx < fx), (ty > fy) - (ty < fy))
        if (fx, fy) not in occupied:
            console.print(fx, fy, ARROWS.get(step, "*"), fg=WHITE)


def draw_creatures(console: tcod.console.Console, game: Game,
                   snapshot: dict[str, Any]) -> None:
    """The living creatures in sight, arcs and water strikes of this turn behind them."""
    arcs, water = set(game.turn.arcs), set(game.turn.water)
    for creature in snapshot["creatures"].values():
        x, y = creature["at"]
        if not creature["alive"] or not game.visible[y, x]:
            continue
        glyph = creature["glyph"]
        bg = ARC_BG if (x, y) in arcs else WATER_BG if (x, y) in water else None
        console.print(x, y, glyph, fg=CREATURE_COLOURS.get(glyph, WHITE), bg=bg)


def draw_deaths(console: tcod.console.Console, game: Game, snapshot: dict[str, Any]) -> None:
    occupied = _occupied(snapshot)
    for x, y in game.turn.deaths:
        if (x, y) not in occupied:
            console.print(x, y, *DEATH)


def draw_aim(console: tcod.console.Console, game: Game, aim: AimHandler) -> None:
    """The preview at the cursor: the cells the cast would reach (`*` where nobody
    stands), the cursor (`X` on an empty cell), and on blue the creatures the water
    would carry an electricity cast to."""
    preview = aim.preview()
    occupied = _occupied(game.snapshot)
    if isinstance(preview, dict):
        for x, y in preview["cells"]:
            console.bg[y, x] = AIM_BG
            if (x, y) not in occupied:
                console.print(x, y, "*", fg=(120, 200, 255), bg=AIM_BG)
        for creature_id in preview["water"]:
            x, y = game.at(creature_id)
            console.bg[y, x] = WATER_BG
    x, y = aim.cursor
    console.bg[y, x] = CURSOR_BG
    if aim.cursor not in occupied:
        console.print(x, y, "X", fg=BLACK, bg=CURSOR_BG)


# -- the sidebar ------------------------------------------------------------------------------
def draw_sidebar(console: tcod.console.Console, game: Game, handler: Handler,
                 snapshot: dict[str, Any]) -> None:
    hero = snapshot["creatures"][HERO]
    lines: list[tuple[str, RGB]] = [
        (f"hero  level {hero['level']}", WHITE),
        (f"HP {hero['hp']:>4}/{hero['max_hp']}", _hp_colour(hero)),
        (f"MP {hero['mana']:>4}/{hero['max_mana']}", (120, 160, 255)),
        (f"Pulse {snapshot['pulse']}  round {snapshot['pulse'] // 12}", GREY),
        (_condition(hero), (255, 180, 120)),
        (f"Mode: {handler.title}", (255, 220, 120)),
        ("", WHITE),
    ]
    if isinstance(handler, AimHandler):
        lines += _aim_lines(game, handler)
    else:
        lines += _spell_lines(game, handler)
        lines += [("", WHITE), *_seen_lines(game, snapshot)]
    for row, (text, colour) in enumerate(lines[:STATUS_Y]):
        console.print(SIDEBAR_X, row, text[:WIDTH - SIDEBAR_X], fg=colour)


def _hp_colour(creature: dict[str, Any]) -> RGB:
    share = creature["hp"] / max(1, creature["max_hp"])
    return (120, 230, 120) if share > 0.5 else (240, 200, 60) if share > 0.25 else (240, 60, 60)


def _condition(hero: dict[str, Any]) -> str:
    if not hero["alive"]:
        return "DEAD"
    parts = [f"fighting {hero['fighting']}"] if hero["fighting"] else []
    parts += [f"{name} {degree}" for name, degree in hero["statuses"].items()]
    parts += [name for name in hero["affects"] if name in ("stun", "weak_stun", "held")]
    return ", ".join(parts)


def _spell_lines(game: Game, handler: Handler) -> list[tuple[str, RGB]]:
    choosing = isinstance(handler, SpellMenuHandler)
    if not game.spells():
        return [("No spells.", GREY)]
    lines: list[tuple[str, RGB]] = [("Cast which spell? (Esc)" if choosing else "Spells (f):",
                                     WHITE)]
    mana = game.hero["mana"]
    for number, spell in enumerate(game.spells()[:9], 1):
        cost = game.spell_cost(spell)
        colour = (WHITE if choosing else GREY) if cost <= mana else (100, 100, 100)
        lines.append((f"{number} {spell.replace('_', ' '):<16}{cost:>3}", colour))
    return lines


def _seen_lines(game: Game, snapshot: dict[str, Any]) -> list[tuple[str, RGB]]:
    seen = [(creature_id, c) for creature_id, c in snapshot["creatures"].items()
            if c["alive"] and creature_id != HERO and game.visible[c["at"][1], c["at"][0]]]
    lines: list[tuple[str, RGB]] = [("In sight:" if seen else "Nothing in sight.", WHITE)]
    for creature_id, c in seen:
        lines.append((f"{c['glyph']} {creature_id:<9}{c['hp']:>4}/{c['max_hp']}",
                      CREATURE_COLOURS.get(c["glyph"], WHITE)))
    return lines


def _aim_lines(game: Game, aim: AimHandler) -> list[tuple[str, RGB]]:
    """What the preview says: where, how many cells, whom it strikes, and whom the water
    would carry the cast to (the hero too, when it stands in that water)."""
    x, y = aim.cursor
    target = aim.target
    lines: list[tuple[str, RGB]] = [
        (f"At [{x}, {y}]" + (f": {target}" if isinstance(target, str) else ""), WHITE),
    ]
    preview = aim.preview()
    if isinstance(preview, str):
        return [*lines, ("Cannot cast there:", (240, 60, 60)),
                *[(part, (240, 60, 60)) for part in _wrap(preview, WIDTH - SIDEBAR_X)],
                ("", WHITE), ("Move: hjklyubn  Esc", GREY)]
    count = len(preview["cells"])
    lines.append((f"Reaches {count} cell{'s' if count != 1 else ''}", WHITE))
    lines += [(part, WHITE) for part in
              _wrap("Strikes: " + (", ".join(preview["struck"]) or "nobody"),
                    WIDTH - SIDEBAR_X)]
    if preview["water"]:
        lines.append(("Water carries it to:", (90, 160, 255)))
        lines += [(f"  {who} (YOU!)" if who == HERO else f"  {who}", (90, 160, 255))
                  for who in preview["water"]]
    lines += [("", WHITE), ("Enter/f: fire  Esc: cancel", GREY)]
    return lines


def _wrap(text: str, width: int) -> list[str]:
    import textwrap

    return textwrap.wrap(text, width) or [""]
