"""Spawning's fast path (`affray.core.spawning.SpawnBatch`) against its reference
(`World._add_generic`: esper's own `create_entity`, `build_sheet`, `Roster.put` and a stir
per creature): the same world, field by field, whether the creatures come one by one
(`add_creature`) or in a batch (`add_creatures`), before the first pulse or after some."""

from __future__ import annotations

import dataclasses
import random
from types import SimpleNamespace
from typing import Any

import esper
import numpy as np
import pytest

import affray
from affray.core import spawning
from affray.data.creatures import Copier, resolve
from affray.data.defs import CreatureFields
from affray.systems.rules.roster import Roster
from affray.systems.rules.sheet import Sheet

# Minds, sides, affects (stun among them), statuses, gear, a player, skills: every branch
# a spawn takes.
KINDS = [
    CreatureFields(level=5, hp=30, mind="brute", side="red"),
    CreatureFields(level=9, hp=44, side="blue", affects=["sanctuary"]),
    CreatureFields(level=3, hp=20, affects=["stun"], statuses={"burning": 2}, mind="pack",
                   side="blue"),
    CreatureFields(level=7, hp=25, wield="long_sword", player=True,
                   wear=["leather_armor", "wooden_shield", "ring_of_warmth"]),
    CreatureFields(level=2, hp=10, affects=["weak_stun"], mind="coward", side="red",
                   statuses={"poisoned": 1, "corroded": 1}, skills={"dodge": 40}),
]
ROWS = ["........"] * 8


def _entries(world: affray.World, count: int, first: int = 0
             ) -> list[tuple[str, tuple[int, int], Any]]:
    makers = [Copier(resolve(world.content, kind, None)) for kind in KINDS]
    cells = [(x, y) for y in range(8) for x in range(8) if not world.grid.occupant[y, x]]
    entries = [(f"c{first + i}", cells[i], makers[i % len(makers)]()) for i in range(count)]
    for _, _, values in entries:
        values.mind.idle_since = 2  # a stir makes it -1: a stir too many or too few shows
    return entries


def _plain(value: Any) -> Any:
    """A component or sheet field as comparable data (its type and fields)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (type(value).__name__, dataclasses.asdict(value))
    return value


def _sheet(sheet: Sheet, parts: dict[type, Any]) -> list[Any]:
    """A sheet field by field; its component fields must be the entity's own objects."""
    row = []
    for field in dataclasses.fields(Sheet):
        value = getattr(sheet, field.name)
        if type(value) in parts:
            assert value is parts[type(value)], field.name
        row.append((field.name, _plain(value)))
    return row


def _state(world: affray.World) -> dict[str, Any]:
    """What a spawn writes, anywhere, as plain data."""
    world.enter()
    try:
        entities = {entity: [(kind.__name__, _plain(part)) for kind, part in parts.items()]
                    for entity, parts in esper._entities.items()}
        sheets = [(entity, _sheet(sheet, esper._entities[entity]))
                  for entity, sheet in world.sheets.items()]
        sets = [(kind.__name__, list(members)) for kind, members in esper._components.items()]
        stale = esper._cache_dirty
    finally:
        esper.switch_world("default")
    roster = world.roster
    return {
        "entities": entities, "sets": sets, "sheets": sheets, "stale": stale,
        "by_id": list(world.by_id.items()), "spawned": world.spawned,
        "slots": world.lag.count, "occupant": world.grid.occupant.tolist(),
        "version": world.grid.version, "minded": sorted(world.minded),
        "stunned": sorted(world.stunned), "afflicted": sorted(world.afflicted),
        "status_due": world.status_due,
        "rests": None if world.stirs is None else dict(world.stirs.rests),
        "roster": (roster.count, dict(roster.side_codes), len(roster.x),
                   [getattr(roster, name).tolist()
                    for name in ("entity", "x", "y", "side", "alive", "row_of", "side_of",
                                 "blocks")]),
        "snapshot": world.snapshot(),
        "view_dirty": None if world.view_cache is None else sorted(world.view_cache.dirty),
    }


