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
    ("paladin@52", 56),    # 50 + 2600/130 = 70 -> 56 (2600/131 would give 69)
    ("thief@51", 58),      # 50 + 2550/110 = 73 -> 58 (2550/111 would give 72)
])
def test_r_melee_3_class_modifier_divisors(duel, profession, expected):
    """R-MELEE-3 (damapply_class, players only): dam += dam * number_percent() / div, div
    100 other, 110 agile, 130 hybrid, casters nothing. 40d1 x 120% skill = 48, x21/20
    with no shield = 50; draw 50 (or the one after @)."""
    profession, _, draw = profession.partition("@")
    player = (f'player = true\nprofession = "{profession}"\nskills = {{ sword = 100 }}\n'
              'wield = "fixed_blade"')
    assert first_blow(duel, player, int(draw or 50)) == expected


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


# -- more of the mutation run's survivors (docs/decisions.md, "Mutation testing") --------
MORE_ITEMS = (
    '[content.items.ten_blade]\nclass = "weapon"\nmaterial = "steel"\ndamage = "10d1"\n'
    'damage_type = "slash"\nweapon_class = "sword"\n'
    '[content.items.plus_blade]\nclass = "weapon"\nmaterial = "steel"\ndamage = "10d1+3"\n'
    'damage_type = "slash"\nweapon_class = "sword"\n'
    '[content.items.hundred_blade]\nclass = "weapon"\nmaterial = "steel"\n'
    'damage = "100d1"\ndamage_type = "slash"\nweapon_class = "sword"\n'
)


def blows_of(duel, attacker: str, victim: str = VICTIM, draw: int = 99,
             pulses: int = 1) -> list[int]:
    world = duel(f"level = 20\nhp = 5000\nstats = {{ str = 20 }}\n{attacker}", victim,
                 extra=SURE + ITEMS + MORE_ITEMS)
    fixed_percent(world, draw)
    world.sheet("a").combat.fighting = "v"
    world.fighting.add(world.sheet("a").entity)
    world.run(pulses=pulses)
    return [e.amount for e in world.events if e.kind == "damage" and e.source == "a"]


def test_r_melee_3_an_npcs_hand_dice_only_when_better_than_its_weapon(duel):
    """R-MELEE-3 (damBase): an NPC strikes with its hand dice only when their average
    beats its weapon's: hand 5d1+5 (average 10) against 10d1 (average 10): the weapon:
    10 x 120% = 12, x21/20 = 12, trimmed 9; hand 3d1+2 alone: always 5."""
    assert blows_of(duel, 'damage = "5d1+5"\nwield = "ten_blade"') == [9]
    assert set(blows_of(duel, 'damage = "3d1+2"', pulses=200)) == {5}


def test_r_melee_3_weapon_dice_bonus_and_the_blow_skill(duel):
    """R-MELEE-3: (dice + bonus) x skill / 100 with skill 20 + weapon skill: 10d1+3 ->
    13 x 120% = 15, x21/20 = 15, trimmed 12; 100d1 -> 120 -> 126 -> 100."""
    assert blows_of(duel, 'wield = "plus_blade"') == [12]
    assert blows_of(duel, 'wield = "hundred_blade"') == [100]


def test_r_melee_3_strength_damage_bonus(duel):
    """R-MELEE-3: dam += dam x str_app damage% / 100 (STR 23: 10%): 50 + 5 = 55, trimmed
    44."""
    world = duel("level = 20\nhp = 5000\nstats = { str = 23 }\nwield = \"fixed_blade\"",
                 VICTIM, extra=SURE + ITEMS)
    world.sheet("a").combat.fighting = "v"
    world.fighting.add(world.sheet("a").entity)
    world.tick()
    assert [e.amount for e in world.events if e.kind == "damage"] == [44]


