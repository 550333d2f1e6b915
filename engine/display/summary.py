"""What `affray run` prints after the log: who is standing, who dealt and took what, who
killed whom, and the winning side; and the progress bar of a long run.

A creature's side is its `side` (R-SIDE-1): "players" for a player character and "npcs"
otherwise unless a scenario names another (docs/decisions.md, "Sides and the winner"). A
side wins when it had creatures at the start and is the only side with a creature alive
at the end; with a single side in the fight, or none left standing, there is no winner.
The table lists each side's creatures standing, and their damage and kills.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from affray.core.world import World

PLAYERS, NPCS = "players", "npcs"
ROUND_PULSES = 12  # R-TIME-2: idle for longer than a round after the last event is news
# Seconds a run may take before its progress bar appears (tests set 0 through the
# environment to see the bar at once).
PROGRESS_AFTER = float(os.environ.get("AFFRAY_PROGRESS_AFTER", "2"))


@dataclass(slots=True)
class Row:
    """One creature's line of the summary."""

    id: str
    side: str
    hp: int
    max_hp: int
    alive: bool
    dealt: int
    taken: int
    kills: int


@dataclass(slots=True)
class SideRow:
    """One side's totals: creatures at the start and standing, damage dealt, kills."""

    side: str
    creatures: int
    standing: int
    dealt: int
    taken: int
    kills: int


@dataclass(slots=True)
class Summary:
    rows: list[Row]
    winner: str | None

    @property
    def sides(self) -> list[SideRow]:
        """Per side (in the order sides first appear), summed over its creatures."""
        out: dict[str, SideRow] = {}
        for row in self.rows:
            side = out.setdefault(row.side, SideRow(row.side, 0, 0, 0, 0, 0))
            side.creatures += 1
            side.standing += row.alive
            side.dealt += row.dealt
            side.taken += row.taken
            side.kills += row.kills
        return list(out.values())

    def to_dict(self) -> dict[str, Any]:
        return {"creatures": [asdict(row) for row in self.rows],
                "sides": [asdict(side) for side in self.sides], "winner": self.winner}


def summarize(world: World) -> Summary:
    """Totals from the event log (damage amounts, deaths) and the creatures' state."""
    dealt: dict[str, int] = {}
    taken: dict[str, int] = {}
    kills: dict[str, int] = {}
    for event in world.events:
        if event.kind == "damage":
            source, target, amount = event.source, event.target, event.amount  # type: ignore[attr-defined]
            if source is not None:
                dealt[source] = dealt.get(source, 0) + amount
            taken[target] = taken.get(target, 0) + amount
        elif event.kind == "death" and event.killer:  # type: ignore[attr-defined]
            killer = event.killer  # type: ignore[attr-defined]
            kills[killer] = kills.get(killer, 0) + 1
    rows = []
    for creature_id in world.creature_ids():
        sheet = world.sheet(creature_id)
        rows.append(Row(id=creature_id, side=sheet.creature.side,
                        hp=sheet.vitals.hp, max_hp=sheet.vitals.max_hp,
                        alive=sheet.vitals.alive, dealt=dealt.get(creature_id, 0),
                        taken=taken.get(creature_id, 0), kills=kills.get(creature_id, 0)))
    sides = {row.side for row in rows}
    standing = {row.side for row in rows if row.alive}
    winner = next(iter(standing)) if len(sides) > 1 and len(standing) == 1 else None
    return Summary(rows=rows, winner=winner)


