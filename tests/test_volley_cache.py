"""The vectorised round's persistent columns (volley_columns.VolleyCache) change nothing.

The safety net of the cache: battles run with the columns kept between rounds and with
them read afresh every round (`volley.PERSISTENT = False`) must write the very same log
and end in the very same snapshot, byte for byte, whatever happens to the fighters between
two rounds: spells cast into the battle (burning, poison, acid on gear, a force blast's
pushes, stun, daze, dispel), status ticks, deaths, creatures joining late through the
scenario's attack actions and through the API, the API's mutators, a hand edit followed
by `World.touch`, and a save and load in the middle; plus a hypothesis-generated mix.
"""

from __future__ import annotations

import contextlib
import json
from itertools import count

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import affray
from affray.data.creatures import resolve
from affray.data.defs import CreatureFields
from affray.systems.rules import volley, volley_columns
from tests.conftest import world_from_text
from tests.test_volley import ITEMS, PAIRS, creature

WIDTH = 14


def battle_text(actions: str = "") -> str:
    """Two copies of test_volley's thirteen mixed pairs (a/b at x 1-2, c/d at x 7-8), a
    reserve beside some of them (not fighting), three mages, burning and poisoned
    fighters; `vectorise_min_fighters = 2`."""
    rows = ["." * WIDTH for _ in range(2 * len(PAIRS))]
    text = ('name = "cache"\npulses = 72\n[map]\nrows = ['
            + ", ".join(f'"{row}"' for row in rows) + "]\n")
    for index, (attacker, victim) in enumerate(PAIRS):
        y = 2 * index
        burning = '\nstatuses = { burning = 2 }' if index % 4 == 1 else ""
        poisoned = '\nstatuses = { poisoned = 3 }' if index % 5 == 2 else ""
        text += creature(f"a{index}", (1, y), f"b{index}", attacker)
        text += creature(f"b{index}", (2, y), f"a{index}", victim)
        text += creature(f"c{index}", (7, y), f"d{index}", attacker + burning)
        text += creature(f"d{index}", (8, y), f"c{index}", victim + poisoned)
        if index % 3 == 0:
            text += (f'[[creatures]]\nid = "r{index}"\nat = [3, {y}]\n'
                     'template = "human_warrior"\nhp = 80\n')
    for index, y in enumerate((3, 11, 19)):
        text += (f'[[creatures]]\nid = "m{index}"\nat = [5, {y}]\ntemplate = "human_mage"\n'
                 'hp = 300\nlevel = 40\n')
    return (text + actions + '[content.fight]\nvectorise_min_fighters = 2\n' + ITEMS)


def action(pulse: int, actor: str, **fields: object) -> str:
    lines = "".join(f"{key} = {json.dumps(value)}\n" for key, value in fields.items())
    return f'[[actions]]\npulse = {pulse}\nactor = "{actor}"\n{lines}'


SPELLS_INTO_THE_BATTLE = "".join((
    action(5, "m0", cast="fireball", target=[2, 4]),
    action(14, "m1", cast="poison_cloud", target=[7, 10]),
    action(20, "m2", cast="stunning_word", target="c9"),
    action(26, "m0", cast="daze", target="d1"),
    action(29, "r0", attack="b0"),
    action(29, "r9", attack="b9"),
    action(33, "m1", cast="dispel_magic", target="a6"),
    action(38, "m2", cast="acid_splash", target=[7, 18]),
    action(44, "m0", cast="force_blast", target=[8, 5]),
    action(50, "m1", cast="cone_of_cold", target=[8, 12]),
    action(53, "r6", move=[4, 13]),
))


