"""FloorItemLoss: floor items destroyed by area spells and breath (R-LOSS-1..7).

Rates are checked row by row (4 sigma over 200,000 items: an off-by-one percent fails),
and draw for draw against the same binomial draws on a copy of the world's generator.
"""

from __future__ import annotations

import copy

import esper
import numpy as np
import pytest

from affray.components import ItemStack, Position, Spawn
from affray.systems.floor_loss import FloorItemLossSystem, loss_chance, loss_message
from affray.systems.rules.casting import CastRecord
from tests.conftest import four_sigma

# R-LOSS-3, as SPEC.md writes it: (kind, class or family, chance), first fitting row wins.
SPEC_TABLE = {
    "acid": [("class", "coins", 0), ("class", "scroll", 40), ("family", "paper", 40),
             ("class", "food", 40), ("family", "cloth", 35), ("family", "hide", 25),
             ("family", "wood", 20), ("family", "bone", 15), ("family", "metal", 5)],
    "cold": [("class", "potion", 35), ("family", "glass", 20)],
    "electricity": [("class", "scroll", 20), ("family", "paper", 15)],
    "fire": [("class", "scroll", 50), ("family", "paper", 40), ("family", "wax", 50),
             ("family", "cloth", 30), ("class", "food", 25), ("family", "wood", 15),
             ("class", "potion", 10)],
    "force": [("class", "potion", 30), ("family", "glass", 30)],
    "necrotic": [("class", "food", 30)],
}
# A material of each family, and an item class no row names, to build row items.
MATERIAL = {"paper": "parchment", "cloth": "linen", "hide": "leather", "wood": "oak",
            "bone": "ivory", "metal": "iron", "glass": "glass", "wax": "wax"}
CLASS_MATERIAL = {"coins": "gold", "scroll": "paper", "food": "flesh", "potion": "glass"}


def _row_item(kind: str, index: int) -> tuple[str, str]:
    """(item name, inline TOML) of an item that the table's row `index` fits first."""
    how, what, _chance = SPEC_TABLE[kind][index]
    name = f"{kind}_row{index}"
    if how == "class":
        toml = f'[content.items.{name}]\nclass = "{what}"\nmaterial = "{CLASS_MATERIAL[what]}"\n'
    else:
        toml = f'[content.items.{name}]\nclass = "trash"\nmaterial = "{MATERIAL[what]}"\n'
    return name, toml


ROWS = [(kind, index) for kind, rows in SPEC_TABLE.items() for index in range(len(rows))]

ROOM = 'name = "loss"\nseed = 9\npulses = 1\n[map]\nrows = [".....", ".....", "....."]\n'
CASTER = '[[creatures]]\nid = "mage"\nat = [0, 0]\nlevel = 20\nhp = 100\n'


def _world(make_world, items: list[tuple[tuple[int, int], str, int]], extra: str = "",
           seed: int = 9):
    text = ROOM + CASTER + "".join(
        f'[[items]]\nat = [{x}, {y}]\nitem = "{item}"\ncount = {count}\n'
        for (x, y), item, count in items)
    return make_world(text + extra, seed=seed)


def _record(world, damage_type: str, cells, *, shape: str = "burst", via: str = "mana",
            spell: str = "fireball") -> CastRecord:
    """A resolved cast of `spell` with its shape replaced, over `cells` (its area)."""
    record = CastRecord(caster=world.entity("mage"), caster_id="mage", spell=spell,
                        definition=_with_shape(world, spell, shape),
                        damage_type=world.content.damage_type(damage_type), via=via,
                        level=20, origin=(0, 0), target=cells[0], area=list(cells))
    return record


def _with_shape(world, spell: str, shape: str):
    import msgspec

    return msgspec.structs.replace(world.content.spells[spell], shape=shape)


def _lose(world, records: list[CastRecord]) -> list[dict]:
    world.cast_records = records
    start = len(world.events)
    world.enter()  # a system run by hand, outside tick: in the world's esper context
    FloorItemLossSystem().process(world)
    return [e.to_dict() for e in world.events[start:] if e.kind == "item_lost"]


# -- R-LOSS-3: the table ----------------------------------------------------------------------
def test_r_loss_3_the_content_table_is_the_spec_table():
    """R-LOSS-3: content/floor_loss.toml holds SPEC's rows, in SPEC's order."""
    import affray

    content = affray.default_content()
    assert set(content.floor_loss) == set(SPEC_TABLE)
    for kind, rows in SPEC_TABLE.items():
        got = [("class", r.item_class, r.chance) if r.item_class else ("family", r.family,
                                                                        r.chance)
               for r in content.floor_loss[kind].rows]
        assert got == rows, kind