def test_r_melee_3_bare_hands_roll_between_the_sources_bounds(duel):
    """R-MELEE-3: a bare-handed player rolls number_range(1 + 4*skill/100,
    (2L/3)*skill/100): level 30, hand to hand 60 (skill 80): 4..16; 80 (skill 100):
    5..20."""
    from fixed_draws import RangeRecordingRng as Recording

    for learned, bounds in ((60, (4, 16)), (80, (5, 20))):
        world = duel(f"player = true\nlevel = 30\nskills = {{ hand_to_hand = {learned} }}",
                     VICTIM, extra=SURE)
        world.rng = Recording(3)
        world.sheet("a").combat.fighting = "v"
        world.fighting.add(world.sheet("a").entity)
        world.tick()
        assert bounds in world.rng.calls
        assert (0, 19) in world.rng.calls  # the d20 (R-HIT-5)


def test_r_melee_3_holy_needs_an_evil_victim(duel):
    """R-MELEE-3: holy only against evil (alignment below -333): -333 gets nothing,
    -334 gets it."""
    good = 'alignment = 1000\nwield = "holy_blade"'
    assert blows_of(duel, good, "level = 20\nhp = 5000\nalignment = -333", draw=1) == [20]
    assert blows_of(duel, good, "level = 20\nhp = 5000\nalignment = -334", draw=1) == [44]


def test_r_melee_4_a_fighting_or_standing_victim_takes_the_plain_value(duel):
    """R-MELEE-4: the multiplier is for victims below fighting only."""
    from affray.systems.rules.blow import position_multiplier

    world = duel()
    victim = world.sheet("v")
    for position, expected in (("fighting", 7), ("standing", 7), ("sitting", 10),
                               ("sleeping", 14)):
        victim.vitals.position = position
        assert position_multiplier(victim, 7) == expected


def test_one_hit_refuses_a_dead_or_distant_victim_silently(duel, make_world):
    """R-MELEE-1 / R-MELEE-2: the pipeline strikes nothing (0, no event) at a victim that
    is dead or not beside, and a tired-looking player with 1 point far away is not
    "too tired"; a tired blow returns 0."""
    from affray.systems.rules.blow import one_hit

    world = make_world('name = "far"\n[map]\nrows = ["....."]\n[[creatures]]\nid = "a"\n'
                       'at = [0, 0]\nplayer = true\nmove = 1\n[[creatures]]\nid = "v"\n'
                       'at = [3, 0]\n[[creatures]]\nid = "n"\nat = [4, 0]\n')
    assert one_hit(world, world.sheet("a"), world.sheet("v")) == 0
    assert one_hit(world, world.sheet("n"), world.sheet("a")) == 0
    assert world.events == []
    near = duel("player = true\nmove = 0", "hp = 50", extra=SURE)
    assert one_hit(near, near.sheet("a"), near.sheet("v")) == 0
    assert [e.kind for e in near.events] == ["too_tired"]
    dead = duel("", "hp = 1", extra=SURE)
    dead.sheet("v").vitals.alive = False
    assert one_hit(dead, dead.sheet("a"), dead.sheet("v")) == 0 and dead.events == []


def test_a_blow_hands_its_weapon_and_melee_flag_to_the_hooks(duel):
    """R-MELEE-1: the hit the post-damage hooks see names the wielded weapon and is a
    melee hit."""
    world = duel('wield = "long_sword"', "hp = 5000", extra=SURE)
    seen = []
    world.rules.add_hook("post_damage", ("creature", "v"),
                         lambda hit, w: seen.append((hit.weapon is not None and
                                                     hit.weapon.weapon_class, hit.melee)))
    world.start_fight("a", "v")
    world.tick()
    assert seen and seen[0] == ("sword", True)


def fixed_blow_events(duel, dam: int, attacker: str = "", victim: str = "hp = 5000",
                      extra: str = SURE, draw: int = 99) -> list[tuple[str, int]]:
    """One round of a's blows, each `dam` before protections: (kind, amount or 0)."""
    world = duel(f"level = 20\nhp = 5000\n{attacker}", victim, extra=extra)
    fixed_percent(world, draw)
    world.rules.add_modifier("melee", lambda hit, w: setattr(hit, "dam", dam))
    world.sheet("a").combat.fighting = "v"
    world.fighting.add(world.sheet("a").entity)
    world.tick()
    return [(e.kind, getattr(e, "amount", 0)) for e in world.events
            if getattr(e, "source", None) == "a"]


