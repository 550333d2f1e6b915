"""The march case taken without a view (systems/rules/minds/march.py): the same
decisions as the built-in mind's view, event for event and record for record
(R-MIND-1, R-MIND-3, R-MIND-6, R-MIND-7).

`march.advance` takes some cases of `traits.decide` (on open ground, the side's look
made: a step toward the nearest foe or round a crowd, a wait, a hold at a keep range, a
caster's wait for its next cast, a rest with nothing in sight) and hands every other
case back to the view untouched. Each test runs a world both ways (`march.ENABLED`) and
asks for the same log and, pulse by pulse, the same minds and the same rest records;
each branch of the path is seen taken, and each case handed back is checked to change
nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator

import pytest
from conftest import world_from_text
from hypothesis import HealthCheck, given, settings
from test_minds import scenario
from test_minds_properties import worlds

import affray
from affray.data.armies import army
from affray.data.scenario import builtin_scenario
from affray.systems.rules import walking
from affray.systems.rules.minds import crowd, march

FIELD = ["." * 40] * 40


def _minds(world: affray.World) -> dict[str, tuple]:
    return {sheet.id: (m.target, m.last_seen, m.fleeing, m.next_cast, m.wake,
                       m.idle_since)
            for sheet in world.sheets.values() if (m := sheet.mind).name is not None}


def _rests(world: affray.World) -> dict[str, tuple]:
    stirs = world.stirs
    if stirs is None:
        return {}
    return {world.sheets[entity].id: (r.own, r.clock, r.reach, r.looked)
            for entity, r in stirs.rests.items()}


def _one_a_cell_and_none_in_walls(world: affray.World) -> None:
    """No two living creatures on one cell, none on a wall or a shut door, and the
    grid's occupants are the living creatures' cells (issue 21's invariant of a bulk
    step)."""
    cells = [(s.position.x, s.position.y) for s in world.sheets.values() if s.vitals.alive]
    assert len(cells) == len(set(cells)), world.pulse
    grid = world.grid
    assert not any(grid.blocks(x, y) for x, y in cells), world.pulse
    occupied = {(int(x), int(y)) for y, x in zip(*grid.occupant.nonzero(), strict=True)}
    assert occupied == set(cells), world.pulse


@pytest.fixture
def branches(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counter[str]]:
    """What each `march.advance` did: "step", "detour step", "detour wait", "hemmed",
    "nothing in sight" (a rest), "holds" (at a keep range of 3), "handed back" (to the
    view)."""
    counts: Counter[str] = Counter()
    advance, detour, nothing = march.advance, walking.detour, march._nothing_in_sight
    rests = march._rests
    seen: list[str] = []
    seen_looked: list[object] = []

    def counting_detour(*args, **kwargs):
        seen.append("detour")
        return detour(*args, **kwargs)

    def counting_nothing(*args, **kwargs):
        seen.append("nothing")
        return nothing(*args, **kwargs)

    def counting_rests(world, sheet, before, reach, looked):
        seen_looked.append(looked)
        return rests(world, sheet, before, reach, looked)

    def counting(world, sheet, traits):
        seen.clear()
        length = len(world.events)
        result = advance(world, sheet, traits)
        if result is not march.DONE:
            counts["handed back"] += 1
        elif len(world.events) > length:
            counts["detour step" if seen else "step"] += 1
        elif "nothing" in seen:
            counts["nothing in sight"] += 1
        elif seen:
            counts["detour wait"] += 1
        else:  # what it read: the look's distance alone (a hold), or the cells round it
            counts["holds" if seen_looked[-1] == (("distance", 3),) else "hemmed"] += 1
        return result

    monkeypatch.setattr(march, "advance", counting)
    monkeypatch.setattr(march, "_nothing_in_sight", counting_nothing)
    monkeypatch.setattr(march, "_rests", counting_rests)
    monkeypatch.setattr(walking, "detour", counting_detour)
    yield counts


def lockstep(text: str, pulses: int, monkeypatch: pytest.MonkeyPatch,
             setup: Callable[[affray.World], None] | None = None) -> affray.World:
    """Run `text` both ways side by side, `pulses` pulses or until the march path's world
    has settled; at every pulse the minds and the rest records agree, and at the end the
    logs and snapshots. `setup` is done to both worlds first. Returns the march path's
    world."""
    worlds_ = []
    for enabled in (False, True):
        monkeypatch.setattr(march, "ENABLED", enabled)
        worlds_.append(world_from_text(text))
        if setup is not None:
            setup(worlds_[-1])
    plain, marching = worlds_
    for _ in range(pulses):
        monkeypatch.setattr(march, "ENABLED", False)
        plain.tick()
        monkeypatch.setattr(march, "ENABLED", True)
        marching.tick()
        _one_a_cell_and_none_in_walls(marching)
        assert _minds(plain) == _minds(marching), plain.pulse
        assert _rests(plain) == _rests(marching), plain.pulse
        assert len(plain.events) == len(marching.events), plain.pulse
        if marching.next_pulse() is None:
            break
    assert [e.to_dict() for e in plain.events] == [e.to_dict() for e in marching.events]
    assert plain.snapshot() == marching.snapshot()
    plain.close()
    return marching


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_r_mind_3_armies_march_as_the_view_decides(seed, branches, monkeypatch):
    """R-MIND-3, R-MIND-7: two armies of 30 (warriors, levies, archers, mages) march,
    fight and rout: the same log, minds and rest records at every pulse either way, and
    the path took each of its branches."""
    world = lockstep(army(30, seed=seed, pulses=2000), 2000, monkeypatch)
    assert not {"step", "detour step", "handed back"} - set(branches), branches
    world.close()


def test_the_march_path_takes_most_decisions_of_a_marching_army(branches):
    """The point of the path: in the first pulses of two armies of 300 (every soldier
    free, none yet beside a foe), more decisions are steps taken here than are handed
    back to the view."""
    world = world_from_text(army(300, pulses=2000))
    world.run(pulses=30)
    assert branches["step"] + branches["detour step"] > branches["handed back"], branches
    world.close()


def test_r_mind_3_a_crowd_that_waits_hemmed_in_rests_as_the_view_says(branches,
                                                                       monkeypatch):
    """R-MIND-3, R-MIND-7: a block of 5 x 5 brutes, the middle one first in spawn order,
    with a foe 7 cells east of it: the middle one is hemmed in (all eight cells taken),
    others wait behind the crowd or step round it, and each rests with the record the
    view writes."""
    cells = sorted(((x, y) for x in range(10, 15) for y in range(10, 15)),
                   key=lambda c: (max(abs(c[0] - 12), abs(c[1] - 12)), c))
    creatures = [(f"b{x}_{y}", (x, y), 'side = "red"\nmind = "brute"\nhp = 900')
                 for x, y in cells]
    creatures.append(("foe", (19, 12), 'side = "blue"\nmind = "sentry"\nhp = 5000'))
    lockstep(scenario(FIELD, creatures), 80, monkeypatch)
    assert branches["hemmed"] and branches["detour wait"] and branches["detour step"], \
        branches


@pytest.mark.parametrize("name", ["ambush", "battle", "demo", "door_blast", "duel",
                                  "frozen_bridge", "lake_storm", "skirmish"])
def test_r_mind_1_built_in_scenarios_play_the_same(name, monkeypatch):
    """R-MIND-1: every built-in scenario (walls, doors, water, casters, players) plays
    the same log either way (the battle for its march and first clashes)."""
    text = builtin_scenario(name).read_text(encoding="utf-8")
    lockstep(text, 160 if name == "battle" else 400, monkeypatch).close()


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(text=worlds())
def test_r_mind_3_random_worlds_play_the_same(text, monkeypatch):
    """R-MIND-3: random maps (walls, water, ice), sides and minds, players among them:
    the same log, minds and records either way."""
    lockstep(text, 60, monkeypatch).close()


# -- what is handed back -----------------------------------------------------------------
def _soldier(extra: str = "", foe_at: tuple[int, int] = (16, 10),
             rows: list[str] | None = None) -> tuple[affray.World, object]:
    creatures = [("soldier", (10, 10), f'side = "red"\nmind = "brute"\nhp = 100\n'
                                       f'max_hp = 100\n{extra}'),
                 ("foe", foe_at, 'side = "blue"\nhp = 100')]
    world = world_from_text(scenario(rows or FIELD, creatures))
    return world, world.sheets[world.entity("soldier")]


def _advance(world: affray.World, sheet, monkeypatch, mind: str = "brute") -> object:
    monkeypatch.setattr(crowd, "WARM", 1)  # the look is made at the first ask
    return march.advance(world, sheet, world.content.minds[mind])


def test_r_mind_3_a_soldier_on_open_ground_steps_toward_its_foe(monkeypatch):
    """R-MIND-3: the foe 6 cells east: the step is east (R-GRID-2: orthogonal first),
    the foe is remembered with its cell, and the move costs a step's wait."""
    world, sheet = _soldier()
    assert _advance(world, sheet, monkeypatch) is march.DONE
    assert (sheet.position.x, sheet.position.y) == (11, 10)
    assert (sheet.mind.target, sheet.mind.last_seen) == ("foe", (16, 10))
    assert world.events[-1].kind == "moved"
    assert world.lag.wait[sheet.creature.slot] == world.content.world.move_wait


