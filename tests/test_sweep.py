"""Sweeps (`affray.sweep`, `affray sweep`): a scenario over a grid of values of its fields.

Each grid point's rows must be the rows of a batch of the scenario file with those
values written into it; every point runs the same seeds; the rows are the same whatever
the workers, the executor or the backend; every bad path or value is refused before any
run. The duel is the built-in standard duel (a wounded warrior against an orc brute).
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import affray
from affray.cli import main
from affray.data.scenario import builtin_scenario
from affray.display.report import read_tables, summarize, sweep_points, wilson
from affray.runners.balancing import MAX_POINTS, parse_vary_option

balancing = sys.modules["affray.runners.balancing"]
DUEL = builtin_scenario("duel")
DUEL_TEXT = DUEL.read_text(encoding="utf-8")


def _duel_with(tmp_path: Path, hp: int, slash: int) -> Path:
    """The duel file with the warrior's hp and the orc's slash armor written in by hand."""
    assert "\nhp = 36\n" in DUEL_TEXT and DUEL_TEXT.rstrip().endswith("at = [2, 1]")
    text = DUEL_TEXT.replace("\nhp = 36\n", f"\nhp = {hp}\n").rstrip() + \
        f"\narmor = {{ slash = {slash} }}\n"
    path = tmp_path / f"duel-{hp}-{slash}.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _rows_without(table: pa.Table, names: tuple[str, ...]) -> list[dict]:
    return [{key: value for key, value in row.items() if key not in names}
            for row in table.to_pylist()]


VARY = {"creatures.warrior.hp": [20, 36], "creatures.orc.armor.slash": [0, 50]}


def test_a_sweep_runs_the_cartesian_grid_each_point_as_its_file(tmp_path):
    """2 x 2 values, 3 runs each: 12 rows, the points in grid order (the last path
    fastest), `run` numbering the whole grid, every point on seeds 5, 6, 7 (common
    random numbers), a column per varied path named by the path; and each point's rows
    are the batch of the duel file with those values written in by hand."""
    table = affray.sweep(DUEL, vary=VARY, runs=3, seed=5)
    assert table.column_names[:5] == ["run", "seed", "point", "creatures.warrior.hp",
                                      "creatures.orc.armor.slash"]
    assert table.column_names[5:] == affray.batch(DUEL, runs=1).column_names[2:]
    rows = table.to_pylist()
    assert [row["run"] for row in rows] == list(range(12))
    assert [row["seed"] for row in rows] == [5, 6, 7] * 4
    assert [(row["point"], row["creatures.warrior.hp"], row["creatures.orc.armor.slash"])
            for row in rows[::3]] == [(0, 20, 0), (1, 20, 50), (2, 36, 0), (3, 36, 50)]
    varied = ("run", "point", "creatures.warrior.hp", "creatures.orc.armor.slash")
    for point, (hp, slash) in enumerate(((20, 0), (20, 50), (36, 0), (36, 50))):
        by_hand = affray.batch(_duel_with(tmp_path, hp, slash), runs=3, seed=5)
        assert _rows_without(table.slice(3 * point, 3), varied) == \
            _rows_without(by_hand, ("run",))
    # the orc's slash armor matters: the warrior's sword is a slash weapon
    assert [row["orc.damage_taken"] for row in rows[:3]] != \
        [row["orc.damage_taken"] for row in rows[3:6]]


def test_the_creature_and_rounds_tables_carry_the_point_and_values():
    """collect="rounds": the creature and rounds tables have run, seed, the point and
    its values first, so they group without a join; each run's rows are those of the
    run table's run (same seeds, same point)."""
    tables = affray.sweep(DUEL, vary={"creatures.warrior.hp": [20, 36]}, runs=2,
                          collect="rounds")
    assert tables.creatures.column_names[:5] == ["run", "seed", "point",
                                                 "creatures.warrior.hp", "creature"]
    assert tables.rounds.column_names[:4] == ["run", "seed", "point", "creatures.warrior.hp"]
    runs = {row["run"]: row for row in tables.runs.to_pylist()}
    for row in tables.creatures.to_pylist():
        run = runs[row["run"]]
        assert (row["seed"], row["point"], row["creatures.warrior.hp"]) == \
            (run["seed"], run["point"], run["creatures.warrior.hp"])
        assert row["hp"] == run[f"{row['creature']}.hp"]
    for row in tables.rounds.to_pylist():
        if row["round"] == 0 and row["side"] == "players":
            assert row["hp"] == row["creatures.warrior.hp"]  # the warrior's at pulse 0


