"""A prepared scenario (`affray.data.scenario.Blueprint`, what
`affray.runners.batch.prepare` keeps): each seed's World equals the one `build_world`
makes, and two runs built from one blueprint share no mutable state.
"""

from __future__ import annotations

from pathlib import Path

import esper
import numpy as np
import pytest

from affray.components import Door, WaterBody, WornItem
from affray.core.actions import Move
from affray.data.creatures import Copier
from affray.data.scenario import builtin_scenario, load_scenario
from affray.runners.batch import prepare
from tests.conftest import world_from_text

SCENARIOS = sorted(path.stem for path in Path(builtin_scenario("duel")).parent.glob("*.toml"))
# A built-in too long to play out six times here: its march and first clash only.
PULSES = {"battle": 80}


def _log_and_state(world) -> tuple[list[dict], dict, int]:
    return [event.to_dict() for event in world.events], world.snapshot(), world.pulse


@pytest.mark.parametrize("name", SCENARIOS)
def test_a_blueprint_build_is_the_scenario_built_from_its_file(name):
    """Every built-in scenario, three seeds: before running, the snapshot, the entities
    (ids, component values, in creation order), the grid and the scripted actions are
    those of `load_scenario`; after `run()` (a long one: its first `PULSES`), the log
    and the snapshot are too."""
    job = prepare(builtin_scenario(name))
    for seed in (0, 7, 123):
        direct, built = load_scenario(builtin_scenario(name), seed=seed), job.build(seed)
        try:
            assert built.snapshot() == direct.snapshot()
            built.enter()
            mine = {entity: sorted(map(repr, parts))
                    for entity, parts in esper._entities.items()}
            direct.enter()
            theirs = {entity: sorted(map(repr, parts))
                      for entity, parts in esper._entities.items()}
            assert mine == theirs
            for array in ("terrain", "ice_cm", "shut", "occupant", "body"):
                assert np.array_equal(getattr(built.grid, array), getattr(direct.grid, array))
            assert (built.grid.dirty, built.grid.labellings) == (direct.grid.dirty,
                                                                 direct.grid.labellings)
            assert built.scripted == direct.scripted
            assert built.end_pulse == direct.end_pulse
            assert built.rules.protections.names == direct.rules.protections.names
            assert built.rules.defences.names == direct.rules.defences.names
            built.run(PULSES.get(name))
            direct.run(PULSES.get(name))
            assert _log_and_state(built) == _log_and_state(direct)
        finally:
            built.close()
            direct.close()


def _rich_scenario(tmp_path: Path) -> Path:
    """door_blast (doors, a chest with contents, items, a cast) with a lake and a duel
    of geared, affected and afflicted fighters added."""
    text = builtin_scenario("door_blast").read_text(encoding="utf-8")
    text = text.replace('"#........#"', '"#~~......#"').replace("pulses = 12", "pulses = 60")
    text += """
[[creatures]]
id = "warrior"
template = "human_warrior"
at = [7, 3]
fighting = "brute"
affects = ["sanctuary"]
statuses = { burning = 1 }

[[creatures]]
id = "brute"
template = "orc_brute"
at = [8, 3]
"""
    path = tmp_path / "rich.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_two_runs_of_one_blueprint_share_no_state(tmp_path):
    """Change everything a run can change in one World built from a job: the other
    World, built before, and a third built after, stay as the pristine build."""
    job = prepare(_rich_scenario(tmp_path))
    first, second = job.build(3), job.build(3)
    pristine = second.snapshot()
    second.enter()
    doors = [door.state for _e, door in esper.get_component(Door)]
    assert doors, "the scenario has doors"
    assert len(esper.get_component(WaterBody)) == 1, "the scenario has a lake"
    try:
        first.enter()
        some = first.sheet("warrior")
        assert some.equipment.worn and some.statuses.degrees and some.affects.levels
        some.vitals.hp -= 5
        some.affects.levels["sanctuary"] = 3
        some.skills.learned["dodge"] = 1
        some.statuses.degrees["burning"] = 2
        for piece in some.equipment.worn:
            piece.damaged = True
        some.equipment.worn.append(WornItem("helm", "head"))
        some.level.level += 1
        some.stats.strength = 3
        some.immunities.imm |= 1
        some.combat.fighting = "kobold"
        for _entity, door in esper.get_component(Door):
            door.state = "broken"
        for _entity, body in esper.get_component(WaterBody):
            body.label = 99
        for array in ("terrain", "ice_cm", "shut", "occupant", "body"):
            getattr(first.grid, array)[...] = 1
        first.grid.labellings = 50
        first.rules.protections.remove("armor")
        first.rules.defences.remove("dodge")
        first.rules.add_hook("on_fight", ("all", ""), lambda *_: None)
        first.rules.add_modifier("melee", lambda *_: None)
        first.scripted.clear()
        first.lag.wait[:] = 9
        first.run(40)
        third = job.build(3)
        try:
            for world in (second, third):
                assert world.snapshot() == pristine
                assert "armor" in world.rules.protections.names
                assert "dodge" in world.rules.defences.names
                assert not world.rules.hooks["on_fight"]
                assert not world.rules.all_melee
                assert world.scripted, "the scripted actions were shared"
                world.enter()
                assert [door.state for _e, door in esper.get_component(Door)] == doors
                assert [body.label for _e, body in esper.get_component(WaterBody)] == list(
                    range(1, len(esper.get_component(WaterBody)) + 1))
            third.run()
            second.run()
            assert _log_and_state(second) == _log_and_state(third)
        finally:
            third.close()
    finally:
        first.close()
        second.close()


