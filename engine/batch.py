"""Batch runs of a scenario over many seeds (SCENARIO.md `batch`), for balancing.

The scenario is read and parsed once, here; what the workers get is the parsed spec, its
content layered once and its `Blueprint` (validated and resolved once: each run's World
is built from copies of it) in a `BatchJob`, never a path to read again. Seeds are cut into
chunks, many runs per task, and each task returns plain rows; the rows are put back in
run order, so the table is the same whatever the number of workers or the executor.

Each run is `World.run(until="settled")` then `World.run()`: the world jumps its idle
pulses (a fight ends long before a generous pulse cap), records the pulse it settled at,
and still ends at the scenario's end as `affray run` would. Per-run figures come from
the event log only (`damage`: amount, damage_type, target; `death`; `settled`), so
whatever the rules do inside, a batch counts what a player would have seen.

A run that raises is a row with its `error` and empty figures; the batch goes on. A
run whose worker process died under it (killed, out of memory) is tried again, on its
own, a bounded number of times, then kept as a row with its `error` too: a batch never
loses the rows it finished.
"""

from __future__ import annotations

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
from typing import TYPE_CHECKING, Any

from affray.errors import ScenarioError, UsageError
from affray.esper_context import keeps_esper_world

if TYPE_CHECKING:
    import pyarrow as pa

    from affray.content_loader import Content
    from affray.scenario import Blueprint, ScenarioFile
    from affray.world import World

BACKENDS = ("local", "dask")
# The per-creature columns (SCENARIO.md's four, then ours), their pyarrow type names.
CREATURE_COLUMNS = (("hp", "int64"), ("alive", "bool_"), ("damage_taken", "int64"),
                    ("struck", "int64"), ("death_pulse", "int64"))
RUN_COLUMNS = (("run", "int64"), ("seed", "int64"), ("pulses", "int64"),
               ("settled", "int64"), ("winner", "string"), ("error", "string"))
# Per side (R-SIDE-1): how many of its creatures stand at the end, `side.<name>.standing`.
SIDE_PREFIX = "side."