def test_sweep_rows_are_the_same_whatever_the_workers_or_the_executor():
    """The same grid gives the same tables on 1 worker, 2 worker processes, a thread
    pool, one-run tasks and Dask's local cluster."""
    one = affray.sweep(DUEL, vary=VARY, runs=3, seed=2, collect="creatures")
    others = [affray.sweep(DUEL, vary=VARY, runs=3, seed=2, workers=2, collect="creatures"),
              affray.sweep(DUEL, vary=VARY, runs=3, seed=2, chunk_size=1,
                           collect="creatures")]
    with ThreadPoolExecutor(max_workers=2) as threads:
        others.append(affray.sweep(DUEL, vary=VARY, runs=3, seed=2, executor=threads,
                                   collect="creatures"))
    pytest.importorskip("dask.distributed")
    others.append(affray.sweep(DUEL, vary=VARY, runs=3, seed=2, workers=2, backend="dask",
                               collect="creatures"))
    for other in others:
        assert other.runs.equals(one.runs)
        assert other.creatures.equals(one.creatures)


SPELL_SCENARIO = """
name = "zap"
pulses = 24

[map]
rows = ["#######", "#.....#", "#######"]

[[creatures]]
id = "mage"
template = "human_mage"
at = [1, 1]

[[creatures]]
id = "kobold"
template = "kobold"
at = [4, 1]
hp = 200

[[actions]]
pulse = 0
actor = "mage"
cast = "zap"
target = "kobold"

[[actions]]
pulse = 12
actor = "mage"
cast = "spark"
target = "kobold"

[content.spells.zap]
type = "energy"
shape = "bolt"
range = 8
damage = "30"
save = "none"
"""


def test_inline_content_is_swept_and_a_default_entry_keeps_its_other_fields(tmp_path):
    """`content.spells.zap.damage` sets the scenario's inline spell; `content.spells.spark
    .damage` a default spell the scenario does not define, copied in first with its other
    fields (an inline entry replaces the default whole). Each point is its file written
    by hand; the spark's shape, type and range stay the default's."""
    path = tmp_path / "zap.toml"
    path.write_text(SPELL_SCENARIO, encoding="utf-8")
    vary = {"content.spells.zap.damage": ["30", "60"], "content.spells.spark.damage": ["5"]}
    table = affray.sweep(path, vary=vary, runs=2, seed=3)
    for point, zap in enumerate(("30", "60")):
        by_hand = tmp_path / f"zap-{zap}.toml"
        by_hand.write_text(SPELL_SCENARIO.replace('damage = "30"', f'damage = "{zap}"')
                           + "\n[content.spells.spark]\n" + _default_spark(damage="5"),
                           encoding="utf-8")
        expected = affray.batch(by_hand, runs=2, seed=3)
        assert _rows_without(table.slice(2 * point, 2), (
            "run", "point", *vary)) == _rows_without(expected, ("run",))
    taken = [row["kobold.damage_taken"] for row in table.to_pylist()]
    assert taken[2] > taken[0]  # the 60 zap hurts more than the 30
    plan = balancing.grid(balancing.Scenario.read(path), list(vary.items()))
    spark = plan.jobs[0].content.spells["spark"]
    default = affray.default_content().spells["spark"]
    assert (spark.shape, spark.type, spark.range, spark.damage) == \
        (default.shape, default.type, default.range, "5")


def _default_spark(**changes: str) -> str:
    """The default content's spark as TOML lines, with `changes`."""
    from affray.data.content_loader import _raw_default

    entry = {**_raw_default()["spells"]["spark"], **changes}
    return "".join(f"{key} = {json.dumps(value)}\n" for key, value in entry.items())


