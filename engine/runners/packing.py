"""Packed runs: K copies of a scenario side by side in one World (`batch(..., pack=K)`).

A duel alone is two fighters, below `fight.vectorise_min_fighters`: every blow goes
through the scalar pipeline and every run pays for a World of its own. A pack puts K
copies of the scenario in one bigger grid, each in its own tile, the tiles walled apart
by wall cells (one row or column of wall between two tiles), so their rounds go through
the vectorised round together (systems/rules/volley.py) and the World is built once
for K runs. Each copy's row comes out as its own run.

Why nothing crosses a wall column (docs/decisions.md, "Copies are tiles walled apart",
with the rule IDs):

- movement and paths: a wall is never stood on or walked through (R-GRID-1);
- sight and minds: a wall blocks sight (R-GRID-1), a mind sees and picks foes only in
  sight (R-MIND-2..4), and an attack or a fight needs a neighbour (R-MELEE-2); two
  tiles' cells are two cells apart at least;
- shapes: every shape stops at the first wall on its line (R-SHAPE-1..7), and a burst or a
  cone strikes only cells with line of effect from its source;
- water: bodies are 8-connected water (R-GRID-5): two tiles' water is never connected;
- arcs: an arc jumps to a creature beside the struck one (R-ELEC-1); a chain lightning
  jump of two cells needs nothing that blocks sight between (R-ELEC-5);
- fire, ice, doors, chests, pushes: cell effects on the shape's cells only (R-SHAPE-7),
  and no rule turns a wall into anything else.

One World has one generator: the pack's World is seeded with its first run's seed, and
the copies draw from it in turn. A copy's row is then not the row its seed gives
unpacked (except at K = 1, where the pack is the unpacked World itself), but it has the
same distribution; the rows of a pack depend only on its K seeds and K, so they are the
same for any number of workers or any executor.

A copy is settled (its row's `settled`) at the first pulse from which nothing is left
to happen in it: what `World.next_pulse` asks of every system, asked of the copy's own
creatures and cells (`_Watch.busy`). The World runs on until every copy is settled, then
to the scenario's end as an unpacked run does.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import pickle
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from msgspec.structs import replace as replace_struct

from affray.core.collector import collector_paused
from affray.core.errors import UsageError
from affray.runners.batch import (
    CREATURE_COLUMNS,
    ROUND_PULSES,
    BatchJob,
    Plan,
    Record,
    Tally,
    _sample,
)
from affray.runners.pack_tally import PackTally

if TYPE_CHECKING:
    from affray.core.world import World
    from affray.data.scenario import Blueprint, ScenarioAction, ScenarioFile

# The largest K: a pack's rows travel back from its worker together (batch.MAX_CHUNK_SIZE).
MAX_PACK = 10_000
SEPARATOR = "@"  # a copy's creature id: `<id>@<copy>` (the copy is the part after the last @)
# Symbols tried, in order, for the separating wall when the scenario's legend has none.
_WALL_SYMBOLS = "#XW%&$"


def copy_id(creature: str, copy: int) -> str:
    """A creature's id in copy `copy` of a pack: `<id>@<copy>`, one to one (the copy is
    a whole number after the last @, so no two (id, copy) pairs give one id)."""
    return f"{creature}{SEPARATOR}{copy}"


@dataclass(frozen=True, slots=True)
class Layout:
    """Where the copies go: a `columns` x `rows` array of tiles of the scenario's map
    (`width` x `height`), one wall cell between two tiles; copy k in tile (k % columns,
    k // columns). Near square, so neither side of the grid grows with K alone."""

    width: int
    height: int
    columns: int
    rows: int

    @staticmethod
    def of(width: int, height: int, copies: int) -> Layout:
        columns = round(math.sqrt(copies * (height + 1) / (width + 1)))
        columns = max(1, min(copies, columns))
        return Layout(width, height, columns, math.ceil(copies / columns))

    @property
    def grid_width(self) -> int:
        return self.columns * (self.width + 1) - 1

    @property
    def grid_height(self) -> int:
        return self.rows * (self.height + 1) - 1

    def origin(self, copy: int) -> tuple[int, int]:
        return (copy % self.columns) * (self.width + 1), (copy // self.columns) * (self.height + 1)

    def tiles(self) -> np.ndarray:
        """The copy each cell belongs to (-1: a separating wall or an unused tile)."""
        tile = np.full((self.grid_height, self.grid_width), -1, dtype=np.int32)
        for copy in range(self.columns * self.rows):
            x, y = self.origin(copy)
            tile[y:y + self.height, x:x + self.width] = copy
        return tile


@dataclass(frozen=True, slots=True)
class PackedJob(BatchJob):
    """A BatchJob whose runs go K at a time into one World (`size` = K). The fields it
    inherits are the scenario's own (its creatures, sides and damage types name the
    run table's columns); `packed` is the Blueprint of K copies, `packed_spec` its
    scenario, `action_copies` the copy of each of its scripted actions, `item_count`
    the item entries of one copy."""

    size: int = 1
    packed: Blueprint | None = None
    packed_spec: ScenarioFile | None = None
    layout: Layout | None = None
    action_copies: tuple[int, ...] = ()
    item_count: int = 0
    minded: bool = False

    def __reduce__(self) -> tuple[Any, tuple[str, bytes]]:
        """Pickled as its fields' pickle and that pickle's digest (`_shipped`); a worker
        that already unpickled a job of that digest takes its own again (`_received`).
        A pack's job is a thousand copies' blueprint (about 0.8 MB): sent with every task
        of a process pool or a Dask cluster, unpickled, it cost each task about a tenth
        of its pack's time, in the worker and in the process that sends it."""
        return _received, _shipped(self)

    def blueprint_for(self, copies: int) -> Blueprint:
        """The Blueprint of the first `copies` copies (a batch's last pack may be
        short): the same grid, the other tiles left empty."""
        assert self.packed is not None and self.packed_spec is not None
        if copies == self.size:
            return self.packed
        per = len(self.creatures)
        spec = replace_struct(self.packed_spec,
                              creatures=self.packed_spec.creatures[:copies * per],
                              items=self.packed_spec.items[:copies * self.item_count])
        actions = tuple(action for action, copy in zip(self.packed.actions,
                                                       self.action_copies, strict=True)
                        if copy < copies)
        return dataclasses.replace(self.packed, spec=spec,
                                   creatures=self.packed.creatures[:copies * per],
                                   actions=actions)


# A few jobs, both ways: the fields' pickle and digest of the jobs this process sent
# (by id, the job kept alive beside them), and the jobs this process received (by digest).
_KEPT_JOBS = 8
_SENT: dict[int, tuple[PackedJob, str, bytes]] = {}
_RECEIVED: dict[str, PackedJob] = {}


def _shipped(job: PackedJob) -> tuple[str, bytes]:
    """A job's fields pickled once (and their digest) however many tasks carry it."""
    kept = _SENT.get(id(job))
    if kept is None or kept[0] is not job:
        fields = {field.name: getattr(job, field.name) for field in dataclasses.fields(job)}
        data = pickle.dumps(fields, protocol=pickle.HIGHEST_PROTOCOL)
        kept = (job, hashlib.sha256(data).hexdigest(), data)
        _keep(_SENT, id(job), kept)
    return kept[1], kept[2]


def _received(digest: str, data: bytes) -> PackedJob:
    """A job sent by `_shipped`: the one already unpickled with this digest, or a new one."""
    job = _RECEIVED.get(digest)
    if job is None:
        job = PackedJob(**pickle.loads(data))
        _keep(_RECEIVED, digest, job)
    return job


def _keep(kept: dict[Any, Any], key: Any, value: Any) -> None:
    kept.pop(key, None)
    kept[key] = value
    while len(kept) > _KEPT_JOBS:
        del kept[next(iter(kept))]


# -- making the pack --------------------------------------------------------------------------
def pack_job(job: BatchJob, size: int) -> PackedJob:
    """The PackedJob of K = `size` copies of `job`'s scenario, validated once (as
    `prepare` validates one copy). A UsageError when it cannot be packed: K past a bound
    of the content's `world.limits` (`check_bounds`), or a creature with a game's
    registered mind (`check_packable`)."""
    from affray.data.scenario import prepare_build

    check_packable(job)
    layout = Layout.of(job.blueprint.grid.width, job.blueprint.grid.height, size)
    check_bounds(job, size, layout)
    spec = packed_scenario(job, size, layout)
    packed = prepare_build(spec, job.raw, job.source, job.content)
    ids = {copy_id(creature, copy): copy for copy in range(size) for creature in job.creatures}
    minded = any(planned.values.mind.name is not None for planned in job.blueprint.creatures)
    return PackedJob(spec=job.spec, raw=job.raw, source=job.source, content=job.content,
                     creatures=job.creatures, damage_types=job.damage_types,
                     blueprint=job.blueprint, sides=job.sides, size=size, packed=packed,
                     packed_spec=spec, layout=layout,
                     action_copies=tuple(ids[action.actor] for _, action in packed.actions),
                     item_count=len(job.spec.items), minded=minded)


def pack_plan(plan: Plan, size: int, runs: int) -> Plan:
    """A batch's or a sweep's plan with every point's job packed K = `size` at a time;
    K past the runs asked for is the runs (one pack holds them all: no World is built
    for copies that never run)."""
    size = max(1, min(size, runs))
    return dataclasses.replace(plan, jobs=tuple(pack_job(job, size)
                                                for job in plan.jobs))


def check_packable(job: BatchJob) -> None:
    """A scenario whose creature has a game's registered mind cannot be packed: a mind
    that rests is asked again whenever the log grows, and in a pack every copy's events
    grow it, so a mind that draws a number each time it is asked would draw more often
    than unpacked; the built-in mind draws only on its own timers (R-MIND-5, R-MIND-6),
    a game's code may not."""
    from affray.systems.rules.minds import registered_minds

    registered = registered_minds()
    for planned in job.blueprint.creatures:
        name = planned.values.mind.name
        if name is not None and name in registered:
            raise UsageError(
                f"pack: {job.source}: creature {planned.id!r} has the registered "
                f"mind {name!r}, which cannot be packed: a resting mind is asked again "
                f"whenever any copy logs an event, and a game's mind may draw randomness "
                f"each time it is asked (run it without pack)")


def check_bounds(job: BatchJob, size: int, layout: Layout) -> None:
    """K copies hold K times a copy's creatures, item entries, actions, doors and water
    bodies, on a grid of `layout`'s cells: each within its bound in the content's
    `world.limits` (what the arrays and saves are sized for), else a UsageError naming
    the bound and the largest K it allows."""
    limits = job.content.world.limits
    spec, blueprint = job.spec, job.blueprint
    counts = (("creatures", len(spec.creatures), limits.max_creatures, "max_creatures"),
              ("item entries", len(spec.items), limits.max_items, "max_items"),
              ("actions", len(spec.actions), limits.max_actions, "max_actions"),
              ("doors", len(blueprint.doors), limits.max_doors, "max_doors"),
              ("water bodies", blueprint.water_bodies, limits.max_water_bodies,
               "max_water_bodies"))
    for what, each, bound, knob in counts:
        if each * size > bound:
            raise UsageError(
                f"pack={size:,}: {size:,} copies of {job.source} hold "
                f"{each * size:,} {what}, more than {bound:,} (content "
                f"world.limits.{knob}): at most pack={max(1, bound // each):,}")
    cells = layout.grid_width * layout.grid_height
    if cells > limits.max_map_cells:
        raise UsageError(
            f"pack={size:,}: {size:,} copies of {job.source}'s "
            f"{layout.width}x{layout.height} map need a {layout.grid_width}x"
            f"{layout.grid_height} grid of {cells:,} cells, more than "
            f"{limits.max_map_cells:,} (content world.limits.max_map_cells)")


def packed_scenario(job: BatchJob, size: int, layout: Layout) -> ScenarioFile:
    """The scenario of `size` copies laid out by `layout`: the map tiled with wall
    between the tiles, every creature, item and action once per copy, its ids renamed
    (`copy_id`) and its cells moved to its tile."""
    from affray.data.scenario import MapSpec

    spec = job.spec
    wall, legend = _wall_symbol(spec.map.legend, spec.map.rows)
    rows = _tiled_rows(spec.map.rows, wall, layout, size)
    creatures, items, actions = [], [], []
    for copy in range(size):
        dx, dy = layout.origin(copy)
        creatures += [replace_struct(
            entry, id=copy_id(entry.id, copy), at=(entry.at[0] + dx, entry.at[1] + dy),
            fighting=None if entry.fighting is None else copy_id(entry.fighting, copy))
            for entry in spec.creatures]
        items += [replace_struct(item, at=(item.at[0] + dx, item.at[1] + dy))
                  for item in spec.items]
        actions += [_moved_action(action, copy, dx, dy) for action in spec.actions]
    packed = replace_struct(spec, map=MapSpec(rows=rows, legend=legend),
                            creatures=creatures, items=items, actions=actions)
    return packed


def _moved_action(action: ScenarioAction, copy: int, dx: int, dy: int) -> ScenarioAction:
    """A scripted action of copy `copy`: its creatures renamed, its cells moved."""
    target: Any = action.target
    if isinstance(target, str):
        target = copy_id(target, copy)
    elif target is not None:
        target = (target[0] + dx, target[1] + dy)
    return replace_struct(
        action, actor=copy_id(action.actor, copy), target=target,
        attack=None if action.attack is None else copy_id(action.attack, copy),
        move=None if action.move is None else (action.move[0] + dx, action.move[1] + dy))


def _wall_symbol(legend: dict[str, str], rows: list[str]) -> tuple[str, dict[str, str]]:
    """A map symbol that means wall, and the legend (with it added when none did)."""
    from affray.core.world import DEFAULT_LEGEND

    meaning = {**DEFAULT_LEGEND, **legend}
    for symbol in ("#", *meaning):
        if meaning.get(symbol) == "wall":
            return symbol, legend
    used = set(meaning) | set("".join(rows))
    symbol = next(s for s in _WALL_SYMBOLS + "".join(map(chr, range(0x2500, 0x2600)))
                  if s not in used)
    return symbol, {**legend, symbol: "wall"}


def _tiled_rows(rows: list[str], wall: str, layout: Layout, size: int) -> list[str]:
    """The packed map's rows: tile rows of copies, a wall row between two; a wall
    column between two tiles; unused tiles (the last tile row's tail) all wall."""
    blank = wall * layout.width
    out: list[str] = []
    for tile_row in range(layout.rows):
        if tile_row:
            out.append(wall * layout.grid_width)
        for line in rows:
            out.append(wall.join(
                line if tile_row * layout.columns + column < size else blank
                for column in range(layout.columns)))
    return out


# -- running a pack ---------------------------------------------------------------------------
def run_packs(job: PackedJob, runs: Sequence[tuple[int, int]], collect: str = "runs"
              ) -> list[Record]:
    """A task of a packed batch: its (run, seed) pairs K at a time, one World each (the
    task starts at a pack's first run; its last pack may be short)."""
    records: list[Record] = []
    for start in range(0, len(runs), job.size):
        records += run_pack(job, runs[start:start + job.size], collect)
    return records


def run_pack(job: PackedJob, runs: Sequence[tuple[int, int]], collect: str = "runs"
             ) -> list[Record]:
    """One pack: len(runs) copies in one World seeded with the first run's seed; each
    copy's run row, creature rows and round rows, as `batch.record_one` gives them for
    one run. An exception is every copy's `error` (one World: they fail together).

    The cyclic collector is paused for the whole pack (engine/core/collector.py): a
    pack's World holds K copies' creatures, and every young collection set off by a
    round's new objects would otherwise walk them, and now and then a full one the
    whole heap; what a pack makes (creatures, events, a round's columns) lives until
    its World is closed, and one collection after does the work once."""
    with collector_paused():
        return _run_pack(job, runs, collect)


def _run_pack(job: PackedJob, runs: Sequence[tuple[int, int]], collect: str
              ) -> list[Record]:
    heads = [{"run": run, "seed": seed, "pulses": None, "settled": None, "error": None}
             for run, seed in runs]
    try:
        world = build_pack(job, len(runs), runs[0][1])
    except Exception as error:
        return _failed(heads, error, None)
    rounds: list[list[dict[str, Any]]] | None = \
        [[] for _ in runs] if collect == "rounds" else None
    try:
        copies = [_Copy(world, job, index) for index in range(len(runs))]
        settled = play_pack(world, job, copies, rounds)
        records = _records(world, job, copies, heads, settled, collect, rounds)
    except Exception as error:
        return _failed(heads, error, world.pulse)
    finally:
        world.close()
    return records


def build_pack(job: PackedJob, copies: int, seed: int) -> World:
    """The World of a pack of `copies` copies (at most K), seeded with `seed` (the
    pack's first run's: docs/decisions.md, "A pack's seed is its first run's seed")."""
    return job.blueprint_for(copies).build(seed)


def _failed(heads: list[dict[str, Any]], error: Exception, pulse: int | None
            ) -> list[Record]:
    for head in heads:
        head["error"] = f"{type(error).__name__}: {error}"
        head["pulses"] = pulse
    return [(head, [], []) for head in heads]


def _copies_in(world: World, job: PackedJob) -> int:
    """How many copies a pack's World holds (its last may be short)."""
    return len(world.by_id) // max(1, len(job.creatures)) if job.creatures else job.size


@dataclass(frozen=True, slots=True)
class _Names:
    """What `batch.Tally` and `batch._sample` read of a job: the creatures (a copy's
    renamed ids) and the sides."""

    creatures: tuple[str, ...]
    sides: tuple[str, ...]


class _Copy:
    """One copy as `batch.Tally` and `batch._sample` read a run: the World's clock, its
    creatures' sheets by their renamed ids; `job` names those ids. `columns` pairs each
    run-table column of a renamed id with the scenario's own name for it."""

    __slots__ = ("columns", "index", "job", "names", "world")

    def __init__(self, world: World, job: PackedJob, index: int) -> None:
        self.world, self.index = world, index
        self.names = {copy_id(creature, index): creature for creature in job.creatures}
        self.job = _Names(tuple(self.names), job.sides)
        self.columns = [(f"{renamed}.{figure}", f"{creature}.{figure}")
                        for renamed, creature in self.names.items()
                        for figure, _kind in CREATURE_COLUMNS]

    @property
    def pulse(self) -> int:
        return self.world.pulse

    def sheet(self, creature: str) -> Any:
        return self.world.sheet(creature)


def _records(world: World, job: PackedJob, copies: list[_Copy], heads: list[dict[str, Any]],
             settled: list[int | None], collect: str,
             rounds: list[list[dict[str, Any]]] | None) -> list[Record]:
    """Each copy's row from its own events and creatures, ids named back. The whole
    pack's log is tallied at once, its blows as columns (`PackTally`); each copy's
    `Tally` gets its creatures' figures."""
    names = [name for copy in copies for name in copy.names]
    tally_of = PackTally(names).read(world.events)
    taken, struck, dealt, hits = tally_of.figures()
    out: list[Record] = []
    at = 0
    for copy, head, pulse in zip(copies, heads, settled, strict=True):
        tally = Tally(copy, copy.job, events=())  # type: ignore[arg-type]  # a World's reading
        for name in copy.names:
            tally.taken[name], tally.struck[name] = taken[at], struck[at]
            tally.dealt[name], tally.hits[name] = dealt[at], hits[at]
            tally.died[name], tally.kills[name] = tally_of.died[name], tally_of.kills[name]
            at += 1
        row = tally.run_row()
        row["settled"] = pulse
        for renamed, column in copy.columns:
            row[column] = row.pop(renamed)
        head.update(row)
        creatures = []
        if collect != "runs":
            creatures = tally.creature_rows()
            for line in creatures:
                line["creature"] = copy.names[line["creature"]]
        out.append((head, creatures, rounds[copy.index] if rounds is not None else []))
    return out


def play_pack(world: World, job: PackedJob, copies: list[_Copy] | None = None,
              rounds: list[list[dict[str, Any]]] | None = None) -> list[int | None]:
    """Run a pack as `batch.play` runs one run, copy by copy: each copy's settled pulse
    (None: not settled by the end), then on to the scenario's end. The World steps from
    one busy pulse to the next (`World.next_pulse`), each tick followed by a look at
    which copies are still busy; with `rounds`, it also stops at every round's pulse
    and samples the copies not yet settled (and a copy at its settled pulse). `copies`
    (the copies as the tables read them) are made here when not given."""
    if copies is None:
        copies = [_Copy(world, job, index) for index in range(_copies_in(world, job))]
    watch = _Watch(world, job, len(copies))
    end = world.end_pulse if world.end_pulse is not None else world.pulse
    settled: list[int | None] = [None] * len(copies)
    if rounds is not None:
        for copy in copies:
            _sample(copy, copy.job, rounds[copy.index])  # type: ignore[arg-type]
    _note(watch.settle(), settled, world, copies, rounds)
    while world.pulse < end and watch.active.any():
        due = world.next_pulse()
        if due is None:
            break
        step = min(due + 1, end) - world.pulse
        if rounds is not None:
            step = min(step, ROUND_PULSES - world.pulse % ROUND_PULSES)
        world.run(pulses=step)
        _note(watch.settle(), settled, world, copies, rounds)
        if rounds is not None and world.pulse % ROUND_PULSES == 0:
            for index in np.flatnonzero(watch.active).tolist():
                _sample(copies[index], copies[index].job,  # type: ignore[arg-type]
                        rounds[index])
    if world.next_pulse() is None:  # the whole World settled: so is every copy left
        _note(np.flatnonzero(watch.active), settled, world, copies, rounds)
    if rounds is not None:  # the end came first: a last sample there, as `batch.play`
        for index, pulse in enumerate(settled):
            if pulse is None and world.pulse > rounds[index][-1]["pulse"]:
                _sample(copies[index], copies[index].job,  # type: ignore[arg-type]
                        rounds[index])
    world.run(until="settled")
    world.run()
    return settled


def _note(indices: Any, settled: list[int | None], world: World, copies: list[_Copy],
          rounds: list[list[dict[str, Any]]] | None) -> None:
    """Copies settled now: their settled pulse, and a last round sample at it."""
    for index in list(indices):
        if settled[index] is not None:
            continue
        settled[index] = world.pulse
        if rounds is not None and world.pulse > rounds[index][-1]["pulse"]:
            _sample(copies[index], copies[index].job, rounds[index])  # type: ignore[arg-type]


class _Watch:
    """Which copies are still busy: the question `World.next_pulse` asks of every system
    (is anything left to happen?), asked of each copy's creatures and cells.

    A copy is busy while one of its creatures fights (Melee), has an action queued
    (Pulse), a timed status (Pulse, R-STAT-*), a stun that wears off out of combat
    (Stun), a cast due (Spell) or a mind that may act (Pulse, R-MIND-7: it has not
    rested since its copy's last event, or it named a time to wake); while a scripted
    action of its creatures is still to come; while a fire burns on its cells (Terrain);
    and while the grid's water is to be relabelled (any copy: the World's own flag)."""

    def __init__(self, world: World, job: PackedJob, copies: int) -> None:
        self.world = world
        self.active = np.ones(copies, dtype=bool)
        entities = [world.by_id[copy_id(creature, copy)] for copy in range(copies)
                    for creature in job.creatures]
        self.copy_of = np.full(max(entities, default=0) + 1, -1, dtype=np.int64)
        self.copy_of[entities] = np.repeat(np.arange(copies), len(job.creatures))
        assert job.layout is not None
        self.tiles = job.layout.tiles()
        self.last_scripted = np.full(copies, -1, dtype=np.int64)
        self.owner = {copy_id(creature, copy): copy for copy in range(copies)
                      for creature in job.creatures}
        for pulse, action in world.scripted:
            copy = self.owner[action.actor]
            self.last_scripted[copy] = max(self.last_scripted[copy], pulse)
        self.minded = job.minded
        self.last_event = np.zeros(copies, dtype=np.int64)  # log length after its last
        self.read = 0

    def settle(self) -> np.ndarray:
        """The copies that were active and are busy no more (now settled)."""
        busy = self.busy()
        now = self.active & ~busy
        self.active &= busy
        return np.flatnonzero(now)

    def _mark(self, busy: np.ndarray, entities: Any) -> None:
        found = np.fromiter(entities, dtype=np.int64)
        if len(found):
            found = found[found < len(self.copy_of)]
            copies = self.copy_of[found]
            busy[copies[copies >= 0]] = True

    def busy(self) -> np.ndarray:
        from affray.systems.stun import _decays

        world = self.world
        busy = np.zeros(len(self.active), dtype=bool)
        if world.grid.dirty:
            busy[:] = True
            return busy
        busy |= self.last_scripted >= world.pulse
        self._mark(busy, world.fighting)
        self._mark(busy, world.ready)
        self._mark(busy, world.afflicted)
        self._mark(busy, (entity for entity in world.stunned
                          if _decays(world.sheets[entity])))
        self._mark(busy, (casting.actor for casting in world.casts_due))
        self._fires(busy)
        if self.minded:
            self._minds(busy)
        return busy

    def _fires(self, busy: np.ndarray) -> None:
        import esper

        from affray.components import Fire, Position

        self.world.enter()
        for _entity, (_fire, at) in esper.get_components(Fire, Position):
            copy = int(self.tiles[at.y, at.x])
            if 0 <= copy < len(busy):
                busy[copy] = True

    def _minds(self, busy: np.ndarray) -> None:
        """R-MIND-7 per copy: a living mind is idle when it rested (`idle_since`) after
        its copy's last event and named no time to wake; else it may act."""
        world = self.world
        events = world.events
        length = len(events)
        for index in range(self.read, length):
            copy = self._event_copy(events[index])
            if copy is not None and copy < len(busy):
                self.last_event[copy] = index + 1
        self.read = length
        for entity in world.minded:
            copy = int(self.copy_of[entity]) if entity < len(self.copy_of) else -1
            if copy < 0 or busy[copy]:
                continue
            mind = world.sheets[entity].mind
            if mind.idle_since < self.last_event[copy] or mind.wake >= 0:
                busy[copy] = True

    def _event_copy(self, event: Any) -> int | None:
        """The copy an event happened in: by the creature it names, else its cell."""
        for field in ("target", "actor", "source", "cause"):
            name = getattr(event, field, None)
            if isinstance(name, str) and name in self.owner:
                return self.owner[name]
        cell = getattr(event, "cell", None)
        if cell is not None:
            copy = int(self.tiles[cell[1], cell[0]])
            return copy if copy >= 0 else None
        return None


__all__ = ["MAX_PACK", "Layout", "PackedJob", "build_pack", "copy_id", "pack_job",
           "pack_plan", "play_pack", "run_pack", "run_packs"]
