"""The Spell system end to end: casts resolved from submitted actions, the `cast` event
and its level, a cast that fails at level 0 or below (R-LVL-4), the spell fields that act
on a creature that fails its save (wait and daze cut by NPC tiers, R-LAG-6; stun,
R-STUN-1; dispel, R-SAVE-9 / R-IMM-6; charm's save, R-SAVE-7), every spell of the default
spell book, casts refused when they run, and determinism.

Scenario text, `Cast` actions, `tick()` / `run()`, and `world.events`; draws that a rule
compares are pinned with test_magic's `pin_draws`.
"""

from __future__ import annotations

import pytest
from conftest import world_from_text
from test_magic import cast, kinds, pin_draws, spell_toml

import affray
from affray.display.text import render_event, render_log

CASTER = 'level = 30\nplayer = true\nprofession = "necromancer"\nstats = { int = 18 }'


# -- R-LVL-4 and the cast event's level ----------------------------------------------------
def test_every_cast_event_carries_the_spell_level_r_lvl_1_r_lvl_2(standoff):
    """R-LVL-1 / R-LVL-2: the `cast` event names the level: an NPC of level 17 casts at
    17; a level-30 necromancer (caster penalty 30/20 = 1, int 18 adds 0) at 29."""
    npc = standoff(attacker="level = 17", victim="hp = 100", extra=spell_toml("zap", damage="1"))
    assert cast(npc, "a", "zap", "v")[0]["level"] == 17
    player = standoff(attacker=CASTER, victim="hp = 100", extra=spell_toml("zap", damage="1"))
    assert cast(player, "a", "zap", "v")[0]["level"] == 29


@pytest.mark.parametrize(("bonus", "level", "fails"), [(-28, 1, False), (-29, 0, True),
                                                       (-100, -71, True)])
def test_a_cast_at_level_0_or_below_fails_r_lvl_4(standoff, bonus, level, fails):
    """R-LVL-4: a negative skill-level bonus takes the level-29 cast to 1 (it goes off),
    to 0 or below (a `cast_failed` event after the `cast`, and nothing else: no damage,
    no status; the caster still pays the spell's beats)."""
    world = standoff(attacker=f"{CASTER}\nskill_level_bonus = {bonus}", victim="hp = 100",
                 extra=spell_toml("chill", type="cold", damage="5"))
    log = cast(world, "a", "chill", "v")
    assert log[0]["kind"] == "cast" and log[0]["level"] == level
    if fails:
        assert log[1:] == [{"pulse": 0, "kind": "cast_failed", "actor": "a", "spell": "chill",
                            "level": level,
                            "reason": "its skill-level penalty leaves no power"}]
        assert render_event(log[1]) == "a's chill fizzles: its skill-level penalty leaves no power."
        assert world.sheet("v").vitals.hp == 100
        assert world.sheet("v").statuses.degrees == {}
    else:
        assert kinds(log) == ["cast", "damage", "status"]
    assert world.wait_of("a") == 12


# -- spell fields on a failed save ---------------------------------------------------------
@pytest.mark.parametrize(("tier", "wait"), [(0, 12), (1, 3), (2, 4), (3, 6)])
def test_wait_on_a_failed_save_cut_by_npc_tier_r_lag_6(standoff, monkeypatch, tier, wait):
    """R-LAG-6 through a spell: the default book's entangle puts 12 pulses of wait on a
    creature that fails its save (roll 40 against a save of 40); an NPC of tier 1 keeps a
    quarter (3), tier 2 a third (4), tier 3 a half (6)."""
    world = standoff(victim=f"hp = 100\nnpc_tier = {tier}")
    pin_draws(world, monkeypatch, "percent", [40])
    log = cast(world, "a", "entangle", "v")
    assert kinds(log) == ["cast"]
    assert world.wait_of("v") == wait


def test_no_wait_on_a_saved_cast(standoff, monkeypatch):
    """The spell's own effects need a failed save: roll 39 saves, no wait, no daze (no
    rule ID: this is the spell fields' condition, not R-LAG-6's tier cut)."""
    world = standoff(victim="hp = 100")
    pin_draws(world, monkeypatch, "percent", [39, 39])
    cast(world, "a", "entangle", "v")
    world.run(11)
    world.submit(affray.Cast(actor="a", spell="daze", target="v"))
    world.tick()
    assert (world.wait_of("v"), world.daze_of("v")) == (0, 0)


@pytest.mark.parametrize(("tier", "daze"), [(0, 24), (1, 6), (3, 12)])
def test_daze_on_a_failed_save_cut_by_npc_tier_r_lag_6(standoff, monkeypatch, tier, daze):
    """R-LAG-6: the daze spell's 24 pulses of daze: tier 1 keeps 6, tier 3 keeps 12."""
    world = standoff(victim=f"hp = 100\nnpc_tier = {tier}")
    pin_draws(world, monkeypatch, "percent", [40])
    cast(world, "a", "daze", "v")
    assert world.daze_of("v") == daze


