"""Events: every state change emits a typed event; text is rendered from events (R-ENG-4)."""

from __future__ import annotations

import json
import re

import affray
from affray.core import events as ev
from affray.display.text import render_event, render_events, render_log

SCENARIO_KINDS = {
    "damage": ["source", "target", "amount", "raw", "damage_type", "cause", "spell",
               "critical", "saved"],
    "miss": ["source", "target", "cause"],
    "defended": ["source", "target", "defence"],
    "immune": ["source", "target", "damage_type"],
    "status": ["target", "status", "degree", "change"],
    "stun": ["target", "state"],
    "lost_round": ["target", "why"],
    "pushed": ["target", "from", "to"],
    "terrain": ["cell", "before", "after"],
    "fell_in": ["target", "cell"],
    "fire": ["cell", "change"],
    "door_broken": ["cell", "trap_destroyed"],
    "chest_broken": ["cell", "item"],
    "item_lost": ["cell", "item", "count", "damage_type", "message"],
    "gear_damaged": ["target", "item", "change"],
    "death": ["target", "killer"],
    "cast": ["actor", "spell", "level", "via", "target"],
    "refused": ["actor", "action", "reason"],
}

SAMPLES = [
    ev.Damage(3, "mage", "orc", 7, 9, "lightning", "spell", "spark", False, True),
    ev.Miss(3, "orc", "mage", "melee"),
    ev.Defended(3, "orc", "mage", "shield_block"),
    ev.Immune(3, "mage", "golem", "fire"),
    ev.StatusChanged(3, "orc", "burning", 1, "applied"),
    ev.Stun(3, "orc", "weak_stun"),
    ev.LostRound(3, "orc", "stun"),
    ev.Pushed(3, "orc", (2, 2), (3, 2)),
    ev.TerrainChanged(3, (4, 2), "water", "ice"),
    ev.FellIn(3, "orc", (4, 2)),
    ev.FireChanged(3, (4, 2), "lit"),
    ev.DoorBroken(3, (5, 0), True),
    ev.ChestBroken(3, (6, 1), "wooden_chest"),
    ev.ItemLost(3, (5, 2), "scroll", 3, "fire", "3 scrolls burn up."),
    ev.GearDamaged(3, "hero", "leather_armor", "damaged"),
    ev.Death(3, "orc", "mage"),
    ev.Cast(3, "mage", "spark", 17, "mana", "orc"),
    ev.Refused(3, "mage", "move", "occupied"),
]


def test_r_eng_4_every_kind_of_the_contract_has_a_typed_event():
    """R-ENG-4: each SCENARIO.md kind is a typed record whose dict has its fields."""
    by_kind = {sample.kind: sample for sample in SAMPLES}
    assert set(by_kind) == set(SCENARIO_KINDS)
    for kind, names in SCENARIO_KINDS.items():
        data = by_kind[kind].to_dict()
        # The contract's fields first, in order; additions (e.g. `cause`) may follow.
        assert list(data)[:len(names) + 2] == ["pulse", "kind", *names]
        assert data["pulse"] == 3 and data["kind"] == kind
        json.dumps(data)  # JSON-ready
        assert type(by_kind[kind]).__annotations__  # a typed record (NamedTuple)
    assert ev.Pushed(1, "a", (1, 2), (3, 4)).to_dict()["from"] == [1, 2]


def test_r_eng_4_events_round_trip_through_their_dicts():
    """R-ENG-4: an event rebuilt from its dict is equal to the original (saves rely on it)."""
    for sample in SAMPLES:
        assert ev.event_from_dict(sample.to_dict()) == sample


def test_r_eng_4_player_text_is_rendered_from_events():
    """R-ENG-4: one text module turns every event kind into a line of player text."""
    lines = {sample.kind: render_event(sample) for sample in SAMPLES}
    assert lines["damage"] == "mage's spark hits orc for 7 (saved)."
    assert lines["item_lost"] == "3 scrolls burn up."
    assert lines["pushed"] == "orc is knocked from [2, 2] to [3, 2]."
    assert lines["refused"] == "mage cannot move: someone is already standing there."
    assert lines["death"] == "orc is killed by mage."
    assert all(line and not line.startswith("(") for line in lines.values())
    assert render_log(SAMPLES[:1]) == ["[   3] mage's spark hits orc for 7 (saved)."]


