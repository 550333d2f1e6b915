"""The `affray` command: run, check, render, demo, schedule, bench, batch.

Exit status: 0 on success, 1 on a content, scenario, action or save error (one message
on stderr naming the file and field, never a traceback), 2 on usage errors (argparse).
"""

from __future__ import annotations

import argparse
import json
import sys
import tomllib
from collections.abc import Sequence
from pathlib import Path

from affray.errors import AffrayError, ContentError, NotYetError


def _count(text: str) -> int:
    """An argparse type: a whole number 0 or more (seeds and pulse counts)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="affray", description="Grid combat engine.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = sub.add_parser("run", help="run a scenario and print its events")
    run.add_argument("scenario")
    run.add_argument("--seed", type=_count, default=None, help="override the file's seed")
    run.add_argument("--json", action="store_true", help="print one JSON document")
    run.add_argument("--pulses", type=_count, default=None, help="run this many pulses")

    check = sub.add_parser("check", help="validate content and scenario files")
    check.add_argument("paths", nargs="+")

    render = sub.add_parser("render", help="draw a scenario's map and everyone on it")
    render.add_argument("scenario")
    render.add_argument("--png", default=None, help="(not yet) write a PNG")

    demo = sub.add_parser("demo", help="run the built-in demo scenario")
    demo.add_argument("--json", action="store_true")
    demo.add_argument("--seed", type=_count, default=None)

    sub.add_parser("schedule", help="print the systems in pulse order")

    bench = sub.add_parser("bench", help="run the benchmark suite")
    bench.add_argument("--quick", action="store_true", help="small sizes, few repeats")
    bench.add_argument("--out", default="bench-results.json", help="JSON results file")

    batch = sub.add_parser("batch", help="run a scenario over many seeds")
    batch.add_argument("scenario")
    batch.add_argument("--runs", type=int, required=True)
    batch.add_argument("--workers", type=int, default=1)
    batch.add_argument("--seed", type=int, default=0)
    batch.add_argument("--backend", choices=("local", "dask"), default="local")
    batch.add_argument("--out", default=None)
    return parser


def _run(path: str, seed: int | None, as_json: bool, pulses: int | None) -> int:
    from affray.scenario import load_scenario
    from affray.text import render_log

    world = load_scenario(path, seed=seed)
    try:
        world.run(pulses)
        if as_json:
            document = {"scenario": world.name, "seed": world.seed,
                        "events": [event.to_dict() for event in world.events],
                        "final": world.snapshot()}
            print(json.dumps(document))
        else:
            for line in render_log(world.events):
                print(line)
            print(f"-- {world.name or path}: {world.pulse} pulses, seed {world.seed}")
    finally:
        world.close()
    return 0


def _check(paths: Sequence[str]) -> int:
    from affray.content_loader import check_file
    from affray.scenario import load_scenario

    failures = 0
    for path in paths:
        try:
            try:
                data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
            except OSError as error:
                raise ContentError(f"{path}: cannot read: {error.strerror}") from None
            except tomllib.TOMLDecodeError as error:
                raise ContentError(f"{path}: not valid TOML: {error}") from None
            if "map" in data:
                load_scenario(path).close()
            else:
                check_file(path)
            print(f"{path}: ok")
        except AffrayError as error:
            print(str(error), file=sys.stderr)
            failures += 1
    return 1 if failures else 0


def _render(path: str) -> int:
    from affray.render import render_ascii
    from affray.scenario import load_scenario

    world = load_scenario(path)
    try:
        print(render_ascii(world))
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
    """Entry point of the `affray` command; returns the exit status."""
    args = _parser().parse_args(argv)
    try:
        if args.command == "run":
            return _run(args.scenario, args.seed, args.json, args.pulses)
        if args.command == "check":
            return _check(args.paths)
        if args.command == "render":
            if args.png:
                raise NotYetError("render --png is not yet implemented")
            return _render(args.scenario)
        if args.command == "demo":
            from affray.scenario import builtin_scenario

            return _run(str(builtin_scenario("demo")), args.seed, args.json, None)
        if args.command == "schedule":
            return _schedule()
        if args.command == "bench":
            from affray.benchmarks.runner import main as bench_main

            return bench_main(quick=args.quick, out=args.out)
        if args.command == "batch":
            from affray.batch import batch

            batch(args.scenario, runs=args.runs, seed=args.seed, workers=args.workers)
            return 0
    except AffrayError as error:
        print(f"affray: {error}", file=sys.stderr)
        return 1
    return 2
