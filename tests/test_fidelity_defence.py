"""Defences at their exact boundaries, end to end through `tick` (issue 9).

Each test pins number_percent() (tests/fixed_draws.py) and runs one combat round: a
blow of "a" that always hits "v", whose defence either stops it (`defended`) or not.
R-DEF-4, R-DEF-5, R-DEF-6.
"""

from __future__ import annotations

import pytest
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


# -- every defence's roll at its exact boundary (R-DEF-1..8, source_notes section 6) ------
FLAIL = ('[content.items.flail]\nclass = "weapon"\nmaterial = "iron"\ndamage = "1d8"\n'
         'damage_type = "bash"\nweapon_class = "flail"\n')
SWORDS = 'wield = "long_sword"\nsecond_wield = "dagger"'


def player(skills: str, more: str = "", profession: str = "mobile") -> str:
    return (f'player = true\nlevel = 20\nprofession = "{profession}"\n'
            f"skills = {{ {skills} }}\nstats = {{ dex = 20 }}\n{more}")


@pytest.mark.parametrize(("name", "victim", "chance"), [
    # shield block: effective/2 - 10, +10 for warrior, samurai, paladin
    ("shield_block", player("shield_block = 80", 'wear = ["wooden_shield"]'), 30),
    ("shield_block", player("shield_block = 80", 'wear = ["wooden_shield"]', "warrior"), 40),
    # cross block: effective/3, + chance/2 for the fighters
    ("cross_block", player("cross_block = 90", SWORDS), 30),
    ("cross_block", player("cross_block = 90", SWORDS, "samurai"), 45),
    # parry: effective/2, + chance/5 for the fighters; a player needs a weapon
    ("parry", player("parry = 80", 'wield = "long_sword"'), 40),
    ("parry", player("parry = 80", 'wield = "long_sword"', "paladin"), 48),
    # hand block: effective/3, effective/2 for a ninja; bare hands
    ("hand_block", player("hand_block = 90"), 30),
    ("hand_block", player("hand_block = 90", "", "ninja"), 45),
    # dodge: effective/2 + 2*(DEX - 20), + chance/5 fighters, + chance/10 thief and
    # ninja, - chance/10 anti-paladin
    ("dodge", player("dodge = 80"), 40),
    ("dodge", player("dodge = 80", "stats = { dex = 23 }"), 46),
    ("dodge", player("dodge = 80", "", "warrior"), 48),
    ("dodge", player("dodge = 80", "", "thief"), 44),
    ("dodge", player("dodge = 80", "", "anti-paladin"), 36),
    # NPCs: flat 30 for a listed defence other than dodge (R-DEF-7)
    ("parry", 'level = 20\ndefences = ["parry"]', 30),
    ("shield_block", 'level = 20\ndefences = ["shield_block"]\nwear = ["wooden_shield"]', 30),
    ("cross_block", f'level = 20\ndefences = ["cross_block"]\n{SWORDS}', 30),
])
def test_r_def_6_each_defence_succeeds_below_its_chance_only(duel, name, victim, chance):
    """R-DEF-6 / R-DEF-7: number_percent() < chance: a draw of chance - 1 stops the blow,
    chance itself does not (level 20 against 20: no level term)."""
    if "stats = { dex = 23 }" in victim:
        victim = victim.replace("stats = { dex = 20 }\n", "")
    assert defended(duel, victim, chance - 1) == [name]
    assert defended(duel, victim, chance) == []


def test_r_def_6_level_term_is_the_full_gap_for_parry_and_half_for_dodge(duel):
    """R-DEF-6: parry, shield block, cross block and hand block add the whole level gap,
    dodge half of it (truncated toward zero): level 25 against 20: parry 40 + 5, dodge
    40 + 2."""
    parry = player("parry = 80", 'wield = "long_sword"').replace("level = 20", "level = 25")
    assert defended(duel, parry, 44) == ["parry"]
    assert defended(duel, parry, 45) == []
    dodger = player("dodge = 80").replace("level = 20", "level = 25")
    assert defended(duel, dodger, 41) == ["dodge"]
    assert defended(duel, dodger, 42) == []


def test_r_def_2_bat_swarm_succeeds_at_or_under_50_plus_the_gap(duel):
    """R-DEF-2: bat swarm, an affect: number_percent() <= 50 + level gap: 50 stops the
    blow, 51 does not; at level 23 against 20, 53 and 54."""
    swarm = 'level = 20\naffects = ["bat_swarm"]'
    assert defended(duel, swarm, 50) == ["bat_swarm"]
    assert defended(duel, swarm, 51) == []
    higher = 'level = 23\naffects = ["bat_swarm"]'
    assert defended(duel, higher, 53) == ["bat_swarm"]
    assert defended(duel, higher, 54) == []


