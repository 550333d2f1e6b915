"""Batch runs of a scenario over many seeds (SCENARIO.md `batch`), for balancing.

The scenario is read and parsed once, here; what the workers get is the parsed spec, its
content layered once and its `Blueprint` (validated and resolved once: each run's World
is built from copies of it) in a `BatchJob`, never a path to read again. Seeds are cut into
chunks, many runs per task, and each task returns plain rows; the rows are put back in
run order, so the tables are the same whatever the number of workers or the executor.

A batch is a `Plan` of one grid point; a sweep (`affray.runners.balancing.sweep`) is a Plan of
many, one `BatchJob` per point, each task the runs of one point. The row of a run
depends only on its point's job and its seed.

Each run is `World.run(until="settled")` then `World.run()`: the world jumps its idle
pulses (a fight ends long before a generous pulse cap), records the pulse it settled at,
and still ends at the scenario's end as `affray run` would. Per-run figures come from
the event log only (`damage`: amount, damage_type, source, target; `death`; `settled`),
so whatever the rules do inside, a batch counts what a player would have seen.

Three tables, as much as `collect` asks for: the run table (one row per run: the
contract's columns, the settled pulse, the winner, each side's creatures standing, the
varied values of a sweep, the error), the creature table (one row per run and creature:
its side, survival, hit points, damage taken and dealt in all and by type, hits taken and
landed, kills, the pulse of its death) and the rounds table (one row per run, round and
side: hit points and creatures standing every 12 pulses, a round's length, R-TIME-2).

A run that raises is a row with its `error` and empty figures; the batch goes on. A
run whose worker process died under it (killed, out of memory) is tried again, on its
own, a bounded number of times, then kept as a row with its `error` too: a batch never
loses the rows it finished.
"""

from __future__ import annotations

import json
import math
import numbers
import os
import threading
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import (
    FIRST_COMPLETED,
    BrokenExecutor,
    Executor,
    Future,
    ProcessPoolExecutor,
    wait,
)
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, overload

from affray.core.errors import ScenarioError, UsageError
from affray.core.esper_context import keeps_esper_world

if TYPE_CHECKING:
    import pyarrow as pa

    from affray.core.world import World
    from affray.data.content_loader import Content
    from affray.data.scenario import Blueprint, ScenarioFile

BACKENDS = ("local", "dask")
# How much a batch keeps, each level with the ones before it: the run table, the
# creature table, the rounds table.
COLLECT = ("runs", "creatures", "rounds")
Collect = Literal["runs", "creatures", "rounds"]
ROUND_PULSES = 12  # R-TIME-2: the rounds table samples every round's length
# The run table: run columns, then (a sweep) the point and the varied values, then per
# side its creatures standing, then per creature SCENARIO.md's four columns.
RUN_COLUMNS = (("run", "int64"), ("seed", "int64"), ("pulses", "int64"),
               ("settled", "int64"), ("winner", "string"), ("error", "string"))
CREATURE_COLUMNS = (("hp", "int64"), ("alive", "bool_"), ("damage_taken", "int64"),
                    ("struck", "int64"))
POINT_COLUMN = "point"  # a sweep's grid point, 0.. in grid order
# Per side (R-SIDE-1): how many of its creatures stand at the end, `side.<name>.standing`.
SIDE_PREFIX = "side."
# The creature table (one row per run and creature), after run, seed (and a sweep's point
# and varied values); then `damage_taken.<type>` and `damage_dealt.<type>` for every
# damage type that any run of the batch recorded.
LONG_COLUMNS = (("creature", "string"), ("side", "string"), ("survived", "bool_"),
                ("hp", "int64"), ("max_hp", "int64"), ("damage_taken", "int64"),
                ("damage_dealt", "int64"), ("struck", "int64"), ("hits", "int64"),
                ("kills", "int64"), ("death_pulse", "int64"))
TAKEN_PREFIX, DEALT_PREFIX = "damage_taken.", "damage_dealt."
# The rounds table (one row per run, round and side), after run, seed (point, values).
ROUND_COLUMNS = (("round", "int64"), ("pulse", "int64"), ("side", "string"),
                 ("hp", "int64"), ("alive", "int64"))


@dataclass(frozen=True, slots=True)
class BatchJob:
    """Everything a worker needs to build a run's World: shipped once per task.

    `spec` is the parsed scenario with its inline content already folded into
    `content` (layering and validating content is then not redone per run), `raw` its
    TOML tables (a World keeps them for saves), `creatures` the ids in spawn order and
    `damage_types` the canonical damage types. `blueprint` is the scenario validated and
    resolved once (`affray.data.scenario.Blueprint`): a run's World is built from it, its own
    copy of everything it may change, not from the file again.
    """

    spec: ScenarioFile
    raw: dict[str, Any]
    source: str
    content: Content
    creatures: tuple[str, ...]
    damage_types: tuple[str, ...]
    blueprint: Blueprint
    sides: tuple[str, ...] = ()

    def build(self, seed: int) -> World:
        return self.blueprint.build(seed)


def read_scenario(scenario: str | Path) -> tuple[Path, str]:
    """A scenario file's path and text: a file, or the name of a built-in scenario
    ("duel", "demo"). It must be a regular file of at most `affray.data.files.MAX_SOURCE_BYTES`
    (a FIFO or a device is refused unread)."""
    from affray.data.content_loader import read_source
    from affray.data.files import input_file

    path = Path(scenario)
    if not path.exists() and path.suffix == "" and path.name == str(scenario):
        from affray.data.scenario import builtin_scenario

        path = builtin_scenario(path.name)  # "duel": a built-in scenario by name
    input_file(path, ScenarioError)  # a regular file within the size limit, not a FIFO
    return path, read_source(path, ScenarioError)


def prepare(scenario: str | Path) -> BatchJob:
    """Read, parse and validate a scenario once (a test world is built and closed) and
    keep its `Blueprint`, from which every run's World is built."""
    from affray.data.scenario import parse_scenario

    path, text = read_scenario(scenario)
    spec, raw = parse_scenario(text, str(path))
    return prepare_parsed(spec, raw, str(path))


def prepare_parsed(spec: ScenarioFile, raw: dict[str, Any], source: str) -> BatchJob:
    """`prepare` from a scenario already parsed (a sweep's grid point: the raw tables
    edited at its paths and converted again)."""
    from msgspec.structs import replace as replace_struct

    from affray.data.content_loader import default_content
    from affray.data.scenario import prepare_build

    content = default_content().layered(spec.content, source)
    plain = replace_struct(spec, content={})  # its content is folded into `content`
    # Validates everything, as `affray check`, and keeps what every run shares.
    blueprint = prepare_build(plain, raw, source, content)
    creatures = tuple(planned.id for planned in blueprint.creatures)
    sides = tuple(dict.fromkeys(planned.values.side for planned in blueprint.creatures))
    return BatchJob(spec=plain, raw=raw, source=source, content=content,
                    creatures=creatures, damage_types=tuple(content.damage.types),
                    blueprint=blueprint, sides=sides)


