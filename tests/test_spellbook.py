"""Spell lists and mana (R-BOOK-1, R-BOOK-2).

Both are off by default (scripts and games cast freely); each test turns on the world's
`[content.world.casting]` switch it checks. Mana is read from the snapshot (`mana`,
`max_mana`), which works regeneration out at the pulse it is taken.
"""

from __future__ import annotations

import pytest
from conftest import four_sigma
from test_minds import mind_def, ticks, world_of

import affray
from affray.systems.rules.spellbook import spell_list

FIELD = ["." * 10] * 3
MANA_ON = "[content.world.casting]\nmana = true\n"
KNOWN_ONLY = "[content.world.casting]\nknown_only = true\n"


def mana(world: affray.World, creature: str = "c") -> tuple[int, int]:
    shown = world.snapshot()["creatures"][creature]
    return shown["mana"], shown["max_mana"]


def kinds(world: affray.World) -> list[str]:
    return [event.kind for event in world.events]


# -- R-BOOK-1: spell lists -------------------------------------------------------------------

def test_r_book_1_a_player_s_list_is_the_spells_among_its_skills():
    """R-BOOK-1: a player character's spell list is the spells among its skills, in the
    order it learned them; its mind's `spells` do not count."""
    world = world_of(FIELD, [("p", (1, 1), 'player = true\nmind = "caster"\n'
                              'skills = { dodge = 75, fireball = 60, parry = 40, spark = 80 }')])
    assert spell_list(world.content, world.sheet("p")) == ("fireball", "spark")


def test_r_book_1_an_npc_s_list_is_its_mind_s_spells():
    """R-BOOK-1: an NPC's spell list is its mind's `spells`; its skills do not count,
    and an NPC with no mind knows none."""
    world = world_of(FIELD, [("k", (1, 1), 'mind = "caster"\nskills = { fireball = 90 }'),
                             ("n", (3, 1), "skills = { fireball = 90 }")])
    assert spell_list(world.content, world.sheet("k")) == ("magic_missile", "spark")
    assert spell_list(world.content, world.sheet("n")) == ()


@pytest.mark.parametrize(("caster", "spell", "via", "refused"), [
    ('mind = "caster"', "fireball", "mana", True),
    ('mind = "caster"', "spark", "mana", False),
    ('mind = "caster"', "fireball", "scroll", False),
    ("player = true\nskills = { fireball = 60 }", "spark", "mana", True),
    ("player = true\nskills = { fireball = 60 }", "fireball", "mana", False),
    ("skills = { fireball = 60 }", "fireball", "mana", True),
])
def test_r_book_1_known_only_refuses_a_cast_from_mana_of_an_unknown_spell(
        caster, spell, via, refused):
    """R-BOOK-1: with `casting.known_only` on, a cast from mana of a spell not in the
    caster's list is refused at submit (ActionError, nothing changed); one it knows,
    or one from a scroll, is taken."""
    world = world_of(FIELD, [("c", (1, 1), caster)], KNOWN_ONLY)
    cast = affray.Cast(actor="c", spell=spell, target=(5, 1), via=via)
    if refused:
        with pytest.raises(affray.ActionError, match="not in its spell list"):
            world.submit(cast)
        ticks(world, 1)
        assert kinds(world) == []
    else:
        world.submit(cast)
        ticks(world, 1)
        assert "cast" in kinds(world)


def test_r_book_1_known_only_is_off_by_default():
    """R-BOOK-1: by default a creature casts any spell, known or not."""
    world = world_of(FIELD, [("c", (1, 1), "hp = 10")])
    world.submit(affray.Cast(actor="c", spell="fireball", target=(5, 1)))
    ticks(world, 1)
    assert "cast" in kinds(world)


def test_r_book_1_a_mind_with_no_spells_never_casts():
    """R-BOOK-1: minds cast only from the list: a mind with every chance to cast but an
    empty list never casts at the foe in its sight."""
    world = world_of(FIELD, [("c", (1, 1), 'mind = "mute"\nhp = 1000'),
                             ("f", (5, 1), "player = true\nhp = 1000")],
                     mind_def("mute", cast_chance=100, sight=10))
    world.run(pulses=200)
    assert "cast" not in kinds(world)


def test_r_book_1_a_player_s_mind_casts_the_spells_it_learned():
    """R-BOOK-1: a player character with the caster mind (whose own list is magic
    missile and spark) casts only the one spell it learned, fireball."""
    world = world_of(["." * 12] * 3, [
        ("c", (1, 1), 'player = true\nhp = 1000\nmind = "zap"\nskills = { fireball = 100 }'),
        ("f", (6, 1), "hp = 100000")], mind_def("zap", spells=["spark", "magic_missile"],
                                                cast_chance=100, sight=10))
    world.run(pulses=100)
    spells = {event.spell for event in world.events if event.kind == "cast"}
    assert spells == {"fireball"}


