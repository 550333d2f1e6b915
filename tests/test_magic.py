"""Magic on the creatures a cast strikes, end to end through the Spell system: the type
rules (R-TYPE-1/2, R-FIRE-1, R-COLD-1, R-POIS-1, R-NECRO-1, R-ACID-1/2), the save's place
in a strike (R-SAVE-10, R-SAVE-6), spell criticals (R-SHAPE-4) and strike order
(R-SHAPE-6); melee never carries a type rule (R-MELEE-8).

Every test builds its world from scenario TOML, submits `Cast` actions, ticks, and reads
`world.events`. Rolls are fixed by scenario-inline spells with whole-number damage, and the
draws a rule compares are pinned (`pin_draws`), so an off-by-one at a boundary fails.

The helpers here (`pin_draws`, `spell_toml`, `cast`, `events_of`) are shared by
test_spells.py and test_statuses.py.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import four_sigma

import affray
from affray.data.defs import VIAS
from affray.display.text import render_event


# -- helpers ------------------------------------------------------------------------------
def pin_draws(world: affray.World, monkeypatch: pytest.MonkeyPatch, draw: str,
              values: list[Any]) -> list[Any]:
    """Make `world.rng.<draw>()` return `values` one by one; one more call fails the test
    (so a test also pins how many draws a rule makes). `chance(n)` reads `percent()`, so
    pinning percent pins chance too. Returns the list of values handed out so far."""
    queue = list(values)
    given: list[Any] = []

    def pinned(*_args: Any) -> Any:
        if not queue:
            raise AssertionError(f"an unexpected {draw}() draw (pinned {values})")
        given.append(queue.pop(0))
        return given[-1]

    monkeypatch.setattr(world.rng, draw, pinned)
    return given


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    return str(value)


def spell_toml(name: str, **fields: Any) -> str:
    """A scenario-inline spell: a bolt of range 8, damage "20", no save, unless told."""
    values = {"type": "fire", "shape": "bolt", "range": 8, "damage": "20", "save": "none"}
    values.update(fields)
    body = "\n".join(f"{key} = {toml_value(value)}" for key, value in values.items())
    return f"[content.spells.{name}]\n{body}\n"


def cast(world: affray.World, actor: str, spell: str, target: Any,
         via: str = "mana") -> list[dict[str, Any]]:
    """Submit a cast and tick once; the events that pulse logged, as dicts."""
    start = len(world.events)
    world.submit(affray.Cast(actor=actor, spell=spell, target=target, via=via))
    world.tick()
    return [event.to_dict() for event in world.events[start:]]


def events_of(world: affray.World, kind: str, **fields: Any) -> list[dict[str, Any]]:
    """The logged events of one kind whose fields match `fields`, as dicts."""
    found = []
    for event in world.events:
        data = event.to_dict()
        if data["kind"] == kind and all(data.get(k) == v for k, v in fields.items()):
            found.append(data)
    return found


def kinds(events: list[dict[str, Any]]) -> list[str]:
    return [event["kind"] for event in events]


# -- R-TYPE-1: the type rule comes with the spell, whatever the via ------------------------
@pytest.mark.parametrize("via", VIAS)
def test_type_rule_applies_whatever_the_via_r_type_1(standoff, via):
    """R-TYPE-1: a cold spell leaves Sluggish on the harmed from mana, scroll, wand, trap
    or breath alike; a fire spell's burning roll is made for every via too."""
    world = standoff(victim="hp = 200", extra=spell_toml("test_cold", type="cold"))
    log = cast(world, "a", "test_cold", "v", via=via)
    assert log[0] == {"pulse": 0, "kind": "cast", "actor": "a", "spell": "test_cold",
                      "level": 1, "via": via, "target": "v"}
    assert log[1]["kind"] == "damage" and log[1]["amount"] == 16  # 20 trimmed (R-PROT-6)
    assert log[2] == {"pulse": 0, "kind": "status", "target": "v", "status": "sluggish",
                      "degree": 1, "change": "applied"}


