"""Bad command-line input, found by hunting: each case was a hang, a traceback, a file
written where it should not be, or a silently wrong answer, and is now a clear message
with exit 1 (bad input) or 2 (usage: argparse), before any work.

Each runs the installed command in a fresh process (`python -m affray`), as a user would:

- bad numbers
  - `batch --workers 100000`: forked 100,000 processes (a fork start launches a pool's
    every worker at once); now at most affray.runners.batch.MAX_WORKERS (256), exit 2.
  - `batch --runs 2**63+1`: built 2**63 (run, seed) pairs before the first run; now
    bounded by the last seed, exit 2.
  - `batch --chunk-size 0` (the new option): 1..10,000, exit 2.
  - `render --pulse 2**63`: said "run: pulses must be..." for an option named --pulse;
    now argparse names the option, exit 2.
- options on the wrong command
  - `batch --scheduler ADDR --workers 3`: --workers was silently ignored (a scheduler's
    cluster has the workers it has); exit 2.
  - `batch --backend dask --scheduler tcp://127.0.0.1:9` (nobody listens): an OSError
    traceback after the connect timeout; now a message, exit 1.
- outputs
  - `render --png picture` and `report --png plots` write picture.png and plots.png
    (`affray.display.render.png_path`): with a folder named picture.png (plots.png) there, each
    was a traceback after the work; the check is made on the file actually written.
  - `replay SCENARIO -o SCENARIO` overwrote the scenario with the page: refused.
  - `replay -o ''`: an IsADirectoryError traceback ('' is the current folder).
  - `bench --quick --out FIFO` and `batch --out FIFO` (a named pipe nobody reads): ran,
    then blocked for ever opening it; refused at once.
  - `batch --out FILE` on an existing file that cannot be written: a traceback after
    every run; refused before.
- odd inputs
  - `render FIFO`, `batch FIFO`: blocked for ever; `replay /dev/zero`, `batch /dev/zero`:
    read until memory ran out. Refused from `stat`, unread.
  - `report FIFO.csv` and `report FOLDER.csv` said "no such results file": they exist;
    now they say what they are.
  - `check EMPTY_FOLDER`: refused a folder; a folder is now checked file by file, and
    one without .toml files says so. A FIFO named x.toml in a folder is refused unread.
- a results table that is not a batch's
  - a CSV without a creature's `damage_taken` column: a KeyError traceback.
  - a CSV whose `alive` column says "maybe": a summary counting it alive, exit 0.
  - a Parquet table with text in `damage_taken`: a TypeError traceback.
  Each now names the file and the column.

Not run against the code before the fix, for the harm they do: the 100,000 workers, the
2**63 pairs and the reads of /dev/zero (reasoned through above instead).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import affray

DEMO = str(affray.builtin_scenario("demo"))
FIFO_REFUSED = "a named pipe (FIFO), not a regular file"
ROW = {"run": 0, "seed": 0, "pulses": 10, "settled": None, "error": None, "x.hp": 3,
       "x.alive": True, "x.damage_taken": 1, "x.struck": 1, "x.death_pulse": None}


@dataclass
class Case:
    args: list[str]
    status: int
    message: str
    env: dict[str, str] | None = None
    after: Callable[[], None] | None = None


def _fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def _csv(path: Path, header: str, row: str) -> Path:
    path.write_text(f"{header}\n{row}\n", encoding="utf-8")
    return path


def _case_render_pulse(tmp: Path) -> Case:
    return Case(["render", DEMO, "--pulse", str(2**63)], 2,
                "argument --pulse: must be at most 9,223,372,036,854,775,807")


def _case_workers_past_the_bound(tmp: Path) -> Case:
    return Case(["batch", "duel", "--runs", "2", "--workers", "100000"], 2,
                "argument --workers: must be at most 256, got 100,000")


def _case_runs_past_the_last_seed(tmp: Path) -> Case:
    return Case(["batch", "duel", "--runs", str(2**63 + 1)], 2,
                "argument --runs: must be at most 9,223,372,036,854,775,808")


def _case_chunk_size_0(tmp: Path) -> Case:
    return Case(["batch", "duel", "--runs", "2", "--chunk-size", "0"], 2,
                "argument --chunk-size: must be 1 or more, got 0")


def _case_workers_with_a_scheduler(tmp: Path) -> Case:
    return Case(["batch", "duel", "--runs", "2", "--backend", "dask", "--scheduler",
                 "tcp://127.0.0.1:8786", "--workers", "3"], 2,
                "--workers sizes a pool or a local cluster: a --scheduler cluster has the "
                "workers it has")


def _case_unreachable_scheduler(tmp: Path) -> Case:
    return Case(["batch", "duel", "--runs", "1", "--backend", "dask", "--scheduler",
                 "tcp://127.0.0.1:9"], 1,
                "affray: batch: cannot reach the Dask scheduler at tcp://127.0.0.1:9: ",
                env={"DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "1s"})


def _case_render_png_onto_a_folder(tmp: Path) -> Case:
    (tmp / "picture.png").mkdir()
    return Case(["render", DEMO, "--png", str(tmp / "picture")], 1,
                f"affray: {tmp / 'picture.png'}: is a folder, not a file to write the PNG to")


def _case_report_png_onto_a_folder(tmp: Path, results: Path) -> Case:
    (tmp / "plots.png").mkdir()
    return Case(["report", str(results), "--png", str(tmp / "plots")], 1,
                f"affray: {tmp / 'plots.png'}: is a folder, not a file to write the plots to")


def _case_replay_onto_its_scenario(tmp: Path) -> Case:
    scenario = tmp / "demo.toml"
    text = Path(DEMO).read_text(encoding="utf-8")
    scenario.write_text(text, encoding="utf-8")

    def after() -> None:
        assert scenario.read_text(encoding="utf-8") == text

    return Case(["replay", str(scenario), "-o", str(scenario)], 1,
                f"affray: {scenario}: is the command's input: the replay page would "
                f"overwrite it", after=after)


def _case_replay_to_an_empty_name(tmp: Path) -> Case:
    return Case(["replay", DEMO, "-o", ""], 1,
                "affray: the replay page: the file name is empty")


def _case_run_an_empty_name(tmp: Path) -> Case:
    return Case(["run", ""], 1, "affray: the file name is empty: name a scenario")


def _case_check_an_empty_name(tmp: Path) -> Case:
    return Case(["check", ""], 1, "the file name is empty: name a scenario")


def _case_bench_into_a_fifo(tmp: Path) -> Case:
    fifo = _fifo(tmp / "results.json")
    return Case(["bench", "--quick", "--out", str(fifo)], 1,
                f"affray: {fifo}: cannot write the benchmark results: a named pipe (FIFO) "
                f"that nobody reads")


def _case_batch_into_a_fifo(tmp: Path) -> Case:
    fifo = _fifo(tmp / "results.csv")
    return Case(["batch", "duel", "--runs", "2", "--out", str(fifo)], 1,
                f"affray: {fifo}: cannot write the batch's rows: a named pipe (FIFO) that "
                f"nobody reads")


def _case_render_a_fifo(tmp: Path) -> Case:
    return Case(["render", str(_fifo(tmp / "fifo.toml"))], 1, FIFO_REFUSED)


def _case_batch_from_a_fifo(tmp: Path) -> Case:
    return Case(["batch", str(_fifo(tmp / "fifo.toml")), "--runs", "1"], 1, FIFO_REFUSED)


def _case_replay_from_dev_zero(tmp: Path) -> Case:
    return Case(["replay", "/dev/zero", "-o", str(tmp / "r.html")], 1,
                "affray: /dev/zero: a character device, not a regular file")


def _case_batch_from_dev_zero(tmp: Path) -> Case:
    return Case(["batch", "/dev/zero", "--runs", "1"], 1,
                "affray: /dev/zero: a character device, not a regular file")


def _case_report_a_fifo(tmp: Path) -> Case:
    fifo = _fifo(tmp / "results.csv")
    return Case(["report", str(fifo)], 1, f"affray: {fifo}: {FIFO_REFUSED}")


def _case_report_a_folder(tmp: Path) -> Case:
    folder = tmp / "results.csv"
    folder.mkdir()
    return Case(["report", str(folder)], 1, f"affray: {folder}: is a folder, not a file")


def _case_check_an_empty_folder(tmp: Path) -> Case:
    folder = tmp / "empty"
    folder.mkdir()
    return Case(["check", str(folder)], 1,
                f"{folder}: a folder without .toml files: nothing to check")


def _case_check_a_folder_with_a_fifo(tmp: Path) -> Case:
    folder = tmp / "content"
    folder.mkdir()
    fifo = _fifo(folder / "x.toml")
    return Case(["check", str(folder)], 1, f"{fifo}: {FIFO_REFUSED}")


def _case_report_missing_a_column(tmp: Path) -> Case:
    names = [name for name in ROW if name != "x.damage_taken"]
    path = _csv(tmp / "r.csv", ",".join(names), "0,0,10,,,3,true,1,")
    return Case(["report", str(path)], 1,
                f"affray: {path}: not a batch results table: no 'x.damage_taken' column")


def _case_report_alive_as_text(tmp: Path) -> Case:
    path = _csv(tmp / "r.csv", ",".join(ROW), "0,0,10,,,3,maybe,1,1,")
    return Case(["report", str(path)], 1,
                f"affray: {path}: column 'x.alive' holds string, not true or false")


def _case_report_text_in_a_number_column(tmp: Path) -> Case:
    path = tmp / "r.parquet"
    pq.write_table(pa.Table.from_pylist([{**ROW, "x.damage_taken": "a lot"}]), path)
    return Case(["report", str(path)], 1,
                f"affray: {path}: column 'x.damage_taken' holds string, not whole numbers")


CASES: dict[str, Callable[..., Case]] = {
    name.removeprefix("_case_"): function for name, function in sorted(globals().items())
    if name.startswith("_case_")}


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    """A batch's table, for `report`."""
    path = tmp_path_factory.mktemp("results") / "results.csv"
    made = subprocess.run([sys.executable, "-m", "affray", "batch", "duel", "--runs", "3",
                           "--out", str(path), "--quiet"], capture_output=True, text=True,
                          timeout=120, check=False)
    assert made.returncode == 0, made.stderr
    return path