@pytest.mark.parametrize(("kind", "index"), ROWS)
def test_r_loss_2_each_row_loses_items_at_its_rate(make_world, kind, index):
    """R-LOSS-2 / R-LOSS-3: each item of a stack is lost at its first fitting row's
    chance: 200,000 items, within 4 sigma (an off-by-one percent is ~9 sigma away)."""
    chance = SPEC_TABLE[kind][index][2]
    name, toml = _row_item(kind, index)
    count = 200_000
    world = _world(make_world, [((2, 1), name, count)], extra=toml)
    assert loss_chance(world.content, world.content.damage_type(kind), name) == chance
    lost = sum(e["count"] for e in _lose(world, [_record(world, kind, [(2, 1)])]))
    p = chance / 100
    if chance == 0:
        assert lost == 0  # R-LOSS-3: "Coins never"
    else:
        assert abs(lost / count - p) <= four_sigma(p, count)


def test_r_loss_2_first_fitting_row_wins_and_a_corpse_is_food(make_world):
    """R-LOSS-2: a scroll (paper) burns at the Scrolls row (50), not paper's (40); gold
    coins (metal) never dissolve (Coins 0 before metal 5); a corpse is a food (is_a);
    an item no row fits (a gem) is never touched."""
    content = _world(make_world, []).content
    fire, acid = "fire", "acid"
    assert loss_chance(content, fire, "scroll") == 50
    assert loss_chance(content, acid, "gold_coins") == 0
    assert loss_chance(content, "negative", "corpse") == 30
    assert loss_chance(content, fire, "corpse") == 25
    assert loss_chance(content, "cold", "scroll") is None
    assert loss_chance(content, "poison", "scroll") is None  # no table for poison


def test_r_loss_2_draw_for_draw_against_the_same_binomials(make_world):
    """R-LOSS-2 / R-GRID-6: one binomial per exposed stack, in spawn order, at its row's
    chance: the losses equal numpy's draws on a copy of the generator, stack for stack."""
    rng = np.random.default_rng(4)
    names = ["scroll", "potion", "bread", "candle", "torch", "corpse", "gold_coins", "wand",
             "bone_charm", "iron_key"]
    items = [((int(rng.integers(0, 5)), int(rng.integers(0, 3))), names[i % len(names)],
              int(rng.integers(1, 3000))) for i in range(300)]
    world = _world(make_world, items)
    cells = [(x, y) for x in range(5) for y in range(3)]
    world.enter()  # read esper's storage: the world's context
    stacks = sorted((spawn.number, stack.item, stack.count, (p.x, p.y)) for _e, (spawn, p, stack)
                    in esper.get_components(Spawn, Position, ItemStack))
    chances = [loss_chance(world.content, "fire", item) for _s, item, _c, _p in stacks]
    exposed = [(s, c) for s, c in zip(stacks, chances, strict=True) if c]
    twin = copy.deepcopy(world.rng.numpy())
    expected = twin.binomial([s[2] for s, _c in exposed], [c / 100 for _s, c in exposed])
    want = [(s[3], s[1], int(n)) for (s, _c), n in zip(exposed, expected, strict=True) if n]
    got = [(tuple(e["cell"]), e["item"], e["count"])
           for e in _lose(world, [_record(world, "fire", cells)])]
    assert got == want
    assert len(got) > 200


def test_r_loss_2_a_stack_may_lose_some_or_all(make_world):
    """R-LOSS-2: a partial loss lowers the count; a stack that loses all is gone."""
    world = _world(make_world, [((1, 1), "scroll", 1000), ((2, 1), "scroll", 1)],
                   extra='[content.floor_loss.acid]\nrows = [{ item_class = "scroll", '
                         'chance = 100 }]\nverb_one = "dissolves"\nverb_many = "dissolve"\n')
    lost = _lose(world, [_record(world, "fire", [(1, 1)])])
    assert len(lost) == 1 and 400 < lost[0]["count"] < 600
    world.tick()
    left = world.snapshot()["items"]
    assert left[0]["count"] == 1000 - lost[0]["count"]
    lost = _lose(world, [_record(world, "acid", [(1, 1), (2, 1)])])
    assert [e["count"] for e in lost] == [left[0]["count"], 1]
    world.tick()
    assert world.snapshot()["items"] == []


# -- R-LOSS-1, R-LOSS-5: who exposes items ------------------------------------------------------
SCROLLS = [((x, y), "scroll", 60) for x in (1, 2, 3) for y in (0, 1, 2)]


def _cast_scenario(make_world, spell: str, target, via: str = "mana", extra: str = ""):
    aim = f'"{target}"' if isinstance(target, str) else f"[{target[0]}, {target[1]}]"
    action = f'[[actions]]\nactor = "mage"\ncast = "{spell}"\ntarget = {aim}\nvia = "{via}"\n'
    return _world(make_world, SCROLLS, extra=action + extra)


