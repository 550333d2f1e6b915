"""Electricity: arcs, water, chain lightning, conductor (R-ELEC-1..8, R-IMM-8), end to end.

Every test builds a scenario, casts through `tick`, and reads the strikes off the log.
`zap` is a fixed-roll electricity bolt with no save, so amounts are exact; arc rolls are
fixed by replacing the world's `chance` (the arc's `chance(25)`) where a test needs it.
"""

from __future__ import annotations

import pytest
from conftest import four_sigma, world_from_text
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import affray
from affray.systems.arc import certain_jumps

ZAP = """
[content.spells.zap]
type = "electricity"
shape = "bolt"
range = 12
damage = "10"
save = "none"

[content.spells.zap_line]
type = "electricity"
shape = "line"
range = 12
damage = "10"
save = "none"

[content.spells.chain]
type = "electricity"
shape = "bolt"
range = 12
damage = "10"
save = "none"
chain = true
"""


def scenario(rows: list[str], creatures: list[tuple[str, tuple[int, int], str]],
             extra: str = "") -> str:
    """A map and creatures (id, cell, extra TOML lines), each with 100 hp."""
    text = f"seed = 5\n[map]\nrows = {rows!r}\n".replace("'", '"')
    for cid, (x, y), more in creatures:
        hp = "" if "hp =" in more else "hp = 100\n"
        text += f'[[creatures]]\nid = "{cid}"\nat = [{x}, {y}]\n{hp}{more}\n'
    return text + ZAP + extra


def strikes(world: affray.World, since: int = 0) -> list[tuple[str, str]]:
    """(target, cause) of each damage or immune event from a cast, in log order."""
    out = []
    for event in world.events[since:]:
        data = event.to_dict()
        if data["kind"] == "damage" and data["cause"] in ("spell", "arc", "water"):
            out.append((data["target"], data["cause"]))
        elif data["kind"] == "immune":
            out.append((data["target"], "immune"))
    return out


def cast(world: affray.World, actor: str, spell: str, target) -> None:
    world.submit(affray.Cast(actor=actor, spell=spell, target=target))
    world.tick()


def never(world: affray.World) -> None:
    world.rng.chance = lambda percent: False  # type: ignore[method-assign]


def always(world: affray.World) -> None:
    world.rng.chance = lambda percent: True  # type: ignore[method-assign]


POND = ["..........",
        ".~~~~~~~..",
        ".~~~~~~~..",
        ".........."]


def test_r_elec_3_water_strikes_the_whole_body_in_spawn_order_caster_included():
    """R-ELEC-3: a creature harmed in water makes everyone in that body be struck, one
    after another in spawn order, the wading caster too; each once (R-ELEC-4)."""
    world = world_from_text(scenario(POND, [
        ("k3", (6, 2), ""), ("mage", (1, 1), ""), ("k1", (3, 1), ""), ("dry", (9, 0), ""),
        ("k2", (2, 2), "")]))
    never(world)
    cast(world, "mage", "zap", "k1")
    assert strikes(world) == [("k1", "spell"), ("k3", "water"), ("mage", "water"),
                              ("k2", "water")]
    assert world.snapshot()["creatures"]["dry"]["hp"] == 100


def test_r_elec_3_only_a_harmed_creature_in_water_floods_its_body():
    """R-ELEC-3 / R-TYPE-2: an immune creature in the water takes no harm: no flood."""
    world = world_from_text(scenario(POND, [
        ("mage", (0, 0), ""), ("eel", (3, 1), 'imm = ["lightning"]'), ("k", (5, 2), "")]))
    never(world)
    cast(world, "mage", "zap", "eel")
    assert strikes(world) == [("eel", "immune")]


def test_r_grid_5_ice_splits_a_pond_and_carries_nothing():
    """R-GRID-5 / R-ELEC-3: a band of ice makes two bodies; the far one is not struck."""
    rows = ["..........",
            ".~~~_~~~..",
            ".~~~_~~~..",
            ".........."]
    world = world_from_text(scenario(rows, [
        ("mage", (0, 1), ""), ("a", (2, 1), ""), ("b", (3, 2), ""), ("far", (6, 1), ""),
        ("on_ice", (4, 2), "")]))
    never(world)
    cast(world, "mage", "zap", "a")
    assert strikes(world) == [("a", "spell"), ("b", "water")]


