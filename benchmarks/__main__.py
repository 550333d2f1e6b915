"""`python -m benchmarks` (from a checkout) or `python -m affray.benchmarks`: run the suite.

The same as `affray bench`; kept here so the suite runs without the CLI.
"""

from __future__ import annotations

import argparse
import sys

from .runner import main


def _parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m affray.benchmarks",
                                     description="Run the affray benchmark suite.")
    parser.add_argument("--quick", action="store_true",
                        help="small sizes and few repeats: a few seconds")
    parser.add_argument("--out", default="bench-results.json", help="JSON results file")
    return parser.parse_args(argv)


if __name__ == "__main__":
    args = _parse()
    sys.exit(main(quick=args.quick, out=args.out))
