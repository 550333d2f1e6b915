"""The Burst system: cell effects of casts and force pushes, end to end.

R-FIRE-2, R-FIRE-3, R-COLD-2, R-TERR-2, R-TERR-3, R-FORCE-1..4, R-STAT-5 (pushes),
R-SHAPE-2/3/7 (which cells get the effects), R-MELEE-8 (melee does none of it).
Most tests run a scenario (`cast` actions, `world.run()` or `tick()`) and read the log;
the push thresholds are pinned exactly with hand-built CastRecords.
"""

from __future__ import annotations

import pytest

from affray.components import Chest, Door, Fire, Ice, ItemStack, Position
from affray.core.grid import Terrain
from affray.systems.burst import BurstSystem, push_direction
from affray.systems.rules.casting import CastRecord, Strike

# A 9x5 room: walls around a 7x3 floor (x 1..7, y 1..3).
ROOM = ["#########", "#.......#", "#.......#", "#.......#", "#########"]

SPELLS = """
[content.spells.blast]
type = "force"
shape = "burst"
radius = 1
range = 8
damage = "10"
save = "none"
blast = 100
[content.spells.wide_blast]
type = "force"
shape = "burst"
radius = 2
range = 8
damage = "10"
save = "none"
[content.spells.big_blast]
type = "force"
shape = "burst"
radius = 1
range = 8
damage = "1"
save = "none"
blast = 1001
[content.spells.bolt]
type = "force"
shape = "bolt"
range = 8
damage = "10"
save = "none"
[content.spells.flame]
type = "fire"
shape = "burst"
radius = 1
range = 8
damage = "1"
save = "none"
[content.spells.fire_blast]
type = "fire"
shape = "burst"
radius = 1
range = 8
damage = "1"
save = "none"
blast = 5000
[content.spells.frost]
type = "cold"
shape = "burst"
radius = 1
range = 8
damage = "1"
save = "none"
[content.spells.frost_ray]
type = "cold"
shape = "ray"
range = 8
damage = "1"
save = "none"
[content.spells.frost_cone]
type = "cold"
shape = "cone"
range = 4
damage = "1"
save = "none"
[content.spells.frost_line]
type = "cold"
shape = "line"
range = 4
damage = "1"
save = "none"
"""


def scenario(rows: list[str], creatures: list[str], actions: list[str] = (),
             extra: str = "", items: list[str] = ()) -> str:
    """Scenario text: the map rows, creatures and actions as TOML table bodies."""
    text = 'name = "burst"\nseed = 5\npulses = 0\n[map]\nrows = [' + ", ".join(
        f'"{row}"' for row in rows) + "]\n"
    text += "".join(f"[[creatures]]\n{c}\n" for c in creatures)
    text += "".join(f"[[items]]\n{i}\n" for i in items)
    text += "".join(f"[[actions]]\n{a}\n" for a in actions)
    return text + SPELLS + extra


def cast(actor: str, spell: str, target, pulse: int = 0, via: str = "mana") -> str:
    aim = f'"{target}"' if isinstance(target, str) else f"[{target[0]}, {target[1]}]"
    return (f'pulse = {pulse}\nactor = "{actor}"\ncast = "{spell}"\ntarget = {aim}\n'
            f'via = "{via}"')


def creature(cid: str, at: tuple[int, int], hp: int = 100, extra: str = "") -> str:
    return f'id = "{cid}"\nat = [{at[0]}, {at[1]}]\nlevel = 20\nhp = {hp}\n{extra}'


def kinds(world, *wanted: str) -> list[dict]:
    return [e.to_dict() for e in world.events if e.kind in wanted]


def at(world, cid: str) -> list[int]:
    return world.snapshot()["creatures"][cid]["at"]


# -- fire: R-FIRE-2, R-FIRE-3, R-TERR-3 ---------------------------------------------------------
LAKE = ["#########", "#..___..#", "#..___..#", "#..___..#", "#########"]


