"""Saving and loading worlds (R-ENG-3): continue exactly, data not pickle, clear errors.

R-ENG-3: "A world can be saved and loaded; save, load and continue gives the same event
log as never stopping. Saves are data (JSON or msgspec), never pickle, and a corrupt save
is a clear error."
"""

from __future__ import annotations

import ast
import gc
import hashlib
import inspect
import json
from pathlib import Path
from typing import Any

import esper
import pytest
from conftest import world_from_text

import affray
import affray.core.rng
import affray.data.save
from affray.components import ItemStack
from affray.core.actions import ActionQueue
from affray.core.grid import Terrain

# A scenario with something in every part of a save: inline content (a spell with 30
# beats of wait), templates, gear, statuses, affects, a fight, a stunned creature whose
# action is refused, items, a chest with contents, a door, water, moves and casts queued
# behind a long wait, and a scripted action far in the future.
RICH = """
name = "save drill"
seed = 11
pulses = 20

[map]
rows = [
  "############",
  "#....~~~...#",
  "#...~~_~~..#",
  "#....~_~...#",
  "#..........#",
  "#..........#",
  "#####+######",
]

[[creatures]]
id = "mage"
template = "human_mage"
at = [1, 1]
statuses = { burning = 1 }
affects = ["sanctuary"]
wield = "dagger"
wear = ["leather_armor"]
skills = { dodge = 50 }

[[creatures]]
id = "warrior"
template = "human_warrior"
at = [2, 4]
fighting = "kobold"
wield = "long_sword"
wear = ["chain_mail", "leather_cap"]

[[creatures]]
id = "kobold"
template = "kobold"
at = [3, 4]
hp = 400
damage = "1d4+1"
defences = ["dodge"]
imm = ["lightning"]

[[creatures]]
id = "sleeper"
template = "kobold"
at = [9, 4]
affects = ["stun", "paralysis"]  # paralysis: the stun does not wear off out of combat

[[items]]
at = [9, 3]
item = "scroll"
count = 3

[[items]]
at = [10, 1]
item = "wooden_chest"
contents = [{ item = "gold_coins", count = 20 }]

[[items]]
at = [1, 5]
item = "potion"

[[actions]]
pulse = 0
actor = "mage"
cast = "test_bolt"
target = "kobold"

[[actions]]
pulse = 0
actor = "mage"
move = [2, 1]

[[actions]]
pulse = 0
actor = "warrior"
attack = "kobold"

[[actions]]
pulse = 1
actor = "kobold"
move = [3, 3]

[[actions]]
pulse = 2
actor = "sleeper"
move = [9, 5]

[[actions]]
pulse = 5
actor = "mage"
move = [2, 2]

[[actions]]
pulse = 5
actor = "warrior"
cast = "spark"
target = [5, 4]
via = "scroll"

[[actions]]
pulse = 9
actor = "kobold"
move = [3, 4]

[[actions]]
pulse = 40
actor = "mage"
move = [3, 2]

[content.spells.test_bolt]
type = "lightning"
shape = "bolt"
range = 8
damage = "20"
beats = 30
"""

RICH_END = 60  # last action at pulse 40, then `pulses = 20`


def _log(world: affray.World) -> list[dict[str, Any]]:
    return [event.to_dict() for event in world.events]


