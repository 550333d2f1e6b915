"""The `affray` command (SCENARIO.md "CLI"): run, check, render, schedule, demo.

Every test runs the installed command in a fresh process (`python -m affray`, and the
`affray` console script where it is installed), so exit statuses, stdout and stderr are
exactly what a user sees.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from conftest import world_from_text

import affray

SCENARIO = """
name = "cli drill"
seed = 5
pulses = 6

[map]
rows = [
  "########",
  "#..~~..#",
  "#......#",
  "###+####",
]

[[creatures]]
id = "hero"
at = [1, 1]
hp = 40

[[creatures]]
id = "rat"
at = [6, 2]
hp = 8

[[items]]
at = [5, 1]
item = "scroll"

[[actions]]
pulse = 0
actor = "hero"
move = [2, 2]

[[actions]]
pulse = 3
actor = "rat"
move = [5, 2]
"""
SCENARIO_END = 9  # last action at pulse 3, then `pulses = 6`

SNAPSHOT_KEYS = {"pulse", "map", "creatures", "items", "fires", "doors", "water_bodies"}


def affray_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run `python -m affray ARGS` and capture its output."""
    return subprocess.run([sys.executable, "-m", "affray", *args], capture_output=True,
                          text=True, cwd=cwd, timeout=60, check=False)


def console_script() -> str | None:
    """The installed `affray` script: beside this interpreter first, then on PATH."""
    return (shutil.which("affray", path=os.path.dirname(sys.executable))
            or shutil.which("affray"))


@pytest.fixture
def scenario(tmp_path) -> Path:
    path = tmp_path / "drill.toml"
    path.write_text(SCENARIO, encoding="utf-8")
    return path


def _in_process(path: Path, seed: int | None = None, pulses: int | None = None):
    world = affray.load_scenario(path, seed=seed)
    try:
        world.run(pulses)
        return [e.to_dict() for e in world.events], world.snapshot(), world.seed
    finally:
        world.close()


# -- run -----------------------------------------------------------------------------------


def test_run_json_prints_one_document_matching_the_api(scenario):
    """`affray run --json`: one JSON object {scenario, seed, events, final}, the same
    events and final snapshot as the Python API gives (SCENARIO.md)."""
    result = affray_cli("run", str(scenario), "--json")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    document = json.loads(result.stdout)  # one document: any extra output fails here
    assert set(document) == {"scenario", "seed", "events", "final", "summary"}
    assert document["scenario"] == "cli drill"
    assert document["seed"] == 5
    assert set(document["final"]) >= SNAPSHOT_KEYS
    assert document["final"]["pulse"] == SCENARIO_END
    assert document["final"]["map"] == ["########", "#..~~..#", "#......#", "###+####"]
    assert set(document["final"]["creatures"]) == {"hero", "rat"}
    assert document["final"]["creatures"]["hero"]["at"] == [2, 2]
    assert document["final"]["creatures"]["rat"]["at"] == [5, 2]
    assert document["final"]["items"] == [{"at": [5, 1], "item": "scroll", "count": 1}]
    assert document["final"]["water_bodies"] == [[[3, 1], [4, 1]]]
    for event in document["events"]:
        assert isinstance(event["pulse"], int)
        assert isinstance(event["kind"], str)
    events, final, _seed = _in_process(scenario)
    assert document["events"] == events
    assert document["final"] == final
    assert [(e["pulse"], e["kind"]) for e in document["events"]] == [(0, "moved"), (3, "moved")]


def test_run_seed_overrides_the_file_seed(scenario):
    """`--seed N` is the run's seed, reported in the output (SCENARIO.md)."""
    result = affray_cli("run", str(scenario), "--json", "--seed", "123")
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["seed"] == 123
    events, final, seed = _in_process(scenario, seed=123)
    assert seed == 123
    assert document["events"] == events
    assert document["final"] == final


@pytest.mark.parametrize("pulses", [0, 2, 25])
def test_run_pulses_runs_that_many_pulses(scenario, pulses):
    """`--pulses N` runs N pulses from the start, whatever the scenario's own end."""
    result = affray_cli("run", str(scenario), "--json", "--pulses", str(pulses))
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["final"]["pulse"] == pulses
    assert all(event["pulse"] < pulses for event in document["events"])
    events, final, _seed = _in_process(scenario, pulses=pulses)
    assert document["events"] == events
    assert document["final"] == final


