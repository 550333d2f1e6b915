"""Defences with odd skills, at their exact boundaries (issue 11's mutation pass).

The defence chain now divides a player's base with `//` (the base is above 1, so it
truncates as tdiv does); these tests pin number_percent() and use odd skills, so a
chance computed with true division (81 / 2 = 40.5 instead of 40) lets one more draw
through and fails a test. And a blind defender's shield block and cross block go through
`adjust` (R-DEF-8). Each runs one combat round end to end: a blow of "a" that always
hits "v", stopped (`defended`) or not.
"""

from __future__ import annotations

import pytest
from fixed_draws import fixed_percent

SURE = ("[content.fight]\nauto_miss_in_20 = 0\nauto_critical_in_20 = 0\n"
        "[content.fight.armor]\np_floor = 1.0\np_cap = 1.0\n")
ATTACKER = "level = 20\nhp = 1000"
SWORDS = 'wield = "long_sword"\nsecond_wield = "dagger"'
SHIELD = 'wear = ["wooden_shield"]'


def defended(duel, victim: str, draw: int) -> list[str]:
    """One round of "a" on "v" with every percent draw at `draw`: the defences that
    stopped a blow (level 20 against 20: no level term)."""
    world = duel(ATTACKER, f"hp = 1000\n{victim}", extra=SURE)
    fixed_percent(world, draw)
    world.start_fight("a", "v")
    world.tick()
    return [e.defence for e in world.events if e.kind == "defended" and e.target == "v"]


def player(skills: str, more: str = "", profession: str = "mobile") -> str:
    return (f'player = true\nlevel = 20\nprofession = "{profession}"\n'
            f"skills = {{ {skills} }}\nstats = {{ dex = 20 }}\n{more}")


@pytest.mark.parametrize(("name", "victim", "chance"), [
    # shield block 81: 81/2 - 10 = 40 - 10 = 30 (not 30.5)
    ("shield_block", player("shield_block = 81", SHIELD), 30),
    # blink 81: 81/2 = 40 (not 40.5)
    ("blink", player("blink = 81"), 40),
    # cross block 91: 91/3 = 30 (not 30.33)
    ("cross_block", player("cross_block = 91", SWORDS), 30),
    # cross block 93, samurai: 31 + 31/2 = 31 + 15 = 46 (not 46.5)
    ("cross_block", player("cross_block = 93", SWORDS, "samurai"), 46),
    # parry 81: 81/2 = 40 (not 40.5)
    ("parry", player("parry = 81", 'wield = "long_sword"'), 40),
    # parry 82, paladin: 41 + 41/5 = 41 + 8 = 49 (not 49.2)
    ("parry", player("parry = 82", 'wield = "long_sword"', "paladin"), 49),
    # hand block 91, ninja: 91/2 = 45 (not 45.5)
    ("hand_block", player("hand_block = 91", "", "ninja"), 45),
    # hand block 91, anyone else: 91/3 = 30 (not 30.33)
    ("hand_block", player("hand_block = 91"), 30),
    # dodge 81: 81/2 + 2 * (20 - 20) = 40 (not 40.5)
    ("dodge", player("dodge = 81"), 40),
])
def test_r_def_6_odd_skills_truncate_before_the_roll(duel, name, victim, chance):
    """R-DEF-6: every division of a player's defence skill truncates, so with an odd
    skill the roll number_percent() < chance stops the blow at chance - 1 and not at
    chance itself (a fractional chance would let chance through)."""
    assert defended(duel, victim, chance - 1) == [name]
    assert defended(duel, victim, chance) == []


@pytest.mark.parametrize(("name", "victim"), [
    ("shield_block", player("shield_block = 80", f'{SHIELD}\naffects = ["blind"]')),
    ("cross_block", player("cross_block = 90", f'{SWORDS}\naffects = ["blind"]')),
])
def test_r_def_8_blind_shield_block_and_cross_block_divide_by_4(duel, name, victim):
    """R-DEF-8 for the two defences that weak stun spares: a blind defender without blind
    fighting divides its chance by 4: shield block 80 gives 80/2 - 10 = 30, cross block 90
    gives 90/3 = 30; blind, 30/4 = 7: a draw of 6 stops the blow, 7 does not."""
    assert defended(duel, victim, 6) == [name]
    assert defended(duel, victim, 7) == []


def test_r_def_8_blind_shield_block_with_blind_fighting_divides_by_1_5(duel):
    """R-DEF-8: shield block 83 (83/2 - 10 = 31) by a blind defender who passes blind
    fighting 100: int(31 / 1.5) = 20: a draw of 19 blocks, 20 does not (the same draw
    passes blind fighting first)."""
    victim = player("shield_block = 83, blind_fighting = 100", f'{SHIELD}\naffects = ["blind"]')
    assert defended(duel, victim, 19) == ["shield_block"]
    assert defended(duel, victim, 20) == []