def test_r_loss_1_a_burst_exposes_every_cell_of_its_area(make_world):
    """R-LOSS-1: a fireball on [2, 1] (radius 1) burns scrolls on all 9 of its cells,
    end to end; "The scroll burns up." style messages name the count."""
    world = _cast_scenario(make_world, "fireball", (2, 1))
    world.run()
    lost = [e.to_dict() for e in world.events if e.kind == "item_lost"]
    assert sorted(tuple(e["cell"]) for e in lost) == sorted(c for c, _i, _n in SCROLLS)
    assert all(e["damage_type"] == "fire" and e["cause"] == "mage" for e in lost)
    assert all(e["message"] == f"{e['count']} scrolls burn up." for e in lost)


def test_r_loss_1_a_cone_and_a_line_expose_their_whole_area(make_world):
    """R-LOSS-1: unlike R-SHAPE-7, a cone (no cell effects) and a line (its last cell
    only) destroy items on every cell of their area."""
    cone = _cast_scenario(make_world, "burning_hands", (3, 1))
    cone.run()
    cone_cells = {tuple(e.to_dict()["cell"]) for e in cone.events if e.kind == "item_lost"}
    assert len(cone_cells) >= 3
    line_extra = ('[content.spells.fire_line]\ntype = "fire"\nshape = "line"\nrange = 4\n'
                  'damage = "1"\nsave = "none"\n')
    line = _cast_scenario(make_world, "fire_line", (3, 0), extra=line_extra)
    line.run()
    line_cells = {tuple(e.to_dict()["cell"]) for e in line.events if e.kind == "item_lost"}
    assert line_cells == {(1, 0), (2, 0), (3, 0)}  # every scroll cell along the line


def test_r_loss_1_a_bolt_ruins_nothing_but_a_breath_does_whatever_its_shape(make_world):
    """R-LOSS-1: a ray or bolt is not an area spell; a dragon's breath (via breath) is
    exposed whatever its shape."""
    bolt = _cast_scenario(make_world, "fire_bolt", (2, 0))
    bolt.run()
    assert [e for e in bolt.events if e.kind == "item_lost"] == []
    breath = _cast_scenario(make_world, "fire_bolt", (2, 0), via="breath")
    breath.run()
    # the bolt's area is the path it flew (row 0, past the aim: nobody stopped it)
    assert [e.to_dict()["cell"] for e in breath.events if e.kind == "item_lost"] == [
        [1, 0], [2, 0], [3, 0]]


def test_r_loss_5_traps_ruin_nothing(make_world):
    """R-LOSS-5: the same fireball set off by a trap destroys no floor item."""
    world = _cast_scenario(make_world, "fireball", (2, 1), via="trap")
    world.run()
    assert any(e.kind == "cast" for e in world.events)
    assert [e for e in world.events if e.kind == "item_lost"] == []


# -- R-LOSS-4: never touched ---------------------------------------------------------------------
def test_r_loss_4_indestructible_worn_and_contained_items_are_never_touched(make_world):
    """R-LOSS-4: an indestructible scroll, the scrolls in a chest and what a creature
    wears or carries are never touched, even at a 100% chance."""
    extra = ('[content.items.holy_scroll]\nclass = "scroll"\nmaterial = "paper"\n'
             'indestructible = true\n'
             '[content.floor_loss.fire]\nrows = [{ item_class = "scroll", chance = 100 }, '
             '{ family = "wood", chance = 100 }, { family = "hide", chance = 100 }]\n'
             'verb_one = "burns up"\nverb_many = "burn up"\n'
             '[[creatures]]\nid = "hero"\nat = [2, 2]\nhp = 500\nwield = "long_sword"\n'
             'wear = ["leather_armor"]\n')
    world = _world(make_world, [((2, 1), "holy_scroll", 5), ((1, 1), "scroll", 2)],
                   extra=extra)
    chest = world.add_item("wooden_chest", (3, 1))
    from affray.components import Chest

    world.enter()  # read esper's storage: the world's context
    esper.component_for_entity(chest, Chest).contents = [ItemStack("scroll", 4)]
    lost = _lose(world, [_record(world, "fire", [(x, y) for x in range(5) for y in range(3)])])
    assert [(e["item"], e["count"]) for e in lost] == [("scroll", 2)]
    world.tick()
    snap = world.snapshot()
    assert snap["items"] == [{"at": [2, 1], "item": "holy_scroll", "count": 5}]
    assert snap["chests"][0]["contents"] == [{"item": "scroll", "count": 4}]


