"""systems/rules/blow.py after the one-definition rewrite (issue 12): the corners the
mutation pass found untested. damNormalize's memo takes whole numbers only (a modifier's
float and Fraction each keep their type), and the wielded weapon's material pass takes
only a positive hit (R-MELEE-3, R-MELEE-5, R-IMM-9).
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from conftest import last_event

from affray.systems.rules.blow import one_hit

# Every blow hits and none is a critical: no d20 face misses, P is pinned at 1.
SURE = ("[content.fight]\nauto_miss_in_20 = 0\nauto_critical_in_20 = 0\n"
        "[content.fight.armor]\np_floor = 1.0\np_cap = 1.0\n")
TOUGH = "level = 10\nhp = 1000"


def blow_raw(world, value) -> object:
    """One blow of "a" at "v" whose melee modifier leaves `value` (no critical): the raw
    damage its `damage` event logs (the blow's damage after damNormalize)."""
    world.rules.all_melee.clear()

    def leave(hit, w):
        hit.dam = value
        hit.critical = False

    world.rules.add_modifier("melee", leave)
    one_hit(world, world.sheet("a"), world.sheet("v"))
    event = last_event(world)
    assert event.kind == "damage"
    return event.raw


@pytest.mark.parametrize(("first", "second"), [
    (Fraction(37), 37.0),
    (41.0, Fraction(41)),
    (Fraction(-37, 2), 43.0),  # below 1: damNormalize makes it 1; then a float stays one
])
def test_r_melee_3_damnormalize_keeps_a_modifiers_float_or_fraction_its_own(
        duel, first, second):
    """R-MELEE-3 (damNormalize: at least 1) / R-MELEE-5: the blow normalises whole-number
    damage through a memo; a melee modifier that leaves a Fraction or a float goes around
    it, so two blows whose damage is equal but of other types (Fraction(37) == 37.0,
    one hash) each log their own: a float blow after a Fraction one logs a float."""
    world = duel(TOUGH, TOUGH, extra=SURE)
    got_first = blow_raw(world, first)
    got_second = blow_raw(world, second)
    expected_first = first if first >= 1 else 1
    assert (got_first, type(got_first)) == (expected_first, type(expected_first))
    assert (got_second, type(got_second)) == (second, type(second))


@pytest.mark.parametrize(("flags", "left", "expected"), [
    ('vuln = ["iron"]', -11, -11),   # not -11 + (-11)/2 = -16
    ('res = ["iron"]', -11, -11),    # not -11 - (-11)/3 = -8
    ('imm = ["iron"]', -37, -37),    # not 0
    ('vuln = ["iron"]', 11, 12),     # positive: trim 11 -> 8, iron + 8/2 = 12
    ('res = ["iron"]', 37, 20),      # trim 37 -> 29, iron - 29/3 = 20
])
def test_r_imm_9_the_material_pass_takes_only_a_positive_hit(duel, flags, left, expected):
    """R-IMM-9 / R-PROT-5: the wielded weapon's material (a mace: iron) meets the victim's
    flags only on a hit still above 0 after the protections, as in the vectorised round
    (`dam > 0`). A game's on-immune hook that handles the hit and leaves it below 0 keeps
    that value: a vulnerable, resistant or immune victim changes nothing; a positive hit
    the hook leaves goes on through the flat trim and the material pass."""
    world = duel(TOUGH + '\nwield = "mace"', f"{TOUGH}\n{flags}", extra=SURE)

    def handle(hit, w):
        hit.dam = left
        return True

    world.rules.add_hook("on_immune", ("creature", "v"), handle)
    one_hit(world, world.sheet("a"), world.sheet("v"))
    event = last_event(world)
    assert (event.kind, event.amount) == ("damage", expected)