def test_r_mind_3_the_first_free_nearer_cell_in_r_grid_2_order(monkeypatch):
    """R-MIND-3, R-GRID-2: the foe 5 east and 3 north: east, south-east and north-east
    are all 4 from it; with east taken the step is the next of those in R-GRID-2's
    order (E, W, S, N, SE, SW, NE, NW): south-east, though the foe lies north-east.
    The view decides the same."""
    cells = []
    for enabled in (False, True):
        monkeypatch.setattr(march, "ENABLED", enabled)
        world, sheet = _soldier(foe_at=(15, 7))
        world.spawn("ally", (11, 10), template="kobold", side="red")
        monkeypatch.setattr(crowd, "WARM", 1)
        world.tick()
        cells.append((sheet.position.x, sheet.position.y))
    assert cells == [(11, 11), (11, 11)]


def _unchanged(world: affray.World, sheet, result, before: tuple) -> None:
    assert result is not march.DONE
    assert (sheet.position.x, sheet.position.y) == (10, 10)
    assert _minds(world)["soldier"] == before


@pytest.mark.parametrize(("case", "extra", "mind"), [
    ("not aggressive", "hp = 100", "guard"),
    ("hurt below its wimpy mark", "hp = 49", "runner_test"),
    ("held", 'hp = 100\naffects = ["held"]', "brute"),
    ("a player", "hp = 100\nplayer = true", "brute"),
])
def test_r_mind_3_other_cases_are_handed_back_untouched(case, extra, mind, monkeypatch):
    """R-MIND-3, R-MIND-4, R-MIND-5 (the negative): one that only assists, a wimpy one
    below its mark (49 of 100 under 50%), a held one and a player's mind are the view's:
    `advance` changes nothing and hands the decision back before asking for the look."""
    extra_content = "[content.minds.runner_test]\naggressive = true\nwimpy = 50\n"
    creatures = [("soldier", (10, 10), f'side = "red"\nmind = "{mind}"\nmax_hp = 100\n'
                                       f'{extra}'),
                 ("foe", (16, 10), 'side = "blue"\nhp = 100')]
    world = world_from_text(scenario(FIELD, creatures, extra_content))
    sheet = world.sheets[world.entity("soldier")]
    before = _minds(world)["soldier"]
    result = _advance(world, sheet, monkeypatch, mind)
    _unchanged(world, sheet, result, before)
    assert result is march.UNASKED, case


