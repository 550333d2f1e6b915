"""Melee: rounds, the blow pipeline, modifiers and hooks, death.

R-TIME-2, R-TIME-3, R-MELEE-1..8, R-DMG-2, R-IMM-5.
"""

from __future__ import annotations

import pytest

import affray
from affray.core.rng import Rng
from affray.systems.rules import blow
from affray.systems.rules.hit import VictimDeath

# Every blow hits and none is a critical: no d20 face misses, P is pinned at 1.
SURE = ("[content.fight]\nauto_miss_in_20 = 0\nauto_critical_in_20 = 0\n"
        "[content.fight.armor]\np_floor = 1.0\np_cap = 1.0\n")
TOUGH = "level = 10\nhp = 1000"


def fixed_damage(amount: int):
    """A 'melee' modifier that makes every blow deal exactly `amount` before protections."""

    def modifier(hit, world):
        hit.dam = amount

    return modifier


def kinds(world, *wanted: str) -> list[dict]:
    return [e.to_dict() for e in world.events if e.kind in wanted]


def test_r_time_2_rounds_come_every_12_pulses_in_spawn_order(duel):
    """R-TIME-2: on pulses 0, 12, 24 each fighter gets its round, in spawn order."""
    world = duel(TOUGH, TOUGH, extra=SURE)
    world.rules.add_modifier("melee", fixed_damage(5))
    world.start_fight("v", "a")  # v started it; a (spawned first) still acts first
    world.run(pulses=25)
    blows = [(e["pulse"], e["source"]) for e in kinds(world, "damage")]
    assert blows == [(0, "a"), (0, "v"), (12, "a"), (12, "v"), (24, "a"), (24, "v")]


def test_r_time_2_a_creature_that_dies_mid_round_is_skipped(duel):
    """R-TIME-2: the victim killed by the first fighter's blow gets no blow that round."""
    world = duel(TOUGH, "level = 10\nhp = 5", extra=SURE)
    world.rules.add_modifier("melee", fixed_damage(9))
    world.start_fight("a", "v")
    world.run(pulses=13)
    assert [(e["source"], e["target"]) for e in kinds(world, "damage")] == [("a", "v")]
    assert kinds(world, "death") == [{"pulse": 0, "kind": "death", "target": "v",
                                      "killer": "a"}]
    assert world.snapshot()["creatures"]["a"]["hp"] == 1000


def test_r_time_2_a_creature_killed_by_a_hook_is_never_hit_again_that_round(duel):
    """R-TIME-2 / R-DMG-2: a post-damage hook kills the victim; the attacker's remaining
    blows that round do not land on the corpse, and the death propagates."""
    world = duel(TOUGH + '\naffects = ["haste"]', "level = 10\nhp = 100", extra=SURE)
    world.rules.add_modifier("melee", fixed_damage(4))

    def finisher(hit, w):
        if hit.cause == "melee":
            w.damage(None, "v", 500, "harm", cause="script")

    world.rules.add_hook("post_damage", ("creature", "v"), finisher)
    world.start_fight("a", "v")
    world.run(pulses=13)
    melee = [e for e in kinds(world, "damage") if e["cause"] == "melee"]
    assert len(melee) == 1  # haste would have given a second blow
    assert [e["target"] for e in kinds(world, "death")] == ["v"]


def test_r_dmg_2_no_hook_can_swallow_the_death(duel):
    """R-DMG-2: VictimDeath is not an Exception: `except Exception` in a hook does not
    catch it, and the caller of world.damage sees the death."""
    world = duel(TOUGH, "level = 10\nhp = 20")
    swallowed = []

    def careless(hit, w):
        try:
            w.damage(None, "v", 100, "harm", cause="script")
        except Exception as error:
            swallowed.append(error)

    world.rules.add_hook("post_damage", ("creature", "a"), careless)
    with pytest.raises(VictimDeath) as caught:
        world.damage("v", "a", 1, "harm", cause="script")
    assert caught.value.victim == "v"
    assert swallowed == []
    assert not world.snapshot()["creatures"]["v"]["alive"]


