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

A run that raises is a row with its `error` and empty figures; the batch goes on.
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor, as_completed
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
               ("settled", "int64"), ("error", "string"))


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

    def build(self, seed: int) -> World:
        return self.blueprint.build(seed)


def prepare(scenario: str | Path) -> BatchJob:
    """Read, parse and validate a scenario once (a test world is built and closed) and
    keep its `Blueprint`, from which every run's World is built.

    `scenario` is a file, or the name of a built-in scenario ("duel", "demo")."""
    from msgspec.structs import replace as replace_struct

    from affray.content_loader import default_content, read_source
    from affray.scenario import parse_scenario, prepare_build

    path = Path(scenario)
    if not path.exists() and path.suffix == "" and path.name == str(scenario):
        from affray.scenario import builtin_scenario

        path = builtin_scenario(path.name)  # "duel": a built-in scenario by name
    spec, raw = parse_scenario(read_source(path, ScenarioError), str(path))
    content = default_content().layered(spec.content, str(path))
    plain = replace_struct(spec, content={})  # its content is folded into `content`
    # Validates everything, as `affray check`, and keeps what every run shares.
    blueprint = prepare_build(plain, raw, str(path), content)
    creatures = tuple(planned.id for planned in blueprint.creatures)
    return BatchJob(spec=plain, raw=raw, source=str(path), content=content,
                    creatures=creatures, damage_types=tuple(content.damage.types),
                    blueprint=blueprint)


def columns(job: BatchJob) -> list[tuple[str, str]]:
    """The table's columns in order: run columns, then per creature its figures and its
    damage taken per damage type (`<id>.damage_taken.<type>`)."""
    out = list(RUN_COLUMNS)
    for creature in job.creatures:
        out += [(f"{creature}.{name}", kind) for name, kind in CREATURE_COLUMNS]
        out += [(f"{creature}.damage_taken.{kind}", "int64") for kind in job.damage_types]
    return out


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


def run_chunk(job: BatchJob, runs: Sequence[tuple[int, int]]) -> list[dict[str, Any]]:
    """One task: several (run, seed) pairs, in order. Module level, so it pickles by
    name for a process pool or a Dask worker."""
    rows = []
    for run, seed in runs:
        with _ONE_RUN_AT_A_TIME:
            rows.append(run_one(job, run, seed))
    return rows


def chunks(runs: int, seed: int, workers: int, size: int | None = None
           ) -> list[list[tuple[int, int]]]:
    """(run, seed) pairs cut into tasks: about 4 per worker (load balance) and at most
    100 runs each (a progress bar that moves), unless `size` is given."""
    if size is None:
        size = max(1, min(100, math.ceil(runs / (4 * max(1, workers)))))
    pairs = [(run, seed + run) for run in range(runs)]
    return [pairs[start:start + size] for start in range(0, runs, size)]


Progress = Callable[[int, int], None]


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
    `workers` processes); else to a process pool of `workers` (in this process when
    `workers` is 1). The rows are the same whichever: each run depends on its seed only.
    `progress(done, total)` is called as tasks finish.
    """
    try:
        import pyarrow as pa
    except ImportError:
        raise UsageError("batch needs pyarrow: pip install 'affray[batch]'") from None
    if runs < 0:
        raise UsageError(f"batch: runs must be 0 or more, got {runs}")
    if workers < 1:
        raise UsageError(f"batch: workers must be 1 or more, got {workers}")
    if backend not in BACKENDS:
        raise UsageError(f"batch: backend must be one of {', '.join(BACKENDS)}, "
                         f"not {backend!r}")
    job = prepare(scenario)
    tasks = chunks(runs, seed, workers, chunk_size)
    rows: list[dict[str, Any]] = []
    if executor is not None:
        rows = _gather(executor, job, tasks, runs, progress)
    elif backend == "dask":
        rows = _on_dask(job, tasks, runs, workers, scheduler, progress)
    elif workers == 1:
        for task in tasks:
            rows += run_chunk(job, task)
            if progress is not None:
                progress(len(rows), runs)
    else:
        with ProcessPoolExecutor(max_workers=workers, mp_context=_context()) as pool:
            rows = _gather(pool, job, tasks, runs, progress)
    rows.sort(key=lambda row: row["run"])
    return to_table(job, rows, pa)


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


def _gather(executor: Executor, job: BatchJob, tasks: Iterable[list[tuple[int, int]]],
            runs: int, progress: Progress | None) -> list[dict[str, Any]]:
    futures: list[Future[list[dict[str, Any]]]] = [executor.submit(run_chunk, job, task)
                                                    for task in tasks]
    rows: list[dict[str, Any]] = []
    for future in as_completed(futures):
        rows += future.result()
        if progress is not None:
            progress(len(rows), runs)
    return rows


def _on_dask(job: BatchJob, tasks: list[list[tuple[int, int]]], runs: int, workers: int,
             scheduler: str | None, progress: Progress | None) -> list[dict[str, Any]]:
    """Dask as the engine past one machine: a Client on `scheduler`, or a LocalCluster of
    `workers` processes with one thread each (esper keeps one current world per
    process, so two runs must never share a process at once)."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise UsageError("batch: the dask backend needs its extra: "
                         "pip install 'affray[dask]'") from None
    if scheduler:
        with Client(scheduler) as client:
            return _gather(client.get_executor(pure=False), job, tasks, runs, progress)
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        return _gather(client.get_executor(pure=False), job, tasks, runs, progress)


__all__ = ["BatchJob", "batch", "columns", "prepare", "run_one", "to_table"]