def late_joiner(world: affray.World) -> None:
    """A creature added through the API, thrown into the fight (R-GRID-3 spawn order)."""
    content = world.content
    fields = CreatureFields(level=25, hp=70, profession="warrior", player=True,
                            skills={"sword": 80, "parry": 40}, wield="long_sword")
    free = next((x, y) for y in range(len(PAIRS) * 2) for x in (0, 9)
                if not world.grid.occupant[y, x]
                and world.sheet(f"{'a' if x == 0 else 'd'}{y // 2}").vitals.alive
                and y % 2 == 0)
    name = next(f"late{n}" for n in count() if f"late{n}" not in world.by_id)  # unique
    world.add_creature(name, free, resolve(content, fields, None))
    foe = f"{'a' if free[0] == 0 else 'd'}{free[1] // 2}"
    world.start_fight(name, foe)


def hand_edit(world: affray.World) -> None:
    """A game edits components by hand, then says so (docs/api.md)."""
    sheet = world.sheet("c3")
    sheet.vitals.hp = max(1, sheet.vitals.hp - 11)
    sheet.stats.strength = 25
    sheet.offense.hitroll += 9
    world.touch("c3")


API_CALLS: list[tuple[int, object]] = [
    (17, lambda world: world.add_affect("d2", "haste")),
    (17, lambda world: world.add_affect("c11", "sanctuary")),
    (23, late_joiner),
    (28, lambda world: world.remove_affect("a0", "sanctuary")),
    (31, lambda world: world.set_daze("c4", 30)),
    (35, hand_edit),
    (41, lambda world: world.add_affect("b4", "weak_stun")),
    (47, lambda world: _damage(world, "d6", 13, "fire")),
    (47, late_joiner),
    (56, lambda world: world.add_affect("c7", "blind")),
]


def _damage(world: affray.World, target: str, amount: int, damage_type: str) -> None:
    if world.sheet(target).vitals.alive:
        with contextlib.suppress(affray.VictimDeath):
            world.damage(None, target, amount, damage_type)


def play(monkeypatch: pytest.MonkeyPatch, persistent: bool, text: str, seed: int,
         calls: list[tuple[int, object]], end: int = 72, save_at: int | None = None,
         tmp_path: object = None) -> tuple[list[dict], dict, int]:
    """Run a battle (the API calls at their pulses, a save and load at `save_at`); the
    log, the final snapshot and how many times the columns were built from nothing."""
    monkeypatch.setattr(volley, "PERSISTENT", persistent)
    built = []
    real_init = volley_columns.VolleyCache.__init__

    def counting(self, world):  # type: ignore[no-untyped-def]
        built.append(world.pulse)
        real_init(self, world)

    monkeypatch.setattr(volley_columns.VolleyCache, "__init__", counting)
    world = world_from_text(text, seed=seed)
    for pulse, call in sorted(calls, key=lambda item: item[0]):
        if save_at is not None and world.pulse <= save_at < pulse:
            world.run(save_at - world.pulse)
            path = f"{tmp_path}/mid-{int(persistent)}.json"
            world.save(path)
            world.close()
            world = affray.load_world(path)
        world.run(pulse - world.pulse)
        call(world)  # type: ignore[operator]
    world.run(end - world.pulse)
    log = [event.to_dict() for event in world.events]
    snapshot = world.snapshot()
    world.close()
    return log, snapshot, len(built)


def same_battle(monkeypatch: pytest.MonkeyPatch, text: str, seed: int,
                calls: list[tuple[int, object]], **options: object) -> list[dict]:
    kept, kept_snapshot, kept_builds = play(monkeypatch, True, text, seed, calls, **options)
    fresh, fresh_snapshot, fresh_builds = play(monkeypatch, False, text, seed, calls,
                                               **options)
    assert json.dumps(kept) == json.dumps(fresh)
    assert json.dumps(kept_snapshot, sort_keys=True) == json.dumps(fresh_snapshot,
                                                                   sort_keys=True)
    assert kept_builds < fresh_builds  # the columns were really kept between rounds
    return kept