def test_r_time_3_on_fight_hooks_run_after_the_blows_own_then_worn_items(duel):
    """R-TIME-3: after its attacks, a fighter's own on-fight hooks run, then its worn
    items' hooks."""
    world = duel(TOUGH + '\nwear = ["leather_cap", "leather_armor"]', TOUGH, extra=SURE)
    world.rules.add_modifier("melee", fixed_damage(2))
    calls: list[str] = []
    world.rules.add_hook("on_fight", ("item", "leather_cap"),
                         lambda fighter, w: calls.append(f"cap:{fighter.id}"))
    world.rules.add_hook("on_fight", ("item", "leather_armor"),
                         lambda fighter, w: calls.append(f"armor:{fighter.id}"))
    world.rules.add_hook("on_fight", ("creature", "a"),
                         lambda fighter, w: calls.append(f"own:{len(w.events)}"))
    world.start_fight("a", "v")
    world.tick()
    # own first (after the two `fight` events and a's one blow: 3 events), then body
    # armour, then the cap (wear order)
    assert calls == ["own:3", "armor:a", "cap:a"]


def test_r_melee_1_a_miss_ends_the_blow(duel):
    """R-MELEE-1: a miss ends the blow: a `miss` event, no damage, no defence rolled."""
    extra = ("[content.fight]\nauto_miss_in_20 = 20\nauto_critical_in_20 = 0\n")
    world = duel(TOUGH, TOUGH, extra=extra)
    defended = []
    world.rules.defences.add("watch", lambda w, hit: defended.append(hit) or False)
    world.start_fight("a", "v")
    world.tick()
    assert [e["kind"] for e in kinds(world, "miss", "damage")] == ["miss", "miss"]
    assert defended == []


def test_r_melee_1_order_defences_then_pre_damage_message_inflict_post_damage(duel):
    """R-MELEE-1: after the damage calculation and the position multiplier come the
    defence chain, pre-damage effects, the message, inflict, post-damage effects."""
    world = duel(TOUGH, "level = 10\nhp = 100\nposition = \"sleeping\"", extra=SURE)
    world.rules.add_modifier("melee", fixed_damage(7))
    seen: list[tuple[str, int, int, int]] = []
    hp = world.sheet("v").vitals

    def defence(w, hit):
        seen.append(("defence", hit.dam, hp.hp, len(w.events)))
        return False

    world.rules.defences.add("watch", defence)
    world.rules.add_hook("pre_damage", ("creature", "v"),
                         lambda hit, w: seen.append(("pre", hit.dam, hp.hp, len(w.events))))
    world.rules.add_hook("post_damage", ("creature", "v"),
                         lambda hit, w: seen.append(("post", hit.dam, hp.hp, len(w.events))))
    world.sheet("v").combat.fighting = None  # asleep: it does not fight back yet
    world.sheet("a").combat.fighting = "v"
    world.fighting.add(world.sheet("a").entity)
    world.tick()
    # 7 -> position x2 = 14 is seen by the defence already; the message is the 1st event,
    # the victim waking (a `position` event) the 2nd and fighting back (R-ACT-1) the 3rd,
    # all before the post-damage effects
    assert seen == [("defence", 14, 100, 0), ("pre", 14, 100, 0), ("post", 14, 86, 3)]
    assert [e.kind for e in world.events[:3]] == ["damage", "position", "fight"]


def test_r_melee_1_a_successful_defence_ends_the_blow(duel):
    """R-MELEE-1 / R-DEF-1 hook point: the first defence that succeeds ends the blow with
    a `defended` event and no damage."""
    world = duel(TOUGH, TOUGH, extra=SURE)
    world.rules.defences.add("wall_of_will", lambda w, hit: hit.victim.id == "v")
    world.start_fight("a", "v")
    world.tick()
    assert kinds(world, "defended") == [{"pulse": 0, "kind": "defended", "source": "a",
                                         "target": "v", "defence": "wall_of_will"}]
    assert [e["source"] for e in kinds(world, "damage")] == ["v"]


