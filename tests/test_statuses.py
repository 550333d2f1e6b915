"""Statuses end to end (SPEC section 12, R-STAT-1..4): ticks on absolute pulses, counted
exactly, through scenarios whose creatures start with `statuses = {...}` or are given
them by casts; refresh on reapplication, the ways they end, a status that kills, and the
same log whether the world is ticked pulse by pulse or run with idle pulses jumped.

The Pulse system ticks statuses before it runs the pulse's actions, and a cast resolves
after that (Spell system), so a tick due on the pulse of a cast comes first.
"""

from __future__ import annotations

from typing import Any

import pytest
from conftest import four_sigma, last_event
from test_magic import cast, events_of, spell_toml

import affray
from affray.display.text import render_log
from affray.systems.rules.blow import weapon_skill
from affray.systems.rules.tohit import accuracy, evasion, hit_chance


def log(world: affray.World) -> list[dict[str, Any]]:
    return [event.to_dict() for event in world.events]


def ticks(world: affray.World, status: str) -> list[tuple[int, int]]:
    """(pulse, amount) of every tick of a status, in log order."""
    return [(e["pulse"], e["amount"]) for e in events_of(world, "damage", status=status)]


def ends(world: affray.World) -> list[tuple[int, str, str]]:
    """(pulse, target, status) of every `status` event that ended one."""
    return [(e["pulse"], e["target"], e["status"])
            for e in events_of(world, "status", change="ended")]


ONE = 'name = "t"\n[map]\nrows = [".....", ".....", "....."]\n[[creatures]]\nid = "v"\n' \
      'at = [2, 1]\n'


def alone(make_world, fields: str, extra: str = "") -> affray.World:
    """A world of one creature "v" at [2, 1] with the given fields."""
    return make_world(ONE + fields + "\n" + extra)


# -- R-STAT-1: burning ---------------------------------------------------------------------
@pytest.mark.parametrize("degree", [1, 2])
def test_burning_ticks_every_4_pulses_for_48_r_stat_1(make_world, degree):
    """R-STAT-1: Burning d: d fire damage at pulses 4, 8, ..., 48 (12 ticks), then it
    ends at 48; each tick a `damage` event with cause `status`, no source."""
    world = alone(make_world, f"hp = 100\nstatuses = {{ burning = {degree} }}")
    world.run(200)
    assert ticks(world, "burning") == [(pulse, degree) for pulse in range(4, 49, 4)]
    first = events_of(world, "damage")[0]
    assert (first["source"], first["damage_type"], first["cause"]) == (None, "fire", "status")
    assert ends(world) == [(48, "v", "burning")]
    assert world.sheet("v").vitals.hp == 100 - 12 * degree
    assert world.snapshot()["creatures"]["v"]["statuses"] == {}


def test_burning_goes_through_the_pipeline_without_type_rules_r_stat_1(make_world):
    """R-STAT-1: burning is affect damage through the damage pipeline (sanctuary halves
    Burning 3's 3 to 1) and carries no type rule: with the burning chance at 100% a burn
    tick never sets the creature burning again (no `applied` event)."""
    world = alone(make_world, 'hp = 100\naffects = ["sanctuary"]\nstatuses = { burning = 3 }',
                  "[content.world]\nburning_chance = 100\n")
    world.run(60)
    hits = events_of(world, "damage", status="burning")
    assert [(e["raw"], e["amount"]) for e in hits] == [(3, 1)] * 12
    assert events_of(world, "status", change="applied") == []


def test_burning_is_refreshed_when_reapplied_r_stat_1(standoff):
    """R-STAT-1: a second fire harm at pulse 20 adds a degree and restarts the 48 pulses
    (ends at 68), keeping the 4-pulse rhythm: 1 a tick at 4..20 (20's tick comes before
    the cast), 2 a tick at 24..68."""
    world = standoff(victim="hp = 200",
                 extra="[content.world]\nburning_chance = 100\n" + spell_toml("spark_fire",
                                                                            damage="1"))
    cast(world, "a", "spark_fire", "v")
    world.run(19)
    assert world.pulse == 20
    cast(world, "a", "spark_fire", "v")
    world.run(100)
    applied = events_of(world, "status", status="burning", change="applied")
    assert [(e["pulse"], e["degree"]) for e in applied] == [(0, 1), (20, 2)]
    assert ticks(world, "burning") == ([(p, 1) for p in range(4, 21, 4)]
                                       + [(p, 2) for p in range(24, 69, 4)])
    assert ends(world) == [(68, "v", "burning")]