# -- R-BOOK-2: mana --------------------------------------------------------------------------

def test_r_book_2_a_cast_costs_the_spell_s_mana():
    """R-BOOK-2: with `casting.mana` on, spark costs its 10 mana when it runs (an NPC:
    no concentration roll)."""
    world = world_of(FIELD, [("c", (1, 1), "mana = 50\nmax_mana = 100")], MANA_ON)
    assert mana(world) == (50, 100)
    world.submit(affray.Cast(actor="c", spell="spark", target=(5, 1)))
    ticks(world, 1)
    assert "cast" in kinds(world)
    assert mana(world) == (40, 100)


def test_r_book_2_mana_is_free_when_the_world_does_not_count_it():
    """R-BOOK-2: with `casting.mana` off (the default) a cast costs nothing."""
    world = world_of(FIELD, [("c", (1, 1), "mana = 5\nmax_mana = 100")])
    world.submit(affray.Cast(actor="c", spell="fireball", target=(5, 1)))
    ticks(world, 1)
    assert "cast" in kinds(world)
    assert mana(world) == (5, 100)


def test_r_book_2_a_cast_the_caster_cannot_pay_for_is_refused_at_submit():
    """R-BOOK-2: 9 mana for a 10-mana spark: ActionError at submit, nothing changed."""
    world = world_of(FIELD, [("c", (1, 1), "mana = 9\nmax_mana = 100")], MANA_ON)
    with pytest.raises(affray.ActionError, match="not enough mana for 'spark': 9 of 10"):
        world.submit(affray.Cast(actor="c", spell="spark", target=(5, 1)))
    assert world.sheet("c").vitals.mana == 9
    ticks(world, 1)
    assert kinds(world) == []


def test_r_book_2_mana_gone_while_the_cast_waited_is_a_refusal_when_it_runs():
    """R-BOOK-2: two sparks queued on 15 mana: each could be paid for at submit, but the
    first leaves 5, and 1 a tick (wis 0, int 0, level 1) brings only 8 by pulse 12: the
    second is refused when its turn comes (a `refused` event) and costs nothing."""
    world = world_of(FIELD, [("c", (1, 1), "mana = 15\nmax_mana = 15\n"
                              "stats = { wis = 0, int = 0 }")], MANA_ON)
    for _ in range(2):
        world.submit(affray.Cast(actor="c", spell="spark", target=(5, 1)))
    ticks(world, 13)
    refused = [e for e in world.events if e.kind == "refused"]
    assert [(e.pulse, e.action) for e in refused] == [(12, "cast")]
    assert "not enough mana" in refused[0].reason
    assert kinds(world).count("cast") == 1
    assert mana(world) == (8, 15)


@pytest.mark.parametrize("via", ["scroll", "wand", "trap", "breath"])
def test_r_book_2_scrolls_wands_traps_and_breath_cost_no_mana(via):
    """R-BOOK-2: a caster with no mana at all casts from a scroll, a wand, a trap or its
    breath, and keeps its 0."""
    world = world_of(FIELD, [("c", (1, 1), "mana = 0\nmax_mana = 100\n"
                              "stats = { wis = 0, int = 0 }")], MANA_ON)
    world.submit(affray.Cast(actor="c", spell="fireball", target=(5, 1), via=via))
    ticks(world, 1)
    assert "cast" in kinds(world)
    assert world.sheet("c").vitals.mana == 0


@pytest.mark.parametrize(("roll", "fails"), [(49, False), (50, True), (100, True)])
def test_r_book_2_a_player_loses_its_concentration_at_or_above_its_learned_percent(
        roll, fails):
    """R-BOOK-2: a player who learned spark at 50: a percent roll of 49 casts; 50 or more
    is "You lost your concentration": a `cast_failed` event with reason concentration,
    half the mana (5 of 10), no cast, and the spell's beats of wait all the same."""
    world = world_of(FIELD, [("c", (1, 1), "player = true\nmana = 50\nmax_mana = 100\n"
                              "skills = { spark = 50 }")], MANA_ON)
    world.rng.percent = lambda: roll  # type: ignore[method-assign]
    world.submit(affray.Cast(actor="c", spell="spark", target=(5, 1)))
    ticks(world, 1)
    failed = [e for e in world.events if e.kind == "cast_failed"]
    if fails:
        assert [(e.pulse, e.actor, e.spell, e.reason) for e in failed] == [
            (0, "c", "spark", "concentration")]
        assert "cast" not in kinds(world)
        assert mana(world) == (45, 100)
    else:
        assert failed == [] and "cast" in kinds(world)
        assert mana(world) == (40, 100)
    assert world.wait_of("c") == 12


