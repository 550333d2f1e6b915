"""Damage types and immunity (SPEC section 6): aliases, flag collection, resolution,
gear-granted bits, conductor and the weapon's material pass; exact truncating values.

Through `World.damage` a 37-point hit on an unarmoured victim ends in the flat trim
(R-PROT-6): normal 37 -> 29, resisted 37 - 12 = 25 -> 20, vulnerable 37 + 18 = 55 -> 44.
"""

from __future__ import annotations

import pytest
from conftest import fixed_blow, last_event, make_hit

from affray.components import Immunities
from affray.systems.rules import immunity
from affray.systems.rules.blow import one_hit
from affray.systems.rules.protections import immune

NORMAL, RESISTED, VULNERABLE = 29, 20, 44  # 37 after the table and the flat trim


# ---------------------------------------------------------------------------------------
# R-IMM-1: damage types and aliases


@pytest.mark.parametrize(("imm", "damage_type", "canonical"), [
    ('["lightning"]', "electricity", "lightning"),
    ('["electricity"]', "lightning", "lightning"),
    ('["negative"]', "necrotic", "negative"),
    ('["necrotic"]', "negative", "negative"),
    ('["energy"]', "force", "energy"),
    ('["force"]', "energy", "energy"),
])
def test_r_imm_1_aliases(duel, imm, damage_type, canonical):
    """R-IMM-1: electricity = lightning, necrotic = negative, force = energy, both in a
    hit's type and in a creature's immunity list; the event names the canonical type."""
    world = duel(victim=f"imm = {imm}\nhp = 100")
    assert world.damage("a", "v", 37, damage_type, ("spell", "magic")) == 0
    event = last_event(world).to_dict()
    assert (event["kind"], event["damage_type"]) == ("immune", canonical)
    assert world.sheet("v").vitals.hp == 100


def test_r_imm_1_alias_resistance_and_other_types_unaffected(duel):
    """R-IMM-1: res ["electricity"] resists lightning (37 -> 20) but not fire (29)."""
    world = duel(victim='res = ["electricity"]\nhp = 100')
    assert world.damage("a", "v", 37, "lightning", ("spell",)) == RESISTED
    assert world.damage("a", "v", 37, "fire", ("spell",)) == NORMAL


def test_r_imm_1_type_list(duel):
    """R-IMM-1: the twenty damage types, in the source's order."""
    world = duel()
    assert list(world.content.damage.types) == [
        "none", "bash", "pierce", "slash", "fire", "cold", "lightning", "acid", "poison",
        "negative", "holy", "energy", "mental", "disease", "drowning", "light", "other",
        "harm", "charm", "sound"]


# ---------------------------------------------------------------------------------------
# R-IMM-2: flag collection


@pytest.mark.parametrize(("res", "flags", "damage_type", "expected"), [
    # spell flag: any one of spell, magic, prayer counts.
    ('["magic"]', ("spell",), "fire", RESISTED),
    ('["prayer"]', ("spell",), "fire", RESISTED),
    ('["spell"]', ("spell",), "fire", RESISTED),
    # prayer flag: prayer and spell, not magic.
    ('["prayer"]', ("prayer",), "fire", RESISTED),
    ('["spell"]', ("prayer",), "fire", RESISTED),
    ('["magic"]', ("prayer",), "fire", NORMAL),
    # magic flag: magic and spell, not prayer.
    ('["magic"]', ("magic",), "fire", RESISTED),
    ('["spell"]', ("magic",), "fire", RESISTED),
    ('["prayer"]', ("magic",), "fire", NORMAL),
    # weapon flag: the weapon bit only.
    ('["weapon"]', ("weapon",), "other", RESISTED),
    ('["weapon"]', ("spell",), "other", NORMAL),
    ('["spell"]', ("weapon",), "other", NORMAL),
    # water flag: drowning.
    ('["drowning"]', ("water",), "other", RESISTED),
    ('["drowning"]', ("other",), "other", NORMAL),
    # the type's own bit, whatever the flags.
    ('["fire"]', ("other",), "fire", RESISTED),
    ('["cold"]', ("other",), "fire", NORMAL),
])
def test_r_imm_2_flag_collection(duel, res, flags, damage_type, expected):
    """R-IMM-2: which immunity bits a hit's flags and type are checked against."""
    world = duel(victim=f"res = {res}\nhp = 100")
    assert world.damage("a", "v", 37, damage_type, flags) == expected