def test_entering_water_puts_burning_out_r_stat_1(make_world):
    """R-STAT-1: a Move into a water cell ends Burning at once (a `status` event at the
    move's pulse); no tick follows."""
    world = make_world('name = "t"\n[map]\nrows = [".....", "..~..", "....."]\n'
                       '[[creatures]]\nid = "v"\nat = [1, 1]\nhp = 100\n'
                       'statuses = { burning = 1 }\n'
                       '[[actions]]\npulse = 10\nactor = "v"\nmove = [2, 1]\n')
    world.run(100)
    assert ticks(world, "burning") == [(4, 1), (8, 1)]
    moved = events_of(world, "moved")
    assert [(e["pulse"], e["to"]) for e in moved] == [(10, [2, 1])]
    assert ends(world) == [(10, "v", "burning")]
    assert world.sheet("v").vitals.hp == 98


def test_a_move_onto_dry_floor_keeps_burning_r_stat_1(make_world):
    """R-STAT-1: only water puts it out: a step onto floor leaves all 12 ticks."""
    world = make_world('name = "t"\n[map]\nrows = [".....", "..~..", "....."]\n'
                       '[[creatures]]\nid = "v"\nat = [1, 1]\nhp = 100\n'
                       'statuses = { burning = 1 }\n'
                       '[[actions]]\npulse = 10\nactor = "v"\nmove = [1, 2]\n')
    world.run(100)
    assert len(ticks(world, "burning")) == 12


def test_cold_harm_ends_burning_and_its_ticks_r_stat_1(standoff):
    """R-STAT-1 / R-COLD-1: cold harm at pulse 10 ends burning: ticks at 4 and 8 only."""
    world = standoff(victim="hp = 100\nstatuses = { burning = 1 }",
                 extra=spell_toml("chill", type="cold", damage="3"))
    world.run(10)
    cast(world, "a", "chill", "v")
    world.run(100)
    assert ticks(world, "burning") == [(4, 1), (8, 1)]
    assert ends(world)[0] == (10, "v", "burning")


# -- R-STAT-2: sluggish --------------------------------------------------------------------
@pytest.mark.parametrize(("degree", "wait"), [(0, 12), (1, 14), (2, 16)])
def test_sluggish_adds_2d_to_own_waits_r_stat_2(standoff, degree, wait):
    """R-STAT-2: every wait a creature gets from its own actions is raised by 2*d: a cast
    of 12 beats costs 14 at Sluggish 1, 16 at Sluggish 2, and its next queued cast runs
    that much later."""
    statuses = f"statuses = {{ sluggish = {degree} }}" if degree else ""
    world = standoff(attacker=statuses, victim="hp = 200", extra=spell_toml("zap", damage="1"))
    cast(world, "a", "zap", "v")
    assert world.wait_of("a") == wait
    world.submit(affray.Cast(actor="a", spell="zap", target="v"))
    world.run(40)
    assert [e["pulse"] for e in events_of(world, "cast")] == [0, wait]


def test_sluggish_raises_a_move_wait_too_r_stat_2(make_world):
    """R-STAT-2: a step's wait (2 pulses) becomes 2 + 2*3 = 8 at Sluggish 3."""
    world = alone(make_world, "statuses = { sluggish = 3 }")
    world.submit(affray.Move(actor="v", to=(3, 1)))
    world.tick()
    assert world.wait_of("v") == 8


def test_sluggish_does_not_raise_lag_others_put_on_it_r_stat_2(standoff):
    """R-STAT-2: only its own actions' waits: 12 pulses of wait from another's spell stay
    12 on a Sluggish 2 creature."""
    world = standoff(victim="hp = 100\nstatuses = { sluggish = 2 }",
                 extra=spell_toml("root", type="mental", damage=0, wait=12))
    cast(world, "a", "root", "v")
    assert world.wait_of("v") == 12


