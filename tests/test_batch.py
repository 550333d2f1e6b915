"""Batch runs (SCENARIO.md `batch`), their summary and plots, and the commands.

The duel scenario used here is the built-in standard duel: a wounded warrior and an orc
brute fight to the death, with a pulse cap far past it.
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
import urllib.error
import urllib.request
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor

import pyarrow as pa
import pytest

import affray
import affray.core.world
from affray.cli import main
from affray.data.scenario import builtin_scenario, load_scenario
from affray.display.report import read_table, read_tables, summarize, wilson, write_table
from affray.runners.batch import _context, batch, prepare

batch_module = sys.modules["affray.runners.batch"]  # `affray.batch` is the function
DUEL = builtin_scenario("duel")
DUEL_IDS = ("warrior", "orc")


def _direct(seed: int) -> tuple[dict, dict[str, dict]]:
    """What a batch's rows must say, worked out from a World run directly (no batch
    code): the run row's figures, and each creature's row of the creature table."""
    world = load_scenario(DUEL, seed=seed)
    try:
        world.run()
        events = [event.to_dict() for event in world.events]
        row = {"seed": seed, "pulses": world.pulse}
        long = {}
        for creature in DUEL_IDS:
            taken = [e for e in events if e["kind"] == "damage" and e["target"] == creature]
            dealt = [e for e in events if e["kind"] == "damage" and e["source"] == creature]
            deaths = [e for e in events if e["kind"] == "death" and e["target"] == creature]
            state = world.snapshot()["creatures"][creature]
            row[f"{creature}.hp"] = state["hp"]
            row[f"{creature}.alive"] = state["alive"]
            row[f"{creature}.damage_taken"] = sum(e["amount"] for e in taken)
            row[f"{creature}.struck"] = len(taken)
            entry = {"seed": seed, "creature": creature, "side": state["side"],
                     "survived": state["alive"], "hp": state["hp"],
                     "max_hp": state["max_hp"],
                     "damage_taken": sum(e["amount"] for e in taken),
                     "damage_dealt": sum(e["amount"] for e in dealt),
                     "struck": len(taken), "hits": len(dealt),
                     "kills": sum(e["kind"] == "death" and e["killer"] == creature
                                  for e in events),
                     "death_pulse": deaths[0]["pulse"] if deaths else None}
            for name, hits in (("damage_taken", taken), ("damage_dealt", dealt)):
                for kind in {e["damage_type"] for e in hits}:
                    entry[f"{name}.{kind}"] = sum(e["amount"] for e in hits
                                                  if e["damage_type"] == kind)
            long[creature] = entry
        return row, long
    finally:
        world.close()


def test_batch_rows_are_the_runs_of_each_seed():
    """One row per run, seeds seed, seed+1, ...; each row's figures are those of running
    that seed's World directly and reading its log (SCENARIO.md `batch`). The run table
    is lean: SCENARIO.md's columns, `settled`, `winner`, `error`, a column per side;
    16 for the duel (it had 55, 44 of them per-type damage, almost always 0)."""
    table = batch(DUEL, runs=4, seed=10)
    assert isinstance(table, pa.Table)
    rows = table.to_pylist()
    assert [row["run"] for row in rows] == [0, 1, 2, 3]
    assert [row["seed"] for row in rows] == [10, 11, 12, 13]
    assert table.column_names == [
        "run", "seed", "pulses", "settled", "winner", "error", "side.players.standing",
        "side.npcs.standing", "warrior.hp", "warrior.alive", "warrior.damage_taken",
        "warrior.struck", "orc.hp", "orc.alive", "orc.damage_taken", "orc.struck"]
    for row in rows:
        expected, _ = _direct(row["seed"])
        assert {key: row[key] for key in expected} == expected
        assert row["error"] is None
        assert row["pulses"] == 100_000  # the scenario's end, as `affray run`
        assert row["warrior.alive"] != row["orc.alive"]  # a duel to the death
        assert row["winner"] == ("players" if row["warrior.alive"] else "npcs")


def test_the_creature_table_has_a_row_per_run_and_creature():
    """collect="creatures": the run table as before, and the long creature table, one
    row per run and creature, each the figures of that seed's World read directly:
    side, survival, hp, damage taken and dealt (in all and by type), hits taken and
    landed, kills, the pulse of death. The per-type columns are the types some run
    recorded (the duel: bash from the orc's mace, slash from the warrior's sword), 0
    where a creature had none of it."""
    tables = batch(DUEL, runs=4, seed=10, collect="creatures")
    assert isinstance(tables, affray.Tables) and tables.rounds is None
    assert tables.runs.equals(batch(DUEL, runs=4, seed=10))
    long = tables.creatures
    assert long.column_names == [
        "run", "seed", "creature", "side", "survived", "hp", "max_hp", "damage_taken",
        "damage_dealt", "struck", "hits", "kills", "death_pulse", "damage_taken.bash",
        "damage_taken.slash", "damage_dealt.bash", "damage_dealt.slash"]
    rows = long.to_pylist()
    assert [(row["run"], row["creature"]) for row in rows] == [
        (run, creature) for run in range(4) for creature in DUEL_IDS]
    for row in rows:
        _, expected = _direct(row["seed"])
        wanted = {name: 0 for name in long.column_names if name.count(".")}
        wanted.update(expected[row["creature"]])
        assert {key: row[key] for key in wanted} == wanted
    for run in range(4):
        warrior, orc = rows[2 * run], rows[2 * run + 1]
        assert warrior["damage_dealt"] == orc["damage_taken"]  # the only two in the fight
        assert warrior["hits"] == orc["struck"]
        assert warrior["kills"] + orc["kills"] == 1


def test_the_rounds_table_samples_each_side_every_round():
    """collect="rounds": per run and side, the hit points and count of its living
    creatures at pulse 0, every 12 pulses (a round, R-TIME-2) and at the settled pulse,
    each what the log says by then (the hit points at the start less the damage of
    the pulses before; no regeneration in the duel). Collecting them leaves the run
    and creature rows as they were."""
    tables = batch(DUEL, runs=3, seed=4, collect="rounds")
    assert tables.runs.equals(batch(DUEL, runs=3, seed=4))
    assert tables.creatures.equals(batch(DUEL, runs=3, seed=4, collect="creatures").creatures)
    rows = tables.rounds.to_pylist()
    assert tables.rounds.column_names == ["run", "seed", "round", "pulse", "side", "hp",
                                          "alive"]
    for run in tables.runs.to_pylist():
        mine = [row for row in rows if row["run"] == run["run"]]
        pulses = sorted({row["pulse"] for row in mine})
        assert pulses == [*range(0, run["settled"], 12), run["settled"]]
        assert [row["round"] for row in mine] == [i // 2 for i in range(len(mine))]
        world = load_scenario(DUEL, seed=run["seed"])
        try:
            world.run()
            events = [event.to_dict() for event in world.events]
        finally:
            world.close()
        for row in mine:
            creature, start = {"players": ("warrior", 36), "npcs": ("orc", 140)}[row["side"]]
            died = any(e["kind"] == "death" and e["target"] == creature
                       and e["pulse"] < row["pulse"] for e in events)
            lost = sum(e["amount"] for e in events if e["kind"] == "damage"
                       and e["target"] == creature and e["pulse"] < row["pulse"])
            assert (row["alive"], row["hp"]) == ((0, 0) if died else (1, start - lost))


def test_collecting_rounds_leaves_a_run_of_minds_as_it_was():
    """Stepping round by round gives the log one `run(until="settled")` gives, on a
    scenario where minds move, flee and cast (the ambush), not only in a duel."""
    plain = batch("ambush", runs=2, seed=11)
    stepped = batch("ambush", runs=2, seed=11, collect="rounds")
    assert stepped.runs.equals(plain)
    last = max(row["pulse"] for row in stepped.rounds.to_pylist() if row["run"] == 0)
    assert last == plain.to_pylist()[0]["settled"]


def test_tables_convert_to_pandas_and_parquet_keeps_the_scenario(tmp_path):
    """`to_pandas()` works (pandas comes with affray[batch]); a table written to Parquet
    keeps the scenario's path and text and which table it is in its metadata."""
    pytest.importorskip("pandas")
    from affray.display.report import write_tables

    tables = batch(DUEL, runs=5, collect="creatures")
    frame = tables.creatures.to_pandas()
    survival = frame.groupby("creature")["survived"].mean()
    runs = tables.runs.to_pylist()
    assert survival["warrior"] == sum(row["warrior.alive"] for row in runs) / 5
    assert list(tables.runs.to_pandas().columns) == tables.runs.column_names
    write_tables(tables, tmp_path / "r.parquet")
    back = read_tables(tmp_path / "r.parquet")
    for table, kind in ((back.runs, "runs"), (back.creatures, "creatures")):
        meta = table.schema.metadata
        assert meta[b"table"] == kind.encode()
        assert meta[b"scenario"] == str(DUEL).encode()
        assert meta[b"scenario_text"].decode() == DUEL.read_text(encoding="utf-8")
        assert (meta[b"seed"], meta[b"runs"]) == (b"0", b"5")


