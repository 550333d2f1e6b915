"""Record a fight and write it as one self-contained HTML page (`affray replay`).

Why this shape: a replay must be small even for a 10,000-pulse fight, and it must be
built only from what the engine already makes (the snapshot and the event log).
A `Recorder` takes a frame after every pulse (`World.snapshot()` plus the ice
thickness of each ice cell) and keeps:

- a *keyframe* (the whole frame) at the start, and on a round boundary (every 12
  pulses) only if the frame differs from the previous keyframe, and the deltas since
  weigh a quarter of a keyframe or ten rounds have passed: a long idle fight makes no
  new keyframe at all, and a 1,000-creature battle is not a keyframe a round;
- a *delta* for a pulse only where the frame differs from what the previous frame
  predicts. The prediction is that every `wait`, `daze` and fire's `pulses_left` counts
  down by one (R-LAG-1): a creature serving out its lag costs nothing per pulse.

`decode_frame` (and the page's script, which mirrors it) rebuilds the frame at any
pulse from the last keyframe at or before it and the deltas after it. The event log
goes in beside the frames, each event with its player text (`affray.display.text`).

Frames are numbered by the snapshot's `pulse`: frame `s` is the state after `s`
pulses have run, i.e. after the events of pulse `s - 1`. The page shows "pulse P" as
frame `P + 1` with the events of pulse P, and the first frame as "start".
"""

from __future__ import annotations

import base64
import copy
import gzip
import json
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from affray.core.esper_context import keeps_esper_world
from affray.display.text import render_events

if TYPE_CHECKING:
    from affray.core.world import World

ROUND_PULSES = 12  # R-TIME-2: a round is 12 pulses; a keyframe may fall on each
KEY_GAP_ROUNDS = 10  # at most this many rounds between keyframes while things change
# Creature fields that count down by one a pulse on their own (R-LAG-1).
COUNTDOWN_FIELDS = ("wait", "daze")

ITEM_SYMBOLS = {"scroll": "?", "potion": "!", "food": "%", "corpse": "%", "coins": "$",
                "wand": "-", "weapon": ")", "armor": "[", "container": "=", "light": "("}


# -- frames ----------------------------------------------------------------------------
def frame_of(world: World) -> dict[str, Any]:
    """What the replay keeps of one pulse: the snapshot, plus `ice_cm` (each ice cell's
    thickness as [x, y, cm], row by row), which the snapshot's map symbols cannot show."""
    frame = world.snapshot()
    if "ice_cm" not in frame:
        ys, xs = (world.grid.ice_cm > 0).nonzero()
        frame["ice_cm"] = [[int(x), int(y), int(world.grid.ice_cm[y, x])]
                           for y, x in zip(ys.tolist(), xs.tolist(), strict=True)]
    return frame


def predict(frame: dict[str, Any], pulses: int = 1) -> dict[str, Any]:
    """The frame `pulses` pulses later if nothing happens: lag counts down by that many,
    never below 0 (R-LAG-1, as `World.skip` counts it), and fires' `pulses_left` with it.

    One call for any gap, so a recording that `World.run` jumped across 2**63 idle pulses
    costs what one pulse does; `predict(f, n)` equals `predict` applied n times."""
    out = dict(frame)
    out["pulse"] = frame["pulse"] + pulses
    creatures = {}
    for creature_id, sheet in frame["creatures"].items():
        if any(sheet.get(name, 0) > 0 for name in COUNTDOWN_FIELDS):
            sheet = dict(sheet)
            for name in COUNTDOWN_FIELDS:
                if sheet.get(name, 0) > 0:
                    sheet[name] = max(0, sheet[name] - pulses)
        creatures[creature_id] = sheet
    out["creatures"] = creatures
    if frame.get("fires"):
        out["fires"] = [{**fire, "pulses_left": fire["pulses_left"] - pulses}
                        if isinstance(fire.get("pulses_left"), int) else fire
                        for fire in frame["fires"]]
    return out


def diff(expected: dict[str, Any], actual: dict[str, Any]) -> dict[str, Any]:
    """The changes that turn `expected` into `actual` (empty when they are equal).

    `map` is diffed by row (`[[row, text], ...]`), `creatures` by field (`{id: {field:
    value}}`, `{id: null}` for one removed), every other key is replaced whole.
    """
    changes: dict[str, Any] = {}
    if actual["map"] != expected["map"]:
        changes["map"] = [[y, row] for y, (row, old) in
                          enumerate(zip(actual["map"], expected["map"], strict=True))
                          if row != old]
    creatures: dict[str, Any] = {}
    for creature_id, sheet in actual["creatures"].items():
        old = expected["creatures"].get(creature_id)
        if old is None:
            creatures[creature_id] = sheet
        elif old != sheet:
            creatures[creature_id] = {key: value for key, value in sheet.items()
                                      if old.get(key) != value or key not in old}
    for creature_id in expected["creatures"]:
        if creature_id not in actual["creatures"]:
            creatures[creature_id] = None
    if creatures:
        changes["creatures"] = creatures
    for key, value in actual.items():
        if key not in ("pulse", "map", "creatures") and expected.get(key) != value:
            changes[key] = value
    return changes