def test_r_eng_4_a_move_emits_an_event(make_world):
    """R-ENG-4: a state change (a step) emits one event with where from and where to."""
    world = make_world("[map]\nrows = ['...']\n[[creatures]]\nid = 'a'\nat = [0, 0]\n")
    world.submit(affray.Move(actor="a", to=(1, 0)))
    world.tick()
    assert [e.to_dict() for e in world.events] == [
        {"pulse": 0, "kind": "moved", "target": "a", "from": [0, 0], "to": [1, 0]}]


def test_r_eng_4_a_caster_caught_by_their_own_cast_is_named_once():
    """R-ENG-4: a caster struck by their own cast through the water reads "is hit by their
    own ...", and where the blow came by comes before how it was softened."""
    own = ev.Damage(3, "mage", "mage", 3, 6, "lightning", "water", "spark", False, True)
    assert render_event(own) == ("mage is hit by their own spark for 3 through the water "
                                 "(saved).")
    other = own._replace(target="orc", saved=False, critical=True, cause="arc")
    assert render_event(other) == "mage's spark hits orc for 3 (arc) (critical)."
    assert render_event(ev.Stun(3, "orc", "stun")) == "orc is stunned."
    assert render_event(ev.Death(3, "mage", "mage")) == "mage dies by their own hand."


def test_r_def_1_a_defence_reads_as_the_defender_doing_it():
    """R-DEF-1 in words: each default defence has its own verb; a game's own defence
    (registered under any name) still reads plainly."""
    said = {name: render_event(ev.Defended(3, "orc", "mage", name))
            for name in ("dodge", "parry", "shield_block", "bat_swarm", "my_ward")}
    assert said == {"dodge": "mage dodges orc's blow.",
                    "parry": "mage parries orc's blow.",
                    "shield_block": "mage blocks orc's blow with their shield.",
                    "bat_swarm": "orc's blow is lost in the bats around mage.",
                    "my_ward": "mage stops orc's blow with my ward."}


# -- player text read as a player would (the audit of what people look at) ------------------
POND = """
name = "pond"
[map]
rows = ["#######", "#.~~~.#", "#.~~~.#", "#.~~~.#", "#.....#", "#######"]
[[creatures]]
id = "mage"
template = "human_mage"
at = [1, 4]
[[creatures]]
id = "witch"
template = "human_mage"
at = [5, 4]
"""


def test_r_eng_4_people_are_they_never_it():
    """R-ENG-4: no line calls a creature "it": a defender blocks with *their* shield, a
    caster is hit by *their* own spark, a refusal says *they* are held; only a thing (a
    door's trap) is "it"."""
    said = [render_event(event) for event in (
        ev.Defended(3, "orc", "hero", "shield_block"),
        ev.Defended(3, "orc", "hero", "hand_block"),
        ev.Damage(3, "hero", "hero", 3, 6, "lightning", "water", "spark", False, False),
        ev.Damage(3, None, "hero", 1, 1, "acid", "status", None, False, False, "corroded"),
        ev.Death(3, "hero", "hero"),
        ev.Refused(3, "hero", "move", "not adjacent"),
        ev.Refused(3, "hero", "move", "held"),
        ev.Refused(3, "hero", "attack", "stunned"),
        ev.Refused(3, "hero", "attack", "target dead"),
        ev.Refused(3, "hero", "attack", "out of range"),
    )]
    assert said == [
        "hero blocks orc's blow with their shield.",
        "hero blocks orc's blow with their hands.",
        "hero is hit by their own spark for 3 through the water.",
        "hero loses 1 to the acid eating at them.",
        "hero dies by their own hand.",
        "hero cannot move: that cell is not beside them.",
        "hero cannot move: they are held fast and cannot step away.",
        "hero cannot attack: they are stunned.",
        "hero cannot attack: their target is already dead.",
        "hero cannot attack: their target is no longer beside them.",
    ]
    every = [render_event(sample) for sample in SAMPLES if sample.kind != "door_broken"]
    assert not [line for line in said + every if re.search(r"\bits?\b", line)]