def test_a_side_that_exists_at_some_points_only_has_its_column_everywhere():
    """Varying a creature's side: each side's `standing` column is in every row, 0 at
    the points where the side has no creature."""
    table = affray.sweep(DUEL, vary={"creatures.warrior.side": ["players", "heroes"]},
                         runs=2)
    assert [name for name in table.column_names if name.startswith("side.")] == [
        "side.players.standing", "side.npcs.standing", "side.heroes.standing"]
    rows = table.to_pylist()
    assert [row["side.heroes.standing"] for row in rows[:2]] == [0, 0]
    assert [row["side.players.standing"] for row in rows[2:]] == [0, 0]
    assert {row["winner"] for row in rows[2:]} <= {"heroes", "npcs"}


# -- refused before any run -------------------------------------------------------------------
BAD_VARY = {
    "no_such_creature": ({"creatures.warior.hp": [1]}, affray.UsageError,
                         "sweep: 'creatures.warior.hp': no creature 'warior' in the scenario "
                         "(its creatures: warrior, orc) (did you mean 'warrior'?)"),
    "no_such_top_key": ({"creature.warrior.hp": [1]}, affray.UsageError,
                        "'creature' is not a scenario key"),
    "no_such_field": ({"creatures.warrior.hpp": [1]}, affray.ScenarioError,
                      "sweep: creatures.warrior.hpp = 1: creature 'warrior' (creatures[0]): "
                      "Object contains unknown field `hpp`"),
    "wrong_type": ({"creatures.warrior.hp": [20, "lots"]}, affray.ScenarioError,
                   "sweep: creatures.warrior.hp = 'lots': creature 'warrior' (creatures[0]), "
                   "field 'hp': Expected `int`, got `str`"),
    "a_value_the_scenario_refuses": ({"creatures.warrior.hp": [20, 0]},
                                     affray.ScenarioError,
                                     "creatures.warrior.hp = 0: creature 'warrior' "
                                     "(creatures[0]), field 'hp': 0 is outside "
                                     "1..1000000"),
    "inside_a_number": ({"creatures.warrior.hp.max": [1]}, affray.UsageError,
                        "creatures.warrior.hp is a number, not a table"),
    "an_empty_list": ({"creatures.warrior.hp": []}, affray.UsageError,
                      "'creatures.warrior.hp': an empty list of values"),
    "a_value_twice": ({"creatures.warrior.hp": [20, 20]}, affray.UsageError,
                      "the value 20 is listed twice"),
    "text_not_a_list": ({"creatures.warrior.hp": "20"}, affray.UsageError,
                        "give a list of values, got str"),
    "grid_too_big": ({"creatures.warrior.hp": range(1, 101),
                      "creatures.orc.hp": range(1, 12)}, affray.UsageError,
                     "the grid has 100 x 11 = 1,100 points, past the limit of 1,000"),
    "the_seed": ({"seed": [1, 2]}, affray.UsageError, "the seeds are the sweep's own"),
    "an_id": ({"creatures.orc.id": ["ogre"]}, affray.UsageError,
              "a creature's id names the table's columns"),
    "a_whole_entry": ({"creatures.orc": [{}]}, affray.UsageError,
                      "name a field of one entry"),
    "a_column_name": ({"pulses": [10, 20]}, affray.UsageError,
                      "'pulses': the tables already have a column of that name"),
    "one_field_twice": ({"creatures.warrior.hp": [20], "creatures.0.hp": [30]},
                        affray.UsageError,
                        "'creatures.0.hp' is the same field as 'creatures.warrior.hp'"),
    "one_inside_another": ({"creatures.orc.armor": [{"bash": 1}],
                            "creatures.orc.armor.bash": [2]}, affray.UsageError,
                           "'creatures.orc.armor.bash' is inside 'creatures.orc.armor'"),
    "no_such_kind": ({"content.spell.fireball.damage": ["1"]}, affray.UsageError,
                     "'spell' is not a content kind"),
    "no_such_entry": ({"content.spells.firebal.damage": ["1"]}, affray.UsageError,
                      "no spells entry 'firebal' in the scenario's inline content or the "
                      "default content (did you mean 'fireball'?)"),
    "an_empty_key": ({"creatures..hp": [1]}, affray.UsageError, "an empty key in the path"),
    "vary_empty": ({}, affray.UsageError, "vary is empty"),
    "vary_a_list": ([("creatures.warrior.hp", [1])], affray.UsageError,
                    "vary must be a mapping"),
}


