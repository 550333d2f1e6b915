"""Run the suite: print a rich table, write the rows as JSON, return an exit status.

Exit status 0 when every check holds, 1 when a count that must hold does not (water
relabelled without a terrain change) or a benchmark raised. Slow timings never fail.
"""

from __future__ import annotations

import json
import time
import traceback
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .suite import BENCHMARKS, FULL, QUICK
from .timing import Result, machine_info


def _failed(name: str, error: BaseException) -> Result:
    """A row standing for a benchmark that raised, so the run still writes its JSON."""
    return Result(name=name, size="-", unit="-", units=0, repeats=0, median_seconds=0.0,
                  per_unit_us=0.0, ok=False, note=f"ERROR {type(error).__name__}: {error}")


def _us(value: float) -> str:
    """Microseconds with three significant figures, readable from 0.01 us to seconds."""
    return f"{value:,.3g}" if value < 1000 else f"{value:,.0f}"


def render(rows: list[Result], machine: dict[str, object], title: str) -> Table:
    """The results as one rich table; failed checks in red."""
    table = Table(title=title, caption=(f"Python {machine['python']}, numpy "
                                        f"{machine['numpy']}, scipy {machine['scipy']}, esper "
                                        f"{machine['esper']}, {machine['cpu_count']} CPUs, "
                                        f"{machine['platform']}"))
    table.add_column("benchmark", no_wrap=True)
    table.add_column("size", no_wrap=True)
    table.add_column("repeats x block", justify="right", no_wrap=True)
    table.add_column("median s", justify="right")
    table.add_column("us / unit", justify="right")
    table.add_column("best us", justify="right")
    table.add_column("ratio", justify="right")
    table.add_column("value", justify="right")
    table.add_column("note")
    for row in rows:
        ratio = "" if row.ratio is None else f"{row.ratio:.2f}x"
        note = row.note + (f"; ratio vs {row.ratio_of}" if row.ratio_of else "")
        table.add_row(
            row.name, row.size, f"{row.repeats} x {row.units:,} {row.unit}",
            f"{row.median_seconds:.4g}", _us(row.per_unit_us),
            "" if row.best_us is None else _us(row.best_us), ratio,
            "" if row.value is None else str(row.value), escape(note),
            style="dim" if row.skipped else None if row.ok else "bold red")
    return table


def main(quick: bool = False, out: str = "bench-results.json") -> int:
    """Run every benchmark (smaller sizes when `quick`), print the table, write `out`."""
    from affray.data.content_loader import default_content

    console = Console()
    if not console.is_terminal:  # logs and pipes: rich would wrap the table at 80 columns
        console = Console(width=240)
    plan = QUICK if quick else FULL
    machine = machine_info()
    start = time.perf_counter()
    content = default_content()  # parsed once, before any timing (world creation needs it)
    rows: list[Result] = []
    for name, benchmark in BENCHMARKS:
        console.print(f"[dim]running {name}...[/dim]")
        try:
            rows += benchmark(content, plan)
        except Exception as error:  # keep going: one broken benchmark must not hide others
            console.print(f"[red]{name} failed:[/red]\n{traceback.format_exc()}")
            rows.append(_failed(name, error))
    elapsed = time.perf_counter() - start
    mode = "quick" if quick else "full"
    console.print(render(rows, machine, f"affray benchmarks ({mode}, {elapsed:.1f} s)"))
    Path(out).write_text(json.dumps([row.to_dict(machine) for row in rows], indent=2) + "\n",
                         encoding="utf-8")
    console.print(f"results written to {out}")
    skipped = [row for row in rows if row.skipped]
    if skipped:
        console.print(f"skipped {len(skipped)} rows: "
                      f"{'; '.join(f'{row.name} ({row.note})' for row in skipped)}",
                      markup=False)
    failed = [row.name for row in rows if not row.ok]
    if failed:
        console.print(f"[bold red]failed checks: {', '.join(failed)}[/bold red]")
        return 1
    return 0
