"""The scalar blow's new fast paths (issue 11), pinned where the mutation pass found them
untested: damroll's skill cap at exactly 101, the strength table's clamps written out,
the victim's movement brought up to date before its defences read it, and the Hit a
melee modifier sees (R-MELEE-1, R-MELEE-3, R-MELEE-5).
"""

from __future__ import annotations

import pytest
from conftest import last_event
from fixed_draws import fixed_percent

from affray.systems.rules.blow import apply_damroll

SURE = ("[content.fight]\nauto_miss_in_20 = 0\nauto_critical_in_20 = 0\n"
        "[content.fight.armor]\np_floor = 1.0\np_cap = 1.0\n")
# A strength damage table with a distinct value at every index: index i gives i - 20 (so
# strength 20 adds nothing, 0 gives -20, 1 gives -19, 28 gives +8).
STRENGTH_TABLE = f"[content.stats.str]\ndamage = {list(range(-20, 9))}\n"


@pytest.mark.parametrize(("skill", "expected"), [
    (99, 10 + 247),   # 250 * 99 / 100 = 247 (truncated)
    (100, 10 + 250),
    (101, 10 + 250),  # capped at 100: not 250 * 101 / 100 = 252
    (120, 10 + 250),
])
def test_r_melee_3_damroll_counts_the_skill_up_to_100(duel, skill, expected):
    """R-MELEE-3: dam += damroll * min(100, skill) / 100: a blow's skill (20 + weapon
    skill, up to 120) above 100 counts as 100, from 101 on (strength 20: no bonus)."""
    world = duel("damroll = 250\nstats = { str = 20 }", extra=STRENGTH_TABLE)
    assert apply_damroll(world, world.sheet("a"), 10, skill) == expected


@pytest.mark.parametrize(("strength", "expected"), [
    (-3, 80),   # below the table: index 0, -20%: 100 - 20
    (0, 80),
    (1, 81),    # -19%
    (28, 108),  # +8%
    (29, 108),  # above the table: index 28
    (35, 108),
])
def test_r_melee_3_strength_damage_bonus_clamps_to_the_table(duel, strength, expected):
    """R-MELEE-3: dam += dam * str_app[STR].damage / 100, the stat read as an index
    0..28 (a scenario's stats are 0..28; a game that writes a stat outside them gets the
    nearest end of the table, as `stat_index` gives): damroll 0, 100 damage."""
    world = duel(extra=STRENGTH_TABLE)
    attacker = world.sheet("a")
    attacker.stats.strength = strength
    assert apply_damroll(world, attacker, 100, 100) == expected


def test_r_melee_1_the_victims_movement_is_brought_up_to_date_before_it_defends(duel):
    """R-MELEE-1 / R-DEF-6: a player victim with 0 movement points regenerates at the
    tick (pulse 240) even while idle; struck at pulse 240, its dodge reads the points it
    has now (max(15, level 20) = 20), not the 0 it was last updated with: dodge 80
    (chance 40), a draw of 39 dodges. The attacker is an NPC, which the victim does not
    strike first."""
    world = duel("level = 20\nhp = 1000",
                 'player = true\nlevel = 20\nhp = 1000\nmove = 0\nskills = { dodge = 80 }\n'
                 'stats = { dex = 20 }', extra=SURE)
    world.run(pulses=240)
    assert world.pulse == 240
    fixed_percent(world, 39)
    from affray.systems.rules.blow import one_hit

    one_hit(world, world.sheet("a"), world.sheet("v"))
    assert [e.kind for e in world.events] == ["defended", "fight"]  # R-ACT-1
    assert last_event(world).defence == "dodge"
    assert world.sheet("v").vitals.move == 20


def test_r_melee_5_a_melee_modifier_sees_the_blow_unsettled_and_unsaved(duel):
    """R-MELEE-5: an "all melee" modifier sees the blow's Hit as a spell's modifiers see
    theirs: its raw and original damage not set yet (0), never saved; the blow then
    records what the modifier left as raw damage, and its `damage` event says not saved
    (a blow has no saving throw)."""
    world = duel("level = 20\nhp = 1000", "level = 20\nhp = 1000", extra=SURE)
    seen: list[tuple[int, int, bool]] = []

    def look(hit, w):
        seen.append((hit.raw, hit.orig_dam, hit.saved))
        hit.dam = 7
        hit.critical = False

    world.rules.add_modifier("melee", look)
    from affray.systems.rules.blow import one_hit

    one_hit(world, world.sheet("a"), world.sheet("v"))
    assert seen == [(0, 0, False)]
    damage = last_event(world)
    assert damage.kind == "damage"
    assert (damage.raw, damage.saved) == (7, False)