def test_r_book_2_concentration_fails_at_the_rate_of_its_learned_percent():
    """R-BOOK-2: learned at 70, a cast fails when the percent roll (1..100) is 70 or
    more: 31 times in 100. Over 2,000 casts the share of failures is within four
    binomial sigmas of 0.31."""
    world = world_of(FIELD, [("c", (1, 1), "player = true\nmana = 1000000\n"
                              "max_mana = 1000000\nskills = { spark = 70 }")], MANA_ON)
    trials = 2000
    for _ in range(trials):
        world.submit(affray.Cast(actor="c", spell="spark", target=(5, 1)))
        world.run(pulses=12)
    failed = kinds(world).count("cast_failed")
    assert failed + kinds(world).count("cast") == trials
    assert abs(failed / trials - 0.31) <= four_sigma(0.31, trials)


def test_r_book_2_an_npc_never_loses_its_concentration():
    """R-BOOK-2: only a player character rolls: an NPC that never learned spark casts it
    every time."""
    world = world_of(FIELD, [("c", (1, 1), "mana = 1000\nmax_mana = 1000")], MANA_ON)
    for _ in range(50):
        world.submit(affray.Cast(actor="c", spell="spark", target=(5, 1)))
        world.run(pulses=12)
    assert kinds(world).count("cast") == 50 and "cast_failed" not in kinds(world)


@pytest.mark.parametrize(("pulse", "expected"), [(0, 0), (3, 0), (4, 4), (7, 4), (8, 8),
                                                 (28, 28), (32, 30), (400, 30)])
def test_r_book_2_mana_comes_back_every_four_pulses(pulse, expected):
    """R-BOOK-2: wis 13, int 18, level 20: (13 + 2 * 18 + 20) // 16 = 4 mana every 4
    pulses, up to max_mana (30)."""
    world = world_of(FIELD, [("c", (1, 1), "mana = 0\nmax_mana = 30\nlevel = 20\n"
                              "stats = { wis = 13, int = 18 }")], MANA_ON)
    world.run(pulses=pulse)
    assert mana(world) == (expected, 30)


def test_r_book_2_a_dull_creature_still_regains_one_mana_a_tick():
    """R-BOOK-2: wis 3, int 3, level 1: (3 + 6 + 1) // 16 = 0, so the least, 1."""
    world = world_of(FIELD, [("c", (1, 1), "mana = 0\nmax_mana = 30\nlevel = 1\n"
                              "stats = { wis = 3, int = 3 }")], MANA_ON)
    world.run(pulses=20)
    assert mana(world) == (5, 30)


def test_r_book_2_regeneration_after_a_cast_keeps_to_the_four_pulse_ticks():
    """R-BOOK-2: 50 mana at pulse 0, 4 a tick: 54 at pulse 5; spark then costs 10 (44);
    the next tick, at pulse 8, brings 48, and pulse 12 52."""
    world = world_of(FIELD, [("c", (1, 1), "mana = 50\nmax_mana = 100\nlevel = 20\n"
                              "stats = { wis = 13, int = 18 }")], MANA_ON)
    world.run(pulses=5)
    assert mana(world) == (54, 100)
    world.submit(affray.Cast(actor="c", spell="spark", target=(5, 1)))
    ticks(world, 1)
    assert mana(world) == (44, 100)
    world.run(pulses=2)
    assert mana(world) == (48, 100)
    world.run(pulses=4)
    assert mana(world) == (52, 100)


def test_r_book_2_max_mana_defaults_to_mana_and_both_to_100():
    """R-BOOK-2: the snapshot shows mana and max_mana; max_mana defaults to mana."""
    world = world_of(FIELD, [("a", (1, 1), "hp = 5"), ("b", (3, 1), "mana = 40")])
    assert mana(world, "a") == (100, 100)
    assert mana(world, "b") == (40, 40)


def test_r_book_2_more_mana_than_max_mana_is_a_scenario_error():
    """R-BOOK-2: a creature given more mana than its max_mana is refused at load,
    naming the field."""
    with pytest.raises(affray.ScenarioError, match="mana"):
        world_of(FIELD, [("c", (1, 1), "mana = 50\nmax_mana = 40")])


def test_r_book_2_a_player_casting_a_spell_it_never_learned_always_loses_concentration():
    """R-BOOK-2 (docs/decisions.md): with mana counted and known_only off, a player
    may be told to cast a spell it never learned (learned 0): every percent roll is at
    or above 0, so the cast always fails, at half the mana: 5 of spark's 10 each time,
    with 1 back every 4 pulses (wis 0, int 0, level 1): 95, then 98 - 5 = 93 at pulse
    12, 91, 89, 87, and 90 at pulse 60."""
    world = world_of(FIELD, [("c", (1, 1), "player = true\nmana = 100\nmax_mana = 100\n"
                              "stats = { wis = 0, int = 0 }")], MANA_ON)
    for _ in range(5):
        world.submit(affray.Cast(actor="c", spell="spark", target=(5, 1)))
        world.run(pulses=12)
    assert kinds(world) == ["cast_failed"] * 5
    assert mana(world) == (90, 100)