def test_r_fire_2_a_fire_burst_melts_every_ice_cell_it_reaches(make_world):
    """R-FIRE-2 / R-SHAPE-7: a burst melts all its ice cells (3x3 here), none outside."""
    world = make_world(scenario(LAKE, [creature("mage", (1, 2))],
                                [cast("mage", "flame", (4, 2))]))
    world.tick()
    changed = [(e["cell"], e["before"], e["after"], e["cause"])
               for e in kinds(world, "terrain")]
    # scan order: y, then x
    assert changed == [([x, y], "ice", "water", "mage") for y in (1, 2, 3) for x in (3, 4, 5)]
    assert (world.grid.terrain[1:4, 3:6] == Terrain.WATER).all()
    assert world.grid.ice_cm[2, 4] == 0


def test_r_terr_3_who_stands_on_melting_ice_falls_in_burning_ends_wait_a_round(make_world):
    """R-TERR-3 (R-FIRE-2): the creature on the melted ice falls in: it stands in water,
    its Burning ends (a status event) and its wait is raised to one combat round."""
    world = make_world(scenario(LAKE, [creature("mage", (1, 2)),
                                       creature("v", (4, 1), extra="statuses = { burning = 2 }")],
                                [cast("mage", "flame", (4, 2))]))
    world.tick()
    log = [(e["kind"], e.get("target"), e.get("cell")) for e in
           kinds(world, "terrain", "fell_in", "status") if e.get("cell") in ([4, 1], None)]
    assert log == [("terrain", None, [4, 1]), ("fell_in", "v", [4, 1]),
                   ("status", "v", None)]
    fell = kinds(world, "fell_in")[0]
    assert fell["cause"] == "mage"
    ended = kinds(world, "status")[-1]
    assert (ended["status"], ended["degree"], ended["change"]) == ("burning", 0, "ended")
    assert world.snapshot()["creatures"]["v"]["statuses"] == {}
    assert world.wait_of("v") == world.content.world.fall_in_wait == 12
    assert world.grid.terrain[1, 4] == Terrain.WATER


def test_r_terr_3_the_wait_of_falling_in_never_lowers_a_longer_wait(make_world):
    """R-TERR-3 with R-LAG-4: the fall raises the wait to a round; a longer one stays."""
    world = make_world(scenario(LAKE, [creature("mage", (1, 2)), creature("v", (4, 1))],
                                [cast("mage", "flame", (4, 2))]))
    world.set_wait("v", 30)
    world.tick()
    assert kinds(world, "fell_in") and world.wait_of("v") == 29  # 30, counted down once


def test_r_fire_3_a_fire_burst_leaves_a_fire_on_its_centre_for_60_seconds(make_world):
    """R-FIRE-3 / R-TERR-1: a fire on the centre only, lit at pulse 0, 240 pulses long
    (`fire_burst_pulses`); the Terrain system removes it at pulse 240, not before."""
    world = make_world(scenario(ROOM, [creature("mage", (1, 2))],
                                [cast("mage", "flame", (4, 2))]))
    world.tick()
    assert [(e["cell"], e["change"], e["cause"]) for e in kinds(world, "fire")] == [
        ([4, 2], "lit", "mage")]
    assert world.snapshot()["fires"] == [{"at": [4, 2], "pulses_left": 239, "cause": "mage"}]
    world.run(pulses=239)  # pulses 1..239
    assert world.pulse == 240 and len(kinds(world, "fire")) == 1
    assert world.snapshot()["fires"] == [{"at": [4, 2], "pulses_left": 0, "cause": "mage"}]
    world.tick()  # pulse 240
    assert kinds(world, "fire")[-1] == {"pulse": 240, "kind": "fire", "cell": [4, 2],
                                        "change": "expired", "cause": None}
    assert world.snapshot()["fires"] == []


def test_r_fire_3_only_a_burst_lights_a_fire_and_a_fire_never_spreads(make_world):
    """R-FIRE-3: a fire bolt lights nothing; a fire burst lights one cell, never more."""
    world = make_world(scenario(ROOM, [creature("mage", (1, 2))],
                                [cast("mage", "fire_bolt", (4, 2)),
                                 cast("mage", "flame", (5, 2), pulse=30)]))
    world.run(pulses=100)
    assert [e["cell"] for e in kinds(world, "fire")] == [[5, 2]]
    assert len(world.snapshot()["fires"]) == 1


