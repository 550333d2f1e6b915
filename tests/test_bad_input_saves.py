"""Saves edited and re-hashed (issue 10, and the save audit): a sealed save whose payload
was changed is validated as strictly as a scenario, so every edit below is a SaveError
naming the file, the entry and the field, never a load that fails later in `run`, never a
hang, and never a raw KeyError text (R-ENG-3). Where a scenario refuses the same value
(a creature's field, a floor stack, a scripted action), the save is refused by the same
check in the same words (`test_a_save_refuses_..._with_the_scenario_s_own_words`).

`EDITS` are edits of a duel's save (issue 10). `ROOM_EDITS` are edits of a save with an
entity of every kind (`ROOM`): first the audit's twelve (a floor stack of an unknown
item, a queued cast of an unknown spell, `npc_tier = 9`, a fire with no cell, an
entity-id gap of 10^8, a creature inside a wall, a stack count of -7, strength 99,
level 10^12, a wielded potion, a door "ajar", two doors on one cell), then the ones
hunted after them, each refused now and accepted (or crashing, or hanging) before:

- chests and stacks: a chest of an unknown item; a chest softer than content makes it
  (hardness 0); a chest holding 0 of something; a chest holding an unknown item; a
  container lying as a plain stack; a stack inside a wall;
- doors: a door on a floor cell; a door cell with no door; an open door with a trap; a
  shut door that names who broke it; the shut array opened under a shut door; a shut
  cell that is no door;
- fires, ice, water: a fire burnt out before now; a fire for 10^15 pulses; a fire lit by
  an unknown creature; two fires on one cell; an ice record on a floor cell; ice frozen
  in the future; ice -5 cm thick; a thickness on a floor cell; a water-body label held
  twice; labels that are not the map's water while the grid is not dirty; a water body
  with a cell;
- statuses: a status that ended before now; one lasting 10^12 pulses; a Burning that
  never ticks; Corroded owing 50 points at degree 1; a degree of 0; a Sluggish that
  ticks; a timer of a status the creature does not have; a status pulse after the first
  tick (the tick would be skipped), null while statuses run, or before now;
- affects, immunities, dice: an affect at level -5; an affect without a source; an affect
  from the future; immunity bits content does not define; 0-sided hand dice;
- life and death: a dead creature standing; a dead creature with hit points; a dead
  creature fighting; a living NPC at 0 hp; a living player at -20 hp (dead at -11);
  negative movement; movement regenerated from the future;
- gear, skills, identity: a piece worn in another slot than content's; worn gear out of
  the wear order; a skill at 150; the religion "none" (saved as null); alignment 5000;
  an id with spaces around it; an unknown template;
- lag and entities: a wait in a slot no creature has; more lag slots than creatures; a
  creature without its Spawn; Statuses on a floor stack; a door that is also a fire; a
  Position with no entity kind; spawn numbers out of the entities' order; a spawn
  counter above the entities ever made; an entity id past 32 bits;
- actions: a queued action of another actor; a queued attack on itself; a queued move
  off the map; a queued cast by catapult; a queued cast at a cell off the map; a
  scripted action in the past; one after the scenario's end; a scripted cast at an
  unknown creature;
- the event log: an amount in words; an unknown field; a missing field; events out of
  pulse order; an event from the future; an event naming an unknown creature.
"""

from __future__ import annotations

import base64
import copy
import gc
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import esper
import numpy as np
import pytest
from conftest import duel_text, world_from_text

import affray
from affray.components import Position, component
from affray.data.save import FORMAT, VERSION


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
    # the issue's cases
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
                    "component Vitals, field 'max_hp': 0 is outside 1.."),
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
                           "]: missing or unknown kind 'explode'"),
    "legend_long_symbol": (lambda d: d["legend"].update(ab="wall"), "legend: symbol 'ab'"),
    "legend_unknown_terrain": (lambda d: d["legend"].update({"#": "lava"}),
                               "legend: '#' names unknown terrain 'lava'"),
    "content_bad": (lambda d: d.update(content={"spells": {"zap": {"type": "fire"}}}),
                    "content: "),
    "spawned_rewound": (_set(["spawned"], 0), "new spawns would reuse it"),
    "spawn_numbers_shared": (lambda d: creature(d, "v")["Spawn"].update(
        number=creature(d)["Spawn"]["number"]), "component Spawn, field 'number': 1 after 1"),
    "fighting_a_ghost": (lambda d: creature(d)["Combat"].update(fighting="ghost"),
                         "fights 'ghost'"),
    "entities_not_a_list": (_set(["entities"], {"1": {}}), "Expected `array`"),
}