def test_r_terr_4_terrain_changed_this_pulse_is_seen_by_electricity_from_the_next():
    """R-TERR-4: water bodies are relabelled by the Terrain step at the end of a pulse,
    so a band frozen before the cast in the same pulse still carries it; the next pulse
    it does not."""
    from affray.core.grid import Terrain

    world = world_from_text(scenario(POND, [
        ("mage", (0, 0), 'stats = { willpower = 12 }'), ("a", (2, 1), ""),
        ("far", (6, 1), "")]))
    never(world)
    for y in (1, 2):
        world.grid.set_terrain(4, y, Terrain.ICE, 10)
    cast(world, "mage", "zap", "a")
    assert [t for t, _ in strikes(world)] == ["a", "far"]  # the old body, this pulse
    world.run(12)
    start = len(world.events)
    cast(world, "mage", "zap", "a")
    assert [t for t, _ in strikes(world, start)] == ["a"]  # split from the next pulse


def test_r_elec_8_the_flood_comes_before_the_arc():
    """R-ELEC-8: when a strike harms a creature, its body is flooded first (queued in
    spawn order), then its arc is rolled toward the nearest creature still unstruck."""
    rows = ["..........",
            ".~~~......",
            ".~~~......",
            ".........."]
    world = world_from_text(scenario(rows, [
        ("mage", (3, 3), ""), ("w2", (1, 2), ""), ("a", (3, 1), ""), ("dry", (4, 1), ""),
        ("w1", (2, 2), "")]))
    always(world)
    cast(world, "mage", "zap", "a")
    # a is struck; the water queues w2 then w1 (spawn order); then a's arc takes dry.
    assert strikes(world)[:4] == [("a", "spell"), ("w2", "water"), ("w1", "water"),
                                  ("dry", "arc")]


def test_r_elec_1_arc_jumps_to_the_nearest_orthogonal_before_diagonal():
    """R-ELEC-1 / R-GRID-2: the nearest creature beside it: orthogonal before diagonal,
    whatever the spawn order; not the caster's far side."""
    rows = ["......."] * 5
    world = world_from_text(scenario(rows, [
        ("mage", (0, 4), ""), ("diag", (4, 1), ""), ("v", (3, 2), ""), ("orth", (3, 1), "")]))
    calls = []
    world.rng.chance = lambda percent: calls.append(percent) or len(calls) == 1
    cast(world, "mage", "zap", "v")
    assert strikes(world)[:2] == [("v", "spell"), ("orth", "arc")]
    assert calls[0] == 25  # R-ELEC-1: one time in four


def test_r_elec_1_ties_go_to_the_one_that_came_into_the_world_first():
    """R-ELEC-1 / R-GRID-3: two creatures equally near: the earlier spawn is struck."""
    rows = ["......."] * 5
    world = world_from_text(scenario(rows, [
        ("mage", (0, 4), ""), ("east", (4, 2), ""), ("v", (3, 2), ""), ("west", (2, 2), "")]))
    world.rng.chance = lambda percent, n=[0]: n.append(1) or len(n) == 2
    cast(world, "mage", "zap", "v")
    assert strikes(world)[:2] == [("v", "spell"), ("east", "arc")]


def test_r_elec_1_the_arc_roll_boundary_is_chance_of_25():
    """R-ELEC-1: the arc happens when a 1..100 roll is at or under 25 (chance(25))."""
    rows = ["......."] * 3
    for roll, arcs in ((25, True), (26, False)):
        world = world_from_text(scenario(rows, [
            ("mage", (0, 0), ""), ("v", (3, 1), ""), ("n", (4, 1), "")]))
        world.rng.percent = lambda roll=roll: roll  # type: ignore[method-assign]
        cast(world, "mage", "zap", "v")
        assert (("n", "arc") in strikes(world)) is arcs


def test_r_elec_1_arc_rate_is_one_in_four():
    """R-ELEC-1: over many casts the arc happens a quarter of the time (4 sigma)."""
    rows = ["......."] * 3
    world = world_from_text(scenario(rows, [
        ("mage", (0, 0), 'level = 50\nhp = 100000'), ("v", (3, 1), "hp = 100000"),
        ("n", (4, 1), "hp = 100000")]))
    trials = 3000
    arcs = 0
    for _ in range(trials):
        start = len(world.events)
        world.submit(affray.Cast(actor="mage", spell="zap", target="v"))
        world.run(12)
        arcs += ("n", "arc") in strikes(world, start)
    assert abs(arcs / trials - 0.25) <= four_sigma(0.25, trials)


