"""The defence chain: order, gates and formulas (SPEC section 5, R-DEF-1..8).

Statistical tests call one defence many times on a fixed seed and compare the success rate
with the probability derived exactly from the formula, within 4 binomial sigma. Most
defences succeed on `number_percent() < X` (number_percent is uniform 1..100), so
P = clamp(X - 1, 0, 100) / 100; bat swarm succeeds on `<=`, so P = clamp(X, 0, 100) / 100.
A chance of 101 or more succeeds every time, which makes gate tests exact.

Unless a test says otherwise the attacker "a" is a bare-handed NPC of level 20.
"""

from __future__ import annotations

import math

import pytest
from conftest import make_hit

import affray
from affray.systems.rules import blow
from affray.systems.rules.defence import (
    DEFENCES,
    bat_swarm,
    blink,
    cross_block,
    dodge,
    hand_block,
    parry,
    shield_block,
)

N = 20_000  # trials per statistical measurement
EXACT = 400  # trials for a gate whose outcome is certain
SEED = 5_0501
ATTACKER = "level = 20"
SEED_ORDER = ["bat_swarm", "shield_block", "blink", "cross_block", "parry", "hand_block",
              "dodge"]

# Every blow hits and none is a critical (as in test_melee.py).
SURE = ("[content.fight]\nauto_miss_in_20 = 0\nauto_critical_in_20 = 0\n"
        "[content.fight.armor]\np_floor = 1.0\np_cap = 1.0\n")
# Two attacker weapons the stock content lacks.
FLAIL_WHIP = (
    '[content.items.whip]\nclass = "weapon"\nmaterial = "leather"\ndamage = "1d4"\n'
    'damage_type = "slash"\nweapon_class = "whip"\n'
    '[content.items.flail]\nclass = "weapon"\nmaterial = "iron"\ndamage = "1d8"\n'
    'damage_type = "bash"\nweapon_class = "flail"\n'
)
ARMED = 'wield = "long_sword"\nsecond_wield = "dagger"\nwear = ["wooden_shield"]'


def p_lt(chance: int) -> float:
    """P(number_percent() < chance)."""
    return min(max(chance - 1, 0), 100) / 100


def p_le(chance: int) -> float:
    """P(number_percent() <= chance)."""
    return min(max(chance, 0), 100) / 100


def player(level: int = 20, profession: str = "mobile", skills: str = "", dex: int = 20,
           more: str = "") -> str:
    return (f'player = true\nlevel = {level}\nprofession = "{profession}"\n'
            f'skills = {{ {skills} }}\nstats = {{ dex = {dex} }}\n{more}')


def npc(level: int = 20, defences: str = "", more: str = "") -> str:
    listed = f"defences = [{defences}]\n" if defences else ""
    return f"level = {level}\n{listed}{more}"


def rate(world: affray.World, defence, n: int = N) -> float:
    """The success rate of `defence` against a fresh slash blow from "a" on "v"."""
    hit = make_hit(world, 20, "slash", flags=("weapon",), melee=True)
    return sum(bool(defence(world, hit)) for _ in range(n)) / n


def assert_p(observed: float, p: float, n: int = N) -> None:
    tolerance = 4 * math.sqrt(p * (1 - p) / n)
    assert abs(observed - p) <= tolerance, (
        f"rate {observed:.4f}, expected {p:.4f} +- {tolerance:.4f}")


@pytest.fixture
def measure(duel):
    """measure(defence, victim, attacker=..., extra=...) -> success rate over N trials."""

    def run(defence, victim: str, attacker: str = ATTACKER, extra: str = "",
            n: int = N) -> float:
        return rate(duel(attacker, victim, extra=extra, seed=SEED), defence, n)

    return run


# -- R-DEF-1: one chain, first success ends the blow, order ----------------------------------
def fixed_damage(hit, world):
    hit.dam = 20


def blows(world: affray.World, count: int = 50) -> None:
    attacker, victim = world.sheet("a"), world.sheet("v")
    for _ in range(count):
        blow.one_hit(world, attacker, victim)


def events(world: affray.World, kind: str) -> list[dict]:
    return [e.to_dict() for e in world.events if e.kind == kind]