@dataclass(frozen=True, slots=True)
class BatchJob:
    """Everything a worker needs to build a run's World: shipped once per task.

    `spec` is the parsed scenario with its inline content already folded into
    `content` (layering and validating content is then not redone per run), `raw` its
    TOML tables (a World keeps them for saves), `creatures` the ids in spawn order and
    `damage_types` the canonical damage types: the table's columns. `blueprint` is the
    scenario validated and resolved once (`affray.scenario.Blueprint`): a run's World is
    built from it, its own copy of everything it may change, not from the file again.
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


def prepare(scenario: str | Path) -> BatchJob:
    """Read, parse and validate a scenario once (a test world is built and closed) and
    keep its `Blueprint`, from which every run's World is built.

    `scenario` is a file, or the name of a built-in scenario ("duel", "demo"). It must
    be a regular file of at most `affray.files.MAX_SOURCE_BYTES` (a FIFO or a device is
    refused unread)."""
    from msgspec.structs import replace as replace_struct

    from affray.content_loader import default_content, read_source
    from affray.files import input_file
    from affray.scenario import parse_scenario, prepare_build

    path = Path(scenario)
    if not path.exists() and path.suffix == "" and path.name == str(scenario):
        from affray.scenario import builtin_scenario

        path = builtin_scenario(path.name)  # "duel": a built-in scenario by name
    input_file(path, ScenarioError)  # a regular file within the size limit, not a FIFO
    spec, raw = parse_scenario(read_source(path, ScenarioError), str(path))
    content = default_content().layered(spec.content, str(path))
    plain = replace_struct(spec, content={})  # its content is folded into `content`
    # Validates everything, as `affray check`, and keeps what every run shares.
    blueprint = prepare_build(plain, raw, str(path), content)
    creatures = tuple(planned.id for planned in blueprint.creatures)
    sides = tuple(dict.fromkeys(planned.values.side for planned in blueprint.creatures))
    return BatchJob(spec=plain, raw=raw, source=str(path), content=content,
                    creatures=creatures, damage_types=tuple(content.damage.types),
                    blueprint=blueprint, sides=sides)


def columns(job: BatchJob) -> list[tuple[str, str]]:
    """The table's columns in order: run columns, then per creature its figures and its
    damage taken per damage type (`<id>.damage_taken.<type>`)."""
    out = list(RUN_COLUMNS)
    out += [(f"{SIDE_PREFIX}{side}.standing", "int64") for side in job.sides]
    for creature in job.creatures:
        out += [(f"{creature}.{name}", kind) for name, kind in CREATURE_COLUMNS]
        out += [(f"{creature}.damage_taken.{kind}", "int64") for kind in job.damage_types]
    return out


def check_table(table: pa.Table, source: str) -> None:
    """A results table read back from a file (`affray report`) holds a batch's columns
    with a batch's types: every run column, and for every creature (an `<id>.alive`
    column) each of its figures; an integer column integers, `alive` booleans (a CSV
    column with no value at all reads as nulls, and passes). Else a UsageError naming
    the file and the column, rather than a traceback or a silent wrong summary."""
    import pyarrow as pa

    accept = {"int64": pa.types.is_integer, "bool_": pa.types.is_boolean,
              "string": lambda kind: pa.types.is_string(kind) or pa.types.is_large_string(kind)}
    creatures = [name[:-len(".alive")] for name in table.column_names
                 if name.endswith(".alive")]
    if not creatures:
        raise UsageError(f"{source}: not a batch results table: no '<id>.alive' column")
    # `winner` and the side columns came later: a table without them is still a batch's
    wanted = [column for column in RUN_COLUMNS if column[0] != "winner"]
    wanted += [(f"{creature}.{name}", kind) for creature in creatures
               for name, kind in CREATURE_COLUMNS]
    wanted += [(name, "string") for name in table.column_names if name == "winner"]
    wanted += [(name, "int64") for name in table.column_names
               if name.startswith(SIDE_PREFIX) and name.endswith(".standing")]
    wanted += [(name, "int64") for name in table.column_names
               if any(name.startswith(f"{creature}.damage_taken.") for creature in creatures)]
    for name, kind in wanted:
        if name not in table.column_names:
            raise UsageError(f"{source}: not a batch results table: no {name!r} column")
        found = table.schema.field(name).type
        if not (pa.types.is_null(found) or accept[kind](found)):
            expected = {"int64": "whole numbers", "bool_": "true or false",
                        "string": "text"}[kind]
            raise UsageError(f"{source}: column {name!r} holds {found}, not {expected}: "
                             f"not a batch results table")


def run_one(job: BatchJob, run: int, seed: int) -> dict[str, Any]:
    """One run as a row; an exception becomes the row's `error`."""
    row: dict[str, Any] = {"run": run, "seed": seed, "pulses": None, "settled": None,
                           "error": None}
    try:
        world = job.build(seed)
    except Exception as error:
        row["error"] = f"{type(error).__name__}: {error}"
        return row
    try:
        world.run(until="settled")
        world.run()
        row.update(figures(world, job))
    except Exception as error:
        row["error"] = f"{type(error).__name__}: {error}"
        row["pulses"] = world.pulse
    finally:
        world.close()
    return row


def figures(world: World, job: BatchJob) -> dict[str, Any]:
    """A finished run's figures: final hit points and life from the creatures, the rest
    from the event log (damage taken in total and per type, hits, deaths, settling)."""
    taken = {creature: dict.fromkeys(job.damage_types, 0) for creature in job.creatures}
    struck = dict.fromkeys(job.creatures, 0)
    died: dict[str, int | None] = dict.fromkeys(job.creatures, None)
    settled = None
    for event in world.events:
        kind = event.kind
        if kind == "damage":
            target = event.target  # type: ignore[attr-defined]
            taken[target][event.damage_type] += event.amount  # type: ignore[attr-defined]
            struck[target] += 1
        elif kind == "death":
            target = event.target  # type: ignore[attr-defined]
            if died[target] is None:
                died[target] = event.pulse
        elif kind == "settled":
            settled = event.pulse
    row: dict[str, Any] = {"pulses": world.pulse, "settled": settled}
    standing = dict.fromkeys(job.sides, 0)
    for creature in job.creatures:
        sheet = world.sheet(creature)
        standing[sheet.creature.side] = standing.get(sheet.creature.side, 0) + \
            sheet.vitals.alive
    alive_sides = [side for side, count in standing.items() if count]
    # R-SIDE-1: the winner is the only side left standing of two or more (the summary's)
    row["winner"] = alive_sides[0] if len(standing) > 1 and len(alive_sides) == 1 else None
    for side, count in standing.items():
        row[f"{SIDE_PREFIX}{side}.standing"] = count
    for creature in job.creatures:
        vitals = world.sheet(creature).vitals
        by_type = taken[creature]
        row[f"{creature}.hp"] = vitals.hp
        row[f"{creature}.alive"] = vitals.alive
        row[f"{creature}.damage_taken"] = sum(by_type.values())
        row[f"{creature}.struck"] = struck[creature]
        row[f"{creature}.death_pulse"] = died[creature]
        for kind, amount in by_type.items():
            row[f"{creature}.damage_taken.{kind}"] = amount
    return row


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


