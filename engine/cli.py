"""The `affray` command: run, check, render, demo, schedule, bench, batch, sweep, balance,
report.

Exit status: 0 on success, 1 on a content, scenario, action or save error (one message
on stderr naming the file and field, never a traceback), 2 on usage errors (argparse:
a bad number, an option without the one it needs).

Files are checked before any work (`affray.data.files`): what a command reads must be a
regular file (never a FIFO or a device; scenario and content files at most 16 MiB),
and what it writes must have a folder to go to, not be a folder, be writable and not be
one of its inputs. A write that fails anyway at the end (a full disk) is a message and
exit 1; `batch` then still keeps its rows in a file of the temporary folder.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from affray.core.errors import AffrayError, ScenarioError, UsageError

MAX_COUNT = 2**63 - 1  # a seed, a pulse count: what the engine's int64 clock holds


def _whole(text: str, low: int, high: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < low:
        raise argparse.ArgumentTypeError(f"must be {low} or more, got {value}")
    if value > high:
        raise argparse.ArgumentTypeError(f"must be at most {high:,}, got {value:,}")
    return value


def _count(text: str) -> int:
    """An argparse type: a whole number 0..2**63-1 (seeds and pulse counts)."""
    return _whole(text, 0, MAX_COUNT)


def _positive(text: str) -> int:
    """An argparse type: a whole number 1..2**63 (a batch's runs)."""
    return _whole(text, 1, MAX_COUNT + 1)


def _workers(text: str) -> int:
    """An argparse type: a worker count, 1..affray.batch.MAX_WORKERS."""
    from affray.runners.batch import MAX_WORKERS

    return _whole(text, 1, MAX_WORKERS)


def _chunk(text: str) -> int:
    """An argparse type: runs per task, 1..affray.batch.MAX_CHUNK_SIZE."""
    from affray.runners.batch import MAX_CHUNK_SIZE

    return _whole(text, 1, MAX_CHUNK_SIZE)


def _pack(text: str) -> int:
    """An argparse type: copies of the scenario to a World, 1..affray.packing.MAX_PACK."""
    from affray.runners.packing import MAX_PACK

    return _whole(text, 1, MAX_PACK)


def _pack_option(command: argparse.ArgumentParser) -> None:
    command.add_argument("--pack", type=_pack, default=None, metavar="K",
                         help="run K copies of the scenario side by side in one world, "
                              "walled apart, for throughput (each copy its own row; "
                              "docs/api.md)")


def _vary(text: str) -> tuple[str, list[object]]:
    """An argparse type: `--vary PATH=V1,V2,...` or `PATH=LO:HI[:STEP]`."""
    from affray.runners.balancing import parse_vary_option

    try:
        return parse_vary_option(text)
    except UsageError as error:
        raise argparse.ArgumentTypeError(str(error).removeprefix("sweep: ")) from None


def _vary_range(text: str) -> tuple[str, list[object]]:
    """An argparse type: the solver's `--vary PATH=LO:HI`, whole numbers."""
    from affray.runners.balancing import parse_vary_option

    try:
        return parse_vary_option(text, "balance", ranges_only=True)
    except UsageError as error:
        raise argparse.ArgumentTypeError(str(error).removeprefix("balance: ")) from None


def _between(text: str, low: float, high: float) -> float:
    import math

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if math.isnan(value) or not low < value < high:
        raise argparse.ArgumentTypeError(f"must be above {low} and below {high}, got {text}")
    return value


def _fraction(text: str) -> float:
    """An argparse type: a rate, above 0 and below 1."""
    return _between(text, 0.0, 1.0)


def _confidence(text: str) -> float:
    """An argparse type: a confidence level, above 0.5 and at most 0.9999."""
    value = _between(text, 0.5, 1.0)
    if value > 0.9999:
        raise argparse.ArgumentTypeError(f"must be at most 0.9999, got {text}")
    return value


def _step_runs(text: str) -> int:
    """An argparse type: the solver's runs at a value, 1..MAX_BALANCE_RUNS."""
    from affray.runners.balancing import MAX_BALANCE_RUNS

    return _whole(text, 1, MAX_BALANCE_RUNS)


def _run_options(command: argparse.ArgumentParser) -> None:
    """Where the runs go and from which seed: batch, sweep and balance."""
    command.add_argument("--workers", type=_workers, default=None,
                         help="processes (default 1), or the local Dask cluster's")
    command.add_argument("--seed", type=_count, default=0, help="first seed (default 0)")
    command.add_argument("--backend", choices=("local", "dask"), default="local")
    command.add_argument("--scheduler", default=None,
                         help="a Dask scheduler's address (with --backend dask)")


def _table_options(command: argparse.ArgumentParser) -> None:
    """How the runs are cut and kept, and what is printed: batch and sweep."""
    command.add_argument("--chunk-size", type=_chunk, default=None,
                         help="runs per task (default: about 4 tasks a worker, at most 100)")
    command.add_argument("--out", default=None, help="write the rows: results.parquet or "
                         ".csv (the creature table beside it: results.creatures.parquet)")
    _collect_option(command)
    _pack_option(command)
    command.add_argument("--json", action="store_true", help="print the summary as JSON")
    command.add_argument("--quiet", action="store_true", help="no progress bar")


def _collect_option(command: argparse.ArgumentParser) -> None:
    command.add_argument("--collect", choices=("runs", "creatures", "rounds"),
                         default="creatures",
                         help="the tables to keep: runs; creatures (default: also one row "
                              "per run and creature, beside --out); rounds (also hit points "
                              "and creatures standing by side every round)")


def _parser() -> argparse.ArgumentParser:
    from affray import __version__

    parser = argparse.ArgumentParser(prog="affray", description="Grid combat engine.")
    parser.add_argument("--version", action="version", version=f"affray {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = sub.add_parser("run", help="run a scenario and print its events")
    run.add_argument("scenario")
    run.add_argument("--seed", type=_count, default=None, help="override the file's seed")
    run.add_argument("--json", action="store_true", help="print one JSON document")
    run.add_argument("--pulses", type=_count, default=None, help="run this many pulses")
    run.add_argument("--until", choices=("settled",), default=None,
                     help="stop early once nothing more can happen")
    run.add_argument("--quiet", action="store_true", help="no progress bar on stderr")

    check = sub.add_parser("check", help="validate content and scenario files (a folder: "
                           "every .toml file in it and its subfolders)")
    check.add_argument("paths", nargs="+", metavar="PATH")

    render = sub.add_parser("render", help="draw a scenario's (or a save's) map and everyone "
                            "on it")
    render.add_argument("scenario", metavar="SCENARIO|SAVE")
    render.add_argument("--png", default=None, metavar="FILE",
                        help="write a PNG (needs affray[png]) instead of ASCII")
    render.add_argument("--pulse", type=_count, default=None,
                        help="draw the end of pulse N (default: as loaded)")
    render.add_argument("--seed", type=_count, default=None, help="override the file's seed")

    replay = sub.add_parser("replay", help="write a fight as one self-contained HTML page")
    replay.add_argument("scenario", metavar="SCENARIO|SAVE")
    replay.add_argument("-o", "--out", required=True, metavar="FILE", help="the HTML file")
    replay.add_argument("--seed", type=_count, default=None, help="override the file's seed")
    replay.add_argument("--pulses", type=_count, default=None,
                        help="record this many pulses (default: to the scenario's end)")
    replay.add_argument("--until", choices=("settled",), default=None,
                        help="stop early once nothing more can happen")

    demo = sub.add_parser("demo", help="run the built-in demo scenario")
    demo.add_argument("--json", action="store_true")
    demo.add_argument("--seed", type=_count, default=None)
    demo.add_argument("--quiet", action="store_true", help="no progress bar on stderr")

    sub.add_parser("schedule", help="print the systems in pulse order")

    bench = sub.add_parser("bench", help="run the benchmark suite")
    bench.add_argument("--quick", action="store_true", help="small sizes, few repeats")
    bench.add_argument("--out", default="bench-results.json", help="JSON results file")

    batch = sub.add_parser("batch", help="run a scenario over many seeds")
    batch.add_argument("scenario")
    batch.add_argument("--runs", type=_positive, required=True,
                       help="how many seeds: 1 or more, the last seed at most 2**63 - 1")
    _run_options(batch)
    _table_options(batch)

    sweep = sub.add_parser("sweep", help="run a scenario over a grid of values of its fields")
    sweep.add_argument("scenario")
    sweep.add_argument("--vary", action="append", required=True, type=_vary,
                       metavar="PATH=V1,V2,...|PATH=LO:HI:STEP",
                       help="a dotted field and its values (creatures.warrior.hp=20:40:5); "
                            "again for a grid")
    sweep.add_argument("--runs", type=_positive, required=True,
                       help="seeds at every grid point (the same seeds at each)")
    _run_options(sweep)
    _table_options(sweep)

    solve = sub.add_parser("balance", help="find the value of a field at which a side wins "
                           "at a target rate")
    solve.add_argument("scenario")
    solve.add_argument("--vary", required=True, type=_vary_range, metavar="PATH=LO:HI",
                       help="a whole-number field and the range to search "
                            "(creatures.warrior.hp=10:60)")
    solve.add_argument("--side", required=True, help="the side whose win rate is the target")
    solve.add_argument("--rate", type=_fraction, default=0.5,
                       help="the target win rate, above 0 and below 1 (default 0.5)")
    solve.add_argument("--confidence", type=_confidence, default=0.95,
                       help="of the Wilson interval that decides each step (default 0.95)")
    solve.add_argument("--runs", type=_step_runs, default=200,
                       help="runs added at a time to a value until it is decided (default "
                            "200)")
    solve.add_argument("--max-runs", type=_step_runs, default=5000,
                       help="runs at one value at most (default 5,000)")
    _run_options(solve)
    solve.add_argument("--json", action="store_true", help="print the answer as JSON")
    solve.add_argument("--quiet", action="store_true", help="no progress line")

    report = sub.add_parser("report", help="summarize (and plot) saved batch results")
    report.add_argument("results", help="a .parquet or .csv file from batch --out")
    report.add_argument("--png", default=None, metavar="FILE",
                        help="write plots to this PNG (needs affray[plots])")
    report.add_argument("--json", action="store_true", help="print the summary as JSON")
    return parser


def _run(path: str, seed: int | None, as_json: bool, pulses: int | None,
         until: str | None = None, quiet: bool = False) -> int:
    """`affray run`: a scenario from its start, or a save from where it was saved (to
    the end its scenario set, as `load_world(path).run()`)."""
    from affray.display.render import open_world
    from affray.display.summary import print_summary, run_footer, run_with_progress, summarize
    from affray.display.text import render_log

    world = open_world(path, seed)
    try:
        run_with_progress(world, pulses, until, show=not quiet and sys.stderr.isatty())
        summary = summarize(world)
        if as_json:
            document = {"scenario": world.name, "seed": world.seed,
                        "events": [event.to_dict() for event in world.events],
                        "final": world.snapshot(), "summary": summary.to_dict()}
            print(json.dumps(document))
        else:
            for line in render_log(world.events):
                print(line)
            print()
            print_summary(summary)
            print(run_footer(world, world.name or path))
    finally:
        world.close()
    return 0


def _toml_files(path: str) -> list[str]:
    """A folder's .toml files, in its subfolders too, sorted (symbolic links to folders
    are not followed, so a link loop cannot run forever); any other path as given."""
    import os

    if not os.path.isdir(path):
        return [path]
    found = []
    for folder, subfolders, names in os.walk(path):
        subfolders.sort()
        found += [os.path.join(folder, name) for name in sorted(names)
                  if name.endswith(".toml")]
    if not found:
        raise AffrayError(f"{path}: a folder without .toml files: nothing to check")
    return found


def _check(paths: Sequence[str]) -> int:
    """Each path is a scenario or a content file, told apart by its keys exactly as
    `run` tells them (`scenario.file_kind`), so `check` and `run` never disagree. A
    folder stands for every .toml file in it and its subfolders; each is printed."""
    from affray.data.content_loader import check_file, parse_toml, read_source
    from affray.data.files import input_file
    from affray.data.scenario import file_kind, load_scenario

    failures = 0
    files = []
    for given in paths:
        try:
            files += _toml_files(given)
        except AffrayError as error:
            print(str(error), file=sys.stderr)
            failures += 1
    for path in files:
        try:
            input_file(path, ScenarioError)  # a regular file, within the size limit
            kind = file_kind(parse_toml(read_source(path), path), path)
            lines: list[str] = []
            if kind == "scenario":
                world = load_scenario(path)
                lines = _level_lines(path, world)
                world.close()
            else:
                check_file(path)
            print(f"{path}: ok ({kind})")
            for line in lines:  # what each creature's level implies (affray.data.levels)
                print(f"  {line}")
        except AffrayError as error:
            print(str(error), file=sys.stderr)
            failures += 1
    return 1 if failures else 0


def _render(path: str, png: str | None, pulse: int | None, seed: int | None) -> int:
    from affray.display.render import open_world, render_ascii, render_png, run_to_end_of

    world = open_world(path, seed)
    try:
        run_to_end_of(world, pulse)
        if png:
            print(f"wrote {render_png(world, png)}")
        else:
            print(render_ascii(world))
        lines = _level_lines(path, world)
    finally:
        world.close()
    if lines:
        print("levels:")
        for line in lines:
            print(f"  {line}")
    return 0


def _level_lines(path: str, world: Any) -> list[str]:
    """What each creature's level implies (`affray.data.levels.scenario_lines`) in a scenario
    file, over the world's layered content; none for a save (its creatures keep the
    numbers they were saved with)."""
    from affray.data.content_loader import read_source
    from affray.data.levels import scenario_lines
    from affray.data.scenario import parse_scenario

    with open(path, "rb") as handle:
        if handle.read(32).lstrip().startswith(b"{"):  # a save's header (`open_world`)
            return []
    spec, _raw = parse_scenario(read_source(path, ScenarioError), path)
    return scenario_lines(spec, world.content)


def _replay(path: str, out: str, seed: int | None, pulses: int | None,
            until: str | None = None) -> int:
    from affray.display.render import open_world
    from affray.display.replay import describe_page

    world = open_world(path, seed)
    try:
        written = world.replay_html(out, pulses, until=until)
        print(describe_page(world, written))
    finally:
        world.close()
    return 0


def _schedule() -> int:
    import numpy as np

    from affray.core.grid import Grid
    from affray.core.world import World
    from affray.data.content_loader import default_content

    with World(default_content(), Grid(np.zeros((1, 1), dtype=np.uint8))) as world:
        print(world.schedule)
    return 0


# -- files and option combinations, checked before any work -----------------------------------
# The file each command writes: (option, what it holds, the endings it may have).
OUTPUTS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "replay": ("out", "the replay page", ()),
    "render": ("png", "the PNG", ()),
    "report": ("png", "the plots", ()),
    "bench": ("out", "the benchmark results", ()),
    "batch": ("out", "the batch's rows", (".parquet", ".csv")),
    "sweep": ("out", "the sweep's rows", (".parquet", ".csv")),
}


def _output(args: argparse.Namespace) -> str | None:
    """The file the command will write, if any: a PNG's name gets `.png` when it has
    none (`affray.display.render.png_path`: `--png picture` writes picture.png)."""
    if args.command not in OUTPUTS:
        return None
    target: str | None = getattr(args, OUTPUTS[args.command][0])
    if target is None or args.command not in ("render", "report") or not target:
        return target
    from affray.display.render import png_path

    return str(png_path(target))


def _check_usage(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Options that need one another, or clash: argparse's usage error (exit 2)."""
    if args.command not in ("batch", "sweep", "balance"):
        return
    command = args.command
    if args.scheduler is not None and args.backend != "dask":
        parser.error(f"{command}: --scheduler is a Dask scheduler's address: it needs "
                     f"--backend dask")
    if args.scheduler is not None and args.workers is not None:
        parser.error(f"{command}: --workers sizes a pool or a local cluster: a "
                     f"--scheduler cluster has the workers it has")
    if args.workers is None:
        args.workers = 1
    runs = args.max_runs if command == "balance" else args.runs
    last = args.seed + runs - 1
    if last > MAX_COUNT:
        parser.error(f"{command}: seeds {args.seed}..{last} pass the last seed, 2**63 - 1: "
                     f"at most {MAX_COUNT + 1 - args.seed:,} runs from seed {args.seed}")
    if command == "sweep":
        paths = [path for path, _ in args.vary]
        twice = sorted({path for path in paths if paths.count(path) > 1})
        if twice:
            parser.error(f"sweep: --vary {twice[0]} is given twice: list its values once")
    if command == "balance" and args.max_runs < args.runs:
        parser.error(f"balance: --max-runs ({args.max_runs:,}) must be at least --runs "
                     f"({args.runs:,})")


def _check_files(args: argparse.Namespace) -> None:
    """The command's input is a regular file (scenario and content files within the
    size limit) and its output can be written and is not that input: else an error now,
    before a run, a batch or the benchmark suite spends minutes."""
    from affray.data.files import MAX_SOURCE_BYTES, input_file, output_file

    source: str | None = None
    if args.command in ("run", "render", "replay"):
        source = str(input_file(args.scenario, ScenarioError, limit=None,
                                what="a scenario or a save"))
        if not _is_save(source):
            input_file(source, ScenarioError, limit=MAX_SOURCE_BYTES)
    elif args.command == "report":
        _needs_pyarrow("report")
        source = str(input_file(args.results, UsageError, limit=None,
                                what="a batch's results"))
    target = _output(args)
    if target is None:
        return
    _, what, suffixes = OUTPUTS[args.command]
    if args.command in ("batch", "sweep"):
        _needs_pyarrow(args.command)
    if source is not None and _same_file(source, target):
        raise UsageError(f"{target}: is the command's input: {what} would overwrite it")
    output_file(target, what, suffixes)
    if args.command in ("batch", "sweep"):  # the creature and rounds tables beside it
        from affray.display.report import outputs

        for beside, kind in zip(outputs(target, args.collect)[1:], ("creature", "rounds"),
                                strict=False):
            output_file(beside, f"the {args.command}'s {kind} table", suffixes)


def _builtin_or_path(given: str) -> str:
    """A built-in scenario's name (`affray run ambush`) when no file of that name exists
    and it has no folder or suffix; otherwise the path as given."""
    import os

    if os.path.exists(given) or os.sep in given or "." in given:
        return given
    from affray.data.scenario import builtin_scenario

    try:
        return str(builtin_scenario(given))
    except AffrayError:
        return given  # the file checks will say it is missing


def _is_save(path: str) -> bool:
    """A save starts with its JSON header (`affray.display.render.open_world` tells the same)."""
    with open(path, "rb") as handle:
        return handle.read(32).lstrip().startswith(b"{")


def _same_file(first: str, second: str) -> bool:
    import os

    try:
        return os.path.samefile(first, second)
    except OSError:
        return False


def _needs_pyarrow(command: str) -> None:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise UsageError(f"{command} needs pyarrow: pip install 'affray[batch]'") from None


def _write_failed(args: argparse.Namespace, error: OSError) -> str:
    """The message for an OSError that escaped a command: the write of its output."""
    reason = error.strerror or str(error)
    target = _output(args)
    if target is not None:
        return f"{target}: could not write {OUTPUTS[args.command][1]}: {reason}"
    return f"{error.filename or args.command}: {reason}"


# -- batch, sweep, balance and report ------------------------------------------------------------
ProgressFn = Callable[[int, int], None]


@contextmanager
def _progress_bar(args: argparse.Namespace, label: str, total: int | None
                  ) -> Iterator[ProgressFn | None]:
    """A progress bar on stderr when it is a terminal (not with --quiet or --json),
    as a `progress(done, total)` function; None otherwise. No refresh thread
    (auto_refresh off: the bar redraws as tasks finish), so a process pool, or a fresh
    one after a lost worker, never forks a threaded process."""
    from rich.console import Console

    console = Console(stderr=True)
    if not console.is_terminal or args.quiet or args.json:
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    with Progress("[progress.description]{task.description}", BarColumn(),
                  MofNCompleteColumn(), TimeRemainingColumn(), console=console,
                  transient=True, auto_refresh=False) as bar:
        task = bar.add_task(label, total=total)

        def advance(done: int, whole: int) -> None:
            bar.update(task, completed=done, total=whole)
            bar.refresh()

        yield advance


def _run_options_of(args: argparse.Namespace) -> dict[str, object]:
    return {"seed": args.seed, "workers": args.workers, "backend": args.backend,
            "scheduler": args.scheduler, "chunk_size": getattr(args, "chunk_size", None),
            "collect": args.collect, "pack": getattr(args, "pack", None)}


def _batch(args: argparse.Namespace) -> int:
    """`affray batch`: run (a progress bar on a terminal), write the tables if `--out`,
    print the summary (or JSON). Tables that cannot be written to `--out` (checked
    before the batch, so rare: a disk that filled up) are written to the temporary
    folder instead, the message says where, and the exit status is 1: the rows are not
    lost."""
    from pathlib import Path

    from affray.runners.batch import batch

    with _progress_bar(args, f"batch {Path(args.scenario).name}", args.runs) as progress:
        results = batch(args.scenario, args.runs, progress=progress,  # type: ignore[call-overload]
                        **_run_options_of(args))
    return _finish(args, results, f"{Path(args.scenario).name}: seeds {args.seed}.."
                                  f"{args.seed + args.runs - 1}")


def _sweep(args: argparse.Namespace) -> int:
    """`affray sweep`: the grid of every --vary's values, --runs seeds at each point;
    then as `batch`: the tables to --out, the wins by side at each point printed."""
    from pathlib import Path

    from affray.runners.balancing import sweep

    vary = dict(args.vary)
    with _progress_bar(args, f"sweep {Path(args.scenario).name}", None) as progress:
        results = sweep(args.scenario, vary, args.runs, progress=progress,  # type: ignore[call-overload]
                        **_run_options_of(args))
    return _finish(args, results, f"{Path(args.scenario).name}: seeds {args.seed}.."
                                  f"{args.seed + args.runs - 1} at each point")


def _finish(args: argparse.Namespace, results: object, title: str) -> int:
    written, failure = _write_rows(results, args.out)
    _print_batch(args, results, written, title)
    if failure is None:
        return 0
    where = (f"the rows were written to {written} instead" if written
             else "the rows could not be written anywhere")
    print(f"affray: {failure}; {where}", file=sys.stderr)
    return 1


def _write_rows(results: object, out: str | None) -> tuple[str | None, str | None]:
    """Write the tables to `out` (and beside it); if that fails, to new files in the
    temporary folder. Returns (where the run table was written or None, the failure's
    message or None)."""
    import os
    import tempfile
    from pathlib import Path

    from affray.data.files import writing
    from affray.display.report import runs_of, sibling, write_table, write_tables

    if out is None:
        return None, None
    try:
        with writing(out, "the batch's rows"):
            write_table(runs_of(results), out)
        for kind in ("creatures", "rounds"):
            table = getattr(results, kind, None)
            if table is not None:
                with writing(sibling(out, kind), "the batch's rows"):
                    write_table(table, sibling(out, kind))
        return out, None
    except UsageError as error:
        failure = str(error)
    try:
        handle, spare = tempfile.mkstemp(prefix="affray-batch-", suffix=Path(out).suffix)
        os.close(handle)
        write_tables(results, spare)
    except OSError:
        return None, failure
    return spare, failure


def _print_batch(args: argparse.Namespace, results: object, written: str | None,
                 title: str) -> None:
    from rich.console import Console

    from affray.display.report import render, summarize

    summary = summarize(results)
    if args.json:
        print(json.dumps({"scenario": args.scenario, "seed": args.seed, "runs": args.runs,
                          "summary": summary, "out": written}, default=str))
        return
    out = Console()
    if not out.is_terminal:
        out = Console(width=150)
    render(summary, title, out)
    if written is not None and written == args.out:
        print(f"results written to {written}")


def _balance(args: argparse.Namespace) -> int:
    """`affray balance`: the solver (`affray.balance`); its steps and answer printed (or
    JSON). Exit 1 when the range holds no break-even (the rate is on one side of the
    target at both ends), after saying so."""
    from pathlib import Path

    from rich.console import Console

    from affray.display.report import balance_line, render_balance
    from affray.runners.balancing import balance

    path, (low, high) = args.vary
    with _progress_line(args, f"balance {Path(args.scenario).name}") as progress:
        result = balance(args.scenario, path, low, high, side=args.side, rate=args.rate,
                         confidence=args.confidence, runs=args.runs,
                         max_runs=args.max_runs, seed=args.seed, workers=args.workers,
                         backend=args.backend, scheduler=args.scheduler,
                         progress=progress)
    if args.json:
        print(json.dumps({"scenario": args.scenario, "seed": args.seed,
                          **result.to_dict()}))
    else:
        out = Console()
        if not out.is_terminal:
            out = Console(width=150)
        render_balance(result, out)
        print(balance_line(result))
    if result.value is None:
        if args.json:
            print(f"affray: {balance_line(result)}", file=sys.stderr)
        return 1
    return 0


@contextmanager
def _progress_line(args: argparse.Namespace, label: str) -> Iterator[Any]:
    """The solver's progress on a terminal: the value being run, its runs and rate so
    far, redrawn after each batch of runs (no refresh thread, as `_progress_bar`)."""
    from rich.console import Console

    console = Console(stderr=True)
    if not console.is_terminal or args.quiet or args.json:
        yield None
        return
    from rich.progress import Progress, SpinnerColumn, TextColumn

    with Progress(SpinnerColumn(), TextColumn("{task.description}"), console=console,
                  transient=True, auto_refresh=False) as line:
        task = line.add_task(label, total=None)

        def show(step: Any) -> None:
            rate = "-" if step.rate is None else f"{step.rate:.1%}"
            line.update(task, description=f"{label}: {args.vary[0]} = {step.value}: "
                                          f"{step.runs:,} runs, {args.side} win {rate}")
            line.refresh()

        yield show


def _report(args: argparse.Namespace) -> int:
    """`affray report`: the summary of saved tables (the run table, and its creature
    table when it is beside it), checked to be a batch's (their columns and types);
    `--png` plots them: a sweep's tables as a sweep's plots."""
    from pathlib import Path

    from rich.console import Console

    from affray.data.files import writing
    from affray.display.report import plot, read_tables, render, summarize

    results = read_tables(args.results)
    summary = summarize(results)
    written = None
    if args.png:
        with writing(_output(args) or args.png, "the plots"):
            written = plot(results, args.png,
                           title=f"{Path(args.results).name}: {summary['runs']:,} runs")
    if args.json:
        print(json.dumps({"results": args.results, "summary": summary,
                          "png": None if written is None else str(written)}, default=str))
        return 0
    console = Console()
    if not console.is_terminal:
        console = Console(width=150)
    render(summary, Path(args.results).name, console)
    if written is not None:
        print(f"plots written to {written}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `affray` command; returns the exit status.

    A reader that stops early (`affray demo --json | head -c 100`) closes the pipe: the
    command then stops quietly with status 141 (128 + SIGPIPE, as a killed Unix tool)."""
    try:
        status = _main(argv)
        sys.stdout.flush()  # a closed pipe shows here, not at interpreter exit
    except BrokenPipeError:
        import os

        # Point stdout at /dev/null so the interpreter's own final flush stays quiet.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    return status


def _main(argv: Sequence[str] | None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    _check_usage(parser, args)
    if getattr(args, "scenario", None) is not None:
        args.scenario = _builtin_or_path(args.scenario)
    if args.command == "check":  # `affray check battle`, as `affray run battle`
        args.paths = [_builtin_or_path(path) for path in args.paths]
    try:
        _check_files(args)
        if args.command == "run":
            return _run(args.scenario, args.seed, args.json, args.pulses, args.until,
                        args.quiet)
        if args.command == "check":
            return _check(args.paths)
        if args.command == "render":
            return _render(args.scenario, args.png, args.pulse, args.seed)
        if args.command == "replay":
            return _replay(args.scenario, args.out, args.seed, args.pulses, args.until)
        if args.command == "demo":
            from affray.data.scenario import builtin_scenario

            return _run(str(builtin_scenario("demo")), args.seed, args.json, None,
                        quiet=args.quiet)
        if args.command == "schedule":
            return _schedule()
        if args.command == "bench":
            from affray.benchmarks.runner import main as bench_main

            return bench_main(quick=args.quick, out=args.out)
        if args.command == "batch":
            return _batch(args)
        if args.command == "sweep":
            return _sweep(args)
        if args.command == "balance":
            return _balance(args)
        if args.command == "report":
            return _report(args)
    except AffrayError as error:
        print(f"affray: {error}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        raise
    except OSError as error:  # a write that failed after the checks: a full disk
        print(f"affray: {_write_failed(args, error)}", file=sys.stderr)
        return 1
    return 2
