"""What a batch says about balance: per creature survival (with its 95% Wilson interval),
damage taken, time to kill, and damage taken by type; printed, as JSON, or plotted.

Works on a batch's table (`affray.batch`) or on one saved to Parquet or CSV, so
`affray report results.parquet` prints what `affray batch` printed. Columns are found
by name (`<id>.alive`, `<id>.damage_taken.<type>`...), so a CSV, which keeps no schema
metadata, reads back as well as Parquet. matplotlib is imported only for `--png`.
"""

from __future__ import annotations

import math
import statistics
from pathlib import Path
from typing import TYPE_CHECKING, Any

from affray.errors import UsageError

if TYPE_CHECKING:
    import pyarrow as pa
    from rich.console import Console

Z95 = 1.959963984540054  # the normal quantile of a two-sided 95% interval
PULSES_PER_SECOND = 4  # R-TIME-1


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a rate: honest at 0%, 100% and small counts, where the
    textbook p +- z*sqrt(p(1-p)/n) collapses to a point or leaves [0, 1]."""
    if trials <= 0:
        return (0.0, 1.0)
    p = successes / trials
    z2 = z * z
    denominator = 1 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


# -- reading the table ---------------------------------------------------------------------
def creature_ids(table: pa.Table) -> list[str]:
    """Creature ids in column order (each has an `<id>.alive` column)."""
    return [name[:-len(".alive")] for name in table.column_names if name.endswith(".alive")]


def damage_types(table: pa.Table, creature: str) -> list[str]:
    prefix = f"{creature}.damage_taken."
    return [name[len(prefix):] for name in table.column_names if name.startswith(prefix)]


def _ok_rows(table: pa.Table) -> list[dict[str, Any]]:
    """The rows of runs that finished (no error)."""
    rows = table.to_pylist()
    return [row for row in rows if not row.get("error")]


def summarize(table: pa.Table) -> dict[str, Any]:
    """The batch's summary as a JSON-ready dict.

    Per creature: runs, survived, survival (and its 95% Wilson interval), damage taken
    (mean, median), deaths and the time to kill (the pulse of its death, mean and median,
    over the runs it died in). Damage by type: per creature and type, the mean per run
    and the share of its damage, for types it took any of. Runs that raised are counted
    in `errors` and left out of every figure.
    """
    rows = _ok_rows(table)
    runs = len(rows)
    summary: dict[str, Any] = {"runs": table.num_rows, "errors": table.num_rows - runs,
                               "creatures": [], "damage_by_type": [],
                               "sides": side_wins(table, rows)}
    settled = [row["settled"] for row in rows if row.get("settled") is not None]
    summary["settled"] = {"runs": len(settled),
                          "mean": statistics.fmean(settled) if settled else None,
                          "median": statistics.median(settled) if settled else None}
    for creature in creature_ids(table):
        alive = [bool(row[f"{creature}.alive"]) for row in rows]
        taken = [row[f"{creature}.damage_taken"] or 0 for row in rows]
        deaths = [row[f"{creature}.death_pulse"] for row in rows
                  if row.get(f"{creature}.death_pulse") is not None]
        survived = sum(alive)
        low, high = wilson(survived, runs)
        summary["creatures"].append({
            "id": creature, "runs": runs, "survived": survived,
            "survival": survived / runs if runs else None,
            "survival_low": low, "survival_high": high,
            "damage_mean": statistics.fmean(taken) if taken else None,
            "damage_median": statistics.median(taken) if taken else None,
            "struck_mean": (statistics.fmean(row[f"{creature}.struck"] or 0 for row in rows)
                            if rows else None),
            "deaths": len(deaths),
            "time_to_kill_mean": statistics.fmean(deaths) if deaths else None,
            "time_to_kill_median": statistics.median(deaths) if deaths else None,
        })
        total = sum(taken)
        for kind in damage_types(table, creature):
            amount = sum(row[f"{creature}.damage_taken.{kind}"] or 0 for row in rows)
            if amount:
                summary["damage_by_type"].append({
                    "creature": creature, "type": kind, "mean": amount / runs,
                    "share": amount / total if total else None})
    return summary


def side_wins(table: pa.Table, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per side (R-SIDE-1, the `side.<name>.standing` columns): the runs it won (the only
    side left standing), with the rate's 95% Wilson interval, and its creatures standing
    at the end (mean); then the runs no side won ("none")."""
    sides = [name[len("side."):-len(".standing")] for name in table.column_names
             if name.startswith("side.") and name.endswith(".standing")]
    runs = len(rows)
    out = []
    for side in [*sides, None]:
        wins = sum(1 for row in rows if row.get("winner") == side)
        low, high = wilson(wins, runs)
        standing = ([row.get(f"side.{side}.standing") or 0 for row in rows]
                    if side is not None else [])
        out.append({"side": side, "wins": wins, "rate": wins / runs if runs else None,
                    "low": low, "high": high,
                    "standing_mean": statistics.fmean(standing) if standing else None})
    return out if sides else []