@dataclass(frozen=True, slots=True)
class Plan:
    """What a batch or a sweep runs: one job per grid point (a batch: one), the varied
    paths and each point's values (a batch: none), and what the tables' metadata says
    (the scenario, its text, the grid). Stays in the calling process; only the jobs
    travel, one per task."""

    jobs: tuple[BatchJob, ...]
    paths: tuple[str, ...] = ()
    values: tuple[tuple[Any, ...], ...] = ((),)
    text: str = ""

    @property
    def swept(self) -> bool:
        return bool(self.paths)

    @property
    def creatures(self) -> tuple[str, ...]:
        return self.jobs[0].creatures

    @property
    def sides(self) -> tuple[str, ...]:
        """Every point's sides, in the order they first appear (a varied `player` or
        `template` may move a creature to another side at some points)."""
        return tuple(dict.fromkeys(side for job in self.jobs for side in job.sides))

    @property
    def damage_types(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(kind for job in self.jobs for kind in job.damage_types))


@dataclass(frozen=True, slots=True)
class Tables:
    """A batch's tables (pyarrow): `runs` always; `creatures` with collect="creatures"
    or "rounds"; `rounds` with collect="rounds". Each has `to_pandas()` (needs pandas:
    `affray[batch]`)."""

    runs: pa.Table
    creatures: pa.Table | None = None
    rounds: pa.Table | None = None


def columns(job: BatchJob | Plan) -> list[tuple[str, str]]:
    """The run table's columns in order: run columns, then per side its creatures
    standing, then per creature its four figures (a sweep's point and varied values,
    whose types depend on the values, come after `seed`: `_run_schema`)."""
    out = list(RUN_COLUMNS)
    out += [(f"{SIDE_PREFIX}{side}.standing", "int64") for side in job.sides]
    for creature in job.creatures:
        out += [(f"{creature}.{name}", kind) for name, kind in CREATURE_COLUMNS]
    return out


def check_table(table: pa.Table, source: str) -> None:
    """A results table read back from a file (`affray report`) holds a batch's columns
    with a batch's types: every run column, and for every creature (an `<id>.alive`
    column) each of its figures; an integer column integers, `alive` booleans (a CSV
    column with no value at all reads as nulls, and passes). Else a UsageError naming
    the file and the column, rather than a traceback or a silent wrong summary. Columns
    of older tables (`<id>.death_pulse`, `<id>.damage_taken.<type>`) are checked when
    there; `winner` and the side columns came later and may be missing."""
    import pyarrow as pa

    creatures = [name[:-len(".alive")] for name in table.column_names
                 if name.endswith(".alive")]
    if not creatures:
        hint = (" (this is a creature table: give the run table beside it)"
                if {"creature", "survived"} <= set(table.column_names) else "")
        raise UsageError(f"{source}: not a batch results table: no '<id>.alive' "
                         f"column{hint}")
    wanted = [column for column in RUN_COLUMNS if column[0] != "winner"]
    wanted += [(f"{creature}.{name}", kind) for creature in creatures
               for name, kind in CREATURE_COLUMNS]
    wanted += [(name, "string") for name in table.column_names if name == "winner"]
    wanted += [(name, "int64") for name in table.column_names
               if name.startswith(SIDE_PREFIX) and name.endswith(".standing")]
    wanted += [(name, "int64") for name in table.column_names
               if any(name == f"{creature}.death_pulse"
                      or name.startswith(f"{creature}.damage_taken.")
                      for creature in creatures)]
    _check_types(table, source, wanted, pa, "a batch results table")


def check_creature_table(table: pa.Table, source: str) -> None:
    """A creature table read back from a file: its columns with their types, as
    `check_table` does for the run table."""
    import pyarrow as pa

    wanted = [("run", "int64"), ("seed", "int64"), *LONG_COLUMNS]
    wanted += [(name, "int64") for name in table.column_names
               if name.startswith((TAKEN_PREFIX, DEALT_PREFIX))]
    _check_types(table, source, wanted, pa, "a batch's creature table")


def _check_types(table: pa.Table, source: str, wanted: list[tuple[str, str]], pa: Any,
                 what: str) -> None:
    accept = {"int64": pa.types.is_integer, "bool_": pa.types.is_boolean,
              "string": lambda kind: pa.types.is_string(kind) or pa.types.is_large_string(kind)}
    for name, kind in wanted:
        if name not in table.column_names:
            raise UsageError(f"{source}: not {what}: no {name!r} column")
        found = table.schema.field(name).type
        if not (pa.types.is_null(found) or accept[kind](found)):
            expected = {"int64": "whole numbers", "bool_": "true or false",
                        "string": "text"}[kind]
            raise UsageError(f"{source}: column {name!r} holds {found}, not {expected}: "
                             f"not {what}")


# -- one run ----------------------------------------------------------------------------------
# What a run gives back: its run row, its creature rows (collect="creatures"), its round
# rows (collect="rounds"); plain dicts, cheap to pickle.
Record = tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]


def run_one(job: BatchJob, run: int, seed: int) -> dict[str, Any]:
    """One run as a run-table row; an exception becomes the row's `error`."""
    return record_one(job, run, seed)[0]


def record_one(job: BatchJob, run: int, seed: int, collect: str = "runs") -> Record:
    """One run: its row, and its creature and round rows if `collect` asks for them.
    An exception becomes the row's `error` (and no creature or round rows)."""
    row: dict[str, Any] = {"run": run, "seed": seed, "pulses": None, "settled": None,
                           "error": None}
    try:
        world = job.build(seed)
    except Exception as error:
        row["error"] = f"{type(error).__name__}: {error}"
        return row, [], []
    rounds: list[dict[str, Any]] | None = [] if collect == "rounds" else None
    try:
        play(world, job, rounds)
        tally = Tally(world, job)
        row.update(tally.run_row())
        creatures = tally.creature_rows() if collect != "runs" else []
    except Exception as error:
        row["error"] = f"{type(error).__name__}: {error}"
        row["pulses"] = world.pulse
        return row, [], []
    finally:
        world.close()
    return row, creatures, rounds or []