@pytest.mark.parametrize("via", VIAS)
def test_fire_rule_applies_whatever_the_via_r_type_1(standoff, monkeypatch, via):
    """R-TYPE-1 / R-FIRE-1: the burning roll happens for a fire cast of every via."""
    world = standoff(victim="hp = 200", extra=spell_toml("test_fire"))
    drawn = pin_draws(world, monkeypatch, "percent", [1])
    cast(world, "a", "test_fire", "v", via=via)
    assert drawn == [1]
    assert events_of(world, "status", target="v", status="burning", degree=1)


@pytest.mark.parametrize(("imm", "via", "blocked"), [
    ("spell", "mana", True), ("spell", "breath", True),      # magic checks spell too
    ("magic", "scroll", True), ("magic", "breath", True),
    ("prayer", "wand", True), ("prayer", "breath", False),   # only a spell checks prayer
])
def test_a_breath_is_magic_but_no_spell_r_dmg_3(standoff, imm, via, blocked):
    """R-DMG-3 / R-IMM-2: a cast from mana, scroll or wand carries the spell flag (any of
    the spell, magic, prayer bits stops it); a dragon's breath carries magic only (the
    magic and spell bits stop it, prayer does not). A breath that harms brings its type
    rule (Sluggish from cold)."""
    world = standoff(victim=f'hp = 100\nimm = ["{imm}"]',
                     extra=spell_toml("test_cold", type="cold", damage="5"))
    log = cast(world, "a", "test_cold", "v", via=via)
    if blocked:
        assert kinds(log) == ["cast", "immune"]
    else:
        assert kinds(log) == ["cast", "damage", "status"] and log[1]["amount"] == 5


def test_type_rules_spare_no_one_caster_included_r_type_1(make_world):
    """R-TYPE-1: the caster and its allies are struck like anyone the spell reaches: a
    cold burst the caster stands in leaves the caster Sluggish too."""
    world = make_world(
        'name = "t"\n[map]\nrows = [".....", ".....", "....."]\n'
        '[[creatures]]\nid = "a"\nat = [1, 1]\nhp = 100\n'
        '[[creatures]]\nid = "ally"\nat = [1, 2]\nhp = 100\n'
        '[[creatures]]\nid = "v"\nat = [2, 1]\nhp = 100\n'
        + spell_toml("test_frost", type="cold", shape="burst", radius=1))
    cast(world, "a", "test_frost", [2, 1])
    struck = [e["target"] for e in events_of(world, "status", status="sluggish")]
    assert struck == ["a", "ally", "v"]


def test_a_fire_weapon_sets_no_one_burning_r_melee_8(duel):
    """R-MELEE-8: a blow of a fire weapon follows no type rule: even with the burning
    chance at 100%, harmful fire blows leave no one burning (the same world's fire spell
    does, so the chance is really on)."""
    extra = ('[content.world]\nburning_chance = 100\n'
             '[content.items.flame_blade]\nclass = "weapon"\nmaterial = "steel"\n'
             'damage = "2d8"\ndamage_type = "fire"\nweapon_class = "sword"\n'
             + spell_toml("test_fire"))
    world = duel('level = 30\nwield = "flame_blade"\nhitroll = 50\nskills = { sword = 100 }',
                 "hp = 1000", extra=extra, seed=1)
    world.submit(affray.Attack(actor="a", target="v"))
    world.run(120)
    blows = events_of(world, "damage", source="a", cause="melee", damage_type="fire")
    assert sum(1 for blow in blows if blow["amount"] >= 1) >= 5
    assert events_of(world, "status") == []
    world.submit(affray.Cast(actor="a", spell="test_fire", target="v"))
    world.run(12)
    assert events_of(world, "status", target="v", status="burning", change="applied")


# -- R-TYPE-2: no harm, no type effect -----------------------------------------------------
def test_an_immune_creature_gets_no_type_effect_r_type_2(standoff, monkeypatch):
    """R-TYPE-2: a victim immune to cold is not made Sluggish and keeps its Burning; one
    immune to fire is never rolled for burning (no draw at all)."""
    world = standoff(victim='hp = 100\nimm = ["cold"]\nstatuses = { burning = 1 }',
                 extra=spell_toml("test_cold", type="cold"))
    log = cast(world, "a", "test_cold", "v")
    assert kinds(log) == ["cast", "immune"]
    assert world.sheet("v").statuses.degrees == {"burning": 1}
    fire = standoff(victim='hp = 100\nimm = ["fire"]', extra=spell_toml("test_fire"))
    pin_draws(fire, monkeypatch, "percent", [])
    assert kinds(cast(fire, "a", "test_fire", "v")) == ["cast", "immune"]
    assert fire.sheet("v").statuses.degrees == {}