def test_sluggish_lasts_48_pulses_r_stat_2(standoff):
    """R-STAT-2: Sluggish ends at pulse 48 (a `status` event); a cast after costs 12."""
    world = standoff(attacker="statuses = { sluggish = 1 }", victim="hp = 200",
                 extra=spell_toml("zap", damage="1"))
    world.run(48)
    assert world.pulse == 48 and ends(world) == []
    world.run(1)
    assert ends(world) == [(48, "a", "sluggish")]
    cast(world, "a", "zap", "v")
    assert world.wait_of("a") == 12


@pytest.mark.parametrize(("degree", "factor"), [(1, 0.9), (3, 0.7), (5, 0.5), (7, 0.5)])
def test_sluggish_cuts_evasion_with_a_floor_r_stat_2(standoff, degree, factor):
    """R-STAT-2: evasion x (1 - 0.1 d), never below x0.5 (7 degrees would be 0.3)."""
    plain = standoff(victim="level = 40\nstats = { dex = 25 }")
    slow = standoff(victim=f"level = 40\nstats = {{ dex = 25 }}\n"
                           f"statuses = {{ sluggish = {degree} }}")
    base = evasion(plain.sheet("v"), plain.content, False)
    assert base > 0
    assert evasion(slow.sheet("v"), slow.content, False) == pytest.approx(base * factor)


def test_a_sluggish_creature_is_hit_more_often_in_melee_r_stat_2(duel):
    """R-STAT-2 end to end: a fight against a hard-to-hit victim; at Sluggish 5 (evasion
    halved) the attacker's blows land at the armor model's P for the halved evasion,
    within four sigmas over 600 rounds, and the rate differs from the unslowed P."""
    sluggish = ("[content.statuses.sluggish]\nduration = 100000\nwait_per_degree = 2\n"
                "evasion_per_degree = 0.1\nevasion_floor = 0.5\n")
    world = duel(attacker="level = 30\nhp = 1000000", victim=(
        "level = 30\nhp = 1000000\nstats = { dex = 25 }\nstatuses = { sluggish = 5 }"),
        extra=sluggish, seed=3)
    attacker, victim = world.sheet("a"), world.sheet("v")
    skill = 20 + weapon_skill(world, attacker)  # the blow's skill term (R-HIT-2)
    acc = accuracy(attacker, skill, world.content)
    slow_p = hit_chance(acc, evasion(victim, world.content, False), world.content)
    victim.statuses.degrees["sluggish"] = 0
    plain_p = hit_chance(acc, evasion(victim, world.content, False), world.content)
    victim.statuses.degrees["sluggish"] = 5
    assert (round(plain_p, 3), round(slow_p, 3)) == (0.215, 0.523)
    world.submit(affray.Attack(actor="a", target="v"))
    world.run(12 * 600)
    landed = len(events_of(world, "damage", source="a")) + len(
        events_of(world, "defended", source="a"))
    missed = len(events_of(world, "miss", source="a"))
    blows = landed + missed
    assert blows >= 600
    assert abs(landed / blows - slow_p) <= four_sigma(slow_p, blows)


# -- R-STAT-3: corroded --------------------------------------------------------------------
@pytest.mark.parametrize(("degree", "pulses"), [(1, [24, 48]), (2, [12, 24, 36, 48]),
                                                (3, [8, 16, 24, 32, 40, 48])])
def test_corroded_loses_2d_hit_points_evenly_over_48_pulses_r_stat_3(make_world, degree,
                                                                     pulses):
    """R-STAT-3: Corroded d: 2*d raw hit points, one every 24/d pulses, the last at 48;
    raw, so sanctuary does not halve them."""
    world = alone(make_world,
                  f'hp = 100\naffects = ["sanctuary"]\nstatuses = {{ corroded = {degree} }}')
    world.run(200)
    assert ticks(world, "corroded") == [(pulse, 1) for pulse in pulses]
    assert {e["damage_type"] for e in events_of(world, "damage")} == {"acid"}
    assert ends(world) == [(48, "v", "corroded")]
    assert world.sheet("v").vitals.hp == 100 - 2 * degree


@pytest.mark.parametrize("degree", [24, 25, 60])
def test_corroded_beyond_one_point_a_pulse_still_loses_2d_by_48_r_stat_3(make_world, degree):
    """R-STAT-3: 2*d points over 48 pulses even when that is more than one a pulse (over
    24 degrees): a tick every pulse, 1..48, each as many points as keep the rest even;
    Corroded 60 loses all 120 by pulse 48."""
    world = alone(make_world, f"hp = 1000\nstatuses = {{ corroded = {degree} }}")
    world.run(200)
    hits = ticks(world, "corroded")
    assert [pulse for pulse, _ in hits] == list(range(1, 49))
    assert sum(amount for _, amount in hits) == 2 * degree
    assert max(amount for _, amount in hits) - min(amount for _, amount in hits) <= 1
    assert world.sheet("v").vitals.hp == 1000 - 2 * degree