def _finished(text: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The event log and final snapshot of a world that is never saved."""
    world = world_from_text(text)
    try:
        world.run()
        assert world.pulse == RICH_END
        return _log(world), world.snapshot()
    finally:
        world.close()


@pytest.fixture(scope="module")
def rich_reference() -> tuple[list[dict[str, Any]], dict[str, Any]]:
    return _finished(RICH)


def _read(path: Path) -> tuple[dict[str, Any], bytes]:
    head, newline, payload = path.read_bytes().partition(b"\n")
    assert newline == b"\n"
    return json.loads(head), payload


# -- continuing exactly ------------------------------------------------------------------


def test_rich_reference_exercises_queues_waits_fights_and_refusals(rich_reference):
    """The reference run does what the save-point tests rely on (R-LAG-2, R-TIME-2).

    The mage's cast gives it 30 pulses of wait (the inline spell's beats), so its two
    queued moves run at pulses 30 and 32 and its scripted move at 40; the stunned
    sleeper's move is refused (a paralysis stun lasts out of combat); the warrior and
    the (400 hp) kobold fight a round every 12 pulses from pulse 0, so saves at 13 and
    30 fall inside a fight that draws on the random stream.
    """
    log, final = rich_reference
    moves = [(e["pulse"], e["target"], e["from"], e["to"]) for e in log
             if e["kind"] == "moved"]
    assert moves == [(1, "kobold", [3, 4], [3, 3]), (9, "kobold", [3, 3], [3, 4]),
                     (30, "mage", [1, 1], [2, 1]), (32, "mage", [2, 1], [2, 2]),
                     (40, "mage", [2, 2], [3, 2])]
    assert {"pulse": 2, "kind": "refused", "actor": "sleeper", "action": "move",
            "reason": "stunned"} in log
    melee_pulses = {e["pulse"] for e in log
                    if e.get("cause") == "melee" or e["kind"] == "defended"}
    assert melee_pulses == {0, 12, 24, 36, 48}
    assert final["pulse"] == RICH_END
    assert final["creatures"]["mage"]["at"] == [3, 2]
    assert final["creatures"]["kobold"]["alive"] is True


@pytest.mark.parametrize("save_at", [0, 1, 3, 12, 13, 30, 59, RICH_END])
def test_save_load_continue_matches_never_stopping(tmp_path, rich_reference, save_at):
    """R-ENG-3: save at `save_at`, load, run to the end: same events, same final state."""
    reference_log, reference_final = rich_reference
    world = world_from_text(RICH)
    try:
        world.run(save_at)
        assert world.pulse == save_at
        path = tmp_path / "drill.sav"
        world.save(path)
    finally:
        world.close()
    loaded = affray.load_world(path)
    try:
        assert loaded.pulse == save_at
        assert loaded.name == "save drill"
        assert loaded.seed == 11
        loaded.run()
        assert loaded.pulse == RICH_END
        assert _log(loaded) == reference_log
        assert loaded.snapshot() == reference_final
    finally:
        loaded.close()


def test_save_with_pending_queue_and_scripted_actions(tmp_path, rich_reference):
    """R-ENG-3, R-LAG-2: a save taken while actions wait in a queue and in the script.

    At pulse 13 the mage still has 18 pulses of its cast's 30-pulse wait, two moves in
    its queue, and its pulse-40 move is still to be submitted; the loaded
    world holds exactly that, and finishes as the unsaved world does.
    """
    reference_log, reference_final = rich_reference
    world = world_from_text(RICH)
    try:
        world.run(13)
        assert world.wait_of("mage") == 18
        assert world.component("mage", ActionQueue).pending == [
            affray.Move(actor="mage", to=(2, 1)), affray.Move(actor="mage", to=(2, 2))]
        assert world.scripted == [(40, affray.Move(actor="mage", to=(3, 2)))]
        world.save(tmp_path / "mid.sav")
        loaded = affray.load_world(tmp_path / "mid.sav")
        try:
            assert loaded.wait_of("mage") == 18
            assert loaded.component("mage", ActionQueue).pending == [
                affray.Move(actor="mage", to=(2, 1)), affray.Move(actor="mage", to=(2, 2))]
            assert loaded.scripted == [(40, affray.Move(actor="mage", to=(3, 2)))]
            assert loaded.end_pulse == RICH_END
            assert _log(loaded) == _log(world)
            assert loaded.snapshot() == world.snapshot()
            # The original keeps going as if never saved: saving changes nothing.
            world.run()
            loaded.run()
            assert _log(world) == reference_log
            assert _log(loaded) == reference_log
            assert loaded.snapshot() == reference_final
        finally:
            loaded.close()
    finally:
        world.close()


def test_saving_a_loaded_world_again_chains(tmp_path, rich_reference):
    """R-ENG-3: save, load, run, save, load, run is still the unsaved log."""
    reference_log, reference_final = rich_reference
    world = world_from_text(RICH)
    try:
        world.run(3)
        world.save(tmp_path / "one.sav")
    finally:
        world.close()
    first = affray.load_world(tmp_path / "one.sav")
    try:
        first.run(27)
        assert first.pulse == 30
        first.save(tmp_path / "two.sav")
    finally:
        first.close()
    second = affray.load_world(tmp_path / "two.sav")
    try:
        second.run()
        assert _log(second) == reference_log
        assert second.snapshot() == reference_final
    finally:
        second.close()


@pytest.mark.parametrize("save_at", [0, 1, 13])
def test_demo_save_load_continue(tmp_path, save_at):
    """R-ENG-3: the built-in demo, saved at several pulses, finishes event for event."""
    demo = affray.builtin_scenario("demo")
    straight = affray.load_scenario(demo)
    try:
        straight.run()
        reference_log, reference_final = _log(straight), straight.snapshot()
    finally:
        straight.close()
    world = affray.load_scenario(demo)
    try:
        world.run(save_at)
        world.save(tmp_path / "demo.sav")
    finally:
        world.close()
    loaded = affray.load_world(tmp_path / "demo.sav")
    try:
        loaded.run()
        assert _log(loaded) == reference_log
        assert loaded.snapshot() == reference_final
    finally:
        loaded.close()


def test_loaded_world_saves_byte_identical(tmp_path):
    """R-ENG-3: every component, array and counter round-trips: a loaded world's save is
    the same bytes as the save it was loaded from."""
    world = world_from_text(RICH)
    try:
        world.run(13)
        world.save(tmp_path / "a.sav")
    finally:
        world.close()
    loaded = affray.load_world(tmp_path / "a.sav")
    try:
        loaded.save(tmp_path / "b.sav")
    finally:
        loaded.close()
    assert (tmp_path / "b.sav").read_bytes() == (tmp_path / "a.sav").read_bytes()


def test_dirty_terrain_is_saved_and_relabelled_after_load(tmp_path):
    """R-ENG-3, R-TERR-4: a terrain change saved before the Terrain system ran is
    relabelled on the loaded world's next pulse, exactly as on the unsaved world."""
    worlds = [world_from_text(RICH), world_from_text(RICH)]
    try:
        for world in worlds:
            world.run(2)
            world.grid.set_terrain(6, 1, Terrain.ICE, 10)  # splits the pond
        before = worlds[0].grid.labellings
        worlds[1].save(tmp_path / "dirty.sav")
        loaded = affray.load_world(tmp_path / "dirty.sav")
        try:
            assert loaded.grid.dirty is True
            assert loaded.grid.labellings == before
            for world in (worlds[0], loaded):
                world.tick()
            assert loaded.grid.labellings == before + 1
            assert worlds[0].grid.labellings == before + 1
            assert loaded.snapshot()["water_bodies"] == worlds[0].snapshot()["water_bodies"]
            assert len(loaded.snapshot()["water_bodies"]) == 2
            loaded.run()
            worlds[0].run()
            assert _log(loaded) == _log(worlds[0])
            assert loaded.snapshot() == worlds[0].snapshot()
        finally:
            loaded.close()
    finally:
        for world in worlds:
            world.close()


