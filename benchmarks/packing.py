"""Packed duels (`batch(..., pack=K)`, affray.runners.packing): duels per second unpacked and
packed 1,000 to a World in one run, a pack's parts apart, and 1 -> 2 workers both ways.

Every figure is the whole of `batch` (tables included) on the standard duel, and each
row says the CPU time too: on a shared machine the wall time of 2 workers says how many
cores they got, the CPU per duel what 2 free cores would give. The 2-worker rows say
where the time went: the pool's start-up (a cold `batch(workers=2)` against a warmed
pool), the tasks (their count, and what shipping the job costs each), and contention
(the CPU a duel costs in a worker against in one process). The packed pair is timed at
10 packs and again at 40 (`long`): a short batch's last pack, which one worker plays
while the other waits, weighs four times as much in the first.

`python -m benchmarks.packing` runs these rows alone (`--quick`: small sizes).
"""

from __future__ import annotations

import math
import pickle
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from affray.data.content_loader import Content
from affray.data.scenario import builtin_scenario
from affray.runners.batch import _context, batch, prepare, task_size

from .timing import Result, importable, result_from, skipped


@dataclass(frozen=True, slots=True)
class PackPlan:
    unpacked: int   # duels timed unpacked
    packed: int     # duels timed packed
    pack: int       # K
    pool_unpacked: int  # duels of the unpacked 1 -> 2 worker rows
    pool_packed: int    # duels of the packed 1 -> 2 worker rows
    spin: float         # seconds of each busy loop of the cores row
    pool_packed_long: int = 0  # and of the long ones: 4 x as many packs


QUICK_PACK = PackPlan(unpacked=40, packed=200, pack=100, pool_unpacked=40,
                      pool_packed=200, spin=0.2, pool_packed_long=800)
FULL_PACK = PackPlan(unpacked=2_000, packed=10_000, pack=1_000, pool_unpacked=2_000,
                     pool_packed=10_000, spin=1.5, pool_packed_long=40_000)
ROWS = ("duels unpacked (1 core)", "duels packed (1 core)", "packed duel: build",
        "packed duel: play", "packed duel: tables", "unpacked, 1 worker",
        "unpacked, 2 workers (cold pool)", "unpacked, 2 workers (warm pool)",
        "packed, 1 worker", "packed, 2 workers (warm pool)", "packed, 1 worker (long)",
        "packed, 2 workers (warm pool, long)", "cores to be had: spin 1 -> 2")


def packed_duels(content: Content, plan: object) -> list[Result]:
    """The suite's rows (`benchmarks.suite.BENCHMARKS`); QUICK_PACK with `--quick`."""
    from .suite import QUICK

    if not importable("pyarrow"):
        return skipped(ROWS, "pyarrow", "batch")
    sizes = QUICK_PACK if plan is QUICK else FULL_PACK
    return [*rates(sizes), *pack_parts(sizes), *workers(sizes),
            cores_to_be_had(sizes.spin)]


def _timed(call: Any) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process) of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    call()
    return time.perf_counter() - wall, time.process_time() - cpu


def rates(sizes: PackPlan) -> list[Result]:
    """Duels per second on one core, unpacked and packed K to a World, in one run."""
    duel = builtin_scenario("duel")
    batch(duel, 2)
    batch(duel, 4, pack=2)  # warm-up: first-use imports and caches
    plain_wall, plain_cpu = _timed(lambda: batch(duel, sizes.unpacked))
    packed_wall, packed_cpu = _timed(lambda: batch(duel, sizes.packed, pack=sizes.pack))
    plain = result_from(ROWS[0], f"{sizes.unpacked:,} duels", "duel", sizes.unpacked,
                        [plain_wall],
                        note=f"{sizes.unpacked / plain_wall:,.0f} duels/s, "
                             f"{sizes.unpacked / plain_cpu:,.0f} per CPU second")
    packed = result_from(ROWS[1], f"{sizes.packed:,} duels, pack={sizes.pack:,}", "duel",
                         sizes.packed, [packed_wall],
                         note=f"{sizes.packed / packed_wall:,.0f} duels/s, "
                              f"{sizes.packed / packed_cpu:,.0f} per CPU second (target "
                              f"10,000)")
    packed.ratio = (plain_cpu / sizes.unpacked) / (packed_cpu / sizes.packed)
    packed.ratio_of = "unpacked, CPU per duel"
    return [plain, packed]