def run_chunk(job: BatchJob, runs: Sequence[tuple[int, int]]) -> list[dict[str, Any]]:
    """One task: several (run, seed) pairs, in order. Module level, so it pickles by
    name for a process pool or a Dask worker."""
    exit_seed = _test_exit_seed()
    rows = []
    for run, seed in runs:
        if seed == exit_seed:
            _test_exit()
        with _ONE_RUN_AT_A_TIME:
            rows.append(run_one(job, run, seed))
    return rows


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
MAX_SEED = 2**63 - 1  # affray.scenario.MAX_SEED: a World's seed, an int64 column


def _whole(name: str, value: object, low: int, high: int) -> int:
    """A whole-number argument within low..high, or a UsageError saying so."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise UsageError(f"batch: {name} must be a whole number, got {value!r}")
    number = int(value)
    if number < low:
        more = "0 or more" if low == 0 else f"{low} or more"
        raise UsageError(f"batch: {name} must be {more}, got {number}")
    if number > high:
        raise UsageError(f"batch: {name} must be at most {high:,}, got {number:,}")
    return number


@dataclass(frozen=True, slots=True)
class _Arguments:
    """`batch`'s arguments, checked: every misuse is a UsageError before any work."""

    runs: int
    seed: int
    workers: int
    chunk_size: int | None


def check_arguments(scenario: object, runs: object, seed: object = 0, workers: object = 1,
                    executor: object = None, backend: object = "local",
                    scheduler: object = None, chunk_size: object = None,
                    progress: object = None) -> _Arguments:
    """Check `batch`'s arguments (types, bounds, combinations) and return them as ints.

    Seeds are `seed .. seed + runs - 1`, each a World seed 0..2**63-1, so `seed + runs`
    is at most 2**63. `scheduler` needs `backend="dask"`; `executor` excludes it."""
    if not isinstance(scenario, str | os.PathLike):
        raise UsageError(f"batch: scenario must be a file path or a built-in scenario's "
                         f"name, got {type(scenario).__name__}")
    if not os.fspath(scenario):
        raise UsageError("batch: scenario is an empty string")
    first = _whole("seed", seed, 0, MAX_SEED)
    count = _whole("runs", runs, 0, MAX_SEED + 1 - first)
    processes = _whole("workers", workers, 1, MAX_WORKERS)
    size = None if chunk_size is None else _whole("chunk_size", chunk_size, 1, MAX_CHUNK_SIZE)
    if not isinstance(backend, str) or backend not in BACKENDS:
        raise UsageError(f"batch: backend must be one of {', '.join(BACKENDS)}, "
                         f"not {backend!r}")
    if executor is not None and not isinstance(executor, Executor):
        raise UsageError(f"batch: executor must be a concurrent.futures.Executor, got "
                         f"{type(executor).__name__}")
    if executor is not None and (backend != "local" or scheduler is not None):
        raise UsageError("batch: give an executor or backend='dask' (and a scheduler), "
                         "not both")
    if scheduler is not None:
        if backend != "dask":
            raise UsageError("batch: scheduler= is a Dask scheduler's address: it needs "
                             "backend='dask'")
        _check_scheduler(scheduler)
    if backend == "dask":
        _dask()  # the extra is installed, or a UsageError now
    if progress is not None and not callable(progress):
        raise UsageError(f"batch: progress must be a function (done, total), got "
                         f"{type(progress).__name__}")
    return _Arguments(runs=count, seed=first, workers=processes, chunk_size=size)


def _check_scheduler(scheduler: object) -> None:
    """A Dask address (`tcp://host:8786`, `tls://...`), told by Dask's own parser."""
    if not isinstance(scheduler, str) or not scheduler.strip():
        raise UsageError(f"batch: scheduler must be a Dask scheduler's address such as "
                         f"tcp://host:8786, got {scheduler!r}")
    _dask()
    from distributed.comm.addressing import parse_address, parse_host_port

    try:
        protocol, location = parse_address(scheduler)
        if protocol in ("tcp", "tls"):
            parse_host_port(location)
    except (ValueError, TypeError) as problem:
        raise UsageError(f"batch: scheduler {scheduler!r} is not a Dask address "
                         f"(tcp://host:8786): {problem}") from None


def _dask() -> Any:
    try:
        import distributed
    except ImportError:
        raise UsageError("batch: the dask backend needs its extra: "
                         "pip install 'affray[dask]'") from None
    return distributed


