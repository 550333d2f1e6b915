"""The replay: keyframes and deltas decode back to every frame; the page is one
self-contained file; `affray replay` and `World.replay_html` write it (issue 13)."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest

import affray
import affray.display.replay as replay_module
from affray.cli import main as cli_main
from affray.display.replay import (
    ROUND_PULSES,
    Recorder,
    apply,
    decode_frame,
    diff,
    frame_of,
    predict,
    unpack,
)
from affray.display.text import render_events

ROOT = Path(__file__).resolve().parent.parent
LAKE_STORM = ROOT / "tests" / "data" / "lake_storm.toml"

IDLE = """
name = "idle"
pulses = {pulses}
[map]
rows = ["......", "......"]
[[creatures]]
id = "a"
at = [0, 0]
[[creatures]]
id = "b"
at = [5, 1]
"""


def checked_frame(world: affray.World) -> dict:
    """`frame_of(world)`, checked against what it claims to be: the world's snapshot plus
    `ice_cm`, each ice cell's [x, y, cm] row by row (read here from the grid itself)."""
    frame = frame_of(world)
    assert {k: v for k, v in frame.items() if k != "ice_cm"} == world.snapshot()
    ice = world.grid.ice_cm
    assert frame["ice_cm"] == [[x, y, int(ice[y, x])] for y in range(ice.shape[0])
                               for x in range(ice.shape[1]) if ice[y, x] > 0]
    return frame


def frames_by_ticking(world: affray.World, pulses: int) -> dict[int, dict]:
    """The frame after every pulse, stepping with tick() (no idle jumps)."""
    frames = {world.pulse: checked_frame(world)}
    for _ in range(pulses):
        world.tick()
        frames[world.pulse] = checked_frame(world)
    return frames


def page_data(path: Path) -> dict:
    """The replay data inlined in a page."""
    html = path.read_text(encoding="utf-8")
    blob = re.search(r'<script id="replay-data"[^>]*>([^<]*)</script>', html)
    assert blob is not None
    return unpack(blob.group(1))


@pytest.mark.parametrize("source", ["demo", "lake_storm"])
def test_replay_decodes_back_to_every_frame(source):
    """Every frame the recorder saw, keyframe or not, decodes back exactly, and each
    keyframe is the snapshot (plus ice thickness) of its pulse."""
    path = affray.builtin_scenario("demo") if source == "demo" else LAKE_STORM
    world = affray.load_scenario(path)
    recorder = world.record()
    frames = frames_by_ticking(world, world.end_pulse)
    data = recorder.data(world)
    assert data["start"] == 0 and data["end"] == world.end_pulse
    for pulse, frame in frames.items():
        assert decode_frame(data, pulse) == frame, pulse
    assert data["keyframes"]
    for key in data["keyframes"]:
        assert key == frames[key["pulse"]]  # the snapshot plus ice_cm (checked_frame)
    world.close()


def test_keyframes_fall_on_rounds_only_when_something_changed():
    """A keyframe at the start, then at most one a round, and only where the frame
    differs from the last keyframe: a fight of a few rounds has a few."""
    world = affray.load_scenario(affray.builtin_scenario("demo"))
    recorder = world.record()
    world.run()
    pulses = [key["pulse"] for key in recorder.keyframes]
    assert pulses[0] == 0 and len(pulses) >= 2  # a few, so the pairs below are compared
    assert all(p % ROUND_PULSES == 0 for p in pulses)
    assert len(pulses) <= world.pulse // ROUND_PULSES + 1
    for earlier, later in zip(recorder.keyframes, recorder.keyframes[1:], strict=False):
        assert {**earlier, "pulse": 0} != {**later, "pulse": 0}
    world.close()


