"""The example game, examples/dungeon: a roguelike on affray and python-tcod.

It is deterministic for a seed, so its keys give one screen: these tests play keys
headless (`main.py --headless --seed 3 --keys ...`) and read the screen's text: the map
rows near the hero, the sidebar (hp, mana, mode, the aim's preview), the message log
(affray's player text). Save then load from the keyboard gives back the screen, and the
game goes on from a load as it would have without it. The terminal mode is played under
tmux (send-keys, capture-pane) and must show what headless mode prints for the same keys;
the test skips, saying so, without tmux (AFFRAY_REQUIRE_TMUX=1, set by .ci/run, turns the
skip into a failure).

Most games run in-process (main.main) to keep the file fast; the issue's own command runs
as a subprocess. The example's modules import each other by bare names (main.py runs as a
script), so its folder goes on sys.path here.
"""

from __future__ import annotations

import importlib
import os
import shlex
import shutil
import subprocess
import sys
import time
import warnings
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
DUNGEON = ROOT / "examples" / "dungeon"
MAIN = DUNGEON / "main.py"
MAP_WIDTH = 52  # the map's columns on screen; the sidebar starts at 53
STATUS_ROW = 17


def _example(name: str) -> ModuleType:
    if str(DUNGEON) not in sys.path:
        sys.path.insert(0, str(DUNGEON))
    return importlib.import_module(name)


def play(capsys: pytest.CaptureFixture[str], keys: str, save_dir: Path,
         *extra: str, seed: int = 3) -> list[str]:
    """The final screen after `keys`, headless, as its 24 rows of text."""
    main = _example("main")
    code = main.main(["--headless", "--seed", str(seed), "--keys", keys,
                      "--save-dir", str(save_dir), *extra])
    out = capsys.readouterr().out
    assert code == 0
    rows = out.split("\n")[:-1]
    assert len(rows) == 24, out
    return rows


def map_rows(screen: list[str], first: int, last: int) -> list[str]:
    return [row[:MAP_WIDTH].rstrip() for row in screen[first:last + 1]]


def sidebar(screen: list[str]) -> list[str]:
    return [row[MAP_WIDTH + 1:].rstrip() for row in screen[:STATUS_ROW]]


def log(screen: list[str]) -> list[str]:
    return [row for row in screen[STATUS_ROW + 1:] if row]