def test_r_def_1_default_order_is_the_seeds(duel):
    """R-DEF-1: bat swarm, shield block, blink, cross block, parry, hand block, dodge."""
    world = duel()
    assert world.rules.defences.names == SEED_ORDER


def test_r_def_1_first_success_ends_the_blow(duel):
    """R-DEF-1: every blow that hits meets the chain; bat swarm that cannot fail (chance 50 +
    199) ends each blow with a `defended` event naming it: no damage, and no defence after it
    is consulted, while one before it is."""
    world = duel("level = 1", npc(200, '"dodge", "parry"', 'hp = 1000\naffects = ["bat_swarm"]'),
                 extra=SURE, seed=SEED)
    world.rules.add_modifier("melee", fixed_damage)
    before, after = [], []
    world.rules.defences.add("spy_first", lambda w, hit: before.append(hit.victim.id) or False,
                             before="bat_swarm")
    world.rules.defences.add("spy_last", lambda w, hit: after.append(hit.victim.id) or False)
    blows(world)
    assert [e["defence"] for e in events(world, "defended")] == ["bat_swarm"] * 50
    assert {(e["source"], e["target"]) for e in events(world, "defended")} == {("a", "v")}
    assert events(world, "damage") == []
    assert world.sheet("v").vitals.hp == 1000
    assert before == ["v"] * 50
    assert after == []


def test_r_def_1_a_blow_no_defence_stops_meets_the_whole_chain(duel):
    """R-DEF-1: without a successful defence the blow goes through every step to the last,
    and lands."""
    world = duel("level = 1", npc(20, "", "hp = 5000"), extra=SURE, seed=SEED)
    world.rules.add_modifier("melee", fixed_damage)
    seen = []
    for name in SEED_ORDER:
        world.rules.defences.replace(
            name, lambda w, hit, name=name: seen.append(name) or False)
    blows(world, 3)
    assert seen == SEED_ORDER * 3
    assert len(events(world, "damage")) == 3
    assert events(world, "defended") == []


BIG_DODGER = npc(250, '"dodge"', 'hp = 1000\naffects = ["bat_swarm"]')  # both never fail


def test_r_def_1_content_order_reorders_the_chain(duel):
    """R-DEF-1: `[content.fight.defence] order` sets the chain: with dodge first, the
    victim whose bat swarm and dodge both cannot fail is saved by dodge."""
    default = duel("level = 1", BIG_DODGER, extra=SURE, seed=SEED)
    order = ["dodge", "bat_swarm", "shield_block", "blink", "cross_block", "parry", "hand_block"]
    config = f"[content.fight.defence]\norder = {order!r}\n".replace("'", '"')
    reordered = duel("level = 1", BIG_DODGER, extra=SURE + config, seed=SEED)
    assert reordered.rules.defences.names == order
    for world, first in ((default, "bat_swarm"), (reordered, "dodge")):
        world.rules.add_modifier("melee", fixed_damage)
        blows(world, 20)
        assert [e["defence"] for e in events(world, "defended")] == [first] * 20


def test_r_def_1_content_order_can_drop_a_defence(duel):
    """R-DEF-1: a defence left out of the content order is not in the chain: the bat swarm
    victim (no other defence) takes every blow."""
    order = ["shield_block", "blink", "cross_block", "parry", "hand_block", "dodge"]
    config = f"[content.fight.defence]\norder = {order!r}\n".replace("'", '"')
    world = duel("level = 1", npc(250, "", 'hp = 5000\naffects = ["bat_swarm"]'),
                 extra=SURE + config, seed=SEED)
    assert world.rules.defences.names == order
    world.rules.add_modifier("melee", fixed_damage)
    blows(world, 10)
    assert events(world, "defended") == []
    assert len(events(world, "damage")) == 10


def test_r_def_1_content_order_can_drop_a_defence_stock_templates_list(duel):
    """R-DEF-1: a game drops dodge from the content order; the chain has no dodge, and the
    stock templates that list it still load (the listed name is simply never used)."""
    order = ["bat_swarm", "shield_block", "blink", "cross_block", "parry", "hand_block"]
    config = f"[content.fight.defence]\norder = {order!r}\n".replace("'", '"')
    world = duel(extra=config)
    assert world.rules.defences.names == order