def test_stunning_word_refuses_the_victims_next_action_r_stun_1(standoff, monkeypatch):
    """R-STUN-1: stunning word on a failed save: a `stun` event, then the victim's next
    action (a step) is refused as `stunned` and it stays put."""
    world = standoff(victim="hp = 100")
    pin_draws(world, monkeypatch, "percent", [40])
    log = cast(world, "a", "stunning_word", "v")
    assert log[1:] == [{"pulse": 0, "kind": "stun", "target": "v", "state": "stun"}]
    start = len(world.events)
    world.submit(affray.Move(actor="v", to=(4, 1)))
    world.tick()
    assert [e.to_dict() for e in world.events[start:]] == [
        {"pulse": 1, "kind": "refused", "actor": "v", "action": "move", "reason": "stunned"}]
    assert world.snapshot()["creatures"]["v"]["at"] == [3, 1]


def test_a_saved_stunning_word_stuns_no_one_r_stun_1(standoff, monkeypatch):
    """R-STUN-1: saved (roll 39): no stun, and the victim's step goes through."""
    world = standoff(victim="hp = 100")
    pin_draws(world, monkeypatch, "percent", [39])
    assert kinds(cast(world, "a", "stunning_word", "v")) == ["cast"]
    world.submit(affray.Move(actor="v", to=(4, 1)))
    world.tick()
    assert kinds([e.to_dict() for e in world.events[-1:]]) == ["moved"]


DISPEL_GEAR = """
[content.items.salamander_cloak]
class = "armor"
material = "wool"
slot = "about"
grants_affects = ["protection_heat"]
grants_imm = ["fire"]
""" + spell_toml("flame", damage="5")


@pytest.mark.parametrize(("rolls", "removed"), [((5, 4), (True, False)),
                                                ((4, 5), (False, True))])
def test_dispel_strips_affects_but_not_what_gear_grants_r_save_9_r_imm_6(standoff, monkeypatch,
                                                                        rolls, removed):
    """R-SAVE-9: dispel magic (level 20, no save) tries each affect in name order: haste
    and sanctuary (level 0) resist at 50 + 5 * (0 - 20), clamped to 5: a roll of 4 resists
    (`dispelled` with removed false), 5 does not (removed). R-IMM-6: the cloak's
    protection from heat is never rolled, and its fire immunity still holds after."""
    world = standoff(attacker="level = 20",
                 victim='hp = 100\naffects = ["sanctuary", "haste"]\nwear = ["salamander_cloak"]',
                 extra=DISPEL_GEAR)
    drawn = pin_draws(world, monkeypatch, "percent", list(rolls))
    log = cast(world, "a", "dispel_magic", "v")
    assert drawn == list(rolls)
    assert log[1:] == [
        {"pulse": 0, "kind": "dispelled", "target": "v", "affect": "haste",
         "removed": removed[0]},
        {"pulse": 0, "kind": "dispelled", "target": "v", "affect": "sanctuary",
         "removed": removed[1]}]
    assert render_event(log[1]) == ("v's haste is dispelled." if removed[0] else
                                    "v's haste resists the dispel and weakens.")
    left = world.snapshot()["creatures"]["v"]["affects"]
    assert "protection_heat" in left
    assert ("haste" in left) is not removed[0] and ("sanctuary" in left) is not removed[1]
    world.run(11)
    assert kinds(cast(world, "a", "flame", "v")) == ["cast", "immune"]


CHARM = spell_toml("allure", type="charm", damage="6", save="half")


@pytest.mark.parametrize(("caster_cha", "roll", "saved"), [
    (25, 9, True),     # lead 15: save 40 - 30 = 10; 9 < 10 saves
    (25, 10, False),   # 10 does not
    (10, 10, True),    # no lead: save 40
    (10, 40, False),
])
def test_charm_save_drops_with_the_casters_charisma_lead_r_save_7(standoff, monkeypatch,
                                                                 caster_cha, roll, saved):
    """R-SAVE-7 through a cast: charm damage's save drops 2 per point of the caster's
    charisma lead (25 against 10: 40 - 30 = 10), checked at the boundary; saved halves
    6 to 3."""
    world = standoff(attacker=f"stats = {{ cha = {caster_cha} }}",
                 victim="hp = 100\nstats = { cha = 10 }", extra=CHARM)
    pin_draws(world, monkeypatch, "percent", [roll])
    log = cast(world, "a", "allure", "v")
    assert (log[1]["damage_type"], log[1]["saved"], log[1]["amount"]) == (
        "charm", saved, 3 if saved else 6)


# -- the default spell book ----------------------------------------------------------------
BOOK = sorted(affray.default_content().spells)


