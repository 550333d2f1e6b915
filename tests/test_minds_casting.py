"""Casters (R-MIND-6): which spell at whom, how often, and the range they keep.

The choice is read from the `cast` event a caster's mind logs at pulse 0 (with
`cast_chance` 100, so every try casts) and, where the reason is the point, from the
previews the mind weighs (`MindView.preview`: the creatures the shape strikes and those
the water would carry an electric cast to). The rates are measured over long runs of
one world with a four-sigma binomial tolerance.
"""

from __future__ import annotations

import pytest
from conftest import four_sigma
from test_minds import fights, mind_def, steps, ticks, view_of, world_of

import affray
from affray.systems.rules.minds.traits import best_cast

FOE = "player = true\nhp = 1000"
ALLY = "hp = 1000"
CASTER = 'mind = "zap"\nhp = 1000'
FIELD = ["." * 12] * 5


def zapper(spells: list[str], **traits: object) -> str:
    """An inline caster mind that casts at every try unless told otherwise."""
    return mind_def("zap", **{"spells": spells, "cast_chance": 100, "sight": 10, **traits})


def casts(world: affray.World) -> list[tuple]:
    """(pulse, actor, spell, target) of every `cast` event."""
    return [(e.pulse, e.actor, e.spell, e.target if isinstance(e.target, str)
             else tuple(e.target)) for e in world.events if e.kind == "cast"]


def test_r_mind_6_the_spell_and_target_that_strike_the_most_foes():
    """R-MIND-6: a foe 2 cells off and two foes in a row farther along another line. A
    bolt strikes one creature wherever it is aimed; the lightning bolt's line through
    f1 strikes f1 and f2: the caster casts the line at f1, though `near` came first
    into the world and spark comes first in its list."""
    world = world_of(FIELD, [("m", (1, 2), CASTER), ("near", (3, 0), FOE),
                             ("f1", (5, 2), FOE), ("f2", (8, 2), FOE)],
                     zapper(["spark", "lightning_bolt"]))
    view = view_of(world, "m")
    assert view.preview("lightning_bolt", "f1")["struck"] == ["f1", "f2"]
    assert view.preview("spark", "f2")["struck"] == ["f1"]  # a bolt stops at the first
    ticks(world, 1)
    assert casts(world) == [(0, "m", "lightning_bolt", "f1")]


POND_ROWS = ["............",
             "..~~....~~..",
             "..~~....~~..",
             "............",
             "............"]


def pond_world(ally_cell: tuple[int, int], spells: tuple[str, ...] = ("spark",)
               ) -> affray.World:
    """Two ponds: fa wades in the west one, fb in the east one; the caster's ally stands
    at `ally_cell` (in the west pond, or on its shore)."""
    return world_of(POND_ROWS, [("m", (5, 4), CASTER), ("fa", (2, 1), FOE),
                           ("fb", (9, 2), FOE), ("ally", ally_cell, ALLY)],
                    zapper(list(spells)))


def test_r_mind_6_never_zaps_a_pond_that_holds_its_ally():
    """R-MIND-6: the caster's ally wades in fa's pond: spark at fa would strike fa and,
    through the water, the ally (one foe, one ally: never). It zaps fb instead, alone
    in its pond, although fa came first into the world."""
    world = pond_world(ally_cell=(2, 2))
    reach = view_of(world, "m").preview("spark", "fa")
    assert (reach["struck"], reach["water"]) == (["fa"], ["ally"])
    ticks(world, 1)
    assert casts(world) == [(0, "m", "spark", "fb")]


def test_r_mind_6_zaps_a_foe_wading_in_a_pond_its_allies_stand_clear_of():
    """R-MIND-6: the ally stands on the shore beside fa's pond, out of the water: spark
    at fa strikes fa alone, a tie with fb that goes to fa, the first into the world."""
    world = pond_world(ally_cell=(4, 1))
    reach = view_of(world, "m").preview("spark", "fa")
    assert (reach["struck"], reach["water"]) == (["fa"], [])
    ticks(world, 1)
    assert casts(world) == [(0, "m", "spark", "fa")]