# A room with one entity of every kind, saved at pulse 3: a door (7, 2); creatures "a"
# (every status, sanctuary, a move queued behind its cast's wait), "v" (fighting "a")
# and player "w" (gear); a floor stack, a chest with contents, a fire (2, 2) from the
# fireball, ice records on the four cells the frost froze, one water body left (6, 1-2);
# a scripted move to come at pulse 20.
ROOM = """
name = "room"
pulses = 30
[map]
rows = ["########", "#..~~.~#", "#..~~.~+", "#......#", "########"]
[[creatures]]
id = "a"
at = [1, 1]
hp = 60
statuses = { burning = 1, sluggish = 1, corroded = 1, poisoned = 1 }
affects = ["sanctuary"]
[[creatures]]
id = "v"
at = [2, 2]
hp = 200
[[creatures]]
id = "w"
at = [5, 3]
hp = 30
player = true
wear = ["leather_armor", "leather_cap"]
wield = "dagger"
[[items]]
at = [1, 3]
item = "scroll"
count = 2
[[items]]
at = [5, 1]
item = "wooden_chest"
contents = [{ item = "gold_coins", count = 20 }]
[[actions]]
pulse = 0
actor = "a"
cast = "fireball"
target = [2, 2]
[[actions]]
pulse = 0
actor = "w"
cast = "frost_burst"
target = [4, 2]
[[actions]]
pulse = 1
actor = "a"
move = [2, 1]
[[actions]]
pulse = 20
actor = "v"
move = [3, 3]
"""


@pytest.fixture(scope="module")
def room(tmp_path_factory) -> dict[str, Any]:
    """The payload of ROOM saved at pulse 3 (what the edits below rely on is asserted)."""
    path = tmp_path_factory.mktemp("saves") / "room.sav"
    world = world_from_text(ROOM)
    try:
        world.run(3)
        world.save(str(path))
    finally:
        world.close()
    data = json.loads(path.read_bytes().partition(b"\n")[2])
    kinds = {kind for _entity, parts in data["entities"] for kind in parts}
    assert {"Door", "Fire", "Ice", "Chest", "ItemStack", "WaterBody"} <= kinds
    assert creature(data)["ActionQueue"]["pending"] and data["scripted"]
    assert data["status_due"] == 4 and creature(data, "v")["Combat"]["fighting"] == "a"
    return data


def grid_set(data: dict, name: str, x: int, y: int, value: int, where: str = "grid") -> None:
    """Write one cell of a saved array (grid.<name>, or lag.<name> with x the slot)."""
    saved = data[where][name]
    array = np.frombuffer(base64.b64decode(saved["data"]),
                          dtype=np.dtype(saved["dtype"])).reshape(saved["shape"]).copy()
    if array.ndim == 1:
        array[x] = value
    else:
        array[y, x] = value
    saved["data"] = base64.b64encode(array.tobytes()).decode("ascii")


def add_entity(data: dict, parts: dict) -> None:
    """A new entity with the next id (next_entity moves on)."""
    data["entities"].append([data["next_entity"], parts])
    data["next_entity"] += 1


def queue(data: dict, action: dict) -> None:
    """Replace creature a's first queued action."""
    creature(data)["ActionQueue"]["pending"][0] = {"actor": "a", **action}


def _door(d: dict) -> dict:
    return entity_with(d, "Door")


def _fire(d: dict) -> dict:
    return entity_with(d, "Fire")


def _statuses(d: dict, name: str = "a") -> dict:
    return creature(d, name)["Statuses"]


def _dead(d: dict, **vitals: Any) -> None:
    """Make "v" dead: off the occupancy grid, with the vitals given."""
    v = creature(d, "v")
    v["Vitals"].update(alive=False, **vitals)
    grid_set(d, "occupant", v["Position"]["x"], v["Position"]["y"], 0)