def test_r_def_1_a_duplicate_in_the_content_order_is_a_content_error(duel):
    """R-DEF-1 config / R-ENG-1: a defence named twice in the order is rejected at load with
    a ContentError naming the field."""
    order = ["bat_swarm", *SEED_ORDER]
    config = f"[content.fight.defence]\norder = {order!r}\n".replace("'", '"')
    with pytest.raises(affray.ContentError, match=r"defence\.order"):
        duel(extra=config)


def test_r_def_1_a_game_adds_removes_and_reorders_defences(duel):
    """R-DEF-1: on world.rules.defences a game adds a defence at a place, removes one and
    reorders the chain; another world keeps the default chain."""
    world = duel("level = 1", BIG_DODGER, extra=SURE, seed=SEED)
    other = duel("level = 1", BIG_DODGER, extra=SURE, seed=SEED)
    world.rules.add_modifier("melee", fixed_damage)
    defences = world.rules.defences

    defences.add("wall", lambda w, hit: True, before="bat_swarm")
    blows(world, 5)
    defences.remove("wall")
    blows(world, 5)
    defences.remove("bat_swarm")
    blows(world, 5)
    assert [e["defence"] for e in events(world, "defended")] == (
        ["wall"] * 5 + ["bat_swarm"] * 5 + ["dodge"] * 5)

    defences.add("bat_swarm", bat_swarm)
    defences.reorder(["bat_swarm", "dodge", "shield_block", "blink", "cross_block", "parry",
                      "hand_block"])
    assert defences.names[:2] == ["bat_swarm", "dodge"]
    with pytest.raises(ValueError):
        defences.add("dodge", dodge)
    with pytest.raises(ValueError):
        defences.reorder(["dodge"])
    assert other.rules.defences.names == SEED_ORDER


def test_r_def_6_each_defence_is_one_registered_function(duel):
    """R-DEF-6: the chain holds one named function per defence, and a game swaps one
    in place."""
    world = duel("level = 1", npc(20, "", "hp = 5000"), extra=SURE, seed=SEED)
    assert dict(world.rules.defences.items()) == DEFENCES
    world.rules.defences.replace("parry", lambda w, hit: True)
    world.rules.add_modifier("melee", fixed_damage)
    blows(world, 3)
    assert [e["defence"] for e in events(world, "defended")] == ["parry"] * 3
    assert world.rules.defences.names == SEED_ORDER


# -- R-DEF-2: bat swarm ---------------------------------------------------------------------
@pytest.mark.parametrize(("victim_level", "attacker_level"), [(20, 20), (30, 20), (10, 40)])
def test_r_def_2_bat_swarm_chance_is_50_plus_level_gap(measure, victim_level, attacker_level):
    """R-DEF-2: bat swarm is an affect, not a skill (the victim has no skill at all):
    chance 50 + (victim level - attacker level), succeeding on number_percent() <= chance."""
    observed = measure(bat_swarm, player(victim_level, more='affects = ["bat_swarm"]'),
                       attacker=f"level = {attacker_level}")
    assert_p(observed, p_le(50 + victim_level - attacker_level))


def test_r_def_2_bat_swarm_succeeds_at_or_under_the_chance(measure):
    """R-DEF-2: the roll is `<=`: a chance of 1 succeeds on a roll of 1 (P = 0.01, where `<`
    would never succeed), a chance of 100 always."""
    low = measure(bat_swarm, npc(1, "", 'affects = ["bat_swarm"]'), attacker="level = 50",
                  n=40_000)
    assert_p(low, p_le(1), 40_000)
    assert low > 0
    assert measure(bat_swarm, npc(50, "", 'affects = ["bat_swarm"]'), attacker="level = 0",
                   n=EXACT) == 1.0