def test_corroded_reapplied_owes_two_more_over_48_from_then_r_stat_3(standoff):
    """R-STAT-3 / R-ACID-1: Corroded 1 from creation (ticks due 24, 48) and an acid hit
    at pulse 12 (degree 2, 4 points owed from then): the 4 points fall evenly over the 48
    pulses after it: 24, 36, 48, 60."""
    world = standoff(victim="hp = 100\nstatuses = { corroded = 1 }",
                 extra=spell_toml("splash", type="acid", damage="3"))
    world.run(12)
    cast(world, "a", "splash", "v")
    world.run(100)
    assert ticks(world, "corroded") == [(24, 1), (36, 1), (48, 1), (60, 1)]
    assert ends(world) == [(60, "v", "corroded")]
    assert world.sheet("v").vitals.hp == 100 - 3 - 4


# -- R-STAT-4: poisoned --------------------------------------------------------------------
@pytest.mark.parametrize("degree", [1, 3])
def test_poison_ticks_every_12_pulses_for_120_r_stat_4(make_world, degree):
    """R-STAT-4: Poisoned d: d poison damage at 12, 24, ..., 120 (10 ticks), then ends."""
    world = alone(make_world, f"hp = 100\nstatuses = {{ poisoned = {degree} }}")
    world.run(300)
    assert ticks(world, "poisoned") == [(pulse, degree) for pulse in range(12, 121, 12)]
    assert {e["damage_type"] for e in events_of(world, "damage")} == {"poison"}
    assert ends(world) == [(120, "v", "poisoned")]
    assert world.sheet("v").vitals.hp == 100 - 10 * degree


def test_poison_goes_through_the_pipeline_r_stat_4(make_world):
    """R-STAT-4: through the damage pipeline: a creature immune to poison logs an `immune`
    event at every tick and loses nothing."""
    world = alone(make_world, 'hp = 100\nimm = ["poison"]\nstatuses = { poisoned = 2 }')
    world.run(300)
    assert [e["pulse"] for e in events_of(world, "immune")] == list(range(12, 121, 12))
    assert world.sheet("v").vitals.hp == 100


def test_poison_is_refreshed_when_reapplied_r_stat_4(standoff):
    """R-STAT-4 / R-POIS-1: a poison hit at pulse 60 makes it degree 2 and restarts the
    120 pulses (ends at 180) on the same 12-pulse rhythm."""
    world = standoff(victim="hp = 200\nstatuses = { poisoned = 1 }",
                 extra=spell_toml("sting", type="poison", damage="2"))
    world.run(60)
    cast(world, "a", "sting", "v")
    world.run(300)
    assert ticks(world, "poisoned") == ([(p, 1) for p in range(12, 61, 12)]
                                        + [(p, 2) for p in range(72, 181, 12)])
    assert ends(world) == [(180, "v", "poisoned")]


# -- a status that kills, every status at once, absolute pulses ----------------------------
def test_a_status_that_kills_stops_ticking_r_stat_1(make_world):
    """R-STAT-1 / R-DMG-2: Burning kills a 2-hp creature at pulse 8 (a `death` event, no
    killer); its statuses are gone with it, no more ticks, no `ended` events."""
    world = alone(make_world, "hp = 2\nstatuses = { burning = 1, poisoned = 1 }")
    world.run(300)
    assert ticks(world, "burning") == [(4, 1), (8, 1)]
    assert ticks(world, "poisoned") == []
    deaths = events_of(world, "death")
    assert deaths == [{"pulse": 8, "kind": "death", "target": "v", "killer": None}]
    assert ends(world) == []
    assert world.snapshot()["creatures"]["v"]["statuses"] == {}
    assert last_event(world).kind == "death"


