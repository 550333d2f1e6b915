"""Packed runs (`batch(..., pack=K)`, affray.runners.packing): K copies of a scenario walled apart
in one World, each copy a row of its own.

What is checked: at K = 1 a pack is the unpacked run itself (every built-in scenario,
every table); rows are the same for any workers, executor or chunk size at one K, and
after a lost worker; the distribution of the duel's columns packed matches unpacked
(binomial and normal tolerances of 4 sigma, fixed seeds); nothing crosses between copies
(spells, water, arcs, fire, sight and minds), with a control that takes the walls away
and sees it cross; and the errors (K out of range, K past a bound of world.limits, a
scenario that cannot be packed).
"""

from __future__ import annotations

import math
import re
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import affray
import affray.runners.packing as packing
from affray.cli import main
from affray.core.errors import UsageError
from affray.data.scenario import builtin_scenario
from affray.display.report import read_table
from affray.runners.batch import prepare

batch_module = sys.modules["affray.runners.batch"]
DUEL = builtin_scenario("duel")
BUILT_IN = ("ambush", "demo", "door_blast", "duel", "frozen_bridge", "lake_storm",
            "skirmish")

# A tile with no wall of its own at its edges: water at both ends, a mage between. Its
# casts (a line through everyone up to a wall, chain lightning whose jumps reach two
# cells, a radius-3 fire burst) would reach the next tile's creatures, two cells away
# across the separating wall column, if anything went through that wall.
SPELLS = """
name = "edges"
seed = 1
pulses = 90

[map]
rows = [
  "~~.~~",
  "~~.~~",
]

[content.spells.inferno]
mana = 10
type = "fire"
shape = "burst"
range = 8
radius = 3
damage = "2d6"

[[creatures]]
id = "mage"
template = "human_mage"
at = [2, 0]
level = 30
hp = 500
max_hp = 500

[[creatures]]
id = "east"
template = "kobold"
at = [4, 0]
hp = 300
max_hp = 300

[[creatures]]
id = "west"
template = "kobold"
at = [0, 0]
hp = 300
max_hp = 300

[[actions]]
pulse = 0
actor = "mage"
cast = "lightning_bolt"
target = "east"

[[actions]]
pulse = 24
actor = "mage"
cast = "chain_lightning"
target = "east"

[[actions]]
pulse = 48
actor = "mage"
cast = "inferno"
target = [4, 1]
"""

# Two hunters of two sides, each behind a wall of its own tile from the other: neither
# sees a foe in its copy, but each would see the next copy's hunter two cells away.
HUNTERS = """
name = "hunters"
seed = 1
pulses = 200

[map]
rows = [
  "..#..",
  "..#..",
]

[[creatures]]
id = "hero"
template = "human_warrior"
at = [0, 0]
mind = "brute"

[[creatures]]
id = "orc"
template = "orc_brute"
at = [4, 1]
mind = "brute"
"""