def apply(frame: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """`frame` with `changes` (from `diff`) applied; `frame` is not modified."""
    out = dict(frame)
    if "map" in changes:
        rows = list(frame["map"])
        for y, row in changes["map"]:
            rows[y] = row
        out["map"] = rows
    if "creatures" in changes:
        creatures = dict(frame["creatures"])
        for creature_id, fields in changes["creatures"].items():
            if fields is None:
                creatures.pop(creature_id, None)
            elif creature_id in creatures:
                creatures[creature_id] = {**creatures[creature_id], **fields}
            else:
                creatures[creature_id] = fields
        out["creatures"] = creatures
    for key, value in changes.items():
        if key not in ("map", "creatures"):
            out[key] = value
    return out


# -- recording ---------------------------------------------------------------------------
class Recorder:
    """Keyframes and deltas of a world's frames, taken after every pulse it runs."""

    def __init__(self, world: World) -> None:
        first = frame_of(world)
        self.start_pulse: int = first["pulse"]
        # The events of the pulse it starts on count (a scenario's fights begun at its
        # build are pulse 0's): the first event from `start_pulse` on.
        events = world.events
        first_event = len(events)
        while first_event and events[first_event - 1].pulse >= self.start_pulse:
            first_event -= 1
        self.first_event = first_event
        self.keyframes: list[dict[str, Any]] = [copy.deepcopy(first)]
        self.deltas: list[tuple[int, dict[str, Any]]] = []
        self._last = first
        self._last_key = self.keyframes[0]
        self._key_bytes = _size(first)
        self._delta_bytes = 0
        self.meta = creature_meta(world)
        # The cells each cast reached: [pulse, caster, spell, [[x, y], ...]], read from the
        # Spell system's `world.cast_records` (the cast event does not carry them).
        self.casts: list[list[Any]] = []
        self._seen_casts: list[Any] = list(world.cast_records)

    @property
    def end_pulse(self) -> int:
        """The pulse of the last frame taken."""
        return int(self._last["pulse"])

    def shown_end(self, world: World) -> int:
        """The last frame the page shows: the last one taken, or one more when the world
        settled there (its only events at that pulse are `settled`): that pulse changes
        nothing, so its frame is the prediction, and the page shows "pulse N" (the
        settled pulse) with its "All is still" line rather than stopping short of it."""
        end = self.end_pulse
        at_end = [event.kind for event in _events_at(world, end)]
        return end + 1 if at_end and all(kind == "settled" for kind in at_end) else end

    def settled_at(self, world: World) -> int | None:
        """The pulse the recorded run settled at (its `settled` event), or None."""
        events = world.events
        if len(events) > self.first_event and events[-1].kind == "settled":
            return int(events[-1].pulse)
        return None

    def capture(self, world: World) -> None:
        """Take the frame after a pulse (the World calls it at the end of each tick)."""
        frame = frame_of(world)
        for creature_id in frame["creatures"]:
            if creature_id not in self.meta:
                self.meta.update(creature_meta(world))
                break
        pulse = frame["pulse"]
        self._take_casts(world, pulse - 1)
        # More than one pulse when `World.skip` jumped an idle stretch: one prediction.
        expected = predict(self._last, pulse - self._last["pulse"])
        changes = diff(expected, frame)
        if self._keyframe_due(frame, changes):
            self._last_key = copy.deepcopy(frame)
            self.keyframes.append(self._last_key)
            self._key_bytes = _size(frame)
            self._delta_bytes = 0
        elif changes:
            self.deltas.append((pulse, copy.deepcopy(changes)))
            self._delta_bytes += _size(changes)
        self._last = frame

    def _keyframe_due(self, frame: dict[str, Any], changes: dict[str, Any]) -> bool:
        """A keyframe on a round boundary, if the frame changed since the last one and
        the deltas since then weigh a quarter of a keyframe, or KEY_GAP_ROUNDS passed:
        a page seeks fast, and a big world's keyframes do not swamp its deltas."""
        pulse, last = frame["pulse"], self._last_key["pulse"]
        if pulse // ROUND_PULSES <= self._last["pulse"] // ROUND_PULSES:
            return False
        if self._delta_bytes + _size(changes) < self._key_bytes // 4 and \
                pulse - last < KEY_GAP_ROUNDS * ROUND_PULSES:
            return False
        return {**frame, "pulse": last} != self._last_key

    def _take_casts(self, world: World, pulse: int) -> None:
        records = list(world.cast_records)
        for record in records:
            if not any(record is seen for seen in self._seen_casts):
                area = [[int(x), int(y)] for x, y in record.area]
                self.casts.append([pulse, record.caster_id, record.spell, area])
        self._seen_casts = records

    def data(self, world: World) -> dict[str, Any]:
        """Everything the page needs, as JSON-ready data."""
        # Each event with its line of player text; null for one folded into an earlier
        # line (a cast's cell effects of one kind are one line: affray.display.text).
        events = [event.to_dict() for event in world.events[self.first_event:]]
        for data, line in zip(events, render_events(events), strict=True):
            data["text"] = line
        return {
            "format": "affray-replay", "version": 1,
            "name": world.name, "seed": world.seed,
            "start": self.start_pulse, "end": self.shown_end(world), "round": ROUND_PULSES,
            "settled": self.settled_at(world),
            "width": world.grid.width, "height": world.grid.height,
            "legend": world.legend, "item_symbols": item_symbols(world),
            "creatures": self.meta,
            "keyframes": self.keyframes,
            "deltas": [[pulse, changes] for pulse, changes in self.deltas],
            "casts": self.casts,
            "events": events,
        }


def _events_at(world: World, pulse: int) -> list[Any]:
    """The log's events of `pulse`, read from the end (the log is in pulse order)."""
    found = []
    for event in reversed(world.events):
        if event.pulse != pulse:
            break
        found.append(event)
    return found


def _size(data: Any) -> int:
    """Bytes of compact JSON: what a keyframe or delta weighs in the page."""
    return len(json.dumps(data, separators=(",", ":")))


def creature_meta(world: World) -> dict[str, dict[str, Any]]:
    """Each creature's fixed look: glyph (R-GRID: drawn by letter), player, template,
    side, and `colour`, its side's (`side_colours`)."""
    from affray.components import Creature

    world.enter()
    creatures = [world.component(creature_id, Creature) for creature_id in world.by_id]
    colours = side_colours(creature.side for creature in creatures)
    return {creature.id: {"glyph": glyph_of(world, creature), "player": creature.player,
                          "template": creature.template, "side": creature.side,
                          "colour": colours[creature.side]}
            for creature in creatures}


# The discs of sides other than the default two, in the order sides first appear.
SIDE_COLOURS = ("#b23a48", "#1f5fbf", "#2e7d32", "#c77c02", "#6a1b9a", "#00838f",
                "#5d4037", "#ad1457")


def side_colours(sides: Iterable[str]) -> dict[str, str]:
    """A disc colour per side (R-SIDE-1), so two armies read apart: `players` green and
    `npcs` red as always (PALETTE), every other side the next of `SIDE_COLOURS` that
    neither of those took, in the order the sides first appear (creation order),
    round again past the last."""
    order = list(dict.fromkeys(sides))
    colours = {side: PALETTE["player" if side == "players" else "npc"]
               for side in order if side in ("players", "npcs")}
    free = [colour for colour in SIDE_COLOURS if colour not in colours.values()]
    others = [side for side in order if side not in colours]
    colours.update({side: free[index % len(free)] for index, side in enumerate(others)})
    return colours


def glyph_of(world: World, creature: Any) -> str:
    """`@` for a player; else the template's `glyph`, or the first letter of the template
    (k kobold, o orc_brute), or of the id when there is no template."""
    if creature.player:
        return "@"
    template = world.content.creatures.get(creature.template) if creature.template else None
    glyph = getattr(template, "glyph", None)
    if isinstance(glyph, str) and glyph:
        return glyph[0]
    return (creature.template or creature.id or "?")[0]


def item_symbols(world: World) -> dict[str, str]:
    """Item name -> the glyph of its class, for every item the content knows."""
    symbols = {}
    for name, definition in world.content.items.items():
        cls = definition.class_
        symbols[name] = next((glyph for base, glyph in ITEM_SYMBOLS.items()
                              if world.content.item_class_is(cls, base)), "*")
    return symbols


@keeps_esper_world
def start_recording(world: World) -> Recorder:
    """Attach a recorder to the world: every later tick is recorded (`World.record`)."""
    recorder = world.recorder
    if recorder is None:
        recorder = Recorder(world)
        world.recorder = recorder
    return recorder


@keeps_esper_world
def record(world: World, pulses: int | None = None, until: str | None = None) -> Recorder:
    """Record the world from now while running it: `pulses` pulses (None: to its end),
    or, with `until="settled"`, until nothing is left to happen (`World.run`). Idle
    stretches are jumped, as `World.run` jumps them, and recorded as one prediction.
    A bad `pulses` or `until` raises UsageError before anything starts recording."""
    from affray.core.errors import UsageError
    from affray.core.validate import MAX_PULSE, check_count

    if until not in (None, "settled"):
        raise UsageError(f"record: until must be None or 'settled', not {until!r}")
    if pulses is not None:
        check_count(pulses, "record: pulses", max(0, 2 * MAX_PULSE - world.pulse))
    recorder = start_recording(world)
    world.run(pulses, until=until)
    return recorder


# -- decoding ------------------------------------------------------------------------------
def decode_frame(data: dict[str, Any], pulse: int) -> dict[str, Any]:
    """The frame at `pulse` from a replay's data (the page's script does the same): the
    last keyframe at or before it, then each delta after it, predicted across the gaps
    between them in one step each (so an idle stretch of any length costs nothing)."""
    if not data["start"] <= pulse <= data["end"]:
        raise ValueError(f"pulse {pulse} is outside the replay ({data['start']}..{data['end']})")
    key = max((k for k in data["keyframes"] if k["pulse"] <= pulse), key=lambda k: k["pulse"])
    frame = copy.deepcopy(key)
    for step, changes in sorted((p, changes) for p, changes in data["deltas"]
                                if key["pulse"] < p <= pulse):
        frame = apply(predict(frame, step - frame["pulse"]), changes)
    return predict(frame, pulse - frame["pulse"])


# -- the page -------------------------------------------------------------------------------
def pack(data: dict[str, Any]) -> str:
    """The data as gzip-compressed JSON in base64: the page inflates it with the browser's
    DecompressionStream (no library), so a big fight stays a small file."""
    raw = json.dumps(data, separators=(",", ":")).encode("utf-8")
    return base64.b64encode(gzip.compress(raw, compresslevel=9, mtime=0)).decode("ascii")


def unpack(blob: str) -> dict[str, Any]:
    """The inverse of `pack` (tests read a page's data back with it)."""
    return json.loads(gzip.decompress(base64.b64decode(blob)))


def render_html(data: dict[str, Any]) -> str:
    """The self-contained page: the template with the data and palette inlined.

    Every value is escaped: autoescape is on for this template whatever its file name
    (`select_autoescape` goes by extension, and `.html.j2` is not `.html`), so a name
    such as `</title><script>...` shows as text. The data goes in as base64 (no `<`,
    `"` or `-` can occur in it) and the palette through jinja's `tojson`, which writes
    `<`, `>`, `&` and `'` as \\u escapes: no string can close the script or open a
    comment."""
    import jinja2

    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("affray.display", "templates"), autoescape=True)
    template = environment.get_template("replay.html.j2")
    return template.render(title=data["name"] or "affray replay", blob=pack(data),
                           palette=PALETTE)