def test_settled_is_the_pulse_after_the_fight_ends():
    """`settled` is the first pulse with nothing left to happen: the pulse after the
    death (the survivor stops fighting the corpse at once, R-ACT-2)."""
    tables = batch(DUEL, runs=3, collect="creatures")
    deaths = {row["run"]: row["death_pulse"] for row in tables.creatures.to_pylist()
              if row["death_pulse"] is not None}
    for row in tables.runs.to_pylist():
        assert row["settled"] == deaths[row["run"]] + 1


def test_rows_are_the_same_whatever_the_workers_or_the_executor():
    """The same seed gives the same row with 1 worker, 2 worker processes, a given
    executor (thread or process pool) and any task size."""
    one = batch(DUEL, runs=6, seed=3)
    assert batch(DUEL, runs=6, seed=3, workers=2).equals(one)
    assert batch(DUEL, runs=6, seed=3, chunk_size=1).equals(one)
    with ThreadPoolExecutor(max_workers=3) as threads:  # runs take turns: one esper
        assert batch(DUEL, runs=6, seed=3, executor=threads, chunk_size=1).equals(one)
    with ProcessPoolExecutor(max_workers=2, mp_context=_context()) as pool:
        assert batch(DUEL, runs=6, seed=3, executor=pool).equals(one)
    every = batch(DUEL, runs=6, seed=3, collect="rounds")
    for other in (batch(DUEL, runs=6, seed=3, workers=2, collect="rounds"),
                  batch(DUEL, runs=6, seed=3, chunk_size=1, collect="rounds")):
        for name in ("runs", "creatures", "rounds"):
            assert getattr(other, name).equals(getattr(every, name)), name