def test_r_imm_2_hit_bits_masks(duel):
    """R-IMM-2: the collected masks, bit by bit."""
    world = duel()
    content = world.content
    bits = content.bits

    def mask(damage_type, *flags):
        return immunity.hit_bits(content, damage_type, immunity.flags_of(flags))

    any_spell = bits["spell"] | bits["magic"] | bits["prayer"]
    assert mask("fire", "spell") == any_spell | bits["fire"]
    assert mask("fire", "prayer") == bits["prayer"] | bits["spell"] | bits["fire"]
    assert mask("fire", "magic") == bits["magic"] | bits["spell"] | bits["fire"]
    assert mask("bash", "weapon") == bits["weapon"] | bits["bash"]
    assert mask("cold", "water") == bits["drowning"] | bits["cold"]
    assert mask("poison") == bits["poison"]
    assert mask("other", "other") == 0
    assert mask("harm") == 0
    assert mask("other", "weapon") == bits["weapon"]
    assert mask("none", "spell", "weapon", "water") is None


def test_r_imm_2_none_skips_the_whole_check(duel):
    """R-IMM-2: type none skips the check even with flags whose bits are immune."""
    world = duel(victim='imm = ["spell", "weapon", "drowning"]\nhp = 100')
    assert world.damage("a", "v", 37, "none", ("spell", "weapon", "water")) == NORMAL
    assert last_event(world).kind == "damage"


def test_r_imm_2_other_and_harm_have_no_bit(duel):
    """R-IMM-2: other and harm have no bit: a victim immune to every bit still takes an
    unflagged hit of either (37 -> 29); with the spell flag the spell bit still counts."""
    every = list(duel().content.bits)
    world = duel(victim=f"imm = {every}\nhp = 100")
    assert world.damage("a", "v", 37, "other", ("other",)) == NORMAL
    assert world.damage("a", "v", 37, "harm", ("other",)) == NORMAL
    assert world.damage("a", "v", 37, "harm", ("spell",)) == 0
    assert last_event(world).kind == "immune"


def test_r_imm_2_other_and_harm_are_not_bit_names(duel):
    """R-IMM-2: "other" and "harm" name no bit, so a creature cannot list them."""
    from affray.core.errors import ScenarioError

    with pytest.raises(ScenarioError, match="immunity bit 'harm'"):
        duel(victim='imm = ["harm"]')


# ---------------------------------------------------------------------------------------
# R-IMM-3: resolution


@pytest.mark.parametrize(("victim", "expected"), [
    ('imm = ["fire"]', 0),
    ('imm = ["fire"]\nres = ["fire"]\nvuln = ["fire"]', 0),
    ('imm = ["spell"]\nvuln = ["fire"]', 0),         # immune via another bit still wins
    ('res = ["fire"]\nvuln = ["fire"]', NORMAL),
    ('res = ["spell"]\nvuln = ["fire"]', NORMAL),    # cancel across bits too
    ('res = ["fire"]', RESISTED),                     # 37 - 12 = 25 -> 20
    ('vuln = ["fire"]', VULNERABLE),                  # 37 + 18 = 55 -> 44
    ('vuln = ["fire", "spell"]', VULNERABLE),
])
def test_r_imm_3_resolution(duel, victim, expected):
    """R-IMM-3: immune beats everything and zeroes; resistant with vulnerable is normal;
    resistant takes a third off, vulnerable adds a half."""
    world = duel(victim=f"{victim}\nhp = 100")
    assert world.damage("a", "v", 37, "fire", ("spell",)) == expected
    assert last_event(world).kind == ("immune" if expected == 0 else "damage")


@pytest.mark.parametrize(("outcome", "dam", "expected"), [
    (immunity.RESISTANT, 37, 25),
    (immunity.RESISTANT, 7, 5),
    (immunity.RESISTANT, 2, 2),     # 2 - 2/3 = 2 - 0
    (immunity.VULNERABLE, 37, 55),
    (immunity.VULNERABLE, 7, 10),
    (immunity.VULNERABLE, 1, 1),    # 1 + 1/2 = 1 + 0
    (immunity.IMMUNE, 37, 0),
    (immunity.NORMAL, 37, 37),
])
def test_r_imm_3_exact_amounts(outcome, dam, expected):
    """R-IMM-3: dam - dam/3 and dam + dam/2, truncating, on odd values."""
    assert immunity.apply(outcome, dam) == expected