def print_summary(summary: Summary, out: TextIO | None = None) -> None:
    """The summary as a rich table (plain text when `out`, stdout by default, is not a
    terminal)."""
    from rich.console import Console
    from rich.table import Table

    out = sys.stdout if out is None else out

    table = Table(title="Summary", title_justify="left")
    for name, justify in (("creature", "left"), ("side", "left"), ("hp", "right"),
                          ("state", "left"), ("dealt", "right"), ("taken", "right"),
                          ("kills", "right")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for row in summary.rows:
        table.add_row(row.id, row.side, shown_hp(row), "alive" if row.alive else "dead",
                      str(row.dealt), str(row.taken), str(row.kills))
    console = Console(file=out, width=100 if not out.isatty() else None)
    console.print(table)
    sides = summary.sides
    if len(sides) > 1:
        by_side = Table(title="Sides", title_justify="left")
        for name in ("side", "standing", "dealt", "taken", "kills"):
            by_side.add_column(name, justify="left" if name == "side" else "right")
        for side in sides:
            by_side.add_row(side.side, f"{side.standing}/{side.creatures}", str(side.dealt),
                            str(side.taken), str(side.kills))
        console.print(by_side)
    if summary.winner:
        console.print(f"Winner: the {summary.winner} (the only side left standing)")
    elif not summary.rows:
        console.print("No winner: the scenario has no creatures.")
    else:
        console.print("No winner: "
                      + ("no one is left standing." if not any(r.alive for r in summary.rows)
                         else "more than one side is standing."
                         if len({r.side for r in summary.rows if r.alive}) > 1
                         else "only one side took part."))


def shown_hp(row: Row) -> str:
    """hp/max_hp as a player reads it: a dead creature has 0 (the blow that killed an orc
    at 1 hp for 23 leaves it at -22, which the snapshot and `--json` keep as data); a
    living one below 0 is mortally wounded, and shows it."""
    return f"{max(0, row.hp) if not row.alive else row.hp}/{row.max_hp}"


def run_footer(world: World, label: str) -> str:
    """The last line of `affray run`: what ran, and when the fight was over. A run that
    settled says so ("settled at pulse 265 of 100000"); one that went on idle for more
    than a round after its last event says both ("ran 100000 pulses, the last event at
    pulse 252"): a duel's 100,000-pulse cap is not how long its fight lasted."""
    events = world.events
    last = events[-1] if len(events) else None
    if last is not None and last.kind == "settled":
        span = f"settled at pulse {last.pulse}"
        if world.end_pulse is not None and world.end_pulse > last.pulse:
            span += f" of {world.end_pulse}"
    elif last is not None and world.pulse - 1 - last.pulse > ROUND_PULSES:
        span = f"ran {world.pulse} pulses, the last event at pulse {last.pulse}"
    else:
        span = f"{world.pulse} pulses"
    return f"-- {label}: {span}, seed {world.seed}"


def run_with_progress(world: World, pulses: int | None, until: str | None,
                      show: bool) -> None:
    """`world.run(pulses, until=until)`, in growing steps so that a bar on stderr can
    show the pulse once the run has taken PROGRESS_AFTER seconds. Steps of `run` give the
    same log as one `run` (skipping is proven identical to stepping)."""
    if not show:
        world.run(pulses, until=until)
        return
    start = world.pulse
    end = start + pulses if pulses is not None else max(start, world.end_pulse or 0)
    began = time.monotonic()
    step = 1
    bar: Any = None
    task: Any = None
    try:
        while world.pulse < end:
            goal = min(end, world.pulse + step)
            chunk_began = time.monotonic()
            world.run(goal - world.pulse, until=until)
            if world.pulse < goal:  # settled early
                break
            took = time.monotonic() - chunk_began
            if took < 0.1:  # aim at a few updates a second
                step *= 2
            elif took > 0.5 and step > 1:
                step //= 2
            if bar is None and time.monotonic() - began >= PROGRESS_AFTER:
                from rich.console import Console
                from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

                bar = Progress(TextColumn("pulse {task.completed:,} of {task.total:,}"),
                               BarColumn(), TimeElapsedColumn(),
                               console=Console(file=sys.stderr), transient=True)
                bar.start()
                task = bar.add_task("run", total=end - start)
            if bar is not None:
                bar.update(task, completed=world.pulse - start)
    finally:
        if bar is not None:
            bar.stop()