# -- cold: R-COLD-2, R-TERR-2 ---------------------------------------------------------------------
POND = ["#########", "#..~~~..#", "#..~~~..#", "#..~~~..#", "#########"]


def test_r_cold_2_cold_freezes_water_10_cm_and_records_who_froze_it(make_world):
    """R-COLD-2 / R-TERR-2: water in the burst freezes to ice 10 cm thick; each ice cell
    keeps a record of the caster (an Ice entity on the cell)."""
    world = make_world(scenario(POND, [creature("mage", (1, 2))],
                                [cast("mage", "frost", (4, 2))]))
    world.tick()
    assert (world.grid.terrain[1:4, 3:6] == Terrain.ICE).all()
    assert (world.grid.ice_cm[1:4, 3:6] == 10).all()
    assert len(kinds(world, "terrain")) == 9
    world.enter()  # read esper's storage: the world's context
    records = {(p.x, p.y): ice.cause for _e, (p, ice) in
               __import__("esper").get_components(Position, Ice)}
    assert records == {(x, y): "mage" for x in (3, 4, 5) for y in (1, 2, 3)}


def test_r_terr_2_thicker_ice_comes_from_content(make_world):
    """R-TERR-2: the thickness is the `ice_cm` knob of content/world.toml."""
    world = make_world(scenario(POND, [creature("mage", (1, 2))],
                                [cast("mage", "frost", (4, 2))],
                                extra="[content.world]\nice_cm = 25\n"))
    world.tick()
    assert world.grid.ice_cm[2, 4] == 25


def test_r_cold_2_cold_puts_out_fires_in_its_cells(make_world):
    """R-COLD-2: a fire on a cell the cold reaches goes out (`fire` event, `out`)."""
    world = make_world(scenario(ROOM, [creature("mage", (1, 2))],
                                [cast("mage", "flame", (4, 2)),
                                 cast("mage", "frost", (5, 2), pulse=20)]))
    world.run(pulses=21)
    assert [(e["pulse"], e["change"], e["cause"]) for e in kinds(world, "fire")] == [
        (0, "lit", "mage"), (20, "out", "mage")]
    assert world.snapshot()["fires"] == []
    world.run(pulses=300)
    assert len(kinds(world, "fire")) == 2  # no expiry for a fire already out


def test_r_shape_7_a_cone_freezes_nothing_a_line_its_last_cell(make_world):
    """R-SHAPE-7 / R-SHAPE-3: a cone has no cell effects; a line only its last cell."""
    rows = ["#########", "#.~~~~~~#", "#.~~~~~~#", "#.~~~~~~#", "#########"]
    world = make_world(scenario(rows, [creature("mage", (1, 2))],
                                [cast("mage", "frost_cone", (4, 2)),
                                 cast("mage", "frost_line", (4, 2), pulse=20)]))
    world.tick()
    assert kinds(world, "terrain") == []
    world.run(pulses=21)
    assert [e["cell"] for e in kinds(world, "terrain")] == [[5, 2]]  # range 4 from x = 1


# -- force: doors, chests, ice (R-FORCE-2..4) -----------------------------------------------------
DOORS = ["#########", "#...+L#.#", "#...T'..#", "#.......#", "#########"]


def test_r_force_2_a_blast_breaks_every_shut_door_locked_and_trapped_too(make_world):
    """R-FORCE-2: shut, locked and trapped doors in the burst break; the trap is
    destroyed and strikes no one; an open door is left as it is."""
    world = make_world(scenario(DOORS, [creature("mage", (7, 3)),
                                        creature("v", (6, 2), hp=500)],
                                [cast("mage", "blast", (5, 2))]))
    world.tick()
    broken = kinds(world, "door_broken")
    assert [(e["cell"], e["trap_destroyed"], e["cause"]) for e in broken] == [
        ([4, 1], False, "mage"), ([5, 1], False, "mage"), ([4, 2], True, "mage")]
    doors = {tuple(d["at"]): d for d in world.snapshot()["doors"]}
    assert doors[(5, 2)]["state"] == "open"
    assert all(doors[c]["state"] == "broken" and doors[c]["broken_by"] == "mage"
               for c in ((4, 1), (5, 1), (4, 2)))
    assert not doors[(4, 2)]["trapped"]
    assert not world.grid.shut[1, 4] and not world.grid.blocks(5, 1)
    # The trap struck no one: the only damage is the blast's own 10 on v.
    assert [(e["target"], e["amount"]) for e in kinds(world, "damage")] == [("v", 10)]
    assert world.snapshot()["map"][1] == "#...//#.#"  # "/" is a broken door