def test_kept_columns_write_the_fresh_log_through_spells_statuses_joins_and_api(
        monkeypatch) -> None:
    """Spells cast into the battle mid-fight, status ticks, stun and daze, deaths,
    creatures joining late (attack actions, the API), the API's mutators and a hand edit
    with `World.touch`: the same log and snapshot with and without the kept columns."""
    log = same_battle(monkeypatch, battle_text(SPELLS_INTO_THE_BATTLE), 3, API_CALLS)
    kinds = {event["kind"] for event in log}
    assert {"cast", "death", "status", "stun", "pushed", "damage", "position"} <= kinds
    assert any(e["kind"] == "damage" and e.get("status") for e in log)  # status ticks
    assert any(e["kind"] == "damage" and e["cause"] == "melee"
               and e["source"].startswith("late") for e in log)
    assert any(e["kind"] == "damage" and e["cause"] == "melee"
               and e["source"] in ("r0", "r9") for e in log)


def test_kept_columns_across_a_save_and_load(monkeypatch, tmp_path) -> None:
    """R-ENG-3: a battle saved and loaded mid-fight (the loaded world starts its columns
    afresh) gives the same log and snapshot with and without the kept columns, and the
    same as the battle never saved."""
    text = battle_text(SPELLS_INTO_THE_BATTLE)
    saved = same_battle(monkeypatch, text, 9, API_CALLS, save_at=30, tmp_path=tmp_path)
    whole, _snapshot, _builds = play(monkeypatch, True, text, 9, API_CALLS)
    assert saved == whole


def test_kept_columns_across_scalar_rounds(monkeypatch) -> None:
    """Rounds run on the scalar path in between (`vectorise = "never"` for a while, as when
    a battle drops below `vectorise_min_fighters`) change fighters without the vectorised
    round seeing it (a fight ended because a spell killed the target): the kept columns
    still give the fresh log and snapshot when the big rounds resume."""
    def mode(value: str):  # type: ignore[no-untyped-def]
        def call(world: affray.World) -> None:
            world.vectorise = value
        return call

    kills = [(pulse, lambda world, who=who: _damage(world, who, 500, "fire"))
             for pulse, who in ((14, "b0"), (14, "d4"), (26, "a7"), (26, "c10"))]
    calls = [(13, mode("never")), *kills, (40, mode("auto")), (47, late_joiner),
             (47, lambda world: (world.start_fight("r3", "b3")
                                 if world.sheet("b3").vitals.alive else None))]
    for seed in (2, 5):
        same_battle(monkeypatch, battle_text(SPELLS_INTO_THE_BATTLE), seed, calls)


def test_a_hand_edit_needs_touch(monkeypatch) -> None:
    """The contract of docs/api.md: a component edited by hand between rounds is seen by
    the kept columns after `World.touch(id)` (or `touch()` for everything); without it,
    the kept columns still hold the old values (the edit is lost)."""
    def edit(touch: str | bool | None):  # type: ignore[no-untyped-def]
        def call(world: affray.World) -> None:
            sheet = world.sheet("d8")
            sheet.vitals.hp = 1  # one blow from death
            if touch is not False:
                world.touch(touch)  # type: ignore[arg-type]
        return call

    text = battle_text()
    fresh, _, _ = play(monkeypatch, False, text, 4, [(13, edit(False))], end=40)
    for touch in ("d8", None):
        kept, _, _ = play(monkeypatch, True, text, 4, [(13, edit(touch))], end=40)
        assert kept == fresh
    untouched, _, _ = play(monkeypatch, True, text, 4, [(13, edit(False))], end=40)
    assert untouched != fresh
    with pytest.raises(affray.UnknownCreatureError):
        world = world_from_text(text, seed=1)
        try:
            world.touch("nobody")
        finally:
            world.close()