def test_r_melee_2_no_blow_unless_beside(make_world):
    """R-MELEE-2: fighters two cells apart trade no blows (a fight can only start beside,
    so "v" steps away after it starts)."""
    world = make_world('[map]\nrows = [".....", "....."]\n[[creatures]]\nid = "a"\n'
                       f'at = [0, 0]\n{TOUGH}\n[[creatures]]\nid = "v"\nat = [1, 0]\n{TOUGH}\n'
                       + SURE)
    world.start_fight("a", "v")
    victim = world.sheet("v")
    world.place(victim.entity, victim.position, 2, 0)
    world.run(pulses=25)
    assert kinds(world, "damage", "miss") == []


def _replay_percent(world) -> int:
    """The next number_percent() the world's generator will give, without drawing it."""
    return Rng.from_state(world.rng.state()).percent()


def test_r_melee_3_damage_calculation_damroll_and_strength_exact(duel):
    """R-MELEE-3: an NPC's hand dice (better than no weapon), + damroll*min(100, skill)/100,
    + dam*str_app.damage/100 (truncated toward zero), then protections (flat trim)."""
    world = duel('npc = true\nlevel = 30\ndamage = "10"\ndamroll = 5\nstats = { str = 25 }',
                 TOUGH, extra=SURE)
    world.start_fight("a", "v")
    world.tick()
    first = kinds(world, "damage")[0]
    # hand 10; skill 20 + min(100, 2*30+40) = 120: + 5*100/100 = 15; STR 25: + 15*15/100 = 2
    assert (first["raw"], first["amount"]) == (17, 13)  # 17 > 10: 17*4/5 = 13
    weak = duel('npc = true\nlevel = 30\ndamage = "10"\ndamroll = 5\nstats = { str = 3 }',
                TOUGH, extra=SURE)
    weak.start_fight("a", "v")
    weak.tick()
    # STR 3: damage -30%: 15 + (15 * -30) / 100 = 15 - 4 = 11 (floor division would give 10)
    assert kinds(weak, "damage")[0]["raw"] == 11


def test_r_melee_3_class_modifier_for_players(duel):
    """R-MELEE-3: a player's class modifier dam += dam*number_percent()/div (other 100,
    agile 110, hybrid 130); casters and NPCs get none."""
    for profession, divisor in (("warrior", 100), ("thief", 110), ("paladin", 130)):
        world = duel(f'player = true\nprofession = "{profession}"')
        p = _replay_percent(world)
        assert blow.apply_class(world, world.sheet("a"), 37) == 37 + 37 * p // divisor
    caster = duel('player = true\nprofession = "witch"')
    assert blow.apply_class(caster, caster.sheet("a"), 37) == 37
    npc = duel('profession = "warrior"')
    assert blow.apply_class(npc, npc.sheet("a"), 37) == 37


