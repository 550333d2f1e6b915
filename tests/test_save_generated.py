"""Generated save drills (R-ENG-3): save, load and continue gives the straight run.

R-ENG-3: "save, load and continue gives the same event log as never stopping". A seeded
generator writes many small scenarios with what makes a save hard: statuses of every
kind on creatures weak enough to die of them or of anything else, fights from the
start, stuns and paralysis, casts of every damage type (fire lights fires and melts
ice, cold freezes water and puts out fires and Burning, force breaks doors and chests,
acid eats gear, stun, daze, dispel), moves, water bodies that freeze apart and melt
together, and (in some scenarios) rounds vectorised from two fighters up, so the
vectorised round's kept columns (`World.volley_cache`, never saved) meet a load.

Each scenario runs straight to its end; then again, saved at a pulse drawn from the
same seed, loaded and continued. The event log and the final snapshot must be the
same. A second drill compares what a load derives rather than saves (the afflicted set
and the next status pulse, the fighting, stunned and ready sets, the water-body
entities and labels, the next pulse anything happens) with the live world's at several
save points of every scenario: a difference there is a difference the log shows later,
or in a run that stops when the world settles (`run(until="settled")`, as batch runs
do), which the first drill also runs.

Before the fixes these found (docs/decisions.md): a creature that died with
statuses kept them for good after a load (the straight run forgets them at the next
status look); a dead creature with actions in its queue was "ready" again after a load,
so the loaded world did not settle where the straight one did; and a status that ended
early (cold puts out Burning) left the straight world's next status pulse earlier than
the one a load worked out, so the dead were forgotten, and the world settled, at other
pulses.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import esper
import pytest
from conftest import world_from_text

import affray
from affray.components import WaterBody

SPELLS = ("spark", "shocking_grasp", "lightning_bolt", "chain_lightning", "fire_bolt",
          "fireball", "burning_hands", "ray_of_frost", "cone_of_cold", "frost_burst",
          "acid_arrow", "acid_splash", "force_blast", "force_bolt", "magic_missile",
          "poison_cloud", "wither", "necrotic_touch", "daze", "entangle", "stunning_word",
          "dispel_magic", "charm")
VIAS = ("mana", "mana", "mana", "scroll", "wand", "trap", "breath")
STATUSES = ("burning", "sluggish", "corroded", "poisoned")
# Terrain symbols and their weights: floor, water, ice, wall, the three shut doors.
CELLS = (".", "~", "_", "#", "+", "L", "T")
CELL_WEIGHTS = (60, 20, 8, 4, 3, 2, 3)
TEMPLATES = (None, None, "kobold", "human_warrior", "human_mage", "orc_brute")
ITEMS = ("scroll", "potion", "bread", "gold_coins", "candle", "wooden_chest")
# How many scenarios each drill runs, in batches (a failure names its scenario).
BATCHES = 6
PER_BATCH = 50


def _map(rng: random.Random) -> list[str]:
    width, height = rng.randint(5, 9), rng.randint(4, 6)
    return ["".join(rng.choices(CELLS, CELL_WEIGHTS, k=width)) for _ in range(height)]


def _creature(rng: random.Random, creature_id: str, at: tuple[int, int]) -> str:
    lines = [f'[[creatures]]\nid = "{creature_id}"\nat = [{at[0]}, {at[1]}]']
    template = rng.choice(TEMPLATES)
    if template is not None:
        lines.append(f'template = "{template}"')
    lines.append(f"hp = {rng.randint(2, 45)}")
    lines.append(f"level = {rng.randint(1, 25)}")
    if template is None and rng.random() < 0.3:
        lines.append("player = true")
    statuses = {name: rng.randint(1, 5) for name in STATUSES if rng.random() < 0.35}
    if statuses:
        lines.append("statuses = { " + ", ".join(f"{k} = {v}" for k, v in statuses.items())
                     + " }")
    affects = [name for name in ("stun", "weak_stun", "paralysis", "sanctuary", "conductor")
               if rng.random() < 0.08]
    if affects:
        lines.append("affects = [" + ", ".join(f'"{a}"' for a in affects) + "]")
    if template is None and rng.random() < 0.5:
        lines.append(f'damage = "1d{rng.randint(2, 8)}+{rng.randint(0, 3)}"')
    if rng.random() < 0.2:
        lines.append(f"npc_tier = {rng.randint(0, 3)}")
    return "\n".join(lines) + "\n"


def _action(rng: random.Random, ids: list[str], at: dict[str, tuple[int, int]],
            size: tuple[int, int]) -> str:
    actor = rng.choice(ids)
    head = f'[[actions]]\npulse = {rng.randint(0, 48)}\nactor = "{actor}"\n'
    kind = rng.random()
    if kind < 0.6:
        if rng.random() < 0.6:
            target = f'"{rng.choice(ids)}"'
        else:
            target = f"[{rng.randrange(size[0])}, {rng.randrange(size[1])}]"
        return head + (f'cast = "{rng.choice(SPELLS)}"\ntarget = {target}\n'
                       f'via = "{rng.choice(VIAS)}"\n')
    if kind < 0.8:
        return head + f'attack = "{rng.choice([i for i in ids if i != actor])}"\n'
    x, y = at[actor]
    to = (min(size[0] - 1, max(0, x + rng.choice((-1, 0, 1)))),
          min(size[1] - 1, max(0, y + rng.choice((-1, 0, 1)))))
    return head + f"move = [{to[0]}, {to[1]}]\n"


def _fights(rng: random.Random, ids: list[str], at: dict[str, tuple[int, int]]) -> dict:
    """Some creatures start fighting a neighbour (the scenario's `fighting`)."""
    fights = {}
    for creature_id in ids:
        x, y = at[creature_id]
        near = [other for other in ids if other != creature_id
                and max(abs(at[other][0] - x), abs(at[other][1] - y)) == 1]
        if near and rng.random() < 0.5:
            fights[creature_id] = rng.choice(near)
    return fights


def scenario_text(rng: random.Random) -> str:
    """One small scenario drawn from `rng` (always valid)."""
    rows = _map(rng)
    size = (len(rows[0]), len(rows))
    free = [(x, y) for y, row in enumerate(rows) for x, cell in enumerate(row)
            if cell in ".~_"]
    rng.shuffle(free)
    count = min(len(free), rng.randint(2, 6))
    ids = [f"c{i}" for i in range(count)]
    at = dict(zip(ids, free, strict=False))
    fights = _fights(rng, ids, at)
    parts = [f'name = "drill"\nseed = {rng.randrange(10_000)}\npulses = {rng.randint(0, 100)}\n'
             "[map]\nrows = [" + ", ".join(f'"{row}"' for row in rows) + "]\n"]
    for creature_id in ids:
        parts.append(_creature(rng, creature_id, at[creature_id]))
        if creature_id in fights:
            parts.append(f'fighting = "{fights[creature_id]}"\n')
    for x, y in free[count:count + rng.randint(0, 3)]:
        item = rng.choice(ITEMS)
        parts.append(f'[[items]]\nat = [{x}, {y}]\nitem = "{item}"\n')
        if item == "wooden_chest":
            parts.append('contents = [{ item = "scroll", count = 2 }]\n')
        else:
            parts.append(f"count = {rng.randint(1, 5)}\n")
    parts.extend(_action(rng, ids, at, size) for _ in range(rng.randint(0, 10)))
    if rng.random() < 0.3:  # rounds vectorised from two fighters: the kept columns
        parts.append("[content.fight]\nvectorise_min_fighters = 2\n")
    return "".join(parts)


def _log(world: affray.World) -> list[dict[str, Any]]:
    return [event.to_dict() for event in world.events]


def _finish(world: affray.World, settle: bool) -> tuple[list[dict[str, Any]], dict]:
    """Run to the end (first until settled, as a batch run does, when `settle`)."""
    if settle:
        world.run(until="settled")
    world.run()
    return _log(world), world.snapshot()


def straight_run(text: str, settle: bool) -> tuple[list[dict[str, Any]], dict, int]:
    """The log, final snapshot and the pulse it settled on (else its end) of a run
    that is never saved."""
    world = world_from_text(text)
    try:
        if settle:
            world.run(until="settled")
        settled = world.pulse
        log, final = _finish(world, False)
        return log, final, settled
    finally:
        world.close()


def saved_run(text: str, at: int, path: Path, settle: bool
              ) -> tuple[list[dict[str, Any]], dict]:
    """The same scenario run to pulse `at`, saved, loaded and finished."""
    world = world_from_text(text)
    try:
        world.run(at)
        world.save(path)
    finally:
        world.close()
    with affray.load_world(path) as loaded:
        return _finish(loaded, settle)


def save_pulse(rng: random.Random, log: list[dict[str, Any]], last: int) -> int:
    """Where to save, drawn from `rng`, 0..last (in a settling run, no later than it
    settled): anywhere, or where a save is hardest, the pulse after a death (the dead
    still carry what they had) or the last pulse itself (the one a settling run settles
    on)."""
    deaths = [event["pulse"] + 1 for event in log
              if event["kind"] == "death" and event["pulse"] < last]
    choice = rng.random()
    if choice < 0.4 and deaths:
        return rng.choice(deaths)
    if choice < 0.6:
        return last
    return rng.randint(0, last)


def _first_difference(expected: list[dict], got: list[dict]) -> str:
    for index, (one, other) in enumerate(zip(expected, got, strict=False)):
        if one != other:
            return f"event {index}: {one} != {other}"
    return f"{len(expected)} events != {len(got)} events"


@pytest.mark.parametrize("batch", range(BATCHES))
def test_generated_save_load_continue_gives_the_straight_run_r_eng_3(tmp_path, batch):
    """R-ENG-3: for every generated scenario, saved at a drawn pulse (`save_pulse`),
    loaded and run to the end (half of them first until settled, as batch runs do), the
    event log and the final snapshot are the straight run's."""
    path = tmp_path / "drill.sav"
    for number in range(batch * PER_BATCH, (batch + 1) * PER_BATCH):
        rng = random.Random(number)
        text = scenario_text(rng)
        settle = number % 2 == 1
        log, final, settled = straight_run(text, settle)
        at = save_pulse(rng, log, settled)
        got_log, got_final = saved_run(text, at, path, settle)
        where = f"scenario {number} saved at pulse {at} (settle={settle})"
        assert got_log == log, f"{where}: {_first_difference(log, got_log)}\n{text}"
        assert got_final == final, f"{where}: final snapshots differ\n{text}"


def derived_views(world: affray.World) -> dict[str, Any]:
    """What a load rebuilds instead of reading it from the save, as plain values."""
    world.enter()
    return {"afflicted": sorted(world.afflicted), "status_due": world.status_due,
            "fighting": sorted(world.fighting), "stunned": sorted(world.stunned),
            "ready": sorted(world.ready), "sheets": sorted(world.sheets),
            "bodies": sorted(body.label for _entity, body in esper.get_component(WaterBody)),
            "body_labels": world.grid.body.tolist(), "dirty": world.grid.dirty,
            "next_pulse": world.next_pulse()}


@pytest.mark.parametrize("batch", range(BATCHES))
def test_generated_views_rebuilt_on_load_are_the_live_ones_r_eng_3(tmp_path, batch):
    """R-ENG-3: at four drawn pulses of every generated scenario, a world saved and
    loaded has the derived views (statuses index, fighting, stunned, ready, water bodies,
    the next busy pulse) the live world has."""
    path = tmp_path / "views.sav"
    for number in range(batch * PER_BATCH, (batch + 1) * PER_BATCH):
        rng = random.Random(10_000 + number)
        text = scenario_text(rng)
        world = world_from_text(text)
        try:
            end = world.end_pulse or 0
            for at in sorted(rng.sample(range(end + 1), min(4, end + 1))):
                world.run(at - world.pulse)
                world.save(path)
                live = derived_views(world)
                with affray.load_world(path) as loaded:
                    rebuilt = derived_views(loaded)
                for name, value in live.items():
                    assert rebuilt[name] == value, (
                        f"scenario {number} at pulse {at}: {name} {rebuilt[name]} after a "
                        f"load, {value} live\n{text}")
        finally:
            world.close()


def test_the_generator_makes_the_cases_the_drills_are_for():
    """The drills mean something only if the scenarios reach the hard cases. Over the
    first drill's scenarios, stepping each straight run pulse by pulse, count those in
    which, between two pulses (where a save is taken): a dead creature still has
    statuses; a dead creature still has actions queued; the next status pulse is earlier
    than the statuses' own times say; and those that light a fire, freeze water, blast a
    door or chest, or vectorise their rounds."""
    counts = dict.fromkeys(("dead_with_statuses", "dead_with_queue", "early_status_pulse",
                            "fire", "ice", "blast", "vectorised"), 0)
    for number in range(BATCHES * PER_BATCH):
        text = scenario_text(random.Random(number))
        counts["vectorised"] += "vectorise_min_fighters" in text
        world = world_from_text(text)
        try:
            seen: set[str] = set()
            while world.pulse < (world.end_pulse or 0):
                world.tick()
                seen |= _hard_cases(world)
            kinds = {event.kind for event in world.events}
            seen |= {"fire"} & kinds
            seen |= {"blast"} if kinds & {"door_broken", "chest_broken"} else set()
            if any(e.kind == "terrain" and e.to_dict()["after"] == "ice" for e in world.events):
                seen.add("ice")
            for name in seen:
                counts[name] += 1
        finally:
            world.close()
    total = BATCHES * PER_BATCH
    assert min(counts.values()) >= total // 50, counts
    assert counts["dead_with_statuses"] >= total // 10, counts


def _hard_cases(world: affray.World) -> set[str]:
    """Which of the three save-point cases the world is in now."""
    from affray.core.actions import ActionQueue

    world.enter()  # its esper context, to read the queues
    found = set()
    times = []
    for entity, sheet in world.sheets.items():
        statuses = sheet.statuses
        times.extend((*statuses.ends.values(), *statuses.next_tick.values()))
        if not sheet.vitals.alive:
            if statuses.degrees:
                found.add("dead_with_statuses")
            if esper.component_for_entity(entity, ActionQueue).pending:
                found.add("dead_with_queue")
    if world.status_due is not None and world.status_due < min(times, default=world.status_due + 1):
        found.add("early_status_pulse")
    return found