def test_r_cold_2_a_frost_burst_over_water_is_one_line_not_one_a_cell(make_world):
    """R-COLD-2 in words: a frost burst freezing the 9 water cells of a pond reads as one
    line, where the first cell's line was, not nine; the cast's line comes first. The
    events themselves stay one a cell (SCENARIO.md), and each still renders alone."""
    world = make_world(POND)
    world.submit(affray.Cast(actor="mage", spell="frost_burst", target=(3, 2)))
    world.tick()
    terrain = [e for e in world.events if e.kind == "terrain"]
    assert len(terrain) == 9
    assert render_log(world.events) == ["[   0] mage casts frost burst at [3, 2].",
                                        "[   0] The water freezes over on 9 cells."]
    lines = render_events(world.events)
    assert lines.count(None) == 8 and lines[-9] == "The water freezes over on 9 cells."
    assert render_event(terrain[0]) == "The water at [2, 1] turns to ice."


def test_r_cold_2_one_cell_keeps_its_own_line_and_two_casters_keep_theirs(make_world):
    """R-SHAPE-2 / R-COLD-2: a ray of frost freezes one cell: its line names the cell;
    the cell effects of two casters in one pulse fold per caster, never together."""
    world = make_world(POND)
    world.submit(affray.Cast(actor="mage", spell="ray_of_frost", target=(2, 3)))
    world.submit(affray.Cast(actor="witch", spell="ray_of_frost", target=(4, 3)))
    world.tick()
    log = [line.split("] ", 1)[1] for line in render_log(world.events)]
    assert [line for line in log if "water" in line] == ["The water at [2, 3] turns to ice.",
                                                         "The water at [4, 3] turns to ice."]


def test_r_eng_4_folded_fires_and_doors_read_as_one_line():
    """R-COLD-2, R-TERR-1, R-FORCE-2 in words: fires going out on several cells, and a
    blast breaking several doors (one trapped), each read as one line naming the count or
    the cells; a different pulse or a different cause is never folded in."""
    events = [ev.FireChanged(5, (1, 1), "out", "mage"), ev.FireChanged(5, (2, 1), "out", "mage"),
              ev.FireChanged(5, (3, 1), "out", "mage"), ev.FireChanged(6, (4, 1), "out", "mage"),
              ev.DoorBroken(5, (5, 1), False, "mage"), ev.DoorBroken(5, (6, 2), True, "mage"),
              ev.FireChanged(5, (9, 9), "expired", None)]
    assert render_log(events) == [
        "[   5] The fires go out on 3 cells.",
        "[   6] The fire goes out at [4, 1].",
        "[   5] The doors at [5, 1] and [6, 2] are blasted apart, and the trap at [6, 2] "
        "with them.",
        "[   5] The fire dies down at [9, 9]."]


def test_r_dmg_1_scripted_damage_is_not_a_blow(duel):
    """R-DMG-1: `World.damage` (cause "script", or "raw", which skips the protections)
    reads as damage taken, never as a melee blow ("a's slash hits v for 5")."""
    world = duel(victim="hp = 100")
    world.damage("a", "v", 5, "slash", cause="raw")
    world.damage(None, "v", 4, "fire", cause="raw")
    world.damage("a", "v", 40, "fire", spell="fireball")
    world.damage(None, "v", 3, "bash")
    said = [render_event(e) for e in world.events if e.kind == "damage"]
    taken = [e.amount for e in world.events if e.kind == "damage"]
    assert said == [f"v loses {taken[0]} hit points to slash from a.",
                    f"v loses {taken[1]} hit points to fire.",
                    f"v takes {taken[2]} fire damage from a's fireball.",
                    f"v takes {taken[3]} bash damage."]
    assert not [line for line in said if " hits " in line]