def test_r_elec_2_a_struck_creature_arcs_on_and_each_is_struck_once():
    """R-ELEC-2 / R-ELEC-4: arcs chain from creature to creature, never back to one
    already struck."""
    rows = ["........"] * 4
    world = world_from_text(scenario(rows, [
        ("mage", (4, 3), ""), ("a", (2, 1), ""), ("b", (3, 1), ""), ("c", (4, 1), "")]))
    always(world)
    cast(world, "mage", "zap", "c")
    # c is struck, arcs to b, b to a; a has nobody unstruck beside it: nobody twice.
    assert strikes(world) == [("c", "spell"), ("b", "arc"), ("a", "arc")]


def test_r_elec_4_a_creature_struck_by_the_shape_is_not_struck_again_by_water():
    """R-ELEC-4: a line through the pond strikes two creatures; the flood of the first
    does not strike the second again."""
    world = world_from_text(scenario(POND, [
        ("mage", (0, 1), ""), ("a", (2, 1), ""), ("b", (4, 1), ""), ("c", (5, 2), "")]))
    never(world)
    cast(world, "mage", "zap_line", (6, 1))
    assert strikes(world) == [("a", "spell"), ("b", "spell"), ("c", "water")]


def test_r_elec_6_r_imm_8_conductor_makes_every_arc_happen():
    """R-ELEC-6 / R-IMM-8: a caster with Conductor never rolls for its arcs."""
    rows = ["........"] * 3
    world = world_from_text(scenario(rows, [
        ("mage", (0, 0), 'affects = ["conductor"]'), ("a", (3, 1), ""), ("b", (4, 1), ""),
        ("c", (5, 1), "")]))
    world.rng.chance = lambda percent: pytest.fail("Conductor rolled an arc")
    cast(world, "mage", "zap", "a")
    assert strikes(world) == [("a", "spell"), ("b", "arc"), ("c", "arc")]


def test_r_imm_8_conductor_resists_electricity_a_quarter():
    """R-IMM-8: a creature with Conductor takes a quarter less electricity (10 -> 8)."""
    rows = ["......"] * 3
    world = world_from_text(scenario(rows, [
        ("mage", (0, 0), ""), ("v", (3, 1), 'affects = ["conductor"]')]))
    never(world)
    cast(world, "mage", "zap", "v")
    damage = [e.to_dict() for e in world.events if e.kind == "damage"]
    assert damage[0]["amount"] == 8


@pytest.mark.parametrize(("willpower", "jumps"), [(3, 3), (10, 3), (13, 3), (14, 4),
                                                  (17, 4), (18, 5), (22, 6), (28, 6)])
def test_r_elec_5_certain_jumps_grow_with_willpower(willpower, jumps):
    """R-ELEC-5: clamp(3 + (willpower - 10) // 4, 3, 6)."""
    world = world_from_text(scenario(["..."], [
        ("mage", (0, 0), f"stats = {{ willpower = {willpower} }}")]))
    assert certain_jumps(world, world.sheet("mage")) == jumps


def test_r_elec_5_chain_lightning_takes_its_certain_jumps_then_one_in_four():
    """R-ELEC-5: the first 3 jumps (Willpower 10) happen without a roll; the 4th rolls."""
    rows = ["." * 12] * 3
    creatures = [("mage", (0, 0), "stats = { willpower = 10 }")]
    creatures += [(f"c{i}", (2 + i, 1), "") for i in range(7)]
    world = world_from_text(scenario(rows, creatures))
    rolls = []
    world.rng.chance = lambda percent: rolls.append(percent) or False
    cast(world, "mage", "chain", "c0")
    assert [t for t, _ in strikes(world)] == ["c0", "c1", "c2", "c3"]
    assert rolls == [25]  # only the jump after the three certain ones rolled