# -- the random stream -------------------------------------------------------------------


@pytest.mark.parametrize("drawn_before", [0, 5, 1023, 1024, 1500])
def test_random_stream_continues_exactly(tmp_path, drawn_before):
    """R-ENG-3: draws after a load equal the unsaved world's next draws.

    The generator hands out uniforms from blocks of 1024; saving part-way through a
    block, at its very end, and in a later block all continue the same stream, across
    the next block boundary too.
    """
    world = world_from_text(RICH)
    try:
        for _ in range(drawn_before):
            world.rng.random()
        world.save(tmp_path / "rng.sav")
        loaded = affray.load_world(tmp_path / "rng.sav")
        try:
            after_save = [world.rng.random() for _ in range(2100)]
            after_load = [loaded.rng.random() for _ in range(2100)]
            assert after_load == after_save
            ranges = [(w.rng.number_range(1, 100), w.rng.dice(3, 6), w.rng.percent())
                      for w in (world, loaded) for _ in range(50)]
            assert ranges[:50] == ranges[50:]
        finally:
            loaded.close()
    finally:
        world.close()


def test_random_stream_after_ticks_and_load_matches_fresh_generator(tmp_path):
    """R-ENG-3, R-GRID-6: a world's stream is fixed by its seed; saved mid-run, the
    loaded world's next draw is the draw a never-saved world of that seed makes next."""
    straight = world_from_text(RICH)
    saved = world_from_text(RICH)
    try:
        straight.run(7)
        saved.run(7)
        first = [straight.rng.random() for _ in range(10)]
        assert [saved.rng.random() for _ in range(10)] == first
        saved.save(tmp_path / "ticks.sav")
        loaded = affray.load_world(tmp_path / "ticks.sav")
        try:
            assert [loaded.rng.random() for _ in range(10)] == \
                [straight.rng.random() for _ in range(10)]
        finally:
            loaded.close()
    finally:
        straight.close()
        saved.close()