def test_r_def_2_bat_swarm_needs_the_affect_not_a_skill(measure):
    """R-DEF-2: a skill named bat_swarm does nothing without the affect; an NPC needs no
    listed defence for it."""
    assert measure(bat_swarm, player(250, skills="bat_swarm = 100"), n=EXACT) == 0.0
    assert measure(bat_swarm, npc(250, '"dodge"', 'skills = { bat_swarm = 100 }'),
                   n=EXACT) == 0.0
    assert measure(bat_swarm, npc(250, "", 'affects = ["bat_swarm"]'), n=EXACT) == 1.0


# -- R-DEF-3: effective 1 or less refuses ---------------------------------------------------
# A player of level 250 against level 20: any defence it may use cannot fail.
SKILL_DEFENCES = [
    (parry, "parry", ARMED),
    (shield_block, "shield_block", ARMED),
    (blink, "blink", ARMED),
    (cross_block, "cross_block", ARMED),
    (hand_block, "hand_block", ""),
    (dodge, "dodge", ARMED),
]


@pytest.mark.parametrize(("defence", "skill", "gear"), SKILL_DEFENCES,
                         ids=[s for _, s, _ in SKILL_DEFENCES])
def test_r_def_3_effective_1_or_less_refuses(measure, defence, skill, gear):
    """R-DEF-3: a player whose skill is 0 (unlearned) or 1 never succeeds, even with a level
    gap that makes every roll succeed; 2 is practised and succeeds."""
    for learned, expected in ((0, 0.0), (1, 0.0), (2, 1.0)):
        victim = player(250, skills=f"{skill} = {learned}", more=gear)
        assert measure(defence, victim, n=EXACT) == expected, learned


@pytest.mark.parametrize(("defence", "skill", "gear"), SKILL_DEFENCES,
                         ids=[s for _, s, _ in SKILL_DEFENCES])
def test_r_def_3_daze_can_push_a_skill_to_1(duel, defence, skill, gear):
    """R-DEF-3 with daze: daze cuts a skill of 2 to 2*2/3 = 1 (refused) and one of 3 to 2
    (used)."""
    for learned, expected in ((2, 0.0), (3, 1.0)):
        world = duel(ATTACKER, player(250, skills=f"{skill} = {learned}", more=gear),
                     seed=SEED)
        world.lag.daze[world.sheet("v").creature.slot] = 5
        assert rate(world, defence, EXACT) == expected, learned


# -- R-DEF-4: NPC dodge is flat, NPCs never hand block ---------------------------------------
@pytest.mark.parametrize("more", [
    "", "skills = { dodge = 100 }", "skills = { dodge = 1 }", "stats = { dex = 28 }",
    'profession = "warrior"',
], ids=["plain", "skill100", "skill1", "dex28", "warrior"])
def test_r_def_4_npc_dodge_is_a_flat_50(measure, more):
    """R-DEF-4: an NPC's dodge chance is 50 whatever its skills (even 1: NPCs never consult
    skills), DEX or profession."""
    assert_p(measure(dodge, npc(20, '"dodge"', more)), p_lt(50))


@pytest.mark.parametrize(("victim_level", "expected"), [(30, 55), (40, 60), (0, 40)])
def test_r_def_4_npc_dodge_adds_half_the_level_gap(measure, victim_level, expected):
    """R-DEF-4: NPC dodge succeeds on number_percent() < 50 + (victim - attacker level)/2."""
    assert_p(measure(dodge, npc(victim_level, '"dodge"')), p_lt(expected))


def test_r_def_4_an_npc_never_hand_blocks(measure):
    """R-DEF-4: an NPC listing hand block, with the skill, bare-handed and far above its
    attacker, never hand blocks."""
    victim = npc(250, '"hand_block", "dodge"', "skills = { hand_block = 100 }")
    assert measure(hand_block, victim, n=EXACT) == 0.0


# -- R-DEF-5: weak stun halves four defences, full stun fails five --------------------------
WEAK_STUN_CASES = [
    # defence, victim (level 20), chance unstunned, chance weak stunned
    (dodge, player(skills="dodge = 100"), 50, 25),
    (parry, player(profession="warrior", skills="parry = 100", more='wield = "long_sword"'),
     60, 30),
    (blink, player(skills="blink = 80"), 40, 20),
    (hand_block, player(profession="ninja", skills="hand_block = 90"), 45, 22),
]