# -- tasks ------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Task:
    """Runs `first .. first + count - 1` (seed = the batch's seed + run), as one task.

    `losses` counts the times it was lost running on its own (a worker died under it)."""

    first: int
    count: int
    losses: int = 0

    def pairs(self, seed: int) -> list[tuple[int, int]]:
        return [(run, seed + run) for run in range(self.first, self.first + self.count)]

    def singles(self) -> list[Task]:
        return [Task(run, 1, self.losses) for run in range(self.first, self.first + self.count)]


def task_size(runs: int, capacity: int) -> int:
    """Runs per task: about 4 tasks per worker (load balance), at most 100 runs each (a
    progress bar that moves)."""
    return max(1, min(100, math.ceil(runs / (4 * max(1, capacity)))))


def tasks(runs: int, size: int) -> Iterator[Task]:
    """The batch's tasks, made as they are asked for: a billion runs cost nothing until
    they are submitted (at most a few per worker are in flight at once)."""
    return (Task(first, min(size, runs - first)) for first in range(0, runs, size))


Progress = Callable[[int, int], None]


class _Rows:
    """The rows of finished tasks, each task's as a small pyarrow table (columns take a
    fraction of the memory of a dict per row), put in run order at the end."""

    def __init__(self, job: BatchJob, seed: int, total: int, progress: Progress | None,
                 pa: Any) -> None:
        self.job, self.seed, self.total, self.progress, self.pa = job, seed, total, progress, pa
        self.tables: dict[int, Any] = {}
        self.done = 0

    def keep(self, first: int, rows: list[dict[str, Any]]) -> None:
        self.tables[first] = to_table(self.job, rows, self.pa)
        self.done += len(rows)
        if self.progress is not None:
            self.progress(self.done, self.total)

    def lost(self, task: Task, error: BaseException) -> None:
        """A run whose worker died under it LOST_RUN_ATTEMPTS times: an error row."""
        detail = str(error).splitlines()[0] if str(error) else ""
        if len(detail) > 160:
            detail = detail[:157] + "..."
        reason = (f"WorkerLost: the worker process died running it {task.losses} times "
                  f"(last: {type(error).__name__}: {detail})")
        self.keep(task.first, [{"run": run, "seed": seed, "pulses": None, "settled": None,
                                "error": reason} for run, seed in task.pairs(self.seed)])

    def table(self) -> pa.Table:
        if not self.tables:
            return to_table(self.job, [], self.pa)
        return self.pa.concat_tables([self.tables[first] for first in sorted(self.tables)])


@keeps_esper_world
def batch(scenario: str | Path, runs: int, seed: int = 0, workers: int = 1,
          executor: Executor | None = None, *, backend: str = "local",
          scheduler: str | None = None, chunk_size: int | None = None,
          progress: Progress | None = None) -> pa.Table:
    """Run `runs` seeds (`seed, seed+1, ...`) of a scenario; one pyarrow row per run.

    Columns: `run`, `seed`, `pulses` (the pulse the run ended at: the scenario's end),
    `settled` (the pulse from which nothing was left to happen, or null), `error`
    (null, or the exception of a run that raised), then for each creature id `<id>.hp`,
    `<id>.alive`, `<id>.damage_taken`, `<id>.struck` (hits taken: damage events, 0 hit
    points included), `<id>.death_pulse` (null if it lived) and
    `<id>.damage_taken.<type>` for every damage type of the content.

    Runs go to `executor` if given (any `concurrent.futures.Executor`); else with
    `backend="dask"` to a Dask cluster (`scheduler` address, or a LocalCluster of
    `workers` processes on TLS); else to a process pool of `workers` (in this process
    when `workers` is 1). The rows are the same whichever: each run depends on its seed
    only. `progress(done, total)` is called as tasks finish.

    Arguments are checked first (`check_arguments`): a UsageError before any work. Tasks
    are submitted as workers free up, a few per worker in flight. A task lost with its
    worker (a process pool broken by a killed worker, Dask's KilledWorker) is run again
    on its own (on a fresh pool when the pool broke), then run by run; a run lost
    `LOST_RUN_ATTEMPTS` times on its own is a row with its `error`: a batch keeps every
    row it finished.
    """
    try:
        import pyarrow as pa
    except ImportError:
        raise UsageError("batch needs pyarrow: pip install 'affray[batch]'") from None
    checked = check_arguments(scenario, runs, seed, workers, executor, backend, scheduler,
                              chunk_size, progress)
    job = prepare(scenario)
    rows = _Rows(job, checked.seed, checked.runs, progress, pa)
    if executor is not None:
        _on_executor(executor, job, checked, rows, _capacity(executor, checked.workers),
                     None)
    elif backend == "dask":
        _on_dask(job, checked, rows, scheduler)
    elif checked.workers == 1:
        for task in tasks(checked.runs, checked.chunk_size or task_size(checked.runs, 1)):
            rows.keep(task.first, run_chunk(job, task.pairs(checked.seed)))
    else:
        _on_pool(job, checked, rows)
    return rows.table()