MUTATIONS = {
    "haste": lambda who: lambda world: world.add_affect(who, "haste"),
    "sanctuary": lambda who: lambda world: world.add_affect(who, "sanctuary"),
    "unsanctify": lambda who: lambda world: world.remove_affect(who, "sanctuary"),
    "stun": lambda who: lambda world: world.add_affect(who, "stun"),
    "weak_stun": lambda who: lambda world: world.add_affect(who, "weak_stun"),
    "daze": lambda who: lambda world: world.set_daze(who, 20),
    "burn": lambda who: lambda world: _damage(world, who, 6, "fire"),
    "hit": lambda who: lambda world: _damage(world, who, 25, "slash"),
    "join": lambda who: late_joiner,
    "edit": lambda who: lambda world: (setattr(world.sheet(who).vitals, "position",
                                               "sitting"), world.touch(who)),
    "edit_many": lambda who: lambda world: (
        [setattr(world.sheet(f"{side}{who[1:]}").offense, "hitroll", 40) for side in "abcd"],
        world.touch()),
    "scalar": lambda who: lambda world: setattr(world, "vectorise", "never"),
    "vector": lambda who: lambda world: setattr(world, "vectorise", "auto"),
}
CASTS = [("fireball", [2, 8]), ("poison_cloud", [8, 14]), ("stunning_word", "c5"),
         ("daze", "b6"), ("acid_splash", [2, 20]), ("force_blast", [7, 4]),
         ("dispel_magic", "d10"), ("frost_burst", [1, 16])]


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(calls=st.lists(st.tuples(st.integers(0, 60), st.sampled_from(sorted(MUTATIONS)),
                                st.sampled_from(["a", "b", "c", "d"]), st.integers(0, 12)),
                      max_size=8),
       casts=st.lists(st.tuples(st.integers(0, 60), st.integers(0, 2),
                                st.integers(0, len(CASTS) - 1)), max_size=5),
       seed=st.integers(0, 50))
def test_kept_columns_under_a_generated_mix(monkeypatch, calls, casts, seed) -> None:
    """Hypothesis: any mix of the API's mutators, hand edits with touch, late joiners,
    stretches of scalar rounds and spells cast by the mages at any pulse gives the same
    log and snapshot with and without the kept columns."""
    actions = "".join(action(pulse, f"m{mage}", cast=CASTS[k][0], target=CASTS[k][1])
                      for pulse, mage, k in casts)
    api = [(pulse, MUTATIONS[kind](f"{side}{index}")) for pulse, kind, side, index in calls]
    safe = [(pulse, _alive_only(call, f"{side}{index}"))
            for (pulse, call), (_p, _k, side, index) in zip(api, calls, strict=True)]
    kept, kept_snapshot, _ = play(monkeypatch, True, battle_text(actions), seed, safe, end=64)
    fresh, fresh_snapshot, _ = play(monkeypatch, False, battle_text(actions), seed, safe,
                                    end=64)
    assert kept == fresh
    assert kept_snapshot == fresh_snapshot


def _alive_only(call, who: str):  # type: ignore[no-untyped-def]
    """The API refuses some calls on the dead (an ActionError): skip those."""
    def guarded(world: affray.World) -> None:
        with contextlib.suppress(affray.ActionError, StopIteration):  # StopIteration:
            call(world)                                                 # no cell free
    return guarded


def test_a_steady_battle_reads_no_creature_after_its_first_round(monkeypatch) -> None:
    """What the cache is for: once a big battle's columns are read, a round in which
    nothing but the round itself changed the fighters reads no creature again, and a
    creature changed between rounds (a spell's damage, an API call) is the only one read."""
    from affray.benchmarks.blows import fighting_pairs
    from affray.data.content_loader import default_content

    read: list[int] = []
    real_read = volley_columns.VolleyCache.read

    def counting(self, world, sheets, rows):  # type: ignore[no-untyped-def]
        read.append(len(sheets))
        real_read(self, world, sheets, rows)

    monkeypatch.setattr(volley_columns.VolleyCache, "read", counting)
    world = fighting_pairs(default_content(), 200, seed=2)  # 200 fighters: vectorised
    rounds = world.content.fight.round_pulses
    world.run(rounds)  # the first round reads every fighter
    assert sum(read) == 200
    read.clear()
    world.run(2 * rounds)
    assert read == []
    world.damage(None, "a7", 5, "fire")
    world.add_affect("b9", "haste")
    world.run(rounds)
    assert sorted(read) == [2]  # a7 and b9, in one read
    world.close()