def test_r_mind_5_at_its_wimpy_mark_it_marches(monkeypatch):
    """R-MIND-5: 50 of 100 is not below a wimpy mark of 50: the march path steps it."""
    extra_content = "[content.minds.runner_test]\naggressive = true\nwimpy = 50\n"
    creatures = [("soldier", (10, 10), 'side = "red"\nmind = "runner_test"\n'
                                       'max_hp = 100\nhp = 50'),
                 ("foe", (16, 10), 'side = "blue"\nhp = 100')]
    world = world_from_text(scenario(FIELD, creatures, extra_content))
    sheet = world.sheets[world.entity("soldier")]
    assert _advance(world, sheet, monkeypatch, "runner_test") is march.DONE


def test_r_mind_3_a_fighter_is_handed_back(monkeypatch):
    """R-MIND-3 (the negative): a fighter does not walk: handed back."""
    world, sheet = _soldier(foe_at=(11, 10))
    world.submit(affray.Attack(actor="soldier", target="foe"))
    world.tick()
    assert sheet.combat.fighting == "foe"
    assert _advance(world, sheet, monkeypatch) is march.UNASKED


def test_r_mind_3_a_foe_beside_it_goes_to_the_view_with_the_look(monkeypatch):
    """R-MIND-3 (the negative): a foe beside it (an attack): the look is asked and
    handed to the view, nothing changed."""
    world, sheet = _soldier(foe_at=(11, 11))
    before = _minds(world)["soldier"]
    result = _advance(world, sheet, monkeypatch)
    _unchanged(world, sheet, result, before)
    assert isinstance(result, crowd.Look)