# -- R-LOSS-6, R-LOSS-7 ---------------------------------------------------------------------------
def test_r_loss_6_a_corpse_that_burns_away_is_gone_end_to_end(make_world):
    """R-LOSS-6: a fireball kills a kobold; its corpse (a food) lies in the blast and
    burns (at 100% here): it is removed, so it can never rise."""
    extra = ('[[creatures]]\nid = "kobold"\nat = [4, 2]\nhp = 1\n'
             '[[actions]]\nactor = "mage"\ncast = "fireball"\ntarget = [4, 2]\n'
             '[content.floor_loss.fire]\nrows = [{ item_class = "food", chance = 100 }]\n'
             'verb_one = "burns up"\nverb_many = "burn up"\n')
    world = _world(make_world, [], extra=extra)
    world.run()
    kinds = [e.kind for e in world.events]
    assert kinds.index("death") < kinds.index("item_lost")
    lost = [e.to_dict() for e in world.events if e.kind == "item_lost"]
    assert [(e["item"], e["message"]) for e in lost] == [("corpse", "The corpse burns up.")]
    assert world.snapshot()["items"] == []


def test_r_loss_7_messages_the_scroll_burns_up_and_3_potions_freeze_and_shatter(make_world):
    """R-LOSS-7: "The {name} {verb}." for one, "{count} {plural} {verb_plural}." for more,
    with the verbs from content, end to end through the player text."""
    from affray.display.text import render_event

    extra = ('[content.floor_loss.fire]\nrows = [{ item_class = "scroll", chance = 100 }]\n'
             'verb_one = "burns up"\nverb_many = "burn up"\n'
             '[content.floor_loss.cold]\nrows = [{ item_class = "potion", chance = 100 }]\n'
             'verb_one = "freezes and shatters"\nverb_many = "freeze and shatter"\n'
             '[[actions]]\nactor = "mage"\ncast = "fireball"\ntarget = [2, 1]\n'
             '[[actions]]\npulse = 30\nactor = "mage"\ncast = "cone_of_cold"\n'
             'target = [4, 1]\n')
    world = _world(make_world, [((2, 1), "scroll", 1), ((3, 1), "potion", 3)], extra=extra)
    world.run()
    lines = [render_event(e) for e in world.events if e.kind == "item_lost"]
    assert lines == ["The scroll burns up.", "3 potions freeze and shatter."]


def test_r_loss_7_every_verb_and_plural_from_content(make_world):
    """R-LOSS-7: the verbs of each damage type, and a content plural."""
    content = _world(make_world, []).content
    want = {"fire": ("burns up", "burn up"), "cold": ("freezes and shatters",
                                                      "freeze and shatter"),
            "acid": ("dissolves", "dissolve"), "lightning": ("is blasted apart",
                                                             "are blasted apart"),
            "energy": ("shatters", "shatter"), "negative": ("rots away", "rot away")}
    for kind, (one, many) in want.items():
        assert loss_message(content, kind, "scroll", 1) == f"The scroll {one}."
        assert loss_message(content, kind, "scroll", 2) == f"2 scrolls {many}."
    assert loss_message(content, "fire", "bread", 4) == "4 loaves of bread burn up."


def test_r_loss_1_the_floor_index_follows_new_removed_and_moved_stacks(make_world):
    """R-LOSS-1: stacks made after the index (a corpse, a spill) are reached, emptied ones
    dropped; a stack a game moves is reached at its new cell after `reset_floor_index`."""
    from affray.systems.floor_loss import floor_index, reset_floor_index

    always = ('[content.floor_loss.fire]\nrows = [{ item_class = "scroll", chance = 100 }]\n'
              'verb_one = "burns up"\nverb_many = "burn up"\n')
    world = _world(make_world, [((1, 1), "scroll", 2)], extra=always)
    world.enter()  # the index is read outside a tick: in the world's esper context
    assert len(floor_index(world).stacks) == 1
    late = world.add_item("scroll", (3, 1), 3)
    lost = _lose(world, [_record(world, "fire", [(1, 1), (3, 1)])])
    assert [(e["cell"], e["count"]) for e in lost] == [([1, 1], 2), ([3, 1], 3)]
    world.tick()  # esper deletes the emptied stacks
    assert floor_index(world).stacks == []
    moved = world.add_item("scroll", (0, 2), 1)
    floor_index(world)
    world.enter()  # read esper's storage: the world's context
    esper.component_for_entity(moved, Position).x = 4
    reset_floor_index(world)
    lost = _lose(world, [_record(world, "fire", [(4, 2)])])
    assert [(e["cell"], e["message"]) for e in lost] == [([4, 2], "The scroll burns up.")]
    assert late != moved