def test_run_without_json_prints_messages_and_a_summary(scenario):
    """`affray run` without --json prints one line per message, then a summary line."""
    result = affray_cli("run", str(scenario))
    assert result.returncode == 0, result.stderr
    from affray.display.text import render_log

    world = affray.load_scenario(scenario)
    try:
        world.run()
        messages = list(render_log(world.events))
    finally:
        world.close()
    assert len(messages) == 2
    lines = result.stdout.splitlines()
    assert lines[:3] == [*messages, ""]
    assert lines[3].strip() == "Summary"  # the table (tested below), then the closing line
    assert lines[-1] == f"-- cli drill: {SCENARIO_END} pulses, seed 5"


def test_run_missing_file_exits_1_naming_it(tmp_path):
    """A scenario that cannot be read: exit 1, the file named on stderr, no traceback."""
    missing = tmp_path / "no_such_scenario.toml"
    result = affray_cli("run", str(missing))
    assert result.returncode == 1
    assert str(missing) in result.stderr
    assert "cannot read" in result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize("args", [
    (),
    ("run",),
    ("run", "x.toml", "--bogus"),
    ("frobnicate",),
    ("run", "x.toml", "--seed", "abc"),
    ("run", "x.toml", "--seed", "-3"),
    ("run", "x.toml", "--pulses", "-1"),
])
def test_usage_errors_exit_2(args):
    """A usage error (no subcommand, unknown flag or command, a bad number) exits 2 with
    argparse's usage message, never a traceback (SCENARIO.md CLI)."""
    result = affray_cli(*args)
    assert result.returncode == 2
    assert "usage: affray" in result.stderr
    assert "Traceback" not in result.stderr


def test_help_works():
    """`python -m affray --help` prints the usage and the subcommands, exit 0."""
    result = affray_cli("--help")
    assert result.returncode == 0
    assert result.stdout.startswith("usage: affray")
    for command in ("run", "check", "render", "demo", "schedule", "bench", "batch"):
        assert re.search(rf"^\s+{command}\s", result.stdout, re.M), command


# -- check -----------------------------------------------------------------------------


def test_check_good_scenario_and_content_exit_0(scenario):
    """`affray check` on a valid scenario and the shipped content files exits 0."""
    from importlib import resources

    content = resources.files("affray.content")
    paths = [str(scenario), str(content / "spells.toml"), str(content / "items.toml"),
             str(content / "scenarios" / "demo.toml")]
    result = affray_cli("check", *paths)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    kinds = ["scenario", "content", "content", "scenario"]
    assert result.stdout.splitlines() == [f"{path}: ok ({kind})"
                                          for path, kind in zip(paths, kinds, strict=True)]


BASE = """name = "bad"
[map]
rows = ["######", "#....#", "######"]
"""

BAD_SCENARIOS = {
    "unknown_spell": (BASE + '[[creatures]]\nid = "a"\nat = [1, 1]\n'
                      '[[actions]]\nactor = "a"\ncast = "no_such_spell"\ntarget = [2, 1]\n',
                      "field 'cast'", "no_such_spell"),
    "creature_on_wall": (BASE + '[[creatures]]\nid = "a"\nat = [0, 0]\n',
                         "field 'at'", "wall"),
    "unknown_item": (BASE + '[[items]]\nat = [1, 1]\nitem = "no_such_item"\n',
                     "field 'item'", "no_such_item"),
    "duplicate_id": (BASE + '[[creatures]]\nid = "a"\nat = [1, 1]\n'
                     '[[creatures]]\nid = "a"\nat = [2, 1]\n',
                     "field 'id'", "duplicate id 'a'"),
    "wrong_type": (BASE + '[[creatures]]\nid = "a"\nat = [1, 1]\nlevel = "high"\n',
                   "field 'level'", "Expected `int`, got `str`"),
    "off_the_map": (BASE + '[[creatures]]\nid = "a"\nat = [1, 1]\n'
                    '[[actions]]\nactor = "a"\nmove = [9, 9]\n',
                    "field 'move'", "out of bounds"),
    "unknown_shape": (BASE + '[content.spells.zap]\ntype = "fire"\nshape = "blob"\n',
                      "field 'shape'", "blob"),
    "not_toml": ("this is = = not toml\n", "not valid TOML", "line 1"),
}


@pytest.mark.parametrize("case", sorted(BAD_SCENARIOS))
def test_check_bad_scenario_exits_1_naming_file_and_field(tmp_path, case):
    """R-ENG-1: `affray check` on a bad scenario exits 1; stderr names the file and the
    field, and holds no traceback."""
    text, field, detail = BAD_SCENARIOS[case]
    path = tmp_path / f"{case}.toml"
    path.write_text(text, encoding="utf-8")
    result = affray_cli("check", str(path))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert str(path) in result.stderr
    assert field in result.stderr
    assert detail in result.stderr
    assert f"{path}: ok" not in result.stdout