def _reference(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every creature from here on takes the reference path."""
    monkeypatch.setattr(spawning, "plain", lambda values, content: False)


def _three_worlds(monkeypatch: pytest.MonkeyPatch, count: int, pulses: int = 0,
                  before: int = 0) -> list[affray.World]:
    """The reference, the batch and the one-by-one world, each with `before` creatures
    added the reference way and run `pulses`, then `count` more added their own way."""
    worlds = []
    for way in ("reference", "batch", "singles"):
        world = affray.World.new(ROWS, seed=5)
        with monkeypatch.context() as patch:
            _reference(patch)
            world.add_creatures(_entries(world, before))
        world.run(pulses)
        if pulses:
            world.view()  # kept records: a newcomer's must be built (`view_cache.touch`)
        entries = _entries(world, count, first=before)
        with monkeypatch.context() as patch:
            if way == "reference":
                _reference(patch)
            if way == "batch":
                world.add_creatures(entries)
            else:
                for creature_id, at, values in entries:
                    world.add_creature(creature_id, at, values)
        worlds.append(world)
    return worlds


@pytest.mark.parametrize(("count", "pulses", "before"), [(1, 0, 0), (23, 0, 0), (20, 30, 12)])
def test_the_fast_path_writes_what_the_reference_path_writes(monkeypatch, count, pulses,
                                                             before):
    """Entities, components (values and order), esper's sets, sheets, ids, cells, the
    grid's version, the roster, minds, stuns and statuses: the same; then the same run
    (after pulses, resting minds were stirred alike)."""
    worlds = _three_worlds(monkeypatch, count, pulses, before)
    try:
        reference, *others = worlds
        want = _state(reference)
        for world in others:
            assert _state(world) == want
        reference.run(80)
        for world in others:
            world.run(80)
            assert [e.to_dict() for e in world.events] == [e.to_dict()
                                                          for e in reference.events]
    finally:
        for world in worlds:
            world.close()


def test_a_batch_cut_by_a_bad_entry_or_mixed_with_odd_ones_is_the_reference(monkeypatch):
    """Entries the fast path leaves to the checked one (a list, numpy coordinates) and a
    refused entry part way: the world after is the reference's."""
    worlds = []
    for way in ("reference", "batch"):
        world = affray.World.new(ROWS, seed=5)
        world.run(3)
        entries: list[Any] = _entries(world, 12)
        entries[3] = list(entries[3])
        entries[5] = (entries[5][0], (np.int64(entries[5][1][0]), entries[5][1][1]),
                      entries[5][2])
        entries[9] = (entries[9][0], entries[1][1], entries[9][2])  # c1's cell
        with monkeypatch.context() as patch:
            if way == "reference":
                _reference(patch)
            with pytest.raises(affray.UsageError, match=r"entry 9 \('c9'\)"):
                world.add_creatures(entries)
        worlds.append(world)
    try:
        assert _state(worlds[1]) == _state(worlds[0])
    finally:
        for world in worlds:
            world.close()


def test_values_of_other_component_types_take_the_reference_path():
    """A component of a subclass is not plain: the fast path would file it by its
    field's type, where esper files it by its own."""

    @dataclasses.dataclass(slots=True)
    class MyCombat(affray.components.Combat):
        pass

    world = affray.World.new(ROWS)
    try:
        values = _entries(world, 1)[0][2]
        assert spawning.plain(values, world.content)
        values.combat = MyCombat()
        assert not spawning.plain(values, world.content)
    finally:
        world.close()


def test_a_new_sheet_without_gear_has_what_refresh_gear_gives():
    """The fast path makes no `refresh_gear` call for a creature without gear."""
    world = affray.World.new(ROWS)
    try:
        world.add_creatures(_entries(world, 2))
        sheet = world.sheet("c0")
        assert not sheet.equipment.wield and not sheet.equipment.worn
        fresh = dataclasses.replace(sheet)
        fresh.refresh_gear(world.content)
        assert _sheet(fresh, {}) == _sheet(sheet, {})
    finally:
        world.close()


def _fake_sheet(entity: int, slot: int, x: int, side: str, alive: bool) -> Any:
    """What `Roster.put` reads of a sheet."""
    return SimpleNamespace(entity=entity, creature=SimpleNamespace(slot=slot, side=side),
                           position=SimpleNamespace(x=x, y=x + 1),
                           vitals=SimpleNamespace(alive=alive))


@pytest.mark.parametrize("seed", range(12))
def test_put_many_is_put_after_put(seed):
    """Rows next or not, entities rising or not, from empty or part full, past the
    capacity or not: the same columns, count, codes, entity tables, block counts and
    capacity."""
    rng = random.Random(seed)
    one, many = Roster(), Roster()
    for _ in range(4):
        start = one.count if rng.random() < 0.8 else rng.randrange(one.count + 1)
        size = rng.choice([1, 7, 8, 30, 70, 150])
        base = rng.choice([200, 1000]) + 2 * start  # entity ids are 1 or more
        steps = rng.choice([[1], [1, 1, 1, -1]])  # rising, or not
        sheets = [_fake_sheet(base + i * rng.choice(steps), start + i, rng.randrange(9),
                              rng.choice("abc"), rng.random() < 0.7) for i in range(size)]
        for sheet in sheets:
            one.put(sheet)
        many.put_many(sheets)
        assert (many.count, many.side_codes) == (one.count, one.side_codes)
        for name in ("entity", "x", "y", "side", "alive", "row_of", "side_of", "blocks"):
            assert getattr(many, name).tolist() == getattr(one, name).tolist(), name
