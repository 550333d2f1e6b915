"""Headless batch figures: duels per second, a duel's build and run apart, the 1 -> 2
worker speed-up, the idle pulse stepped and jumped, and scenario loading at 1,000 and
10,000 creatures.

Balancing runs thousands of fights, so a duel's whole cost (build the world from the
prepared job's blueprint, fight to the death, jump the idle pulses to the scenario's end,
count the log, close) is the figure that matters, on the standard duel
(content/scenarios/duel.toml, its pulse cap far past the death). The 2-worker row runs
the same batch on a process pool started and warmed before the clock starts; on a
shared 2-core machine it only means something when the machine is otherwise quiet.
"""

from __future__ import annotations

import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from affray.core.world import World
from affray.data.content_loader import Content
from affray.data.scenario import build_world, builtin_scenario, parse_scenario
from affray.runners.batch import _context, batch, prepare, run_one

from .timing import Result, importable, result_from, skipped, time_repeats


@dataclass(frozen=True, slots=True)
class DuelPlan:
    duels: int
    repeats: int
    pool_runs: int
    idle_pulses: int
    load_sizes: tuple[int, ...]
    load_repeats: int


QUICK_DUELS = DuelPlan(duels=10, repeats=1, pool_runs=8, idle_pulses=200,
                       load_sizes=(1_000,), load_repeats=1)
FULL_DUELS = DuelPlan(duels=300, repeats=5, pool_runs=2_000, idle_pulses=20_000,
                      load_sizes=(1_000, 10_000), load_repeats=3)


def duels(content: Content, plan: object) -> list[Result]:
    """The batch benchmarks; sizes from QUICK_DUELS when the suite runs `--quick`."""
    from .suite import QUICK

    sizes = QUICK_DUELS if plan is QUICK else FULL_DUELS
    # `batch` builds pyarrow tables: without the batch extra its rows say they skipped.
    pool = (pool_speedup(sizes) if importable("pyarrow")
            else skipped(POOL_ROWS, "pyarrow", "batch"))
    return [*duel_rate(sizes), *duel_parts(sizes), *pool, *idle_pulse_cost(sizes),
            *scenario_loading(sizes)]


POOL_ROWS = ("batch, 1 worker", "batch, 2 workers")  # pool_speedup's rows


def duel_rate(sizes: DuelPlan) -> list[Result]:
    """Duels per second on one core, the way `batch` runs them (`run_one`)."""
    job = prepare(builtin_scenario("duel"))
    run_one(job, 0, 0)  # warm-up: first-use imports and caches do not count
    count = sizes.duels

    def block() -> None:
        for run in range(count):
            run_one(job, run, run)

    cpu = time.process_time()
    times = time_repeats(block, sizes.repeats)
    cpu = time.process_time() - cpu  # this process's CPU: what other work cannot inflate
    row = result_from("duel to the death (1 core)", "duel.toml, cap 100,000 pulses", "duel",
                      count, times)
    row.note = (f"{count / min(times):,.0f} duels/s best, "
                f"{count / sorted(times)[len(times) // 2]:,.0f} median, "
                f"{count * sizes.repeats / cpu:,.0f} per CPU second")
    return [row]


def duel_parts(sizes: DuelPlan) -> list[Result]:
    """A duel's two big parts apart: building its World from the prepared job
    (`BatchJob.build`, the blueprint's copies) and running it (`run(until="settled")`,
    then `run()` to the cap). CPU time of this process, summed over the duels of a
    block; median of the blocks."""
    job = prepare(builtin_scenario("duel"))
    run_one(job, 0, 0)  # warm-up
    count = sizes.duels
    builds: list[float] = []
    runs: list[float] = []
    for _ in range(sizes.repeats):
        built = ran = 0.0
        for seed in range(count):
            start = time.process_time()
            world = job.build(seed)
            middle = time.process_time()
            world.run(until="settled")
            world.run()
            ran += time.process_time() - middle
            built += middle - start
            world.close()
        builds.append(built)
        runs.append(ran)
    build_row = result_from("duel: build the World (prepared job)", "duel.toml", "duel",
                            count, builds)
    build_row.note = f"{build_row.per_unit_us:.0f} us a build (CPU), median of blocks"
    run_row = result_from("duel: run it (settle, then to the cap)", "duel.toml", "duel",
                          count, runs)
    run_row.note = f"{run_row.per_unit_us:.0f} us a run (CPU), blows included"
    return [build_row, run_row]