# -- the issue's command --------------------------------------------------------------
def test_the_issue_command_plays_its_keys_and_prints_the_screen(tmp_path: Path) -> None:
    """`python examples/dungeon/main.py --headless --seed 3 --keys "llljjf"`: three steps
    east, two south onto the potion, then `f` opens the spell list; exit 0."""
    done = subprocess.run([sys.executable, str(MAIN), "--headless", "--seed", "3",
                           "--keys", "llljjf", "--save-dir", str(tmp_path)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    screen = done.stdout.split("\n")[:-1]
    assert len(screen) == 24
    assert map_rows(screen, 0, 7) == [
        "###########",
        "#.?.......#",
        "#.........#",
        "#.........+",
        "#.........#",
        "#.......@.#",  # the hero from [5, 3] to [8, 5], on the potion
        "#.........#",
        "#####.#####",
    ]
    assert sidebar(screen)[:13] == [
        "hero  level 20", "HP  120/120", "MP  120/120", "Pulse 10  round 0", "",
        "Mode: choose a spell", "", "Cast which spell? (Esc)",
        "1 magic missile    10", "2 spark            10", "3 ray of frost     15",
        "4 fireball         25", "5 force blast      25",
    ]
    assert not list(tmp_path.iterdir())  # nothing saved without S


# -- walking, a door, a fight, a cast at the cursor -------------------------------------
def test_bumping_the_shut_door_opens_it_and_the_cave_comes_into_sight(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Four steps east, then a step into the shut door: affray has no open action, the
    game opens it (a step's time) and the kobold behind it is seen (the field of view
    goes through the open door)."""
    screen = play(capsys, "lllll", tmp_path)
    assert map_rows(screen, 0, 7) == [
        "###########   #####",
        "#.?.......#  ......",
        "#.........#....k...",
        "#........@'.......~",
        "#.........#......~~",
        "#.......!.#  ...~~~",
        "#.........#    ..~~",
        "#####.#####      .~",
    ]
    assert sidebar(screen)[3] == "Pulse 10  round 0"
    assert sidebar(screen)[14:16] == ["In sight:", "k kobold1    30/30"]
    assert log(screen) == ["hero opens the door at [10, 3]."]


def test_a_fight_then_a_fireball_aimed_with_the_cursor(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """The kobold comes through the door and attacks; a bump fights a round (the blows
    come by themselves); `f` `4` picks the fireball, the cursor starts on the kobold and
    `k` moves it a cell north (off the hero: a burst spares no one), Enter casts. The
    burst's cells are drawn (`*` where nobody stands; the fire it lit is `^`) and the
    log has the cast, its hit and the fire."""
    screen = play(capsys, "lllllllll" + "f4k<enter>", tmp_path)
    assert map_rows(screen, 1, 5) == [
        "#.........#.*^*........",
        "#.........#.*k*........",
        "#.........'..@....~~~~~",
        "#.........#......~~~~~~",
        "#.........#.....~~~___~",
    ]
    assert sidebar(screen)[:6] == ["hero  level 20", "HP  120/120", "MP  115/120",
                                   "Pulse 36  round 3", "fighting kobold1",
                                   "Mode: exploring"]
    assert sidebar(screen)[14:16] == ["In sight:", "k kobold1    12/30"]
    assert log(screen)[-5:] == [
        "hero casts fireball at [13, 1].",
        "hero's fireball hits kobold1 for 9.",
        "A fire flares up at [13, 1].",
        "hero's slash hits kobold1 for 9.",
        "kobold1 misses hero.",
    ]


def test_the_cursor_draws_the_preview_before_the_cast(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Aiming draws `world.preview`: the burst's nine cells around the cursor `X`, and
    the sidebar says what it reaches and strikes."""
    screen = play(capsys, "lllllllll" + "f4ll", tmp_path)
    assert map_rows(screen, 1, 3) == [
        "#.........#...***......",
        "#.........#..k*X*......",
        "#.........'..@***.~~~~~",
    ]
    assert sidebar(screen)[5:12] == ["Mode: aiming fireball", "", "At [15, 2]",
                                     "Reaches 9 cells", "Strikes: nobody", "",
                                     "Enter/f: fire  Esc: cancel"]


def test_aiming_a_spark_into_the_pond_shows_whom_the_water_carries_it_to(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """The hero wades into the pond and two kobolds join it there. A spark at one is
    carried by the water to everyone in it (R-ELEC-3): the preview's `water` lists the
    hero too, which a wise player reads before zapping; zapping anyway hurts the hero."""
    keys = "l" * 18 + "f2jj"  # the cursor starts on kobold1; two cells down: kobold2
    screen = play(capsys, keys, tmp_path)
    assert map_rows(screen, 3, 4) == ["#.........'.......~~~~@.......'.",
                                      "#.........#......~~~~k~k......#"]
    assert sidebar(screen)[5:13] == ["Mode: aiming spark", "", "At [21, 4]: kobold2",
                                     "Reaches 1 cell", "Strikes: kobold2",
                                     "Water carries it to:", "  hero (YOU!)", "  kobold3"]
    screen = play(capsys, keys + "<enter>", tmp_path)
    assert sidebar(screen)[1] == "HP  113/120"
    assert log(screen)[-3:] == [
        "hero's spark hits kobold2 for 7.",
        "hero is hit by their own spark for 7 through the water.",
        "hero's spark hits kobold3 for 7 through the water.",
    ]


def test_escape_leaves_the_aim_and_the_spell_list_without_casting(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    before = play(capsys, "lllll", tmp_path)
    assert play(capsys, "lllll" + "f4l<esc>", tmp_path) == before
    assert play(capsys, "lllll" + "f<esc>", tmp_path) == before


# -- save and load from the keyboard --------------------------------------------------------
def test_save_then_load_gives_the_same_screen_and_the_same_game_after(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """S saves mid-fight (the door open, kobold1 fighting the hero); walking off changes it;
    L brings back the saved one (only the status line differs), and the same keys then
    give the same screen as without the detour (R-ENG-3: a load continues the game)."""
    fight = "lllllllll"
    saved = play(capsys, fight + "S", tmp_path / "a")
    assert saved[STATUS_ROW] == "Saved at pulse 18."
    detour = play(capsys, fight + "S" + "hhh", tmp_path / "b")
    assert map_rows(detour, 0, 7) != map_rows(saved, 0, 7)
    loaded = play(capsys, fight + "S" + "hhh" + "L", tmp_path / "c")
    assert loaded[STATUS_ROW] == "Loaded the save of pulse 18."
    assert loaded[:STATUS_ROW] == saved[:STATUS_ROW]
    assert loaded[STATUS_ROW + 1:] == saved[STATUS_ROW + 1:]
    after = "f4l<enter>l"
    assert (play(capsys, fight + "S" + "hhh" + "L" + after, tmp_path / "d")
            == play(capsys, fight + "S" + after, tmp_path / "e"))
    world_save = (tmp_path / "c" / "dungeon.save").read_bytes()
    assert world_save.lstrip().startswith(b"{")  # data (JSON), never pickle


def test_load_with_no_save_says_so_and_changes_nothing(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    before = play(capsys, "lll", tmp_path)
    screen = play(capsys, "lllL", tmp_path)
    assert screen[STATUS_ROW] == "There is no save to load."
    assert screen[:STATUS_ROW] == before[:STATUS_ROW]


@pytest.mark.parametrize(("field", "value", "says"), [
    ("pulse", 99, "Cannot load dungeon.json: it is of pulse 99, the world of pulse 6"),
    ("explored", ["#"], "Cannot load dungeon.json: its map is (1, 1), the world's (52, 17)"),
    ("log", None, "Cannot load dungeon.json: 'NoneType' object is not iterable"),
])
def test_a_damaged_save_is_refused_and_the_game_goes_on(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, field: str, value: object,
        says: str) -> None:
    """The game's own half of a save is checked against the world's half: a load of a
    pair that does not belong together, or of an edited file, says why and changes
    nothing."""
    import json

    play(capsys, "lllS", tmp_path)
    state_file = tmp_path / "dungeon.json"
    state = json.loads(state_file.read_text(encoding="utf-8"))
    state[field] = value
    state_file.write_text(json.dumps(state), encoding="utf-8")
    screen = play(capsys, "llllL", tmp_path)
    assert screen[STATUS_ROW].startswith(says)
    assert screen[:STATUS_ROW] == play(capsys, "llll", tmp_path)[:STATUS_ROW]


def test_a_map_bigger_than_the_screen_is_refused(capsys: pytest.CaptureFixture[str],
                                                 tmp_path: Path) -> None:
    scenario = tmp_path / "wide.toml"
    scenario.write_text(LOCKED.replace('"#####", "#..L#", "#####"',
                                       '"' + "#" * 60 + '", "#..' + "." * 56 + '#", "'
                                       + "#" * 60 + '"'), encoding="utf-8")
    main = _example("main")
    assert main.main(["--headless", "--scenario", str(scenario),
                      "--save-dir", str(tmp_path)]) == 1
    assert capsys.readouterr().err == (f"dungeon: {scenario}: the map is 60 x 3 cells; the "
                                       "screen shows 52 x 17\n")


def test_a_save_that_cannot_be_written_says_why(capsys: pytest.CaptureFixture[str],
                                                tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("", encoding="utf-8")
    screen = play(capsys, "lS", blocker / "saves")
    assert screen[STATUS_ROW].startswith("Cannot save: [Errno 20] Not a directory")


LOCKED = """
name = "locked"
pulses = 0

[map]
rows = ["#####", "#..L#", "#####"]

[[creatures]]
id = "hero"
template = "human_mage"
player = true
at = [1, 1]
"""


def test_a_locked_door_stays_shut(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    scenario = tmp_path / "locked.toml"
    scenario.write_text(LOCKED, encoding="utf-8")
    screen = play(capsys, "ll", tmp_path, "--scenario", str(scenario))
    assert map_rows(screen, 0, 2) == ["####", "#.@+", "####"]  # nothing seen through it
    assert screen[STATUS_ROW] == "The door at [3, 1] is locked."
    assert sidebar(screen)[3] == "Pulse 2  round 0"  # the bump took no time


# -- what is drawn as it happens -------------------------------------------------------------
PUSH = """
name = "push"
seed = 1
pulses = 0

[map]
rows = ["#########", "#.......#", "#.......#", "#########"]

[[creatures]]
id = "hero"
template = "human_mage"
player = true
skills = { shove = 100 }
at = [1, 1]

[[creatures]]
id = "ogre"
template = "orc_brute"
hp = 60
mind = "sentry"
at = [4, 1]

[content.spells.shove]
type = "force"
shape = "bolt"
damage = "30"
save = "none"
"""


def test_a_push_is_drawn_as_an_arrow_from_where_it_started(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A force bolt that takes a third of the ogre's maximum knocks it a cell away from
    the caster (R-FORCE-1); the turn draws the bolt's path `*` and the push `→` on the
    cell it left (the ogre, attacked, then comes back to fight)."""
    scenario = tmp_path / "push.toml"
    scenario.write_text(PUSH, encoding="utf-8")
    screen = play(capsys, "f1<enter>", tmp_path, "--scenario", str(scenario), seed=1)
    assert map_rows(screen, 0, 3) == ["#########", "#@o*→...#", "#.......#", "#########"]
    assert "ogre is knocked from [4, 1] to [5, 1]." in log(screen)


DEAD = """
name = "dead"
seed = 1
pulses = 0

[map]
rows = ["######", "#....#", "######"]

[[creatures]]
id = "hero"
template = "human_mage"
player = true
hp = 3
max_hp = 90
at = [1, 1]

[[creatures]]
id = "orc"
template = "orc_brute"
mind = "brute"
at = [2, 1]
"""


def test_death_marks_the_cell_and_only_load_or_quit_remain(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """The orc kills the hero: `x` where it fell, DEAD in the sidebar; a dead hero
    saves nothing, and L brings back the save made before."""
    scenario = tmp_path / "dead.toml"
    scenario.write_text(DEAD, encoding="utf-8")
    saves = tmp_path / "saves"
    alive = play(capsys, "...S", saves, "--scenario", str(scenario), seed=1)
    dead = play(capsys, "...Sl", saves, "--scenario", str(scenario), seed=1)
    assert map_rows(dead, 0, 2) == ["######", "#xo..#", "######"]
    assert sidebar(dead)[4:6] == ["DEAD", "Mode: dead"]
    assert log(dead)[-1] == "orc stops fighting: hero is dead."
    refused = play(capsys, "...SlSj", saves, "--scenario", str(scenario), seed=1)
    assert refused[STATUS_ROW] == "You are dead. L loads your save, q quits."
    assert play(capsys, "...SlS", saves, "--scenario", str(scenario), seed=1)[STATUS_ROW] == \
        "The dead save nothing: L loads your last save."
    back = play(capsys, "...SlL", saves, "--scenario", str(scenario), seed=1)
    assert back[:STATUS_ROW] == alive[:STATUS_ROW]
    assert back[STATUS_ROW] == "Loaded the save of pulse 36."


def test_the_turn_marks_are_drawn_over_the_map() -> None:
    """Each kind of mark on its cell: a cast's cell `*`, a push's arrow, a death `x`,
    and the backgrounds of an arc's and a water strike's creature and a changed cell."""
    import tcod.console

    game_module, render = _example("game"), _example("render_functions")
    handlers = _example("input_handlers")
    game = game_module.Game.new(DUNGEON / "dungeon.toml", 3, Path("/nonexistent"))
    game.turn = game_module.TurnMarks(cast_cells=[(3, 2)], pushes=[((6, 2), (5, 1))],
                                      deaths=[(4, 4)], arcs=[(5, 3)], changed=[(7, 4)])
    console = tcod.console.Console(render.WIDTH, render.HEIGHT, order="C")
    render.render(console, game, handlers.MainHandler(game))
    text = render.console_text(console)
    assert text[2][3] == "*" and text[2][6] == "↖" and text[4][4] == "x"
    assert tuple(console.bg[3, 5]) == render.ARC_BG and text[3][5] == "@"
    assert tuple(console.bg[4, 7]) == render.CHANGED_BG
    game.turn = game_module.TurnMarks(water=[(5, 3)])
    render.render(console, game, handlers.MainHandler(game))
    assert tuple(console.bg[3, 5]) == render.WATER_BG


# -- keys --------------------------------------------------------------------------------
def test_keys_are_named_the_same_from_text_and_from_a_terminal() -> None:
    handlers, terminal = _example("input_handlers"), _example("terminal")
    assert handlers.parse_keys("lf<enter>\n<ESC>\x1b<up>S<x") == [
        "l", "f", "enter", "enter", "escape", "escape", "up", "S", "<", "x"]
    assert list(terminal.split_keys("l\r\x1b[A\x1bOD\x1b1S")) == [
        "l", "enter", "up", "left", "escape", "1", "S"]


def test_the_window_is_the_default_mode_and_needs_a_display(tmp_path: Path) -> None:
    """Without --headless or --terminal the game opens a tcod window; where no video
    driver can start it says so and exits 2 (SDL told to use a driver that is not)."""
    main = _example("main")
    assert main.mode_of(main.parse_args([])) == "window"
    assert main.mode_of(main.parse_args(["--terminal"])) == "terminal"
    env = {**os.environ, "SDL_VIDEODRIVER": "affray-no-such-driver",
           "SDL_VIDEO_DRIVER": "affray-no-such-driver"}
    done = subprocess.run([sys.executable, str(MAIN), "--save-dir", str(tmp_path)],
                          capture_output=True, text=True, timeout=120, env=env, check=False)
    assert done.returncode == 2
    assert ("the window needs a display" in done.stderr
            or "no monospace font found" in done.stderr), done.stderr


WINDOW_SCRIPT = """
import sys
sys.path.insert(0, sys.argv[1])
import tcod.event
from tcod.event import KeyDown, KeySym, Modifier, Scancode
import main

def key(sym, scancode, mod=Modifier(0)):
    return KeyDown(scancode=scancode, sym=sym, mod=mod)

batches = iter([[key(KeySym.L, Scancode.L)],
                [key(KeySym.L, Scancode.L), key(KeySym.J, Scancode.J)],
                [key(KeySym.Q, Scancode.Q)]])
tcod.event.wait = lambda timeout=None: next(batches)  # the keys a player would press
session = main.Session(main.Game.new(main.SCENARIO, 3, main.Path(sys.argv[2])))
print(main.play_window(session), session.game.hero["at"], session.game.snapshot["pulse"])
print(main.key_of(key(KeySym.S, Scancode.S, Modifier.LSHIFT)),
      main.key_of(key(KeySym.RETURN, Scancode.RETURN)),
      main.key_of(key(KeySym.PERIOD, Scancode.PERIOD)))
"""


def test_the_window_plays_on_sdl_s_dummy_video_driver(tmp_path: Path) -> None:
    """The window mode's loop for real (a tcod context, present, the key events), on
    SDL's dummy driver, which needs no display; the events are handed in by replacing
    tcod.event.wait: l, then l and j, then q. Shift makes a capital (S saves)."""
    script = tmp_path / "window.py"
    script.write_text(WINDOW_SCRIPT, encoding="utf-8")
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_VIDEO_DRIVER": "dummy"}
    done = subprocess.run([sys.executable, str(script), str(DUNGEON), str(tmp_path)],
                          capture_output=True, text=True, timeout=120, env=env, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["0 [7, 4] 6", "S enter ."]


# -- the terminal mode under tmux ---------------------------------------------------------------
def _no_tmux() -> None:
    message = ("NO TMUX: the dungeon's terminal test did not run (tmux is not installed; "
               "apt-get install -y tmux)")
    if os.environ.get("AFFRAY_REQUIRE_TMUX") == "1":
        pytest.fail(message)
    warnings.warn(message, stacklevel=2)
    print(f"\n*** {message} ***")
    pytest.skip(message)


class Tmux:
    """A private tmux server (its own socket) holding one 80 x 24 session."""

    def __init__(self, tmp_path: Path) -> None:
        self.socket = f"affray-dungeon-{os.getpid()}"
        self.config = tmp_path / "tmux.conf"
        self.config.write_text("set -g remain-on-exit on\nset -g default-shell /bin/sh\n",
                               encoding="utf-8")

    def __call__(self, *args: str) -> str:
        done = subprocess.run(["tmux", "-L", self.socket, "-f", str(self.config), *args],
                              capture_output=True, text=True, timeout=30, check=True)
        return done.stdout

    def screen(self) -> list[str]:
        return [row.rstrip() for row in self("capture-pane", "-p", "-t", "game").split("\n")]

    def wait_for(self, wanted: list[str], what: str) -> None:
        """Poll the pane until it shows `wanted` (a wait, not a timing: a slow machine
        only waits longer; 60 s without it fails, showing the pane)."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.screen()[:len(wanted)] == wanted:
                return
            time.sleep(0.1)
        assert self.screen()[:len(wanted)] == wanted, what

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True,
                       check=False)


def test_the_terminal_mode_plays_under_tmux_as_headless_does(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """`--terminal` in a detached tmux session: send-keys plays it, capture-pane shows
    the screen headless mode prints for the same keys; `q` quits with status 0."""
    if shutil.which("tmux") is None:
        _no_tmux()
    keys = "lllllllll" + "f4l"
    expected = [row.rstrip() for row in play(capsys, keys, tmp_path / "headless")]
    start = [row.rstrip() for row in play(capsys, "", tmp_path / "headless")]
    saved = [row.rstrip() for row in play(capsys, keys + "<esc>S", tmp_path / "headless")]
    tmux = Tmux(tmp_path)
    status = tmp_path / "status"  # the game's exit status (tmux's pane_dead_status can
    # stay empty when the pty closes before tmux reaps the process)
    command = " ".join(shlex.quote(part) for part in (
        sys.executable, str(MAIN), "--terminal", "--seed", "3",
        "--save-dir", str(tmp_path / "terminal"))) + f"; echo $? > {shlex.quote(str(status))}"
    try:
        tmux("new-session", "-d", "-s", "game", "-x", "80", "-y", "24", command)
        tmux.wait_for(start, "the first screen")
        tmux("send-keys", "-t", "game", "-l", keys)
        tmux.wait_for(expected, "the screen after the keys")
        tmux("send-keys", "-t", "game", "Escape")
        tmux("send-keys", "-t", "game", "-l", "S")
        tmux.wait_for(saved, "the screen after Escape and S")
        tmux("send-keys", "-t", "game", "-l", "q")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not status.exists():
            time.sleep(0.1)
        assert status.read_text(encoding="utf-8") == "0\n"
        assert (tmp_path / "terminal" / "dungeon.save").exists()
    finally:
        tmux.close()


# -- the README stays true -------------------------------------------------------------------
def _blocks(text: str, language: str) -> list[str]:
    parts = text.split("```")
    return [part.removeprefix(language).lstrip("\n") for part in parts[1::2]
            if part.startswith(language + "\n")]


def test_the_readme_screen_is_what_its_keys_give(capsys: pytest.CaptureFixture[str],
                                                tmp_path: Path) -> None:
    readme = (DUNGEON / "README.md").read_text(encoding="utf-8")
    shown = next(block for block in _blocks(readme, "") if block.startswith("####"))
    assert '--keys "lllllllllf4k<enter>"' in readme
    screen = [row.rstrip() for row in play(capsys, "lllllllllf4k<enter>", tmp_path)]
    assert shown.rstrip("\n").split("\n") == "\n".join(screen).rstrip("\n").split("\n")


def test_the_readme_code_excerpts_are_the_example_s_code() -> None:
    """Every line of the walk-through's Python excerpts (but `...`) is a line of the
    example's modules, so the guide cannot drift from the code it explains."""
    readme = (DUNGEON / "README.md").read_text(encoding="utf-8")
    source = {line.strip() for path in DUNGEON.glob("*.py")
              for line in path.read_text(encoding="utf-8").splitlines()}
    excerpts = _blocks(readme, "python")
    assert len(excerpts) >= 8
    missing = [line for block in excerpts for line in block.splitlines()
               if line.strip() and "..." not in line and line.strip() not in source]
    assert missing == []