def to_table(job: BatchJob, rows: list[dict[str, Any]], pa: Any) -> pa.Table:
    """The rows as a pyarrow Table with the job's columns, in order, typed."""
    fields = [pa.field(name, getattr(pa, kind)()) for name, kind in columns(job)]
    schema = pa.schema(fields, metadata={"scenario": job.source,
                                         "creatures": ",".join(job.creatures)})
    data = {field.name: [row.get(field.name) for row in rows] for field in fields}
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


def _on_pool(job: BatchJob, checked: _Arguments, rows: _Rows) -> None:
    """A process pool of at most `workers` (no more processes than tasks), replaced by a
    fresh one if a killed worker breaks it."""
    size = checked.chunk_size or task_size(checked.runs, checked.workers)
    processes = max(1, min(checked.workers, math.ceil(checked.runs / size)))

    def fresh() -> Executor:
        return ProcessPoolExecutor(max_workers=processes, mp_context=_context())

    _on_executor(None, job, checked, rows, processes, fresh)


def _on_executor(executor: Executor | None, job: BatchJob, checked: _Arguments,
                 rows: _Rows, capacity: int, fresh: Callable[[], Executor] | None) -> None:
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
    size = checked.chunk_size or task_size(checked.runs, capacity)
    source = tasks(checked.runs, size)
    suspects: deque[Task] = deque()
    retry: deque[Task] = deque()  # not yet run: its submit found the executor broken
    in_flight: dict[Future[list[dict[str, Any]]], tuple[Task, bool]] = {}
    limit = 2 * max(1, capacity)
    try:
        while True:
            broken = _fill(current, job, checked.seed, source, suspects, retry, in_flight,
                           limit)
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


def _fill(executor: Executor, job: BatchJob, seed: int, source: Iterator[Task],
          suspects: deque[Task], retry: deque[Task],
          in_flight: dict[Future[list[dict[str, Any]]], tuple[Task, bool]], limit: int
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
            future = executor.submit(run_chunk, job, task.pairs(seed))
        except BrokenExecutor:
            (suspects if alone else retry).appendleft(task)
            return True
        in_flight[future] = (task, alone)


def _settle(future: Future[list[dict[str, Any]]], task: Task, alone: bool, rows: _Rows,
            suspects: deque[Task]) -> bool:
    """Keep a finished task's rows, or deal with a lost one; True if the executor broke."""
    try:
        result = future.result()
    except Exception as error:
        if not _worker_lost(error):
            raise  # not a lost worker but a fault that every task would meet
        if not alone:
            suspects.append(task)
        elif task.count > 1:
            suspects.extendleft(reversed(task.singles()))
        else:
            again = Task(task.first, 1, task.losses + 1)
            if again.losses >= LOST_RUN_ATTEMPTS:
                rows.lost(again, error)
            else:
                suspects.appendleft(again)
        return isinstance(error, BrokenExecutor)
    rows.keep(task.first, result)
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


def _on_dask(job: BatchJob, checked: _Arguments, rows: _Rows, scheduler: str | None) -> None:
    """Dask as the engine past one machine: a Client on `scheduler` (security from Dask's
    own configuration), or a LocalCluster of `workers` processes (`local_cluster`)."""
    from dask.distributed import Client

    if scheduler:
        try:
            client = Client(scheduler)
        except (OSError, TimeoutError) as problem:
            raise UsageError(f"batch: cannot reach the Dask scheduler at {scheduler}: "
                             f"{problem}") from None
        with client:
            executor = client.get_executor(pure=False)
            _on_executor(executor, job, checked, rows, _capacity(executor, checked.workers),
                         lambda: executor)
        return
    with local_cluster(checked.workers) as (cluster, security), \
            Client(cluster, security=security) as client:
        executor = client.get_executor(pure=False)
        _on_executor(executor, job, checked, rows, checked.workers, lambda: executor)


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


__all__ = ["BatchJob", "batch", "check_arguments", "check_table", "columns", "local_cluster",
           "prepare", "run_one", "to_table"]