def test_r_force_4_a_fire_blast_leaves_doors_standing(make_world):
    """R-FORCE-4: a fire spell with a blast breaks no door (blasts are force's)."""
    world = make_world(scenario(DOORS, [creature("mage", (7, 3))],
                                [cast("mage", "fire_blast", (5, 2))]))
    world.tick()
    assert kinds(world, "door_broken") == []
    assert all(d["state"] != "broken" for d in world.snapshot()["doors"])


BLAST_SHAPES = """
[content.spells.blast_bolt]
type = "force"
shape = "bolt"
range = 8
damage = "1"
save = "none"
blast = 500
[content.spells.blast_ray]
type = "force"
shape = "ray"
range = 8
damage = "1"
save = "none"
blast = 500
[content.spells.blast_touch]
type = "force"
shape = "touch"
damage = "1"
save = "none"
blast = 500
[content.spells.blast_line]
type = "force"
shape = "line"
range = 8
damage = "1"
save = "none"
blast = 500
[content.spells.blast_cone]
type = "force"
shape = "cone"
range = 4
damage = "1"
save = "none"
blast = 500
"""


@pytest.mark.parametrize(("spell", "mage", "aim", "broken"), [
    ("blast_bolt", (1, 1), (4, 1), [([4, 1], False)]),   # stops on the door it hits
    ("blast_ray", (1, 2), (4, 2), [([4, 2], True)]),      # a trapped door: trap destroyed
    ("blast_touch", (3, 1), (4, 1), [([4, 1], False)]),   # the door beside the caster
    ("blast_line", (1, 1), (7, 1), [([4, 1], False)]),    # its last cell: the first door
])
def test_r_force_2_r_shape_2_a_ray_bolt_touch_or_line_blast_breaks_the_door_on_its_cell(
        make_world, spell, mage, aim, broken):
    """R-FORCE-2 ruling, R-SHAPE-2, R-SHAPE-3: a ray, bolt or touch with a blast does to
    its one cell what a burst does to each of its cells, and a line to its last cell:
    the shut door there breaks (a trapped one's trap destroyed, striking no one). The
    locked door behind it, not on the effect cell, stands."""
    world = make_world(scenario(DOORS, [creature("mage", mage)],
                                [cast("mage", spell, aim)], extra=BLAST_SHAPES))
    world.tick()
    assert [(e["cell"], e["trap_destroyed"]) for e in kinds(world, "door_broken")] == broken
    assert kinds(world, "damage") == []  # no trap struck anyone, nobody was in the way
    doors = {tuple(d["at"]): d["state"] for d in world.snapshot()["doors"]}
    assert doors[(5, 1)] == "shut"  # locked, behind the first door: not its effect cell


def test_r_force_2_r_shape_3_a_cone_blast_breaks_no_door(make_world):
    """R-SHAPE-3 / R-SHAPE-7 (negative case): a cone does no cell effect at all, so a
    force cone with a blast breaks none of the shut doors it covers."""
    world = make_world(scenario(DOORS, [creature("mage", (1, 2))],
                                [cast("mage", "blast_cone", (4, 2))], extra=BLAST_SHAPES))
    world.tick()
    assert kinds(world, "door_broken") == []
    assert world.grid.shut[1, 4] and world.grid.shut[2, 4]