# -- entity ids and esper state ----------------------------------------------------------


def test_new_entities_after_load_get_the_same_ids(tmp_path):
    """R-ENG-3: esper's entity counter is restored, so ids made after a load match."""
    world = world_from_text(RICH)
    try:
        world.run(13)
        world.save(tmp_path / "ids.sav")
        loaded = affray.load_world(tmp_path / "ids.sav")
        try:
            assert loaded.by_id == world.by_id
            assert loaded.spawned == world.spawned
            world.enter()
            original_entities = sorted(esper.get_entities())
            loaded.enter()
            assert sorted(esper.get_entities()) == original_entities
            made_original = world.add_item("scroll", (4, 4))
            made_loaded = loaded.add_item("scroll", (4, 4))
            assert made_loaded == made_original
            assert made_original == max(original_entities) + 1
            world.enter()
            bare_original = esper.create_entity()
            loaded.enter()
            bare_loaded = esper.create_entity()
            assert bare_loaded == bare_original == made_original + 1
            assert loaded.spawned == world.spawned
        finally:
            loaded.close()
    finally:
        world.close()


def test_entity_id_gaps_survive_a_save(tmp_path):
    """R-ENG-3: after entities were deleted (an item taken away), the loaded world
    keeps the same ids, no placeholder entities, and the same next id."""
    world = world_from_text(RICH)
    try:
        world.grid.set_terrain(6, 1, Terrain.ICE, 10)
        world.tick()  # the Terrain system relabels the water bodies
        world.enter()
        item = min(entity for entity, _stack in esper.get_component(ItemStack))
        esper.delete_entity(item, immediate=True)
        entities = sorted(esper.get_entities())
        assert len(entities) < max(entities)  # there are gaps
        world.save(tmp_path / "gaps.sav")
        loaded = affray.load_world(tmp_path / "gaps.sav")
        try:
            loaded.enter()
            assert sorted(esper.get_entities()) == entities
            made_loaded = esper.create_entity()
            world.enter()
            assert esper.create_entity() == made_loaded
        finally:
            loaded.close()
    finally:
        world.close()


# -- the format: data, not pickle --------------------------------------------------------