def melee_text(pairs: int, pulses: int) -> str:
    """`pairs` warriors each fighting an orc or a kobold beside it on an open floor."""
    width = 3 * 10 + 2
    rows = ["#" * width] + ["#" + "." * (width - 2) + "#"] * (pairs // 10 + 1) + ["#" * width]
    lines = [f'name = "melee"\nseed = 5\npulses = {pulses}\n[map]\nrows = {rows!r}']
    for i in range(pairs):
        x, y = 1 + 3 * (i % 10), 1 + i // 10
        foe = "kobold" if i % 2 else "orc_brute"
        lines.append(f'[[creatures]]\nid = "w{i}"\ntemplate = "human_warrior"\nat = [{x}, {y}]'
                     f'\n[[creatures]]\nid = "f{i}"\ntemplate = "{foe}"\nat = [{x + 1}, {y}]'
                     f'\nfighting = "w{i}"')
    return "\n".join(lines).replace("'", '"')


def test_a_crowded_melee_keyframes_on_rounds_and_decodes_everywhere(make_world):
    """40 fights at once for 400 pulses: several keyframes, each on a round boundary and
    each the snapshot of its pulse; every pulse between decodes exactly."""
    world = make_world(melee_text(40, 400))
    recorder = world.record()
    frames = frames_by_ticking(world, 400)
    data = recorder.data(world)
    pulses = [key["pulse"] for key in data["keyframes"]]
    assert len(pulses) >= 3
    assert all(p % ROUND_PULSES == 0 for p in pulses)
    for key in data["keyframes"]:
        assert key == frames[key["pulse"]]
    for pulse, frame in frames.items():
        assert decode_frame(data, pulse) == frame, pulse


def test_recording_through_idle_jumps_matches_ticking():
    """World.run jumps idle pulses; the replay it records still decodes, at every pulse,
    to the frames of the same world stepped tick by tick (lag counted down between)."""
    path = affray.builtin_scenario("demo")
    jumped = affray.load_scenario(path)
    recorder = jumped.record()
    jumped.run(200)
    stepped = affray.load_scenario(path)
    frames = frames_by_ticking(stepped, 200)
    data = recorder.data(jumped)
    for pulse in range(0, 201):
        assert decode_frame(data, pulse) == frames[pulse], pulse
    jumped.close()
    stepped.close()


def test_a_long_idle_fight_stays_small(make_world, tmp_path):
    """10,000 idle pulses: one keyframe, no delta, a page about as big as an empty one,
    whether the world ticks every pulse or jumps the idle stretch."""
    for jump in (True, False):
        world = make_world(IDLE.format(pulses=10_000))
        recorder = world.record()
        if jump:
            world.run()
        else:
            for _ in range(10_000):
                world.tick()
        assert world.pulse == 10_000
        assert len(recorder.keyframes) == 1
        assert recorder.deltas == []
        path = world.replay_html(tmp_path / f"idle-{jump}.html")
        assert path.stat().st_size < 40_000
        assert decode_frame(page_data(path), 9_999)["pulse"] == 9_999


def test_lag_counting_down_costs_no_delta(make_world):
    """R-LAG-1: wait counts down one a pulse; the prediction covers it, so the pulses
    of a cast's 12 beats add nothing after the cast itself."""
    world = make_world(IDLE.format(pulses=30))
    world.set_wait("a", 12)
    recorder = world.record()
    frames = frames_by_ticking(world, 20)
    assert frames[5]["creatures"]["a"]["wait"] == 7
    assert recorder.deltas == []
    data = recorder.data(world)
    assert decode_frame(data, 5)["creatures"]["a"]["wait"] == 7
    assert decode_frame(data, 20)["creatures"]["a"]["wait"] == 0


def test_diff_and_apply_round_trip():
    """diff/apply by hand: a row of the map, one creature's field, a new list."""
    before = {"pulse": 3, "map": ["..", "~~"], "creatures": {
        "a": {"at": [0, 0], "hp": 10, "wait": 2, "daze": 0},
        "b": {"at": [1, 0], "hp": 5, "wait": 0, "daze": 0}}, "fires": [], "items": []}
    after = copy.deepcopy(predict(before))
    after["map"][1] = "~_"
    after["creatures"]["b"]["hp"] = -2
    after["fires"] = [{"at": [1, 1], "pulses_left": 9}]
    changes = diff(predict(before), after)
    assert changes == {"map": [[1, "~_"]], "creatures": {"b": {"hp": -2}},
                       "fires": [{"at": [1, 1], "pulses_left": 9}]}
    assert apply(predict(before), changes) == after
    assert predict(before)["creatures"]["a"]["wait"] == 1
    assert diff(after, after) == {}


def test_page_is_self_contained_with_every_event_and_its_text(tmp_path):
    """One file: the script and data inline, nothing fetched (no URL at all); every
    event of the run is in it with its player text (affray.display.text)."""
    world = affray.load_scenario(LAKE_STORM)
    path = world.replay_html(tmp_path / "storm.html")
    html = path.read_text(encoding="utf-8")
    assert "://" not in html
    assert "<link" not in html and " src=" not in html
    data = page_data(path)
    assert [event["text"] for event in data["events"]] == render_events(world.events)
    assert data["creatures"]["kobold1"]["glyph"] == "k"
    assert data["creatures"]["orc1"]["glyph"] == "o"
    assert data["creatures"]["stormcaller"]["glyph"] == "@"
    world.close()


def test_casts_keep_the_cells_they_reached():
    """The cells each cast reached come from the Spell system's cast records: one entry
    per cast event, same pulse, caster and spell."""
    world = affray.load_scenario(LAKE_STORM)
    recorder = world.record()
    world.run()
    casts = [e for e in world.events if e.kind == "cast"]
    assert [(c[0], c[1], c[2]) for c in recorder.casts] == \
        [(e.pulse, e.actor, e.spell) for e in casts]
    assert all(cells for *_head, cells in recorder.casts)
    world.close()


def test_replay_html_records_from_the_start_when_not_recording(tmp_path):
    """`World.replay_html` on a fresh world records while running it to its end; on a
    recording world it writes what was recorded."""
    world = affray.load_scenario(affray.builtin_scenario("demo"))
    path = world.replay_html(tmp_path / "a.html")
    assert world.pulse == world.end_pulse
    data = page_data(path)
    assert (data["start"], data["end"]) == (0, world.end_pulse)
    world.close()
    world = affray.load_scenario(affray.builtin_scenario("demo"))
    assert isinstance(world.record(), Recorder)
    world.run(30)
    data = page_data(world.replay_html(tmp_path / "b.html"))
    assert (data["start"], data["end"]) == (0, 30)
    world.close()


def test_cli_replay_of_a_scenario_and_of_a_save(tmp_path, capsys):
    """`affray replay SCENARIO|SAVE [--seed N] [--pulses N] -o FILE`."""
    out = tmp_path / "demo.html"
    scenario = str(affray.builtin_scenario("demo"))
    assert cli_main(["replay", scenario, "--pulses", "40", "--seed", "3", "-o", str(out)]) == 0
    assert "wrote" in capsys.readouterr().out
    data = page_data(out)
    assert (data["start"], data["end"], data["seed"]) == (0, 40, 3)

    world = affray.load_scenario(scenario)
    world.run(20)
    save = tmp_path / "fight.save"
    world.save(str(save))
    world.close()
    assert cli_main(["replay", str(save), "-o", str(out)]) == 0
    data = page_data(out)
    assert data["start"] == 20 and data["end"] >= 20
    assert all(event["pulse"] >= 20 for event in data["events"])
    assert cli_main(["replay", str(save), "--seed", "1", "-o", str(out)]) == 1
    assert "--seed" in capsys.readouterr().err


def test_cli_replay_bad_input_is_one_clear_error(tmp_path, capsys):
    """A missing file or a content file is exit 1 with one message naming the file;
    a missing -o is a usage error (exit 2)."""
    missing = tmp_path / "nope.toml"
    assert cli_main(["replay", str(missing), "-o", str(tmp_path / "x.html")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("affray: ") and str(missing) in err and err.count("\n") == 1
    assert not (tmp_path / "x.html").exists()
    content = ROOT / "content" / "spells.toml"
    assert cli_main(["replay", str(content), "-o", str(tmp_path / "x.html")]) == 1
    assert str(content) in capsys.readouterr().err
    with pytest.raises(SystemExit) as stopped:
        cli_main(["replay", str(LAKE_STORM)])
    assert stopped.value.code == 2


def test_python_m_affray_replay_writes_the_page(tmp_path):
    """The installed command end to end: `python -m affray replay ... -o FILE`."""
    import subprocess
    import sys

    out = tmp_path / "storm.html"
    result = subprocess.run([sys.executable, "-m", "affray", "replay", str(LAKE_STORM),
                             "--pulses", "30", "-o", str(out)], capture_output=True, text=True,
                            timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    assert f"wrote {out}: pulses 0-30" in result.stdout
    assert page_data(out)["end"] == 30


# -- idle stretches and `--until settled` (the audit: a replay that never ended) --------------
DUEL = ROOT / "content" / "scenarios" / "duel.toml"


def endless_duel(tmp_path: Path) -> Path:
    """The built-in duel with the largest `pulses` a scenario may have (2**63 - 1):
    `affray run` ends it at once by jumping the idle pulses after the fight."""
    text = DUEL.read_text(encoding="utf-8").replace("pulses = 100000",
                                                    "pulses = 9223372036854775807")
    path = tmp_path / "endless.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_recording_a_jump_is_one_prediction_however_long(monkeypatch):
    """R-LAG-1 / R-TIME-1: the recorder meets a jumped idle stretch with one prediction
    (lag counted down by the gap), never one per pulse jumped: the duel's 99,700 idle
    pulses after its fight cost what a pulse does."""
    calls = []
    real = replay_module.predict

    def counting(frame, pulses=1):
        calls.append(pulses)
        return real(frame, pulses)

    monkeypatch.setattr(replay_module, "predict", counting)
    world = affray.load_scenario(DUEL)
    recorder = world.record()
    world.run()
    assert world.pulse == 100_000
    assert len(calls) <= len(world.events) + 300  # about one a pulse run, not 100,000
    assert max(calls) > 99_000  # the idle tail, in one step
    data = recorder.data(world)
    world.close()
    stepped = affray.load_scenario(DUEL)
    frames = frames_by_ticking(stepped, 300)
    stepped.close()
    for pulse in (0, 100, 252, 253, 264, 265, 300):
        assert decode_frame(data, pulse) == frames[pulse], pulse
    assert decode_frame(data, 100_000) == {**frames[300], "pulse": 100_000}


def test_predict_over_a_gap_is_the_pulses_one_by_one():
    """R-LAG-1: predicting n pulses at once counts wait and daze down by n, never below
    0, and fires' pulses_left by n: the same as n single predictions."""
    frame = {"pulse": 10, "map": ["."], "creatures": {
        "a": {"at": [0, 0], "wait": 5, "daze": 30}, "b": {"at": [0, 0], "wait": 0, "daze": 0}},
        "fires": [{"at": [0, 0], "pulses_left": 200}, {"at": [0, 0], "pulses_left": None}]}
    one_by_one = frame
    for _ in range(12):
        one_by_one = predict(one_by_one)
    assert predict(frame, 12) == one_by_one
    assert predict(frame, 12)["creatures"]["a"] == {"at": [0, 0], "wait": 0, "daze": 18}
    assert predict(frame, 12)["fires"] == [{"at": [0, 0], "pulses_left": 188},
                                          {"at": [0, 0], "pulses_left": None}]
    assert predict(frame, 2**62)["pulse"] == 10 + 2**62


def test_replay_of_an_endless_scenario_ends_and_stays_small(tmp_path):
    """`affray replay` on a scenario of 2**63 - 1 pulses, which `affray run` ends in under
    a second: the page spans them all from a keyframe or two (a few KB), says where the
    last event was, and `--until settled` ends it at the settled pulse instead."""
    import subprocess
    import sys

    scenario = endless_duel(tmp_path)
    out = tmp_path / "endless.html"
    done = subprocess.run([sys.executable, "-m", "affray", "replay", str(scenario), "-o",
                           str(out)], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"wrote {out}: pulses 0-9223372036854775807 (last event at "
                                  "pulse 252; --until settled stops once nothing more can "
                                  "happen), ")
    data = page_data(out)
    assert (data["start"], data["end"], data["settled"]) == (0, 2**63 - 1, None)
    assert out.stat().st_size < 40_000
    assert decode_frame(data, 2**63 - 1)["creatures"]["orc"]["alive"] is False

    settled = tmp_path / "settled.html"
    done = subprocess.run([sys.executable, "-m", "affray", "replay", str(scenario), "--until",
                           "settled", "-o", str(settled)], capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    world = affray.load_scenario(scenario)
    world.run(until="settled")
    at = world.pulse
    world.close()
    assert done.stdout.startswith(f"wrote {settled}: pulses 0-{at} (settled), ")
    data = page_data(settled)
    # The page runs to "pulse <settled>", the frame after it, where the settled line is.
    assert (data["start"], data["end"], data["settled"]) == (0, at + 1, at)
    assert data["events"][-1] == {"pulse": at, "kind": "settled",
                                  "text": "All is still: nothing is left to happen."}
    assert settled.stat().st_size < 40_000


def test_replay_html_until_settled_from_python(tmp_path):
    """`World.replay_html(path, until="settled")` and `affray.display.replay.record(world,
    until="settled")` stop where `run(until="settled")` does; a bad `until` or `pulses`
    is a UsageError that leaves the world unrecorded and where it was."""
    from affray.display.replay import record

    world = affray.load_scenario(DUEL)
    data = page_data(world.replay_html(tmp_path / "duel.html", until="settled"))
    settled_at = world.pulse
    assert world.events[-1].kind == "settled" and settled_at < 300
    assert (data["end"], data["settled"]) == (settled_at + 1, settled_at)
    assert decode_frame(data, settled_at + 1) == {**frame_of(world), "pulse": settled_at + 1}
    world.close()
    world = affray.load_scenario(DUEL)
    for bad in ({"until": "dead"}, {"pulses": -1}, {"pulses": "9"}):
        with pytest.raises(affray.UsageError):
            record(world, **bad)
        assert world.recorder is None and world.pulse == 0
    world.close()


def test_the_replay_message_hints_at_until_settled_only_when_it_would_help(tmp_path, capsys):
    """`affray replay` names the last event's pulse only when the world had settled
    well before the end it ran to; a fight still going at the end gets no such hint."""
    out = tmp_path / "duel.html"
    assert cli_main(["replay", str(DUEL), "--pulses", "100", "-o", str(out)]) == 0
    assert capsys.readouterr().out == f"wrote {out}: pulses 0-100, {out.stat().st_size} bytes\n"
    assert cli_main(["replay", str(DUEL), "-o", str(out)]) == 0
    assert capsys.readouterr().out == (
        f"wrote {out}: pulses 0-100000 (last event at pulse 252; --until settled stops once "
        f"nothing more can happen), {out.stat().st_size} bytes\n")