def test_r_hit_5_a_critical_blow_is_three_halves_before_protections(duel):
    """R-HIT-5: every face a critical (auto_critical_in_20 = 20): 13 x 3/2 = 19,
    trimmed 15; a blow of 0 is normalised to 1 (damNormalize), critical or not."""
    crits = ("[content.fight]\nauto_miss_in_20 = 0\nauto_critical_in_20 = 20\n"
             "[content.fight.armor]\np_floor = 1.0\np_cap = 1.0\n")
    assert fixed_blow_events(duel, 13, extra=crits) == [("damage", 15)]
    assert fixed_blow_events(duel, 0) == [("damage", 1)]


def test_r_imm_9_the_weapons_material_pass_end_to_end(duel):
    """R-IMM-9: a silver weapon against silver immunity: an `immune` event, even for a
    1-point blow; against silver resistance a 1-point blow stays 1 (1 - 1/3 = 1) and a
    13-point one is 10 - 3 = 7; an immune victim's blow meets no defence (it took 0)."""
    silver = 'wield = "silver_dagger"'
    assert fixed_blow_events(duel, 1, silver, 'hp = 5000\nimm = ["silver"]') == [
        ("immune", 0)]
    assert fixed_blow_events(duel, 1, silver, 'hp = 5000\nres = ["silver"]') == [
        ("damage", 1)]
    assert fixed_blow_events(duel, 13, silver, 'hp = 5000\nres = ["silver"]') == [
        ("damage", 7)]
    dodger = 'hp = 5000\nimm = ["silver"]\ndefences = ["dodge"]'
    assert fixed_blow_events(duel, 13, silver, dodger, draw=1) == [("immune", 0)]


def test_r_prot_4_a_blow_meets_liturgy_as_melee(duel):
    """R-PROT-4 / R-MELEE-1: a blow is a melee hit for the protections: liturgy at level
    70 takes 100 x 10/100 = 10 (the pipeline's formula would take 5), then the trim:
    90 -> 72."""
    assert fixed_blow_events(duel, 100, "", 'hp = 5000\nlevel = 70\naffects = ["liturgy"]'
                             ) == [("damage", 72)]


def test_one_hit_returns_what_it_took(duel):
    """R-MELEE-1: one_hit returns the hit points the victim lost: 0 for a miss or a
    defended blow."""
    from affray.systems.rules.blow import one_hit

    never = ("[content.fight]\nauto_miss_in_20 = 20\nauto_critical_in_20 = 0\n")
    missing = duel("", "hp = 5000", extra=never)
    assert one_hit(missing, missing.sheet("a"), missing.sheet("v")) == 0
    assert [e.kind for e in missing.events] == ["miss", "fight"]  # R-ACT-1: it fights back
    dodging = duel("", 'hp = 5000\ndefences = ["dodge"]', extra=SURE)
    fixed_percent(dodging, 1)
    assert one_hit(dodging, dodging.sheet("a"), dodging.sheet("v")) == 0
    assert [e.kind for e in dodging.events] == ["defended", "fight"]


class PinnedAll:
    """A generator whose every percent draw is `pct` and every uniform `u` (so the d20
    face is int(u x 20))."""

    def __init__(self, pct: int, u: float) -> None:
        self.pct, self.u = pct, u

    def percent(self) -> int:
        return self.pct

    def random(self) -> float:
        return self.u

    def number_range(self, low: int, high: int) -> int:
        return low if low >= high else low + int(self.u * (high - low + 1))

    def dice(self, count: int, size: int) -> int:
        return count * (1 + int(self.u * size)) if size > 0 and count > 0 else 0