def _event(d: dict, kind: str) -> dict:
    return next(event for event in d["events"] if event["kind"] == kind)


ROOM_EDITS: dict[str, tuple[Callable[[dict], None], str]] = {
    # -- the audit's cases
    "floor_stack_unknown_item": (lambda d: entity_with(d, "ItemStack")["ItemStack"].update(
        item="widget"), "(an item stack), component ItemStack, field 'item': unknown item"),
    "queued_cast_unknown_spell": (lambda d: queue(d, {"action": "cast", "spell": "nope",
                                                      "target": "v", "via": "mana"}),
                                  "component ActionQueue, pending[0]: field 'cast': unknown "
                                  "spell 'nope'"),
    "npc_tier_9": (lambda d: creature(d)["Creature"].update(npc_tier=9),
                   "component Creature, field 'npc_tier': must be 0..3, got 9"),
    "fire_without_a_cell": (lambda d: _fire(d).pop("Position"),
                            "(a fire): lacks the component Position"),
    "entity_id_gap_of_1e8": (lambda d: (d["entities"][-1].__setitem__(
        0, d["entities"][-1][0] + 10**8), d.update(next_entity=d["next_entity"] + 10**8)),
        "ids below it belong to no entity"),
    "creature_in_a_wall": (lambda d: creature(d)["Position"].update(x=0, y=0),
                           "component Position: [0, 0] is a wall or a shut door"),
    "stack_count_minus_7": (lambda d: entity_with(d, "ItemStack")["ItemStack"].update(
        count=-7), "component ItemStack, field 'count': must be 1..1000000"),
    "strength_99": (lambda d: creature(d)["Stats"].update(strength=99),
                    "component Stats, field 'stats': str must be 0.."),
    "level_1e12": (lambda d: creature(d)["Level"].update(level=10**12),
                   "component Level, field 'level': 1000000000000"),
    "wielded_potion": (lambda d: creature(d, "w")["Equipment"].update(wield="potion"),
                       "component Equipment, field 'wield': item 'potion' is not a weapon"),
    "door_ajar": (lambda d: _door(d)["Door"].update(state="ajar"),
                  "component Door, field 'state': unknown state 'ajar'"),
    "two_doors_on_one_cell": (lambda d: add_entity(d, copy.deepcopy(_door(d))),
                              "(a door): a second door on [7, 2]"),
    # -- hunted: chests and stacks
    "chest_unknown_item": (lambda d: entity_with(d, "Chest")["Chest"].update(item="crate"),
                           "component Chest, field 'item': unknown item 'crate'"),
    "chest_softened": (lambda d: entity_with(d, "Chest")["Chest"].update(hardness=0),
                       "field 'hardness': 0, content gives 'wooden_chest' 5"),
    "chest_content_count_zero": (lambda d: entity_with(d, "Chest")["Chest"]["contents"][0]
                                 .update(count=0), "field 'contents[0]', field 'count': "
                                 "must be 1.."),
    "chest_content_unknown_item": (lambda d: entity_with(d, "Chest")["Chest"]["contents"][0]
                                   .update(item="gem"), "field 'contents[0]': unknown item"),
    "container_as_a_stack": (lambda d: entity_with(d, "ItemStack")["ItemStack"].update(
        item="wooden_chest"), "'wooden_chest' is a container: it lies as a Chest"),
    "stack_in_a_wall": (lambda d: entity_with(d, "ItemStack")["Position"].update(x=0, y=2),
                        "(an item stack), component Position: [0, 2] is a wall"),
    # -- doors and the shut array
    "door_on_the_floor": (lambda d: _door(d)["Position"].update(x=2, y=1),
                          "(a door), component Position: [2, 1] is no door cell"),
    "door_cell_without_a_door": (lambda d: d["entities"].remove(
        next(e for e in d["entities"] if "Door" in e[1])), "the door cell [7, 2] has no Door"),
    "open_door_trapped": (lambda d: _door(d)["Door"].update(state="open", trapped=True),
                          "field 'trapped': a open door holds no trap"),
    "shut_door_broken_by": (lambda d: _door(d)["Door"].update(broken_by="a"),
                            "field 'broken_by': the door is shut, not broken"),
    "shut_array_opened": (lambda d: grid_set(d, "shut", 7, 2, 0),
                          "grid.shut: [7, 2] says not shut, its door is shut"),
    "shut_array_on_the_floor": (lambda d: grid_set(d, "shut", 1, 2, 1),
                                "grid.shut: a cell that is no door is shut"),
    # -- fires, ice records, the ice array, water bodies
    "fire_burnt_out": (lambda d: _fire(d)["Fire"].update(ends=1),
                       "component Fire, field 'ends': 1, not a pulse of 3..243"),
    "fire_forever": (lambda d: _fire(d)["Fire"].update(ends=10**15),
                     "component Fire, field 'ends': 1000000000000000, not a pulse"),
    "fire_unknown_cause": (lambda d: _fire(d)["Fire"].update(cause="ghost"),
                           "component Fire, field 'cause': unknown creature 'ghost'"),
    "two_fires_on_one_cell": (lambda d: add_entity(d, copy.deepcopy(_fire(d))),
                              "a second Fire on [2, 2]"),
    "ice_record_on_the_floor": (lambda d: entity_with(d, "Ice")["Position"].update(x=1, y=2),
                                "(an ice record), component Ice: [1, 2] is not ice"),
    "ice_frozen_in_the_future": (lambda d: entity_with(d, "Ice")["Ice"].update(pulse=99),
                                 "component Ice, field 'pulse': 99, not a pulse of 0..3"),
    "ice_negative": (lambda d: grid_set(d, "ice_cm", 3, 1, -5),
                     "grid.ice_cm: a negative thickness"),
    "ice_on_a_floor_cell": (lambda d: grid_set(d, "ice_cm", 1, 2, 10),
                            "grid.ice_cm: a cell that is not ice has a thickness"),
    "water_body_label_twice": (lambda d: add_entity(d, {"WaterBody": {"label": 1}}),
                               "water bodies: the entities hold labels [1, 1]"),
    "water_labels_stale": (lambda d: grid_set(d, "body", 6, 1, 0),
                           "grid.body: not the water bodies of the map"),
    "water_body_with_a_cell": (lambda d: entity_with(d, "WaterBody").update(
        Position={"x": 6, "y": 1}), "a Position component does not belong to a water body"),
    # -- statuses and their timers, the status pulse
    "status_ended_in_the_past": (lambda d: _statuses(d)["ends"].update(burning=1),
                                 "field 'ends': 'burning' ends at 1, not a pulse of 3..51"),
    "status_lasting_for_ever": (lambda d: _statuses(d)["ends"].update(poisoned=10**12),
                                "field 'ends': 'poisoned' ends at 1000000000000"),
    "burning_that_never_ticks": (lambda d: _statuses(d)["next_tick"].pop("burning"),
                                 "field 'next_tick': 'burning' ticks at None"),
    "corroded_owing_too_much": (lambda d: _statuses(d)["owed"].update(corroded=50),
                                "field 'owed': 'corroded' owes 50, not 0..2"),
    "status_at_degree_0": (lambda d: _statuses(d)["degrees"].update(sluggish=0),
                           "field 'degrees': 'sluggish' at degree 0"),
    "sluggish_ticking": (lambda d: _statuses(d)["next_tick"].update(sluggish=5),
                         "field 'next_tick': 'sluggish' does not tick"),
    "time_of_a_status_not_had": (lambda d: _statuses(d, "w")["ends"].update(poisoned=40),
                                 "field 'ends': status 'poisoned' is not one the creature"),
    "status_pulse_skips_a_tick": (_set(["status_due"], 40),
                                  "status_due: 40, not a pulse of 3..4"),
    "status_pulse_null": (_set(["status_due"], None), "status_due: null, but creatures"),
    "status_pulse_in_the_past": (_set(["status_due"], 1), "status_due: 1, not a pulse"),
    # -- affects, immunities, dice
    "affect_level_minus_5": (lambda d: creature(d)["Affects"]["levels"].update(sanctuary=-5),
                             "field 'levels': 'sanctuary' at level -5"),
    "affect_without_a_source": (lambda d: creature(d)["Affects"]["sources"].clear(),
                                "field 'sources': affect 'sanctuary' is in one of levels"),
    "affect_from_the_future": (lambda d: creature(d)["Affects"]["since"].update(sanctuary=99),
                               "field 'since': 'sanctuary' came at pulse 99"),
    "immunity_bits_unknown": (lambda d: creature(d)["Immunities"].update(imm=2**40),
                              "component Immunities, field 'imm': 1099511627776 holds bits"),
    "hand_dice_zero_sided": (lambda d: creature(d)["Offense"].update(hand_dice=[1, 0, 0]),
                             "component Offense, field 'damage': '1d0' has 0-sided dice"),
    # -- hit points, life and death, movement
    "dead_but_standing": (lambda d: _dead(d, hp=-5),
                          "field 'position': a dead creature is positioned 'dead'"),
    "dead_with_hit_points": (lambda d: _dead(d, hp=5, position="dead"),
                             "field 'hp': a dead creature with 5 hp"),
    "dead_and_fighting": (lambda d: _dead(d, hp=-1, position="dead"),
                          "component Combat, field 'fighting': a dead creature fights no one"),
    "living_npc_at_0_hp": (lambda d: creature(d, "v")["Vitals"].update(hp=0),
                           "field 'hp': 0 for a living creature"),
    "living_player_at_minus_20": (lambda d: creature(d, "w")["Vitals"].update(hp=-20),
                                  "field 'hp': -20 for a living player"),
    "negative_movement": (lambda d: creature(d)["Vitals"].update(move=-1),
                          "component Vitals, field 'move': must be 0.."),
    "movement_from_the_future": (lambda d: creature(d)["Vitals"].update(move_pulse=99),
                                 "field 'move_pulse': 99 is not a pulse of 0..3"),
    # -- gear, skills, identity
    "worn_in_another_slot": (lambda d: creature(d, "w")["Equipment"]["worn"][1].update(
        slot="body"), "'leather_cap' is worn in slot 'body', content gives it 'head'"),
    "worn_out_of_order": (lambda d: creature(d, "w")["Equipment"]["worn"].reverse(),
                          "field 'worn': not in the wear order"),
    "skill_150": (lambda d: creature(d)["Skills"].update(learned={"dodge": 150}),
                  "component Skills, field 'skills': skill 'dodge' must be 0..100, got 150"),
    "religion_none": (lambda d: creature(d)["Level"].update(religion="none"),
                      "field 'religion': no religion is saved as null"),
    "alignment_5000": (lambda d: creature(d)["Level"].update(alignment=5000),
                       "component Level, field 'alignment': must be -1000..1000, got 5000"),
    "id_with_spaces": (lambda d: (creature(d)["Creature"].update(id=" a "),
                                  d["by_id"].update({" a ": d["by_id"].pop("a")})),
                       "field 'id': an id is a name"),
    "unknown_template": (lambda d: creature(d)["Creature"].update(template="dragon"),
                         "field 'template': unknown creature template 'dragon'"),
    # -- lag, kinds of entity, spawn numbers, entity ids
    "wait_past_the_slots": (lambda d: grid_set(d, "wait", 10, 0, 5, where="lag"),
                            "lag.wait: slot 10 holds a wait"),
    "more_slots_than_creatures": (lambda d: d["lag"].update(count=4),
                                  "lag.count: 4 slots, 3 creatures"),
    "creature_without_spawn": (lambda d: creature(d).pop("Spawn"),
                               "(a creature): lacks the component Spawn"),
    "statuses_on_a_stack": (lambda d: entity_with(d, "ItemStack").update(
        Statuses=copy.deepcopy(_statuses(d))),
        "a Statuses component does not belong to an item stack"),
    "door_and_fire_at_once": (lambda d: _door(d).update(Fire={"ends": 10, "cause": None}),
                              "is both a door and a fire"),
    "position_alone": (lambda d: add_entity(d, {"Position": {"x": 1, "y": 2}}),
                       "component Position without the entity it belongs to"),
    "spawns_out_of_order": (lambda d: (creature(d)["Spawn"].update(number=2),
                                       creature(d, "v")["Spawn"].update(number=1)),
                            "component Spawn, field 'number': 1 after 2"),
    "spawned_beyond_the_entities": (_set(["spawned"], 10**6),
                                    "spawned: 1000000 spawns, but only"),
    "entity_id_past_32_bits": (lambda d: (d["entities"][-1].__setitem__(0, 2**31),
                                          d.update(next_entity=2**31 + 1)),
                               "an entity id must be at most 2147483647"),
    # -- queued and scripted actions
    "queued_action_of_another": (lambda d: queue(d, {"action": "move", "to": [2, 1],
                                                     "actor": "v"}),
                                 "pending[0], field 'actor': 'v' in the queue of 'a'"),
    "queued_attack_on_itself": (lambda d: queue(d, {"action": "attack", "target": "a"}),
                                "pending[0]: field 'attack': 'a' cannot attack itself"),
    "queued_move_off_the_map": (lambda d: queue(d, {"action": "move", "to": [50, 50]}),
                                "pending[0]: field 'move': [50, 50] is out of bounds"),
    "queued_cast_by_catapult": (lambda d: queue(d, {"action": "cast", "spell": "spark",
                                                    "target": "v", "via": "catapult"}),
                                "pending[0]: field 'via': unknown via 'catapult'"),
    "queued_cast_off_the_map": (lambda d: queue(d, {"action": "cast", "spell": "spark",
                                                    "target": [99, 0], "via": "mana"}),
                                "pending[0]: field 'target': [99, 0] is out of bounds"),
    "scripted_in_the_past": (lambda d: d["scripted"][0].__setitem__(0, 1),
                             "scripted[0]: pulse 1, not a pulse of 3..50"),
    "scripted_after_the_end": (lambda d: d["scripted"][0].__setitem__(0, 10**6),
                               "scripted[0]: pulse 1000000, not a pulse of 3..50"),
    "scripted_cast_at_a_ghost": (lambda d: d["scripted"][0].__setitem__(1, {
        "action": "cast", "actor": "v", "spell": "spark", "target": "ghost", "via": "mana"}),
        "scripted[0]: field 'target': unknown creature 'ghost'"),
    # -- the event log
    "event_amount_in_words": (lambda d: _event(d, "damage").update(amount="lots"),
                              "(damage), field 'amount': Expected `int`, got `str`"),
    "event_unknown_field": (lambda d: _event(d, "damage").update(bonus=1),
                            "(damage): unknown field 'bonus'"),
    "event_missing_field": (lambda d: _event(d, "damage").pop("amount"),
                            "(damage): missing field 'amount'"),
    "events_out_of_order": (lambda d: d["events"][0].update(pulse=2),
                            "events[1] (damage), field 'pulse': 0, not a pulse of 2..3"),
    "event_from_the_future": (lambda d: d["events"][-1].update(pulse=99),
                              "field 'pulse': 99, not a pulse of 0..3"),
    "event_naming_a_ghost": (lambda d: _event(d, "damage").update(target="ghost"),
                             "(damage), field 'target': unknown creature 'ghost'"),
}