def test_a_hit_cut_to_nothing_is_no_harm_r_type_2(standoff, monkeypatch):
    """R-TYPE-2: harmed means at least 1 hit point lost after protections: 1 under
    sanctuary is 0 (a `damage` event of 0, no Sluggish, burning not put out), 2 under
    sanctuary is 1 (harmed: Sluggish, burning out)."""
    victim = 'hp = 100\naffects = ["sanctuary"]\nstatuses = { burning = 1 }'
    extra = spell_toml("cold_1", type="cold", damage="1") + spell_toml(
        "cold_2", type="cold", damage="2") + spell_toml("fire_1", damage="1")
    world = standoff(victim=victim, extra=extra)
    log = cast(world, "a", "cold_1", "v")
    assert kinds(log) == ["cast", "damage"] and log[1]["amount"] == 0 and log[1]["raw"] == 1
    assert world.sheet("v").statuses.degrees == {"burning": 1}
    fire = standoff(victim=victim, extra=extra)
    pin_draws(fire, monkeypatch, "percent", [])  # no burning roll for a 0 hit
    assert kinds(cast(fire, "a", "fire_1", "v")) == ["cast", "damage"]
    harmed = standoff(victim=victim, extra=extra)
    log = cast(harmed, "a", "cold_2", "v")
    assert log[1]["amount"] == 1
    assert [(e["status"], e["change"]) for e in log[2:]] == [("sluggish", "applied"),
                                                             ("burning", "ended")]


# -- R-FIRE-1 ------------------------------------------------------------------------------
@pytest.mark.parametrize(("roll", "burns"), [(1, True), (25, True), (26, False), (100, False)])
def test_burning_roll_boundary_r_fire_1(standoff, monkeypatch, roll, burns):
    """R-FIRE-1: Burning 1 when chance(25) holds: a 1..100 roll at or under 25. A roll of
    25 burns, 26 does not; exactly one roll per harmed creature."""
    world = standoff(victim="hp = 100", extra=spell_toml("test_fire"))
    drawn = pin_draws(world, monkeypatch, "percent", [roll])
    log = cast(world, "a", "test_fire", "v")
    assert drawn == [roll]
    status = [e for e in log if e["kind"] == "status"]
    if burns:
        assert status == [{"pulse": 0, "kind": "status", "target": "v", "status": "burning",
                           "degree": 1, "change": "applied"}]
    else:
        assert status == []


def test_every_fire_spell_rolls_per_creature_r_fire_1(make_world, monkeypatch):
    """R-FIRE-1: whatever the spell (a burst here), each harmed creature has its own roll,
    in strike order: rolls 25, 26, 3 burn the first and third."""
    world = make_world(
        'name = "t"\n[map]\nrows = [".....", ".....", "....."]\n'
        '[[creatures]]\nid = "a"\nat = [0, 1]\n'
        '[[creatures]]\nid = "x1"\nat = [3, 0]\nhp = 100\n'
        '[[creatures]]\nid = "x2"\nat = [3, 1]\nhp = 100\n'
        '[[creatures]]\nid = "x3"\nat = [3, 2]\nhp = 100\n'
        + spell_toml("test_fireball", shape="burst", radius=1))
    drawn = pin_draws(world, monkeypatch, "percent", [25, 26, 3])
    cast(world, "a", "test_fireball", [3, 1])
    assert drawn == [25, 26, 3]
    assert [e["target"] for e in events_of(world, "status", status="burning")] == ["x1", "x3"]