# -- printing ----------------------------------------------------------------------------------
def _num(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def _pulses(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:,.0f} ({value / PULSES_PER_SECOND:,.1f} s)"


def render(summary: dict[str, Any], title: str, console: Console) -> None:
    """The summary as two rich tables: creatures, then damage by type."""
    from rich.table import Table

    caption = f"{summary['runs']:,} runs"
    if summary["errors"]:
        caption += f", {summary['errors']:,} raised (left out)"
    settled = summary["settled"]
    if settled["runs"]:
        caption += (f"; settled in {settled['runs']:,} runs, median pulse "
                    f"{settled['median']:,.0f}")
    table = Table(title=title, caption=caption)
    for name, justify in (("creature", "left"), ("survival", "right"),
                          ("95% interval", "right"), ("damage taken mean", "right"),
                          ("median", "right"), ("hits taken", "right"),
                          ("deaths", "right"), ("time to kill: mean pulse", "right"),
                          ("median", "right")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for row in summary["creatures"]:
        survival = "-" if row["survival"] is None else f"{row['survival']:.1%}"
        table.add_row(row["id"], survival,
                      f"{row['survival_low']:.1%} - {row['survival_high']:.1%}",
                      _num(row["damage_mean"]), _num(row["damage_median"]),
                      _num(row["struck_mean"]), f"{row['deaths']:,}",
                      _pulses(row["time_to_kill_mean"]), _pulses(row["time_to_kill_median"]))
    console.print(table)
    if summary.get("sides"):
        sides = Table(title="wins by side (the only side left standing)")
        for name in ("side", "wins", "rate", "95% interval", "standing at the end (mean)"):
            sides.add_column(name, justify="left" if name == "side" else "right")
        for row in summary["sides"]:
            rate = "-" if row["rate"] is None else f"{row['rate']:.1%}"
            sides.add_row(row["side"] or "no winner", f"{row['wins']:,}", rate,
                          f"{row['low']:.1%} - {row['high']:.1%}",
                          _num(row["standing_mean"]))
        console.print(sides)
    by_type = Table(title="damage taken by type (mean per run)")
    by_type.add_column("creature")
    by_type.add_column("damage type")
    by_type.add_column("mean", justify="right")
    by_type.add_column("share", justify="right")
    for row in summary["damage_by_type"]:
        share = "-" if row["share"] is None else f"{row['share']:.1%}"
        by_type.add_row(row["creature"], row["type"], _num(row["mean"]), share)
    if summary["damage_by_type"]:
        console.print(by_type)


# -- files ------------------------------------------------------------------------------------
def write_table(table: pa.Table, path: str | Path) -> None:
    """Parquet for .parquet, CSV for .csv."""
    path = Path(path)
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        pq.write_table(table, path)
    elif path.suffix == ".csv":
        import pyarrow.csv as pcsv

        pcsv.write_csv(table, path)
    else:
        raise UsageError(f"{path}: results go to a .parquet or a .csv file")


def read_table(path: str | Path) -> pa.Table:
    """A batch table saved by `write_table` (or `affray batch --out`)."""
    path = Path(path)
    if not path.is_file():
        raise UsageError(f"{path}: no such results file")
    try:
        if path.suffix == ".parquet":
            import pyarrow.parquet as pq

            table = pq.read_table(path)
        elif path.suffix == ".csv":
            import pyarrow.csv as pcsv

            table = pcsv.read_csv(path)
        else:
            raise UsageError(f"{path}: results are read from a .parquet or a .csv file")
    except (OSError, ValueError) as error:
        if isinstance(error, UsageError):
            raise
        raise UsageError(f"{path}: not a results table: {error}") from None
    if "run" not in table.column_names or not creature_ids(table):
        raise UsageError(f"{path}: not a batch results table (no 'run' or '<id>.alive' "
                         "columns)")
    return table


# -- plots ------------------------------------------------------------------------------------
SMALL_MULTIPLES_FROM = 4  # this many creatures or more: one small panel each, not overlaid
GRID_COLUMNS = 5  # small panels a row


def creature_colours(creatures: list[str]) -> dict[str, Any]:
    """One colour per creature, the same in every panel (tab10 up to 10 creatures, tab20
    up to 20, then evenly spaced along a continuous map): the legend of one panel reads
    for all of them, whoever died and whoever did not."""
    from matplotlib import colormaps

    count = len(creatures)
    if count <= 20:  # a listed map: an integer picks its i-th colour
        cmap = colormaps["tab10" if count <= 10 else "tab20"]
        palette = [cmap(i) for i in range(count)]
    else:
        cmap = colormaps["turbo"]
        palette = [cmap(0.05 + 0.9 * i / (count - 1)) for i in range(count)]
    return {creature: palette[i] for i, creature in enumerate(creatures)}


def plot(table: pa.Table, path: str | Path, title: str = "") -> Path:
    """Write the plots of `figure_of` to a PNG; returns the path written (`.png` added
    to a name without it, as `affray render --png` does)."""
    try:
        import matplotlib
    except ImportError:
        raise UsageError("report --png needs matplotlib: pip install 'affray[plots]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from affray.render import png_path

    figure = figure_of(table, title)
    target = png_path(path)
    figure.savefig(target, dpi=100, format="png")
    plt.close(figure)
    return target


def figure_of(table: pa.Table, title: str = "") -> Any:
    """The plots as a matplotlib figure: survival by creature with its 95% interval,
    damage taken per run and the time to kill (histograms), each creature in its own
    colour throughout (`creature_colours`). Up to SMALL_MULTIPLES_FROM - 1 creatures
    share one panel of each; more get one small panel each, on shared axes, so seven
    creatures do not pile up in one."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    summary = summarize(table)
    rows = _ok_rows(table)
    creatures = creature_ids(table)
    colours = creature_colours(creatures)
    damage = {c: [row[f"{c}.damage_taken"] or 0 for row in rows] for c in creatures}
    deaths = {c: [row[f"{c}.death_pulse"] / PULSES_PER_SECOND for row in rows
                  if row.get(f"{c}.death_pulse") is not None] for c in creatures}
    heading = title or f"batch of {summary['runs']:,} runs"
    if len(creatures) < SMALL_MULTIPLES_FROM:
        figure, (damage_ax, survival_ax, kill_ax) = plt.subplots(
            1, 3, figsize=(16, 5), constrained_layout=True)
        figure.suptitle(heading)
        _survival_bars(survival_ax, summary, colours)
        _overlaid(damage_ax, damage, colours, "damage taken per run", "hit points lost",
                  "damage")
        _overlaid(kill_ax, deaths, colours, "time to kill",
                  "seconds until death (4 pulses a second)", "kill")
        return figure
    columns = min(GRID_COLUMNS, len(creatures))
    grid_rows = -(-len(creatures) // columns)
    survival_h = max(2.5, 0.32 * len(creatures) + 1)
    figure = plt.figure(figsize=(16, survival_h + 2 * 2.1 * grid_rows + 1),
                        layout="constrained")
    figure.suptitle(heading)
    parts: Any = figure.subfigures(3, 1, height_ratios=[survival_h, 2.1 * grid_rows,
                                                      2.1 * grid_rows])
    top, middle, bottom = parts
    _survival_bars(top.subplots(), summary, colours)
    _small_multiples(middle, damage, colours, columns, "damage taken per run",
                     "hit points lost", "damage")
    _small_multiples(bottom, deaths, colours, columns, "time to kill",
                     "seconds until death (4 pulses a second)", "kill")
    return figure


def _survival_bars(axes: Any, summary: dict[str, Any], colours: dict[str, Any]) -> None:
    """Survival rate per creature (horizontal bars, the first creature on top) with its
    95% Wilson interval, the rate written beside each bar."""
    entries = summary["creatures"]
    names = [row["id"] for row in entries]
    rates = [row["survival"] or 0.0 for row in entries]
    below = [max(0.0, rate - row["survival_low"]) for rate, row in zip(rates, entries,
                                                                       strict=True)]
    above = [max(0.0, row["survival_high"] - rate) for rate, row in zip(rates, entries,
                                                                        strict=True)]
    bars = axes.barh(names, rates, xerr=[below, above], capsize=4,
                     color=[colours[name] for name in names], alpha=0.85)
    for bar, name in zip(bars, names, strict=True):
        bar.set_gid(f"creature:{name}")
    axes.bar_label(bars, labels=[f"{rate:.1%}" for rate in rates], padding=6)
    axes.invert_yaxis()
    axes.set_xlim(0, 1.12)
    axes.set_title("survival rate (95% Wilson interval)")
    axes.set_xlabel("share of runs survived")
    axes.set_gid("survival")


def _shared_bins(values: dict[str, list[float]]) -> Any:
    """30 bins over every creature's values at once: bars of one width, comparable."""
    import numpy as np

    everything = [value for data in values.values() for value in data]
    if not everything:
        return 30
    low, high = min(everything), max(everything)
    return np.linspace(low, high if high > low else low + 1, 31)


def _histogram(axes: Any, values: list[float], creature: str, colour: Any, label: str,
               bins: Any = 30) -> None:
    _counts, _edges, patches = axes.hist(values, bins=bins, histtype="stepfilled",
                                         alpha=0.55, color=colour, edgecolor=colour,
                                         label=label)
    for patch in patches:
        patch.set_gid(f"creature:{creature}")


def _overlaid(axes: Any, values: dict[str, list[float]], colours: dict[str, Any],
              title: str, xlabel: str, kind: str) -> None:
    """A few creatures' histograms on one panel (a deaths panel counts each one's
    deaths in its legend; one with none has no histogram but keeps its colour)."""
    drawn = False
    bins = _shared_bins(values)
    for creature, data in values.items():
        if not data:
            continue
        label = f"{creature} ({len(data):,} deaths)" if kind == "kill" else creature
        _histogram(axes, data, creature, colours[creature], label, bins)
        drawn = True
    axes.set_title(title)
    axes.set_xlabel(xlabel)
    axes.set_ylabel("runs")
    axes.set_gid(kind)
    if drawn:
        axes.legend()
    else:
        axes.text(0.5, 0.5, "nobody died" if kind == "kill" else "no runs", ha="center",
                  va="center", transform=axes.transAxes)


def _small_multiples(subfigure: Any, values: dict[str, list[float]], colours: dict[str, Any],
                     columns: int, title: str, xlabel: str, kind: str) -> None:
    """One small panel per creature, in its colour, on shared axes and shared bins, so
    panels compare at a glance; a creature that never died says so in its panel."""
    import numpy as np

    creatures = list(values)
    grid_rows = -(-len(creatures) // columns)
    axes_grid = np.atleast_2d(subfigure.subplots(grid_rows, columns, sharex=True,
                                                 sharey=True, squeeze=False))
    subfigure.suptitle(title)
    bins = _shared_bins(values)
    for index, axes in enumerate(axes_grid.flat):
        if index >= len(creatures):
            axes.set_axis_off()
            continue
        creature = creatures[index]
        data = values[creature]
        colour = colours[creature]
        axes.set_gid(f"{kind}:{creature}")
        heading = creature if kind != "kill" else f"{creature} ({len(data):,} deaths)"
        axes.set_title(heading, color=colour, fontweight="bold", fontsize=10)
        if data:
            _histogram(axes, data, creature, colour, creature, bins)
        else:
            axes.text(0.5, 0.5, "never died" if kind == "kill" else "no runs", ha="center",
                      va="center", transform=axes.transAxes, color="#666666")
        if index % columns == 0:
            axes.set_ylabel("runs")
        if index >= len(creatures) - columns:
            axes.set_xlabel(xlabel)
            axes.tick_params(labelbottom=True)


# -- the commands: `affray batch` and `affray report` ------------------------------------------
def batch_command(args: Any) -> int:
    """`affray batch`: run, show a progress bar on a terminal, print the summary (or JSON),
    write the table if `--out`."""
    import json
    import sys

    from rich.console import Console

    from affray.batch import batch

    if args.out is not None and Path(args.out).suffix not in (".parquet", ".csv"):
        raise UsageError(f"{args.out}: results go to a .parquet or a .csv file")
    console = Console(stderr=True)
    show = console.is_terminal and not args.quiet and not args.json
    options = {"seed": args.seed, "workers": args.workers, "backend": args.backend,
               "scheduler": args.scheduler}
    if show:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

        from affray.batch import start_pool

        if args.workers > 1 and args.backend == "local":  # fork before the bar's thread
            options["executor"] = pool = start_pool(args.workers)
        with Progress("[progress.description]{task.description}", BarColumn(),
                      MofNCompleteColumn(), TimeRemainingColumn(), console=console,
                      transient=True) as bar:
            task = bar.add_task(f"batch {Path(args.scenario).name}", total=args.runs)
            try:
                table = batch(args.scenario, args.runs,
                              progress=lambda done, _total: bar.update(task, completed=done),
                              **options)
            finally:
                if "executor" in options:
                    pool.shutdown()
    else:
        table = batch(args.scenario, args.runs, **options)
    if args.out is not None:
        write_table(table, args.out)
    summary = summarize(table)
    if args.json:
        print(json.dumps({"scenario": args.scenario, "seed": args.seed, "runs": args.runs,
                          "summary": summary, "out": args.out}))
        return 0
    out = Console()
    if not out.is_terminal:
        out = Console(width=150)
    render(summary, f"{Path(args.scenario).name}: seeds {args.seed}.."
                    f"{args.seed + args.runs - 1}", out)
    if args.out is not None:
        print(f"results written to {args.out}", file=sys.stdout)
    return 0


def report_command(args: Any) -> int:
    """`affray report`: the summary of a saved table; `--png` plots it."""
    import json

    from rich.console import Console

    table = read_table(args.results)
    summary = summarize(table)
    written = None
    if args.png:
        written = plot(table, args.png,
                       title=f"{Path(args.results).name}: {summary['runs']:,} runs")
    if args.json:
        print(json.dumps({"results": args.results, "summary": summary,
                          "png": None if written is None else str(written)}))
        return 0
    console = Console()
    if not console.is_terminal:
        console = Console(width=150)
    render(summary, Path(args.results).name, console)
    if written is not None:
        print(f"plots written to {written}")
    return 0
