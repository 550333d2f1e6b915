"""What a batch or a sweep says about balance: per creature survival (with its 95% Wilson
interval), damage taken, time to kill, damage taken by type, wins by side; per grid point
of a sweep, wins by side and survival; the break-even solver's steps. Printed, as JSON,
or plotted.

Works on a batch's tables (`affray.batch`, `affray.Tables`) or on ones saved to Parquet
or CSV (`write_tables`: the run table, and the creature and rounds tables beside it as
`NAME.creatures.parquet`, `NAME.rounds.parquet`), so `affray report results.parquet`
prints what `affray batch` or `affray sweep` printed. Columns are found by name
(`<id>.alive`, `side.<name>.standing`, a sweep's paths between `point` and `pulses`), so
a CSV, which keeps no schema metadata, reads back as well as Parquet. Tables of earlier
batches, with `<id>.death_pulse` and `<id>.damage_taken.<type>` in the run table, still
read. matplotlib is imported only for `--png`.
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from affray.core.errors import UsageError

if TYPE_CHECKING:
    import pyarrow as pa
    from rich.console import Console

    from affray.runners.balancing import Balance, Step
    from affray.runners.batch import Tables

Z95 = 1.959963984540054  # the normal quantile of a two-sided 95% interval
PULSES_PER_SECOND = 4  # R-TIME-1
NO_WINNER = "no winner"
WIDE_UP_TO = 4  # a sweep's survival table: a column per creature up to this many


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


# -- reading the tables ----------------------------------------------------------------------
Results = Any  # a run table (pyarrow Table) or `affray.Tables`


def runs_of(results: Results) -> pa.Table:
    """The run table of a Table or of `Tables`."""
    return getattr(results, "runs", results)


def creatures_of(results: Results) -> pa.Table | None:
    """The creature table of `Tables` (None for a lone run table)."""
    return getattr(results, "creatures", None)


def creature_ids(table: pa.Table) -> list[str]:
    """Creature ids in column order (each has an `<id>.alive` column)."""
    return [name[:-len(".alive")] for name in table.column_names if name.endswith(".alive")]


def side_names(table: pa.Table) -> list[str]:
    """The sides in column order (each has a `side.<name>.standing` column)."""
    return [name[len("side."):-len(".standing")] for name in table.column_names
            if name.startswith("side.") and name.endswith(".standing")]


def varied_paths(table: pa.Table) -> list[str]:
    """A sweep's varied paths: from the metadata (Parquet), else the columns between
    `point` and `pulses` (a CSV keeps the order); none for a batch."""
    meta = table.schema.metadata or {}
    if b"varied" in meta:
        try:
            paths = json.loads(meta[b"varied"])
        except ValueError:
            paths = None
        if isinstance(paths, list) and all(path in table.column_names for path in paths):
            return [str(path) for path in paths]
    names = table.column_names
    if "point" not in names or "pulses" not in names:
        return []
    return names[names.index("point") + 1:names.index("pulses")]


def damage_types(table: pa.Table, creature: str) -> list[str]:
    """The per-type columns of an earlier batch's run table (`<id>.damage_taken.<type>`)."""
    prefix = f"{creature}.damage_taken."
    return [name[len(prefix):] for name in table.column_names if name.startswith(prefix)]


def _ok_rows(table: pa.Table) -> list[dict[str, Any]]:
    """The rows of runs that finished (no error)."""
    rows = table.to_pylist()
    return [row for row in rows if not row.get("error")]