@pytest.mark.parametrize("case", sorted(BAD_VARY))
def test_a_bad_path_or_value_is_refused_before_any_run(case, monkeypatch):
    """Every bad path or value is a UsageError, or a ScenarioError naming the path and
    the value (and the file, entry and field), before a single run."""
    vary, error, message = BAD_VARY[case]
    monkeypatch.setattr(balancing, "run_plan",
                        lambda *a, **k: pytest.fail("a run started before the check"))
    with pytest.raises(error, match=re.escape(message)):
        affray.sweep(DUEL, vary=vary, runs=2)


@pytest.mark.parametrize("arguments, message", [
    ({"runs": -1}, "sweep: runs must be 0 or more, got -1"),
    ({"workers": 0}, "sweep: workers must be 1 or more, got 0"),
    ({"collect": "all"}, "sweep: collect must be one of runs, creatures, rounds"),
    ({"backend": "spark"}, "sweep: backend must be one of local, dask"),
])
def test_bad_sweep_arguments_are_usage_errors_before_the_scenario_is_read(
        arguments, message, monkeypatch):
    monkeypatch.setattr(balancing.Scenario, "read",
                        lambda *_: pytest.fail("the scenario was read before the check"))
    with pytest.raises(affray.UsageError, match=re.escape(message)):
        affray.sweep(DUEL, vary={"creatures.warrior.hp": [1]}, **{"runs": 1, **arguments})


def test_values_from_numpy_and_tuples_convert_as_the_file_would():
    """`numpy.arange` values are numbers to the scenario; a zero-run sweep is the
    grid's empty tables, with the varied columns typed from the values."""
    numpy = pytest.importorskip("numpy")
    table = affray.sweep(DUEL, vary={"creatures.warrior.hp": numpy.arange(20, 41, 10)},
                         runs=1)
    assert table.column("creatures.warrior.hp").to_pylist() == [20, 30, 40]
    assert table.schema.field("creatures.warrior.hp").type == pa.int64()
    empty = affray.sweep(DUEL, vary={"creatures.warrior.hp": (20, 30)}, runs=0)
    assert empty.num_rows == 0 and "creatures.warrior.hp" in empty.column_names


# -- --vary ------------------------------------------------------------------------------------
@pytest.mark.parametrize("text, values", [
    ("a.b=1,2,3", [1, 2, 3]),
    ("a.b=10:30:10", [10, 20, 30]),
    ("a.b=10:35:10", [10, 20, 30]),
    ("a.b=1:3", [1, 2, 3]),
    ("a.b=0:1:0.25", [0.0, 0.25, 0.5, 0.75, 1.0]),
    ("a.b=0.1:0.3:0.1", [0.1, 0.2, 0.3]),
    ("a.b=2d6,3d6+1", ["2d6", "3d6+1"]),
    ('a.b="x,y",z', ["x,y", "z"]),
    ("a.b=true,false", [True, False]),
    ("a.b=long_sword", ["long_sword"]),
])
def test_vary_options_read_lists_and_ranges(text, values):
    assert parse_vary_option(text) == ("a.b", values)


@pytest.mark.parametrize("text, message", [
    ("a.b=1:5:0", "STEP must be above 0, got 0"),
    ("a.b=1:5:-1", "STEP must be above 0, got -1"),
    ("a.b=5:1", "LO 5 is above HI 1"),
    ("a.b=1:5000:1", "5,000 values, past the limit of 1,000 grid points"),
    ("a.b", "expected PATH=V1,V2,... or PATH=LO:HI:STEP"),
    ("a.b=", "expected PATH=V1,V2,... or PATH=LO:HI:STEP"),
    ("a.b=1,,2", "an empty value between commas"),
    ("a..b=1", "an empty key in the path"),
])
def test_bad_vary_options_say_what_is_wrong(text, message):
    with pytest.raises(affray.UsageError, match=re.escape(message)):
        parse_vary_option(text)
    assert MAX_POINTS == 1_000