def test_r_def_6_dodge_against_a_flail_is_six_fifths(duel):
    """R-DEF-6: a player's dodge is x6/5 against a flail or whip: 40 -> 48."""
    attacker = f'{ATTACKER}\nwield = "flail"'
    victim = player("dodge = 80")
    assert defended_with(duel, victim, 47, attacker, FLAIL) == ["dodge"]
    assert defended_with(duel, victim, 48, attacker, FLAIL) == []


def defended_with(duel, victim: str, draw: int, attacker: str, content: str) -> list[str]:
    world = duel(attacker, f"hp = 1000\n{victim}", extra=SURE + content)
    fixed_percent(world, draw)
    world.start_fight("a", "v")
    world.tick()
    return [e.defence for e in world.events if e.kind == "defended" and e.target == "v"]


def test_r_def_8_blindness_divides_by_4_or_by_1_5(duel):
    """R-DEF-8: a blind defender that fails blind fighting (number_percent() <
    effective fails here: none learned) divides its chance by 4 (40 -> 10: 9 dodges, 10
    not); one that succeeds divides by 1.5 (40 -> 26: 25 dodges, 26 not; the same draw
    passes blind fighting 100)."""
    failing = player("dodge = 80", 'affects = ["blind"]')
    assert defended(duel, failing, 9) == ["dodge"]
    assert defended(duel, failing, 10) == []
    fighting = player("dodge = 80, blind_fighting = 100", 'affects = ["blind"]')
    assert defended(duel, fighting, 25) == ["dodge"]
    assert defended(duel, fighting, 26) == []


def test_r_def_8_blind_fighting_needs_practice_and_a_draw_below_it(duel):
    """R-DEF-8: blind fighting counts when practised (above 1) and number_percent() <
    effective: with blind fighting 2 a first draw of 1 passes (dodge 40 / 1.5 = 26: a
    second draw of 15 dodges); with 25, a draw of 25 fails (40 / 4 = 10: 25 misses) and
    24 passes."""
    from fixed_draws import SequenceRng

    def dodged(blind_fighting: int, draws: list[int]) -> list[str]:
        world = duel(ATTACKER, "hp = 1000\n" + player(
            f"dodge = 80, blind_fighting = {blind_fighting}", 'affects = ["blind"]'),
            extra=SURE)
        world.rng = SequenceRng(1, draws)
        world.start_fight("a", "v")
        world.tick()
        return [e.defence for e in world.events if e.kind == "defended" and e.target == "v"]

    assert dodged(2, [1, 15]) == ["dodge"]
    # dodge 8 (chance 4), blind fighting 2: draws of 1: it passes (4 / 1.5 = 2) and
    # dodges on 1 < 2; unpractised blind fighting would leave 4 / 4 = 1: no dodge
    low = duel(ATTACKER, "hp = 1000\n" + player("dodge = 8, blind_fighting = 2",
                                                 'affects = ["blind"]'), extra=SURE)
    fixed_percent(low, 1)
    low.start_fight("a", "v")
    low.tick()
    assert [e.defence for e in low.events if e.kind == "defended" and e.target == "v"] == [
        "dodge"]
    assert dodged(25, [25, 25]) == []
    assert dodged(25, [24, 25]) == ["dodge"]


def test_r_def_6_remort_levels_count_in_the_level_gap(duel):
    """R-DEF-6: the level term compares modify levels (level + remorts) on both sides:
    defender 20 + 5 remorts against 20: parry 40 + 5 (44 parries, 45 not); against an
    attacker of 20 + 5 remorts: 40 + 0."""
    parry = player("parry = 80", 'wield = "long_sword"\nremorts = 5')
    assert defended(duel, parry, 44) == ["parry"]
    assert defended(duel, parry, 45) == []
    even = f"{ATTACKER}\nremorts = 5"
    assert defended(duel, parry, 39, even) == ["parry"]
    assert defended(duel, parry, 40, even) == []


@pytest.mark.parametrize(("name", "victim"), [
    ("shield_block", player("shield_block = 80", 'wear = ["wooden_shield"]\nmove = 1')),
    ("dodge", player("dodge = 80", "move = 1")),
    ("cross_block", player("cross_block = 90", SWORDS + "\nmove = 1")),
    ("cross_block", f'level = 20\ndefences = ["cross_block"]\n{SWORDS}\nmove = 1'),
])
def test_r_def_6_one_movement_point_is_enough_to_defend(duel, name, victim):
    """R-DEF-6: the defences that need movement need just some: 1 point will do."""
    assert defended(duel, victim, 1) == [name]