def test_r_force_2_r_shape_2_a_bolt_that_strikes_a_creature_breaks_its_cell_not_the_door(
        make_world):
    """R-SHAPE-2: a bolt's cell is the cell of the creature it strikes; the door behind
    that creature is not its cell and stands."""
    world = make_world(scenario(DOORS, [creature("mage", (1, 1)), creature("v", (3, 1))],
                                [cast("mage", "blast_bolt", (4, 1))], extra=BLAST_SHAPES))
    world.tick()
    assert kinds(world, "door_broken") == []
    assert [e["target"] for e in kinds(world, "damage")] == ["v"]


@pytest.mark.parametrize(("blast", "broken"), [(49, ["wooden_chest"]),
                                               (50, ["wooden_chest", "iron_chest"])])
def test_r_force_3_a_blast_breaks_a_chest_whose_hardness_it_reaches(make_world, blast, broken):
    """R-FORCE-3 (decision: blast >= hardness): iron (50) needs a blast of 50; 49 breaks
    only the wooden chest (5). The contents spill onto the cell."""
    extra = (f'[content.spells.b]\ntype = "force"\nshape = "burst"\nradius = 1\n'
             f'damage = "1"\nsave = "none"\nblast = {blast}\n')
    items = ['at = [4, 2]\nitem = "wooden_chest"\ncontents = [{ item = "gold_coins", '
             'count = 7 }]', 'at = [5, 2]\nitem = "iron_chest"\ncontents = [{ item = "scroll" }]']
    world = make_world(scenario(ROOM, [creature("mage", (1, 2))], [cast("mage", "b", (4, 2))],
                                extra=extra, items=items))
    world.tick()
    assert [(e["item"], e["cause"]) for e in kinds(world, "chest_broken")] == [
        (name, "mage") for name in broken]
    snap = world.snapshot()
    assert {"at": [4, 2], "item": "gold_coins", "count": 7} in snap["items"]
    assert [c["item"] for c in snap["chests"]] == [
        n for n in ("wooden_chest", "iron_chest") if n not in broken]


def test_r_force_3_spilled_contents_are_unexposed_to_the_cast_that_spilled_them(make_world):
    """R-FORCE-3 with R-LOSS-1: 2,000 potions spilled by a force burst lose none to that
    cast (force ruins potions 30% of the time); the next blast reaches them."""
    items = ['at = [4, 2]\nitem = "wooden_chest"\ncontents = [{ item = "potion", '
             'count = 2000 }]', 'at = [4, 2]\nitem = "potion"\ncount = 2000']
    world = make_world(scenario(ROOM, [creature("mage", (1, 2))],
                                [cast("mage", "blast", (4, 2)),
                                 cast("mage", "blast", (4, 2), pulse=20)], items=items))
    world.tick()
    lost = kinds(world, "item_lost")
    assert len(lost) == 1 and 450 < lost[0]["count"] < 750  # only the stack lying there
    spilled = [s for s in world.snapshot()["items"] if s["count"] == 2000]
    assert spilled == [{"at": [4, 2], "item": "potion", "count": 2000}]
    world.run(pulses=20)
    assert len(kinds(world, "item_lost")) == 3  # both stacks, at pulse 20


@pytest.mark.parametrize(("thickness", "shatters"), [(10, True), (11, False)])
def test_r_force_4_a_blast_shatters_ice_thinner_than_1_cm_per_100(make_world, thickness,
                                                                  shatters):
    """R-FORCE-4: a blast of 1001 shatters ice of 10 cm (1000 < 1001), not 11 cm (1100);
    whoever stands on shattered ice falls in (R-TERR-3)."""
    world = make_world(scenario(LAKE, [creature("mage", (1, 2)), creature("v", (4, 1))],
                                [cast("mage", "big_blast", (4, 2))],
                                extra=f"[content.world]\nice_cm = {thickness}\n"))
    world.tick()
    assert bool(kinds(world, "fell_in")) is shatters
    assert bool(world.grid.terrain[2, 4] == Terrain.WATER) is shatters
    if shatters:
        assert kinds(world, "fell_in")[0] == {"pulse": 0, "kind": "fell_in", "target": "v",
                                              "cell": [4, 1], "cause": "mage"}


