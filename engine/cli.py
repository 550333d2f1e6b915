"""The `affray` command: run, check, render, demo, schedule, bench, batch, report.

Exit status: 0 on success, 1 on a content, scenario, action or save error (one message
on stderr naming the file and field, never a traceback), 2 on usage errors (argparse).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from affray.errors import AffrayError


def _count(text: str) -> int:
    """An argparse type: a whole number 0 or more (seeds and pulse counts)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


def _positive(text: str) -> int:
    """An argparse type: a whole number 1 or more (worker counts)."""
    value = _count(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, got {value}")
    return value


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

    check = sub.add_parser("check", help="validate content and scenario files")
    check.add_argument("paths", nargs="+")

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
    batch.add_argument("--runs", type=_count, required=True)
    batch.add_argument("--workers", type=_positive, default=1, help="processes (default 1)")
    batch.add_argument("--seed", type=_count, default=0, help="first seed (default 0)")
    batch.add_argument("--backend", choices=("local", "dask"), default="local")
    batch.add_argument("--scheduler", default=None, help="a Dask scheduler's address")
    batch.add_argument("--out", default=None, help="write the rows: results.parquet or .csv")
    batch.add_argument("--json", action="store_true", help="print the summary as JSON")
    batch.add_argument("--quiet", action="store_true", help="no progress bar")

    report = sub.add_parser("report", help="summarize (and plot) saved batch results")
    report.add_argument("results", help="a .parquet or .csv file from batch --out")
    report.add_argument("--png", default=None, help="write plots to this PNG")
    report.add_argument("--json", action="store_true", help="print the summary as JSON")
    return parser


def _run(path: str, seed: int | None, as_json: bool, pulses: int | None,
         until: str | None = None, quiet: bool = False) -> int:
    from affray.scenario import load_scenario
    from affray.summary import print_summary, run_footer, run_with_progress, summarize
    from affray.text import render_log

    world = load_scenario(path, seed=seed)
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


def _check(paths: Sequence[str]) -> int:
    """Each path is a scenario or a content file, told apart by its keys exactly as
    `run` tells them (`scenario.file_kind`), so `check` and `run` never disagree."""
    from affray.content_loader import check_file, parse_toml, read_source
    from affray.scenario import file_kind, load_scenario

    failures = 0
    for path in paths:
        try:
            kind = file_kind(parse_toml(read_source(path), path), path)
            if kind == "scenario":
                load_scenario(path).close()
            else:
                check_file(path)
            print(f"{path}: ok ({kind})")
        except AffrayError as error:
            print(str(error), file=sys.stderr)
            failures += 1
    return 1 if failures else 0


def _render(path: str, png: str | None, pulse: int | None, seed: int | None) -> int:
    from affray.render import open_world, render_ascii, render_png, run_to_end_of

    world = open_world(path, seed)
    try:
        run_to_end_of(world, pulse)
        if png:
            print(f"wrote {render_png(world, png)}")
        else:
            print(render_ascii(world))
    finally:
        world.close()
    return 0


def _replay(path: str, out: str, seed: int | None, pulses: int | None,
            until: str | None = None) -> int:
    from affray.render import open_world
    from affray.replay import describe_page

    world = open_world(path, seed)
    try:
        written = world.replay_html(out, pulses, until=until)
        print(describe_page(world, written))
    finally:
        world.close()
    return 0


def _schedule() -> int:
    import numpy as np

    from affray.content_loader import default_content
    from affray.grid import Grid
    from affray.world import World

    with World(default_content(), Grid(np.zeros((1, 1), dtype=np.uint8))) as world:
        print(world.schedule)
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
    args = _parser().parse_args(argv)
    try:
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
            from affray.scenario import builtin_scenario

            return _run(str(builtin_scenario("demo")), args.seed, args.json, None,
                        quiet=args.quiet)
        if args.command == "schedule":
            return _schedule()
        if args.command == "bench":
            from affray.benchmarks.runner import main as bench_main

            return bench_main(quick=args.quick, out=args.out)
        if args.command == "batch":
            from affray.report import batch_command

            return batch_command(args)
        if args.command == "report":
            from affray.report import report_command

            return report_command(args)
    except AffrayError as error:
        print(f"affray: {error}", file=sys.stderr)
        return 1
    return 2