def play(world: World, job: BatchJob, rounds: list[dict[str, Any]] | None = None) -> None:
    """Run a batch's run: to the pulse it settles at (a `settled` event), then to the
    scenario's end. With `rounds`, in steps of a round (ROUND_PULSES), each side's hit
    points and creatures standing appended at pulse 0, after each step and at the
    settled pulse. The log is the same either way: `run(pulses, until="settled")`
    stepped round by round stops and settles where one `run(until="settled")` would."""
    if rounds is None:
        world.run(until="settled")
        world.run()
        return
    end = world.end_pulse if world.end_pulse is not None else world.pulse
    _sample(world, job, rounds)
    while True:
        before = len(world.events)
        world.run(pulses=max(0, min(ROUND_PULSES, end - world.pulse)), until="settled")
        settled = len(world.events) > before and world.events[-1].kind == "settled"
        if world.pulse > rounds[-1]["pulse"]:
            _sample(world, job, rounds)
        if settled or world.pulse >= end:
            break
    world.run()


def _sample(world: World, job: BatchJob, rounds: list[dict[str, Any]]) -> None:
    """Each side's living creatures' hit points and count, now (one row per side)."""
    hp = dict.fromkeys(job.sides, 0)
    alive = dict.fromkeys(job.sides, 0)
    for creature in job.creatures:
        sheet = world.sheet(creature)
        if sheet.vitals.alive:
            side = sheet.creature.side
            hp[side] = hp.get(side, 0) + sheet.vitals.hp
            alive[side] = alive.get(side, 0) + 1
    index = len(rounds) // max(1, len(hp))
    rounds.extend({"round": index, "pulse": world.pulse, "side": side, "hp": hp[side],
                   "alive": alive[side]} for side in hp)


def note_death(event: Any, died: dict[str, int | None], kills: dict[str, int]) -> None:
    """A death event in a run's figures: the target's death pulse (its first death) and
    a kill for its killer (when the killer is one of the run's creatures)."""
    if died[event.target] is None:
        died[event.target] = event.pulse
    if event.killer in kills:
        kills[event.killer] += 1


class Tally:
    """A finished run's figures, from one pass over its log (damage taken and dealt by
    type, hits taken and landed, kills, deaths, the settled pulse) and its creatures'
    final state (hit points, life, side)."""

    def __init__(self, world: World, job: BatchJob, events: Any = None) -> None:
        """`events`: the log to read (None: the World's own)."""
        self.world, self.job = world, job
        ids = job.creatures
        self.taken: dict[str, dict[str, int]] = {creature: {} for creature in ids}
        self.dealt: dict[str, dict[str, int]] = {creature: {} for creature in ids}
        self.struck = dict.fromkeys(ids, 0)
        self.hits = dict.fromkeys(ids, 0)
        self.kills = dict.fromkeys(ids, 0)
        self.died: dict[str, int | None] = dict.fromkeys(ids, None)
        self.settled: int | None = None
        for event in world.events if events is None else events:
            kind = event.kind
            if kind == "damage":
                self._damage(event)
            elif kind == "death":
                note_death(event, self.died, self.kills)
            elif kind == "settled":
                self.settled = event.pulse

    def _damage(self, event: Any) -> None:
        target, amount, kind = event.target, event.amount, event.damage_type
        taken = self.taken[target]
        taken[kind] = taken.get(kind, 0) + amount
        self.struck[target] += 1
        dealt = self.dealt.get(event.source)
        if dealt is not None:
            dealt[kind] = dealt.get(kind, 0) + amount
            self.hits[event.source] += 1

    def run_row(self) -> dict[str, Any]:
        """The run table's figures: pulses, settled, the winner, each side's creatures
        standing, per creature hp, alive, damage taken and hits taken."""
        world = self.world
        row: dict[str, Any] = {"pulses": world.pulse, "settled": self.settled}
        standing = dict.fromkeys(self.job.sides, 0)
        for creature in self.job.creatures:
            sheet = world.sheet(creature)
            standing[sheet.creature.side] = standing.get(sheet.creature.side, 0) + \
                sheet.vitals.alive
        alive_sides = [side for side, count in standing.items() if count]
        # R-SIDE-1: the winner is the only side left standing of two or more (the summary's)
        row["winner"] = alive_sides[0] if len(standing) > 1 and len(alive_sides) == 1 \
            else None
        for side, count in standing.items():
            row[f"{SIDE_PREFIX}{side}.standing"] = count
        for creature in self.job.creatures:
            vitals = world.sheet(creature).vitals
            row[f"{creature}.hp"] = vitals.hp
            row[f"{creature}.alive"] = vitals.alive
            row[f"{creature}.damage_taken"] = sum(self.taken[creature].values())
            row[f"{creature}.struck"] = self.struck[creature]
        return row

    def creature_rows(self) -> list[dict[str, Any]]:
        """The creature table's rows of this run, one per creature in spawn order; the
        per-type columns only for the types it took or dealt (the table fills in 0)."""
        out = []
        for creature in self.job.creatures:
            sheet = self.world.sheet(creature)
            taken, dealt = self.taken[creature], self.dealt[creature]
            row: dict[str, Any] = {
                "creature": creature, "side": sheet.creature.side,
                "survived": sheet.vitals.alive, "hp": sheet.vitals.hp,
                "max_hp": sheet.vitals.max_hp, "damage_taken": sum(taken.values()),
                "damage_dealt": sum(dealt.values()), "struck": self.struck[creature],
                "hits": self.hits[creature], "kills": self.kills[creature],
                "death_pulse": self.died[creature]}
            row.update({f"{TAKEN_PREFIX}{kind}": amount for kind, amount in taken.items()})
            row.update({f"{DEALT_PREFIX}{kind}": amount for kind, amount in dealt.items()})
            out.append(row)
        return out


def figures(world: World, job: BatchJob) -> dict[str, Any]:
    """A finished run's run-table figures (`Tally.run_row`)."""
    return Tally(world, job).run_row()


# esper keeps one current world per process: two runs in threads of one process would
# switch it under each other. Runs in one process take turns (threads get no speed-up,
# but a thread pool, or a Dask worker with several threads, still gives the right rows).
_ONE_RUN_AT_A_TIME = threading.Lock()

# TEST SEAM, for the tests of lost workers only (tests/test_batch.py): with this set to a
# seed, a batch worker process (never the process that called `batch`) ends itself with
# `os._exit` just before it would run that seed, as a worker killed by the kernel's
# out-of-memory killer would. With TEST_EXIT_ONCE also set to a file path, it does so
# only once (the first worker to create that file). Nothing else reads them.
TEST_EXIT_SEED = "AFFRAY_TEST_EXIT_ON_SEED"
TEST_EXIT_ONCE = "AFFRAY_TEST_EXIT_ONCE"