def test_check_reports_every_bad_file_and_passes_the_good_ones(tmp_path, scenario):
    """`affray check A B C` checks them all: one error line per bad file, exit 1."""
    bad = tmp_path / "bad.toml"
    bad.write_text(BAD_SCENARIOS["duplicate_id"][0], encoding="utf-8")
    missing = tmp_path / "missing.toml"
    result = affray_cli("check", str(bad), str(scenario), str(missing))
    assert result.returncode == 1
    assert result.stdout.splitlines() == [f"{scenario}: ok (scenario)"]
    errors = result.stderr.splitlines()
    assert len(errors) == 2
    assert errors[0].startswith(f"{bad}: ")
    assert errors[1] == f"{missing}: cannot read: No such file or directory"


def test_check_bad_content_file_exits_1(tmp_path):
    """R-ENG-1: a content file (no map) with a bad entry names the file, entry and field."""
    path = tmp_path / "spells.toml"
    path.write_text('[spells.zap]\ntype = "no_such_type"\nshape = "bolt"\n',
                    encoding="utf-8")
    result = affray_cli("check", str(path))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert str(path) in result.stderr
    assert "spells.zap" in result.stderr
    assert "field 'type'" in result.stderr


def test_run_bad_scenario_exits_1_with_one_message(tmp_path):
    """`affray run` on an invalid scenario: exit 1, one message naming file and field."""
    path = tmp_path / "bad.toml"
    path.write_text(BAD_SCENARIOS["unknown_item"][0], encoding="utf-8")
    result = affray_cli("run", str(path), "--json")
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr == (f"affray: {path}: item 'no_such_item' (items[0]), field 'item': "
                             f"unknown item 'no_such_item'\n")


# -- render, schedule, demo ----------------------------------------------------------------


def test_render_prints_the_map_with_everyone_on_it(scenario):
    """`affray render` prints every map row; creatures and items are drawn over their
    cells and every other cell shows its terrain."""
    result = affray_cli("render", str(scenario))
    assert result.returncode == 0, result.stderr
    rows = ["########", "#..~~..#", "#......#", "###+####"]
    lines = result.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line == rows[0])
    drawn = lines[start:start + len(rows)]
    marked = {(1, 1), (6, 2), (5, 1)}  # hero, rat, the scroll
    for y, (row, line) in enumerate(zip(rows, drawn, strict=True)):
        assert len(line) == len(row)
        for x, (terrain, shown) in enumerate(zip(row, line, strict=True)):
            if (x, y) in marked:
                assert shown != terrain, (x, y)
            else:
                assert shown == terrain, (x, y)
    assert drawn[1][1] != drawn[2][6]  # two creatures, two marks
    assert any("hero" in line for line in lines[start + len(rows):])
    assert any("rat" in line for line in lines[start + len(rows):])


def test_schedule_prints_the_eight_systems_in_order():
    """R-TIME-4: Pulse, Stun, Melee, Spell, Arc, Burst, FloorItemLoss, Terrain."""
    result = affray_cli("schedule")
    assert result.returncode == 0, result.stderr
    names = re.findall(r"^\s*(\d+)\.\s+(\w+)", result.stdout, re.M)
    assert names == [("1", "Pulse"), ("2", "Stun"), ("3", "Melee"), ("4", "Spell"),
                     ("5", "Arc"), ("6", "Burst"), ("7", "FloorItemLoss"), ("8", "Terrain")]


def test_demo_runs_the_builtin_scenario():
    """`affray demo` runs the shipped demo to its end and exits 0."""
    demo = tomllib.loads(affray.builtin_scenario("demo").read_text(encoding="utf-8"))
    end = max(a["pulse"] for a in demo["actions"]) + demo.get("pulses", 12)
    result = affray_cli("demo")
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout.splitlines()[-1] == (
        f"-- {demo['name']}: {end} pulses, seed {demo['seed']}")
    as_json = json.loads(affray_cli("demo", "--json").stdout)
    assert as_json["scenario"] == demo["name"]
    assert as_json["seed"] == demo["seed"]
    assert as_json["final"]["pulse"] == end
    world = world_from_text(affray.builtin_scenario("demo").read_text(encoding="utf-8"))
    try:
        world.run()
        assert as_json["events"] == [e.to_dict() for e in world.events]
    finally:
        world.close()