def _mutable_parts(value, seen=None) -> list:
    """Every mutable object reachable from component values (dicts, lists, dataclasses)."""
    seen = [] if seen is None else seen
    if isinstance(value, dict):
        seen.append(value)
        for item in value.values():
            _mutable_parts(item, seen)
    elif isinstance(value, list | tuple):
        if isinstance(value, list):
            seen.append(value)
        for item in value:
            _mutable_parts(item, seen)
    elif hasattr(value, "__dataclass_fields__"):
        seen.append(value)
        for name in value.__dataclass_fields__:
            _mutable_parts(getattr(value, name), seen)
    return seen


@pytest.mark.parametrize("name", SCENARIOS)
def test_each_copy_is_equal_and_shares_nothing_mutable(name):
    """The copies a build hands a World (creatures, doors) equal the prepared values and
    hold none of their dicts, lists or components, nor one another's (so one run
    cannot reach the next)."""
    job = prepare(builtin_scenario(name))
    makers = [(planned.values, planned.make) for planned in job.blueprint.creatures]
    makers += [(make(), make) for _at, make in job.blueprint.doors]
    assert makers
    for prototype, make in makers:
        first, second = make(), make()
        assert first == prototype and second == prototype
        originals = {id(part) for part in _mutable_parts(prototype)}
        firsts = {id(part) for part in _mutable_parts(first)}
        assert originals.isdisjoint(firsts)
        assert firsts.isdisjoint(id(part) for part in _mutable_parts(second))


def test_a_copier_copies_every_kind_of_value():
    """Copier: nested dataclasses in lists, dicts of scalars, tuples, a frozen
    dataclass and a value of another kind (a set: deep-copied) all come out equal and
    unshared; scalars and tuples of scalars are shared (immutable)."""
    from dataclasses import dataclass, field

    @dataclass(slots=True, frozen=True)
    class Inner:
        name: str
        tags: dict = field(default_factory=dict)

    @dataclass(slots=True)
    class Outer:
        number: int
        pair: tuple
        inners: list
        table: dict
        other: set

    prototype = Outer(3, (1, "a"), [Inner("x", {"k": 1}), Inner("y")], {"a": 1.5},
                      {1, 2})
    make = Copier(prototype)
    made = make()
    assert made == prototype
    assert made.pair is prototype.pair
    assert {id(p) for p in _mutable_parts(made)}.isdisjoint(
        id(p) for p in _mutable_parts(prototype))
    assert made.other == prototype.other and made.other is not prototype.other
    made.inners[0].tags["k"] = 2
    assert prototype.inners[0].tags == {"k": 1} and make().inners[0].tags == {"k": 1}


def test_a_blueprint_build_checks_its_seed_and_scripts_afresh():
    """A bad seed is the same UsageError as build_world's; the file's seed is the
    default; each build's scripted actions are its own list."""
    from affray.core.errors import UsageError

    job = prepare(builtin_scenario("duel"))
    with pytest.raises(UsageError):
        job.blueprint.build(-1)
    world = job.blueprint.build()
    try:
        assert world.seed == job.spec.seed
        world.scripted.append((5, Move(actor="orc", to=(2, 1))))
        other = job.build(0)
        try:
            assert other.scripted == []
        finally:
            other.close()
    finally:
        world.close()


def test_a_pickled_job_builds_the_same_worlds():
    """A job goes to worker processes pickled: its copiers travel as their prototypes
    and write their code again there; the worlds and runs are the same."""
    import pickle

    job = prepare(builtin_scenario("door_blast"))
    job.build(0).close()  # the copiers have written their code
    shipped = pickle.loads(pickle.dumps(job))
    for seed in (0, 5):
        here, there = job.build(seed), shipped.build(seed)
        try:
            assert there.snapshot() == here.snapshot()
            here.run()
            there.run()
            assert _log_and_state(there) == _log_and_state(here)
        finally:
            here.close()
            there.close()


@pytest.mark.parametrize("name", ["demo", "duel", "skirmish"])
def test_fights_a_scenario_starts_are_the_api_s_start_fight(name):
    """A scenario's `fighting` entries start their fights at build without the API's
    `touch` (nothing has read the World yet): the same log and snapshot as the scenario
    built without them and the same fights started through `World.start_fight` (which
    touches), in file order, for three seeds."""
    import re

    text = builtin_scenario(name).read_text()
    fights = re.findall(r'id = "([^"]+)"(?:(?!\[\[)[\s\S])*?\nfighting = "([^"]+)"', text)
    assert fights  # the scenario starts fights
    bare = re.sub(r'\nfighting = "[^"]+"', "", text)
    for seed in (0, 7, 123):
        direct = load_scenario(builtin_scenario(name), seed=seed)
        scripted = world_from_text(bare, seed=seed)
        try:
            for attacker, victim in fights:
                scripted.start_fight(attacker, victim)
            assert _log_and_state(scripted) == _log_and_state(direct)
            direct.run(400)
            scripted.run(400)
            assert _log_and_state(scripted) == _log_and_state(direct)
        finally:
            direct.close()
            scripted.close()
