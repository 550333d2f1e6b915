"""World._lay_item (the engine's, not the API): add_item's work without the cell and
count checks, for the engine's own items on cells it knows (a death's corpse, R-DMG-2)."""

from __future__ import annotations

import esper
import pytest

import affray
from affray.components import Chest, ItemStack, Position
from affray.core.errors import UsageError


def _items(world: affray.World) -> list[tuple[tuple[int, int], str, int]]:
    world.enter()
    return sorted(((at.x, at.y), stack.item, stack.count)
                  for _, (stack, at) in esper.get_components(ItemStack, Position))


def test_lay_item_lays_what_add_item_lays() -> None:
    laid, added = affray.World.new(["#####", "#...#", "#####"]), \
        affray.World.new(["#####", "#...#", "#####"])
    laid._lay_item("scroll", (2, 1), 3)
    added.add_item("scroll", (2, 1), 3)
    assert _items(laid) == _items(added) == [((2, 1), "scroll", 3)]


def test_lay_item_of_a_container_is_a_chest() -> None:
    world = affray.World.new(["#####", "#...#", "#####"])
    content = world.content
    container = next(name for name, item in content.items.items()
                     if content.item_class_is(item.class_, "container"))
    entity = world._lay_item(container, (1, 1))
    world.enter()
    assert esper.component_for_entity(entity, Chest).item == container


def test_lay_item_of_an_unknown_item_is_add_items_usage_error() -> None:
    world = affray.World.new(["#####", "#...#", "#####"])
    with pytest.raises(UsageError, match="add_item: item 'no_such_item', field 'item'"):
        world._lay_item("no_such_item", (1, 1))
    assert _items(world) == []


def test_a_death_lays_its_corpse_on_its_cell() -> None:
    world = affray.World.new(["#####", "#...#", "#####"])
    world.add_creature("hero", (1, 1), template="human_warrior", hp=200, fighting=None)
    world.add_creature("rat", (2, 1), template="orc_brute", hp=1, fighting="hero")
    world.run(until="settled")
    dead = [(name, at) for name, at in (("hero", (1, 1)), ("rat", (2, 1)))
            if not world.sheet(name).vitals.alive]
    assert len(dead) == 1  # a fight to the death: one corpse, where its creature stood
    assert _items(world) == [(dead[0][1], "corpse", 1)]