@pytest.mark.parametrize(("defence", "victim", "plain", "stunned"), WEAK_STUN_CASES,
                         ids=["dodge", "parry", "blink", "hand_block"])
def test_r_def_5_weak_stun_halves_dodge_parry_blink_hand_block(measure, defence, victim,
                                                                plain, stunned):
    """R-DEF-5: weak stun halves the chance (truncated) of dodge, parry, blink, hand block."""
    assert_p(measure(defence, victim), p_lt(plain))
    weak = victim.replace("player = true", 'player = true\naffects = ["weak_stun"]')
    assert_p(measure(defence, weak), p_lt(stunned))


FULL_STUN_CASES = [
    (parry, "parry", ARMED), (shield_block, "shield_block", ARMED),
    (cross_block, "cross_block", ARMED), (dodge, "dodge", ARMED), (hand_block, "hand_block", ""),
]


@pytest.mark.parametrize(("defence", "skill", "gear"), FULL_STUN_CASES,
                         ids=[s for _, s, _ in FULL_STUN_CASES])
def test_r_def_5_full_stun_fails_outright(measure, defence, skill, gear):
    """R-DEF-5: full stun makes hand block fail outright (and, as the source, parry, shield
    block, cross block and dodge): a defence certain to succeed otherwise never does."""
    victim = player(250, profession="warrior", skills=f"{skill} = 100", more=gear)
    assert measure(defence, victim, n=EXACT) == 1.0
    stunned = victim.replace("player = true", 'player = true\naffects = ["stun"]')
    assert measure(defence, stunned, n=EXACT) == 0.0


# -- R-DEF-6: each defence's formula ----------------------------------------------------------
@pytest.mark.parametrize(("profession", "chance"), [
    ("thief", 40), ("ninja", 40), ("mobile", 40),
    ("warrior", 48), ("samurai", 48), ("paladin", 48),
])
def test_r_def_6_parry_chance(measure, profession, chance):
    """R-DEF-6 parry: effective/2, + chance/5 for warrior, samurai, paladin (parry 80)."""
    victim = player(profession=profession, skills="parry = 80", more='wield = "long_sword"')
    assert_p(measure(parry, victim), p_lt(chance))


def test_r_def_6_parry_adds_the_full_level_gap(measure):
    """R-DEF-6 parry: number_percent() < chance + (victim level - attacker level)."""
    victim = player(30, "thief", "parry = 80", more='wield = "long_sword"')
    assert_p(measure(parry, victim), p_lt(40 + 10))


@pytest.mark.parametrize("case", ["flail", "whip", "unarmed", "sleeping"])
def test_r_def_6_parry_gates(measure, case):
    """R-DEF-6 parry: fails against a flail or whip; a player needs a wielded weapon; the
    defender must be awake. Without the gate it cannot fail here."""
    able = player(250, "warrior", "parry = 100", more='wield = "long_sword"')
    assert measure(parry, able, extra=FLAIL_WHIP, n=EXACT) == 1.0
    victim, attacker = able, ATTACKER
    if case in ("flail", "whip"):
        attacker = f'level = 20\nwield = "{case}"'
    elif case == "unarmed":
        victim = player(250, "warrior", "parry = 100")
    else:
        victim = able + '\nposition = "sleeping"'
    assert measure(parry, victim, attacker=attacker, extra=FLAIL_WHIP, n=EXACT) == 0.0


@pytest.mark.parametrize(("profession", "level", "chance"), [
    ("ninja", 20, 45), ("thief", 20, 30), ("warrior", 20, 30), ("thief", 30, 40),
])
def test_r_def_6_hand_block_chance(measure, profession, level, chance):
    """R-DEF-6 hand block: effective/2 for a ninja, effective/3 for others (hand block 90),
    plus the full level gap."""
    victim = player(level, profession, "hand_block = 90")
    assert_p(measure(hand_block, victim), p_lt(chance))


@pytest.mark.parametrize("gear", ['wield = "long_sword"', 'wield = "dagger"'])
def test_r_def_6_hand_block_needs_bare_hands(measure, gear):
    """R-DEF-6 hand block: a wielded weapon refuses it (bare-handed it cannot fail here)."""
    assert measure(hand_block, player(250, "ninja", "hand_block = 100"), n=EXACT) == 1.0
    assert measure(hand_block, player(250, "ninja", "hand_block = 100", more=gear),
                   n=EXACT) == 0.0