def test_a_script_without_a_main_guard_can_use_two_workers(tmp_path):
    """SCENARIO.md's one-liner, `affray.batch(..., workers=2)`, at a script's top level
    (no `if __name__ == "__main__"`) runs: the pool does not re-import the script."""
    import subprocess
    import sys

    script = tmp_path / "balance.py"
    script.write_text('import affray\n'
                      't = affray.batch("duel", runs=4, seed=0, workers=2)\n'
                      'print(t.num_rows, t.column("seed").to_pylist())\n', encoding="utf-8")
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                            timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "4 [0, 1, 2, 3]"


def test_the_scenario_is_read_once_and_shipped_parsed(tmp_path, monkeypatch):
    """The file is read and parsed once; runs build from the parsed spec, so a scenario
    file deleted after the start does not matter."""
    path = tmp_path / "duel.toml"
    path.write_text(DUEL.read_text(encoding="utf-8"), encoding="utf-8")
    job = prepare(path)
    path.unlink()
    reads = []
    monkeypatch.setattr(affray.data.scenario, "parse_scenario",
                        lambda *a, **k: reads.append(a) or pytest.fail("parsed again"))
    world = job.build(5)
    try:
        world.run()
        assert world.pulse == 100_000
    finally:
        world.close()
    assert reads == []
    assert job.creatures == DUEL_IDS


def test_a_run_that_raises_is_a_row_with_its_error(monkeypatch):
    """A run that raises becomes a row with `error` set and no figures; the others run."""
    original = affray.core.world.World.run

    def broken(self, *args, **kwargs):
        if self.seed == 1:
            raise RuntimeError("boom")
        return original(self, *args, **kwargs)

    monkeypatch.setattr(affray.core.world.World, "run", broken)
    rows = batch(DUEL, runs=3).to_pylist()
    assert [row["error"] for row in rows] == [None, "RuntimeError: boom", None]
    assert rows[1]["warrior.hp"] is None and rows[1]["pulses"] == 0
    assert rows[0]["warrior.hp"] is not None
    summary = summarize(pa.Table.from_pylist(rows))
    assert (summary["runs"], summary["errors"], summary["creatures"][0]["runs"]) == (3, 1, 2)


THREADS = object()  # stands for a thread pool, made in the test
BAD_ARGUMENTS = {
    "runs_negative": ({"runs": -1}, "runs must be 0 or more, got -1"),
    "runs_a_float": ({"runs": 2.0}, "runs must be a whole number, got 2.0"),
    "runs_text": ({"runs": "3"}, "runs must be a whole number, got '3'"),
    "runs_a_bool": ({"runs": True}, "runs must be a whole number, got True"),
    "runs_past_the_last_seed": ({"runs": 2, "seed": 2**63 - 1}, "runs must be at most 1, got 2"),
    "runs_2_63_and_1": ({"runs": 2**63 + 1},
                        "runs must be at most 9,223,372,036,854,775,808"),
    "seed_negative": ({"seed": -1}, "seed must be 0 or more, got -1"),
    "seed_2_63": ({"seed": 2**63}, "seed must be at most 9,223,372,036,854,775,807"),
    "seed_none": ({"seed": None}, "seed must be a whole number, got None"),
    "workers_0": ({"workers": 0}, "workers must be 1 or more, got 0"),
    "workers_a_million": ({"workers": 10**6}, "workers must be at most 256"),
    "workers_text": ({"workers": "2"}, "workers must be a whole number"),
    "chunk_size_negative": ({"chunk_size": -1}, "chunk_size must be 1 or more, got -1"),
    "chunk_size_0": ({"chunk_size": 0}, "chunk_size must be 1 or more, got 0"),
    "chunk_size_a_million": ({"chunk_size": 10**6}, "chunk_size must be at most 10,000"),
    "chunk_size_a_float": ({"chunk_size": 1.5}, "chunk_size must be a whole number"),
    "backend_spark": ({"backend": "spark"}, "backend must be one of local, dask"),
    "backend_none": ({"backend": None}, "backend must be one of local, dask"),
    "scheduler_without_dask": ({"scheduler": "tcp://127.0.0.1:8786"},
                               "scheduler= is a Dask scheduler's address: it needs "
                               "backend='dask'"),
    "scheduler_not_an_address": ({"backend": "dask", "scheduler": "nonsense"},
                                 "scheduler 'nonsense' is not a Dask address"),
    "scheduler_empty": ({"backend": "dask", "scheduler": " "},
                        "scheduler must be a Dask scheduler's address"),
    "scheduler_a_number": ({"backend": "dask", "scheduler": 8786},
                           "scheduler must be a Dask scheduler's address"),
    "executor_not_one": ({"executor": "threads"},
                         "executor must be a concurrent.futures.Executor, got str"),
    "executor_and_dask": ({"executor": THREADS, "backend": "dask"},
                          "give an executor or backend='dask'"),
    "progress_not_callable": ({"progress": 3}, "progress must be a function"),
    "collect_everything": ({"collect": "everything"},
                           "collect must be one of runs, creatures, rounds, not 'everything'"),
    "collect_a_list": ({"collect": ["runs"]}, "collect must be one of runs, creatures"),
    "scenario_a_number": ({"scenario": 3}, "scenario must be a file path"),
    "scenario_empty": ({"scenario": ""}, "scenario is an empty string"),
}