def _long(results: Results, rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Per creature, one entry per finished run: its death pulse and damage taken by
    type, from the creature table, else from an earlier run table's columns; {} when
    neither is there (a run table alone: time to kill unknown)."""
    table, long = runs_of(results), creatures_of(results)
    out: dict[str, list[dict[str, Any]]] = {}
    if long is not None:
        types = [name for name in long.column_names if name.startswith("damage_taken.")]
        for row in long.to_pylist():
            out.setdefault(row["creature"], []).append(
                {"death_pulse": row["death_pulse"],
                 "types": {name[len("damage_taken."):]: row[name] or 0 for name in types}})
        return out
    ids = creature_ids(table)
    if not any(f"{creature}.death_pulse" in table.column_names for creature in ids):
        return out
    for creature in ids:
        kinds = damage_types(table, creature)
        out[creature] = [{"death_pulse": row.get(f"{creature}.death_pulse"),
                          "types": {kind: row[f"{creature}.damage_taken.{kind}"] or 0
                                    for kind in kinds}} for row in rows]
    return out


def summarize(results: Results) -> dict[str, Any]:
    """The batch's summary as a JSON-ready dict.

    Per creature: runs, survived, survival (and its 95% Wilson interval), damage taken
    (mean, median), hits taken, deaths and the time to kill (the pulse of its death,
    mean and median, over the runs it died in: from the creature table). Damage by
    type: per creature and type, the mean per run and the share of its damage, for
    types it took any of. Wins by side. Runs that raised are counted in `errors` and
    left out of every figure. A sweep's summary adds `varied` (its paths) and `points`
    (`sweep_points`); the other figures are then over the whole grid.
    """
    table = runs_of(results)
    rows = _ok_rows(table)
    runs = len(rows)
    long = _long(results, rows)
    summary: dict[str, Any] = {"runs": table.num_rows, "errors": table.num_rows - runs,
                               "creatures": [], "damage_by_type": [],
                               "sides": side_wins(table, rows)}
    settled = [row["settled"] for row in rows if row.get("settled") is not None]
    summary["settled"] = {"runs": len(settled),
                          "mean": statistics.fmean(settled) if settled else None,
                          "median": statistics.median(settled) if settled else None}
    for creature in creature_ids(table):
        summary["creatures"].append(_creature_summary(creature, rows, long.get(creature)))
        entries = long.get(creature, [])
        total = sum(sum(entry["types"].values()) for entry in entries)
        kinds = list(dict.fromkeys(kind for entry in entries for kind in entry["types"]))
        for kind in kinds:
            amount = sum(entry["types"].get(kind, 0) for entry in entries)
            if amount:
                summary["damage_by_type"].append({
                    "creature": creature, "type": kind, "mean": amount / runs,
                    "share": amount / total if total else None})
    paths = varied_paths(table)
    if paths:
        summary["varied"] = paths
        summary["points"] = sweep_points(results)
    return summary


def _creature_summary(creature: str, rows: list[dict[str, Any]],
                      long: list[dict[str, Any]] | None) -> dict[str, Any]:
    runs = len(rows)
    alive = [bool(row[f"{creature}.alive"]) for row in rows]
    taken = [row[f"{creature}.damage_taken"] or 0 for row in rows]
    survived = sum(alive)
    deaths = None if long is None else [entry["death_pulse"] for entry in long
                                        if entry["death_pulse"] is not None]
    low, high = wilson(survived, runs)
    return {
        "id": creature, "runs": runs, "survived": survived,
        "survival": survived / runs if runs else None,
        "survival_low": low, "survival_high": high,
        "damage_mean": statistics.fmean(taken) if taken else None,
        "damage_median": statistics.median(taken) if taken else None,
        "struck_mean": (statistics.fmean(row[f"{creature}.struck"] or 0 for row in rows)
                        if rows else None),
        "deaths": runs - survived if deaths is None else len(deaths),
        "time_to_kill_mean": statistics.fmean(deaths) if deaths else None,
        "time_to_kill_median": statistics.median(deaths) if deaths else None,
    }


def side_wins(table: pa.Table, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per side (R-SIDE-1, the `side.<name>.standing` columns): the runs it won (the only
    side left standing), with the rate's 95% Wilson interval, and its creatures standing
    at the end (mean); then the runs no side won ("none")."""
    sides = side_names(table)
    runs = len(rows)
    out: list[dict[str, Any]] = []
    for side in [*sides, None]:
        wins = sum(1 for row in rows if row.get("winner") == side)
        low, high = wilson(wins, runs)
        standing = ([row.get(f"side.{side}.standing") or 0 for row in rows]
                    if side is not None else [])
        out.append({"side": side, "wins": wins, "rate": wins / runs if runs else None,
                    "low": low, "high": high,
                    "standing_mean": statistics.fmean(standing) if standing else None})
    return out if sides else []


def sweep_points(results: Results) -> list[dict[str, Any]]:
    """Per grid point of a sweep, in grid order: its values (`{path: value}`), runs,
    errors, wins by side (`side_wins`) and each creature's survival with its 95% Wilson
    interval, over the point's finished runs."""
    table = runs_of(results)
    paths = varied_paths(table)
    groups: dict[Any, list[dict[str, Any]]] = {}
    for row in table.to_pylist():
        key = row["point"] if "point" in row else tuple(row[path] for path in paths)
        groups.setdefault(key, []).append(row)
    out: list[dict[str, Any]] = []
    for key, group in groups.items():
        ok = [row for row in group if not row.get("error")]
        creatures = []
        for creature in creature_ids(table):
            survived = sum(bool(row[f"{creature}.alive"]) for row in ok)
            low, high = wilson(survived, len(ok))
            creatures.append({"id": creature, "survived": survived,
                              "survival": survived / len(ok) if ok else None,
                              "low": low, "high": high})
        out.append({"point": key if isinstance(key, int) else len(out),
                    "values": {path: group[0][path] for path in paths},
                    "runs": len(group), "errors": len(group) - len(ok),
                    "sides": side_wins(table, ok), "creatures": creatures})
    return out


# -- printing ----------------------------------------------------------------------------------
def _num(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def _pulses(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:,.0f} ({value / PULSES_PER_SECOND:,.1f} s)"


def _rate(rate: float | None, low: float, high: float) -> str:
    """A rate with its interval in one cell: `52.0% (48.9-55.1)`."""
    if rate is None:
        return "-"
    return f"{rate:.1%} ({low * 100:.1f}-{high * 100:.1f})"


def render(summary: dict[str, Any], title: str, console: Console) -> None:
    """The summary as rich tables: creatures, wins by side, damage by type; a sweep's
    as a table per grid point instead (`render_sweep`)."""
    if summary.get("points"):
        render_sweep(summary, title, console)
        return
    from rich.table import Table

    table = Table(title=title, caption=_caption(summary))
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
            sides.add_row(row["side"] or NO_WINNER, f"{row['wins']:,}", rate,
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


def _caption(summary: dict[str, Any]) -> str:
    caption = f"{summary['runs']:,} runs"
    if summary["errors"]:
        caption += f", {summary['errors']:,} raised (left out)"
    settled = summary["settled"]
    if settled["runs"]:
        caption += (f"; settled in {settled['runs']:,} runs, median pulse "
                    f"{settled['median']:,.0f}")
    return caption


def render_sweep(summary: dict[str, Any], title: str, console: Console) -> None:
    """A sweep's summary: wins by side at each grid point, then each creature's
    survival at each point, every rate with its 95% Wilson interval."""
    from rich.table import Table

    points, paths = summary["points"], summary["varied"]
    wins = Table(title=f"{title}: wins by side (95% Wilson interval)",
                 caption=_caption(summary))
    creatures = [row["id"] for row in points[0]["creatures"]] if points else []
    wide = len(creatures) <= WIDE_UP_TO  # a column per creature; else a row per creature
    survival = Table(title="survival (95% Wilson interval)")
    for table in (wins, survival):
        for path in paths:
            table.add_column(path, justify="right")
        table.add_column("runs", justify="right")
    sides = [row["side"] for row in points[0]["sides"]] if points else []
    for side in sides:
        wins.add_column(side or NO_WINNER, justify="right")
    for name in creatures if wide else ["creature", "survival"]:
        survival.add_column(name, justify="left" if name == "creature" else "right")
    for point in points:
        values = [_shown(point["values"][path]) for path in paths]
        runs = f"{point['runs'] - point['errors']:,}"
        if point["errors"]:
            runs += f" (+{point['errors']:,} raised)"
        wins.add_row(*values, runs, *(_rate(row["rate"], row["low"], row["high"])
                                      for row in point["sides"]))
        if wide:
            survival.add_row(*values, runs, *(_rate(row["survival"], row["low"],
                                                    row["high"])
                                              for row in point["creatures"]))
            continue
        for index, row in enumerate(point["creatures"]):
            shown = (values, runs) if index == 0 else ([""] * len(values), "")
            survival.add_row(*shown[0], shown[1], row["id"],
                             _rate(row["survival"], row["low"], row["high"]),
                             end_section=index == len(point["creatures"]) - 1)
    console.print(wins)
    console.print(survival)


def _shown(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def render_balance(result: Balance, console: Console) -> None:
    """The solver's steps, by value, the answer and its neighbours on either side of the
    target marked (`balance_line` says it in a sentence)."""
    from rich.table import Table

    percent = f"{result.confidence:.0%}" if result.confidence * 100 == \
        round(result.confidence * 100) else f"{result.confidence:.2%}"
    table = Table(title=f"balance: {result.path} for {result.side} to win "
                        f"{result.target:.1%} ({percent} Wilson intervals)",
                  caption=f"{len(result.steps)} values, {result.runs:,} runs")
    for name in (result.path, "runs", f"{result.side} wins", f"{percent} interval",
                 "verdict", ""):
        table.add_column(name, justify="left" if name == "verdict" else "right")
    marks = {id(result.below): "below", id(result.above): "above"}
    for step in sorted(result.steps, key=lambda step: step.value):
        mark = "<- break-even" if step.value == result.value else ""
        if id(step) in marks and step.value != result.value:
            mark = f"<- {marks[id(step)]}"
        table.add_row(str(step.value), f"{step.runs:,}",
                      "-" if step.rate is None else f"{step.rate:.1%}",
                      f"{step.low:.1%} - {step.high:.1%}", step.verdict, mark)
    console.print(table)


def balance_line(result: Balance) -> str:
    """The answer in a sentence."""
    if result.value is None:
        return f"no break-even: {result.message}"
    answer = next(step for step in result.steps if step.value == result.value)
    text = (f"break-even: {result.path} = {result.value} ({result.side} win "
            f"{_step_rate(answer)})")
    others = [(where, step) for where, step in (("below", result.below),
                                                 ("above", result.above))
              if step is not None and step.value != result.value]
    for where, step in others:
        text += f"; {where} the target at {step.value}: {_step_rate(step)}"
    return f"{text} ({result.message})"


def _step_rate(step: Step) -> str:
    rate = "-" if step.rate is None else f"{step.rate:.1%}"
    return f"{rate}, {step.low:.1%} - {step.high:.1%}, {step.runs:,} runs"


# -- files ------------------------------------------------------------------------------------
def write_table(table: pa.Table, path: str | Path) -> None:
    """Parquet for .parquet (the schema's metadata kept), CSV for .csv."""
    path = Path(path)
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        pq.write_table(table, path)
    elif path.suffix == ".csv":
        import pyarrow.csv as pcsv

        pcsv.write_csv(table, path)
    else:
        raise UsageError(f"{path}: results go to a .parquet or a .csv file")


def sibling(path: str | Path, kind: str) -> Path:
    """Where the creature or rounds table of a run table's file goes:
    `results.parquet` -> `results.creatures.parquet`."""
    path = Path(path)
    return path.with_name(f"{path.stem}.{kind}{path.suffix}")


def outputs(path: str | Path, collect: str) -> list[Path]:
    """The files `write_tables` writes for a `collect` level: the run table, then its
    creature table, then its rounds table."""
    kinds = {"runs": [], "creatures": ["creatures"], "rounds": ["creatures", "rounds"]}
    return [Path(path), *(sibling(path, kind) for kind in kinds[collect])]


def write_tables(results: Results, path: str | Path) -> list[Path]:
    """The run table to `path`, the creature and rounds tables (when there) beside it;
    the files written."""
    written = [Path(path)]
    write_table(runs_of(results), path)
    for kind in ("creatures", "rounds"):
        table = getattr(results, kind, None)
        if table is not None:
            write_table(table, sibling(path, kind))
            written.append(sibling(path, kind))
    return written


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
    if "run" not in table.column_names:
        raise UsageError(f"{path}: not a batch results table (no 'run' column)")
    return table


def read_tables(path: str | Path) -> Tables:
    """A run table and, when its files are beside it, its creature and rounds tables
    (`write_tables`); each checked to be what it says (`affray.runners.batch.check_table`)."""
    from affray.data.files import input_file
    from affray.runners.batch import Tables, check_creature_table, check_table

    runs = read_table(path)
    check_table(runs, str(path))
    found: dict[str, Any] = {}
    for kind in ("creatures", "rounds"):
        beside = sibling(path, kind)
        if beside.exists():
            input_file(beside, UsageError, limit=None, what="a batch's results")
            found[kind] = read_table(beside)
    if "creatures" in found:
        where = str(sibling(path, "creatures"))
        check_creature_table(found["creatures"], where)
        _check_belongs(runs, found["creatures"], where, str(path))
    return Tables(runs, found.get("creatures"), found.get("rounds"))


def _check_belongs(runs: pa.Table, creatures: pa.Table, beside: str, path: str) -> None:
    """The creature table beside a run table is that batch's: each of its rows names a
    run of the run table, with the same seed, and the creature's hit points and life
    there; every finished run has a row per creature. Else (a table left from an earlier
    batch) a UsageError, rather than a summary mixing two batches."""
    ids = creature_ids(runs)
    by_run = {row["run"]: row for row in runs.to_pylist()}
    counted: dict[int, int] = {}
    for row in creatures.to_pylist():
        run = by_run.get(row["run"])
        same = run is not None and row["creature"] in ids and \
            run["seed"] == row["seed"] and run.get(f"{row['creature']}.hp") == row["hp"] \
            and bool(run.get(f"{row['creature']}.alive")) == bool(row["survived"])
        if not same:
            raise UsageError(f"{beside}: not the creature table of {path} (run "
                             f"{row['run']}, {row['creature']!r} differs): write both "
                             f"again, or move it away")
        counted[row["run"]] = counted.get(row["run"], 0) + 1
    finished = [run for run, row in by_run.items() if not row.get("error")]
    if any(counted.get(run, 0) != len(ids) for run in finished):
        raise UsageError(f"{beside}: not the creature table of {path} (it lacks rows of "
                         f"finished runs): write both again, or move it away")


# -- plots ------------------------------------------------------------------------------------
SMALL_MULTIPLES_FROM = 4  # this many creatures or more: one small panel each, not overlaid
GRID_COLUMNS = 5  # small panels a row
ANNOTATE_UP_TO = 12  # a heat map of at most this many rows and columns writes its rates
# Sides take Dark2's colours (creatures take tab10's, `creature_colours`); "no winner"
# is grey: the same side in the same colour in every panel.
NO_WINNER_COLOUR = (0.6, 0.6, 0.6, 1.0)


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


def side_colours(sides: Sequence[str | None]) -> dict[str | None, Any]:
    """One colour per side (Dark2, then evenly along a continuous map past 8), "no
    winner" (None) grey, the same in every panel."""
    from matplotlib import colormaps

    named = [side for side in sides if side is not None]
    if len(named) <= 8:
        cmap = colormaps["Dark2"]
        palette = [cmap(i) for i in range(len(named))]
    else:
        cmap = colormaps["viridis"]
        palette = [cmap(0.05 + 0.9 * i / (len(named) - 1)) for i in range(len(named))]
    out: dict[str | None, Any] = {side: palette[i] for i, side in enumerate(named)}
    out[None] = NO_WINNER_COLOUR
    return out


def plot(results: Results, path: str | Path, title: str = "") -> Path:
    """Write the plots (`figure_of`, or `sweep_figure` for a sweep's tables) to a PNG;
    returns the path written (`.png` added to a name without it, as `affray render
    --png` does)."""
    try:
        import matplotlib
    except ImportError:
        raise UsageError("report --png needs matplotlib: pip install 'affray[plots]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from affray.display.render import png_path

    swept = bool(varied_paths(runs_of(results)))
    figure = sweep_figure(results, title) if swept else figure_of(results, title)
    target = png_path(path)
    figure.savefig(target, dpi=100, format="png")
    plt.close(figure)
    return target


def figure_of(results: Results, title: str = "") -> Any:
    """The plots as a matplotlib figure: survival by creature with its 95% interval,
    damage taken per run and the time to kill (histograms; the time to kill needs the
    creature table, or an earlier run table's `<id>.death_pulse`), each creature in its
    own colour throughout (`creature_colours`). Up to SMALL_MULTIPLES_FROM - 1
    creatures share one panel of each; more get one small panel each, on shared axes, so
    seven creatures do not pile up in one."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    table = runs_of(results)
    summary = summarize(results)
    rows = _ok_rows(table)
    creatures = creature_ids(table)
    colours = creature_colours(creatures)
    long = _long(results, rows)
    damage = {c: [row[f"{c}.damage_taken"] or 0 for row in rows] for c in creatures}
    deaths = {c: [entry["death_pulse"] / PULSES_PER_SECOND for entry in long.get(c, [])
                  if entry["death_pulse"] is not None] for c in creatures}
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


# -- a sweep's plots ----------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class _Rates:
    """Counts at one value of a path (pooled over the other paths' values): per side
    its wins, per creature its survivals, out of `runs` finished runs."""

    value: Any
    runs: int
    wins: dict[str | None, int]
    survived: dict[str, int]

    def wilson(self, count: int) -> tuple[float, float, float]:
        low, high = wilson(count, self.runs)
        return (count / self.runs if self.runs else math.nan), low, high


def _marginal(points: list[dict[str, Any]], path: str) -> list[_Rates]:
    """A path's values in grid order, each with the counts of every point at it."""
    out: dict[str, _Rates] = {}
    for point in points:
        value = point["values"][path]
        key = json.dumps(value, sort_keys=True, default=str)
        runs = point["runs"] - point["errors"]
        wins = {row["side"]: row["wins"] for row in point["sides"]}
        survived = {row["id"]: row["survived"] for row in point["creatures"]}
        if key in out:
            before = out[key]
            wins = {side: before.wins.get(side, 0) + count for side, count in wins.items()}
            survived = {c: before.survived.get(c, 0) + n for c, n in survived.items()}
            runs += before.runs
        out[key] = _Rates(value, runs, wins, survived)
    return list(out.values())


def _axis(values: list[Any]) -> tuple[list[float], list[str] | None]:
    """x positions of a path's values: the numbers themselves, else 0, 1, ... with the
    values as tick labels (text, lists)."""
    if all(isinstance(value, int | float) and not isinstance(value, bool)
           for value in values):
        return [float(value) for value in values], None
    return [float(index) for index in range(len(values))], [_shown(v) for v in values]


def _rate_lines(axes: Any, rates: list[_Rates], names: Sequence[Any], counts: str,
                colours: dict[Any, Any], label: Any, gid: str, xlabel: str) -> None:
    """Rates against a path's value, one line per name with its 95% Wilson band."""
    xs, ticks = _axis([entry.value for entry in rates])
    for name in names:
        stats = [entry.wilson(getattr(entry, counts).get(name, 0)) for entry in rates]
        colour = colours[name]
        line, = axes.plot(xs, [s[0] for s in stats], marker="o", color=colour,
                          label=label(name), linewidth=2)
        band = axes.fill_between(xs, [s[1] for s in stats], [s[2] for s in stats],
                                 color=colour, alpha=0.18, linewidth=0)
        line.set_gid(f"{gid}:{name}")
        band.set_gid(f"{gid}:{name}")
    if ticks is not None:
        axes.set_xticks(xs, ticks)
    axes.set_ylim(-0.02, 1.02)
    axes.set_xlabel(xlabel)
    axes.grid(alpha=0.3)


def sweep_figure(results: Results, title: str = "") -> Any:
    """A sweep's plots. One path: the win rate of each side against the value, with its
    95% Wilson band, and each creature's survival likewise (one small panel each from
    SMALL_MULTIPLES_FROM creatures). Two paths: a heat map of each side's win rate over
    the grid, and one of each creature's survival, as small multiples. More: each
    path's own panels, pooled over the other paths' values. Sides keep their colour
    (`side_colours`) and creatures theirs (`creature_colours`) in every panel."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    table = runs_of(results)
    points = sweep_points(results)
    paths = varied_paths(table)
    creatures = creature_ids(table)
    sides: list[str | None] = [row["side"] for row in points[0]["sides"]] if points else []
    shown_sides = [side for side in sides
                   if side is not None or any(p["sides"][-1]["wins"] for p in points)]
    colours: dict[str, dict[Any, Any]] = {"side": side_colours(sides),
                                          "creature": creature_colours(creatures)}
    runs = sum(point["runs"] for point in points)
    heading = title or f"sweep of {len(points):,} points, {runs:,} runs"
    per_row = GRID_COLUMNS if len(paths) != 2 else max(len(shown_sides),
                                                       min(GRID_COLUMNS, len(creatures)))
    creature_rows = -(-len(creatures) // max(1, per_row))
    many = len(creatures) >= SMALL_MULTIPLES_FROM or len(paths) == 2
    height = 5 + (2.2 * creature_rows if many and len(paths) != 2 else
                  4.2 * creature_rows if len(paths) == 2 else 5)
    figure = plt.figure(figsize=(16, height), layout="constrained")
    figure.suptitle(heading)
    if len(paths) == 2 and points:
        _heat_maps(figure, points, paths, shown_sides, creatures, colours)
    else:
        _marginal_panels(figure, points, paths, shown_sides, creatures, colours)
    return figure


def _side_label(side: str | None) -> str:
    return NO_WINNER if side is None else f"{side} win"


def _marginal_panels(figure: Any, points: list[dict[str, Any]], paths: list[str],
                     sides: list[str | None], creatures: list[str],
                     colours: dict[str, dict[Any, Any]]) -> None:
    """Per path: a panel of win rates by side, and of survival by creature (overlaid,
    or one small panel per creature from SMALL_MULTIPLES_FROM creatures)."""
    many = len(creatures) >= SMALL_MULTIPLES_FROM
    rows = -(-len(creatures) // GRID_COLUMNS) if many else 1
    top, bottom = figure.subfigures(2, 1, height_ratios=[5, 2.2 * rows if many else 5])
    win_axes = top.subplots(1, len(paths), squeeze=False)[0]
    pooled = ", each path over all the others' values" if len(paths) > 1 else ""
    top.suptitle(f"win rate by side{pooled} (95% Wilson band)")
    for axes, path in zip(win_axes, paths, strict=True):
        rates = _marginal(points, path)
        _rate_lines(axes, rates, sides, "wins", colours["side"], _side_label, "side",
                    path)
        axes.axhline(0.5, color="#888888", linestyle="--", linewidth=1, zorder=0)
        axes.set_ylabel("share of runs won")
        axes.set_gid(f"wins:{path}" if len(paths) > 1 else "wins")
        axes.legend(fontsize=9)
    bottom.suptitle(f"survival by creature{pooled} (95% Wilson band)")
    if not many:
        for axes, path in zip(bottom.subplots(1, len(paths), squeeze=False)[0], paths,
                              strict=True):
            _rate_lines(axes, _marginal(points, path), creatures, "survived",
                        colours["creature"], str, "creature", path)
            axes.set_ylabel("share of runs survived")
            axes.set_gid(f"survival:{path}" if len(paths) > 1 else "survival")
            axes.legend(fontsize=9)
        return
    path = paths[0]  # small multiples along the first path
    columns = min(GRID_COLUMNS, len(creatures))
    rows = -(-len(creatures) // columns)
    grid = bottom.subplots(rows, columns, sharex=True, sharey=True, squeeze=False)
    rates = _marginal(points, path)
    for index, axes in enumerate(grid.flat):
        if index >= len(creatures):
            axes.set_axis_off()
            continue
        creature = creatures[index]
        _rate_lines(axes, rates, [creature], "survived", colours["creature"], str,
                    "creature", path if index >= len(creatures) - columns else "")
        axes.set_title(creature, color=colours["creature"][creature], fontweight="bold",
                       fontsize=10)
        axes.set_gid(f"survival:{creature}")


def _heat_maps(figure: Any, points: list[dict[str, Any]], paths: list[str],
               sides: list[str | None], creatures: list[str],
               colours: dict[str, dict[Any, Any]]) -> None:
    """Two paths: the grid as heat maps, the first path down, the second across; each
    side's win rate in its own colour (white at 0%, the side's colour at 100%), each
    creature's survival in its own, rates written in the cells of a small grid."""
    import numpy as np

    rows_of = list(dict.fromkeys(_shown(p["values"][paths[0]]) for p in points))
    columns_of = list(dict.fromkeys(_shown(p["values"][paths[1]]) for p in points))
    per_row = max(len(sides), min(GRID_COLUMNS, len(creatures)))
    creature_rows = -(-len(creatures) // per_row)
    top, bottom = figure.subfigures(2, 1, height_ratios=[5, 4.2 * creature_rows])
    top.suptitle("win rate by side over the grid")
    bottom.suptitle("survival by creature over the grid")

    def grid_of(rate_of: Any) -> Any:
        """Rates, lows and highs of the grid, the first path down, the second across."""
        cells = np.full((3, len(rows_of), len(columns_of)), np.nan)
        for point in points:
            y = rows_of.index(_shown(point["values"][paths[0]]))
            x = columns_of.index(_shown(point["values"][paths[1]]))
            cells[:, y, x] = rate_of(point)
        return cells

    def side_rate(side: str | None) -> Any:
        return lambda point: next(((row["rate"], row["low"], row["high"])
                                   for row in point["sides"] if row["side"] == side),
                                  (math.nan,) * 3)

    def creature_rate(creature: str) -> Any:
        return lambda point: next(((row["survival"], row["low"], row["high"])
                                   for row in point["creatures"] if row["id"] == creature),
                                  (math.nan,) * 3)

    side_axes = top.subplots(1, per_row, squeeze=False)[0]
    for index, axes in enumerate(side_axes):
        if index >= len(sides):
            axes.set_axis_off()
            continue
        side = sides[index]
        _heat(axes, grid_of(side_rate(side)), colours["side"][side], rows_of, columns_of,
              paths, _side_label(side), f"heat:side:{side}")
    creature_axes = bottom.subplots(creature_rows, per_row, squeeze=False)
    for index, axes in enumerate(creature_axes.flat):
        if index >= len(creatures):
            axes.set_axis_off()
            continue
        creature = creatures[index]
        _heat(axes, grid_of(creature_rate(creature)), colours["creature"][creature],
              rows_of, columns_of, paths, f"{creature} survives",
              f"heat:creature:{creature}")


def _heat(axes: Any, cells: Any, colour: Any, rows_of: list[str], columns_of: list[str],
          paths: list[str], title: str, gid: str) -> None:
    from matplotlib.colors import LinearSegmentedColormap, to_hex

    cmap = LinearSegmentedColormap.from_list(gid, ["#ffffff", to_hex(colour)])
    cells, lows, highs = cells
    image = axes.imshow(cells, cmap=cmap, vmin=0.0, vmax=1.0, aspect="auto",
                        origin="lower")
    image.set_gid(gid)
    axes.set_xticks(range(len(columns_of)), columns_of)
    axes.set_yticks(range(len(rows_of)), rows_of)
    axes.set_xlabel(paths[1])
    axes.set_ylabel(paths[0])
    axes.set_title(title, color=colour, fontweight="bold", fontsize=10)
    axes.set_gid(gid)
    axes.figure.colorbar(image, ax=axes, fraction=0.05, pad=0.02, format="{x:.0%}")
    if len(rows_of) <= ANNOTATE_UP_TO and len(columns_of) <= ANNOTATE_UP_TO:
        for y in range(len(rows_of)):
            for x in range(len(columns_of)):
                value = cells[y, x]
                if not math.isnan(value):
                    axes.text(x, y, f"{value:.0%}\n{lows[y, x] * 100:.0f}-"
                              f"{highs[y, x] * 100:.0f}", ha="center", va="center",
                              fontsize=8, color="white" if value > 0.55 else "black")