def test_r_force_4_the_default_force_blast_shatters_no_10_cm_ice(make_world):
    """R-FORCE-4 with R-TERR-2: force_blast's blast of 100 is 1 cm: 10 cm ice holds."""
    world = make_world(scenario(LAKE, [creature("mage", (1, 2))],
                                [cast("mage", "force_blast", (4, 2))]))
    world.tick()
    assert kinds(world, "terrain") == []


# -- pushes: R-FORCE-1, R-STAT-5 -----------------------------------------------------------------
def test_r_force_1_push_directions_are_the_sign_of_dx_and_dy():
    """R-FORCE-1 (decision): one cell away along the sign of each axis."""
    assert push_direction((5, 2), (4, 2)) == (1, 0)
    assert push_direction((3, 1), (4, 2)) == (-1, -1)
    assert push_direction((4, 7), (4, 2)) == (0, 1)
    assert push_direction((9, 3), (4, 2)) == (1, 1)  # off-axis: diagonal
    assert push_direction((4, 2), (4, 2)) == (0, 0)


def _record(world, caster: str, spell: str, strikes: list[Strike], centre=None,
            origin=None) -> CastRecord:
    """A resolved cast as the Spell system would leave it (for exact push thresholds)."""
    definition = world.content.spells[spell]
    caster_sheet = world.sheet(caster)
    return CastRecord(caster=caster_sheet.entity, caster_id=caster, spell=spell,
                      definition=definition,
                      damage_type=world.content.damage_type(definition.type), via="mana",
                      level=20, origin=origin or (caster_sheet.position.x,
                                                  caster_sheet.position.y),
                      target=centre or (0, 0), centre=centre,
                      area=[centre] if centre else [], effect_cells=[], strikes=strikes)


def _burst(world, records: list[CastRecord]) -> None:
    world.cast_records = records
    world.enter()  # a system run by hand, outside tick: in the world's esper context
    BurstSystem().process(world)


@pytest.mark.parametrize(("amount", "max_hp", "critical", "pushed"), [
    (10, 30, False, True),    # 30 >= 30: exactly a third
    (10, 31, False, False),   # 30 < 31
    (11, 33, False, True),
    (1, 300, True, True),     # a critical pushes whatever the amount
    (0, 30, True, False),     # ...but no harm, no push (R-TYPE-2)
])
def test_r_force_1_a_third_of_max_hp_or_a_critical_pushes(make_world, amount, max_hp,
                                                          critical, pushed):
    """R-FORCE-1: amount * 3 >= max_hp (maximum, not current: hp is 1 here), or a
    critical with harm, knocks the creature one cell from the burst's centre."""
    victim = f'id = "v"\nat = [5, 2]\nhp = 1\nmax_hp = {max_hp}'
    world = make_world(scenario(ROOM, [creature("mage", (1, 2)), victim]))
    strike = Strike(world.entity("v"), "spell", amount=amount, critical=critical)
    _burst(world, [_record(world, "mage", "blast", [strike], centre=(4, 2))])
    assert at(world, "v") == ([6, 2] if pushed else [5, 2])


def test_r_force_1_pushes_resolve_in_spawn_order_end_to_end(make_world):
    """R-FORCE-1 / R-GRID-3: a and b in a row east of the centre; a (spawned first) is
    stopped by b, who then moves; spawned the other way round, both move."""
    first = make_world(scenario(ROOM, [creature("mage", (1, 2)), creature("a", (4, 2), 30),
                                       creature("b", (5, 2), 30)],
                                [cast("mage", "wide_blast", (3, 2))]))
    first.tick()
    assert (at(first, "a"), at(first, "b")) == ([4, 2], [6, 2])
    assert [e["target"] for e in kinds(first, "pushed")] == ["b"]
    second = make_world(scenario(ROOM, [creature("mage", (1, 2)), creature("b", (5, 2), 30),
                                        creature("a", (4, 2), 30)],
                                 [cast("mage", "wide_blast", (3, 2))]))
    second.tick()
    assert [e["target"] for e in kinds(second, "pushed")] == ["b", "a"]
    assert (at(second, "a"), at(second, "b")) == ([5, 2], [6, 2])