def _scenario(tmp_path: Path, text: str, name: str = "scenario.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


# -- K = 1: the pack is the run -------------------------------------------------------------
@pytest.mark.parametrize("name", BUILT_IN)
def test_a_pack_of_one_is_the_unpacked_run(name):
    """At K = 1 the pack's World is the scenario's own (no wall added, the run's seed):
    its run, creature and rounds tables are the unpacked batch's, cell for cell. So the
    per-copy settled pulse (`_Watch`) is the World's own for every built-in scenario,
    minds (ambush, skirmish), fires, doors, water and statuses included."""
    plain = batch_module.batch(builtin_scenario(name), 6, seed=5, collect="rounds")
    packed = batch_module.batch(builtin_scenario(name), 6, seed=5, collect="rounds", pack=1)
    assert packed.runs.equals(plain.runs)
    assert packed.creatures.equals(plain.creatures)
    assert packed.rounds.equals(plain.rounds)


# -- the same rows whatever runs them -------------------------------------------------------
def test_rows_are_the_same_for_any_workers_executor_or_chunk_size():
    """At one K, a packed batch's rows (all three tables) are the same in this process,
    on 2 worker processes, on a thread pool and with another chunk size; the last pack
    is short (230 = 4 x 50 + 30)."""
    kwargs = {"runs": 230, "seed": 7, "collect": "rounds", "pack": 50}
    one = batch_module.batch(DUEL, **kwargs)
    two = batch_module.batch(DUEL, workers=2, **kwargs)
    with ThreadPoolExecutor(2) as pool:
        threads = batch_module.batch(DUEL, executor=pool, **kwargs)
    chunks = batch_module.batch(DUEL, chunk_size=120, **kwargs)  # rounded up to 150
    for other in (two, threads, chunks):
        assert other.runs.equals(one.runs)
        assert other.creatures.equals(one.creatures)
        assert other.rounds.equals(one.rounds)
    rows = one.runs.to_pylist()
    assert [row["run"] for row in rows] == list(range(230))
    assert [row["seed"] for row in rows] == list(range(7, 237))
    assert all(row["error"] is None for row in rows)


def test_packed_rows_are_the_same_on_dask():
    """backend="dask" on a 2-worker LocalCluster: a packed batch (a short last pack,
    every table) gives the rows it gives in this process."""
    pytest.importorskip("dask.distributed")
    kwargs = {"runs": 25, "seed": 3, "collect": "creatures", "pack": 10}
    local = batch_module.batch(DUEL, **kwargs)
    dask = batch_module.batch(DUEL, workers=2, backend="dask", **kwargs)
    assert dask.runs.equals(local.runs)
    assert dask.creatures.equals(local.creatures)


def test_each_pack_is_seeded_with_its_first_run_s_seed():
    """Pack j of a batch is the World of seed `seed + j*K`: the rows of runs 20..29 of a
    batch from seed 0 at K = 10 are the rows of a batch from seed 20 at K = 10."""
    whole = batch_module.batch(DUEL, 30, seed=0, pack=10).to_pylist()
    third = batch_module.batch(DUEL, 10, seed=20, pack=10).to_pylist()
    drop = ("run",)
    assert [{k: v for k, v in row.items() if k not in drop} for row in whole[20:]] == \
        [{k: v for k, v in row.items() if k not in drop} for row in third]


def test_a_worker_killed_once_loses_no_packed_row(tmp_path, monkeypatch):
    """A worker that dies under a pack (the test seam, before seed 25): the pack runs
    again on a fresh pool, as a whole pack, so the rows are the clean batch's."""
    clean = batch_module.batch(DUEL, 40, seed=0, pack=10)
    killed = tmp_path / "killed"
    monkeypatch.setenv(batch_module.TEST_EXIT_SEED, "25")
    monkeypatch.setenv(batch_module.TEST_EXIT_ONCE, str(killed))
    table = batch_module.batch(DUEL, 40, seed=0, pack=10, workers=2)
    assert killed.exists()
    assert table.equals(clean)


def test_a_pack_that_always_kills_its_worker_is_its_error_rows(monkeypatch):
    """A pack whose worker dies every time (seed 25 is in pack 2, runs 20..29) is tried
    on its own 3 times, then its 10 runs are error rows; the other packs' rows are the
    clean batch's."""
    monkeypatch.setenv(batch_module.TEST_EXIT_SEED, "25")
    clean = batch_module.batch(DUEL, 40, seed=0, pack=10).to_pylist()
    rows = batch_module.batch(DUEL, 40, seed=0, pack=10, workers=2).to_pylist()
    lost = [row["run"] for row in rows if row["error"] is not None]
    assert lost == list(range(20, 30))
    assert rows[20]["error"].startswith("WorkerLost: the worker process died running it 3")
    assert rows[:20] + rows[30:] == clean[:20] + clean[30:]


# -- the distribution -----------------------------------------------------------------------
def _rate_gap_bound(a: list[bool], b: list[bool]) -> tuple[float, float]:
    """|rate(a) - rate(b)| and 4 sigma of it under one common rate (pooled)."""
    pooled = (sum(a) + sum(b)) / (len(a) + len(b))
    sigma = math.sqrt(pooled * (1 - pooled) * (1 / len(a) + 1 / len(b)))
    return abs(sum(a) / len(a) - sum(b) / len(b)), 4 * sigma


def _mean_gap_bound(a: list[float], b: list[float]) -> tuple[float, float]:
    """|mean(a) - mean(b)| and 4 standard errors of that difference."""
    def mean_var(xs: list[float]) -> tuple[float, float]:
        mean = sum(xs) / len(xs)
        return mean, sum((x - mean) ** 2 for x in xs) / (len(xs) - 1)

    (ma, va), (mb, vb) = mean_var(a), mean_var(b)
    return abs(ma - mb), 4 * math.sqrt(va / len(a) + vb / len(b))


def test_packed_duels_have_the_distribution_of_unpacked_ones():
    """2,000 duels unpacked (the scalar round) and 2,000 packed 500 to a World (the
    vectorised round, copies drawing in turn from one generator): every column of the
    run table agrees. Binomial rates within 4 sigma: the winner, each creature alive,
    the warrior above half its hit points, and the settled pulse and the orc's damage
    taken past the unpacked quartiles; means within 4 standard errors: settled, each
    creature's hit points, damage taken and hits taken, the sides standing; `pulses` is
    the scenario's end in every row (fixed seeds: the same answer every time)."""
    runs = 2000
    plain = batch_module.batch(DUEL, runs, seed=100_000).to_pydict()
    packed = batch_module.batch(DUEL, runs, seed=100_000, pack=500).to_pydict()
    assert plain["error"] == [None] * runs and packed["error"] == [None] * runs
    assert set(plain["pulses"]) == set(packed["pulses"]) == {100_000}
    rates = {
        "warrior wins": lambda t: [w == "players" for w in t["winner"]],
        "orc wins": lambda t: [w == "npcs" for w in t["winner"]],
        "warrior alive": lambda t: t["warrior.alive"],
        "orc alive": lambda t: t["orc.alive"],
        "warrior above 18 hp": lambda t: [hp > 18 for hp in t["warrior.hp"]],
    }
    for column in ("settled", "orc.damage_taken"):
        ordered = sorted(plain[column])
        for quarter in (1, 2, 3):
            cut = ordered[quarter * runs // 4]
            rates[f"{column} past q{quarter}"] = \
                lambda t, column=column, cut=cut: [v > cut for v in t[column]]
    for name, rate in rates.items():
        gap, bound = _rate_gap_bound(rate(plain), rate(packed))
        assert gap < bound, (name, gap, bound)
    for column in ("settled", "warrior.hp", "orc.hp", "warrior.struck", "orc.struck",
                   "warrior.damage_taken", "orc.damage_taken", "side.players.standing",
                   "side.npcs.standing"):
        gap, bound = _mean_gap_bound(plain[column], packed[column])
        assert gap < bound, (column, gap, bound)
    # the tolerance is not so loose that it passes anything: the win rate is near 2/3
    wins = sum(rates["warrior wins"](packed)) / runs
    assert 0.6 < wins < 0.72 and _rate_gap_bound(rates["warrior wins"](packed),
                                                 [True] * runs)[0] > 0.25


# -- nothing crosses ------------------------------------------------------------------------
def _copy_of(name: str) -> int:
    """The copy of a packed creature id (`<id>@<copy>`); -1 for any other text (a
    damage event's `cause`, "spell", is a word, not an id)."""
    match = re.fullmatch(r".*@(\d+)", name)
    return int(match.group(1)) if match else -1


def _crossings(world: affray.World, layout: packing.Layout) -> list[dict]:
    """Every event that names creatures of two copies, or a creature and a cell of
    another copy's tile, and every creature standing outside its own tile."""
    tiles = layout.tiles()
    found = []
    for event in world.events:
        data = event.to_dict()
        copies = {_copy_of(value) for value in data.values() if isinstance(value, str)}
        copies.discard(-1)
        for key in ("cell", "to", "from"):
            cell = data.get(key)
            if isinstance(cell, list):
                copies.add(int(tiles[cell[1], cell[0]]))
        if len(copies) > 1:
            found.append(data)
    for name in world.creature_ids():
        at = world.sheet(name).position
        if int(tiles[at.y, at.x]) != _copy_of(name):
            found.append({"outside its tile": name})
    return found


def _played(path: Path, copies: int, seed: int = 3) -> tuple[affray.World, packing.PackedJob]:
    job = packing.pack_job(prepare(path), copies)
    world = packing.build_pack(job, copies, seed)
    packing.play_pack(world, job)
    return world, job


def test_nothing_crosses_the_walls_spells_water_arcs_fire(tmp_path):
    """A line of lightning, chain lightning (jumps of two cells) and a radius-3 fire
    burst cast beside the separating wall, in water (R-ELEC-3 floods, R-GRID-5 bodies):
    every damage, fire and arc of a copy stays in it, and each copy's creatures are
    struck (the casts did go off)."""
    world, job = _played(_scenario(tmp_path, SPELLS), 4)
    try:
        assert _crossings(world, job.layout) == []
        events = [event.to_dict() for event in world.events]
        assert {e["spell"] for e in events if e["kind"] == "damage"} >= \
            {"lightning_bolt", "chain_lightning", "inferno"}  # (and a burn's ticks)
        assert {_copy_of(e["target"]) for e in events if e["kind"] == "damage"} == \
            {0, 1, 2, 3}
        assert any(e["kind"] == "fire" for e in events)
    finally:
        world.close()


def test_without_the_walls_the_spells_would_cross(tmp_path, monkeypatch):
    """The control of the test above: with water instead of wall between the tiles
    (the same layout), the casts reach the next copy, and `_crossings` sees it."""
    monkeypatch.setattr(packing, "_wall_symbol", lambda legend, rows: ("~", legend))
    world, job = _played(_scenario(tmp_path, SPELLS), 4)
    try:
        assert _crossings(world, job.layout) != []
    finally:
        world.close()


def test_nothing_crosses_the_walls_sight_and_minds(tmp_path):
    """Two hunters (brute minds, R-MIND-2, R-MIND-3) that see no foe in their own copy:
    in a pack of 6 nobody fights, walks out of its tile or names another copy, and every
    copy settles at pulse 1 (its minds rest after their first look), as unpacked."""
    path = _scenario(tmp_path, HUNTERS)
    world, job = _played(path, 6)
    try:
        assert _crossings(world, job.layout) == []
        assert not [e for e in world.events if e.kind in ("fight", "move", "damage")]
    finally:
        world.close()
    rows = batch_module.batch(path, 6, pack=6).to_pylist()
    alone = batch_module.batch(path, 1).to_pylist()[0]["settled"]
    assert alone == 1  # the minds looked at pulse 0, saw nobody and rest
    assert [row["settled"] for row in rows] == [alone] * 6


def test_without_the_walls_the_hunters_would_cross(tmp_path, monkeypatch):
    """The control: with floor between the tiles, each hunter sees the next copy's and
    they fight across."""
    monkeypatch.setattr(packing, "_wall_symbol", lambda legend, rows: (".", legend))
    world, job = _played(_scenario(tmp_path, HUNTERS), 6)
    try:
        assert _crossings(world, job.layout) != []
    finally:
        world.close()


def test_minds_in_a_pack_fight_only_their_own_copy():
    """The skirmish (minds on both sides, R-MIND-1..7) packed 8 to a World: its fights
    and blows stay inside each copy, and every copy's row has its own settled pulse."""
    job = packing.pack_job(prepare(builtin_scenario("skirmish")), 8)
    world = packing.build_pack(job, 8, 11)
    try:
        settled = packing.play_pack(world, job)
        assert _crossings(world, job.layout) == []
        assert any(e.kind == "damage" for e in world.events)
        assert len(set(settled)) > 1  # copies settle apart, each at its own pulse
    finally:
        world.close()


# -- the layout -----------------------------------------------------------------------------
def test_the_layout_walls_the_tiles_apart():
    """Copies tile a near-square grid, one wall cell between two tiles: the duel's 5 x 3
    map 1,000 times is 26 x 39 tiles (155 x 155 cells), copy 53 in the third tile row;
    three copies make a column of tiles, a wall row between two."""
    layout = packing.Layout.of(5, 3, 1000)
    assert (layout.columns, layout.rows) == (26, 39)
    assert (layout.grid_width, layout.grid_height) == (155, 155)
    assert layout.origin(53) == (6, 8)
    tiles = layout.tiles()
    assert tiles[8, 6] == 53 and tiles[7, 6] == -1 and tiles[8, 5] == -1
    job = packing.pack_job(prepare(DUEL), 3)
    tile = ["#####", "#...#", "#####"]
    assert job.packed_spec.map.rows == [*tile, "#####", *tile, "#####", *tile]


# -- errors ---------------------------------------------------------------------------------
@pytest.mark.parametrize(("pack", "message"), [
    (0, "batch: pack must be 1 or more, got 0"),
    (-3, "batch: pack must be 1 or more, got -3"),
    (packing.MAX_PACK + 1, f"batch: pack must be at most {packing.MAX_PACK:,}"),
    (True, "batch: pack must be a whole number, got True"),
    ("10", "batch: pack must be a whole number, got '10'"),
    (2.0, "batch: pack must be a whole number, got 2.0"),
])
def test_a_bad_pack_is_refused_before_any_work(pack, message):
    with pytest.raises(UsageError) as caught:
        batch_module.batch(DUEL, 10, pack=pack)
    assert str(caught.value).startswith(message)


def test_k_past_a_bound_of_the_limits_names_the_bound_and_the_largest_k(tmp_path):
    """K copies hold K times a copy's creatures: past `world.limits.max_creatures` the
    message names the bound and the largest K; the same for the map's cells."""
    text = DUEL.read_text() + "\n[content.world.limits]\nmax_creatures = 9\n"
    path = _scenario(tmp_path, text)
    assert batch_module.batch(path, 8, pack=4).num_rows == 8  # 8 creatures: fits
    with pytest.raises(UsageError) as caught:
        batch_module.batch(path, 10, pack=5)
    assert str(caught.value) == (
        f"pack=5: 5 copies of {path} hold 10 creatures, more than 9 (content "
        f"world.limits.max_creatures): at most pack=4")
    text = DUEL.read_text() + "\n[content.world.limits]\nmax_map_cells = 100\n"
    path = _scenario(tmp_path, text, "cells.toml")
    with pytest.raises(UsageError, match=r"pack=10: 10 copies of .*'s 5x3 map need a "
                       r"\d+x\d+ grid of \d+ cells, more than 100 \(content "
                       r"world.limits.max_map_cells\)"):
        batch_module.batch(path, 10, pack=10)


def test_a_scenario_with_a_registered_mind_cannot_be_packed(tmp_path):
    """A game's registered mind may draw randomness each time it is asked, and a pack
    asks resting minds again whenever any copy logs: such a scenario is refused,
    naming the creature and the mind (it runs unpacked as before)."""
    affray.register_mind("test_idle", lambda view, actor: None)
    try:
        text = HUNTERS.replace('mind = "brute"\n', 'mind = "test_idle"\n', 1)
        path = _scenario(tmp_path, text)
        assert batch_module.batch(path, 2).num_rows == 2
        with pytest.raises(UsageError) as caught:
            batch_module.batch(path, 4, pack=2)
        assert str(caught.value).startswith(
            f"pack: {path}: creature 'hero' has the registered mind 'test_idle', which "
            f"cannot be packed")
    finally:
        affray.unregister_mind("test_idle")


# -- the commands ---------------------------------------------------------------------------
def test_the_cli_pack_flag_gives_the_api_s_rows(tmp_path, capsys):
    """`affray batch --pack K` writes the rows `batch(..., pack=K)` gives; `affray sweep
    --pack K` packs every point's runs."""
    out = tmp_path / "rows.parquet"
    assert main(["batch", "duel", "--runs", "30", "--pack", "10", "--collect", "runs",
                 "--out", str(out), "--quiet"]) == 0
    expected = batch_module.batch("duel", 30, pack=10)
    assert read_table(out).select(expected.column_names).equals(expected)
    swept = tmp_path / "sweep.parquet"
    assert main(["sweep", "duel", "--vary", "creatures.warrior.hp=30,40", "--runs", "10",
                 "--pack", "5", "--collect", "runs", "--out", str(swept), "--quiet"]) == 0
    table = affray.sweep("duel", {"creatures.warrior.hp": [30, 40]}, 10, pack=5)
    assert read_table(swept).select(table.column_names).to_pylist() == table.to_pylist()
    capsys.readouterr()


def test_the_cli_refuses_a_bad_pack(capsys):
    with pytest.raises(SystemExit) as caught:
        main(["batch", "duel", "--runs", "3", "--pack", "0"])
    assert caught.value.code == 2
    assert "--pack: must be 1 or more, got 0" in capsys.readouterr().err


def test_the_quick_benchmark_gives_every_packed_row():
    """`affray bench --quick` runs the packed rows (not timed here: only that each row
    is there, measured, with its rate in the note)."""
    from affray.benchmarks.packing import ROWS, packed_duels
    from affray.benchmarks.suite import QUICK

    rows = packed_duels(affray.default_content(), QUICK)
    assert [row.name for row in rows] == list(ROWS)
    assert all(row.ok and not row.skipped and row.median_seconds > 0 for row in rows)
    assert "duels/s" in rows[1].note and "cores" in rows[-1].note


def test_a_pack_s_job_is_unpickled_once_per_process_and_runs_the_same(monkeypatch):
    """A PackedJob goes to a worker with every task; the worker unpickles its fields once
    and takes the same job for later tasks carrying it (by its fields' digest), while a
    job with other fields is a job of its own. The job a worker receives plays the same
    pack as the job sent. The kept jobs are bounded both ways."""
    import pickle

    monkeypatch.setattr(packing, "_RECEIVED", {})
    monkeypatch.setattr(packing, "_SENT", {})
    job = packing.pack_job(prepare(builtin_scenario("duel")), 50)
    first, second = pickle.dumps(job), pickle.dumps(job)
    assert first == second
    received = pickle.loads(first)
    assert received is not job and pickle.loads(second) is received
    other = pickle.loads(pickle.dumps(packing.pack_job(prepare(builtin_scenario("duel")), 40)))
    assert other is not received and other.size == 40 and received.size == 50
    sent_rows = packing.run_pack(job, [(n, 7 + n) for n in range(50)], "creatures")
    received_rows = packing.run_pack(received, [(n, 7 + n) for n in range(50)], "creatures")
    assert sent_rows == received_rows
    for size in range(1, packing._KEPT_JOBS + 2):
        pickle.loads(pickle.dumps(packing.pack_job(prepare(builtin_scenario("duel")), size)))
    assert len(packing._RECEIVED) == len(packing._SENT) == packing._KEPT_JOBS
    assert pickle.loads(first) is not received  # pushed out: unpickled afresh