def test_r_elec_5_chain_reaches_two_cells_with_clear_sight():
    """R-ELEC-5: a chain jump reaches a creature two cells away, but not through a wall."""
    rows = ["........",
            "........",
            "...#....",
            "........"]
    world = world_from_text(scenario(rows, [
        ("mage", (0, 3), ""), ("a", (1, 1), ""), ("b", (3, 1), ""), ("hidden", (3, 3), "")]))
    never(world)
    cast(world, "mage", "chain", "a")
    # b is two cells from a in clear sight; hidden is two cells from b behind the wall.
    assert [t for t, _ in strikes(world)] == ["a", "b"]


def test_r_elec_5_chain_ends_when_the_last_one_took_no_harm():
    """R-ELEC-5: a chain ends at a creature that took no harm (immune)."""
    rows = ["." * 10] * 3
    world = world_from_text(scenario(rows, [
        ("mage", (0, 0), ""), ("a", (2, 1), ""), ("rock", (3, 1), 'imm = ["lightning"]'),
        ("beyond", (5, 1), "")]))
    world.rng.chance = lambda percent: pytest.fail("no roll expected")
    cast(world, "mage", "chain", "a")
    assert strikes(world) == [("a", "spell"), ("rock", "immune")]


def test_r_elec_7_preview_shows_the_shape_only():
    """R-ELEC-7: the preview of a bolt into a crowded pond is the bolt's cells, no water."""
    world = world_from_text(scenario(POND, [
        ("mage", (0, 1), ""), ("a", (3, 1), ""), ("b", (6, 2), "")]))
    events = len(world.events)
    assert world.preview("mage", "zap", "a") == [(1, 1), (2, 1), (3, 1)]
    assert len(world.events) == events


def water_bodies(rows: list[str]) -> dict[tuple[int, int], int]:
    """Each water cell's body (R-GRID-5: 8-connected), labelled here independently of
    the engine by a flood fill."""
    body: dict[tuple[int, int], int] = {}
    for y0, row in enumerate(rows):
        for x0, cell in enumerate(row):
            if cell != "~" or (x0, y0) in body:
                continue
            label, todo = len(body) + 1, [(x0, y0)]
            body[(x0, y0)] = label
            while todo:
                x, y = todo.pop()
                for nx in (x - 1, x, x + 1):
                    for ny in (y - 1, y, y + 1):
                        if (0 <= ny < len(rows) and 0 <= nx < len(rows[ny])
                                and rows[ny][nx] == "~" and (nx, ny) not in body):
                            body[(nx, ny)] = label
                            todo.append((nx, ny))
    return body


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.integers(0, 2**16), st.lists(st.tuples(st.integers(0, 7), st.integers(0, 4)),
                                       min_size=2, max_size=14, unique=True),
       st.lists(st.booleans(), min_size=40, max_size=40))
def test_r_elec_4_property_no_creature_struck_twice_and_none_out_of_reach(seed, cells, water):
    """R-ELEC-4 and R-ELEC-1/3 as a property: over random ponds and casts, no creature is
    struck twice by one cast, and every creature struck is the bolt's victim (struck
    first), stands in the same body (R-GRID-5) as a creature harmed before it, or was
    beside a creature harmed before it."""
    rows = ["".join("~" if water[y * 8 + x] else "." for x in range(8)) for y in range(5)]
    body = water_bodies(rows)
    creatures = [(f"c{i}", cell, "") for i, cell in enumerate(cells)]
    world = world_from_text(scenario(rows, creatures).replace("seed = 5", f"seed = {seed}"))
    always(world) if seed % 2 else None
    positions = {cid: cell for cid, cell, _ in creatures}
    target = creatures[-1][0]
    shape_victims = world.preview("c0", "zap", target, reveal=True)["struck"]
    assert len(shape_victims) == 1  # a bolt strikes one creature
    cast(world, "c0", "zap", target)
    seen: list[str] = []
    harmed: list[str] = []
    for index, (victim, cause) in enumerate(strikes(world)):
        assert victim not in seen
        vx, vy = positions[victim]
        if cause == "spell" or index == 0:
            assert (index, victim) == (0, shape_victims[0])
        elif cause == "arc":
            assert any(max(abs(vx - positions[s][0]), abs(vy - positions[s][1])) == 1
                       for s in harmed)
        elif cause == "water":
            assert (vx, vy) in body
            assert any(body.get(positions[s]) == body[(vx, vy)] for s in harmed)
        seen.append(victim)
        if cause != "immune":
            harmed.append(victim)
    world.close()


