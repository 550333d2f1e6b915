"""One blow's damage calculation at exact draws, end to end through `tick` (issue 9;
R-MELEE-3, source_notes section 5.1).

Weapons of fixed dice (n d1) and STR 20 (strength damage bonus 0) make every value
exact; number_percent() is pinned (tests/fixed_draws.py)."""

from __future__ import annotations

import pytest
from fixed_draws import fixed_percent

SURE = ("[content.fight]\nauto_miss_in_20 = 0\nauto_critical_in_20 = 0\n"
        "[content.fight.armor]\np_floor = 1.0\np_cap = 1.0\n")
ITEMS = (
    '[content.items.fixed_blade]\nclass = "weapon"\nmaterial = "steel"\ndamage = "40d1"\n'
    'damage_type = "slash"\nweapon_class = "sword"\n'
    '[content.items.sharp_blade]\nclass = "weapon"\nmaterial = "steel"\ndamage = "20d1"\n'
    'damage_type = "slash"\nweapon_class = "sword"\nsharp = true\n'
    '[content.items.holy_blade]\nclass = "weapon"\nmaterial = "steel"\ndamage = "20d1"\n'
    'damage_type = "slash"\nweapon_class = "sword"\nholy = true\n'
)
VICTIM = "level = 20\nhp = 5000\nalignment = -1000"


def first_blow(duel, attacker: str, draw: int) -> int:
    """The hit points a's first blow takes from v at pulse 0, every draw at `draw`."""
    world = duel(f"level = 20\nhp = 5000\nstats = {{ str = 20 }}\n{attacker}", VICTIM,
                 extra=SURE + ITEMS)
    fixed_percent(world, draw)
    world.sheet("a").combat.fighting = "v"
    world.fighting.add(world.sheet("a").entity)
    world.tick()
    return next(e.amount for e in world.events if e.kind == "damage" and e.source == "a")


@pytest.mark.parametrize(("profession", "expected"), [
    ("warrior", 60),       # other: 50 + 50*50/100 = 75, trimmed to 60
    ("thief", 57),         # agile: 50 + 2500/110 = 72 -> 57
    ("paladin", 55),       # hybrid: 50 + 2500/130 = 69 -> 55
    ("cleric", 40),        # caster: nothing: 50 -> 40
])
def test_r_melee_3_class_modifier_divisors(duel, profession, expected):
    """R-MELEE-3 (damapply_class, players only): dam += dam * number_percent() / div, div
    100 other, 110 agile, 130 hybrid, casters nothing. 40d1 x 120% skill = 48, x21/20
    with no shield = 50; draw 50."""
    player = (f'player = true\nprofession = "{profession}"\nskills = {{ sword = 100 }}\n'
              'wield = "fixed_blade"')
    assert first_blow(duel, player, 50) == expected


def test_r_melee_3_an_npc_has_no_class_modifier(duel):
    """R-MELEE-3: an NPC's blow takes no class term: 50 -> 40 whatever the draw."""
    assert first_blow(duel, 'profession = "warrior"\nwield = "fixed_blade"', 99) == 40


def test_r_melee_3_a_sharp_weapon_doubles_at_or_under_skill_over_8(duel):
    """R-MELEE-3: sharp: a draw p <= skill/8 (120/8 = 15) makes dam 2*dam + dam*2*p/100:
    20d1 -> 24 -> 25; p 15: 50 + 7 = 57, trimmed 45; p 16: 25 -> 20."""
    assert first_blow(duel, 'wield = "sharp_blade"', 15) == 45
    assert first_blow(duel, 'wield = "sharp_blade"', 16) == 20


def test_r_melee_3_a_holy_weapon_adds_120_percent_under_30(duel):
    """R-MELEE-3: holy weapon, good attacker, evil victim: a draw below 30 adds
    dam*120/100: 25 + 30 = 55, trimmed 44; a draw of 30 adds nothing: 20. A neutral
    attacker never gets it."""
    good = 'alignment = 1000\nwield = "holy_blade"'
    assert first_blow(duel, good, 29) == 44
    assert first_blow(duel, good, 30) == 20
    assert first_blow(duel, 'alignment = 333\nwield = "holy_blade"', 1) == 20
    assert first_blow(duel, 'alignment = 334\nwield = "holy_blade"', 1) == 44


def test_r_melee_3_damroll_counts_at_most_100_percent_of_skill(duel):
    """R-MELEE-3: dam += damroll * min(100, skill) / 100: skill 120 counts as 100:
    damroll 200 adds 200 (not 240): 50 + 200 = 250, trimmed 200."""
    assert first_blow(duel, 'damroll = 200\nwield = "fixed_blade"', 99) == 200