def legacy_blow(duel, attacker: str, victim: str, pct: int) -> str:
    """One legacy-model blow of a mobile (thac0 2) on a level-10 victim (AC 0: needs a
    face of 2) on face 4: 'damage' or 'miss'."""
    from affray.systems.rules.blow import one_hit

    world = duel(f'profession = "mobile"\nlevel = 24\nhitroll = 12\n{attacker}',
                 f"level = 10\nhp = 5000\n{victim}", extra='[content.fight]\nmodel = "legacy"\n')
    world.rng = PinnedAll(pct, 0.2)
    one_hit(world, world.sheet("a"), world.sheet("v"))
    return next(e.kind for e in world.events if e.kind in ("damage", "miss"))


def test_r_hit_1_a_blow_hands_blind_fighting_and_armor_use_to_the_roll(duel):
    """R-HIT-1 through one_hit: a blind attacker's blind fighting is its own skill (100,
    draw 1: it passes and hits on face 4; without the skill it fails: AC -4 -> needs 6:
    a miss); the victim's armor use is its own skill (100, draw 1: AC - 10/2 -> needs 7:
    a miss)."""
    assert legacy_blow(duel, "", "", 1) == "damage"
    assert legacy_blow(duel, 'affects = ["blind"]\nskills = { blind_fighting = 100 }', "",
                       1) == "damage"
    assert legacy_blow(duel, 'affects = ["blind"]', "", 1) == "miss"
    assert legacy_blow(duel, "", "skills = { armor_use = 100 }", 1) == "miss"


def test_r_imm_9_a_blow_that_protections_took_to_0_is_not_immune(duel):
    """R-IMM-9 / R-PROT-1: a 1-point blow halved to 0 by sanctuary is a damage event of 0
    (not `immune`), silver weapon or not."""
    events = fixed_blow_events(duel, 1, 'wield = "silver_dagger"',
                               'hp = 5000\naffects = ["sanctuary"]')
    assert events == [("damage", 0)]


def test_r_hit_1_legacy_ac_of_a_type_without_a_column_is_exotic(duel):
    """R-HIT-1 (source_notes section 4): the column is bash, pierce or slash for those
    types and exotic for every other: a holy weapon's blow meets worn plate's exotic 40
    (AC -4: the mobile, thac0 1 with its weapon, then needs face 5, so face 4 misses);
    against no armor face 4 hits."""
    holy = ('[content.items.holy_rod]\nclass = "weapon"\nmaterial = "steel"\n'
            'damage = "2d4"\ndamage_type = "holy"\nweapon_class = "mace"\n')

    def blow(victim: str, wield: str) -> str:
        from affray.systems.rules.blow import one_hit

        world = duel(f'profession = "mobile"\nlevel = 24\nhitroll = 12\n{wield}',
                     f"level = 10\nhp = 5000\n{victim}",
                     extra='[content.fight]\nmodel = "legacy"\n' + holy)
        world.rng = PinnedAll(100, 0.2)
        one_hit(world, world.sheet("a"), world.sheet("v"))
        return next(e.kind for e in world.events if e.kind in ("damage", "miss"))

    assert blow("", 'wield = "holy_rod"') == "damage"
    assert blow('wear = ["plate_armor"]', 'wield = "holy_rod"') == "miss"


@pytest.mark.parametrize("dx", [-3, -2, -1, 0, 1, 2, 3])
@pytest.mark.parametrize("dy", [-2, -1, 0, 1, 2])
def test_r_melee_2_can_hit_exactly_at_chebyshev_distance_1(make_world, dx, dy):
    """R-MELEE-2: a blow can land only on a victim at Chebyshev distance exactly 1 (the
    eight neighbours, diagonals included); the same cell, two cells away on either axis,
    or a knight's move away, no."""
    from affray.systems.rules.blow import can_hit

    world = make_world('name = "grid"\n[map]\nrows = ["........"]\n'
                       '[[creatures]]\nid = "a"\nat = [3, 0]\n'
                       '[[creatures]]\nid = "v"\nat = [4, 0]\n')
    attacker, victim = world.sheet("a"), world.sheet("v")
    victim.position.x, victim.position.y = 3 + dx, dy  # moved by hand: any offset
    assert can_hit(attacker, victim) is (max(abs(dx), abs(dy)) == 1)