def test_r_mind_6_the_water_a_cast_would_reach_counts_its_foes():
    """R-MIND-6: a second foe wades beside fb: spark at fb strikes fb and, through the
    water, fb2: two foes, more than any other cast, so it goes to fb."""
    world = world_of(POND_ROWS, [("m", (5, 4), CASTER), ("fa", (2, 1), FOE),
                            ("fb", (9, 2), FOE), ("fb2", (8, 1), FOE)],
                     zapper(["spark"]))
    ticks(world, 1)
    assert casts(world) == [(0, "m", "spark", "fb")]


def test_r_mind_6_a_wading_caster_counts_itself_among_the_struck():
    """R-MIND-6: the caster wades in the pond its only foe wades in: spark would come
    back to it through the water (one foe, and itself): it never casts it."""
    world = world_of(["......", ".~~~..", "......"],
                     [("m", (1, 1), CASTER), ("f", (3, 1), FOE)], zapper(["spark"]))
    reach = view_of(world, "m").preview("spark", "f")
    assert (reach["struck"], reach["water"]) == (["f"], ["m"])
    world.run(pulses=100)
    assert casts(world) == []


@pytest.mark.parametrize(("spell", "ally_struck"), [("spark", ["ally"]),
                                                    ("lightning_bolt", ["ally", "f"])])
def test_r_mind_6_never_a_cast_through_its_own_ally_on_the_line(spell, ally_struck):
    """R-MIND-6: an ally stands between the caster and its only foe. A bolt would stop
    at the ally; the lightning bolt would strike the ally and the foe (as many allies
    as foes): neither is cast."""
    world = world_of(FIELD, [("m", (1, 2), CASTER), ("ally", (3, 2), ALLY),
                             ("f", (5, 2), FOE)], zapper([spell]))
    assert view_of(world, "m").preview(spell, "f")["struck"] == ally_struck
    assert best_cast(view_of(world, "m")) is None
    world.run(pulses=100)
    assert casts(world) == []


def test_r_mind_6_never_a_fireball_that_would_catch_the_caster():
    """R-MIND-6: a fireball at the foe beside the caster would burn the caster too (its
    radius is 1): it goes at the foe four cells off instead, though the one beside came
    first into the world."""
    world = world_of(FIELD, [("m", (1, 2), CASTER), ("f1", (2, 2), FOE),
                             ("f2", (6, 2), FOE)], zapper(["fireball"]))
    assert view_of(world, "m").preview("fireball", "f1")["struck"] == ["m", "f1"]
    ticks(world, 1)
    assert casts(world) == [(0, "m", "fireball", "f2")]


@pytest.mark.parametrize("spells", [["spark", "magic_missile"], ["magic_missile", "spark"]])
def test_r_mind_6_ties_go_to_the_earlier_spell_then_the_earlier_foe(spells):
    """R-MIND-6: two bolts that each strike one foe, at either of two foes: the first
    spell of its list, at the foe that came first into the world (fa, though fb is
    nearer)."""
    world = world_of(FIELD, [("m", (1, 2), CASTER), ("fa", (7, 2), FOE),
                             ("fb", (3, 0), FOE)], zapper(spells))
    ticks(world, 1)
    assert casts(world) == [(0, "m", spells[0], "fa")]


def test_r_mind_6_it_casts_cast_chance_percent_of_its_tries():
    """R-MIND-6: a caster with a foe in sight tries once every `cast_every` (16) pulses,
    cast or not, and casts with `cast_chance` (60) percent: over 2,000 tries (32,000
    pulses of one world) the share cast is within four binomial sigmas of 0.6. The
    foe is immune to the spell and has no mind, so nothing else changes."""
    world = world_of(FIELD, [("m", (1, 2), CASTER), ("f", (5, 2), FOE + '\nimm = ["force"]')],
                     zapper(["magic_missile"], cast_chance=60))
    tries = 2000
    world.run(pulses=16 * tries)
    done = casts(world)
    assert {pulse % 16 for pulse, *_ in done} == {0}
    assert abs(len(done) / tries - 0.6) <= four_sigma(0.6, tries)


@pytest.mark.parametrize(("every", "pulses"), [(20, [0, 20, 40, 60, 80]),
                                               (5, [0, 12, 24, 36, 48, 60, 72, 84, 96])])