@pytest.mark.parametrize("name", BOOK)
def test_every_spell_of_the_default_book_casts(duel, name):
    """Each default spell cast once at a creature beside the caster: a `cast` event, no
    exception; a damaging spell strikes the victim (a `damage` or `immune` event); every
    event renders as text. Dragon breath is breathed."""
    world = duel(attacker="level = 20\nhp = 500", victim="hp = 500", seed=7)
    via = "breath" if name == "dragon_breath" else "mana"
    log = cast(world, "a", name, "v", via=via)
    assert log[0] == {"pulse": 0, "kind": "cast", "actor": "a", "spell": name, "level": 20,
                      "via": via, "target": "v"}
    world.run(60)
    definition = world.content.spells[name]
    struck = [e for e in log if e["kind"] in ("damage", "immune") and e["target"] == "v"]
    if definition.damage not in (0, "0"):
        assert struck, f"{name} struck no one"
    else:
        assert [e for e in log if e["kind"] == "damage"] == []
    assert len(render_log(world.events)) == len(world.events)


def test_the_default_book_covers_every_type_rule():
    """The book has a spell of every damage type with a rule of its own (section 11) and
    of every shape (R-SHAPE-1), so the test above exercises each."""
    content = affray.default_content()
    types = {content.damage_type(spell.type) for spell in content.spells.values()}
    assert {"fire", "cold", "lightning", "acid", "energy", "poison", "negative"} <= types
    assert {spell.shape for spell in content.spells.values()} == {
        "burst", "cone", "line", "ray", "bolt", "touch"}


# -- casts refused when they run -----------------------------------------------------------
def test_a_queued_cast_at_a_creature_that_died_is_refused(standoff):
    """A cast queued behind the caster's wait whose target died meanwhile: a `refused`
    event when it runs, and nothing else (no `cast`, no damage)."""
    world = standoff(victim="hp = 100", extra=spell_toml("zap", damage="1"))
    cast(world, "a", "zap", "v")
    world.submit(affray.Cast(actor="a", spell="zap", target="v"))  # waits for pulse 12
    world.run(4)
    with pytest.raises(affray.VictimDeath):
        world.damage(None, "v", 1000, "fire", cause="raw")
    start = len(world.events)
    world.run(20)
    assert [e.to_dict() for e in world.events[start:]] == [
        {"pulse": 12, "kind": "refused", "actor": "a", "action": "cast",
         "reason": "target 'v' is dead"}]


def test_a_caster_out_of_position_is_refused_r_lvl_5(standoff):
    """R-LVL-5: a spell's position is a minimum (fighting by default): a sleeping caster's
    cast is refused when it runs: a `refused` event and nothing else."""
    world = standoff(attacker='position = "sleeping"', victim="hp = 100",
                 extra=spell_toml("zap", damage="1"))
    log = cast(world, "a", "zap", "v")
    assert log == [{"pulse": 0, "kind": "refused", "actor": "a", "action": "cast",
                    "reason": "not in position (sleeping)"}]
    assert world.sheet("v").vitals.hp == 100


# -- determinism ---------------------------------------------------------------------------
STORM = """
name = "storm"
pulses = 150
[map]
rows = [
  "###########",
  "#.........#",
  "#..~~~~...#",
  "#..~~~~...#",
  "#.........#",
  "###########",
]
[[creatures]]
id = "mage"
at = [1, 1]
level = 30
hp = 300
affects = ["conductor"]
[[creatures]]
id = "w1"
at = [3, 2]
hp = 60
[[creatures]]
id = "w2"
at = [5, 3]
hp = 60
[[creatures]]
id = "k1"
at = [7, 1]
hp = 60
[[creatures]]
id = "k2"
at = [8, 2]
hp = 60
[[creatures]]
id = "k3"
at = [7, 3]
hp = 60
[[actions]]
pulse = 0
actor = "mage"
cast = "shocking_bolt"
target = "w1"
[[actions]]
pulse = 12
actor = "mage"
cast = "fireball"
target = [8, 2]
[[actions]]
pulse = 30
actor = "mage"
cast = "poison_cloud"
target = [7, 2]
[[actions]]
pulse = 42
actor = "mage"
cast = "lightning_bolt"
target = [9, 1]
"""


def storm_log(seed: int) -> list[dict]:
    made = world_from_text(STORM, seed=seed)
    made.run()
    try:
        return [event.to_dict() for event in made.events]
    finally:
        made.close()


def test_the_same_seed_gives_the_same_log():
    """Determinism: the same seed twice gives the same log, casts, water strikes, arcs
    (the mage's conductor makes every arc happen), statuses and their ticks included;
    another seed gives another log."""
    first = storm_log(5)
    assert first == storm_log(5)
    seen = {e["kind"] for e in first}
    assert {"cast", "damage", "status"} <= seen
    assert "refused" not in seen
    assert any(e["kind"] == "damage" and e["cause"] == "water" for e in first)
    assert any(e["kind"] == "damage" and e["cause"] == "arc" for e in first)
    assert any(e["kind"] == "damage" and e["cause"] == "status" for e in first)
    assert first != storm_log(6)


def test_jumping_idle_pulses_changes_nothing_in_a_storm():
    """`run()` jumps idle pulses; the storm's casts, arcs, water strikes and status ticks
    come out the same, pulse for pulse, as from one `tick()` after another."""
    ran = storm_log(5)
    world = world_from_text(STORM, seed=5)
    try:
        while world.pulse < world.end_pulse:
            world.tick()
        assert [event.to_dict() for event in world.events] == ran
    finally:
        world.close()