@pytest.mark.parametrize("case", sorted(BAD_ARGUMENTS))
def test_bad_batch_arguments_are_usage_errors_before_any_work(case, monkeypatch):
    """Every misuse of `batch` is a UsageError with a clear message, raised before the
    scenario is even read: a negative chunk size used to give 0 rows, seed=-1 a table of
    error rows, a scheduler without backend="dask" was ignored, a string a bare error."""
    arguments, message = BAD_ARGUMENTS[case]
    monkeypatch.setattr(sys.modules["affray.runners.batch"], "prepare",
                        lambda *_: pytest.fail("the scenario was read before the check"))
    with ThreadPoolExecutor(max_workers=1) as threads:
        call = {"scenario": DUEL, "runs": 1, **arguments}
        call = {key: threads if value is THREADS else value for key, value in call.items()}
        with pytest.raises(affray.UsageError, match=re.escape(f"batch: {message}")):
            batch(**call)


def test_bad_scenarios_and_zero_runs(tmp_path):
    """A missing file is a ScenarioError naming it; 0 runs is an empty table with the
    batch's columns (a script may well ask for none)."""
    with pytest.raises(affray.ScenarioError, match="cannot read"):
        batch(tmp_path / "missing.toml", runs=1)
    empty = batch(DUEL, runs=0)
    assert empty.num_rows == 0 and "warrior.alive" in empty.column_names


def test_the_last_seed_is_2_63_minus_1():
    """Seeds go up to a World's last seed, 2**63 - 1 (an int64 column holds it); one
    past it is refused (above) rather than an OverflowError after the runs."""
    (row,) = batch(DUEL, runs=1, seed=2**63 - 1).to_pylist()
    assert (row["run"], row["seed"], row["error"]) == (0, 2**63 - 1, None)
    assert row == batch(DUEL, runs=1, seed=2**63 - 1, workers=2).to_pylist()[0]


class _CountingThreads(ThreadPoolExecutor):
    """A thread pool that notes, at each submit, how many of its tasks are not done."""

    def __init__(self, workers: int) -> None:
        super().__init__(max_workers=workers)
        self.futures: list = []
        self.busy_at_submit: list[int] = []

    def submit(self, fn, /, *args, **kwargs):
        self.busy_at_submit.append(sum(not future.done() for future in self.futures))
        future = super().submit(fn, *args, **kwargs)
        self.futures.append(future)
        return future


def test_tasks_go_out_as_workers_free_up():
    """At most 2 tasks per worker are in flight: a task is submitted only when one of
    those finished, and the rows are the same (they used to be submitted all at once)."""
    with _CountingThreads(2) as threads:
        table = batch(DUEL, runs=24, seed=1, executor=threads, chunk_size=1)
    assert len(threads.busy_at_submit) == 24
    assert max(threads.busy_at_submit) <= 3  # the 4th in flight is the one submitted
    assert table.equals(batch(DUEL, runs=24, seed=1))


class _Refuses(Executor):
    """An executor that takes no task: it records the first and raises."""

    def __init__(self) -> None:
        self.asked: list = []

    def submit(self, fn, /, *args, **kwargs):
        self.asked.append(args[1])
        raise _Stop


class _Stop(Exception):
    pass


def test_a_billion_runs_start_without_building_every_task():
    """`runs=10**9` builds its tasks as they are submitted: the first task (100 runs)
    goes out at once. Every task used to be built first: 10**9 (run, seed) pairs, about
    5.5 GB, a MemoryError before the first run."""
    executor = _Refuses()
    with pytest.raises(_Stop):
        batch(DUEL, runs=10**9, seed=5, executor=executor)
    assert executor.asked == [[(run, 5 + run) for run in range(100)]]
    assert batch_module.task_size(10**9, 1) == 100


class _Faulty(Executor):
    """An executor whose every task fails, and not by a worker's death."""

    def __init__(self) -> None:
        self.submitted = 0

    def submit(self, fn, /, *args, **kwargs):
        self.submitted += 1
        future: Future = Future()
        future.set_exception(ValueError("cannot pickle the job"))
        return future


def test_a_fault_that_is_not_a_lost_worker_is_raised_at_once():
    """Only a worker's death (a broken pool, KilledWorker) is retried: a fault every
    task meets (here a ValueError) is raised at the first task that shows it, not
    retried run by run into a table of error rows."""
    executor = _Faulty()
    with pytest.raises(ValueError, match="cannot pickle the job"):
        batch(DUEL, runs=50, executor=executor, chunk_size=5)
    assert executor.submitted == 2  # the first two in flight (2 per worker), then raised