def pack_parts(sizes: PackPlan) -> list[Result]:
    """A pack's parts, CPU microseconds a duel: build the pack's World from its
    Blueprint, play it (the rounds, vectorised), and its rows (the log read once)."""
    from affray.runners.packing import _Copy, _records, build_pack, pack_job, play_pack

    job = pack_job(prepare(builtin_scenario("duel")), sizes.pack)
    parts: dict[str, list[float]] = {"build": [], "play": [], "tables": []}
    for seed in range(max(1, sizes.packed // sizes.pack)):
        start = time.process_time()
        world = build_pack(job, sizes.pack, seed)
        built = time.process_time()
        copies = [_Copy(world, job, index) for index in range(sizes.pack)]
        settled = play_pack(world, job, copies)
        played = time.process_time()
        heads = [{"run": index, "seed": seed, "pulses": None, "settled": None,
                  "error": None} for index in range(sizes.pack)]
        _records(world, job, copies, heads, settled, "runs", None)
        parts["tables"].append(time.process_time() - played)
        parts["play"].append(played - built)
        parts["build"].append(built - start)
        world.close()
    rows = []
    for name, times in zip(ROWS[2:5], parts.values(), strict=True):
        row = result_from(name, f"pack={sizes.pack:,}", "duel", sizes.pack, times)
        row.note = f"{row.per_unit_us:.0f} CPU us a duel, median of packs"
        rows.append(row)
    return rows


def workers(sizes: PackPlan) -> list[Result]:
    """1 -> 2 workers, unpacked (cold pool and warm pool) and packed (warm pool)."""
    from affray.runners.packing import pack_job

    duel = builtin_scenario("duel")
    plain_job = prepare(duel)
    shipped = {None: len(pickle.dumps(plain_job)),
               sizes.pack: len(pickle.dumps(pack_job(plain_job, sizes.pack)))}
    rows = []
    # The long packed pair: 4 x the packs, so the last pack's wait and a worker's first
    # unpickle of the job weigh a quarter as much as in the short one.
    for label, runs, pack, suffix in (("unpacked", sizes.pool_unpacked, None, ""),
                                      ("packed", sizes.pool_packed, sizes.pack, ""),
                                      ("packed", sizes.pool_packed_long, sizes.pack,
                                       " (long)")):
        one_wall, one_cpu = _timed(lambda runs=runs, pack=pack: batch(duel, runs, pack=pack))
        one = result_from(f"{label}, 1 worker{suffix}", f"{runs:,} duels", "duel", runs,
                          [one_wall],
                          note=f"{runs / one_wall:,.0f} duels/s, {one_cpu / runs * 1e3:.3f} "
                               f"CPU ms a duel")
        rows.append(one)
        if pack is None:
            cold_wall, _ = _timed(lambda runs=runs: batch(duel, runs, workers=2))
            cold = result_from(ROWS[6], f"{runs:,} duels", "duel", runs, [cold_wall],
                               note=f"{runs / cold_wall:,.0f} duels/s, pool start-up "
                                    f"included")
            cold.ratio, cold.ratio_of = one_wall / cold_wall, "1 worker"
            rows.append(cold)
        warm = _warm_pool(duel, runs, pack, one_wall, one_cpu, shipped[pack],
                          ", long" if suffix else "")
        rows.append(warm)
    return rows


def _warm_pool(duel: Any, runs: int, pack: int | None, one_wall: float, one_cpu: float,
               job_bytes: int, suffix: str = "") -> Result:
    """The batch on a started, warmed pool of 2: its wall time, the cores the workers
    got (their CPU over the wall time), the CPU per duel in the workers and the parent,
    and the tasks it was cut into."""
    from .duels import _cpu_seconds

    size = task_size(runs, 2)  # what batch cuts the runs into (whole packs when packed)
    if pack:
        size = pack * math.ceil(size / pack)
    tasks = math.ceil(runs / size)
    with ProcessPoolExecutor(max_workers=2, mp_context=_context()) as pool:
        batch(duel, 4, executor=pool, pack=pack and 2)  # start and warm both workers
        pids = [process.pid for process in pool._processes.values()  # type: ignore[union-attr]
                if process.pid is not None]
        before, parent = _cpu_seconds(pids), time.process_time()
        wall, _ = _timed(lambda: batch(duel, runs, executor=pool, pack=pack))
        worker_cpu = _cpu_seconds(pids) - before
        parent_cpu = time.process_time() - parent
    label = "packed" if pack else "unpacked"
    cpu = worker_cpu + parent_cpu
    row = result_from(f"{label}, 2 workers (warm pool{suffix})", f"{runs:,} duels", "duel",
                      runs,
                      [wall],
                      note=f"{runs / wall:,.0f} duels/s; workers got {worker_cpu / wall:.2f} "
                           f"cores; {worker_cpu / runs * 1e3:.3f} CPU ms a duel in the "
                           f"workers (1 worker: {one_cpu / runs * 1e3:.3f}), parent "
                           f"{parent_cpu:.2f} s; {tasks} tasks, the job {job_bytes:,} "
                           f"bytes each; {2 * one_cpu / cpu:.2f}x on 2 free cores")
    row.ratio, row.ratio_of = one_wall / wall, "1 worker"
    return row


def _spin(seconds: float) -> float:
    """Busy-loop for `seconds` of wall time; the CPU seconds this process got."""
    start, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        pass
    return time.process_time() - cpu


def cores_to_be_had(seconds: float = 1.5) -> Result:
    """The control for the 2-worker rows: a busy loop in 1 process, then in 2 at once;
    the cores each got (CPU over wall). What 2 workers can gain over 1 on this machine
    now is at most the second figure over the first: 2.0 on 2 free cores."""
    one = _spin(seconds) / seconds
    with ProcessPoolExecutor(max_workers=2, mp_context=_context()) as pool:
        list(pool.map(_spin, [0.01, 0.01]))  # both started
        two = sum(pool.map(_spin, [seconds, seconds])) / seconds
    row = result_from(ROWS[-1], f"{seconds} s busy loops", "loop", 1, [seconds],
                      note=f"1 process got {one:.2f} cores, 2 got {two:.2f} together: at "
                           f"most {two / one:.2f}x from a second worker here, now")
    row.ratio, row.ratio_of = two / one, "1 process"
    return row


if __name__ == "__main__":  # pragma: no cover - a tool
    import sys

    from rich.console import Console

    from affray.data.content_loader import default_content

    from .runner import render
    from .suite import FULL, QUICK
    from .timing import machine_info

    chosen = QUICK if "--quick" in sys.argv else FULL
    Console().print(render(packed_duels(default_content(), chosen), machine_info(),
                           "packed duels"))
