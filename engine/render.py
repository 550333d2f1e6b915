"""Draw a world: ASCII for the terminal, PNG for docs and bug reports (`affray render`).

Both draw the same thing as the replay page (affray.replay): a *frame* (the snapshot
plus each ice cell's thickness) and each creature's fixed look (its glyph). Monsters are
drawn by their template's `glyph`, or its first letter (k kobold, o orc_brute);
players as `@`. A legend names every symbol on the map and every creature.

`--pulse N` draws the state at the end of pulse N (after its events), as the replay
page's "pulse N"; without it, the state as loaded.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from affray.errors import AffrayError, SaveError, ScenarioError
from affray.esper_context import keeps_esper_world
from affray.replay import PALETTE, creature_meta, frame_of, item_symbols

if TYPE_CHECKING:
    from affray.world import World

FIRE = "^"
CHEST = "="
THICK_ICE_CM = 30  # drawn whiter from here on (PNG and page); the legend gives the range


# -- loading --------------------------------------------------------------------------------
@keeps_esper_world
def open_world(path: str | Path, seed: int | None = None) -> World:
    """A scenario file or a save (told apart by the save's JSON header line)."""
    from affray.save import load_world
    from affray.scenario import load_scenario

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
@keeps_esper_world
def render_png(world: World, path: str | Path, cell: int = 32) -> Path:
    """Draw the world as the replay page draws it, into a PNG (needs `affray[png]`):
    with the last pulse's casts, hits, arcs, pushes, changed cells and deaths over it."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        from matplotlib import patches
        from matplotlib import pyplot as plt
    except ImportError:
        raise AffrayError("render --png needs matplotlib: pip install 'affray[png]'") from None
    frame = frame_of(world)
    meta = creature_meta(world)
    height, width = len(frame["map"]), len(frame["map"][0]) if frame["map"] else 0
    dpi = 100
    figure = plt.figure(figsize=(max(1, width) * cell / dpi, (max(1, height) + 0.7) * cell / dpi),
                        dpi=dpi)
    axes = figure.add_axes((0, 0, 1, height / (height + 0.7)))
    axes.set_xlim(0, width)
    axes.set_ylim(height, 0)
    axes.set_axis_off()
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
        x, y = door["at"]
        axes.add_patch(patches.Rectangle((x, y), 1, 1, facecolor=PALETTE["floor"]))
        if door["state"] == "shut":
            axes.add_patch(patches.Rectangle((x + 0.08, y + 0.08), 0.84, 0.84,
                                             facecolor=PALETTE["door"]))
        elif door["state"] == "open":
            axes.add_patch(patches.Rectangle((x + 0.08, y + 0.08), 0.84, 0.84, fill=False,
                                             edgecolor=PALETTE["door"], linewidth=2))
        else:  # broken: splinters
            for i in range(3):
                axes.plot([x + 0.1 + i * 0.25, x + 0.25 + i * 0.25], [y + 0.1, y + 0.9],
                          color=PALETTE["door"], linewidth=2)
    for fire in frame.get("fires", []):
        x, y = fire["at"]
        axes.add_patch(patches.Polygon([(x + 0.5, y + 0.1), (x + 0.85, y + 0.75),
                                        (x + 0.5, y + 0.92), (x + 0.15, y + 0.75)],
                                       facecolor=PALETTE["fire"]))
        axes.add_patch(patches.Circle((x + 0.5, y + 0.66), 0.15, facecolor=PALETTE["fire_core"]))
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
    _draw_events(axes, frame, _last_pulse_events(world), _last_pulse_casts(world), patches)
    for creature_id, sheet in frame["creatures"].items():
        x, y = sheet["at"]
        look = meta.get(creature_id, {"glyph": creature_id[0], "player": False})
        if not sheet["alive"]:
            axes.plot([x + 0.2, x + 0.8], [y + 0.2, y + 0.8], color=PALETTE["dead"], lw=2)
            axes.plot([x + 0.8, x + 0.2], [y + 0.2, y + 0.8], color=PALETTE["dead"], lw=2)
            continue
        axes.add_patch(patches.Circle((x + 0.5, y + 0.54), 0.36, facecolor=PALETTE[
            "player" if look["player"] else "npc"]))
        axes.text(x + 0.5, y + 0.56, look["glyph"], ha="center", va="center",
                  fontsize=cell * 0.4, fontweight="bold", family="monospace", color="white")
        share = max(0.0, min(1.0, sheet["hp"] / sheet["max_hp"])) if sheet["max_hp"] else 0.0
        axes.add_patch(patches.Rectangle((x + 0.1, y + 0.03), 0.8, 0.1,
                                         facecolor=PALETTE["hp_back"]))
        axes.add_patch(patches.Rectangle((x + 0.1, y + 0.03), 0.8 * share, 0.1, facecolor=PALETTE[
            "hp_good" if share > 0.4 else "hp_bad"]))
    figure.text(0.01, 1 - 0.35 / (height + 0.7), f"{world.name or 'world'} - "
                f"{pulse_label(frame['pulse'])}", va="center", fontsize=max(8, cell * 0.3))
    path = Path(path)
    figure.savefig(path, dpi=dpi)
    plt.close(figure)
    return path


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
                                             edgecolor="#1e88e5", lw=2, linestyle="--"))
        elif kind == "death":
            target = at(event["target"])
            if target:
                axes.add_patch(patches.Rectangle((target[0] + 0.05, target[1] + 0.05), 0.9,
                                                 0.9, fill=False, edgecolor=PALETTE["death"],
                                                 lw=3))
