"""Saves edited and re-hashed (issue 10): a sealed save whose payload was changed is
validated as strictly as a scenario, so every edit below is a SaveError naming the part,
never a load that fails later in `run` and never a raw KeyError text (R-ENG-3).
"""

from __future__ import annotations

import copy
import gc
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import esper
import pytest
from conftest import duel_text, world_from_text

import affray
from affray.save import FORMAT, VERSION


@pytest.fixture(scope="module")
def payload(tmp_path_factory) -> dict[str, Any]:
    """The payload of a duel saved after 3 pulses, with a scroll and a queued move."""
    path = tmp_path_factory.mktemp("saves") / "duel.sav"
    world = world_from_text(duel_text(extra='[[items]]\nat = [0, 0]\nitem = "scroll"\n'
                                            '[[actions]]\npulse = 6\nactor = "a"\n'
                                            'move = [1, 0]\n'))
    try:
        world.start_fight("a", "v")
        world.run(3)
        world.save(str(path))
    finally:
        world.close()
    return json.loads(path.read_bytes().partition(b"\n")[2])


def seal(path: Path, data: Any) -> Path:
    """Write `data` as a well-sealed save: right header, length and checksum."""
    body = json.dumps(data).encode()
    header = {"format": FORMAT, "version": VERSION, "length": len(body),
              "sha256": hashlib.sha256(body).hexdigest()}
    path.write_bytes(json.dumps(header).encode() + b"\n" + body)
    return path


def entity_with(data: dict[str, Any], component: str, creature: str | None = None) -> dict:
    """The components of the first entity holding `component` (of creature id)."""
    for _entity, parts in data["entities"]:
        if component in parts and (creature is None or parts["Creature"]["id"] == creature):
            return parts
    raise AssertionError(f"no entity with {component}")


def creature(data, name="a") -> dict:
    return entity_with(data, "Creature", name)


def _set(path: list[Any], value: Any) -> Callable[[dict], None]:
    def edit(data: dict) -> None:
        node = data
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    return edit


EDITS: dict[str, tuple[Callable[[dict], None], str]] = {
    # the cases
    "pulse_string": (_set(["pulse"], "x"), "Expected `int`, got `str` (at pulse)"),
    "creature_off_map": (lambda d: creature(d)["Position"].update(x=99, y=99),
                         "at [99, 99], off the 5x3 map"),
    "hp_above_max": (lambda d: creature(d)["Vitals"].update(hp=500),
                     "hp 500 is above max_hp"),
    "negative_pulse": (_set(["pulse"], -4), "pulse: must be 0.."),
    "end_before_now": (_set(["end_pulse"], 1), "end_pulse: 1 is before the current pulse 3"),
    "unknown_top_key": (_set(["cheat"], True), "unknown field `cheat`"),
    "unknown_component_key": (lambda d: creature(d)["Vitals"].update(stamina=50),
                              "component Vitals: unknown field 'stamina'"),
    "unknown_affect": (lambda d: creature(d)["Affects"]["levels"].update(godmode=0),
                       "unknown affect 'godmode'"),
    "next_entity_negative": (_set(["next_entity"], -1), "next_entity: -1"),
    "rng_missing": (lambda d: d.pop("rng"), "missing required field `rng`"),
    # more of the same kind
    "seed_negative": (_set(["seed"], -5), "seed: must be 0.."),
    "unknown_component": (lambda d: creature(d).update(Jetpack={"fuel": 3}),
                          "unknown component 'Jetpack'"),
    "component_field_type": (lambda d: creature(d)["Position"].update(x="1"),
                             "component Position, field 'x': Expected `int`"),
    "component_missing_field": (lambda d: creature(d)["Vitals"].pop("hp"),
                                "missing required field `hp`"),
    "nested_unknown_field": (lambda d: creature(d)["Statuses"].update(extra={}),
                             "unknown field 'extra'"),
    "unknown_status": (lambda d: creature(d)["Statuses"]["degrees"].update(itchy=1),
                       "unknown status 'itchy'"),
    "unknown_skill": (lambda d: creature(d)["Skills"]["learned"].update(juggling=5),
                      "unknown skill 'juggling'"),
    "unknown_weapon": (lambda d: creature(d)["Equipment"].update(wield="laser"),
                       "unknown item 'laser'"),
    "unknown_profession": (lambda d: creature(d)["Creature"].update(profession="pilot"),
                           "unknown profession 'pilot'"),
    "unknown_position": (lambda d: creature(d)["Vitals"].update(position="flying"),
                         "unknown position 'flying'"),
    "max_hp_zero": (lambda d: creature(d)["Vitals"].update(max_hp=0, hp=0),
                    "max_hp 0 is outside"),
    "by_id_wrong_entity": (lambda d: d["by_id"].update(a=d["by_id"]["v"]),
                           "whose creature is 'v'"),
    "by_id_no_creature": (lambda d: d["by_id"].update(ghost=999), "no creature"),
    "by_id_missing_creature": (lambda d: d["by_id"].pop("v"), "missing from by_id"),
    "occupant_moved": (lambda d: creature(d)["Position"].update(x=0, y=2),
                       "but the grid's occupant there is 0"),
    "shared_lag_slot": (lambda d: creature(d, "v")["Creature"].update(
        slot=creature(d)["Creature"]["slot"]), "lag slot"),
    "entity_ids_out_of_order": (lambda d: d["entities"].reverse(), "increasing"),
    "array_object_dtype": (lambda d: d["grid"]["terrain"].update(dtype="|O"),
                           "grid.terrain: array: dtype '|O'"),
    "array_wrong_dtype": (lambda d: d["grid"]["occupant"].update(dtype="<f8"),
                          "grid.occupant: array: dtype '<f8' is not <i4"),
    "array_short_data": (lambda d: d["grid"]["terrain"].update(data="AAAA"),
                         "bytes of data for shape"),
    "array_shape_wraps_64_bits": (lambda d: d["grid"]["terrain"].update(shape=[2**32, 2**32],
                                                                       data=""),
                                  "bytes of data for shape"),
    "array_not_base64": (lambda d: d["grid"]["terrain"].update(data="!!"), "not base64"),
    "array_wrong_shape": (lambda d: d["grid"]["shut"].update(shape=[15, 1]),
                          "grid.shut: shape [15, 1]"),
    "terrain_code_9": (lambda d: d["grid"]["terrain"].update(
        data="CQ" + d["grid"]["terrain"]["data"][2:]), "no terrain"),
    "lag_count_too_big": (lambda d: d["lag"].update(count=10_000), "cannot hold"),
    "rng_garbage": (lambda d: d["rng"].update(bit_generator="MT19937"),
                    "rng: not a generator state"),
    "scripted_unknown_actor": (lambda d: d["scripted"][0][1].update(actor="ghost"),
                               "scripted[0]: unknown actor 'ghost'"),
    "scripted_not_an_action": (lambda d: d["scripted"][0][1].update(action="teleport"),
                               "scripted[0]: not an action"),
    "event_unknown_kind": (lambda d: d["events"].append({"pulse": 1, "kind": "explode"}),
                           "missing or unknown 'explode'"),
    "legend_long_symbol": (lambda d: d["legend"].update(ab="wall"), "legend: symbol 'ab'"),
    "legend_unknown_terrain": (lambda d: d["legend"].update({"#": "lava"}),
                               "legend: '#' names unknown terrain 'lava'"),
    "content_bad": (lambda d: d.update(content={"spells": {"zap": {"type": "fire"}}}),
                    "content: "),
    "spawned_rewound": (_set(["spawned"], 0), "new spawns would reuse it"),
    "spawn_numbers_shared": (lambda d: creature(d, "v")["Spawn"].update(
        number=creature(d)["Spawn"]["number"]), "share a spawn number"),
    "fighting_a_ghost": (lambda d: creature(d)["Combat"].update(fighting="ghost"),
                         "fights 'ghost'"),
    "entities_not_a_list": (_set(["entities"], {"1": {}}), "Expected `array`"),
}