def test_one_in_four_harmed_creatures_burns_r_fire_1(make_world):
    """R-FIRE-1: over 49 creatures x 60 fireballs (2940 harmed), the burning rate is
    25% within four binomial sigmas."""
    rows = ["." * 11] * 11
    creatures = "".join(f'[[creatures]]\nid = "k{x}_{y}"\nat = [{x}, {y}]\nhp = 100000\n'
                        for y in range(2, 9) for x in range(2, 9))
    world = make_world(
        f'name = "t"\n[map]\nrows = {json.dumps(rows)}\n'
        '[[creatures]]\nid = "mage"\nat = [0, 0]\n' + creatures
        + spell_toml("test_fireball", shape="burst", radius=3), seed=11)
    casts = 60
    for _ in range(casts):
        world.submit(affray.Cast(actor="mage", spell="test_fireball", target=[5, 5]))
        world.run(12)
    harmed = [e for e in events_of(world, "damage", cause="spell") if e["amount"] >= 1]
    assert len(harmed) == 49 * casts
    burned = events_of(world, "status", status="burning", change="applied")
    rate = len(burned) / len(harmed)
    assert abs(rate - 0.25) <= four_sigma(0.25, len(harmed))


# -- R-COLD-1 ------------------------------------------------------------------------------
def test_cold_harm_slows_and_puts_out_burning_r_cold_1(standoff):
    """R-COLD-1: a cold spell that harms: Sluggish 1, and its Burning (degree 2 here)
    ends at once, so no burn tick follows."""
    world = standoff(victim="hp = 100\nstatuses = { burning = 2 }",
                 extra=spell_toml("test_cold", type="cold", damage="5"))
    log = cast(world, "a", "test_cold", "v")
    assert log[1:] == [
        {"pulse": 0, "kind": "damage", "source": "a", "target": "v", "amount": 5, "raw": 5,
         "damage_type": "cold", "cause": "spell", "spell": "test_cold", "critical": False,
         "saved": False, "status": None},
        {"pulse": 0, "kind": "status", "target": "v", "status": "sluggish", "degree": 1,
         "change": "applied"},
        {"pulse": 0, "kind": "status", "target": "v", "status": "burning", "degree": 0,
         "change": "ended"}]
    world.run(60)
    assert events_of(world, "damage", status="burning") == []
    assert world.sheet("v").vitals.hp == 95


def test_a_cold_miss_does_nothing_r_cold_1(standoff):
    """R-COLD-1: a cold bolt that strikes no one (aimed at an empty cell off the victim's
    line) leaves the victim burning and not sluggish."""
    world = standoff(victim="hp = 100\nstatuses = { burning = 1 }",
                 extra=spell_toml("test_cold", type="cold"))
    log = cast(world, "a", "test_cold", [1, 0])
    assert kinds(log) == ["cast"]
    assert world.sheet("v").statuses.degrees == {"burning": 1}


# -- R-POIS-1 ------------------------------------------------------------------------------
def test_poison_adds_a_degree_on_each_harm_r_pois_1(standoff):
    """R-POIS-1: Poisoned one degree more on each harm: 1, then 2."""
    world = standoff(victim="hp = 100", extra=spell_toml("test_poison", type="poison", damage="3"))
    cast(world, "a", "test_poison", "v")
    world.run(11)
    world.submit(affray.Cast(actor="a", spell="test_poison", target="v"))
    world.run(1)
    applied = events_of(world, "status", target="v", status="poisoned", change="applied")
    assert [(e["pulse"], e["degree"]) for e in applied] == [(0, 1), (12, 2)]
    assert world.snapshot()["creatures"]["v"]["statuses"] == {"poisoned": 2}