@pytest.mark.parametrize(("profession", "weapon", "level", "chance"), [
    ("warrior", "", 20, 40),     # 80/2 - 10 + 10
    ("samurai", "", 20, 40),
    ("paladin", "", 20, 40),
    ("thief", "", 20, 30),       # 80/2 - 10
    ("thief", "", 30, 40),       # + the full level gap
    ("warrior", "flail", 20, 20),  # halved
    ("thief", "flail", 20, 15),
])
def test_r_def_6_shield_block_chance(measure, profession, weapon, level, chance):
    """R-DEF-6 shield block: effective/2 - 10, +10 for warrior, samurai, paladin; a flail
    halves it; number_percent() < chance + level gap (shield block 80)."""
    victim = player(level, profession, "shield_block = 80", more='wear = ["wooden_shield"]')
    attacker = f'level = 20\nwield = "{weapon}"' if weapon else ATTACKER
    assert_p(measure(shield_block, victim, attacker=attacker, extra=FLAIL_WHIP), p_lt(chance))


@pytest.mark.parametrize("case", ["whip", "no_shield", "no_move", "sleeping"])
def test_r_def_6_shield_block_gates(measure, case):
    """R-DEF-6 shield block: fails against a whip, without a shield, for a player with no
    movement points, or asleep; each would otherwise always succeed."""
    shield = "" if case == "no_shield" else 'wear = ["wooden_shield"]'
    more = {"no_move": "move = 0", "sleeping": 'position = "sleeping"'}.get(case, "")
    attacker = 'level = 20\nwield = "whip"' if case == "whip" else ATTACKER
    able = player(250, "warrior", "shield_block = 100", more='wear = ["wooden_shield"]')
    assert measure(shield_block, able, n=EXACT) == 1.0
    victim = player(250, "warrior", "shield_block = 100", more=f"{shield}\n{more}")
    assert measure(shield_block, victim, attacker=attacker, extra=FLAIL_WHIP,
                   n=EXACT) == 0.0


@pytest.mark.parametrize(("profession", "level", "chance"), [
    ("thief", 20, 30), ("warrior", 20, 45), ("samurai", 20, 45), ("paladin", 20, 45),
    ("thief", 30, 40),
])
def test_r_def_6_cross_block_chance(measure, profession, level, chance):
    """R-DEF-6 cross block: a player's effective/3, + chance/2 for warrior, samurai,
    paladin; number_percent() < chance + level gap (cross block 90)."""
    victim = player(level, profession, "cross_block = 90",
                    more='wield = "long_sword"\nsecond_wield = "dagger"')
    assert_p(measure(cross_block, victim), p_lt(chance))


@pytest.mark.parametrize("gear", [
    'wield = "long_sword"', 'second_wield = "dagger"',
    'wield = "long_sword"\nsecond_wield = "dagger"\nmove = 0',
], ids=["one_weapon", "second_only", "no_move"])
def test_r_def_6_cross_block_needs_two_weapons(measure, gear):
    """R-DEF-6 cross block: needs two wielded weapons (and movement points); with them it
    cannot fail here."""
    both = player(250, "warrior", "cross_block = 100",
                  more='wield = "long_sword"\nsecond_wield = "dagger"')
    assert measure(cross_block, both, n=EXACT) == 1.0
    assert measure(cross_block, player(250, "warrior", "cross_block = 100", more=gear),
                   n=EXACT) == 0.0


@pytest.mark.parametrize(("profession", "chance"), [
    ("mobile", 50), ("warrior", 60), ("samurai", 60), ("paladin", 60),
    ("thief", 55), ("ninja", 55), ("anti-paladin", 45),
])
def test_r_def_6_dodge_class_bonus(measure, profession, chance):
    """R-DEF-6 dodge: effective/2 + 2*(DEX-20); + chance/5 for warrior, samurai, paladin,
    + chance/10 for thief, ninja, - chance/10 for anti-paladin (dodge 100, DEX 20)."""
    assert_p(measure(dodge, player(20, profession, "dodge = 100")), p_lt(chance))