# -- the console script ----------------------------------------------------------------


def test_console_script_matches_python_m(scenario):
    """The installed `affray` script is the same program as `python -m affray`."""
    script = console_script()
    if script is None:
        pytest.skip("the affray console script is not installed on PATH")
    direct = subprocess.run([script, "run", str(scenario), "--json"], capture_output=True,
                            text=True, timeout=60, check=False)
    assert direct.returncode == 0, direct.stderr
    assert json.loads(direct.stdout) == json.loads(affray_cli("run", str(scenario),
                                                              "--json").stdout)
    usage = subprocess.run([script], capture_output=True, text=True, timeout=60, check=False)
    assert usage.returncode == 2
    assert "usage: affray" in usage.stderr
    missing = subprocess.run([script, "run", str(scenario.with_name("gone.toml"))],
                             capture_output=True, text=True, timeout=60, check=False)
    assert missing.returncode == 1
    assert "gone.toml" in missing.stderr
    assert "Traceback" not in missing.stderr


# -- the summary, --until, progress, --version, a closed pipe (issue 10) ------------------

LAST_STAND = """
name = "last stand"
pulses = 2000

[map]
rows = ["....", "...."]

[[creatures]]
id = "hero"
player = true
level = 20
hp = 60
damage = "3d6"
at = [1, 0]
fighting = "rat"

[[creatures]]
id = "rat"
hp = 10
at = [2, 0]

[[creatures]]
id = "bystander"
player = true
hp = 5
at = [0, 1]
"""


@pytest.fixture
def last_stand(tmp_path) -> Path:
    path = tmp_path / "last_stand.toml"
    path.write_text(LAST_STAND, encoding="utf-8")
    return path


def test_run_ends_with_a_summary_table_and_the_winner(last_stand):
    """Each creature's hp/max_hp, alive or dead, damage dealt and taken and kills, from the
    log; the winner is the only side (players or NPCs) left standing."""
    result = affray_cli("run", str(last_stand))
    assert result.returncode == 0, result.stderr
    world = affray.load_scenario(last_stand)
    try:
        world.run()
        dealt = sum(e.amount for e in world.events if e.kind == "damage")
        hero = world.sheet("hero").vitals
    finally:
        world.close()
    cells = [[cell.strip() for cell in line.strip("│").split("│")]
             for line in result.stdout.splitlines() if line.startswith("│")]
    rows = {row[0]: row[1:] for row in cells}
    assert rows["hero"] == ["players", f"{hero.hp}/{hero.max_hp}", "alive", str(dealt), "0",
                            "1"]
    assert rows["rat"][0] == "npcs" and rows["rat"][2:] == ["dead", "0", str(dealt), "0"]
    assert rows["bystander"] == ["players", "5/5", "alive", "0", "0", "0"]
    assert "Winner: the players" in result.stdout
    assert result.stdout.splitlines()[-1].startswith("-- last stand: ")


def test_run_json_carries_the_summary(last_stand):
    document = json.loads(affray_cli("run", str(last_stand), "--json").stdout)
    summary = document["summary"]
    assert summary["winner"] == "players"
    by_id = {row["id"]: row for row in summary["creatures"]}
    assert by_id["rat"]["alive"] is False and by_id["rat"]["side"] == "npcs"
    assert by_id["hero"]["kills"] == 1
    assert by_id["rat"]["taken"] == by_id["hero"]["dealt"] > 0


def test_no_winner_while_two_sides_stand_or_with_one_side(scenario):
    assert "No winner: more than one side is standing." in affray_cli("demo").stdout
    assert "No winner: only one side took part" in affray_cli("run", str(scenario)).stdout


def test_until_settled_stops_once_nothing_can_happen(last_stand):
    """`--until settled` wires `World.run(until="settled")`: the run stops at the first
    pulse from which nothing is left to happen, long before `pulses = 2000`."""
    result = json.loads(affray_cli("run", str(last_stand), "--until", "settled",
                                   "--json").stdout)
    world = affray.load_scenario(last_stand)
    try:
        world.run(until="settled")
        assert result["final"]["pulse"] == world.pulse < 2000
        assert result["events"][-1]["kind"] == "settled"
    finally:
        world.close()
    plain = affray_cli("run", str(last_stand), "--until", "settled")
    assert "All is still" in plain.stdout


def test_version_prints_the_package_version():
    result = affray_cli("--version")
    assert (result.returncode, result.stdout) == (0, f"affray {affray.__version__}\n")