def test_r_mind_6_at_most_once_every_cast_every_pulses(every, pulses):
    """R-MIND-6: casting at every try, a caster casts at most once every `cast_every`
    pulses (20: pulses 0, 20, 40...), and never within its spell's beats (12) of wait
    (`cast_every` 5: every 12 pulses)."""
    world = world_of(FIELD, [("m", (1, 2), CASTER), ("f", (5, 2), FOE + '\nimm = ["force"]')],
                     zapper(["magic_missile"], cast_every=every))
    world.run(pulses=100)
    assert [pulse for pulse, *_ in casts(world)] == pulses


def test_r_mind_6_keep_range_steps_away_from_a_foe_too_near_then_holds():
    """R-MIND-6: keep_range 3, no spell to cast: with a foe beside it, it steps away each
    free pulse until it stands 3 cells off, then holds: the world settles."""
    world = world_of(["." * 10] * 3, [("m", (2, 1), 'mind = "keep"\nhp = 1000'),
                                      ("f", (1, 1), FOE)],
                     mind_def("keep", keep_range=3, sight=10))
    world.run(pulses=40)
    assert steps(world) == [(0, "m", (2, 1), (3, 1)), (2, "m", (3, 1), (4, 1))]
    assert world.next_pulse() is None


def test_r_mind_6_an_aggressive_caster_closes_to_its_range_and_holds_there():
    """R-MIND-6: farther than keep_range, an aggressive caster's other traits act: it
    walks toward its foe, and stops 3 cells off."""
    world = world_of(["." * 10] * 3, [("m", (7, 1), 'mind = "keep"\nhp = 1000'),
                                      ("f", (1, 1), FOE)],
                     mind_def("keep", keep_range=3, sight=10, aggressive=True))
    world.run(pulses=40)
    assert steps(world) == [(0, "m", (7, 1), (6, 1)), (2, "m", (6, 1), (5, 1)),
                            (4, "m", (5, 1), (4, 1))]
    assert world.next_pulse() is None


def test_r_mind_6_a_caster_cornered_within_its_range_fights_the_foe_beside_it():
    """R-MIND-6: in a dead end with its foe beside it, a keep-range caster cannot step
    away: it attacks the foe beside it."""
    world = world_of(["#####", "#..##", "#####"], [("f", (1, 1), FOE),
                                                   ("m", (2, 1), 'mind = "keep"\nhp = 1000')],
                     mind_def("keep", keep_range=3, sight=10, aggressive=True))
    ticks(world, 1)
    assert steps(world) == []
    assert fights(world)[0] == (0, "m", "f", "started", "aggressive")


def test_r_mind_6_r_book_2_it_casts_only_what_it_can_pay_for():
    """R-MIND-6, R-BOOK-2: with mana counted, a caster with 15 mana cannot pay for the
    lightning bolt (20) that would strike both foes: it casts spark (10) at f1."""
    world = world_of(FIELD, [("m", (1, 2), CASTER + "\nmana = 15\nmax_mana = 100"),
                             ("f1", (5, 2), FOE), ("f2", (8, 2), FOE)],
                     zapper(["lightning_bolt", "spark"])
                     + "[content.world.casting]\nmana = true\n")
    ticks(world, 1)
    assert casts(world) == [(0, "m", "spark", "f1")]
    assert world.snapshot()["creatures"]["m"]["mana"] == 5


def test_r_mind_5_r_mind_6_a_wimpy_caster_below_its_threshold_casts_nothing():
    """R-MIND-5, R-MIND-6: below its wimpy threshold a creature starts nothing of its own
    (the source's wimpy mobs only attack sleepers): a caster at 10 of 100 hit points
    with a foe in sight casts nothing; at 60 it casts at once."""
    for hp, cast in ((10, False), (60, True)):
        world = world_of(FIELD, [("m", (1, 2), f'mind = "zap"\nhp = {hp}\nmax_hp = 100'),
                                 ("f", (5, 2), FOE)], zapper(["spark"], wimpy=50))
        world.run(pulses=50)
        assert bool(casts(world)) is cast