@pytest.mark.parametrize(("case", "mind", "fight", "remembers", "taken"), [
    ("nothing to go for", "brute", False, False, True),
    ("assisting, no fight anywhere", "pack", False, False, True),
    ("assisting, a fight in the world", "pack", True, False, False),
    ("a foe remembered", "brute", False, True, False),
])
def test_r_mind_4_no_foe_in_sight_rests_here_unless_a_fight_or_a_memory(
        case, mind, fight, remembers, taken, branches, monkeypatch):
    """R-MIND-3, R-MIND-4, R-ACT-1: no foe within its sight of 8: with nothing
    remembered and no fight it could assist, it rests here with the view's record;
    a fight somewhere (assist looks at it) or a foe it remembers is the view's. Either
    way the same minds, records and log as the view's."""
    creatures = [("soldier", (10, 10), f'side = "red"\nmind = "{mind}"\nhp = 100'),
                 ("foe", (19, 10), 'side = "blue"\nhp = 100')]
    if fight:
        creatures += [("a", (30, 30), 'side = "red"\nhp = 900'),
                      ("b", (31, 30), 'side = "blue"\nhp = 900\nfighting = "a"')]
    def remember(world: affray.World) -> None:
        if remembers:  # R-ACT-1: as if the foe had shot it from afar
            world.sheets[world.entity("soldier")].mind.target = "foe"

    monkeypatch.setattr(crowd, "WARM", 1)
    world = lockstep(scenario(FIELD, creatures), 1, monkeypatch, remember)
    assert (branches["nothing in sight"] == 1) == taken, (case, branches)
    world.close()


@pytest.mark.parametrize(("wall_x", "marches"), [(26, False), (27, True)])
def test_r_mind_3_a_wall_in_its_walk_window_is_the_view_s(wall_x, marches, monkeypatch):
    """R-MIND-3: the brute's walk window is 16 cells (twice its sight of 8): a wall 16
    cells off, out of its sight, sends the decision to the view (its walk field); one 17
    off does not."""
    rows = list(FIELD)
    rows[10] = "." * wall_x + "#" + "." * (39 - wall_x)
    world, sheet = _soldier(foe_at=(15, 10), rows=rows)
    result = _advance(world, sheet, monkeypatch)
    assert (result is march.DONE) == marches
    if not marches:
        assert isinstance(result, crowd.Look)
        assert (sheet.position.x, sheet.position.y) == (10, 10)