def test_a_reader_that_stops_early_ends_the_run_quietly(tmp_path):
    """`affray run --json | head -c 100`: the closed pipe ends the command with status
    141 (128 + SIGPIPE) and nothing on stderr, never a BrokenPipeError traceback. The
    document (a 300,000-cell map in its snapshot) is far larger than a pipe's buffer, so
    the command is still writing when the reader goes away."""
    wide = tmp_path / "wide.toml"
    wide.write_text(f'[map]\nrows = ["{"." * 300_000}"]\n[[creatures]]\nid = "a"\n'
                    f'at = [0, 0]\n', encoding="utf-8")
    process = subprocess.Popen([sys.executable, "-m", "affray", "run", str(wide), "--json"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    assert len(process.stdout.read(100)) == 100
    process.stdout.close()
    error = process.stderr.read()
    assert process.wait(timeout=60) == 141
    assert error == b""


def _on_a_terminal(*args: str, env: dict[str, str]) -> str:
    """Run the command with stderr on a pseudo-terminal; what the terminal showed."""
    import pty

    leader, follower = pty.openpty()
    try:
        process = subprocess.Popen([sys.executable, "-m", "affray", *args],
                                   stdout=subprocess.DEVNULL, stderr=follower,
                                   env={**os.environ, **env})
        os.close(follower)
        shown = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the pty closes when the process ends
                break
            if not chunk:
                break
            shown += chunk
        process.wait(timeout=60)
    finally:
        os.close(leader)
    return shown.decode("utf-8", "replace")


def test_progress_bar_on_a_terminal_unless_quiet(last_stand):
    """A long run shows a rich progress bar on stderr when stderr is a terminal (the
    delay set to 0 here); `--quiet` turns it off, and a pipe never has it."""
    env = {"AFFRAY_PROGRESS_AFTER": "0", "COLUMNS": "100"}
    shown = _on_a_terminal("run", str(last_stand), env=env)
    assert "pulse" in shown and " of 2,000" in shown, shown
    assert "pulse" not in _on_a_terminal("run", str(last_stand), "--quiet", env=env)
    piped = subprocess.run([sys.executable, "-m", "affray", "run", str(last_stand)],
                           capture_output=True, text=True, timeout=60, check=False,
                           env={**os.environ, **env})
    assert piped.stderr == ""


# -- files: inputs read only from regular files, outputs checked before the work -------------

DEMO = str(affray.builtin_scenario("demo"))


@pytest.fixture(scope="module")
def results_csv(tmp_path_factory) -> Path:
    """A batch's table, for `report`."""
    path = tmp_path_factory.mktemp("results") / "results.csv"
    made = affray_cli("batch", "duel", "--runs", "3", "--out", str(path), "--quiet")
    assert made.returncode == 0, made.stderr
    return path


@pytest.fixture
def unwritable_folder(tmp_path) -> Path:
    """A folder nobody can create a file in: read-only for a user, immutable for root
    (whom file modes do not stop)."""
    folder = tmp_path / "locked"
    folder.mkdir()
    if os.geteuid() != 0:
        folder.chmod(0o555)
        yield folder
        folder.chmod(0o755)
        return
    if shutil.which("chattr") is None or subprocess.run(
            ["chattr", "+i", str(folder)], capture_output=True, check=False).returncode:
        pytest.skip("chattr +i is not available here: no folder root cannot write in")
    try:
        yield folder
    finally:
        subprocess.run(["chattr", "-i", str(folder)], check=False)


def _output_command(command: str, out: str, results: Path) -> list[str]:
    """The command writing its output to `out`; batch asks for a million runs and bench
    for the whole suite, so a check made only after the work would time out."""
    return {"replay": ["replay", DEMO, "-o", out],
            "render": ["render", DEMO, "--png", out],
            "report": ["report", str(results), "--png", out],
            "bench": ["bench", "--out", out],
            "batch": ["batch", "duel", "--runs", "1000000", "--out", out]}[command]


SUFFIX = {"replay": ".html", "render": ".png", "report": ".png", "bench": ".json",
          "batch": ".parquet"}


@pytest.mark.parametrize("command", sorted(SUFFIX))
@pytest.mark.parametrize("place", ["missing_folder", "a_folder", "unwritable_folder",
                                   "below_a_file"])
def test_an_output_that_cannot_be_written_is_refused_before_the_work(
        command, place, tmp_path, results_csv, request):
    """Every file the CLI writes is checked first: its folder exists and is a folder, the
    target is not a folder, it can be written. Each used to be a traceback after the
    work (for batch, after every run: the rows lost). Exit 1, a message, no file."""
    if place == "missing_folder":
        out, message = tmp_path / "no_such_folder" / f"out{SUFFIX[command]}", "no such folder"
    elif place == "a_folder":
        out, message = tmp_path / f"folder{SUFFIX[command]}", "is a folder, not a file"
        out.mkdir()
    elif place == "unwritable_folder":
        folder = request.getfixturevalue("unwritable_folder")
        out, message = folder / f"out{SUFFIX[command]}", "cannot write"
    else:
        (tmp_path / "a_file").write_text("x", encoding="utf-8")
        out, message = tmp_path / "a_file" / f"out{SUFFIX[command]}", "Not a directory"
    result = affray_cli(*_output_command(command, str(out), results_csv))
    assert result.returncode == 1, result.stderr
    assert result.stderr.startswith(f"affray: {out}: ") and message in result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""
    assert place == "a_folder" or not out.exists()


@pytest.mark.parametrize("command, what", [("replay", "the replay page"),
                                           ("render", "the PNG"), ("report", "the plots")])
def test_a_write_that_fails_at_the_end_is_a_message(command, what, tmp_path, results_csv):
    """A disk that fills up (/dev/full: ENOSPC; through a link named .png where a PNG is
    needed) passes the checks and fails at the write: exit 1 and a message naming the
    file, never a traceback."""
    out = "/dev/full"
    if command != "replay":
        out = str(tmp_path / "full.png")
        os.symlink("/dev/full", out)
    result = affray_cli(*_output_command(command, out, results_csv))
    assert result.returncode == 1
    assert result.stderr.splitlines()[-1] == (
        f"affray: {out}: could not write {what}: No space left on device")
    assert "Traceback" not in result.stderr


def test_bench_results_that_cannot_be_written_are_a_message(monkeypatch, capsys):
    """`affray bench --out /dev/full`: the suite runs (here none of its benchmarks),
    prints its table, and the write of the JSON fails: exit 1 and a message."""
    from affray.benchmarks import runner
    from affray.cli import main

    monkeypatch.setattr(runner, "BENCHMARKS", ())
    assert main(["bench", "--quick", "--out", "/dev/full"]) == 1
    assert capsys.readouterr().err == ("affray: /dev/full: could not write the benchmark "
                                       "results: No space left on device\n")


def _fifo(tmp_path: Path, name: str = "fifo.toml") -> Path:
    path = tmp_path / name
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("command", ["check", "run"])
def test_check_and_run_refuse_a_fifo_and_a_device_unread(command, tmp_path):
    """A FIFO blocked `check` and `run` for ever (no writer), /dev/zero never ended:
    both are refused from `stat` alone, with a message, exit 1."""
    fifo = _fifo(tmp_path)
    for path, kind in ((fifo, "a named pipe (FIFO)"), ("/dev/zero", "a character device")):
        result = subprocess.run([sys.executable, "-m", "affray", command, str(path)],
                                capture_output=True, text=True, timeout=30, check=False)
        assert result.returncode == 1
        what = "scenario or a save" if command == "run" else "scenario or content file"
        assert result.stderr.endswith(f"{path}: {kind}, not a regular file: affray reads a "
                                      f"{what} only from a regular file\n")
        assert result.stdout == ""


def test_scenario_and_content_files_have_a_size_limit(tmp_path, scenario):
    """A scenario or content file may be at most 16 MiB (affray.data.files.MAX_SOURCE_BYTES):
    at the limit it is checked as usual, one byte past it is refused unread."""
    from affray.data.files import MAX_SOURCE_BYTES

    text = scenario.read_text(encoding="utf-8") + "#"
    at_limit = tmp_path / "at_limit.toml"
    at_limit.write_text(text + "x" * (MAX_SOURCE_BYTES - len(text) - 1) + "\n",
                        encoding="utf-8")
    assert at_limit.stat().st_size == MAX_SOURCE_BYTES
    assert affray_cli("check", str(at_limit)).stdout == f"{at_limit}: ok (scenario)\n"
    past = tmp_path / "past.toml"
    past.write_bytes(at_limit.read_bytes() + b"\n")
    for command in ("check", "run"):
        result = affray_cli(command, str(past))
        assert result.returncode == 1
        assert (f"{past}: 16,777,217 bytes, past the limit of 16,777,216 bytes (16 MiB) for "
                f"a scenario or content file") in result.stderr


# -- check DIR ------------------------------------------------------------------------------


def test_check_a_folder_checks_every_toml_file_in_it_and_below(tmp_path, scenario):
    """`affray check DIR` checks every .toml file in the folder and its subfolders, in
    sorted order, printing each (it refused a folder); other files are left alone."""
    tree = tmp_path / "tree"
    (tree / "sub" / "deeper").mkdir(parents=True)
    (tree / "a.toml").write_text(scenario.read_text(encoding="utf-8"), encoding="utf-8")
    (tree / "notes.txt").write_text("not toml", encoding="utf-8")
    (tree / "sub" / "bad.toml").write_text(BAD_SCENARIOS["duplicate_id"][0], encoding="utf-8")
    (tree / "sub" / "deeper" / "spells.toml").write_text(
        '[spells.zap]\ntype = "fire"\nshape = "bolt"\n', encoding="utf-8")
    result = affray_cli("check", str(tree))
    assert result.returncode == 1
    assert result.stdout.splitlines() == [f"{tree / 'a.toml'}: ok (scenario)",
                                          f"{tree / 'sub' / 'deeper' / 'spells.toml'}: ok "
                                          f"(content)"]
    (error,) = result.stderr.splitlines()
    assert error.startswith(f"{tree / 'sub' / 'bad.toml'}: ") and "duplicate id" in error


def test_check_the_shipped_content_folder():
    """The shipped content folder checks clean, file by file, scenarios among them."""
    from importlib import resources

    content = Path(str(resources.files("affray.content")))
    files = sorted(str(path) for path in content.rglob("*.toml"))
    result = affray_cli("check", str(content))
    assert result.returncode == 0, result.stderr
    # a file's line, then (indented) what its creatures' levels imply (affray.data.levels)
    lines = [line for line in result.stdout.splitlines() if not line.startswith("  ")]
    assert sorted(line.split(": ok (")[0] for line in lines) == files
    assert f"{content / 'scenarios' / 'duel.toml'}: ok (scenario)" in lines
    assert f"{content / 'spells.toml'}: ok (content)" in lines


# -- what people look at: the run summary and the render message (the audit) -----------------
DUEL = Path(affray.builtin_scenario("duel"))


def _table_rows(stdout: str) -> dict[str, list[str]]:
    cells = [[cell.strip() for cell in line.strip("│").split("│")]
             for line in stdout.splitlines() if line.startswith("│")]
    return {row[0]: row[1:] for row in cells}


def test_the_summary_shows_the_dead_at_0_hp_and_the_json_keeps_the_data():
    """The duel's orc dies at 1 hp from a 23-point blow: the table shows it at 0/140,
    dead (it showed -22/140); `--json` and the snapshot keep -22, the data."""
    result = affray_cli("run", str(DUEL))
    assert result.returncode == 0, result.stderr
    assert _table_rows(result.stdout)["orc"][1:3] == ["0/140", "dead"]
    document = json.loads(affray_cli("run", str(DUEL), "--json").stdout)
    orc = next(row for row in document["summary"]["creatures"] if row["id"] == "orc")
    assert orc["hp"] == document["final"]["creatures"]["orc"]["hp"] < 0


def test_the_footer_says_when_the_fight_ended_as_well_as_how_long_it_ran():
    """The duel runs its 100,000-pulse cap, its last event at pulse 252: the footer says
    both; `--until settled` says the settled pulse and the cap it stopped short of."""
    world = affray.load_scenario(DUEL)
    world.run()
    last = world.events[-1].pulse
    world.close()
    world = affray.load_scenario(DUEL)
    world.run(until="settled")
    settled = world.pulse
    world.close()
    lines = affray_cli("run", str(DUEL)).stdout.splitlines()
    assert lines[-1] == f"-- duel: ran 100000 pulses, the last event at pulse {last}, seed 1"
    lines = affray_cli("run", str(DUEL), "--until", "settled").stdout.splitlines()
    assert lines[-1] == f"-- duel: settled at pulse {settled} of 100000, seed 1"
    assert last < settled < 100_000


def _batch_table(creatures: dict[str, list[int | None]]):
    """A batch table by hand: per creature, its death pulse in each run (None: lived)."""
    pa = pytest.importorskip("pyarrow")
    runs = len(next(iter(creatures.values())))
    rows = []
    for run in range(runs):
        row = {"run": run, "seed": run, "pulses": 500, "settled": None, "error": None}
        for creature, deaths in creatures.items():
            death = deaths[run]
            row.update({f"{creature}.hp": 0 if death is not None else 10,
                        f"{creature}.alive": death is None,
                        f"{creature}.damage_taken": 10 + run % 7 + len(creature),
                        f"{creature}.struck": 2, f"{creature}.death_pulse": death})
        rows.append(row)
    return pa.Table.from_pylist(rows)


def _colours_by_creature(figure) -> dict[str, set[tuple[float, ...]]]:
    """The colours each creature is drawn in, over every panel (its artists carry the
    gid `creature:<id>`), alpha left aside."""
    found: dict[str, set[tuple[float, ...]]] = {}
    for axes in figure.axes:
        for patch in axes.patches:
            gid = patch.get_gid() or ""
            if gid.startswith("creature:"):
                rgb = tuple(round(v, 4) for v in patch.get_facecolor()[:3])
                found.setdefault(gid.removeprefix("creature:"), set()).add(rgb)
    return found


def test_report_plots_keep_one_colour_per_creature_in_every_panel():
    """`affray report --png`: a creature that never died takes no colour away from the
    others: each creature has one colour in the survival, damage and time-to-kill panels
    (the kill panel used to recolour the dying ones from the start of the cycle)."""
    pytest.importorskip("matplotlib", reason="needs affray[plots] (matplotlib)")
    from matplotlib import pyplot as plt

    from affray.display.report import creature_colours, figure_of

    table = _batch_table({"hero": [None] * 12, "orc": [40 + 4 * i for i in range(12)]})
    figure = figure_of(table)
    colours = _colours_by_creature(figure)
    panels = {axes.get_gid(): axes for axes in figure.axes}
    assert {"survival", "damage", "kill"} <= set(panels)
    kill_ids = {patch.get_gid() for patch in panels["kill"].patches}
    plt.close(figure)
    expected = creature_colours(["hero", "orc"])
    assert colours == {name: {tuple(round(v, 4) for v in expected[name][:3])}
                       for name in ("hero", "orc")}
    assert kill_ids == {"creature:orc"}  # drawn in the orc's colour, not the first one


def test_report_plots_seven_creatures_as_small_multiples(tmp_path):
    """Seven creatures: a damage panel and a time-to-kill panel each, titled with the
    creature, holding only its own histogram on axes shared across the grid; the
    survival panel has all seven bars. `--png plots` writes plots.png and says so."""
    pytest.importorskip("matplotlib", reason="needs affray[plots] (matplotlib)")
    from matplotlib import pyplot as plt

    from affray.display.report import figure_of, write_table

    names = ["hero", "orc", "squire", "kobold1", "mage", "kobold2", "rat"]
    table = _batch_table({name: [None if (i + r) % 3 else 30 + 12 * r for r in range(9)]
                          for i, name in enumerate(names)})
    figure = figure_of(table)
    panels = {axes.get_gid(): axes for axes in figure.axes if axes.get_gid()}
    assert set(panels) == {"survival", *(f"damage:{n}" for n in names),
                           *(f"kill:{n}" for n in names)}
    for name in names:
        for kind in ("damage", "kill"):
            axes = panels[f"{kind}:{name}"]
            assert axes.get_title().split(" ")[0] == name
            assert {patch.get_gid() for patch in axes.patches} == {f"creature:{name}"}
    grid = [panels[f"damage:{n}"] for n in names]
    assert len({axes.get_xlim() for axes in grid}) == 1  # shared axes: one scale
    assert len({axes.get_ylim() for axes in grid}) == 1
    assert len(panels["survival"].patches) == 7
    assert all(len(found) == 1 for found in _colours_by_creature(figure).values())
    plt.close(figure)
    results = tmp_path / "seven.parquet"
    write_table(table, results)
    done = affray_cli("report", str(results), "--png", str(tmp_path / "plots"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == f"plots written to {tmp_path / 'plots.png'}"
    assert (tmp_path / "plots.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_check_takes_a_built_in_scenario_s_name_as_run_does(tmp_path):
    """`affray check battle` checks the shipped battle, as `affray run battle` runs it;
    a file of that name in the folder wins, and a name neither is a message, exit 1."""
    from affray.data.scenario import builtin_scenario

    result = affray_cli("check", "battle", "duel")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [f"{builtin_scenario('battle')}: ok (scenario)",
                                          f"{builtin_scenario('duel')}: ok (scenario)"]
    (tmp_path / "battle").write_text("not toml [", encoding="utf-8")
    local = affray_cli("check", "battle", cwd=tmp_path)
    assert local.returncode == 1 and local.stderr.startswith("battle: ")
    missing = affray_cli("check", "no_such_battle")
    assert missing.returncode == 1 and "no_such_battle" in missing.stderr