def test_r_elec_7_preview_reveal_lists_whom_the_water_would_carry_it_to():
    """R-ELEC-7 keeps the aim to the cells; `reveal=True` (for tools and AI) adds the
    creatures the shape strikes and those its water body would carry the cast to, in
    spawn order, never the random arcs, and changes nothing."""
    world = world_from_text(scenario(POND, [
        ("mage", (0, 1), ""), ("a", (3, 1), ""), ("b", (6, 2), ""), ("dry", (9, 3), ""),
        ("c", (2, 2), "")]))
    state = world.snapshot()
    revealed = world.preview("mage", "zap", "a", reveal=True)
    assert revealed == {"cells": [(1, 1), (2, 1), (3, 1)], "struck": ["a"],
                        "water": ["b", "c"]}
    assert world.preview("mage", "zap", "a") == revealed["cells"]
    assert world.snapshot() == state and world.events == []


BURST_AND_CONE = """
[content.spells.zap_burst]
type = "electricity"
shape = "burst"
range = 12
radius = 1
damage = "10"
save = "none"

[content.spells.zap_cone]
type = "electricity"
shape = "cone"
range = 3
damage = "10"
save = "none"

[content.spells.chain_burst]
type = "electricity"
shape = "burst"
range = 12
radius = 0
damage = "10"
save = "none"
chain = true
"""


@pytest.mark.parametrize("spell, target", [("zap_burst", (3, 1)), ("zap_cone", (3, 1)),
                                           ("chain_burst", (3, 1))])
def test_r_elec_1_a_burst_or_a_cone_never_arcs_even_with_conductor(spell, target):
    """R-ELEC-1 (negative case): only a ray, bolt, touch or line arcs. A burst or a cone
    that harms creatures with an unstruck neighbour strikes its own cells and nobody
    else, with the arc roll certain (Conductor, every `chance` true) and for a chain
    spell's certain jumps (R-ELEC-5) too; no arc roll is drawn at all."""
    rows = ["........"] * 4
    world = world_from_text(scenario(rows, [
        ("mage", (0, 1), 'affects = ["conductor"]'), ("a", (3, 1), ""),
        ("beside", (4, 1), ""), ("below", (4, 2), "")],
        BURST_AND_CONE.replace("radius = 1", "radius = 0")))
    world.rng.chance = lambda percent: pytest.fail("a burst or cone rolled an arc")
    cast(world, "mage", spell, target)
    struck = strikes(world)
    assert struck == [("a", "spell")]
    assert world.snapshot()["creatures"]["beside"]["hp"] == 100


def test_r_elec_1_r_elec_3_a_burst_still_floods_the_water_it_harms():
    """R-ELEC-3 is every shape's: a burst that harms a wader floods its body (everyone in
    it struck by "water"), and still arcs from none of them (R-ELEC-1)."""
    world = world_from_text(scenario(POND, [
        ("mage", (9, 0), 'affects = ["conductor"]'), ("k1", (3, 1), ""),
        ("k2", (6, 2), ""), ("dry", (8, 1), "")], BURST_AND_CONE))
    cast(world, "mage", "zap_burst", (3, 1))
    assert strikes(world) == [("k1", "spell"), ("k2", "water")]
    assert world.snapshot()["creatures"]["dry"]["hp"] == 100


def test_r_elec_1_a_burst_arcs_in_no_trial_of_many():
    """R-ELEC-1 with the real generator: 400 bursts into two neighbours, never an arc
    (the audit saw about 80 in 400 before the shape was checked)."""
    rows = ["......."] * 3
    world = world_from_text(scenario(rows, [
        ("mage", (0, 0), 'level = 50\nhp = 100000'), ("v", (3, 1), "hp = 100000"),
        ("n", (4, 1), "hp = 100000")], BURST_AND_CONE.replace("radius = 1", "radius = 0")))
    arcs = 0
    for _ in range(400):
        start = len(world.events)
        world.submit(affray.Cast(actor="mage", spell="zap_burst", target="v"))
        world.run(12)
        arcs += any(cause == "arc" for _, cause in strikes(world, start))
    assert arcs == 0
