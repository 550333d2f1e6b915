"""A game's own systems, registered by name, so a save restores them (R-ENG-3: save, load
and continue gives the same log as never stopping); a clear SaveError when one is not
registered, and the same for a game's mind (R-MIND-7)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import affray
from affray.core.events import StatusChanged
from affray.systems import SCHEDULE, System

DUEL = '''
name = "regen"
pulses = 40
[map]
rows = ["....."]
[[creatures]]
id = "a"
at = [1, 0]
hp = 50
[[creatures]]
id = "v"
at = [2, 0]
hp = 50
fighting = "a"
'''


class Regen(System):
    """Every 10th pulse, each wounded living creature gets 1 hit point back (a game's
    rule, logged as a `status` event so the log shows it)."""

    name = "Regen"

    def process(self, world: affray.World) -> None:  # type: ignore[override]
        if world.pulse % 10:
            return
        for entity in sorted(world.by_id.values()):
            sheet = world.sheets[entity]
            if sheet.vitals.alive and sheet.vitals.hp < sheet.vitals.max_hp:
                sheet.vitals.hp += 1
                world.touch(sheet.id)
                world.emit(StatusChanged(world.pulse, sheet.id, "regen", sheet.vitals.hp,
                                         "applied"))


@pytest.fixture
def registered() -> Iterator[None]:
    affray.register_system("regen", Regen)
    yield
    affray.unregister_system("regen")


def with_regen(world: affray.World) -> affray.World:
    world.systems = (*world.systems, Regen())
    return world


def edited_save(source: Path, target: Path, edit: Callable[[dict[str, Any]], None]) -> Path:
    """A copy of a save with its payload edited and its header's length and checksum
    made to match (a save edited by hand: only the save checker stands in the way)."""
    head, _, payload = source.read_bytes().partition(b"\n")
    data = json.loads(payload)
    edit(data)
    body = json.dumps(data, separators=(",", ":")).encode()
    header = json.loads(head)
    header.update(length=len(body), sha256=hashlib.sha256(body).hexdigest())
    target.write_bytes(json.dumps(header).encode() + b"\n" + body)
    return target


def test_r_eng_3_a_registered_system_is_saved_by_name_and_runs_after_the_load(
        make_world, registered, tmp_path: Path):
    unsaved = with_regen(make_world(DUEL, seed=5))
    saved = with_regen(make_world(DUEL, seed=5))
    saved.run(pulses=15)
    saved.save(str(tmp_path / "w.save"))
    loaded = affray.load_world(str(tmp_path / "w.save"))
    try:
        assert [s.name for s in loaded.systems] == [*(cls.name for cls in SCHEDULE), "Regen"]
        assert isinstance(loaded.systems[-1], Regen)
        loaded.run()
        unsaved.run()
        assert loaded.events == unsaved.events
        assert any(e.kind == "status" and e.status == "regen" for e in loaded.events)
    finally:
        loaded.close()


def test_a_system_whose_class_is_not_registered_cannot_be_saved(make_world, tmp_path):
    world = with_regen(make_world(DUEL))
    with pytest.raises(affray.SaveError, match=r"cannot save the system Regen \(systems\[8\]"
                                               r"\): its class is not registered; call "
                                               r"affray.register_system\(name, Regen\)"):
        world.save(str(tmp_path / "w.save"))
    assert not (tmp_path / "w.save").exists()


def test_loading_a_save_of_a_system_not_registered_names_it(make_world, tmp_path):
    affray.register_system("regen", Regen)
    try:
        with_regen(make_world(DUEL)).save(str(tmp_path / "w.save"))
    finally:
        affray.unregister_system("regen")
    with pytest.raises(affray.SaveError, match=r"systems\[8\]: the save runs the system "
                                               r"'regen', which is neither built in nor "
                                               r"registered in this process: call "
                                               r"affray.register_system\('regen'"):
        affray.load_world(str(tmp_path / "w.save"))


def test_the_built_in_systems_are_saved_by_their_names_in_the_world_s_order(
        make_world, tmp_path):
    """A game may drop or reorder the built-in systems too: the save keeps its list."""
    world = make_world(DUEL)
    world.systems = tuple(reversed(world.systems))
    world.save(str(tmp_path / "w.save"))
    loaded = affray.load_world(str(tmp_path / "w.save"))
    try:
        assert [s.name for s in loaded.systems] == [cls.name for cls in reversed(SCHEDULE)]
    finally:
        loaded.close()


def test_r_time_4_a_save_without_systems_loads_the_schedule(make_world, tmp_path):
    """Saves written before systems were saved hold no `systems`: the eight of the
    schedule run, in their order (R-TIME-4)."""
    world = make_world(DUEL)
    world.save(str(tmp_path / "w.save"))
    names = json.loads((tmp_path / "w.save").read_bytes().partition(b"\n")[2])["systems"]
    assert names == ["Pulse", "Stun", "Melee", "Spell", "Arc", "Burst", "FloorItemLoss",
                     "Terrain"]
    old = edited_save(tmp_path / "w.save", tmp_path / "old.save", lambda d: d.pop("systems"))
    loaded = affray.load_world(str(old))
    try:
        assert [type(s) for s in loaded.systems] == list(SCHEDULE)
    finally:
        loaded.close()


@pytest.mark.parametrize("systems, message", [
    (["Pulse", 3], r"malformed save payload: Expected `str`, got `int` \(at systems\[1\]\)"),
    ("Pulse", r"malformed save payload: Expected `array`, got `str` \(at systems\)"),
    (["Pulse"] * 257, r"systems: 257 systems, more than the 256 a save holds"),
    (["Pulse", "Melee", "Ghost"], r"systems\[2\]: the save runs the system 'Ghost', which "
                                  r"is neither built in nor registered"),
])
def test_the_save_checker_checks_the_systems(make_world, tmp_path, systems, message):
    make_world(DUEL).save(str(tmp_path / "w.save"))
    bad = edited_save(tmp_path / "w.save", tmp_path / "bad.save",
                      lambda data: data.update(systems=systems))
    with pytest.raises(affray.SaveError, match=message) as caught:
        affray.load_world(str(bad))
    assert str(bad) in str(caught.value)


def test_an_empty_list_of_systems_is_a_world_where_nothing_runs(make_world, tmp_path):
    """A game may run no system at all (a world it only builds and saves): the save
    keeps the empty list rather than falling back to the schedule."""
    world = make_world(DUEL)
    world.systems = ()
    world.save(str(tmp_path / "w.save"))
    loaded = affray.load_world(str(tmp_path / "w.save"))
    try:
        assert loaded.systems == ()
        loaded.run(pulses=20)
        assert loaded.pulse == 20 and loaded.events == world.events  # the fight's start
        assert loaded.snapshot()["creatures"]["a"]["hp"] == 50
    finally:
        loaded.close()


@pytest.mark.parametrize("name, cls, message", [
    ("Pulse", Regen, r"'Pulse' is a built-in system's name"),
    ("", Regen, r"name must be a non-empty printable str"),
    ("x", object, r"is not a subclass of affray.systems.System"),
    ("x", SCHEDULE[0], r"PulseSystem is built in, as 'Pulse'"),
])
def test_bad_registrations_are_usage_errors(name, cls, message):
    with pytest.raises(affray.UsageError, match=message):
        affray.register_system(name, cls)
    assert "x" not in affray.registered_systems()


def test_r_mind_7_a_save_naming_a_mind_not_registered_names_the_creature_and_the_mind(
        make_world, tmp_path):
    affray.register_mind("dreamer", lambda view, actor: None)
    try:
        world = make_world(DUEL.replace('hp = 50\nfighting = "a"', 'hp = 50\nmind = "dreamer"'))
        world.save(str(tmp_path / "w.save"))
    finally:
        affray.unregister_mind("dreamer")
    with pytest.raises(affray.SaveError) as caught:
        affray.load_world(str(tmp_path / "w.save"))
    message = str(caught.value)
    assert "'v'" in message and "'dreamer'" in message
    assert "register_mind" in message