def test_r_force_1_a_wall_stops_the_push(make_world):
    """R-FORCE-1: a cell that is not free (a wall) stops the push: no event, no move."""
    world = make_world(scenario(ROOM, [creature("mage", (1, 2)), creature("v", (7, 2), 30)],
                                [cast("mage", "blast", (6, 2))]))
    world.tick()
    assert kinds(world, "pushed") == [] and at(world, "v") == [7, 2]
    assert kinds(world, "damage")[0]["amount"] == 10  # it was struck hard enough


@pytest.mark.parametrize("affect", ["held", "webbed"])
def test_r_stat_5_held_and_webbed_creatures_are_not_pushed(make_world, affect):
    """R-STAT-5 / R-FORCE-1: held or webbed, it stays put."""
    world = make_world(scenario(ROOM, [creature("mage", (1, 2)),
                                       creature("v", (5, 2), 30, f'affects = ["{affect}"]')],
                                [cast("mage", "blast", (4, 2))]))
    world.tick()
    assert kinds(world, "pushed") == [] and at(world, "v") == [5, 2]


def test_r_force_1_the_creature_at_the_centre_is_pushed_from_the_caster(make_world):
    """R-FORCE-1: from the caster for the creature on the centre (and from the burst's
    centre for the others)."""
    world = make_world(scenario(ROOM, [creature("mage", (1, 1)), creature("v", (4, 2), 30),
                                       creature("w", (3, 2), 30)],
                                [cast("mage", "blast", "v")]))
    world.tick()
    assert [(e["target"], e["from"], e["to"]) for e in kinds(world, "pushed")] == [
        ("v", [4, 2], [5, 3]), ("w", [3, 2], [2, 2])]


def test_r_force_1_a_caster_at_the_centre_of_its_own_burst_is_harmed_not_moved(make_world):
    """R-FORCE-1: the caster on its own burst's centre takes the blow and stays."""
    world = make_world(scenario(ROOM, [creature("mage", (4, 2), 30)],
                                [cast("mage", "blast", (4, 2))]))
    world.tick()
    assert [(e["target"], e["amount"]) for e in kinds(world, "damage")] == [("mage", 10)]
    assert kinds(world, "pushed") == [] and at(world, "mage") == [4, 2]


def test_r_force_1_a_bolt_pushes_away_from_the_caster(make_world):
    """R-FORCE-1: not a burst: from the caster (here diagonally: the sign of dx, dy)."""
    world = make_world(scenario(ROOM, [creature("mage", (1, 1)), creature("v", (3, 2), 30)],
                                [cast("mage", "bolt", "v")]))
    world.tick()
    assert [(e["from"], e["to"], e["cause"]) for e in kinds(world, "pushed")] == [
        ([3, 2], [4, 3], "mage")]


def test_r_force_1_a_creature_pushed_into_water_stops_burning(make_world):
    """R-FORCE-1 with R-STAT-1: pushed into water, it stands in water: Burning ends."""
    rows = ["#########", "#.......#", "#....~..#", "#.......#", "#########"]
    world = make_world(scenario(rows, [creature("mage", (1, 2)),
                                       creature("v", (4, 2), 30, "statuses = { burning = 1 }")],
                                [cast("mage", "blast", (3, 2))]))
    world.tick()
    assert at(world, "v") == [5, 2]
    ended = kinds(world, "status")[-1]
    assert (ended["target"], ended["status"], ended["change"]) == ("v", "burning", "ended")


def test_r_force_1_a_push_into_an_occupied_cell_is_stopped(make_world):
    """R-FORCE-1: an occupied cell stops the push (the blocker itself not pushed: it was
    struck for too little: 10 * 3 < 100)."""
    world = make_world(scenario(ROOM, [creature("mage", (1, 2)), creature("v", (5, 2), 30),
                                       creature("wall", (6, 2), 100)],
                                [cast("mage", "blast", (4, 2))]))
    world.tick()
    assert kinds(world, "pushed") == []
    assert (at(world, "v"), at(world, "wall")) == ([5, 2], [6, 2])