# -- lost workers (the test seam: affray.runners.batch.TEST_EXIT_SEED) --------------------------
def _without(table: pa.Table, seed: int) -> list[dict]:
    return [row for row in table.to_pylist() if row["seed"] != seed]


def test_a_worker_killed_once_loses_no_row(tmp_path, monkeypatch):
    """A worker process that dies (the test seam ends it with os._exit just before seed
    5) broke the process pool and lost the whole batch (BrokenProcessPool). Its task now
    runs again on a fresh pool: every row, the same as a batch where nothing died."""
    clean = batch(DUEL, runs=8, seed=2)
    killed = tmp_path / "killed"
    monkeypatch.setenv(batch_module.TEST_EXIT_SEED, "5")
    monkeypatch.setenv(batch_module.TEST_EXIT_ONCE, str(killed))
    table = batch(DUEL, runs=8, seed=2, workers=2)
    assert killed.exists()  # the seam did end a worker
    assert table.equals(clean)


def test_a_run_that_always_kills_its_worker_is_an_error_row(monkeypatch):
    """A run whose worker dies every time is tried on its own LOST_RUN_ATTEMPTS (3)
    times, then kept as a row with its error; every other row is the same as a clean
    batch's. The seam only ever fires in a worker: the 1-worker batch (in this
    process) runs seed 5 as usual."""
    monkeypatch.setenv(batch_module.TEST_EXIT_SEED, "5")
    clean = batch(DUEL, runs=8, seed=2)
    assert clean.to_pylist()[3]["error"] is None  # in process: no exit
    table = batch(DUEL, runs=8, seed=2, workers=2, chunk_size=3)
    lost = table.to_pylist()[3]
    assert (lost["run"], lost["seed"]) == (3, 5)
    assert lost["error"].startswith("WorkerLost: the worker process died running it 3 times "
                                    "(last: BrokenProcessPool")
    assert lost["pulses"] is None and lost["warrior.hp"] is None
    assert _without(table, 5) == _without(clean, 5)
    summary = summarize(table)
    assert (summary["runs"], summary["errors"]) == (8, 1)


def test_a_callers_broken_pool_is_replaced(tmp_path, monkeypatch):
    """A caller's process pool that a dying worker breaks cannot take more tasks: the
    batch goes on with a fresh pool of its own and loses no row."""
    clean = batch(DUEL, runs=6, seed=0)
    monkeypatch.setenv(batch_module.TEST_EXIT_SEED, "4")
    monkeypatch.setenv(batch_module.TEST_EXIT_ONCE, str(tmp_path / "killed"))
    with ProcessPoolExecutor(max_workers=2, mp_context=_context()) as pool:
        table = batch(DUEL, runs=6, seed=0, executor=pool, chunk_size=2)
    assert (tmp_path / "killed").exists()
    assert table.equals(clean)


def test_dask_keeps_the_rows_of_a_run_that_kills_its_workers(tmp_path, monkeypatch):
    """On Dask's LocalCluster a run that kills every worker it lands on ended the batch
    with KilledWorker; now it is an error row and the other rows are the clean batch's.
    A worker killed once (the seam's once-file) loses nothing."""
    pytest.importorskip("dask.distributed")
    clean = batch(DUEL, runs=6, seed=2)
    monkeypatch.setenv(batch_module.TEST_EXIT_SEED, "5")
    table = batch(DUEL, runs=6, seed=2, workers=2, backend="dask")
    lost = table.to_pylist()[3]
    assert lost["error"].startswith("WorkerLost: the worker process died running it 3 times "
                                    "(last: KilledWorker")
    assert _without(table, 5) == _without(clean, 5)
    monkeypatch.setenv(batch_module.TEST_EXIT_ONCE, str(tmp_path / "killed"))
    assert batch(DUEL, runs=6, seed=2, workers=2, backend="dask").equals(clean)
    assert (tmp_path / "killed").exists()


def test_the_dask_backend_gives_the_same_rows():
    """backend="dask" on a 2-worker LocalCluster (processes, one thread each): the
    same rows as the local run."""
    pytest.importorskip("dask.distributed")
    assert batch(DUEL, runs=4, seed=7, workers=2, backend="dask").equals(
        batch(DUEL, runs=4, seed=7))