@pytest.mark.parametrize(("dex", "chance"), [(25, 50), (15, 30), (3, 6)])
def test_r_def_6_dodge_dexterity(measure, dex, chance):
    """R-DEF-6 dodge: effective/2 + 2*(DEX - 20) (dodge 80)."""
    assert_p(measure(dodge, player(20, "mobile", "dodge = 80", dex=dex)), p_lt(chance))


@pytest.mark.parametrize(("profession", "weapon", "chance"), [
    ("mobile", "flail", 60), ("mobile", "whip", 60), ("warrior", "flail", 72),
    ("warrior", "whip", 72), ("warrior", "long_sword", 60),
])
def test_r_def_6_dodge_against_flail_or_whip(measure, profession, weapon, chance):
    """R-DEF-6 dodge: x6/5 when the attacker wields a flail or whip (dodge 100)."""
    assert_p(measure(dodge, player(20, profession, "dodge = 100"),
                     attacker=f'level = 20\nwield = "{weapon}"', extra=FLAIL_WHIP),
             p_lt(chance))


def test_r_def_6_dodge_adds_half_the_level_gap(measure):
    """R-DEF-6 dodge: number_percent() < chance + (victim - attacker level)/2."""
    assert_p(measure(dodge, player(40, "mobile", "dodge = 80")), p_lt(40 + 10))


@pytest.mark.parametrize("more", ["move = 0", 'position = "sleeping"'])
def test_r_def_6_dodge_gates(measure, more):
    """R-DEF-6 dodge: a player needs movement points and must be awake; otherwise it
    cannot fail here."""
    assert measure(dodge, player(250, "mobile", "dodge = 100"), n=EXACT) == 1.0
    assert measure(dodge, player(250, "mobile", "dodge = 100", more=more), n=EXACT) == 0.0


@pytest.mark.parametrize(("profession", "level", "chance"), [
    ("mobile", 20, 40), ("warrior", 20, 40), ("mobile", 40, 50), ("mobile", 0, 30),
])
def test_r_def_6_blink_chance(measure, profession, level, chance):
    """R-DEF-6 blink: effective/2 + (victim level - attacker level)/2, no class bonus
    (blink 80)."""
    assert_p(measure(blink, player(level, profession, "blink = 80")), p_lt(chance))


# -- R-DEF-7: NPCs use only listed defences, at flat chances ---------------------------------
@pytest.mark.parametrize(("defence", "listed", "gear", "level", "chance"), [
    (parry, '"parry"', "", 20, 30),                   # no weapon needed by an NPC
    (parry, '"parry"', 'wield = "long_sword"', 30, 40),  # + full level gap
    (shield_block, '"shield_block"', 'wear = ["wooden_shield"]', 20, 30),
    (shield_block, '"shield_block"', 'wear = ["wooden_shield"]', 30, 40),
    (cross_block, '"cross_block"', 'wield = "long_sword"\nsecond_wield = "dagger"', 20, 30),
    (cross_block, '"cross_block"', 'wield = "long_sword"\nsecond_wield = "dagger"', 30, 40),
    (blink, '"blink"', "", 20, 30),
    (blink, '"blink"', "", 40, 40),                   # + half the level gap
], ids=["parry", "parry_gap", "shield", "shield_gap", "cross", "cross_gap", "blink",
        "blink_gap"])
def test_r_def_7_npc_listed_defences_at_flat_30(measure, defence, listed, gear, level,
                                                 chance):
    """R-DEF-7: a listed defence other than dodge is a flat 30, whatever the skill table
    says (100 here), then the player's level term."""
    skills = ("skills = { parry = 100, shield_block = 100, cross_block = 100, blink = 100 }")
    victim = npc(level, listed, f"{gear}\n{skills}\nstats = {{ dex = 28 }}")
    assert_p(measure(defence, victim), p_lt(chance))