# -- the summary per point ----------------------------------------------------------------------
def test_sweep_points_worked_example():
    """Per point: its values, runs, errors left out, each side's wins with the Wilson
    interval, each creature's survival; on hand-made rows."""
    rows = []
    for point, value, winners in ((0, 10, ["a", "a", "b", None]), (1, 20, ["b", "b", "b"])):
        for index, winner in enumerate(winners):
            rows.append({"run": len(rows), "seed": index, "point": point, "x.y": value,
                         "pulses": 9, "settled": None, "winner": winner, "error": None,
                         "side.a.standing": int(winner == "a"),
                         "side.b.standing": int(winner == "b"),
                         "hero.hp": 1, "hero.alive": winner == "a", "hero.damage_taken": 0,
                         "hero.struck": 0})
    rows.append({**rows[-1], "run": len(rows), "error": "RuntimeError: boom",
                 "winner": None})
    points = sweep_points(pa.Table.from_pylist(rows))
    assert [(p["values"], p["runs"], p["errors"]) for p in points] == [
        ({"x.y": 10}, 4, 0), ({"x.y": 20}, 4, 1)]
    first = {row["side"]: row for row in points[0]["sides"]}
    assert (first["a"]["wins"], first["b"]["wins"], first[None]["wins"]) == (2, 1, 1)
    assert (first["a"]["low"], first["a"]["high"]) == pytest.approx(wilson(2, 4))
    second = {row["side"]: row for row in points[1]["sides"]}
    assert (second["b"]["wins"], second["b"]["rate"]) == (3, 1.0)
    assert points[0]["creatures"][0]["survival"] == 0.5
    summary = summarize(pa.Table.from_pylist(rows))
    assert summary["varied"] == ["x.y"] and summary["points"] == points


# -- the command -------------------------------------------------------------------------------
def _cli(*args: str, timeout: int = 240) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "affray", *args], capture_output=True,
                          text=True, timeout=timeout, check=False)


