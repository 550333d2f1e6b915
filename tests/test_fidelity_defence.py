"""Defences at their exact boundaries, end to end through `tick` (issue 9).

Each test pins number_percent() (tests/fixed_draws.py) and runs one combat round: a
blow of "a" that always hits "v", whose defence either stops it (`defended`) or not.
R-DEF-4, R-DEF-5, R-DEF-6.
"""

from __future__ import annotations

from fixed_draws import fixed_percent

SURE = ("[content.fight]\nauto_miss_in_20 = 0\nauto_critical_in_20 = 0\n"
        "[content.fight.armor]\np_floor = 1.0\np_cap = 1.0\n")
ATTACKER = "level = 20\nhp = 1000"


def defended(duel, victim: str, draw: int, attacker: str = ATTACKER) -> list[str]:
    """One round of "a" on "v" with every percent draw at `draw`: the defences that
    stopped a blow."""
    world = duel(attacker, f"hp = 1000\n{victim}", extra=SURE)
    fixed_percent(world, draw)
    world.start_fight("a", "v")  # both fight: stuns do not wear off (R-STUN-4)
    world.tick()
    return [e.defence for e in world.events if e.kind == "defended" and e.target == "v"]


def blinker(level: int = 20, more: str = "") -> str:
    return f"player = true\nlevel = {level}\nskills = {{ blink = 80 }}\n{more}"


def test_r_def_6_blink_boundary_plain(duel):
    """R-DEF-6: blink 80, level 20 against 20: chance 40: a draw of 39 blinks, 40 not."""
    assert defended(duel, blinker(), 39) == ["blink"]
    assert defended(duel, blinker(), 40) == []


def test_r_def_5_weak_stun_halves_blink_before_the_level_term(duel):
    """R-DEF-5 / R-DEF-6: weak stun halves effective/2 (40 -> 20) before half the level
    gap is added: level 25 against 20: 20 + 5/2 = 22 (not (40 + 2)/2 = 21): 21 blinks,
    22 not; at equal levels 19 blinks, 20 not."""
    weak = 'affects = ["weak_stun"]'
    assert defended(duel, blinker(more=weak), 19) == ["blink"]
    assert defended(duel, blinker(more=weak), 20) == []
    assert defended(duel, blinker(25, weak), 21) == ["blink"]
    assert defended(duel, blinker(25, weak), 22) == []


def test_r_def_5_full_stun_and_sleep_make_blink_fail(duel):
    """R-DEF-5: a fully stunned defender cannot blink, nor can a sleeping one, whatever
    the draw (1 is the best there is); a stunned defender never does better than a weakly
    stunned one."""
    assert defended(duel, blinker(more='affects = ["stun"]'), 1) == []
    assert defended(duel, blinker(more='position = "sleeping"'), 1) == []
    assert defended(duel, blinker(more='affects = ["weak_stun"]'), 1) == ["blink"]


def test_r_def_6_blink_level_term_truncates_toward_zero(duel):
    """R-DEF-6: level 17 against 20: gap -3, half of it truncated toward zero is -1 (not
    -2): chance 39: 38 blinks, 39 not."""
    assert defended(duel, blinker(17), 38) == ["blink"]
    assert defended(duel, blinker(17), 39) == []


def npc_dodger(level: int = 20) -> str:
    return f'level = {level}\ndefences = ["dodge"]'


def test_r_def_4_npc_dodge_is_a_flat_50_on_number_percent_below(duel):
    """R-DEF-4: an NPC's dodge is a flat 50, succeeding on number_percent() < 50 (plus
    half the level gap, 0 here): 49 dodges, 50 not."""
    assert defended(duel, npc_dodger(), 49) == ["dodge"]
    assert defended(duel, npc_dodger(), 50) == []


def test_r_def_6_dodge_level_gap_truncates_toward_zero(duel):
    """R-DEF-6 dodge: succeeds on number_percent() < chance + (level gap)/2, the half
    truncated toward zero: level 17 against 20 gives 50 - 1 = 49 (floor would give 48):
    48 dodges, 49 not; level 23 gives 50 + 1: 50 dodges, 51 not."""
    assert defended(duel, npc_dodger(17), 48) == ["dodge"]
    assert defended(duel, npc_dodger(17), 49) == []
    assert defended(duel, npc_dodger(23), 50) == ["dodge"]
    assert defended(duel, npc_dodger(23), 51) == []