# -- melee does none of it: R-MELEE-8 ----------------------------------------------------------
def test_r_melee_8_melee_blows_push_melt_and_break_nothing(make_world):
    """R-MELEE-8: a force weapon's heavy blows on ice push no one, melt nothing: only
    casts leave CastRecords for the Burst system."""
    extra = ('[content.items.force_maul]\nclass = "weapon"\nmaterial = "iron"\n'
             'damage = "40d2"\ndamage_type = "energy"\nweapon_class = "mace"\n')
    world = make_world(scenario(LAKE, [creature("a", (3, 2), 500, 'wield = "force_maul"\n'
                                                'fighting = "v"'),
                                       creature("v", (4, 2), 90)], extra=extra))
    world.run(pulses=36)
    assert any(e["amount"] * 3 >= 90 for e in kinds(world, "damage"))
    assert kinds(world, "pushed", "terrain", "fell_in") == []
    assert world.cast_records == []


def test_cell_entities_stay_consistent_after_melting_frozen_cells(make_world):
    """R-COLD-2 / R-FIRE-2: melting ice a cast froze drops its Ice record."""
    world = make_world(scenario(POND, [creature("mage", (1, 2))],
                                [cast("mage", "frost", (4, 2)),
                                 cast("mage", "flame", (4, 2), pulse=20)]))
    world.run(pulses=21)
    import esper

    world.enter()  # read esper's storage: the world's context
    assert esper.get_component(Ice) == []
    assert len(esper.get_component(Fire)) == 1
    assert esper.get_component(Chest) == [] and esper.get_component(ItemStack) == []
    assert len(esper.get_component(Door)) == 0


def test_builtin_door_blast_scenario_end_to_end():
    """R-FORCE-1..4, R-TERR-3, R-LOSS-1: the built-in "door blast": three doors broken
    (the trap destroyed), the iron chest burst (its potions spared by that blast), the
    ice under the kobold shattered (it falls in), the kobold and the orc knocked away."""
    import affray
    from affray.data.scenario import builtin_scenario
    from affray.display.text import render_event

    world = affray.load_scenario(builtin_scenario("door_blast"))
    try:
        world.run()
        lines = [render_event(e) for e in world.events]
        for line in ("The door at [5, 1] is blasted apart.",
                     "The door at [6, 1] is blasted apart.",
                     "The door at [6, 2] is blasted apart, and its trap with it.",
                     "The iron chest at [4, 3] bursts open.",
                     "kobold falls into the water at [5, 2].",
                     "kobold is knocked from [5, 2] to [6, 2].",
                     "orc is knocked from [4, 2] to [3, 2]."):
            assert line in lines
        assert lines.index("kobold falls into the water at [5, 2].") < lines.index(
            "kobold is knocked from [5, 2] to [6, 2].")
        items = world.snapshot()["items"]
        assert {"at": [4, 3], "item": "potion", "count": 5} in items  # spilled, spared
        lost = [e.to_dict() for e in world.events if e.kind == "item_lost"]
        assert all(e["cell"] == [5, 3] for e in lost)
    finally:
        world.close()


def test_r_force_1_a_critical_pushes_end_to_end(make_world):
    """R-FORCE-1 with R-SHAPE-4: a force bolt that always crits (critical = 1.0) and does
    2 (1 doubled) to a 100-hp creature pushes it: a critical, not a third of its hp."""
    extra = ('[content.spells.crit_bolt]\ntype = "force"\nshape = "bolt"\nrange = 8\n'
             'damage = "1"\nsave = "none"\ncritical = 1.0\n')
    world = make_world(scenario(ROOM, [creature("mage", (1, 2)), creature("v", (4, 2), 100)],
                                [cast("mage", "crit_bolt", "v")], extra=extra))
    world.tick()
    hit = kinds(world, "damage")[0]
    assert (hit["critical"], hit["amount"]) == (True, 2)
    assert [(e["from"], e["to"]) for e in kinds(world, "pushed")] == [([4, 2], [5, 2])]