def test_save_is_a_json_header_line_and_a_json_payload(tmp_path):
    """R-ENG-3: the file is a JSON header line (format, version, length, SHA-256) and a
    JSON payload holding the clock and the event log."""
    world = world_from_text(RICH)
    try:
        world.run(13)
        world.save(tmp_path / "data.sav")
        header, payload = _read(tmp_path / "data.sav")
        assert header == {"format": "affray-save", "version": affray.data.save.VERSION,
                          "length": len(payload),
                          "sha256": hashlib.sha256(payload).hexdigest()}
        assert affray.data.save.VERSION == 1
        body = json.loads(payload)
        assert isinstance(body, dict)
        assert body["pulse"] == 13
        assert body["end_pulse"] == RICH_END
        assert body["events"] == _log(world)
        assert body["by_id"] == world.by_id
    finally:
        world.close()


@pytest.mark.parametrize("module", [affray.data.save, affray.core.rng])
def test_save_code_never_uses_pickle(module):
    """R-ENG-3: the save and generator-state code imports no pickle-like serialiser and
    calls none (docstrings may say "never pickle")."""
    tree = ast.parse(inspect.getsource(module))
    forbidden = {"pickle", "cPickle", "_pickle", "marshal", "shelve", "dill", "cloudpickle",
                 "joblib"}
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    assert imported & forbidden == set()
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    attributes = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    assert (names | attributes) & (forbidden | {"allow_pickle", "loads_pickle"}) == set()


# -- damaged files -----------------------------------------------------------------------


@pytest.fixture
def good_save(tmp_path) -> Path:
    world = world_from_text(RICH)
    try:
        world.run(3)
        world.save(tmp_path / "good.sav")
    finally:
        world.close()
    return tmp_path / "good.sav"


def _load_error(path: Path) -> str:
    with pytest.raises(affray.SaveError) as info:
        affray.load_world(path)
    message = str(info.value)
    assert str(path) in message
    return message


@pytest.mark.parametrize("keep", ["none", "one", "half", "all_but_one"])
def test_truncated_save_is_a_save_error(good_save, keep):
    """R-ENG-3: a save cut short anywhere in its payload is a SaveError saying so."""
    blob = good_save.read_bytes()
    start = blob.index(b"\n") + 1
    payload_length = len(blob) - start
    kept = {"none": 0, "one": 1, "half": payload_length // 2,
            "all_but_one": payload_length - 1}[keep]
    good_save.write_bytes(blob[: start + kept])
    message = _load_error(good_save)
    assert f"truncated save ({kept} of {payload_length} bytes)" in message


def test_save_cut_inside_its_header_is_a_save_error(good_save):
    """R-ENG-3: cut inside the header line, the file is no longer a save."""
    blob = good_save.read_bytes()
    good_save.write_bytes(blob[:20])
    assert "not an affray save" in _load_error(good_save)