def test_hooks_and_a_cleared_log_start_the_columns_afresh(monkeypatch) -> None:
    """A world with a hook reads its columns afresh every round and keeps none (a hook
    may change anything without an event); a game that empties `world.events` between
    rounds makes the cache read everyone again. Both still write the fresh log."""
    def hook_world(world: affray.World) -> None:
        world.rules.add_hook("post_damage", ("creature", "b2"), lambda hit, world: None)

    def clear_log(world: affray.World) -> None:
        world.events.clear()

    for calls in ([(10, hook_world)], [(30, clear_log), (40, hand_edit)]):
        kept, kept_snapshot, kept_builds = play(monkeypatch, True, battle_text(), 6, calls,
                                                end=60)
        fresh, fresh_snapshot, fresh_builds = play(monkeypatch, False, battle_text(), 6,
                                                   calls, end=60)
        assert kept == fresh
        assert kept_snapshot == fresh_snapshot
        if calls[0][1] is clear_log:  # the first round's columns, then all again after it
            assert kept_builds == 2
        else:  # hooked before the first round: columns read afresh every round
            assert kept_builds == fresh_builds > 2
    monkeypatch.setattr(volley, "PERSISTENT", True)
    world = world_from_text(battle_text(), seed=6)
    world.run(13)
    assert world.volley_cache is not None
    hook_world(world)
    world.run(12)
    assert world.volley_cache is None
    world.close()


def test_a_fight_ended_by_a_death_marks_the_fighter_r_act_2() -> None:
    """R-ACT-2: a fighter whose target dies stops fighting it at once (a `fight` event,
    why foe_died), outside any round, and the kept columns mark it to be read again by
    the next big round."""
    world = world_from_text(battle_text(), seed=2)
    try:
        world.run(1)  # the round of pulse 0 is vectorised: the columns are kept
        cache = world.volley_cache
        b0 = world.by_id["b0"]
        assert cache is not None and b0 not in cache.dirty
        world.vectorise = "never"
        start = len(world.events)
        _damage(world, "a0", 500, "fire")  # b0's target dies
        assert world.sheet("b0").combat.fighting is None
        assert b0 in cache.dirty
        ended = [e.to_dict() for e in world.events[start:] if e.kind == "fight"]
        assert {"source": "b0", "target": "a0", "change": "ended",
                "why": "foe_died"}.items() <= ended[0].items()
    finally:
        world.close()


def test_the_collector_pause_around_the_blow_events(monkeypatch) -> None:
    """The vectorised round's blow events are built (volley.BlowEvents.objects) when the
    log is first read, with the cyclic garbage collector paused: off during the build, on
    again after it, on again when the build fails, and left off for a game that had
    turned it off."""
    import gc

    seen: list[bool] = []
    real = volley.BlowEvents._build

    def spy(self):  # type: ignore[no-untyped-def]
        seen.append(gc.isenabled())
        return real(self)

    def broken(self):  # type: ignore[no-untyped-def]
        raise RuntimeError("building the events failed")

    was_enabled = gc.isenabled()
    try:
        for game_turned_it_off in (False, True):
            (gc.disable if game_turned_it_off else gc.enable)()
            monkeypatch.setattr(volley.BlowEvents, "_build", spy)
            world = world_from_text(battle_text(), seed=1)
            try:
                world.run(1)  # the round of pulse 0, vectorised: its events are columns
                assert seen == [] and world.events.pending
                assert len(list(world.events)) > 0  # reading builds them
            finally:
                world.close()
            assert seen == [False]
            assert gc.isenabled() is not game_turned_it_off
            seen.clear()
        gc.enable()
        monkeypatch.setattr(volley.BlowEvents, "_build", broken)
        world = world_from_text(battle_text(), seed=1)
        try:
            world.run(1)
            with pytest.raises(RuntimeError):
                list(world.events)
        finally:
            world.close()
        assert gc.isenabled()
    finally:
        (gc.enable if was_enabled else gc.disable)()