@pytest.mark.parametrize("case", sorted(EDITS))
def test_an_edited_and_resealed_save_is_a_save_error_r_eng_3(tmp_path, payload, case):
    """R-ENG-3: each edit is refused at load with a SaveError naming the file and the part;
    no raw KeyError text, and no esper context left behind."""
    edit, fragment = EDITS[case]
    data = copy.deepcopy(payload)
    edit(data)
    path = seal(tmp_path / f"{case}.sav", data)
    contexts = set(esper.list_worlds())
    with pytest.raises(affray.SaveError) as caught:
        affray.load_world(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: "), message
    assert fragment in message, (fragment, message)
    assert "KeyError" not in message and ": 'rng'" not in message
    gc.collect()
    assert set(esper.list_worlds()) <= contexts | {"default"}


def test_the_untouched_payload_resealed_loads_and_runs(tmp_path, payload):
    """The control: the same payload resealed without an edit loads and finishes."""
    path = seal(tmp_path / "same.sav", copy.deepcopy(payload))
    with affray.load_world(path) as world:
        world.run()
        assert world.pulse >= 7


def test_a_world_run_past_its_end_saves_and_loads(tmp_path):
    """A world run beyond its scenario's end (run(pulses=...)) is saved as ending now, so
    its save loads; run() then does nothing, as it would have before the save."""
    world = world_from_text("pulses = 2\n" + duel_text())
    try:
        world.run(pulses=20)
        world.save(str(tmp_path / "past.sav"))
    finally:
        world.close()
    with affray.load_world(tmp_path / "past.sav") as loaded:
        assert loaded.pulse == 20
        loaded.run()
        assert loaded.pulse == 20


def test_a_payload_nested_too_deeply_is_a_save_error(tmp_path):
    """JSON nested 100,000 deep inside the content overlay: a SaveError, not the decoder's
    RecursionError."""
    body = b'{"content": {"a": ' + b"[" * 100_000 + b"]" * 100_000 + b"}}"
    header = {"format": FORMAT, "version": VERSION, "length": len(body),
              "sha256": hashlib.sha256(body).hexdigest()}
    path = tmp_path / "deep.sav"
    path.write_bytes(json.dumps(header).encode() + b"\n" + body)
    with pytest.raises(affray.SaveError, match="nested too deeply"):
        affray.load_world(path)


def test_a_header_nested_too_deeply_is_not_a_save(tmp_path):
    path = tmp_path / "deep_header.sav"
    path.write_bytes(b"[" * 100_000 + b"]" * 100_000 + b"\n{}")
    with pytest.raises(affray.SaveError, match="not an affray save"):
        affray.load_world(path)