@pytest.mark.parametrize("where", [0, 0.5, -1])
def test_altered_payload_byte_is_a_checksum_error(good_save, where):
    """R-ENG-3: one payload byte changed (first, middle, last) fails the checksum."""
    blob = bytearray(good_save.read_bytes())
    start = blob.index(b"\n") + 1
    index = {0: start, 0.5: (start + len(blob)) // 2, -1: len(blob) - 1}[where]
    blob[index] = ord("7") if blob[index] != ord("7") else ord("8")
    good_save.write_bytes(bytes(blob))
    assert "checksum mismatch" in _load_error(good_save)


def test_extra_bytes_after_the_payload_are_a_save_error(good_save):
    """R-ENG-3: bytes appended to a save (say, an editor's newline) are reported."""
    good_save.write_bytes(good_save.read_bytes() + b"\n")
    assert "1 bytes more than" in _load_error(good_save)


@pytest.mark.parametrize("version", [0, 2, 99, "1", None])
def test_unknown_version_is_a_save_error(good_save, version):
    """R-ENG-3: a save of another format version is refused, naming the version."""
    header, payload = _read(good_save)
    header["version"] = version
    good_save.write_bytes(json.dumps(header).encode() + b"\n" + payload)
    message = _load_error(good_save)
    assert f"save format version {version!r} is not supported" in message


@pytest.mark.parametrize("content", [
    b"",
    b"name = 'lake'\n[map]\nrows = ['...']\n",
    b'{"format": "other", "version": 1}\n{}',
    b"[1, 2, 3]\n{}",
    b"\x89PNG\r\n\x1a\n\x00\x00",
])
def test_non_save_file_is_a_save_error(tmp_path, content):
    """R-ENG-3: a file that is not a save at all says so."""
    path = tmp_path / "other.sav"
    path.write_bytes(content)
    assert "not an affray save" in _load_error(path)


def test_missing_file_is_a_save_error(tmp_path):
    """R-ENG-3: a save that cannot be read names the file and says why."""
    path = tmp_path / "nowhere.sav"
    message = _load_error(path)
    assert "cannot read" in message
    assert "No such file or directory" in message
    assert "cannot read" in _load_error(tmp_path)  # a directory


@pytest.mark.parametrize("payload", [b"{}", b"[]", b"null", b"{not json", b'{"pulse": 3}'])
def test_well_sealed_but_malformed_payload_is_a_save_error(tmp_path, payload):
    """R-ENG-3: a payload whose checksum matches but whose content is not a world is a
    SaveError too, never a KeyError or TypeError, and leaves no esper context behind."""
    contexts = set(esper.list_worlds())
    path = tmp_path / "forged.sav"
    header = {"format": "affray-save", "version": affray.data.save.VERSION,
              "length": len(payload), "sha256": hashlib.sha256(payload).hexdigest()}
    path.write_bytes(json.dumps(header).encode() + b"\n" + payload)
    assert "malformed save payload" in _load_error(path)
    gc.collect()  # the half-built world may sit in the exception's traceback cycle
    assert set(esper.list_worlds()) <= contexts | {"default"}


# -- what a load derives: statuses index, ready set (issue: save/continue) ----------------
# A 6x3 room: "a" and "v" two cells apart (no melee), a pool at the east end.
QUIET = """
name = "quiet"
pulses = 40
[map]
rows = ["....~~", "....~~", "......"]
[[creatures]]
id = "a"
at = [0, 1]
hp = 30
[[creatures]]
id = "v"
at = [2, 1]
hp = 30
"""


def _kill(world: affray.World, creature_id: str) -> None:
    """Kill a creature between pulses (raw scripted damage, the API's own way)."""
    with pytest.raises(affray.VictimDeath):
        world.damage(None, creature_id, 1000, "other", cause="raw")


def _continued(world: affray.World, path: Path, settle: bool = False) -> affray.World:
    """Save `world`, load it, and finish both the same way; returns the loaded world."""
    world.save(path)
    loaded = affray.load_world(path)
    for each in (world, loaded):
        if settle:
            each.run(until="settled")
        each.run()
    return loaded


def test_a_creature_killed_with_statuses_loses_them_at_the_next_look_after_a_load_too(
        tmp_path):
    """R-ENG-3, R-STAT-4: "v" dies poisoned (of something else) at pulse 1; the status
    step forgets a dead creature's statuses at its next look (pulse 12, the poison's
    tick). Saved while "v" is dead and still poisoned, the loaded world forgets them
    there too: the same final snapshot (it kept them for good before the fix)."""
    world = world_from_text(QUIET.replace('id = "v"\nat = [2, 1]\n',
                                          'id = "v"\nat = [2, 1]\nstatuses = { poisoned = 2 '
                                          '}\n'))
    try:
        world.run(1)
        _kill(world, "v")
        assert world.snapshot()["creatures"]["v"]["statuses"] == {"poisoned": 2}
        loaded = _continued(world, tmp_path / "dead.sav")
        try:
            assert world.snapshot()["creatures"]["v"]["statuses"] == {}
            assert loaded.snapshot() == world.snapshot()
            assert _log(loaded) == _log(world)
        finally:
            loaded.close()
    finally:
        world.close()


def test_a_status_ended_early_keeps_the_world_s_status_pulse_across_a_save(tmp_path):
    """R-ENG-3, R-STAT-1: "v" burns from pulse 0 (ticks at 4, 8, ...) and walks into the
    pool at pulse 5, which puts the fire out; the world still looks at statuses at
    pulse 8, then has nothing left to do. Saved at pulse 6, the loaded world keeps that
    pulse 8 (it is saved): it settles where the straight run settles, pulse 9, and a
    creature killed meanwhile loses its statuses there too (before the fix the load
    worked out the poison's pulse 12 from the statuses' times and settled at once)."""
    text = QUIET.replace('id = "v"\nat = [2, 1]\n',
                         'id = "v"\nat = [3, 1]\nstatuses = { burning = 1 }\n')
    text = text.replace('id = "a"\nat = [0, 1]\n',
                        'id = "a"\nat = [0, 1]\nstatuses = { poisoned = 1 }\n')
    text += '[[actions]]\npulse = 5\nactor = "v"\nmove = [4, 1]\n'
    world = world_from_text(text)
    try:
        world.run(6)
        assert world.snapshot()["creatures"]["v"]["statuses"] == {}
        assert world.status_due == 8
        _kill(world, "a")
        loaded = _continued(world, tmp_path / "early.sav", settle=True)
        try:
            settled = [e.pulse for e in world.events if e.kind == "settled"]
            assert settled == [9]
            assert _log(loaded) == _log(world)
            assert loaded.snapshot() == world.snapshot()
            assert loaded.snapshot()["creatures"]["a"]["statuses"] == {}
        finally:
            loaded.close()
    finally:
        world.close()


def test_a_dead_creature_s_queued_actions_do_not_keep_a_loaded_world_busy(tmp_path):
    """R-ENG-3, R-LAG-2: "a" dies with a move waiting behind 20 pulses of wait; a death
    takes it out of the ready set (its queue stays as it was). The loaded world is not
    ready for it either: it settles at once, as the straight run does (before the fix it
    ran on to pulse 21 to pop the dead's move, and settled there)."""
    world = world_from_text(QUIET)
    try:
        world.run(1)
        world.set_wait("a", 20)
        world.submit(affray.Move(actor="a", to=(1, 1)))
        _kill(world, "a")
        assert world.component("a", ActionQueue).pending
        loaded = _continued(world, tmp_path / "queue.sav", settle=True)
        try:
            assert [e.pulse for e in world.events if e.kind == "settled"] == [1]
            assert _log(loaded) == _log(world)
            assert loaded.snapshot() == world.snapshot()
        finally:
            loaded.close()
    finally:
        world.close()


def test_a_save_without_the_status_pulse_works_it_out_from_the_statuses(tmp_path):
    """R-ENG-3: a save written before the status pulse was saved (no `status_due`) loads,
    with the pulse worked out from the statuses' times."""
    world = world_from_text(QUIET.replace('id = "v"\nat = [2, 1]\n',
                                          'id = "v"\nat = [2, 1]\nstatuses = { burning = 1 '
                                          '}\n'))
    try:
        world.run(2)
        world.save(tmp_path / "new.sav")
    finally:
        world.close()
    header, payload = _read(tmp_path / "new.sav")
    body = json.loads(payload)
    assert body["status_due"] == 4
    del body["status_due"]
    raw = json.dumps(body).encode()
    header.update(length=len(raw), sha256=hashlib.sha256(raw).hexdigest())
    (tmp_path / "old.sav").write_bytes(json.dumps(header).encode() + b"\n" + raw)
    with affray.load_world(tmp_path / "old.sav") as loaded:
        assert loaded.status_due == 4