def test_the_sweep_command_writes_tables_that_report_reads(tmp_path, capsys):
    """`affray sweep --vary ... --out`: the run table and its creature table beside it,
    the same as the API's; Parquet keeps the scenario and the varied paths and grid in
    its metadata; the printed table has each point's wins by side with the interval;
    `affray report` gives the same summary and plots the sweep."""
    out = tmp_path / "grid.parquet"
    assert main(["sweep", "duel", "--vary", "creatures.warrior.hp=20,36", "--vary",
                 "creatures.orc.armor.slash=0:50:50", "--runs", "3", "--seed", "5",
                 "--out", str(out), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    expected = affray.sweep(DUEL, vary=VARY, runs=3, seed=5, collect="creatures")
    back = read_tables(out)
    assert back.runs.equals(expected.runs) and back.creatures.equals(expected.creatures)
    meta = pq.read_schema(out).metadata
    assert json.loads(meta[b"varied"]) == list(VARY)
    assert json.loads(meta[b"grid"]) == [[20, 0], [20, 50], [36, 0], [36, 50]]
    assert meta[b"scenario_text"].decode() == DUEL_TEXT
    summary = document["summary"]
    assert summary == json.loads(json.dumps(summarize(expected)))
    assert [point["values"] for point in summary["points"]] == [
        {"creatures.warrior.hp": hp, "creatures.orc.armor.slash": slash}
        for hp, slash in ((20, 0), (20, 50), (36, 0), (36, 50))]
    png = tmp_path / "grid.png"
    assert main(["report", str(out), "--json", "--png", str(png)]) == 0
    assert json.loads(capsys.readouterr().out)["summary"] == summary
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["sweep", "duel", "--vary", "creatures.warrior.hp=20,36", "--runs", "4",
                 "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "wins by side (95% Wilson interval)" in printed
    point = summarize(affray.sweep(DUEL, vary={"creatures.warrior.hp": [20, 36]},
                                   runs=4))["points"][1]
    players = point["sides"][0]
    assert f"{players['rate']:.1%} ({players['low'] * 100:.1f}-{players['high'] * 100:.1f})" \
        in printed


def test_a_csv_sweep_reads_back_its_varied_columns(tmp_path, capsys):
    """A CSV keeps no metadata: the varied paths are the columns between `point` and
    `pulses`, and `affray report` finds the same points."""
    out = tmp_path / "grid.csv"
    assert main(["sweep", "duel", "--vary", "creatures.warrior.hp=20,36", "--runs", "2",
                 "--out", str(out), "--json"]) == 0
    from_sweep = json.loads(capsys.readouterr().out)["summary"]
    assert main(["report", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["summary"] == from_sweep
    assert from_sweep["varied"] == ["creatures.warrior.hp"]


@pytest.mark.parametrize("args, status, message", [
    (["--vary", "creatures.warrior.hp=1:5:0"], 2, "STEP must be above 0, got 0"),
    (["--vary", "creatures.warrior.hp"], 2, "expected PATH=V1,V2,... or PATH=LO:HI:STEP"),
    (["--vary", "creatures.warrior.hp=1,2", "--vary", "creatures.warrior.hp=3"], 2,
     "--vary creatures.warrior.hp is given twice"),
    (["--vary", "creatures.warior.hp=1,2"], 1, "no creature 'warior' in the scenario"),
    (["--vary", "creatures.warrior.hp=0,5"], 1,
     "creatures.warrior.hp = 0: creature 'warrior' (creatures[0]), field 'hp': 0 is "
     "outside 1..1000000"),
])
def test_sweep_command_errors(args, status, message):
    """Bad --vary options are usage errors (exit 2); a path or value the scenario
    refuses is exit 1 with the message; never a traceback."""
    result = _cli("sweep", "duel", "--runs", "2", *args)
    assert result.returncode == status, result.stderr
    assert message in result.stderr and "Traceback" not in result.stderr


def test_sweep_progress_bar_on_a_terminal():
    """On a terminal the bar runs to the grid's whole count of runs."""
    from test_cli import _on_a_terminal

    shown = _on_a_terminal("sweep", "duel", "--vary", "creatures.warrior.hp=20,30,36",
                           "--runs", "4", "--workers", "2", env={"COLUMNS": "120"})
    assert "12/12" in shown, shown
    assert "Traceback" not in shown


# -- the plots -------------------------------------------------------------------------------
def _gid_colours(figure, prefix: str) -> dict[str, set[tuple[float, ...]]]:
    """The colours of the artists whose gid starts with `prefix` (lines, bands), by name."""
    found: dict[str, set[tuple[float, ...]]] = {}
    for axes in figure.axes:
        for artist in [*axes.lines, *axes.collections]:
            gid = artist.get_gid() or ""
            if not gid.startswith(prefix):
                continue
            colour = artist.get_color() if hasattr(artist, "get_xydata") else \
                artist.get_facecolor()[0]
            from matplotlib.colors import to_rgb

            found.setdefault(gid.removeprefix(prefix), set()).add(
                tuple(round(v, 4) for v in to_rgb(colour)))
    return found


def test_one_path_plots_win_rate_and_survival_against_the_value():
    """One varied path: each side's win rate against the value with its 95% Wilson band
    (the line through the rates, the band between the interval's ends), each in one
    colour; each creature's survival likewise in its own."""
    pytest.importorskip("matplotlib")
    from matplotlib import pyplot as plt

    from affray.display.report import creature_colours, side_colours, sweep_figure

    tables = affray.sweep(DUEL, vary={"creatures.warrior.hp": [16, 28, 40]}, runs=20,
                          collect="creatures")
    figure = sweep_figure(tables)
    panels = {axes.get_gid(): axes for axes in figure.axes if axes.get_gid()}
    assert set(panels) == {"wins", "survival"}
    points = sweep_points(tables)
    players = [line for line in panels["wins"].lines if line.get_gid() == "side:players"]
    assert list(players[0].get_xdata()) == [16, 28, 40]
    assert list(players[0].get_ydata()) == [point["sides"][0]["rate"] for point in points]
    band = next(c for c in panels["wins"].collections if c.get_gid() == "side:players")
    low = min(v[1] for v in band.get_paths()[0].vertices)
    assert low == pytest.approx(min(point["sides"][0]["low"] for point in points))
    sides = {name: {tuple(round(v, 4) for v in colour[:3])}
             for name, colour in side_colours(["players", "npcs", None]).items()
             if name in ("players", "npcs")}
    assert _gid_colours(figure, "side:") == sides
    creatures = {name: {tuple(round(v, 4) for v in colour[:3])}
                 for name, colour in creature_colours(["warrior", "orc"]).items()}
    assert _gid_colours(figure, "creature:") == creatures
    plt.close(figure)


def test_two_paths_plot_heat_maps_and_many_creatures_small_multiples(tmp_path):
    """Two varied paths: a heat map of each side's win rate over the grid (the first
    path down, the second across, the cell the point's rate) and one of each creature's
    survival; the ambush's 13 creatures get a heat map each. One path of the ambush:
    a small panel per creature."""
    pytest.importorskip("matplotlib")
    from matplotlib import pyplot as plt

    from affray.display.report import sweep_figure

    tables = affray.sweep(DUEL, vary=VARY, runs=6, collect="creatures")
    figure = sweep_figure(tables)
    panels = {axes.get_gid(): axes for axes in figure.axes if axes.get_gid()}
    assert {"heat:side:players", "heat:side:npcs", "heat:creature:warrior",
            "heat:creature:orc"} <= set(panels)
    image = panels["heat:side:players"].images[0].get_array()
    for point in sweep_points(tables):
        y = [20, 36].index(point["values"]["creatures.warrior.hp"])
        x = [0, 50].index(point["values"]["creatures.orc.armor.slash"])
        assert image[y, x] == point["sides"][0]["rate"]
    plt.close(figure)
    ambush = affray.sweep("ambush", vary={"content.creatures.den_kobold.hp": [20, 110]},
                          runs=1, collect="creatures")
    figure = sweep_figure(ambush)
    names = [axes.get_gid() for axes in figure.axes if axes.get_gid()]
    creatures = ambush.runs.schema.metadata[b"creatures"].decode().split(",")
    assert len(creatures) == 13
    assert names == ["wins", *(f"survival:{creature}" for creature in creatures)]
    plt.close(figure)
    assert not math.isnan(image[0, 0])


@pytest.mark.parametrize("command", ["batch", "sweep"])
def test_the_creature_tables_file_is_checked_before_the_work(command, tmp_path):
    """--out's creature table goes beside it (`r.creatures.parquet`): a folder there is
    refused before any run (a million runs would time out), naming that file."""
    beside = tmp_path / "r.creatures.parquet"
    beside.mkdir()
    vary = ["--vary", "creatures.warrior.hp=20,36"] if command == "sweep" else []
    result = _cli(command, "duel", *vary, "--runs", "1000000", "--out",
                  str(tmp_path / "r.parquet"), timeout=60)
    assert result.returncode == 1
    assert result.stderr == (f"affray: {beside}: is a folder, not a file to write the "
                             f"{command}'s creature table to\n")
    assert not (tmp_path / "r.parquet").exists()
    runs_only = _cli(command, "duel", *vary, "--runs", "2", "--collect", "runs", "--out",
                     str(tmp_path / "r.parquet"))
    assert runs_only.returncode == 0, runs_only.stderr  # no creature table to write
    assert sorted(path.name for path in tmp_path.iterdir()) == ["r.creatures.parquet",
                                                                "r.parquet"]


def test_the_balancing_page_s_troll_is_too_strong_and_its_options_read(tmp_path):
    """docs/balancing.md's scenario, taken from the page: it validates, the troll wins
    most fights (the warrior's 95% upper bound is below 50% over 200 runs: the page's
    answer to its question), and every `--vary` on the page reads and validates."""
    page = (Path(__file__).parent.parent / "docs" / "balancing.md").read_text(encoding="utf-8")
    block = re.search(r"```toml\n(# Is this troll too strong.*?)```", page, re.S)
    assert block is not None
    path = tmp_path / "troll.toml"
    path.write_text(block.group(1), encoding="utf-8")
    winners = affray.batch(path, runs=200).column("winner").to_pylist()
    assert wilson(winners.count("players"), 200)[1] < 0.5
    options = re.findall(r"--vary '?([a-z_.]+=[^ '`]+)", page)
    assert len(options) >= 4
    source = balancing.Scenario.read(path)
    for option in options:
        varied = parse_vary_option(option)
        if varied[0].startswith("content.creatures.troll."):
            balancing.grid(source, [varied])