def _run(case: Case) -> subprocess.CompletedProcess[str]:
    env = None if case.env is None else {**os.environ, **case.env}
    return subprocess.run([sys.executable, "-m", "affray", *case.args], capture_output=True,
                          text=True, timeout=60, check=False, env=env)


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_command_line_input(name, tmp_path, results):
    """One hunted bad input (the module's docstring lists them): the exit status, the
    message on stderr, no traceback, and what must not have been written."""
    make = CASES[name]
    case = make(tmp_path, results) if make.__code__.co_argcount == 2 else make(tmp_path)
    result = _run(case)
    assert result.returncode == case.status, result.stderr
    assert case.message in result.stderr
    assert "Traceback" not in result.stderr
    if case.after is not None:
        case.after()


@pytest.fixture
def locked_file(tmp_path) -> Path:
    """An existing results file that cannot be written: read-only for a user, immutable
    for root."""
    path = tmp_path / "results.csv"
    path.write_text("old rows\n", encoding="utf-8")
    if os.geteuid() != 0:
        path.chmod(0o444)
        yield path
        return
    if shutil.which("chattr") is None or subprocess.run(
            ["chattr", "+i", str(path)], capture_output=True, check=False).returncode:
        pytest.skip("chattr +i is not available here: no file root cannot write")
    try:
        yield path
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=False)


def test_batch_onto_a_file_that_cannot_be_written(locked_file):
    """`batch --out FILE` on an existing file that cannot be written: refused before a
    million runs (it used to be a traceback after every one), the file unchanged."""
    result = _run(Case(["batch", "duel", "--runs", "1000000", "--out", str(locked_file)],
                       1, ""))
    assert result.returncode == 1
    assert result.stderr.startswith(f"affray: {locked_file}: cannot write the batch's rows: ")
    assert "Traceback" not in result.stderr
    assert locked_file.read_text(encoding="utf-8") == "old rows\n"