def test_r_imm_3_small_hits_untrimmed(duel):
    """R-IMM-3: 7 resisted -> 5 and 7 vulnerable -> 10 reach the victim (no trim)."""
    world = duel(victim='res = ["cold"]\nvuln = ["fire"]\nhp = 100')
    assert world.damage("a", "v", 7, "cold", ("spell",)) == 5
    assert world.damage("a", "v", 7, "fire", ("spell",)) == 10


# ---------------------------------------------------------------------------------------
# R-IMM-4: no stacking


def test_r_imm_4_resists_do_not_stack(duel):
    """R-IMM-4: res weapon and res bash on a weapon bash hit cut once: 37 -> 25 -> 20
    (stacked would be 25 - 8 = 17 -> 13)."""
    world = duel(victim='res = ["weapon", "bash"]\nhp = 100')
    assert world.damage("a", "v", 37, "bash", ("weapon",)) == RESISTED
    assert immunity.resolve(
        immunity.hit_bits(world.content, "bash", immunity.WEAPON),
        0, world.sheet("v").res_mask(), 0) == immunity.RESISTANT


def test_r_imm_4_vulnerabilities_do_not_stack(duel):
    """R-IMM-4: vuln spell, magic and fire on a spell fire hit add one half: 55 -> 44."""
    world = duel(victim='vuln = ["spell", "magic", "fire"]\nhp = 100')
    assert world.damage("a", "v", 37, "fire", ("spell", "magic")) == VULNERABLE


# ---------------------------------------------------------------------------------------
# R-IMM-5: a melee blow is physical


def _blows(world, count=12):
    """Strike `count` blows from a at v; the events they logged (the blows', not the
    `fight` event of v starting to fight back after the first, R-ACT-1)."""
    start = len(world.events)
    for _ in range(count):
        one_hit(world, world.sheet("a"), world.sheet("v"))
    return [event.to_dict() for event in world.events[start:] if event.kind != "fight"]


def test_r_imm_5_bare_hands_are_bash(duel):
    """R-IMM-5: a bare-handed blow is bash: imm ["bash"] blocks every blow that lands,
    though the victim has no weapon immunity."""
    world = duel(attacker="level = 30\nhitroll = 20", victim='imm = ["bash"]\nhp = 5000',
                 seed=3)
    events = _blows(world)
    kinds = {event["kind"] for event in events}
    assert kinds <= {"immune", "miss"}
    immune_events = [event for event in events if event["kind"] == "immune"]
    assert len(immune_events) >= 6
    assert all(event["damage_type"] == "bash" for event in immune_events)
    assert world.sheet("v").vitals.hp == 5000


def test_r_imm_5_bare_hands_hurt_without_the_bit(duel):
    """R-IMM-5 (control): the same seeded blows on a victim immune to pierce, slash and
    fire do land with damage."""
    world = duel(attacker="level = 30\nhitroll = 20",
                 victim='imm = ["pierce", "slash", "fire"]\nhp = 5000', seed=3)
    events = _blows(world)
    hits = [event for event in events if event["kind"] == "damage"]
    assert hits and all(event["amount"] > 0 for event in hits)
    assert all(event["damage_type"] == "bash" for event in hits)


def test_r_imm_5_weapon_blow_blocked_by_its_type(duel):
    """R-IMM-5: a mace blow (bash) on imm ["bash"] is immune regardless of the weapon bit."""
    world = duel(attacker='level = 30\nhitroll = 20\nwield = "mace"',
                 victim='imm = ["bash"]\nhp = 5000', seed=5)
    events = _blows(world)
    assert {event["kind"] for event in events} <= {"immune", "miss"}
    assert any(event["kind"] == "immune" for event in events)


# ---------------------------------------------------------------------------------------
# R-IMM-6: gear-granted immunity


def test_r_imm_6_gear_resistance_survives_a_dispel(duel):
    """R-IMM-6: a ring granting res cold keeps resisting (37 -> 20) after the creature's
    own bits are cleared, while its own fire resistance is gone (29)."""
    world = duel(victim='wear = ["ring_of_warmth"]\nres = ["fire"]\nhp = 200')
    assert world.damage("a", "v", 37, "cold", ("spell",)) == RESISTED
    assert world.damage("a", "v", 37, "fire", ("spell",)) == RESISTED
    own = world.component("v", Immunities)
    assert own.res == world.content.bits["fire"]  # the ring's bit is not folded in
    own.res = 0  # a dispel of the creature's own immunities
    assert world.damage("a", "v", 37, "cold", ("spell",)) == RESISTED
    assert world.damage("a", "v", 37, "fire", ("spell",)) == NORMAL


