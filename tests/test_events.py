"""Events: every state change emits a typed event; text is rendered from events (R-ENG-4)."""

from __future__ import annotations

import json

import affray
from affray import events as ev
from affray.text import render_event, render_log

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


def test_r_eng_4_a_caster_caught_by_its_own_cast_is_named_once():
    """R-ENG-4: a caster struck by its own cast through the water reads "is hit by its own
    ...", and where the blow came by comes before how it was softened."""
    own = ev.Damage(3, "mage", "mage", 3, 6, "lightning", "water", "spark", False, True)
    assert render_event(own) == "mage is hit by its own spark for 3 through the water (saved)."
    other = own._replace(target="orc", saved=False, critical=True, cause="arc")
    assert render_event(other) == "mage's spark hits orc for 3 (arc) (critical)."
    assert render_event(ev.Stun(3, "orc", "stun")) == "orc is stunned."
    assert render_event(ev.Death(3, "mage", "mage")) == "mage dies by its own hand."


def test_r_def_1_a_defence_reads_as_the_defender_doing_it():
    """R-DEF-1 in words: each default defence has its own verb; a game's own defence
    (registered under any name) still reads plainly."""
    said = {name: render_event(ev.Defended(3, "orc", "mage", name))
            for name in ("dodge", "parry", "shield_block", "bat_swarm", "my_ward")}
    assert said == {"dodge": "mage dodges orc's blow.",
                    "parry": "mage parries orc's blow.",
                    "shield_block": "mage blocks orc's blow with its shield.",
                    "bat_swarm": "orc's blow is lost in the bats around mage.",
                    "my_ward": "mage stops orc's blow with my ward."}