def test_static_rows_share_a_row_by_value_and_take_lists_where_tuples_belong() -> None:
    """The column cache's rows of immutable parts (StaticRows): creatures alike share one
    row (the gear's armor compared column by column, whatever other keys its dict has);
    a list where a tuple belongs (dice, defences: a game's hand edit) gives the row its
    items give, instead of failing to hash."""
    world = world_from_text(battle_text(), seed=1)
    try:
        sheet = next(iter(world.sheets.values()))
        static = volley_columns.StaticRows()
        parts = volley_columns._STATIC(sheet)
        first = static.row(parts)
        gear = {**parts[5], "ignored": 9}
        listed = (parts[0], parts[1], list(parts[2]) if parts[2] else None,
                  list(parts[3]) if parts[3] else None, list(parts[4]), gear, *parts[6:])
        assert static.row(listed) == first and len(static.rows) == 1
        more = {**parts[5], "bash": parts[5].get("bash", 0) + 1}
        other = static.row((*parts[:5], more, *parts[6:]))
        assert other != first and len(static.rows) == 2
        bash = volley_columns._STATIC_FIELDS.index("gear_bash")
        assert static.rows[other][bash] == static.rows[first][bash] + 1
    finally:
        world.close()


def _pairs_with_a_rejoiner(monkeypatch: pytest.MonkeyPatch, persistent: bool
                           ) -> tuple[list[list[str]], list[dict]]:
    """200 fighters in pairs: b7's foe dies between rounds, b7 is edited by hand while out
    of the fight, then stepped beside a8 and thrown back in against it. The creatures
    each stretch read, and the log."""
    from affray.benchmarks.blows import fighting_pairs
    from affray.data.content_loader import default_content

    monkeypatch.setattr(volley, "PERSISTENT", persistent)
    read: list[str] = []
    real_read = volley_columns.VolleyCache.read

    def naming(self, world, sheets, rows):  # type: ignore[no-untyped-def]
        read.extend(sheet.id for sheet in sheets)
        real_read(self, world, sheets, rows)

    monkeypatch.setattr(volley_columns.VolleyCache, "read", naming)
    world = fighting_pairs(default_content(), 200, seed=4)
    rounds = world.content.fight.round_pulses
    world.run(rounds)
    marks = [len(read)]
    world.sheet("a7").vitals.hp = 1
    world.touch("a7")
    _damage(world, "a7", 500, "fire")  # a7 dies; b7 stops fighting (R-ACT-2)
    assert not world.sheet("a7").vitals.alive and world.sheet("b7").combat.fighting is None
    world.run(rounds)
    marks.append(len(read))
    sheet = world.sheet("b7")
    sheet.offense.hitroll += 40
    sheet.vitals.hp = 3  # a hand edit, said (docs/api.md)
    world.touch("b7")
    world.run(rounds)
    marks.append(len(read))
    x, y = world.sheet("a8").position.x - 1, world.sheet("a8").position.y  # between the pairs
    world.place(world.by_id["b7"], sheet.position, x, y)
    world.start_fight("b7", "a8")
    world.run(3 * rounds)
    log = [event.to_dict() for event in world.events]
    world.close()
    return [sorted(read[a:b]) for a, b in zip(marks, [*marks[1:], len(read)], strict=True)], log


def test_a_changed_creature_out_of_the_fight_is_read_when_a_round_needs_it(monkeypatch
                                                                          ) -> None:
    """The dead and a victor whose fight ended are marked, not read: the rounds after
    read no one; a creature edited while out of the fight is read when it fights again,
    and the battle's log is the one of columns read afresh every round."""
    reads, kept = _pairs_with_a_rejoiner(monkeypatch, True)
    # The round after the death and the round after the hand edit read no one (both
    # marked; the columns read afresh every round would have read them each round).
    assert reads[:2] == [[], []]
    assert "b7" in reads[2] and "a7" not in reads[2]  # read again once b7 fights
    _fresh_reads, fresh = _pairs_with_a_rejoiner(monkeypatch, False)
    assert json.dumps(kept) == json.dumps(fresh)
    assert any(e["kind"] == "damage" and e["source"] == "b7" and e["target"] == "a8"
               for e in kept)