def test_r_imm_6_only_while_worn(duel):
    """R-IMM-6: the granted resistance lasts while the ring is worn: taken off (gear
    refreshed), cold is normal again."""
    world = duel(victim='wear = ["ring_of_warmth"]\nhp = 200')
    sheet = world.sheet("v")
    assert world.damage("a", "v", 37, "cold", ("spell",)) == RESISTED
    sheet.equipment.worn.clear()
    sheet.refresh_gear(world.content)
    assert world.damage("a", "v", 37, "cold", ("spell",)) == NORMAL


# ---------------------------------------------------------------------------------------
# R-IMM-8: conductor


@pytest.mark.parametrize(("victim", "damage_type", "dam", "expected"), [
    ("", "lightning", 37, 28),                       # 37 - 9
    ('res = ["lightning"]', "lightning", 20, 11),    # table first: 14 - 3 (not 15 - 5)
    ('vuln = ["lightning"]', "lightning", 37, 42),   # 55 - 13
    ("", "fire", 37, 37),
    ("", "energy", 37, 37),
])
def test_r_imm_8_conductor_cut_after_table(duel, victim, damage_type, dam, expected):
    """R-IMM-8: a conductor resists lightning a further dam/4, taken after the table."""
    world = duel(victim=f'affects = ["conductor"]\n{victim}')
    hit = make_hit(world, dam, damage_type)
    immune(hit, world)
    assert hit.dam == expected


def test_r_imm_8_conductor_alias_and_pipeline(duel):
    """R-IMM-8: through the pipeline an electricity hit on a conductor: 37 -> 28 -> 22;
    without the affect 29; immune stays immune."""
    world = duel(victim='affects = ["conductor"]\nhp = 100')
    assert world.damage("a", "v", 37, "electricity", ("spell",)) == 22
    plain = duel(victim="hp = 100")
    assert plain.damage("a", "v", 37, "electricity", ("spell",)) == NORMAL
    shielded = duel(victim='affects = ["conductor"]\nimm = ["lightning"]\nhp = 100')
    assert shielded.damage("a", "v", 37, "lightning", ("spell",)) == 0
    assert last_event(shielded).kind == "immune"


# ---------------------------------------------------------------------------------------
# R-IMM-9: the wielded weapon's material


@pytest.mark.parametrize(("victim", "weapon", "kind", "amount"), [
    ('vuln = ["iron"]', "mace", "damage", 13),         # 12 -> trim 9 -> 9 + 4
    ('res = ["iron"]', "mace", "damage", 6),           # 9 - 3
    ('imm = ["iron"]', "mace", "immune", 0),
    ('vuln = ["iron"]', "long_sword", "damage", 13),   # steel names the iron bit
    ('vuln = ["iron"]', "silver_dagger", "damage", 9),
    ('vuln = ["silver"]', "silver_dagger", "damage", 13),
    ("", "mace", "damage", 9),
])
def test_r_imm_9_material_pass(duel, victim, weapon, kind, amount):
    """R-IMM-9: the weapon's material bits meet the victim's flags with R-IMM-3, after
    the protections: raw 12 -> trim 9 -> vulnerable 13 (before the trim it would be
    18 -> 14)."""
    world = duel(attacker=f'level = 30\nhitroll = 20\nwield = "{weapon}"',
                 victim=f"{victim}\nhp = 500", seed=2)
    event = fixed_blow(world)
    assert event["kind"] == kind
    if kind == "damage":
        assert (event["raw"], event["amount"]) == (12, amount)


def test_r_imm_9_material_pass_is_separate_from_the_type(duel):
    """R-IMM-9: a victim resistant to bash and vulnerable to iron meets both passes, one
    after the other: 37 -> 25 (bash) -> trim 20 -> iron +10 = 30; in one pass they would
    cancel to 29."""
    world = duel(attacker='level = 30\nhitroll = 20\nwield = "mace"',
                 victim='res = ["bash"]\nvuln = ["iron"]\nhp = 500', seed=2)
    event = fixed_blow(world, dam=37)
    assert (event["kind"], event["raw"], event["amount"]) == ("damage", 37, 30)


def test_r_imm_9_bare_hands_have_no_material(duel):
    """R-IMM-9: without a wielded weapon there is no material pass: vuln iron does
    nothing to a punch (12 -> 9)."""
    world = duel(attacker="level = 30\nhitroll = 20", victim='vuln = ["iron"]\nhp = 500',
                 seed=2)
    event = fixed_blow(world)
    assert (event["kind"], event["raw"], event["amount"]) == ("damage", 12, 9)