def test_r_melee_3_weapon_dice_times_skill_and_the_no_shield_bonus(duel):
    """R-MELEE-3: weapon dice x skill/100, then x21/20 with no shield; a shield drops it."""
    world = duel('player = true\nwield = "dagger"\nskills = { dagger = 50 }')
    clone = Rng.from_state(world.rng.state())
    roll = clone.dice(1, 6)
    got = blow.base_damage(world, world.sheet("a"), world.sheet("v"), 70)
    assert got == (roll * 70 // 100) * 21 // 20
    shielded = duel('player = true\nwield = "dagger"\nwear = ["wooden_shield"]')
    clone = Rng.from_state(shielded.rng.state())
    roll = clone.dice(1, 6)
    assert blow.base_damage(shielded, shielded.sheet("a"), shielded.sheet("v"), 70) == (
        roll * 70 // 100)


def test_r_melee_3_protections_then_the_weapons_material(duel):
    """R-MELEE-3 / R-IMM-9: protections first (sanctuary halves 13 to 6), then the
    wielded weapon's material: iron against a victim vulnerable to iron adds half (9)."""
    world = duel(TOUGH + '\nwield = "mace"', TOUGH + '\naffects = ["sanctuary"]\nvuln = ["iron"]',
                 extra=SURE)
    world.rules.add_modifier("melee", fixed_damage(13))
    world.start_fight("a", "v")
    world.tick()
    first = kinds(world, "damage")[0]
    assert (first["source"], first["raw"], first["amount"]) == ("a", 13, 9)


def test_r_melee_4_position_multiplier_once_after_everything(duel):
    """R-MELEE-4: asleep x2, resting or sitting x3/2 (truncated), applied once after the
    protections; a standing victim takes the plain value."""
    results = {}
    for position in ("standing", "sitting", "resting", "sleeping"):
        world = duel(TOUGH, f'{TOUGH}\nposition = "{position}"', extra=SURE)
        world.rules.add_modifier("melee", fixed_damage(13))
        world.sheet("a").combat.fighting = "v"
        world.fighting.add(world.sheet("a").entity)
        world.tick()
        results[position] = kinds(world, "damage")[0]["amount"]
    # 13 -> flat trim 10 -> standing 10, sitting/resting 15, sleeping 20
    assert results == {"standing": 10, "sitting": 15, "resting": 15, "sleeping": 20}
    hit = world.sheet("v")
    hit.vitals.position = "sleeping"  # the blow above woke it
    assert blow.position_multiplier(hit, 7) == 14
    hit.vitals.position = "resting"
    assert blow.position_multiplier(hit, 7) == 10


def test_r_melee_4_orig_dam_gets_the_same_position_factor(duel):
    """R-MELEE-4: the pre-protection value (`orig_dam`, read by vampiric drain) gets the
    same factor as the damage: 13 before protections (trim: 10 after); sitting: orig 19
    (13 x 3/2 truncated), damage 15; asleep: orig 26, damage 20; standing: 13 and 10."""
    seen = {}
    for position in ("standing", "sitting", "sleeping"):
        world = duel(TOUGH, f'{TOUGH}\nposition = "{position}"', extra=SURE)
        world.rules.add_modifier("melee", fixed_damage(13))
        world.rules.add_hook("post_damage", ("creature", "v"),
                             lambda hit, w, p=position: seen.setdefault(
                                 p, (hit.orig_dam, hit.dam)))
        world.sheet("a").combat.fighting = "v"
        world.fighting.add(world.sheet("a").entity)
        world.tick()
    assert seen == {"standing": (13, 10), "sitting": (19, 15), "sleeping": (26, 20)}


def test_r_melee_5_modifiers_apply_exactly_once_to_every_blow(duel):
    """R-MELEE-5: an "all melee" modifier applies once to each blow, ordinary (a round)
    or special (the samurai's opener, a skill blow through one_hit); an "all damage"
    modifier once to every blow and every damage-pipeline hit."""
    world = duel(TOUGH + '\nprofession = "samurai"\nwield = "katana"', TOUGH, extra=SURE)
    melee_calls, damage_calls = [], []
    world.rules.add_modifier("melee", lambda hit, w: melee_calls.append(hit.cause))
    world.rules.add_modifier("damage", lambda hit, w: damage_calls.append(hit.cause))
    world.submit(affray.Attack(actor="v", target="a"))  # the samurai opens
    world.tick()  # opener + round 0: a and v one blow each
    world.damage("a", "v", 5, "fire", ("spell", "magic"), cause="spell")
    blows = len([e for e in kinds(world, "damage") if e["cause"] == "melee"])
    assert blows == 3
    assert melee_calls == ["melee"] * 3
    assert damage_calls == ["melee"] * 3 + ["spell"]


def test_r_melee_6_assassinate_type_hits_go_through_the_damage_pipeline(duel):
    """R-MELEE-6: a melee-like skill dealt through the damage pipeline (world.damage
    with the weapon flag) meets no defence chain, while an ordinary blow is defended."""
    world = duel(TOUGH, TOUGH, extra=SURE)
    world.rules.defences.add("always", lambda w, hit: True)
    amount = world.damage("a", "v", 30, "pierce", ("weapon",), cause="melee")
    assert amount == 24  # flat trim only
    world.start_fight("a", "v")
    world.tick()
    assert len(kinds(world, "defended")) == 2
    assert len(kinds(world, "damage")) == 1


def test_r_melee_7_a_samurai_caught_outside_a_fight_cuts_first(duel):
    """R-MELEE-7: attacked outside a fight, an armed samurai's opener blow lands before
    the attacker's first blow; a samurai already fighting, or unarmed, gets none."""
    world = duel(TOUGH + '\nprofession = "samurai"\nwield = "katana"', TOUGH, extra=SURE)
    world.submit(affray.Attack(actor="v", target="a"))
    world.tick()
    order = [e["source"] for e in kinds(world, "damage")]
    assert order == ["a", "a", "v"]  # opener, then round 0 in spawn order
    bare = duel(TOUGH + '\nprofession = "samurai"', TOUGH, extra=SURE)
    bare.submit(affray.Attack(actor="v", target="a"))
    bare.tick()
    assert [e["source"] for e in kinds(bare, "damage")] == ["a", "v"]


def test_r_melee_8_a_flaming_weapon_carries_fire_but_no_magic_rules(make_world):
    """R-MELEE-8 / R-IMM-5: a fire weapon's blow is fire for immunity (imm fire blocks
    it) but sets no one burning and melts no ice."""
    text = ('[map]\nrows = ["..__."]\n[content.items.flame_tongue]\nclass = "weapon"\n'
            'material = "steel"\ndamage = "2d6"\ndamage_type = "fire"\nweapon_class = "sword"\n'
            f'[[creatures]]\nid = "a"\nat = [1, 0]\n{TOUGH}\nwield = "flame_tongue"\n'
            f'[[creatures]]\nid = "v"\nat = [2, 0]\n{TOUGH}\n'
            f'[[creatures]]\nid = "w"\nat = [3, 0]\n{TOUGH}\nimm = ["fire"]\n' + SURE)
    world = make_world(text)
    world.start_fight("a", "v")
    world.run(pulses=25)
    fire_blows = [e for e in kinds(world, "damage") if e["source"] == "a"]
    assert fire_blows and all(e["damage_type"] == "fire" for e in fire_blows)
    assert world.snapshot()["creatures"]["v"]["statuses"] == {}
    assert world.snapshot()["map"] == ["..__."]
    assert kinds(world, "status", "terrain") == []
    immune = make_world(text.replace('id = "v"\nat = [2, 0]', 'id = "v"\nat = [0, 0]')
                        .replace('id = "w"\nat = [3, 0]', 'id = "w"\nat = [2, 0]'))
    immune.start_fight("a", "w")
    immune.tick()
    assert kinds(immune, "immune")[0] == {"pulse": 0, "kind": "immune", "source": "a",
                                          "target": "w", "damage_type": "fire"}


def test_r_imm_5_a_punch_is_bash(duel):
    """R-IMM-5: a bare-handed blow is bash, so imm bash blocks it whatever the weapon bit."""
    world = duel(TOUGH, TOUGH + '\nimm = ["bash"]', extra=SURE)
    world.sheet("v").combat.fighting = None
    world.sheet("a").combat.fighting = "v"
    world.fighting.add(world.sheet("a").entity)
    world.tick()
    assert kinds(world, "immune") == [{"pulse": 0, "kind": "immune", "source": "a",
                                       "target": "v", "damage_type": "bash"}]


def test_death_leaves_a_corpse_frees_the_cell_and_ends_the_fight(duel):
    """An NPC at 0 hp dies: a `death` event, a corpse (class food) on its cell, the cell
    free, its attacker no longer fighting it."""
    world = duel(TOUGH, "level = 10\nhp = 3", extra=SURE)
    world.rules.add_modifier("melee", fixed_damage(3))
    world.start_fight("a", "v")
    world.run(pulses=13)
    snap = world.snapshot()
    assert snap["creatures"]["v"]["alive"] is False
    assert snap["items"] == [{"at": [2, 1], "item": "corpse", "count": 1}]
    assert world.grid.occupant[1, 2] == 0
    assert world.sheet("a").combat.fighting is None
    assert world.content.item_class_is(world.content.items["corpse"].class_, "food")


def test_a_player_at_zero_hp_follows_the_position_ladder(duel):
    """A player below 1 hp is stunned, then incapacitated (-3), mortally wounded (-6),
    and dead at -11 (the source's update_pos)."""
    world = duel("", 'player = true\nhp = 10\nmax_hp = 10')
    steps = []
    for amount in (10, 3, 3, 4):
        world.damage(None, "v", amount, "harm", cause="raw")
        steps.append(world.sheet("v").vitals.position)
    assert steps == ["stunned", "incap", "mortal", "mortal"]
    with pytest.raises(VictimDeath):
        world.damage(None, "v", 1, "harm", cause="raw")
    assert world.snapshot()["creatures"]["v"]["hp"] == -11


def test_an_immortal_never_drops_below_one(duel):
    """An immortal stays at 1 hp or more."""
    world = duel("", "hp = 10\nimmortal = true")
    world.damage(None, "v", 50, "harm", cause="raw")
    assert world.snapshot()["creatures"]["v"]["hp"] == 1


def test_r_time_3_on_fight_hooks_run_even_when_a_stun_costs_the_blows(duel):
    """R-TIME-3: the on-fight hooks run after the fighter's round, blows or not."""
    world = duel(TOUGH + '\naffects = ["stun"]', TOUGH, extra=SURE)
    calls: list[int] = []
    world.rules.add_hook("on_fight", ("creature", "a"), lambda f, w: calls.append(w.pulse))
    world.start_fight("a", "v")
    world.run(pulses=25)
    assert calls == [0, 12, 24]
    assert [e["pulse"] for e in kinds(world, "damage") if e["source"] == "a"] == [24]


def test_a_sleeping_or_incapacitated_fighter_deals_no_blows(duel):
    """Asleep or worse (a player at 0 hp is "stunned", "incap"...), no blows: a sleeping
    fighter that nobody attacks (its foe sleeps too, so it never fights back to wake it,
    R-ACT-1) never strikes."""
    world = duel(TOUGH + '\nposition = "sleeping"', TOUGH + '\nposition = "sleeping"')
    world.start_fight("a", "v")
    world.run(pulses=25)
    assert world.sheet("a").combat.fighting == "v"
    assert world.sheet("v").combat.fighting is None  # a sleeper is woken by a blow only
    assert kinds(world, "damage", "miss") == []
    incap = duel(TOUGH, 'player = true\nhp = 500\nposition = "incap"', extra=SURE)
    incap.start_fight("a", "v")
    incap.run(pulses=25)
    assert {e["source"] for e in kinds(incap, "damage", "miss")} == {"a"}


def _expected_weapon_damage(clone: Rng, dice: tuple[int, int], skill: int, sharp: bool,
                            holy: bool) -> int:
    dam = clone.dice(*dice) * skill // 100 * 21 // 20  # no shield
    if sharp:
        p = clone.percent()
        if p <= skill // 8:
            dam = 2 * dam + dam * 2 * p // 100
    if holy and clone.percent() < 30:
        dam += dam * 120 // 100
    return dam


def test_r_melee_3_sharp_and_holy_weapons(duel):
    """R-MELEE-3: a sharp weapon doubles (and more) on number_percent() <= skill/8; a
    holy weapon in a good hand against an evil victim adds 120% on number_percent() < 30.
    Replayed draw for draw from a copy of the generator, over many seeds."""
    holy_item = ('[content.items.dawnblade]\nclass = "weapon"\nmaterial = "steel"\n'
                 'damage = "3d6"\ndamage_type = "slash"\nweapon_class = "sword"\n'
                 'sharp = true\nholy = true\n')
    sharpened = crits = 0
    for seed in range(300):
        world = duel('player = true\nalignment = 900\nwield = "dawnblade"\n'
                     'skills = { sword = 100 }', "alignment = -900", extra=holy_item,
                     seed=seed)
        clone = Rng.from_state(world.rng.state())
        expected = _expected_weapon_damage(clone, (3, 6), 120, sharp=True, holy=True)
        got = blow.base_damage(world, world.sheet("a"), world.sheet("v"), 120)
        assert got == expected
        plain = _expected_weapon_damage(Rng.from_state(world.rng.state()), (3, 6), 120,
                                        sharp=False, holy=False)
        sharpened += got > plain * 2
        crits += got > plain
        world.close()
    assert 0 < sharpened < crits < 300  # both effects happen, and not always
    neutral = duel('player = true\nwield = "dawnblade"\nskills = { sword = 100 }',
                   "alignment = -900", extra=holy_item, seed=1)
    clone = Rng.from_state(neutral.rng.state())
    assert blow.base_damage(neutral, neutral.sheet("a"), neutral.sheet("v"), 120) == (
        _expected_weapon_damage(clone, (3, 6), 120, sharp=True, holy=False))