def _load_error(path: Path) -> str:
    """The SaveError message of loading `path`; it names the file first, has no raw
    KeyError text, and leaves no esper context behind."""
    contexts = set(esper.list_worlds())
    with pytest.raises(affray.SaveError) as caught:
        affray.load_world(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: "), message
    assert "KeyError" not in message and ": 'rng'" not in message
    gc.collect()
    assert set(esper.list_worlds()) <= contexts | {"default"}
    return message


@pytest.mark.parametrize("case", sorted(EDITS))
def test_an_edited_and_resealed_save_is_a_save_error_r_eng_3(tmp_path, payload, case):
    """R-ENG-3: each edit is refused at load with a SaveError naming the file and the part;
    no raw KeyError text, and no esper context left behind."""
    edit, fragment = EDITS[case]
    data = copy.deepcopy(payload)
    edit(data)
    message = _load_error(seal(tmp_path / f"{case}.sav", data))
    assert fragment in message, (fragment, message)


@pytest.mark.parametrize("case", sorted(ROOM_EDITS))
def test_an_edited_room_save_is_a_save_error_naming_entry_and_field_r_eng_3(
        tmp_path, room, case):
    """R-ENG-3: the audit's tampered saves and the hunted ones (the module docstring
    lists them), each on a save with every kind of entity: refused at load with a
    SaveError naming the file, the entry and the field."""
    edit, fragment = ROOM_EDITS[case]
    data = copy.deepcopy(room)
    edit(data)
    message = _load_error(seal(tmp_path / f"{case}.sav", data))
    assert fragment in message, (fragment, message)


def test_the_room_save_resealed_loads_and_continues_exactly(tmp_path, room):
    """The control of the room edits: its payload resealed unedited loads, and runs to
    the end exactly as the world that was never saved (R-ENG-3)."""
    straight = world_from_text(ROOM)
    try:
        straight.run()
        log = [event.to_dict() for event in straight.events]
        final = straight.snapshot()
    finally:
        straight.close()
    with affray.load_world(seal(tmp_path / "room.sav", copy.deepcopy(room))) as world:
        world.run()
        assert [event.to_dict() for event in world.events] == log
        assert world.snapshot() == final


def test_a_wide_gap_in_the_entity_ids_loads_with_the_ids_kept(tmp_path, room):
    """R-ENG-3: a million ids no entity holds (entities deleted) load at once, with no
    placeholder made for them: the ids and the next id are the saved ones."""
    data = copy.deepcopy(room)
    last_id, last = data["entities"][-1]
    data["entities"][-1] = [last_id + 1_000_000, last]
    data["next_entity"] += 1_000_000
    with affray.load_world(seal(tmp_path / "gap.sav", data)) as world:
        world.enter()
        ids = sorted(esper.get_entities())
        assert ids[-1] == last_id + 1_000_000 and len(ids) == len(data["entities"])
        assert esper.create_entity() == data["next_entity"]


# A scenario field, a save edit of creature "a" that holds the same value, and the field:
# the save is refused with the very words the scenario is.
SAME_AS_A_SCENARIO: dict[str, tuple[str, Callable[[dict], None], str]] = {
    "stat": ("stats = { str = 99 }",
             lambda d: creature(d)["Stats"].update(strength=99), "stats"),
    "level": ("level = 1000000000000",
              lambda d: creature(d)["Level"].update(level=10**12), "level"),
    "tier": ("npc_tier = 9", lambda d: creature(d)["Creature"].update(npc_tier=9), "npc_tier"),
    "wield": ('wield = "potion"', lambda d: creature(d)["Equipment"].update(wield="potion"),
              "wield"),
    "skill": ("skills = { dodge = 150 }",
              lambda d: creature(d)["Skills"].update(learned={"dodge": 150}), "skills"),
    "profession": ('profession = "pilot"',
                   lambda d: creature(d)["Creature"].update(profession="pilot"), "profession"),
    "alignment": ("alignment = 5000",
                  lambda d: creature(d)["Level"].update(alignment=5000), "alignment"),
    "clan": ('clan = "Bad Clan"', lambda d: creature(d)["Level"].update(clan="Bad Clan"),
             "clan"),
    "dice": ('damage = "1d0"', lambda d: creature(d)["Offense"].update(hand_dice=[1, 0, 0]),
             "damage"),
    "defence": ('defences = ["kick"]',
                lambda d: creature(d)["Defense"].update(defences=["kick"]), "defences"),
    "wear": ('wear = ["leather_armor", "chain_mail"]',
             lambda d: creature(d)["Equipment"].update(worn=[
                 {"item": "leather_armor", "slot": "body", "damaged": False},
                 {"item": "chain_mail", "slot": "body", "damaged": False}]), "wear"),
    "max_hp": ("hp = 20\nmax_hp = 2000000",
               lambda d: creature(d)["Vitals"].update(max_hp=2_000_000), "max_hp"),
    "hitroll": ("hitroll = 100000", lambda d: creature(d)["Offense"].update(hitroll=100_000),
                "hitroll"),
    "armor": ("armor = { bash = 1000000 }",
              lambda d: creature(d)["Defense"].update(armor_bash=1_000_000), "armor"),
    "bonus": ("skill_level_bonus = 500",
              lambda d: creature(d)["Level"].update(skill_level_bonus=500), "skill_level_bonus"),
    "remorts": ("remorts = 101", lambda d: creature(d)["Level"].update(remorts=101), "remorts"),
    "affect": ('affects = ["godmode"]', lambda d: creature(d)["Affects"].update(
        levels={"godmode": 0}, sources={"godmode": "scenario"}, since={"godmode": 0}),
        "affects"),
}


def _after_field(message: str, field: str) -> str:
    marker = f"field '{field}': "
    assert marker in message, (marker, message)
    return message.split(marker, 1)[1]


@pytest.mark.parametrize("case", sorted(SAME_AS_A_SCENARIO))
def test_a_save_refuses_a_creature_value_with_the_scenario_s_own_words_r_eng_1(
        tmp_path, payload, case):
    """R-ENG-1, R-ENG-3: a value a scenario refuses in a creature's field is refused in a
    save, by the same check (`check_template`) and in the same words, naming the field."""
    line, edit, field = SAME_AS_A_SCENARIO[case]
    with pytest.raises(affray.ScenarioError) as scenario:
        world_from_text(duel_text(attacker=line)).close()
    data = copy.deepcopy(payload)
    edit(data)
    message = _load_error(seal(tmp_path / f"{case}.sav", data))
    assert "creature 'a' (entity" in message
    assert _after_field(message, field) == _after_field(str(scenario.value), field)


@pytest.mark.parametrize(("item", "count", "field"), [("widget", 1, "item"),
                                                      ("scroll", -7, "count"),
                                                      ("scroll", 10**7, "count")])
def test_a_save_refuses_a_floor_stack_with_the_scenario_s_own_words_r_eng_1(
        tmp_path, payload, item, count, field):
    """R-ENG-1, R-ENG-3: a floor stack's item and count, as a scenario's `[[items]]`."""
    text = duel_text(extra=f'[[items]]\nat = [0, 0]\nitem = "{item}"\ncount = {count}\n')
    with pytest.raises(affray.ScenarioError) as scenario:
        world_from_text(text).close()
    data = copy.deepcopy(payload)
    entity_with(data, "ItemStack")["ItemStack"].update(item=item, count=count)
    message = _load_error(seal(tmp_path / "stack.sav", data))
    assert _after_field(message, field) == _after_field(str(scenario.value), field)


def test_a_save_refuses_a_scripted_action_with_the_scenario_s_own_words_r_eng_1(
        tmp_path, payload):
    """R-ENG-1, R-ENG-3: a scripted cast of an unknown spell, as a scenario's action."""
    with pytest.raises(affray.ScenarioError) as scenario:
        world_from_text(duel_text(extra='[[actions]]\nactor = "a"\ncast = "nope"\n'
                                        'target = "v"\n')).close()
    data = copy.deepcopy(payload)
    data["scripted"][0][1] = {"action": "cast", "actor": "a", "spell": "nope",
                              "target": "v", "via": "mana"}
    message = _load_error(seal(tmp_path / "scripted.sav", data))
    assert message.split(": ", 1)[1].startswith("scripted[0]: field 'cast': ")
    assert _after_field(message, "cast") == _after_field(str(scenario.value), "cast")


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


@component
@dataclass(slots=True)
class SaveDrillLantern:
    """A game's own component (registered by this test module): saved generically."""

    lit: bool = True


def test_a_game_s_own_components_save_and_load(tmp_path):
    """R-ENG-3: a component a game registers rides on a creature, and makes an entity of
    its own with a cell and a spawn number: both saved and loaded as they were (the kind
    checks refuse only the engine's own components out of place)."""
    world = world_from_text(ROOM)
    try:
        world.run(3)
        world.enter()
        esper.add_component(world.entity("a"), SaveDrillLantern(lit=False))
        lamp = esper.create_entity(world.next_spawn(), Position(2, 3), SaveDrillLantern())
        world.save(tmp_path / "game.sav")
    finally:
        world.close()
    with affray.load_world(tmp_path / "game.sav") as loaded:
        loaded.enter()
        assert loaded.component("a", SaveDrillLantern) == SaveDrillLantern(lit=False)
        assert esper.component_for_entity(lamp, Position) == Position(2, 3)
        assert esper.component_for_entity(lamp, SaveDrillLantern).lit is True