def describe_page(world: World, path: Path) -> str:
    """What `affray replay` says it wrote: the file, the pulses it spans, its size; the
    settled pulse, or, when the world had settled well before the end it ran to, the
    pulse of its last event (a duel's page spans its 100,000-pulse cap, its fight in the
    first pixel; `--until settled` ends it with the fight)."""
    recorder = world.recorder
    settled = recorder.settled_at(world)
    span = f"pulses {recorder.start_pulse}-{world.pulse}"
    if settled is not None:
        span += " (settled)"
    elif len(world.events) > recorder.first_event and \
            world.events[-1].pulse < world.pulse - 1 and world.next_pulse() is None:
        span += (f" (last event at pulse {world.events[-1].pulse}; --until settled stops "
                 "once nothing more can happen)")
    return f"wrote {path}: {span}, {path.stat().st_size} bytes"


@keeps_esper_world
def write_html(world: World, recorder: Recorder, path: str | Path) -> Path:
    """Write the replay page of what `recorder` took from `world`; returns the path."""
    path = Path(path)
    path.write_text(render_html(recorder.data(world)), encoding="utf-8")
    return path


# The colours of the page and of the PNG render (affray.display.render), so both look alike.
PALETTE: dict[str, str] = {
    "floor": "#e9e4d8", "wall": "#4a4a4a", "water": "#4d8fd6", "ice_thin": "#cfe9f7",
    "ice_thick": "#ffffff", "door": "#8b5a2b", "grid": "#d5cfc0", "fire": "#f26b1d",
    "fire_core": "#ffd23f", "item": "#6b4e16", "player": "#2e7d32", "npc": "#b23a48",
    "dead": "#777777", "hp_good": "#43a047", "hp_bad": "#e53935", "hp_back": "#333333",
    "cast": "#ffe066", "arc": "#fff200", "water_arc": "#00e5ff", "push": "#7b1fa2",
    "death": "#d50000", "select": "#ff9800",
}