def pool_speedup(sizes: DuelPlan) -> list[Result]:
    """The same batch on 1 worker (in process) and on 2 worker processes (a warmed pool):
    the speed-up is the 1-worker time over the 2-worker time.

    On a machine others are using, 2 workers may not get 2 cores, so the notes also say
    how many cores the workers did get (their CPU time over the wall time) and the CPU
    each run cost both ways: the speed-up 2 free cores would give is 2 x (CPU per run on
    1 worker) / (CPU per run on 2 workers, parent included)."""
    scenario = builtin_scenario("duel")
    runs = sizes.pool_runs
    batch(scenario, 2)  # warm-up
    cpu_one = time.process_time()
    one = time_repeats(lambda: batch(scenario, runs, workers=1), 1)
    cpu_one = time.process_time() - cpu_one
    with ProcessPoolExecutor(max_workers=2, mp_context=_context()) as pool:
        batch(scenario, 4, executor=pool)  # start and warm both workers, untimed
        pids = [process.pid for process in pool._processes.values()  # type: ignore[union-attr]
                if process.pid is not None]
        before, parent = _cpu_seconds(pids), time.process_time()
        two = time_repeats(lambda: batch(scenario, runs, executor=pool), 1)
        workers_cpu = _cpu_seconds(pids) - before
        cpu_two = workers_cpu + time.process_time() - parent
    one_row = result_from(POOL_ROWS[0], f"{runs:,} duels", "duel", runs, one,
                          note=f"{runs / one[0]:,.0f} duels/s, {cpu_one / runs * 1e3:.2f} "
                               f"CPU ms a duel")
    two_row = result_from(POOL_ROWS[1], f"{runs:,} duels", "duel", runs, two,
                          note=f"{runs / two[0]:,.0f} duels/s (pool warmed first); "
                               f"workers got {workers_cpu / two[0]:.2f} cores; "
                               f"{cpu_two / runs * 1e3:.2f} CPU ms a duel: "
                               f"{2 * cpu_one / cpu_two:.2f}x on 2 free cores")
    two_row.ratio = one[0] / two[0]
    two_row.ratio_of = "speed-up over 1 worker"
    return [one_row, two_row]


def _cpu_seconds(pids: list[int]) -> float:
    """User + system CPU seconds of these processes so far (Linux /proc; 0 elsewhere)."""
    import os

    total = 0.0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


IDLE = """name = "idle"
pulses = {pulses}
[map]
rows = ["....."]
[[creatures]]
id = "a"
at = [0, 0]
[[creatures]]
id = "b"
at = [2, 0]
"""


def idle_pulse_cost(sizes: DuelPlan) -> list[Result]:
    """An idle pulse stepped (`tick()`) against the same pulses jumped (`run()`), two
    idle creatures: what a pulse in which nothing happens costs either way."""
    pulses = sizes.idle_pulses
    spec, raw = parse_scenario(IDLE.format(pulses=pulses), "idle.toml")
    rows = []
    for name, how in (("idle pulse, stepped (tick)", "tick"),
                      ("idle pulse, jumped (run)", "run")):
        world = build_world(spec, raw, "idle.toml")
        try:
            world.tick()  # warm-up

            def block(world=world, how=how) -> None:  # type: ignore[no-untyped-def]
                if how == "tick":
                    for _ in range(pulses):
                        world.tick()
                else:
                    world.end_pulse = world.pulse + pulses
                    world.run()

            times = time_repeats(block, 3)
        finally:
            world.close()
        rows.append(result_from(name, "2 creatures", "pulse", pulses, times))
    rows[0].note = f"{rows[0].per_unit_us:.2f} us a pulse, every pulse"
    rows[1].note = (f"{rows[1].median_seconds * 1e6:.1f} us for all {pulses:,} pulses "
                    f"(one jump)")
    rows[1].ratio = rows[1].per_unit_us / rows[0].per_unit_us
    rows[1].ratio_of = "stepped"
    return rows


def creatures_scenario(count: int) -> str:
    """A square floor with `count` creatures on every other cell, as scenario TOML."""
    side = 2
    while side * side < 2 * count:
        side += 1
    lines = ['name = "crowd"', "[map]", "rows = ["]
    lines += [f'  "{"." * side}",' for _ in range(side)] + ["]"]
    for index in range(count):
        cell = 2 * index
        lines += ["[[creatures]]", f'id = "c{index}"', f"at = [{cell % side}, {cell // side}]"]
    return "\n".join(lines) + "\n"


def scenario_loading(sizes: DuelPlan) -> list[Result]:
    """Parse and build a scenario of 1,000 and 10,000 creatures (linear in creatures)."""
    rows = []
    base = None
    for count in sizes.load_sizes:
        text = creatures_scenario(count)

        def block(text: str = text) -> World:
            spec, raw = parse_scenario(text, "crowd.toml")
            return build_world(spec, raw, "crowd.toml")

        times = time_repeats(block, sizes.load_repeats, after=World.close)
        row = result_from("scenario loading (parse + build)", f"{count:,} creatures",
                          "creature", count, times, note=f"{min(times):.3f} s best")
        if base is None:
            base = row.per_unit_us
        else:
            row.ratio = row.per_unit_us / base
            row.ratio_of = f"per creature at {sizes.load_sizes[0]:,}"
        rows.append(row)
    return rows
