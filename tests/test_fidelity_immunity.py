"""R-IMM-5: a weapon's blow always has a damage type: content cannot say "none"
(issue 9)."""

from __future__ import annotations

import pytest
from conftest import world_from_text

import affray

SURE = ("[content.fight]\nauto_miss_in_20 = 0\nauto_critical_in_20 = 0\n"
        "[content.fight.armor]\np_floor = 1.0\np_cap = 1.0\n")


def scenario(damage_type: str, item_class: str = "weapon") -> str:
    return (
        'name = "none"\n[map]\nrows = ["....."]\n'
        f'[content.items.blank_blade]\nclass = "{item_class}"\nmaterial = "iron"\n'
        f'damage = "2d4"\ndamage_type = "{damage_type}"\nweapon_class = "sword"\n'
        + SURE +
        '[[creatures]]\nid = "a"\nat = [1, 0]\nlevel = 20\nhp = 1000\n'
        + ('wield = "blank_blade"\n' if item_class == "weapon" else "")
        + '[[creatures]]\nid = "v"\nat = [2, 0]\nhp = 1000\n'
        'imm = ["bash", "weapon", "slash", "pierce"]\n'
        '[[actions]]\npulse = 0\nactor = "a"\nattack = "v"\n'
    )


def test_r_imm_5_a_weapon_of_type_none_is_a_content_error_naming_it():
    """R-IMM-5 / R-ENG-1: `damage_type = "none"` on a weapon is refused at load, naming
    the item and the field; nothing runs."""
    with pytest.raises(affray.ContentError) as error:
        world_from_text(scenario("none"))
    message = str(error.value)
    assert "blank_blade" in message and "damage_type" in message and "none" in message


def test_a_non_weapon_may_keep_type_none():
    """Only weapons strike, so the check behind R-IMM-5 spares other items: a piece of
    armour whose (unused) damage type is none loads, its type kept as written."""
    world = world_from_text(scenario("none", item_class="armor"))
    item = world.content.items["blank_blade"]
    assert (item.class_, item.damage_type) == ("armor", "none")
    world.close()


def test_r_imm_5_the_same_weapon_with_a_type_meets_the_immunity_end_to_end():
    """R-IMM-5 end to end: with a real type (slash) every blow on a victim immune to
    bash, weapon, slash and pierce is an `immune` event, never damage."""
    world = world_from_text(scenario("slash"))
    world.run(pulses=25)
    kinds = [e.kind for e in world.events if getattr(e, "source", None) == "a"
             and e.kind != "fight"]
    assert kinds and set(kinds) == {"immune"}
    assert world.snapshot()["creatures"]["v"]["hp"] == 1000
    world.close()


def test_r_imm_2_flags_combine_every_bit_they_name(duel):
    """R-IMM-2: a hit's flags add up: each flag ORs its bits into the mask, none replaces
    another's (a weapon-and-spell hit checks weapon and every spell bit; prayer and
    magic together; water after the others), and flag names combine the same way."""
    from affray.systems.rules import immunity

    world = duel()
    content, bits = world.content, world.content.bits
    flags = immunity.flags_of
    assert flags(("weapon", "spell", "water")) == (
        immunity.WEAPON | immunity.SPELL | immunity.WATER)
    assert flags(()) == 0

    def mask(*names):
        return immunity.hit_bits(content, "other", flags(names))

    any_spell = bits["spell"] | bits["magic"] | bits["prayer"]
    assert mask("weapon", "spell") == bits["weapon"] | any_spell
    assert mask("weapon", "prayer") == bits["weapon"] | bits["prayer"] | bits["spell"]
    assert mask("weapon", "magic") == bits["weapon"] | bits["magic"] | bits["spell"]
    assert mask("prayer", "magic") == any_spell
    assert mask("weapon", "water") == bits["weapon"] | bits["drowning"]
    assert mask("weapon", "spell", "water") == bits["weapon"] | any_spell | bits["drowning"]
