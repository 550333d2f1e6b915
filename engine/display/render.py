"""Draw a world: ASCII for the terminal, PNG for docs and bug reports (`affray render`).

Both draw the same thing as the replay page (affray.display.replay): a *frame* (the snapshot
plus each ice cell's thickness) and each creature's fixed look (its glyph). Monsters are
drawn by their template's `glyph`, or its first letter (k kobold, o orc_brute);
players as `@`. A legend names every symbol on the map and every creature.

`--pulse N` draws the state at the end of pulse N (after its events), as the replay
page's "pulse N"; without it, the state as loaded.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from affray.core.errors import AffrayError, SaveError, ScenarioError
from affray.core.esper_context import keeps_esper_world
from affray.display.replay import PALETTE, creature_meta, frame_of, item_symbols

if TYPE_CHECKING:
    from affray.core.world import World

FIRE = "^"
CHEST = "="
CHANGED = "#1e88e5"  # the dashed outline of a cell that changed this pulse (as the page)
THICK_ICE_CM = 30  # drawn whiter from here on (PNG and page); the legend gives the range


# -- loading --------------------------------------------------------------------------------
@keeps_esper_world
def open_world(path: str | Path, seed: int | None = None) -> World:
    """A scenario file or a save (told apart by the save's JSON header line)."""
    from affray.data.save import load_world
    from affray.data.scenario import load_scenario

    path = Path(path)
    try:
        with path.open("rb") as handle:
            head = handle.read(32)
    except OSError as error:
        raise ScenarioError(f"{path}: cannot read: {error.strerror}") from None
    if head.lstrip().startswith(b"{"):
        if seed is not None:
            raise SaveError(f"{path}: a save keeps its generator's state: --seed cannot "
                            "re-seed it")
        return load_world(path)  # type: ignore[no-any-return]
    return load_scenario(path, seed=seed)


def run_to_end_of(world: World, pulse: int | None) -> None:
    """Run the world to the end of `pulse` (None: leave it as loaded)."""
    if pulse is None:
        return
    if pulse + 1 < world.pulse:
        raise ScenarioError(f"--pulse {pulse}: the world is already past it "
                            f"(it starts at pulse {world.pulse})")
    world.run(pulse + 1 - world.pulse)


# -- ASCII --------------------------------------------------------------------------------------
@keeps_esper_world
def render_ascii(world: World) -> str:
    """The map with everything on it, then a legend naming every symbol and creature."""
    frame = frame_of(world)
    return ascii_frame(world, frame, creature_meta(world))


def ascii_frame(world: World, frame: dict[str, Any], meta: dict[str, Any]) -> str:
    """The ASCII drawing of one frame (see `render_ascii`)."""
    rows = [list(row) for row in frame["map"]]
    symbols = item_symbols(world)
    marks: dict[str, str] = {}
    for item in frame.get("items", []):
        x, y = item["at"]
        rows[y][x] = symbols.get(item["item"], "*")
        marks.setdefault(rows[y][x], f"item ({item['item']})")
        if marks[rows[y][x]] != f"item ({item['item']})":
            marks[rows[y][x]] = "item"
    for chest in frame.get("chests", []):
        x, y = chest["at"]
        rows[y][x] = CHEST
        marks[CHEST] = "chest"
    for fire in frame.get("fires", []):
        x, y = fire["at"]
        rows[y][x] = FIRE
        marks[FIRE] = "fire"
    key = []
    for creature_id, sheet in frame["creatures"].items():
        glyph = meta.get(creature_id, {}).get("glyph", creature_id[0])
        x, y = sheet["at"]
        if sheet["alive"]:
            rows[y][x] = glyph
        statuses = "".join(f", {name} {degree}" for name, degree in sheet["statuses"].items())
        key.append(f"  {glyph} {creature_id:<12} hp {sheet['hp']}/{sheet['max_hp']}"
                   f"{'' if sheet['alive'] else ' (dead)'} at [{x}, {y}]{statuses}")
    ice = [cm for _x, _y, cm in frame.get("ice_cm", [])]
    terrain = []
    for symbol, name in world.legend.items():
        if any(symbol in row for row in frame["map"]) and symbol not in marks:
            label = name.replace("_", " ")
            if name == "ice" and ice:
                label += f" ({min(ice)}-{max(ice)} cm)" if min(ice) != max(ice) \
                    else f" ({ice[0]} cm)"
            terrain.append(f"{symbol} {label}")
    overlay = [f"{symbol} {label}" for symbol, label in marks.items()]
    head = f"{world.name or 'world'} - {pulse_label(frame['pulse'])}"
    legend = "  ".join(terrain + overlay)
    return "\n".join([head, *("".join(row) for row in rows), f"legend: {legend}", *key])


def pulse_label(frame_pulse: int) -> str:
    """"end of pulse N" for the frame after N + 1 pulses; "start" for frame 0."""
    return "start" if frame_pulse == 0 else f"end of pulse {frame_pulse - 1}"


# -- PNG ------------------------------------------------------------------------------------------
LEGEND_ROW_PX = 20  # one legend entry's height in the PNG, in pixels
LEGEND_COLUMN_PX = 250  # one legend column's width
LEGEND_MIN_WIDTH_PX = 500  # a narrow map's PNG is widened to this, so its legend reads
LEGEND_CREATURES = 60  # creatures listed by name; past this, "... and N more"


def png_path(path: str | Path) -> Path:
    """Where `render --png` writes: the path as given when it ends in `.png` (any
    case), else that name with `.png` added (`--png picture` writes `picture.png`,
    as matplotlib would, and says so); the file is always a PNG."""
    path = Path(path)
    return path if path.suffix.lower() == ".png" else path.with_name(path.name + ".png")


@keeps_esper_world
def render_png(world: World, path: str | Path, cell: int = 32) -> Path:
    """Draw the world as the replay page draws it, into a PNG (needs `affray[png]`):
    with the last pulse's casts, hits, arcs, pushes, changed cells and deaths over it,
    each creature's id under its glyph, and a legend of every symbol below the map.
    Returns the path written (`png_path`)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        from matplotlib import pyplot as plt
    except ImportError:
        raise AffrayError("render --png needs matplotlib: pip install 'affray[png]'") from None
    figure = png_figure(world, cell)
    target = png_path(path)
    figure.savefig(target, dpi=figure.dpi, format="png")
    plt.close(figure)
    return target


def png_figure(world: World, cell: int = 32) -> Any:
    """The matplotlib figure `render_png` saves: a title band (0.7 cell high), the map
    (`cell` pixels a cell, from the top-left corner) and the legend under it."""
    from matplotlib import patches
    from matplotlib import pyplot as plt

    frame = frame_of(world)
    meta = creature_meta(world)
    height, width = len(frame["map"]), len(frame["map"][0]) if frame["map"] else 0
    events, casts = _last_pulse_events(world), _last_pulse_casts(world)
    entries = _legend_entries(world, frame, meta, events, casts)
    dpi = 100
    map_w, map_h, title_h = max(1, width) * cell, max(1, height) * cell, 0.7 * cell
    figure_w = max(map_w, LEGEND_MIN_WIDTH_PX)
    columns = max(1, figure_w // LEGEND_COLUMN_PX)
    legend_h = (-(-len(entries) // columns)) * LEGEND_ROW_PX + 12
    figure_h = title_h + map_h + legend_h
    figure = plt.figure(figsize=(figure_w / dpi, figure_h / dpi), dpi=dpi)
    axes = figure.add_axes((0, legend_h / figure_h, map_w / figure_w, map_h / figure_h))
    axes.set_xlim(0, max(1, width))
    axes.set_ylim(max(1, height), 0)
    axes.set_axis_off()
    _draw_map(axes, world, frame, cell, patches)
    _draw_events(axes, frame, events, casts, patches)
    _draw_creatures(axes, frame, meta, cell, patches)
    figure.text(0.01, 1 - title_h / 2 / figure_h, f"{world.name or 'world'} - "
                f"{pulse_label(frame['pulse'])}", va="center", fontsize=max(8, cell * 0.3))
    legend = figure.add_axes((0, 0, 1, legend_h / figure_h))
    legend.set_xlim(0, figure_w)
    legend.set_ylim(legend_h, 0)
    legend.set_axis_off()
    _draw_legend(legend, entries, columns, patches)
    return figure


def _draw_map(axes: Any, world: World, frame: dict[str, Any], cell: int, patches: Any) -> None:
    """Terrain (ice by thickness), doors, fires, items and chests."""
    names = world.legend
    ice = {(x, y): cm for x, y, cm in frame.get("ice_cm", [])}
    for y, row in enumerate(frame["map"]):
        for x, symbol in enumerate(row):
            name = names.get(symbol, "floor")
            colour = PALETTE[name] if name in ("wall", "water") else PALETTE["floor"]
            if name == "ice":
                colour = PALETTE["ice_thick"] if ice.get((x, y), 10) >= THICK_ICE_CM \
                    else PALETTE["ice_thin"]
            axes.add_patch(patches.Rectangle((x, y), 1, 1, facecolor=colour,
                                             edgecolor=PALETTE["grid"], linewidth=0.5))
            if name == "ice":
                cm = ice.get((x, y), 10)
                axes.add_patch(patches.Rectangle((x + 0.05, y + 0.05), 0.9, 0.9, fill=False,
                                                 edgecolor="#7fb3d5",
                                                 linewidth=min(4, 1 + cm / 15)))
                axes.text(x + 0.95, y + 0.95, str(cm), ha="right", va="bottom",
                          fontsize=cell * 0.22, color="#2c5d80")
    for door in frame.get("doors", []):
        _draw_door(axes, door["at"], door["state"], patches)
    for fire in frame.get("fires", []):
        _draw_fire(axes, fire["at"], patches)
    symbols = item_symbols(world)
    for item in frame.get("items", []):
        x, y = item["at"]
        axes.text(x + 0.78, y + 0.28, symbols.get(item["item"], "*"), ha="center", va="center",
                  fontsize=cell * 0.4, fontweight="bold", family="monospace",
                  color=PALETTE["item"])
    for chest in frame.get("chests", []):
        x, y = chest["at"]
        axes.add_patch(patches.Rectangle((x + 0.2, y + 0.35), 0.6, 0.4,
                                         facecolor=PALETTE["door"]))


def _draw_door(axes: Any, at: list[int], state: str, patches: Any) -> None:
    x, y = at
    axes.add_patch(patches.Rectangle((x, y), 1, 1, facecolor=PALETTE["floor"]))
    if state == "shut":
        axes.add_patch(patches.Rectangle((x + 0.08, y + 0.08), 0.84, 0.84,
                                         facecolor=PALETTE["door"]))
    elif state == "open":
        axes.add_patch(patches.Rectangle((x + 0.08, y + 0.08), 0.84, 0.84, fill=False,
                                         edgecolor=PALETTE["door"], linewidth=2))
    else:  # broken: splinters
        for i in range(3):
            axes.plot([x + 0.1 + i * 0.25, x + 0.25 + i * 0.25], [y + 0.1, y + 0.9],
                      color=PALETTE["door"], linewidth=2)


def _draw_fire(axes: Any, at: list[int], patches: Any) -> None:
    x, y = at
    axes.add_patch(patches.Polygon([(x + 0.5, y + 0.1), (x + 0.85, y + 0.75),
                                    (x + 0.5, y + 0.92), (x + 0.15, y + 0.75)],
                                   facecolor=PALETTE["fire"]))
    axes.add_patch(patches.Circle((x + 0.5, y + 0.66), 0.15, facecolor=PALETTE["fire_core"]))


def disc_colour(look: dict[str, Any]) -> str:
    """A creature's disc: its side's colour (`replay.side_colours`)."""
    colour = look.get("colour")
    return colour if isinstance(colour, str) else PALETTE["player" if look["player"] else "npc"]


def _draw_creatures(axes: Any, frame: dict[str, Any], meta: dict[str, Any], cell: int,
                    patches: Any) -> None:
    """Each living creature as its glyph on a disc with an hp bar and its id under it
    (outlined, to read over a neighbour); a cross where a dead one lies."""
    from matplotlib import patheffects

    outline = [patheffects.withStroke(linewidth=2.5, foreground="white")]
    for creature_id, sheet in frame["creatures"].items():
        x, y = sheet["at"]
        look = meta.get(creature_id, {"glyph": creature_id[0], "player": False})
        if not sheet["alive"]:
            axes.plot([x + 0.2, x + 0.8], [y + 0.2, y + 0.8], color=PALETTE["dead"], lw=2)
            axes.plot([x + 0.8, x + 0.2], [y + 0.2, y + 0.8], color=PALETTE["dead"], lw=2)
            continue
        axes.add_patch(patches.Circle((x + 0.5, y + 0.54), 0.36,
                                      facecolor=disc_colour(look)))
        axes.text(x + 0.5, y + 0.56, look["glyph"], ha="center", va="center",
                  fontsize=cell * 0.4, fontweight="bold", family="monospace", color="white")
        share = max(0.0, min(1.0, sheet["hp"] / sheet["max_hp"])) if sheet["max_hp"] else 0.0
        axes.add_patch(patches.Rectangle((x + 0.1, y + 0.03), 0.8, 0.1,
                                         facecolor=PALETTE["hp_back"]))
        axes.add_patch(patches.Rectangle((x + 0.1, y + 0.03), 0.8 * share, 0.1, facecolor=PALETTE[
            "hp_good" if share > 0.4 else "hp_bad"]))
        axes.text(x + 0.5, y + 0.99, creature_id, ha="center", va="bottom",
                  fontsize=max(5.0, cell * 0.2), color="#111111", path_effects=outline,
                  gid=f"name:{creature_id}")


# One legend entry: (how it is drawn, its colour or symbol, its label). Kinds: "cell" a
# filled square, "ring" a circle's outline, "line" a stroke, "glyph" a symbol on the floor,
# "creature" a glyph on a player's or monster's disc ("creature-dead": the cross).
LegendEntry = tuple[str, Any, str]


def _legend_entries(world: World, frame: dict[str, Any], meta: dict[str, Any],
                    events: list[dict[str, Any]], casts: list[Any]) -> list[LegendEntry]:
    """What the PNG shows, in words: the terrain on the map, doors, fires, items,
    chests, the marks of the last pulse's events, and every creature by glyph and id."""
    entries: list[LegendEntry] = []
    present = {world.legend.get(symbol, "floor") for row in frame["map"] for symbol in row}
    ice = [cm for _x, _y, cm in frame.get("ice_cm", [])]
    for name in ("floor", "wall", "water"):
        if name in present:
            entries.append(("cell", PALETTE[name], name))
    if "ice" in present:
        span = f"{min(ice)}-{max(ice)} cm" if ice and min(ice) != max(ice) else \
            f"{ice[0] if ice else 10} cm"
        entries.append(("cell", PALETTE["ice_thin"], f"ice ({span}; whiter from "
                                                     f"{THICK_ICE_CM} cm)"))
    for state in sorted({door["state"] for door in frame.get("doors", [])}):
        entries.append(("door", state, f"{state} door"))
    if frame.get("fires"):
        entries.append(("fire", None, "fire"))
    symbols = item_symbols(world)
    for name in dict.fromkeys(item["item"] for item in frame.get("items", [])):
        entries.append(("glyph", symbols.get(name, "*"), name.replace("_", " ")))
    if frame.get("chests"):
        entries.append(("chest", None, "chest"))
    kinds = {event["kind"] for event in events}
    causes = {event.get("cause") for event in events if event["kind"] == "damage"}
    if "cast" in kinds:
        entries.append(("cell", PALETTE["cast"], "cells the cast reached"))
    if "damage" in kinds:
        entries.append(("ring", PALETTE["hp_bad"], "hit this pulse"))
    if "arc" in causes:
        entries.append(("line", PALETTE["arc"], "arc"))
    if "water" in causes:
        entries.append(("line", PALETTE["water_arc"], "struck through the water"))
    if "pushed" in kinds:
        entries.append(("line", PALETTE["push"], "pushed"))
    if kinds & {"terrain", "door_broken", "chest_broken", "item_lost"} or any(
            event["kind"] == "fire" and event["change"] == "lit" for event in events):
        entries.append(("changed", CHANGED, "changed this pulse"))
    if "death" in kinds:
        entries.append(("ring", PALETTE["death"], "died this pulse"))
    creatures = list(frame["creatures"].items())
    for creature_id, sheet in creatures[:LEGEND_CREATURES]:
        look = meta.get(creature_id, {"glyph": creature_id[0], "player": False})
        x, y = sheet["at"]
        hp = max(0, sheet["hp"]) if not sheet["alive"] else sheet["hp"]
        label = f"{creature_id}  hp {hp}/{sheet['max_hp']}  [{x}, {y}]"
        if not sheet["alive"]:
            entries.append(("creature-dead", None, label + "  dead"))
        else:
            entries.append(("creature", (look["glyph"], disc_colour(look)), label))
    if len(creatures) > LEGEND_CREATURES:
        entries.append(("text", None, f"... and {len(creatures) - LEGEND_CREATURES} more"))
    return entries


def _draw_legend(axes: Any, entries: list[LegendEntry], columns: int, patches: Any) -> None:
    """The entries in `columns` columns, top to bottom then left to right, each a 16-pixel
    sample and its label (axes in pixels, y down)."""
    rows = max(1, -(-len(entries) // columns))
    size = 16
    for index, (kind, value, label) in enumerate(entries):
        left = 8 + (index // rows) * LEGEND_COLUMN_PX
        top = 6 + (index % rows) * LEGEND_ROW_PX
        cx, cy = left + size / 2, top + size / 2
        if kind == "cell":
            axes.add_patch(patches.Rectangle((left, top), size, size, facecolor=value,
                                             edgecolor="#888888", linewidth=0.8))
        elif kind == "door":
            axes.add_patch(patches.Rectangle((left, top), size, size,
                                             facecolor=PALETTE["door"] if value == "shut"
                                             else PALETTE["floor"],
                                             edgecolor=PALETTE["door"], linewidth=2,
                                             linestyle="--" if value == "broken" else "-"))
        elif kind == "fire":
            axes.add_patch(patches.Polygon([(cx, top + 1), (left + size - 2, top + 12),
                                            (cx, top + size), (left + 2, top + 12)],
                                           facecolor=PALETTE["fire"]))
        elif kind == "chest":
            axes.add_patch(patches.Rectangle((left + 2, top + 5), size - 4, size - 8,
                                             facecolor=PALETTE["door"]))
        elif kind == "glyph":
            axes.text(cx, cy, value, ha="center", va="center", fontsize=11,
                      fontweight="bold", family="monospace", color=PALETTE["item"])
        elif kind == "ring":
            axes.add_patch(patches.Circle((cx, cy), size / 2 - 1, fill=False,
                                          edgecolor=value, linewidth=2))
        elif kind == "changed":
            axes.add_patch(patches.Rectangle((left + 1, top + 1), size - 2, size - 2,
                                             fill=False, edgecolor=value, lw=2,
                                             linestyle="--"))
        elif kind == "line":
            axes.plot([left, left + size], [cy, cy], color=value, lw=3)
        elif kind == "creature":
            glyph, colour = value
            axes.add_patch(patches.Circle((cx, cy), size / 2, facecolor=colour))
            axes.text(cx, cy + 0.5, glyph, ha="center", va="center", fontsize=9,
                      fontweight="bold", family="monospace", color="white")
        elif kind == "creature-dead":
            axes.plot([left + 3, left + size - 3], [top + 3, top + size - 3],
                      color=PALETTE["dead"], lw=2)
            axes.plot([left + size - 3, left + 3], [top + 3, top + size - 3],
                      color=PALETTE["dead"], lw=2)
        axes.text(left + size + 6, cy, label, ha="left", va="center", fontsize=9,
                  color="#222222", gid=f"legend:{label}")


def _last_pulse_events(world: World) -> list[dict[str, Any]]:
    """The events of the pulse that just ran (none for a world as loaded at pulse 0)."""
    last = world.pulse - 1
    out = []
    for event in reversed(world.events):
        if event.pulse != last:
            break
        out.append(event.to_dict())
    return out[::-1]


def _last_pulse_casts(world: World) -> list[tuple[str, str, list[list[int]]]]:
    """(caster, spell, cells reached) of the casts the last pulse resolved."""
    return [(record.caster_id, record.spell, [[int(x), int(y)] for x, y in record.area])
            for record in world.cast_records]


def _draw_events(axes: Any, frame: dict[str, Any], events: list[dict[str, Any]],
                 casts: list[tuple[str, str, list[list[int]]]], patches: Any) -> None:
    """What the page draws for a pulse: cast cells, hits, arcs and water strikes in
    strike order, pushes, changed cells, deaths."""
    creatures = frame["creatures"]

    def at(creature_id: Any) -> list[int] | None:
        sheet = creatures.get(creature_id) if isinstance(creature_id, str) else None
        return sheet["at"] if sheet else None

    reached = list(casts)
    for event in events:
        if event["kind"] != "cast":
            continue
        match = next((c for c in reached if c[0] == event["actor"] and c[1] == event["spell"]),
                     None)
        aim = at(event["target"]) or (event["target"] if isinstance(event["target"], list)
                                      else None)
        cells = match[2] if match else ([aim] if aim else [])
        if match:
            reached.remove(match)
        for x, y in cells:
            axes.add_patch(patches.Rectangle((x, y), 1, 1, facecolor=PALETTE["cast"],
                                             alpha=0.55))
        origin = at(event["actor"])
        if origin and aim:
            axes.annotate("", xy=(aim[0] + 0.5, aim[1] + 0.5),
                          xytext=(origin[0] + 0.5, origin[1] + 0.5),
                          arrowprops={"arrowstyle": "->", "color": "#c9a400", "lw": 1.5})
    previous: list[int] | None = None
    for event in events:
        kind = event["kind"]
        if kind == "cast":
            previous = None
        elif kind == "damage":
            target = at(event["target"])
            if target is None:
                continue
            axes.add_patch(patches.Circle((target[0] + 0.5, target[1] + 0.54), 0.46,
                                          fill=False, edgecolor=PALETTE["hp_bad"], lw=2))
            if event["cause"] in ("arc", "water"):
                start = previous or at(event["source"])
                if start:
                    axes.plot([start[0] + 0.5, target[0] + 0.5], [start[1] + 0.5, target[1] + 0.5],
                              color=PALETTE["arc" if event["cause"] == "arc" else "water_arc"],
                              lw=3)
            if event["cause"] != "melee":
                previous = target
        elif kind == "pushed":
            (x1, y1), (x2, y2) = event["from"], event["to"]
            axes.annotate("", xy=(x2 + 0.5, y2 + 0.5), xytext=(x1 + 0.5, y1 + 0.5),
                          arrowprops={"arrowstyle": "-|>", "color": PALETTE["push"], "lw": 3})
        elif kind in ("terrain", "door_broken", "chest_broken", "item_lost") or \
                (kind == "fire" and event["change"] == "lit"):
            x, y = event["cell"]
            axes.add_patch(patches.Rectangle((x + 0.06, y + 0.06), 0.88, 0.88, fill=False,
                                             edgecolor=CHANGED, lw=2, linestyle="--"))
        elif kind == "death":
            target = at(event["target"])
            if target:
                axes.add_patch(patches.Rectangle((target[0] + 0.05, target[1] + 0.05), 0.9,
                                                 0.9, fill=False, edgecolor=PALETTE["death"],
                                                 lw=3))