def test_r_mind_7_a_game_s_mind_is_never_taken_by_the_march_path(monkeypatch):
    """R-MIND-7: a registered mind (even one named as a content mind) is asked itself."""
    calls: list[str] = []
    monkeypatch.setattr(march, "advance", lambda *args: calls.append("advance"))
    asked: list[str] = []
    affray.register_mind("brute", lambda view, actor: asked.append(actor))
    try:
        world, _sheet = _soldier()
        world.tick()
        assert asked == ["soldier"] and calls == []
    finally:
        affray.unregister_mind("brute")


def test_r_mind_1_free_to_act_is_spawn_order_of_the_queued_and_the_unwaiting(tmp_path):
    """R-MIND-1: the action step's actors are the creatures with a queued action and the
    minded with no wait, in spawn order, before and after a save and load (rows are
    lag slots, in spawn order)."""
    from affray.systems.rules.minds import free_to_act

    creatures = [(f"c{i}", (2 * i, 5), f'side = "{"red" if i % 2 else "blue"}"\n'
                                      + ('mind = "brute"' if i % 3 else ""))
                 for i in range(12)]
    world = world_from_text(scenario(FIELD, creatures))
    world.submit(affray.Move(actor="c1", to=(2, 6)))  # minded and queued: once
    world.submit(affray.Move(actor="c3", to=(6, 6)))  # queued, no mind
    world.lag.wait[world.sheets[world.entity("c4")].creature.slot] = 3  # minded, waiting
    expected = ["c1", "c2", "c3", "c5", "c7", "c8", "c10", "c11"]  # (c0, c6, c9: no mind)

    def ids(w: affray.World) -> list[str]:
        return [w.sheets[e].id for e in free_to_act(w)]

    assert ids(world) == expected
    world.save(tmp_path / "w.json")
    loaded = affray.load_world(tmp_path / "w.json")
    assert ids(loaded) == expected
    spawns = [loaded.sheets[e].spawn.number for e in free_to_act(loaded)]
    assert spawns == sorted(spawns)


@pytest.mark.parametrize(("case", "mind", "foe_x", "next_cast", "outcome"), [
    ("a caster free to cast", "caster", 16, 0, "handed back"),
    ("a caster cooling down, its foe 6 off", "caster", 16, 50, "step"),
    ("a caster cooling down, at its range of 3", "caster", 13, 50, "holds"),
    ("a caster cooling down, 2 off", "caster", 12, 50, "handed back"),
    ("no spell, keeps 3, at its range", "hero_caster", 13, 0, "holds"),
    ("no spell, keeps 3, 2 off", "hero_caster", 12, 0, "handed back"),
    ("no spell, keeps 3, 6 off", "hero_caster", 16, 0, "step"),
])
def test_r_mind_6_casters_cooling_down_and_keepers_of_range(case, mind, foe_x, next_cast,
                                                           outcome, branches, monkeypatch):
    """R-MIND-6, R-MIND-3: a caster whose next cast is not due yet (`cast_every`) walks
    toward its foe, or holds at its keep range, and tries again when the cast is due
    (`Mind.wake`); one free to cast, or closer than its range (a step away), is the
    view's. The same minds, records and log as the view's either way."""
    creatures = [("soldier", (10, 10), f'side = "red"\nmind = "{mind}"\nhp = 100'),
                 ("foe", (foe_x, 10), 'side = "blue"\nhp = 100')]

    def cooling(world: affray.World) -> None:
        world.sheets[world.entity("soldier")].mind.next_cast = next_cast

    monkeypatch.setattr(crowd, "WARM", 1)
    world = lockstep(scenario(FIELD, creatures), 1, monkeypatch, cooling)
    assert branches[outcome] == 1, (case, branches)
    if outcome != "handed back" and next_cast:
        assert world.sheets[world.entity("soldier")].mind.wake == next_cast
    world.close()