def run_chunk(job: BatchJob, runs: Sequence[tuple[int, int]], collect: str = "runs"
              ) -> list[Record]:
    """One task: several (run, seed) pairs of one grid point, in order. Module level,
    so it pickles by name for a process pool or a Dask worker."""
    exit_seed = _test_exit_seed()
    from affray.runners.packing import PackedJob, run_packs

    if isinstance(job, PackedJob):
        if exit_seed is not None and any(seed == exit_seed for _, seed in runs):
            _test_exit()
        with _ONE_RUN_AT_A_TIME:
            return run_packs(job, runs, collect)
    records = []
    for run, seed in runs:
        if seed == exit_seed:
            _test_exit()
        with _ONE_RUN_AT_A_TIME:
            records.append(record_one(job, run, seed, collect))
    return records


def _test_exit_seed() -> int | None:
    """The seed the test seam ends a worker on (TEST_EXIT_SEED), in a worker process."""
    import multiprocessing

    value = os.environ.get(TEST_EXIT_SEED)
    if value is None or multiprocessing.parent_process() is None:
        return None
    try:
        return int(value)
    except ValueError:
        return None


def _test_exit() -> None:
    once = os.environ.get(TEST_EXIT_ONCE)
    if once:
        try:
            os.close(os.open(once, os.O_WRONLY | os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            return  # ended a worker once already
    os._exit(70)


# -- the arguments ---------------------------------------------------------------------------
MAX_WORKERS = 256  # processes on one machine (a fork start launches them all at once)
MAX_CHUNK_SIZE = 10_000  # runs per task: a task's rows travel back together
LOST_RUN_ATTEMPTS = 3  # a run whose worker died this often, on its own, is an error row
MAX_SEED = 2**63 - 1  # affray.data.scenario.MAX_SEED: a World's seed, an int64 column


def _whole(name: str, value: object, low: int, high: int, command: str = "batch") -> int:
    """A whole-number argument within low..high, or a UsageError saying so."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise UsageError(f"{command}: {name} must be a whole number, got {value!r}")
    number = int(value)
    if number < low:
        more = "0 or more" if low == 0 else f"{low} or more"
        raise UsageError(f"{command}: {name} must be {more}, got {number}")
    if number > high:
        raise UsageError(f"{command}: {name} must be at most {high:,}, got {number:,}")
    return number


@dataclass(frozen=True, slots=True)
class _Arguments:
    """`batch`'s arguments, checked: every misuse is a UsageError before any work."""

    runs: int
    seed: int
    workers: int
    chunk_size: int | None
    collect: str = "runs"
    pack: int | None = None  # K copies to a World (affray.runners.packing), None: one per run


def check_arguments(scenario: object, runs: object, seed: object = 0, workers: object = 1,
                    executor: object = None, backend: object = "local",
                    scheduler: object = None, chunk_size: object = None,
                    progress: object = None, collect: object = "runs",
                    command: str = "batch", pack: object = None) -> _Arguments:
    """Check `batch`'s arguments (types, bounds, combinations) and return them as ints.

    Seeds are `seed .. seed + runs - 1`, each a World seed 0..2**63-1, so `seed + runs`
    is at most 2**63. `scheduler` needs `backend="dask"`; `executor` excludes it.
    `command` names the caller in the messages (`sweep: runs must be ...`)."""
    if not isinstance(scenario, str | os.PathLike):
        raise UsageError(f"{command}: scenario must be a file path or a built-in "
                         f"scenario's name, got {type(scenario).__name__}")
    if not os.fspath(scenario):
        raise UsageError(f"{command}: scenario is an empty string")
    first = _whole("seed", seed, 0, MAX_SEED, command)
    count = _whole("runs", runs, 0, MAX_SEED + 1 - first, command)
    processes = _whole("workers", workers, 1, MAX_WORKERS, command)
    size = None if chunk_size is None else _whole("chunk_size", chunk_size, 1,
                                                  MAX_CHUNK_SIZE, command)
    if not isinstance(backend, str) or backend not in BACKENDS:
        raise UsageError(f"{command}: backend must be one of {', '.join(BACKENDS)}, "
                         f"not {backend!r}")
    if executor is not None and not isinstance(executor, Executor):
        raise UsageError(f"{command}: executor must be a concurrent.futures.Executor, got "
                         f"{type(executor).__name__}")
    if executor is not None and (backend != "local" or scheduler is not None):
        raise UsageError(f"{command}: give an executor or backend='dask' (and a "
                         f"scheduler), not both")
    if scheduler is not None:
        if backend != "dask":
            raise UsageError(f"{command}: scheduler= is a Dask scheduler's address: it "
                             f"needs backend='dask'")
        _check_scheduler(scheduler, command)
    if backend == "dask":
        _dask(command)  # the extra is installed, or a UsageError now
    if progress is not None and not callable(progress):
        raise UsageError(f"{command}: progress must be a function (done, total), got "
                         f"{type(progress).__name__}")
    if not isinstance(collect, str) or collect not in COLLECT:
        raise UsageError(f"{command}: collect must be one of {', '.join(COLLECT)}, "
                         f"not {collect!r}")
    from affray.runners.packing import MAX_PACK

    copies = None if pack is None else _whole("pack", pack, 1, MAX_PACK, command)
    return _Arguments(runs=count, seed=first, workers=processes, chunk_size=size,
                      collect=collect, pack=copies)


def _check_scheduler(scheduler: object, command: str = "batch") -> None:
    """A Dask address (`tcp://host:8786`, `tls://...`), told by Dask's own parser."""
    if not isinstance(scheduler, str) or not scheduler.strip():
        raise UsageError(f"{command}: scheduler must be a Dask scheduler's address such as "
                         f"tcp://host:8786, got {scheduler!r}")
    _dask(command)
    from distributed.comm.addressing import parse_address, parse_host_port

    try:
        protocol, location = parse_address(scheduler)
        if protocol in ("tcp", "tls"):
            parse_host_port(location)
    except (ValueError, TypeError) as problem:
        raise UsageError(f"{command}: scheduler {scheduler!r} is not a Dask address "
                         f"(tcp://host:8786): {problem}") from None


def _dask(command: str = "batch") -> Any:
    try:
        import distributed
    except ImportError:
        raise UsageError(f"{command}: the dask backend needs its extra: "
                         f"pip install 'affray[dask]'") from None
    return distributed


def _pyarrow(command: str = "batch") -> Any:
    try:
        import pyarrow as pa
    except ImportError:
        raise UsageError(f"{command} needs pyarrow: pip install 'affray[batch]'") from None
    return pa


# -- tasks ------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Task:
    """Runs `first .. first + count - 1` of grid point `point` (seed = the batch's seed
    + that run's index within its point), as one task.

    `losses` counts the times it was lost running on its own (a worker died under it);
    `unit` is a packed batch's K: a task holds whole packs and splits into packs."""

    first: int
    count: int
    losses: int = 0
    point: int = 0
    unit: int = 1

    def pairs(self, seed: int, per_point: int = 0) -> list[tuple[int, int]]:
        """(run, seed) pairs: the run is its row's number in the whole table."""
        offset = self.point * per_point
        return [(offset + index, seed + index)
                for index in range(self.first, self.first + self.count)]

    def singles(self) -> list[Task]:
        """Its runs one by one (a packed batch's: pack by pack)."""
        return [Task(index, min(self.unit, self.first + self.count - index), self.losses,
                     self.point, self.unit)
                for index in range(self.first, self.first + self.count, self.unit)]


def task_size(runs: int, capacity: int) -> int:
    """Runs per task: about 4 tasks per worker (load balance), at most 100 runs each (a
    progress bar that moves)."""
    return max(1, min(100, math.ceil(runs / (4 * max(1, capacity)))))


def tasks(runs: int, size: int, points: int = 1, unit: int = 1) -> Iterator[Task]:
    """The batch's tasks, made as they are asked for: a billion runs cost nothing until
    they are submitted (at most a few per worker are in flight at once). A task holds
    runs of one grid point only; points go in grid order. With `unit` (a packed batch's
    K) a task is whole packs: `size` rounded up to a multiple of it."""
    size = unit * math.ceil(size / unit)
    return (Task(first, min(size, runs - first), 0, point, unit)
            for point in range(points) for first in range(0, runs, size))


Progress = Callable[[int, int], None]


@dataclass(slots=True)
class _Work:
    """What the executor loop submits: each task's job, its pairs, what to collect."""

    plan: Plan
    seed: int
    per_point: int
    collect: str

    def submit(self, executor: Executor, task: Task) -> Future[list[Record]]:
        return executor.submit(run_chunk, self.plan.jobs[task.point],
                               task.pairs(self.seed, self.per_point), self.collect)


# -- the tables -------------------------------------------------------------------------------
def _json(value: Any) -> str:
    return json.dumps(value, default=str, ensure_ascii=False)


class _Collector:
    """The tables of finished tasks, each task's as small pyarrow tables (columns take a
    fraction of the memory of a dict per row), put in run order at the end.

    A sweep's point and varied values are filled in here, from the task's point, not by
    the workers; so is each column's type: a varied path's type is inferred once from
    all its values (text when they mix kinds, such as `damage = 10` and `"2d6"`)."""

    def __init__(self, plan: Plan, checked: _Arguments, progress: Progress | None,
                 pa: Any) -> None:
        self.plan, self.pa, self.progress = plan, pa, progress
        self.seed, self.per_point, self.collect = checked.seed, checked.runs, checked.collect
        self.total = len(plan.jobs) * checked.runs
        self.done = 0
        self.parts: dict[str, dict[int, Any]] = {"runs": {}, "creatures": {}, "rounds": {}}
        self.kinds_seen: set[str] = set()  # the per-type columns of the creature table
        self.varied = [self._varied_type(index) for index in range(len(plan.paths))]
        self.run_fields = [pa.field(name, getattr(pa, kind)()) for name, kind in columns(plan)
                           if name not in ("run", "seed")]

    def _varied_type(self, index: int) -> tuple[Any, Callable[[Any], Any]]:
        """A varied path's pyarrow type, and how a value is put in its column."""
        pa = self.pa
        values = [point[index] for point in self.plan.values]
        try:
            return pa.array(values).type, lambda value: value
        except (pa.ArrowException, OverflowError, TypeError, ValueError):
            return pa.string(), lambda value: value if isinstance(value, str) else _json(value)

    # -- one task's tables
    def _head(self, runs: list[int], seeds: list[int], point: int
              ) -> tuple[list[Any], dict[str, Any]]:
        """The leading columns: run, seed, and for a sweep the point and its values."""
        pa = self.pa
        fields = [pa.field("run", pa.int64()), pa.field("seed", pa.int64())]
        data: dict[str, Any] = {"run": runs, "seed": seeds}
        if self.plan.swept:
            fields.append(pa.field(POINT_COLUMN, pa.int64()))
            data[POINT_COLUMN] = [point] * len(runs)
            for path, value, (kind, put) in zip(self.plan.paths, self.plan.values[point],
                                                self.varied, strict=True):
                fields.append(pa.field(path, kind))
                data[path] = [put(value)] * len(runs)
        return fields, data

    def _table(self, head: tuple[list[Any], dict[str, Any]], fields: list[Any],
               rows: list[dict[str, Any]], kind: str) -> Any:
        pa = self.pa
        head_fields, data = head
        data.update({f.name: [row.get(f.name) for row in rows] for f in fields})
        schema = pa.schema([*head_fields, *fields], metadata=self.metadata(kind))
        return pa.Table.from_pydict(data, schema=schema)

    def keep(self, task: Task, records: list[Record]) -> None:
        key = task.point * self.per_point + task.first
        rows = [record[0] for record in records]
        for row in rows:  # a side with no creature at this point: none standing
            if row.get("error") is None:
                for side in self.plan.sides:
                    row.setdefault(f"{SIDE_PREFIX}{side}.standing", 0)
        head = self._head([row["run"] for row in rows], [row["seed"] for row in rows],
                          task.point)
        self.parts["runs"][key] = self._table(head, self.run_fields, rows, "runs")
        if self.collect != "runs":
            self._keep_long(key, task.point, records, 1, self._creature_fields, "creatures")
        if self.collect == "rounds":
            self._keep_long(key, task.point, records, 2, self._round_fields, "rounds")
        self.done += len(records)
        if self.progress is not None:
            self.progress(self.done, self.total)

    def _keep_long(self, key: int, point: int, records: list[Record], part: int,
                   fields_of: Callable[[list[dict[str, Any]]], list[Any]], kind: str) -> None:
        """A long table's rows of a task: each run's rows after its run and seed."""
        parts: list[tuple[dict[str, Any], list[dict[str, Any]]]] = [
            (record[0], record[1] if part == 1 else record[2]) for record in records]
        rows = [row for _, long in parts for row in long]
        runs = [run_row["run"] for run_row, long in parts for _ in long]
        seeds = [run_row["seed"] for run_row, long in parts for _ in long]
        self.parts[kind][key] = self._table(self._head(runs, seeds, point), fields_of(rows),
                                            rows, kind)

    def _creature_fields(self, rows: list[dict[str, Any]]) -> list[Any]:
        pa = self.pa
        kinds = {name for row in rows for name in row
                 if name.startswith((TAKEN_PREFIX, DEALT_PREFIX))}
        self.kinds_seen |= kinds
        for row in rows:  # a type the creature neither took nor dealt this run: 0
            for name in kinds:
                row.setdefault(name, 0)
        return [pa.field(name, getattr(pa, kind)()) for name, kind in LONG_COLUMNS] + \
            [pa.field(name, pa.int64()) for name in self._type_order(kinds)]

    def _round_fields(self, _rows: list[dict[str, Any]]) -> list[Any]:
        pa = self.pa
        return [pa.field(name, getattr(pa, kind)()) for name, kind in ROUND_COLUMNS]

    def _type_order(self, kinds: set[str]) -> list[str]:
        """The per-type columns in the content's order of damage types, taken first."""
        known = self.plan.damage_types
        order = [f"{prefix}{kind}" for prefix in (TAKEN_PREFIX, DEALT_PREFIX)
                 for kind in known]
        return [name for name in order if name in kinds] + \
            sorted(name for name in kinds if name not in order)

    def lost(self, task: Task, error: BaseException) -> None:
        """A run whose worker died under it LOST_RUN_ATTEMPTS times: an error row."""
        detail = str(error).splitlines()[0] if str(error) else ""
        if len(detail) > 160:
            detail = detail[:157] + "..."
        reason = (f"WorkerLost: the worker process died running it {task.losses} times "
                  f"(last: {type(error).__name__}: {detail})")
        self.keep(task, [({"run": run, "seed": seed, "pulses": None, "settled": None,
                           "error": reason}, [], [])
                         for run, seed in task.pairs(self.seed, self.per_point)])

    # -- the whole tables
    def metadata(self, kind: str) -> dict[str, str]:
        """What a table says of itself (kept by Parquet): the scenario (its path and
        text), which table it is, the seeds, and a sweep's varied paths and grid."""
        first = self.plan.jobs[0]
        meta = {"scenario": first.source, "creatures": ",".join(first.creatures),
                "table": kind, "seed": str(self.seed), "runs": str(self.per_point)}
        if self.plan.swept:
            meta["varied"] = _json(list(self.plan.paths))
            meta["grid"] = _json([list(point) for point in self.plan.values])
        if self.plan.text:
            meta["scenario_text"] = self.plan.text
        return meta

    def _joined(self, kind: str, empty_fields: list[Any]) -> Any:
        pa = self.pa
        parts = [self.parts[kind][key] for key in sorted(self.parts[kind])]
        if not parts:
            fields, data = self._head([], [], 0)
            data.update({f.name: [] for f in empty_fields})
            return pa.Table.from_pydict(data, schema=pa.schema(
                [*fields, *empty_fields], metadata=self.metadata(kind)))
        return pa.concat_tables(parts)

    def tables(self) -> Tables:
        runs = self._joined("runs", self.run_fields)
        if self.collect == "runs":
            return Tables(runs)
        creatures = self._padded() if self.parts["creatures"] else \
            self._joined("creatures", self._creature_fields([]))
        rounds = self._joined("rounds", self._round_fields([])) \
            if self.collect == "rounds" else None
        return Tables(runs, creatures, rounds)

    def _padded(self) -> Any:
        """The creature table with every per-type column any task saw, 0 where a task
        had none of that type, in the content's order: the same whatever the tasks."""
        pa = self.pa
        parts = []
        order = self._type_order(self.kinds_seen)
        for key in sorted(self.parts["creatures"]):
            part = self.parts["creatures"][key]
            for name in order:
                if name not in part.column_names:
                    part = part.append_column(pa.field(name, pa.int64()),
                                              pa.array([0] * part.num_rows, pa.int64()))
            head = [name for name in part.column_names
                    if not name.startswith((TAKEN_PREFIX, DEALT_PREFIX))]
            parts.append(part.select([*head, *order]).replace_schema_metadata(
                self.metadata("creatures")))
        return pa.concat_tables(parts)


# -- running ----------------------------------------------------------------------------------
@overload
def batch(scenario: str | Path, runs: int, seed: int = ..., workers: int = ...,
          executor: Executor | None = ..., *, backend: str = ..., scheduler: str | None = ...,
          chunk_size: int | None = ..., progress: Progress | None = ...,
          collect: Literal["runs"] = ..., pack: int | None = ...) -> pa.Table: ...


@overload
def batch(scenario: str | Path, runs: int, seed: int = ..., workers: int = ...,
          executor: Executor | None = ..., *, backend: str = ..., scheduler: str | None = ...,
          chunk_size: int | None = ..., progress: Progress | None = ...,
          collect: Literal["creatures", "rounds"], pack: int | None = ...) -> Tables: ...


@keeps_esper_world
def batch(scenario: str | Path, runs: int, seed: int = 0, workers: int = 1,
          executor: Executor | None = None, *, backend: str = "local",
          scheduler: str | None = None, chunk_size: int | None = None,
          progress: Progress | None = None, collect: str = "runs",
          pack: int | None = None) -> pa.Table | Tables:
    """Run `runs` seeds (`seed, seed+1, ...`) of a scenario; one pyarrow row per run.

    The run table's columns: `run`, `seed`, `pulses` (the pulse the run ended at: the
    scenario's end), `settled` (the pulse from which nothing was left to happen, or
    null), `winner` (the only side left standing, R-SIDE-1, or null), `error` (null, or
    the exception of a run that raised), `side.<name>.standing` per side, then for each
    creature id `<id>.hp`, `<id>.alive`, `<id>.damage_taken`, `<id>.struck` (hits
    taken: damage events, 0 hit points included).

    `collect="creatures"` returns `Tables`: the run table and the creature table (one
    row per run and creature: `creature`, `side`, `survived`, `hp`, `max_hp`,
    `damage_taken`, `damage_dealt`, `struck`, `hits`, `kills`, `death_pulse`, and
    `damage_taken.<type>` / `damage_dealt.<type>` for each type any run recorded);
    `collect="rounds"` adds the rounds table (per run, round and side: `round`, `pulse`,
    `side`, `hp` and `alive`, the hit points and count of its living creatures, at pulse
    0, every 12 pulses and at the settled pulse).

    Runs go to `executor` if given (any `concurrent.futures.Executor`); else with
    `backend="dask"` to a Dask cluster (`scheduler` address, or a LocalCluster of
    `workers` processes on TLS); else to a process pool of `workers` (in this process
    when `workers` is 1). The rows are the same whichever: each run depends on its seed
    only. `progress(done, total)` is called as tasks finish.

    `pack=K` runs K copies of the scenario side by side in one World, walled apart, so
    their rounds are vectorised together (`affray.runners.packing`, for throughput): each copy
    is a row of its own. A pack's World is seeded with its first run's seed, so a row
    is not its seed's unpacked row (except at K = 1) but has the same distribution;
    rows are the same for any workers or executor at the same K, and tasks (and
    `chunk_size`) are whole packs. A scenario that cannot be packed, or K copies past a
    bound of `world.limits`, is a UsageError before any work.

    Arguments are checked first (`check_arguments`): a UsageError before any work. Tasks
    are submitted as workers free up, a few per worker in flight. A task lost with its
    worker (a process pool broken by a killed worker, Dask's KilledWorker) is run again
    on its own (on a fresh pool when the pool broke), then run by run; a run lost
    `LOST_RUN_ATTEMPTS` times on its own is a row with its `error`: a batch keeps every
    row it finished.
    """
    pa = _pyarrow()
    checked = check_arguments(scenario, runs, seed, workers, executor, backend, scheduler,
                              chunk_size, progress, collect, pack=pack)
    path, text = read_scenario(scenario)
    from affray.data.scenario import parse_scenario

    spec, raw = parse_scenario(text, str(path))
    plan = Plan(jobs=(prepare_parsed(spec, raw, str(path)),), text=text)
    tables = run_plan(plan, checked, executor=executor, backend=backend,
                      scheduler=scheduler, progress=progress, pa=pa)
    return tables.runs if checked.collect == "runs" else tables


def run_plan(plan: Plan, checked: _Arguments, *, executor: Executor | None = None,
             backend: str = "local", scheduler: str | None = None,
             progress: Progress | None = None, pa: Any = None) -> Tables:
    """Run every point of a plan, `checked.runs` seeds each, on the executor, Dask or
    process pool `batch` describes; the tables in run order (point by point)."""
    pa = pa or _pyarrow()
    if checked.pack is not None:  # K copies to a World (affray.runners.packing)
        from affray.runners.packing import pack_plan

        plan = pack_plan(plan, checked.pack, checked.runs)
    collector = _Collector(plan, checked, progress, pa)
    work = _Work(plan, checked.seed, checked.runs, checked.collect)
    total = len(plan.jobs) * checked.runs
    if executor is not None:
        _on_executor(executor, work, checked, collector,
                     _capacity(executor, checked.workers), None)
    elif backend == "dask":
        _on_dask(work, checked, collector, scheduler)
    elif checked.workers == 1:
        size = checked.chunk_size or task_size(total, 1)
        for task in tasks(checked.runs, size, len(plan.jobs), checked.pack or 1):
            collector.keep(task, run_chunk(plan.jobs[task.point],
                                           task.pairs(checked.seed, checked.runs),
                                           checked.collect))
    else:
        _on_pool(work, checked, collector)
    return collector.tables()


def to_table(job: BatchJob, rows: list[dict[str, Any]], pa: Any) -> pa.Table:
    """Run rows as a pyarrow Table with the job's run-table columns, in order, typed."""
    fields = [pa.field(name, getattr(pa, kind)()) for name, kind in columns(job)]
    schema = pa.schema(fields, metadata={"scenario": job.source,
                                         "creatures": ",".join(job.creatures)})
    data = {column.name: [row.get(column.name) for row in rows] for column in fields}
    return pa.Table.from_pydict(data, schema=schema)


def _context() -> Any:
    """The platform's default start method (fork on Linux before Python 3.14): a script
    that calls `batch(..., workers=2)` at its top level then works without a
    `if __name__ == "__main__"` guard, which forkserver and spawn would need. A caller
    holding threads (a progress bar) starts its pool before them: see `start_pool`."""
    import multiprocessing

    return multiprocessing.get_context()


def start_pool(workers: int) -> ProcessPoolExecutor:
    """A process pool of `workers` with every worker already started, so a caller can
    then start threads (a progress bar) without forking a process that holds them."""
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=_context())
    for future in [pool.submit(os.getpid) for _ in range(workers)]:
        future.result()
    return pool


@contextmanager
def executor_for(checked: _Arguments, executor: Executor | None = None,
                 backend: str = "local", scheduler: str | None = None
                 ) -> Iterator[Executor | None]:
    """One executor for many `run_plan` calls (the balance solver's steps): the
    caller's, a process pool of `workers` started once, or a Dask cluster's (the local
    one started once); None for 1 local worker (in this process)."""
    if executor is not None:
        yield executor
    elif backend == "dask":
        from dask.distributed import Client

        if scheduler:
            with _remote_client(scheduler) as client:
                yield client.get_executor(pure=False)
            return
        with local_cluster(checked.workers) as (cluster, security), \
                Client(cluster, security=security) as client:
            yield client.get_executor(pure=False)
    elif checked.workers > 1:
        pool = ProcessPoolExecutor(max_workers=checked.workers, mp_context=_context())
        try:
            yield pool
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
    else:
        yield None


def _capacity(executor: Executor, workers: int) -> int:
    """How many tasks `executor` runs at once: a pool's size, a Dask cluster's threads,
    else `workers`."""
    size = getattr(executor, "_max_workers", None)
    if isinstance(size, int) and size > 0:
        return size
    client = getattr(executor, "_client", None)
    if client is not None:
        try:
            return max(1, sum(client.nthreads().values()))
        except Exception:  # a cluster that cannot say: the caller's count
            return workers
    return workers


def _on_pool(work: _Work, checked: _Arguments, rows: _Collector) -> None:
    """A process pool of at most `workers` (no more processes than tasks), replaced by a
    fresh one if a killed worker breaks it."""
    points = len(work.plan.jobs)
    size = min(checked.chunk_size or task_size(points * checked.runs, checked.workers),
               max(1, checked.runs))
    size = min((checked.pack or 1) * math.ceil(size / (checked.pack or 1)), max(1, checked.runs))
    processes = max(1, min(checked.workers, points * math.ceil(checked.runs / size)))

    def fresh() -> Executor:
        return ProcessPoolExecutor(max_workers=processes, mp_context=_context())

    _on_executor(None, work, checked, rows, processes, fresh)


def _on_executor(executor: Executor | None, work: _Work, checked: _Arguments,
                 rows: _Collector, capacity: int, fresh: Callable[[], Executor] | None
                 ) -> None:
    """Run the batch's tasks on `executor` (None: one from `fresh`, which this shuts
    down), at most 2 x `capacity` tasks in flight, new ones submitted as old ones finish.

    A task whose future fails with its worker's death (`_worker_lost`; any other
    failure is raised) was lost. It is a suspect: suspects run one at a time with
    nothing else in flight, so a loss then is that task's own. A suspect lost alone is
    split into its runs; a run lost alone `LOST_RUN_ATTEMPTS` times becomes an error row.
    A broken executor (BrokenExecutor: a process pool whose worker was killed) is
    replaced by `fresh()`, or, for a caller's executor, by a process pool of `workers`.
    """
    if fresh is None:
        def fresh() -> Executor:
            return ProcessPoolExecutor(max_workers=checked.workers, mp_context=_context())
    owned = executor is None
    current: Executor = fresh() if executor is None else executor
    points = len(work.plan.jobs)
    size = checked.chunk_size or task_size(points * checked.runs, capacity)
    source = tasks(checked.runs, size, points, checked.pack or 1)
    suspects: deque[Task] = deque()
    retry: deque[Task] = deque()  # not yet run: its submit found the executor broken
    in_flight: dict[Future[list[Record]], tuple[Task, bool]] = {}
    limit = 2 * max(1, capacity)
    try:
        while True:
            broken = _fill(current, work, source, suspects, retry, in_flight, limit)
            if in_flight:
                done, _ = wait(list(in_flight), return_when=FIRST_COMPLETED)
                for future in done:
                    task, alone = in_flight.pop(future)
                    broken |= _settle(future, task, alone, rows, suspects)
            elif not broken:
                return
            if broken:
                while in_flight:  # a broken pool fails every future still in flight
                    for future in wait(list(in_flight)).done:
                        task, alone = in_flight.pop(future)
                        _settle(future, task, alone, rows, suspects)
                if owned:
                    current.shutdown(wait=True, cancel_futures=True)
                current, owned = fresh(), True
    finally:
        if owned:
            current.shutdown(wait=True, cancel_futures=True)


def _fill(executor: Executor, work: _Work, source: Iterator[Task],
          suspects: deque[Task], retry: deque[Task],
          in_flight: dict[Future[list[Record]], tuple[Task, bool]], limit: int
          ) -> bool:
    """Submit what may go now; True if the executor turned out broken. A suspect goes
    only when nothing is in flight, and then alone."""
    while True:
        if any(alone for _, alone in in_flight.values()):
            return False
        if suspects:
            if in_flight:
                return False
            task, alone = suspects.popleft(), True
        elif len(in_flight) >= limit:
            return False
        elif retry:
            task, alone = retry.popleft(), False
        else:
            next_task = next(source, None)
            if next_task is None:
                return False
            task, alone = next_task, False
        try:
            future = work.submit(executor, task)
        except BrokenExecutor:
            (suspects if alone else retry).appendleft(task)
            return True
        in_flight[future] = (task, alone)


def _settle(future: Future[list[Record]], task: Task, alone: bool, rows: _Collector,
            suspects: deque[Task]) -> bool:
    """Keep a finished task's rows, or deal with a lost one; True if the executor broke."""
    try:
        result = future.result()
    except Exception as error:
        if not _worker_lost(error):
            raise  # not a lost worker but a fault that every task would meet
        if not alone:
            suspects.append(task)
        elif task.count > task.unit:
            suspects.extendleft(reversed(task.singles()))
        else:
            again = Task(task.first, task.count, task.losses + 1, task.point, task.unit)
            if again.losses >= LOST_RUN_ATTEMPTS:
                rows.lost(again, error)
            else:
                suspects.appendleft(again)
        return isinstance(error, BrokenExecutor)
    rows.keep(task, result)
    return False


def _worker_lost(error: BaseException) -> bool:
    """Whether a task's failure is its worker's death: a broken process pool, Dask's
    KilledWorker. (`run_chunk` never raises for a run: a run that raises is a row.)"""
    return isinstance(error, BrokenExecutor) or type(error).__name__ == "KilledWorker"


def _local_security() -> Any:
    """TLS with a temporary self-signed certificate (Dask's `Security.temporary`, which
    needs `cryptography`), so only this process and its workers can talk to the local
    cluster, rather than anyone on the machine."""
    from distributed.security import Security

    try:
        return Security.temporary()
    except ImportError:
        raise UsageError("batch: the dask backend's local cluster uses TLS, which needs "
                         "cryptography: pip install 'affray[dask]'") from None


def _remote_client(scheduler: str) -> Any:
    """A Dask Client on `scheduler` (security from Dask's own configuration)."""
    from dask.distributed import Client

    try:
        return Client(scheduler)
    except (OSError, TimeoutError) as problem:
        raise UsageError(f"batch: cannot reach the Dask scheduler at {scheduler}: "
                         f"{problem}") from None


def _on_dask(work: _Work, checked: _Arguments, rows: _Collector,
             scheduler: str | None) -> None:
    """Dask as the engine past one machine: a Client on `scheduler` (security from Dask's
    own configuration), or a LocalCluster of `workers` processes (`local_cluster`)."""
    from dask.distributed import Client

    if scheduler:
        with _remote_client(scheduler) as client:
            executor = client.get_executor(pure=False)
            _on_executor(executor, work, checked, rows,
                         _capacity(executor, checked.workers), lambda: executor)
        return
    with local_cluster(checked.workers) as (cluster, security), \
            Client(cluster, security=security) as client:
        executor = client.get_executor(pure=False)
        _on_executor(executor, work, checked, rows, checked.workers, lambda: executor)


@contextmanager
def local_cluster(workers: int) -> Iterator[tuple[Any, Any]]:
    """A Dask LocalCluster of `workers` processes with one thread each (esper keeps one
    current world per process, so two runs must never share a process at once), and the
    `Security` a client needs to reach it.

    It listens on 127.0.0.1 only, over TLS with a temporary certificate made for it
    (`_local_security`): a connection without that certificate is refused, so another
    process on the machine cannot submit work to it or read its results. It serves no
    HTTP pages (no dashboard; the info, JSON and metrics routes are off), and it gives
    up on a task the first time a worker dies under it (`allowed_failures=0`): the
    retries are ours (`_on_executor`), the same as on a process pool."""
    import dask
    from dask.distributed import LocalCluster

    security = _local_security()
    with dask.config.set({"distributed.scheduler.http.routes": [],
                          "distributed.worker.http.routes": []}):
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               host="127.0.0.1", protocol="tls://", security=security,
                               dashboard_address=None,
                               scheduler_kwargs={"allowed_failures": 0})
    with cluster:
        yield cluster, security


__all__ = ["COLLECT", "BatchJob", "Plan", "Tables", "batch", "check_arguments", "check_table",
           "columns", "local_cluster", "prepare", "run_one", "run_plan", "to_table"]