def _worked_out(cache: volley_columns.VolleyCache, rows: list[int]) -> list[tuple]:
    outputs = volley_columns.OUTPUTS
    return [(tuple(cache.table[outputs, row].tolist()),
             tuple(cache.learned_plain[:, row].tolist()), tuple(cache.floats[:, row].tolist()))
            for row in rows]


@pytest.mark.parametrize("most", [1, 3, 1 << 16])
def test_rows_alike_share_their_worked_out_columns_and_a_change_is_worked_out(
        monkeypatch, most: int) -> None:
    """The worked-out columns of a row come from the first row of the same inputs
    (`Derived`): for the mixed battle's creatures they are what working each row out on
    its own gives; a creature whose input changed (a skill learned, a position, gear) is
    worked out again; the store emptied at its bound (`MOST`) changes no value."""
    monkeypatch.setattr(volley_columns.Derived, "MOST", most)
    world = world_from_text(battle_text(), seed=1)
    try:
        sheets = sorted(world.sheets.values(), key=lambda sheet: sheet.spawn.number)
        cache = volley_columns.VolleyCache(world)
        rows = cache.rows_for(world, [sheet.entity for sheet in sheets]).tolist()
        assert len(cache.derived.index) < len(rows) or most < len(rows)  # shared keys
        alone = []
        for sheet in sheets:  # each creature in a cache of its own: nothing shared
            own = volley_columns.VolleyCache(world)
            own.type_names, own.type_code = list(cache.type_names), dict(cache.type_code)
            alone += _worked_out(own, own.rows_for(world, [sheet.entity]).tolist()[:1])
        assert _worked_out(cache, rows) == alone
        first = sheets[0]
        before = _worked_out(cache, [cache.row_of[first.entity]])
        first.skills.learned["second_attack"] = 90
        first.vitals.position = "resting"
        cache.reread(world, [cache.row_of[first.entity]])
        after = _worked_out(cache, [cache.row_of[first.entity]])
        traits = list(volley_columns.OUTPUTS).index(volley_columns.COLUMN["traits"])
        assert after[0][0][traits] != before[0][0][traits]
        fresh = volley_columns.VolleyCache(world)
        fresh.type_names, fresh.type_code = list(cache.type_names), dict(cache.type_code)
        assert after == _worked_out(fresh, fresh.rows_for(world, [first.entity]).tolist()[:1])
    finally:
        world.close()


def test_the_worked_out_store_grows_without_losing_a_row() -> None:
    """`Derived` keeps every key's columns as it grows past its first room (64 keys),
    chunk after chunk, each key's columns those it was kept with."""
    world = world_from_text(battle_text(), seed=1)
    try:
        cache = volley_columns.VolleyCache(world)
        rows = cache.rows_for(world, list(world.sheets)).tolist()
        store = volley_columns.Derived()
        kept: dict[bytes, int] = {}
        for chunk in range(5):  # 5 x 40 keys, each naming a row of the cache
            picked = [rows[(chunk * 40 + i) % len(rows)] for i in range(40)]
            keys = [f"{chunk}-{i}".encode() for i in range(40)]
            store.keep(keys, cache.table, cache.learned_plain, cache.floats,
                       np.array(picked, dtype=np.int64))
            kept.update(zip(keys, picked, strict=True))
        assert len(store.index) == 200 and store.values.shape[1] >= 200
        outputs = volley_columns.OUTPUTS
        for key, row in kept.items():
            at = store.index[key]
            assert store.values[:, at].tolist() == cache.table[outputs, row].tolist()
            assert store.learned[:, at].tolist() == cache.learned_plain[:, row].tolist()
            assert store.floats[:, at].tolist() == cache.floats[:, row].tolist()
    finally:
        world.close()