def test_the_dask_backend_runs_on_a_scheduler_by_address(capsys):
    """`--backend dask --scheduler ADDRESS`: the runs go to that cluster's workers
    (a 2-worker LocalCluster here, reached by its address as a remote one would be)."""
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        assert batch(DUEL, runs=4, seed=7, backend="dask",
                     scheduler=cluster.scheduler_address).equals(batch(DUEL, runs=4, seed=7))
        assert main(["batch", "duel", "--runs", "3", "--backend", "dask", "--scheduler",
                     cluster.scheduler_address, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["summary"]["runs"] == 3


# -- the summary -----------------------------------------------------------------------
def test_wilson_interval_worked_values():
    """95% Wilson score intervals against Newcombe (1998)'s published examples, 4
    decimals: 81 of 263, 15 of 148, 0 of 10 (and all of 10, its mirror)."""
    for (successes, trials), (low, high) in {(81, 263): (0.2553, 0.3662),
                                              (15, 148): (0.0624, 0.1605),
                                              (0, 10): (0.0, 0.2775),
                                              (10, 10): (0.7225, 1.0)}.items():
        assert wilson(successes, trials) == pytest.approx((low, high), abs=5e-5)
    assert wilson(0, 0) == (0.0, 1.0)


def _table(rows: list[dict]) -> pa.Table:
    base = {"run": 0, "seed": 0, "pulses": 100, "settled": None, "error": None}
    return pa.Table.from_pylist([{**base, **row} for row in rows])


def test_summary_worked_example():
    """Survival, damage mean and median, deaths, time to kill and damage by type, on four
    hand-made runs."""
    rows = []
    for alive, taken, fire, death in ((True, 10, 0, None), (False, 30, 30, 48),
                                      (False, 25, 5, 36), (True, 0, 0, None)):
        rows.append({"x.hp": 1, "x.alive": alive, "x.damage_taken": taken, "x.struck": 2,
                     "x.death_pulse": death, "x.damage_taken.fire": fire,
                     "x.damage_taken.slash": taken - fire})
    summary = summarize(_table(rows))
    (creature,) = summary["creatures"]
    assert creature["survived"] == 2 and creature["survival"] == 0.5
    assert (creature["survival_low"], creature["survival_high"]) == pytest.approx(
        wilson(2, 4))
    assert creature["damage_mean"] == 16.25 and creature["damage_median"] == 17.5
    assert creature["deaths"] == 2 and creature["time_to_kill_mean"] == 42
    assert creature["time_to_kill_median"] == 42
    by_type = {row["type"]: row for row in summary["damage_by_type"]}
    assert by_type["fire"]["mean"] == 35 / 4 and by_type["slash"]["mean"] == 30 / 4
    assert math.isclose(by_type["fire"]["share"], 35 / 65)


# -- the commands ----------------------------------------------------------------------
def test_batch_command_writes_parquet_and_csv_that_report_reads(tmp_path, capsys):
    """`affray batch --out` writes the rows (Parquet or CSV), the creature table beside
    them (`r.creatures.parquet`); `affray report` prints the same summary from either
    file (time to kill from the creature table); `--png` writes the plots."""
    parquet, csv, png = tmp_path / "r.parquet", tmp_path / "r.csv", tmp_path / "r.png"
    assert main(["batch", str(DUEL), "--runs", "6", "--out", str(parquet), "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "warrior" in printed and "95% interval" in printed and str(parquet) in printed
    assert main(["batch", str(DUEL), "--runs", "6", "--out", str(csv), "--json"]) == 0
    from_batch = json.loads(capsys.readouterr().out)["summary"]
    expected = batch(DUEL, runs=6, collect="creatures")
    assert read_table(parquet).equals(expected.runs)
    assert read_table(tmp_path / "r.creatures.parquet").equals(expected.creatures)
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        "r.creatures.csv", "r.creatures.parquet", "r.csv", "r.parquet"]
    assert summarize(read_tables(csv)) == summarize(read_tables(parquet)) == from_batch
    assert from_batch == summarize(expected)
    assert all(row["time_to_kill_mean"] for row in from_batch["creatures"])
    assert main(["report", str(parquet), "--json", "--png", str(png)]) == 0
    assert json.loads(capsys.readouterr().out)["summary"] == from_batch
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["report", str(csv)]) == 0
    assert "damage taken by type" in capsys.readouterr().out


def test_commands_refuse_bad_files(tmp_path, capsys):
    """A results file of the wrong kind, or missing, is exit 1 with a message; a bad
    `--out` suffix too; `--runs -1` is a usage error (exit 2)."""
    bad = tmp_path / "r.txt"
    bad.write_text("x", encoding="utf-8")
    assert main(["report", str(bad)]) == 1
    assert "parquet or a .csv" in capsys.readouterr().err
    assert main(["report", str(tmp_path / "none.parquet")]) == 1
    assert "none.parquet: cannot read: No such file or directory" in capsys.readouterr().err
    assert main(["batch", str(DUEL), "--runs", "2", "--out", str(bad)]) == 1
    assert "the file name must end in .parquet or .csv" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        main(["batch", str(DUEL), "--runs", "-1"])
    assert exit_info.value.code == 2
    other = tmp_path / "other.csv"
    write_table(pa.table({"a": [1]}), other)
    assert main(["report", str(other)]) == 1
    assert "not a batch results table" in capsys.readouterr().err


def test_quick_bench_runs_with_the_duel_rows(tmp_path):
    """`affray bench --quick` (what CI runs; not timed) runs every benchmark without a
    failed check, the duel rows among them."""
    from affray.benchmarks.runner import main as bench_main

    out = tmp_path / "bench.json"
    assert bench_main(quick=True, out=str(out)) == 0
    rows = json.loads(out.read_text(encoding="utf-8"))
    names = [row["name"] for row in rows]
    for name in ("duel to the death (1 core)", "batch, 1 worker", "batch, 2 workers",
                 "idle pulse, stepped (tick)", "idle pulse, jumped (run)",
                 "scenario loading (parse + build)"):
        assert name in names
    assert all(row["ok"] for row in rows)


def test_batch_reads_a_scenario_as_run_does(tmp_path):
    """R-ENG-1: `batch` reads the file as `run` and `check` do: a UTF-8 byte-order mark is
    fine, and text that is not UTF-8 is a ScenarioError naming the byte, not a traceback."""
    marked = tmp_path / "marked.toml"
    marked.write_bytes(b"\xef\xbb\xbf" + DUEL.read_bytes())
    assert prepare(marked).creatures == DUEL_IDS
    latin = tmp_path / "latin.toml"
    latin.write_bytes(b'name = "caf\xe9"\n' + DUEL.read_bytes())
    with pytest.raises(affray.ScenarioError, match=r"latin.toml: not UTF-8 text: byte 0xe9"):
        prepare(latin)


# -- the batch command: bounds, the Dask options, rows kept when --out fails ----------------
def _cli(*args: str, env: dict[str, str] | None = None, timeout: int = 120
         ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "affray", *args], capture_output=True,
                          text=True, timeout=timeout, check=False,
                          env=None if env is None else {**os.environ, **env})


@pytest.mark.parametrize("args, message", [
    (("--runs", "0"), "argument --runs: must be 1 or more, got 0"),
    (("--runs", "2", "--seed", str(2**63 - 1)),
     "batch: seeds 9223372036854775807..9223372036854775808 pass the last seed, 2**63 - 1: "
     "at most 1 runs from seed 9223372036854775807"),
    (("--runs", "1", "--seed", str(2**63)),
     "argument --seed: must be at most 9,223,372,036,854,775,807, got "
     "9,223,372,036,854,775,808"),
    (("--runs", "2", "--scheduler", "tcp://127.0.0.1:8786"),
     "batch: --scheduler is a Dask scheduler's address: it needs --backend dask"),
])
def test_batch_usage_errors_exit_2_before_any_run(args, message):
    """`--runs 0` printed "seeds 0..-1" and exited 0; `--seed 2**63-1 --runs 2` died on
    an OverflowError after the runs; a scheduler without the dask backend was ignored.
    Each is now argparse's usage error, exit 2."""
    result = _cli("batch", "duel", *args)
    assert result.returncode == 2
    assert result.stderr.splitlines()[-1].endswith(message)
    assert "Traceback" not in result.stderr and result.stdout == ""


def test_batch_the_last_seed_runs():
    """`--seed 2**63-1 --runs 1` is the last batch there is: it runs."""
    result = _cli("batch", "duel", "--runs", "1", "--seed", str(2**63 - 1), "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["summary"]["runs"] == 1


def test_batch_a_bad_scheduler_is_a_message():
    """A scheduler address Dask cannot parse was a ValueError traceback: now exit 1
    with a message, before any run."""
    pytest.importorskip("dask.distributed")
    result = _cli("batch", "duel", "--runs", "2", "--backend", "dask", "--scheduler",
                  "nonsense")
    assert result.returncode == 1
    assert result.stderr == ("affray: batch: scheduler 'nonsense' is not a Dask address "
                             "(tcp://host:8786): missing port number in address 'nonsense'\n")


def test_batch_rows_are_kept_when_the_table_cannot_be_written(tmp_path):
    """A table whose write fails at the end (the checks passed: a link to /dev/full,
    ENOSPC) is written to the temporary folder instead: exit 1, the message says where,
    and that file holds every row. The rows used to be lost with a traceback."""
    out = tmp_path / "results.csv"
    os.symlink("/dev/full", out)
    spare = tmp_path / "spare"
    spare.mkdir()
    result = _cli("batch", "duel", "--runs", "4", "--seed", "3", "--out", str(out),
                  "--json", env={"TMPDIR": str(spare)})
    assert result.returncode == 1
    kept, beside = sorted(spare.glob("affray-batch-*.csv"), key=lambda path: len(path.name))
    assert beside.name == kept.name.replace(".csv", ".creatures.csv")  # its creature table
    assert result.stderr == (f"affray: {out}: could not write the batch's rows: Error "
                             f"writing bytes to file. Detail: [errno 28] No space left on "
                             f"device; the rows were written to {kept} instead\n")
    assert json.loads(result.stdout)["out"] == str(kept)
    assert summarize(read_tables(kept)) == summarize(batch(DUEL, runs=4, seed=3,
                                                           collect="creatures"))
    assert read_table(kept).column("seed").to_pylist() == [3, 4, 5, 6]


def test_batch_progress_bar_on_a_terminal():
    """On a terminal the bar runs (no refresh thread: it redraws as tasks finish, so the
    process pool never forks a threaded process) and reaches the runs' count."""
    from test_cli import _on_a_terminal

    shown = _on_a_terminal("batch", "duel", "--runs", "12", "--workers", "2",
                           "--chunk-size", "2", env={"COLUMNS": "120"})
    assert "12/12" in shown, shown
    assert "Traceback" not in shown


def test_bench_skips_the_rows_that_need_pyarrow(tmp_path, monkeypatch, capsys):
    """After the quickstart's `pip install .` (no pyarrow) `affray bench` died with a
    traceback in the batch rows. Those rows now say they skipped and why, in the table
    and at the end; the rest of the duel benchmarks run; exit 0."""
    from affray.benchmarks import runner, suite

    monkeypatch.setitem(sys.modules, "pyarrow", None)  # `import pyarrow` fails
    monkeypatch.setattr(runner, "BENCHMARKS", tuple(
        (name, benchmark) for name, benchmark in suite.BENCHMARKS if name == "duels"))
    out = tmp_path / "bench.json"
    assert main(["bench", "--quick", "--out", str(out)]) == 0
    rows = {row["name"]: row for row in json.loads(out.read_text(encoding="utf-8"))}
    for name in ("batch, 1 worker", "batch, 2 workers"):
        assert rows[name]["skipped"] is True and rows[name]["ok"] is True
        assert rows[name]["note"] == "skipped: needs pyarrow (pip install 'affray[batch]')"
    assert rows["duel to the death (1 core)"]["skipped"] is False
    assert rows["duel to the death (1 core)"]["repeats"] >= 1
    printed = capsys.readouterr().out
    assert ("skipped 2 rows: batch, 1 worker (skipped: needs pyarrow (pip install "
            "'affray[batch]'))") in printed
    assert "Traceback" not in printed


def test_batch_and_report_without_pyarrow_say_what_to_install(tmp_path, monkeypatch, capsys):
    """`report` without pyarrow was an ImportError traceback; both commands now say
    which extra to install, exit 1."""
    results = tmp_path / "r.csv"
    write_table(batch(DUEL, runs=2), results)
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.csv", None)
    assert main(["report", str(results)]) == 1
    assert capsys.readouterr().err == "affray: report needs pyarrow: pip install 'affray[batch]'\n"
    assert main(["batch", "duel", "--runs", "2"]) == 1
    assert capsys.readouterr().err == "affray: batch needs pyarrow: pip install 'affray[batch]'\n"


# -- the local Dask cluster's security -------------------------------------------------------
def _tls_reply(address: str, context=None) -> bytes | None:
    """What a TLS client gets from `address`: the server's first bytes, or None when the
    connection is refused. `context` None: a client with no certificate of its own (and
    trusting any server's)."""
    import socket
    import ssl

    if context is None:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    host, port = address.removeprefix("tls://").rsplit(":", 1)
    try:
        with socket.create_connection((host, int(port)), timeout=10) as raw, \
                context.wrap_socket(raw) as tls:
            tls.settimeout(10)
            return tls.recv(64) or None
    except (ssl.SSLError, ConnectionError):
        return None


def test_the_local_dask_cluster_takes_only_its_own_tls_connections():
    """The local cluster listens on 127.0.0.1 over TLS with a certificate made for it:
    a Client without it is refused, a TLS client without a certificate gets nothing;
    its HTTP pages (info, JSON, health, metrics) are off. It used to take any local
    connection on plain TCP. The batch gives the same rows on it (above)."""
    pytest.importorskip("dask.distributed")
    from dask.distributed import Client

    with batch_module.local_cluster(1) as (cluster, security):
        address = cluster.scheduler_address
        assert address.startswith("tls://127.0.0.1:")
        with pytest.raises(TypeError, match="TLS expects a `ssl_context` argument"):
            Client(address, timeout=5)
        assert _tls_reply(address) is None
        own = security.get_connection_args("client")["ssl_context"]
        assert _tls_reply(address, own)  # the control: with its certificate, it talks
        with Client(cluster, security=security) as client:
            assert client.submit(sum, [1, 2]).result() == 3
            for worker in client.scheduler_info()["workers"]:
                assert worker.startswith("tls://127.0.0.1:")
        host_port = cluster.dashboard_link.split("://")[1].split("/")[0]
        for page in ("/info/main/workers.html", "/json/counts.json", "/health", "/metrics"):
            with pytest.raises(urllib.error.HTTPError, match="404"):
                urllib.request.urlopen(f"http://{host_port}{page}", timeout=10)


def test_an_unreachable_scheduler_is_a_usage_error():
    """A scheduler nobody listens at (a closed port on this machine) was an OSError
    traceback after Dask's connect timeout (1 s here): now a UsageError naming it."""
    dask = pytest.importorskip("dask")
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}), \
            pytest.raises(affray.UsageError,
                          match=re.escape("batch: cannot reach the Dask scheduler at "
                                          "tcp://127.0.0.1:9: ")):
        batch(DUEL, runs=1, backend="dask", scheduler="tcp://127.0.0.1:9")


def test_a_creature_table_left_from_another_batch_is_refused(tmp_path, capsys):
    """`--collect runs` writes the run table alone: a creature table left beside it by
    an earlier batch (other seeds) is not taken for this batch's by `report`, which
    says so (exit 1) rather than mixing two batches."""
    out = tmp_path / "r.parquet"
    assert main(["batch", "duel", "--runs", "4", "--out", str(out), "--quiet"]) == 0
    assert main(["batch", "duel", "--runs", "4", "--seed", "50", "--collect", "runs",
                 "--out", str(out), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["report", str(out)]) == 1
    assert capsys.readouterr().err == (
        f"affray: {tmp_path / 'r.creatures.parquet'}: not the creature table of {out} "
        f"(run 0, 'warrior' differs): write both again, or move it away\n")
    (tmp_path / "r.creatures.parquet").unlink()
    assert main(["report", str(out), "--json"]) == 0  # the run table alone still reads
    summary = json.loads(capsys.readouterr().out)["summary"]
    assert summary["creatures"][0]["time_to_kill_mean"] is None
    assert summary["runs"] == 4