# -- R-NECRO-1 -----------------------------------------------------------------------------
@pytest.mark.parametrize(("hp", "max_hp", "roll", "raw"), [
    (49, 100, 7, 10),   # below half: 7 + 7//2 = 10
    (50, 100, 7, 7),    # exactly half: no bonus
    (49, 100, 6, 9),
    (49, 100, 1, 1),    # 1 + 0
    (1, 100, 9, 13),    # 9 + 4 = 13 (then trimmed to 10, R-PROT-6)
    (49, 99, 7, 10),    # 49 of 99 is 49.5%: below half (a truncated 99/2 = 49 would miss it)
    (50, 99, 7, 7),     # 50.5%
])
def test_necrotic_half_again_below_half_hp_r_necro_1(standoff, hp, max_hp, roll, raw):
    """R-NECRO-1: half again, rounded down, against a creature below 50% of its hit
    points: hp 49 of 100 takes 7 as 10; hp 50 (exactly half) gets no bonus; 49 of 99
    is below half."""
    world = standoff(victim=f"hp = {hp}\nmax_hp = {max_hp}",
                 extra=spell_toml("test_rot", type="necrotic", damage=str(roll)))
    log = cast(world, "a", "test_rot", "v")
    damage = log[1]
    assert damage["damage_type"] == "negative"
    assert damage["raw"] == raw
    assert damage["amount"] == (raw * 4 // 5 if raw > 10 else raw)


def test_necrotic_bonus_comes_before_protections_and_the_save_r_necro_1(standoff, monkeypatch):
    """R-NECRO-1: the bonus is added before the protections: 7 -> 10 -> sanctuary 5 (not
    7 -> 3 -> 4); and before the save's halving (R-SAVE-10): 7 -> 10 -> saved 5."""
    extra = (spell_toml("test_rot", type="necrotic", damage="7")
             + spell_toml("test_rot_save", type="necrotic", damage="7", save="half"))
    world = standoff(victim='hp = 49\nmax_hp = 100\naffects = ["sanctuary"]', extra=extra)
    log = cast(world, "a", "test_rot", "v")
    assert (log[1]["raw"], log[1]["amount"]) == (10, 5)
    saved = standoff(victim="hp = 49\nmax_hp = 100", extra=extra)
    pin_draws(saved, monkeypatch, "percent", [1])  # 1 < 40: saves
    log = cast(saved, "a", "test_rot_save", "v")
    assert (log[1]["raw"], log[1]["amount"], log[1]["saved"]) == (5, 5, True)


def test_the_undead_are_immune_to_necrotic_harm_r_necro_1(standoff, monkeypatch):
    """R-NECRO-1: an undead victim: an `immune` event, no damage, no save rolled, hp kept
    (even below half, where the bonus would apply)."""
    world = standoff(victim="hp = 10\nmax_hp = 100\nundead = true",
                 extra=spell_toml("test_rot", type="necrotic", damage="7", save="half"))
    pin_draws(world, monkeypatch, "percent", [])
    log = cast(world, "a", "test_rot", "v")
    assert log[1:] == [{"pulse": 0, "kind": "immune", "source": "a", "target": "v",
                        "damage_type": "negative"}]
    assert world.sheet("v").vitals.hp == 10


# -- R-ACID-1 / R-ACID-2 -------------------------------------------------------------------
def test_acid_corrodes_two_hit_points_over_48_pulses_r_acid_1(standoff):
    """R-ACID-1 (with R-STAT-3): acid that harms leaves Corroded 1: one raw hit point at
    pulse 24 and one at 48 (sanctuary does not cut them), then the status ends."""
    world = standoff(victim='hp = 100\naffects = ["sanctuary"]',
                 extra=spell_toml("test_acid", type="acid", damage="10"))
    log = cast(world, "a", "test_acid", "v")
    assert log[1]["amount"] == 5  # the spell hit itself is protected
    assert log[2] == {"pulse": 0, "kind": "status", "target": "v", "status": "corroded",
                      "degree": 1, "change": "applied"}
    world.run(100)
    ticks = events_of(world, "damage", status="corroded")
    assert [(e["pulse"], e["amount"], e["raw"], e["cause"]) for e in ticks] == [
        (24, 1, 1, "status"), (48, 1, 1, "status")]
    assert [e["pulse"] for e in events_of(world, "status", change="ended")] == [48]
    assert world.sheet("v").vitals.hp == 100 - 5 - 2


ACID_GEAR = """
[content.materials.test_tin]
family = "metal"
acid_resist = 60
[content.items.test_plate]
class = "armor"
material = "test_tin"
slot = "body"
armor = { exotic = 400 }
[content.items.test_cap]
class = "armor"
material = "test_tin"
slot = "head"
"""


def acid_world(standoff, player: bool = True):
    victim = (f'hp = 500\nplayer = {toml_value(player)}\n'
              'wear = ["test_cap", "test_plate"]')  # listed head first: body is eaten first
    return standoff("level = 10", victim,
                extra=ACID_GEAR + spell_toml("test_acid", type="acid", damage="10"))


def test_acid_eats_body_armour_first_then_destroys_it_r_acid_2(standoff, monkeypatch):
    """R-ACID-2: acid that harms a player damages its body armour (worn second in the
    list, eaten first), then destroys it: the armour's protection is gone at once, so the
    next acid hit is no longer reduced; then the next piece (the cap) is eaten."""
    world = acid_world(standoff)
    victim = world.sheet("v")
    assert victim.armor("exotic") == 400
    pin_draws(world, monkeypatch, "percent", [61, 61, 61])  # never withstands (60%)
    first = cast(world, "a", "test_acid", "v")
    assert first[1]["amount"] < 10  # armour reduced it
    assert first[-1] == {"pulse": 0, "kind": "gear_damaged", "target": "v",
                         "item": "test_plate", "change": "damaged"}
    world.run(11)
    second = cast(world, "a", "test_acid", "v")
    assert second[1]["amount"] == first[1]["amount"]  # damaged armour still protects
    assert second[-1]["item"] == "test_plate" and second[-1]["change"] == "destroyed"
    assert render_event(first[-1]) == "v's test plate is damaged by acid."
    assert render_event(second[-1]) == "v's test plate is eaten away."
    assert [piece.item for piece in victim.equipment.worn] == ["test_cap"]
    assert victim.armor("exotic") == 0
    world.run(11)
    third = cast(world, "a", "test_acid", "v")  # at pulse 24, after a corroded tick
    assert [e["amount"] for e in third if e.get("cause") == "spell"] == [10]  # no armour
    assert third[-1] == {"pulse": 24, "kind": "gear_damaged", "target": "v",
                         "item": "test_cap", "change": "damaged"}


ROBES = """
[content.items.holy_robe]
class = "armor"
material = "cloth"
slot = "body"
grants_affects = ["sanctuary", "protection_heat"]
grants_imm = ["cold"]
[content.items.ember_ring]
class = "armor"
material = "gold"
slot = "finger"
grants_affects = ["protection_heat"]
"""


def test_destroyed_armour_takes_what_it_granted_with_it_r_acid_2(standoff, monkeypatch):
    """R-ACID-2 / R-IMM-6: a body robe granting sanctuary, protection from heat and cold
    immunity is eaten away: sanctuary and the immunity go with it (the next acid hit is
    no longer halved, and cold harms again); protection from heat stays, since the ring
    still worn grants it too."""
    world = standoff(victim='hp = 300\nplayer = true\nwear = ["ember_ring", "holy_robe"]',
                 extra=ROBES + spell_toml("test_acid", type="acid", damage="10")
                 + spell_toml("test_cold", type="cold", damage="10"))
    pin_draws(world, monkeypatch, "percent", [100, 100, 100])  # the robe twice, the ring
    assert kinds(cast(world, "a", "test_cold", "v")) == ["cast", "immune"]
    world.run(11)
    first = cast(world, "a", "test_acid", "v")
    assert [e["amount"] for e in first if e["kind"] == "damage"] == [5]  # sanctuary
    world.run(11)
    second = cast(world, "a", "test_acid", "v")
    assert second[-1]["change"] == "destroyed"
    assert world.snapshot()["creatures"]["v"]["affects"] == ["protection_heat"]
    world.run(11)
    third = cast(world, "a", "test_acid", "v")
    assert [e["amount"] for e in third if e.get("cause") == "spell"] == [10]
    world.run(11)
    assert [e["amount"] for e in cast(world, "a", "test_cold", "v")
            if e.get("cause") == "spell"] == [10]


@pytest.mark.parametrize(("roll", "eaten"), [(60, False), (61, True)])
def test_acid_resist_boundary_r_acid_2(standoff, monkeypatch, roll, eaten):
    """R-ACID-2: a material withstands acid at its chance: a 1..100 roll at or under
    acid_resist (60) withstands; 61 does not."""
    world = acid_world(standoff)
    drawn = pin_draws(world, monkeypatch, "percent", [roll])
    log = cast(world, "a", "test_acid", "v")
    assert drawn == [roll]
    assert ("gear_damaged" in kinds(log)) is eaten
    assert world.sheet("v").equipment.worn[0].damaged is eaten


def test_acid_eats_no_npc_gear_r_acid_2(standoff, monkeypatch):
    """R-ACID-2: a non-player creature harmed by acid is corroded, but its gear is never
    rolled for or touched."""
    world = acid_world(standoff, player=False)
    pin_draws(world, monkeypatch, "percent", [])
    log = cast(world, "a", "test_acid", "v")
    assert kinds(log) == ["cast", "damage", "status"]
    assert [(p.item, p.damaged) for p in world.sheet("v").equipment.worn] == [
        ("test_plate", False), ("test_cap", False)]


# -- R-SAVE-10 / R-SAVE-6 in a strike ------------------------------------------------------
SAVE_SPELLS = (spell_toml("cold_half", type="cold", damage="21", save="half")
               + spell_toml("cold_none", type="cold", damage="21"))


@pytest.mark.parametrize(("roll", "saved", "amount"), [(39, True, 10), (40, False, 16)])
def test_a_save_halves_before_the_protections_r_save_10(standoff, monkeypatch, roll, saved,
                                                        amount):
    """R-SAVE-10: level 1 against level 1 saves at 40 (a roll below 40). Saved: 21 -> 10
    (integer half) -> no flat trim (10 is not above 10) -> 10. Unsaved: 21 -> trim 16.
    (Halving after the protections would give 8.)"""
    world = standoff(victim="hp = 100", extra=SAVE_SPELLS)
    pin_draws(world, monkeypatch, "percent", [roll])
    log = cast(world, "a", "cold_half", "v")
    assert (log[1]["raw"], log[1]["amount"], log[1]["saved"]) == (
        10 if saved else 21, amount, saved)


def test_save_none_rolls_no_save_r_save_10(standoff, monkeypatch):
    """R-SAVE-10: a spell with save = "none" never calls the save."""
    from affray.systems.rules import magic

    def no_save(*_args: Any, **_kw: Any) -> bool:
        raise AssertionError("a save was rolled for a save = 'none' spell")

    monkeypatch.setattr(magic, "saves_spell", no_save)
    world = standoff(victim="hp = 100", extra=SAVE_SPELLS)
    log = cast(world, "a", "cold_none", "v")
    assert (log[1]["raw"], log[1]["amount"], log[1]["saved"]) == (21, 16, False)


def test_each_creature_struck_rolls_its_own_save_r_save_10(make_world, monkeypatch):
    """R-SAVE-10: one roll of damage, one save per creature struck, in spawn order: the
    rolls 39, 40, 39 save the first and third (10 each) and not the second (16)."""
    world = make_world(
        'name = "t"\n[map]\nrows = [".....", ".....", "....."]\n'
        '[[creatures]]\nid = "a"\nat = [0, 1]\n'
        '[[creatures]]\nid = "x1"\nat = [3, 0]\nhp = 100\n'
        '[[creatures]]\nid = "x2"\nat = [3, 1]\nhp = 100\n'
        '[[creatures]]\nid = "x3"\nat = [3, 2]\nhp = 100\n'
        + spell_toml("frost", type="cold", shape="burst", damage="21", save="half"))
    drawn = pin_draws(world, monkeypatch, "percent", [39, 40, 39])
    cast(world, "a", "frost", [3, 1])
    assert drawn == [39, 40, 39]
    hits = [(e["target"], e["saved"], e["amount"]) for e in events_of(world, "damage")]
    assert hits == [("x1", True, 10), ("x2", False, 16), ("x3", True, 10)]


def test_an_immune_victim_always_saves_r_save_6(standoff, monkeypatch):
    """R-SAVE-6: an immune victim saves without a roll, so a spell's failed-save effects
    (12 pulses of wait here) never reach it; a non-immune one failing its save gets them."""
    spell = spell_toml("frost_wait", type="cold", damage="21", save="half", wait=12)
    immune = standoff(victim='hp = 100\nimm = ["cold"]', extra=spell)
    pin_draws(immune, monkeypatch, "percent", [])
    assert kinds(cast(immune, "a", "frost_wait", "v")) == ["cast", "immune"]
    assert immune.wait_of("v") == 0
    plain = standoff(victim="hp = 100", extra=spell)
    pin_draws(plain, monkeypatch, "percent", [40])
    cast(plain, "a", "frost_wait", "v")
    assert plain.wait_of("v") == 12


# -- R-SHAPE-4: spell criticals ------------------------------------------------------------
@pytest.mark.parametrize("shape", ["bolt", "ray", "touch"])
@pytest.mark.parametrize(("draw", "critical"), [(0.49999, True), (0.5, False)])
def test_a_spell_critical_doubles_the_roll_r_shape_4(duel, monkeypatch, shape, draw,
                                                     critical):
    """R-SHAPE-4: a touch, ray or bolt with critical 0.5 crits when a uniform draw is
    below 0.5: the roll 20 becomes 40 (trimmed to 32), and the damage event says so."""
    world = duel(victim="hp = 100",
                 extra=spell_toml("test_crit", type="cold", shape=shape, critical=0.5))
    drawn = pin_draws(world, monkeypatch, "random", [draw])
    log = cast(world, "a", "test_crit", "v")
    assert drawn == [draw]
    damage = log[1]
    assert (damage["raw"], damage["amount"], damage["critical"]) == (
        (40, 32, True) if critical else (20, 16, False))


@pytest.mark.parametrize("shape", ["burst", "cone", "line"])
def test_area_shapes_never_crit_r_shape_4(standoff, monkeypatch, shape):
    """R-SHAPE-4: a burst, cone or line never crits, whatever its `critical`: no draw is
    even made."""
    world = standoff(victim="hp = 100",
                 extra=spell_toml("test_area", type="cold", shape=shape, critical=1.0))
    pin_draws(world, monkeypatch, "random", [])
    log = cast(world, "a", "test_area", [3, 1])
    hits = [e for e in log if e["kind"] == "damage" and e["target"] == "v"]
    assert [(e["raw"], e["critical"]) for e in hits] == [(20, False)]


# -- R-SHAPE-6: strike order ---------------------------------------------------------------
def test_a_burst_strikes_in_spawn_order_r_shape_6(make_world):
    """R-SHAPE-6: victims of a burst are struck in spawn order, not by name, column or
    row: zed (spawned first, [2, 1]), then amy ([4, 1]), then bob ([3, 0])."""
    world = make_world(
        'name = "t"\n[map]\nrows = [".....", ".....", "....."]\n'
        '[[creatures]]\nid = "zed"\nat = [2, 1]\nhp = 100\n'
        '[[creatures]]\nid = "amy"\nat = [4, 1]\nhp = 100\n'
        '[[creatures]]\nid = "bob"\nat = [3, 0]\nhp = 100\n'
        '[[creatures]]\nid = "mage"\nat = [0, 2]\n'
        + spell_toml("test_burst", type="cold", shape="burst", radius=1))
    log = cast(world, "mage", "test_burst", [3, 1])
    assert [e["target"] for e in log if e["kind"] == "damage"] == ["zed", "amy", "bob"]
    assert [e["target"] for e in log if e["kind"] == "status"] == ["zed", "amy", "bob"]



def test_acid_never_eats_an_indestructible_piece_r_acid_2(make_world):
    """R-ACID-2 with R-LOSS-4's flag: an indestructible body armour is neither damaged
    nor destroyed by acid that harms its wearer (paper resists nothing otherwise)."""
    world = make_world("""
[map]
rows = ["....."]
[content.items.adamant_plate]
class = "armor"
material = "paper"
slot = "body"
indestructible = true
armor = { bash = 1 }
[content.spells.acid_test]
type = "acid"
shape = "bolt"
damage = "20"
save = "none"
[[creatures]]
id = "mage"
at = [0, 0]
[[creatures]]
id = "hero"
at = [3, 0]
player = true
hp = 200
wear = ["adamant_plate"]
[[actions]]
actor = "mage"
cast = "acid_test"
target = "hero"
[[actions]]
pulse = 12
actor = "mage"
cast = "acid_test"
target = "hero"
""")
    world.run(20)
    assert not [e for e in world.events if e.kind == "gear_damaged"]
    assert [piece.item for piece in world.sheet("hero").equipment.worn] == ["adamant_plate"]
    assert sum(e.amount for e in world.events if e.kind == "damage") >= 2