def test_a_creature_killed_by_a_spell_loses_its_statuses_r_stat_1(standoff):
    """R-STAT-1..4: a burning, poisoned creature killed by a spell never ticks again, and
    by the next status pulse its statuses are gone from the snapshot, like a creature a
    status killed (no `ended` events: the death says it)."""
    world = standoff(victim="hp = 10\nstatuses = { burning = 1, poisoned = 1 }",
                 extra=spell_toml("zap", damage="30"))
    cast(world, "a", "zap", "v")
    world.run(200)
    assert [e["kind"] for e in events_of(world, "death")] == ["death"]
    assert events_of(world, "damage", cause="status") == []
    assert ends(world) == []
    assert world.snapshot()["creatures"]["v"]["statuses"] == {}


ALL_FOUR = "hp = 100\nstatuses = { burning = 2, poisoned = 1, corroded = 1, sluggish = 1 }"


def test_every_status_at_once_r_stat_1_r_stat_2_r_stat_3_r_stat_4(make_world):
    """R-STAT-1..4 together: burning 2 (12 x 2), poisoned 1 (10 x 1), corroded 1 (2):
    exactly 36 hit points, and 200 pulses later no status is left; each end is a `status`
    event (three at 48 in content order, poison at 120)."""
    world = alone(make_world, ALL_FOUR)
    world.run(200)
    assert world.sheet("v").vitals.hp == 100 - 24 - 10 - 2
    assert sum(e["amount"] for e in events_of(world, "damage")) == 36
    assert ends(world) == [(48, "v", "burning"), (48, "v", "sluggish"),
                           (48, "v", "corroded"), (120, "v", "poisoned")]
    assert world.sheet("v").statuses.degrees == {}
    assert world.snapshot()["creatures"]["v"]["statuses"] == {}


def test_jumping_idle_pulses_gives_the_same_status_log_r_stat_1(make_world):
    """R-STAT-1..4 keep absolute pulses: `run(200)` (idle pulses jumped) and 200 single
    `tick()`s log the same events at the same pulses."""
    ran = alone(make_world, ALL_FOUR)
    ran.run(200)
    ticked = alone(make_world, ALL_FOUR)
    for _ in range(200):
        ticked.tick()
    assert log(ran) == log(ticked)
    assert ran.pulse == ticked.pulse == 200


def test_status_events_read_as_player_text_r_stat_1_r_stat_3_r_stat_4(make_world):
    """R-STAT-1/3/4 and R-ENG-4: each tick's `damage` event names its status, and the
    player text says which status it was; an end reads as such."""
    world = alone(make_world, "hp = 100\nstatuses = { burning = 2, corroded = 1, poisoned = 1 }")
    world.run(200)
    lines = render_log(world.events)
    assert lines[0] == "[   4] v burns for 2."
    assert "[  12] v suffers 1 from the poison." in lines
    assert "[  24] v loses 1 to the acid eating at them." in lines
    assert "[  48] v is no longer burning." in lines
    assert lines[-1] == "[ 120] v is no longer poisoned."
    tick = events_of(world, "damage", status="poisoned")[0]
    assert (tick["cause"], tick["spell"], tick["source"]) == ("status", None, None)


def test_a_world_settles_only_after_its_last_status_ends_r_stat_4(make_world):
    """R-STAT-1/4 with `run(until="settled")`: statuses are something left to happen, so
    the world settles on the pulse after poison's last tick and end (120), not before."""
    world = alone(make_world, "hp = 100\nstatuses = { burning = 1, poisoned = 1 }")
    world.run(500, until="settled")
    assert ends(world)[-1] == (120, "v", "poisoned")
    assert last_event(world).to_dict() == {"pulse": 121, "kind": "settled"}
    assert world.pulse == 121


def test_a_save_between_ticks_continues_every_status_exactly_r_stat_3(make_world, tmp_path):
    """R-STAT-1..4 with saves (R-ENG-3): saved at pulse 30, between ticks, with corroded
    points still owed and a refreshed burn, a loaded world logs the same events to the
    end as the world that was never saved."""
    text = ("hp = 100\nstatuses = { burning = 2, poisoned = 1, corroded = 3, sluggish = 1 }")
    world = alone(make_world, text)
    world.run(30)
    path = str(tmp_path / "mid.json")
    world.save(path)
    loaded = affray.load_world(path)
    try:
        world.run(200)
        loaded.run(200)
        assert log(loaded) == log(world)
        assert len(events_of(world, "damage", status="corroded")) == 6
    finally:
        loaded.close()