@pytest.mark.parametrize(("defence", "name"), [
    (parry, "parry"), (shield_block, "shield_block"), (cross_block, "cross_block"),
    (blink, "blink"), (dodge, "dodge"),
])
def test_r_def_7_an_npc_uses_only_listed_defences(measure, defence, name):
    """R-DEF-7: an NPC high above its attacker, fully armed and with every skill at 100,
    uses exactly the defences it lists."""
    skills = ("skills = { dodge = 100, parry = 100, shield_block = 100, cross_block = 100, "
              "blink = 100 }")
    listed = npc(250, f'"{name}"', f"{ARMED}\n{skills}")
    others = [n for n in ("parry", "shield_block", "cross_block", "blink", "dodge") if n != name]
    unlisted = npc(250, ", ".join(f'"{n}"' for n in others), f"{ARMED}\n{skills}")
    nothing = npc(250, "", f"{ARMED}\n{skills}")
    assert measure(defence, listed, n=EXACT) == 1.0
    assert measure(defence, unlisted, n=EXACT) == 0.0
    assert measure(defence, nothing, n=EXACT) == 0.0


def test_r_def_7_npc_cross_block_needs_movement(measure):
    """R-DEF-7: an NPC's cross block still needs two weapons and movement points."""
    gear = 'wield = "long_sword"\nsecond_wield = "dagger"'
    assert measure(cross_block, npc(250, '"cross_block"', gear), n=EXACT) == 1.0
    assert measure(cross_block, npc(250, '"cross_block"', f"{gear}\nmove = 0"), n=EXACT) == 0.0
    assert measure(cross_block, npc(250, '"cross_block"', 'wield = "long_sword"'),
                   n=EXACT) == 0.0


def test_r_def_4_r_def_7_npc_flat_chances_come_from_content(measure):
    """R-DEF-4 / R-DEF-7: the flat chances are content knobs (npc_dodge, npc_other)."""
    knobs = "[content.fight.defence]\nnpc_dodge = 70\nnpc_other = 10\n"
    assert_p(measure(dodge, npc(20, '"dodge", "parry"'), extra=knobs), p_lt(70))
    assert_p(measure(parry, npc(20, '"dodge", "parry"'), extra=knobs), p_lt(10))


# -- R-DEF-8: a blind defender --------------------------------------------------------------
def blind_mix(chance: int, blind_fighting: int, level_term: int = 0) -> float:
    """P(defence) when blind: blind fighting succeeds on number_percent() < skill (never
    when the skill is 1 or less), then chance/1.5, else chance/4, both truncated; the
    level term is added after the division."""
    ok = p_lt(blind_fighting) if blind_fighting > 1 else 0.0
    return (ok * p_lt(int(chance / 1.5) + level_term)
            + (1 - ok) * p_lt(chance // 4 + level_term))


@pytest.mark.parametrize("blind_fighting", [0, 1, 60, 100])
def test_r_def_8_blind_dodge(measure, blind_fighting):
    """R-DEF-8: a blind defender's dodge chance (50 here) is divided by 1.5 when blind
    fighting succeeds, by 4 when it fails; unpractised blind fighting always fails."""
    skills = f"dodge = 100, blind_fighting = {blind_fighting}"
    victim = player(20, "mobile", skills, more='affects = ["blind"]')
    assert_p(measure(dodge, victim), blind_mix(50, blind_fighting))


def test_r_def_8_blind_parry_divides_the_chance_not_the_level_gap(measure):
    """R-DEF-8: the division applies to the defence's chance; parry's level gap is added
    after it (warrior parry 100: 60; victim 20 levels above)."""
    victim = player(40, "warrior", "parry = 100",
                    more='wield = "long_sword"\naffects = ["blind"]')
    assert_p(measure(parry, victim), blind_mix(60, 0, level_term=20))
    victim = player(40, "warrior", "parry = 100, blind_fighting = 100",
                    more='wield = "long_sword"\naffects = ["blind"]')
    assert_p(measure(parry, victim), blind_mix(60, 100, level_term=20))


def test_r_def_8_not_blind_no_division(measure):
    """R-DEF-8: blind fighting plays no part for a defender that is not blind."""
    victim = player(20, "mobile", "dodge = 100, blind_fighting = 1")
    assert_p(measure(dodge, victim), p_lt(50))
