"""Timing primitives, result rows and machine info shared by every benchmark.

Each measurement is `repeats` timed blocks of `units` operations; we keep the median
block, because one slow block (a GC pause, another process) should not move the figure,
and report it both as seconds per block and microseconds per unit.
"""

from __future__ import annotations

import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from importlib import metadata
from typing import Any, TypeVar

T = TypeVar("T")


@dataclass(slots=True)
class Result:
    """One row of the results: a named measurement at one size.

    `median_seconds` is the median of `repeats` blocks of `units` operations each;
    `per_unit_us` divides it by `units`; `best_us` is the fastest block's per-unit time,
    the steadier figure on a shared machine where other work only ever slows a block.
    `ratio` compares against `ratio_of` when a comparison is the point of the row;
    `value` holds a count rather than a time, and `ok` is False only when a count that
    must hold does not (or the benchmark failed). `skipped` rows measured nothing: what
    they need (an optional extra) is not installed, and `note` says which.
    """

    name: str
    size: str
    unit: str
    units: int
    repeats: int
    median_seconds: float
    per_unit_us: float
    best_us: float | None = None
    ratio: float | None = None
    ratio_of: str | None = None
    value: int | None = None
    ok: bool = True
    note: str = ""
    skipped: bool = False

    def to_dict(self, machine: dict[str, Any]) -> dict[str, Any]:
        """The JSON row: the measurement plus the machine it ran on, flat.

        Flat machine fields on every row keep each row self-describing, so rows from
        several runs can be concatenated into one table and still be told apart.
        """
        return {**asdict(self), **machine}


def time_repeats(block: Callable[[], T], repeats: int,
                 after: Callable[[T], object] | None = None) -> list[float]:
    """Time `block` `repeats` times with perf_counter; `after(result)` runs untimed.

    `after` is for clean-up that must not count, such as closing the worlds a block
    built (an open esper context per world would otherwise pile up across repeats).
    """
    times: list[float] = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = block()
        times.append(time.perf_counter() - start)
        if after is not None:
            after(result)
    return times


def result_from(name: str, size: str, unit: str, units: int, times: list[float],
                **extra: Any) -> Result:
    """A Result from the block times of one measurement (median, per unit)."""
    median = statistics.median(times)
    return Result(name=name, size=size, unit=unit, units=units, repeats=len(times),
                  median_seconds=median, per_unit_us=median / units * 1e6,
                  best_us=min(times) / units * 1e6, **extra)


def skipped(names: tuple[str, ...], module: str, extra: str) -> list[Result]:
    """Rows standing for measurements that need `module`, not installed here (the
    quickstart's `pip install .` has no extras): they say so rather than fail."""
    note = f"skipped: needs {module} (pip install 'affray[{extra}]')"
    return [Result(name=name, size="-", unit="-", units=0, repeats=0, median_seconds=0.0,
                   per_unit_us=0.0, note=note, skipped=True) for name in names]


def importable(module: str) -> bool:
    """Whether `module` imports (an optional extra is installed)."""
    import importlib

    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "?"


def machine_info() -> dict[str, Any]:
    """Python, library versions and CPU count: what a timing means depends on them."""
    return {
        "python": platform.python_version(),
        "implementation": sys.implementation.name,
        "numpy": _version("numpy"),
        "scipy": _version("scipy"),
        "esper": _version("esper"),
        "affray": _version("affray"),
        "cpu_count": os.cpu_count(),
        "platform": platform.platform(terse=True),
        "machine": platform.machine(),
    }
