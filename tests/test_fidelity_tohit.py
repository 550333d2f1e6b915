"""To-hit at its exact boundaries (issue 9; R-HIT-1..5): the tests the mutation run of
systems/rules/tohit.py asked for."""

from __future__ import annotations

import pytest
from fixed_draws import PinnedRng

from affray.systems.rules import tohit

SURE = ("[content.fight]\nauto_miss_in_20 = 0\nauto_critical_in_20 = 0\n"
        "[content.fight.armor]\np_floor = 1.0\np_cap = 1.0\n")


class ScriptedRng:
    """number_range and random from a script (for the d20 and its middle faces)."""

    def __init__(self, uniforms: list[float]) -> None:
        self.uniforms = list(uniforms)

    def random(self) -> float:
        return self.uniforms.pop(0)

    def number_range(self, low: int, high: int) -> int:
        return low + int(self.random() * (high - low + 1))


def test_stat_tables_index_the_stat_clamped_to_0_28():
    """The stat tables cover 0..28; an index outside is clamped (a stat a game changes
    at run time past the bounds reads the end of the table)."""
    assert [tohit.stat_index(v) for v in (-3, 0, 1, 27, 28, 29, 40)] == [
        0, 0, 1, 27, 28, 28, 28]


def test_r_hit_5_middle_faces_hit_below_the_rescaled_chance(duel):
    """R-HIT-5: P 0.5 with one miss face and one critical face: the middle faces hit when
    a uniform is below (0.5 - 1/20) / (18/20) = 0.5 exactly: 0.4999 hits, 0.5 misses;
    face 0 misses (a hobbit crits), face 19 crits."""
    content = duel().content
    face_5 = 5 / 20
    assert tohit.roll_d20(0.5, False, ScriptedRng([face_5, 0.4999]), content) == (True, False)
    assert tohit.roll_d20(0.5, False, ScriptedRng([face_5, 0.5]), content) == (False, False)
    assert tohit.roll_d20(0.5, False, ScriptedRng([0.0]), content) == (False, False)
    assert tohit.roll_d20(0.5, True, ScriptedRng([0.0]), content) == (True, True)
    assert tohit.roll_d20(0.5, False, ScriptedRng([0.99]), content) == (True, True)
    assert tohit.roll_d20(0.5, False, ScriptedRng([18 / 20, 0.4999]), content) == (True, False)


def test_r_hit_4_the_power_curve_exactly_and_its_edges(duel):
    """R-HIT-4: P = acc^pow / (acc^pow + ev^pow): pow 3, acc 2, ev 1: 8/9; pow 2: 4/5;
    accuracy 1 (p_floor 0): 1/101 against 10; evasion 0 or less: 1; accuracy 0 or
    less: 0 (then clamped)."""
    band = "[content.fight.armor]\np_floor = 0.0\np_cap = 1.0\n"
    open_band = duel(extra=band).content
    cubed = duel(extra=band + "hit_pow = 3.0\n").content

    def chance(acc, ev, content):
        return tohit.hit_chance(acc, ev, content)

    assert chance(2.0, 1.0, cubed) == pytest.approx(8 / 9)
    assert chance(2.0, 1.0, open_band) == pytest.approx(4 / 5)
    assert chance(1.0, 10.0, open_band) == pytest.approx(1 / 101)
    assert chance(2.0, 0.5, open_band) == pytest.approx(16 / 17)
    assert chance(2.0, 0.0, open_band) == 1.0
    assert chance(0.0, 5.0, open_band) == 0.0


def test_r_hit_3_blind_fighting_and_armor_use_rolls(duel):
    """R-HIT-3 / R-HIT-1: a blind attacker fails blind fighting unless number_percent() <
    effective (60: 59 passes, 60 fails); a seeing one rolls nothing. Armor use needs
    effective above 1 and number_percent() < effective."""
    world = duel('affects = ["blind"]', "")
    blind, seeing = world.sheet("a"), world.sheet("v")
    assert tohit.blind_fails(blind, PinnedRng(1, 59), 60) is False
    assert tohit.blind_fails(blind, PinnedRng(1, 60), 60) is True
    quiet = PinnedRng(1, 100)
    assert tohit.blind_fails(seeing, quiet, 60) is False and quiet.draws == 0
    assert tohit.armor_use_succeeds(seeing, PinnedRng(1, 1), 1) is False
    assert tohit.armor_use_succeeds(seeing, PinnedRng(1, 1), 2) is True


def test_r_hit_3_evasion_is_whole_while_fighting_with_one_movement_point(duel):
    """R-HIT-3: evasion is halved below fighting or at 0 movement, not while fighting,
    not with 1 point left; remort levels count in the victim's level."""
    knobs = "[content.fight.armor]\nev_level = 1.4\nev_dex = 1.0\n"
    world = duel("", "level = 50\nstats = { dex = 20 }\nmove = 1", extra=knobs)
    victim, content = world.sheet("v"), world.content
    victim.vitals.position = "fighting"
    assert tohit.evasion(victim, content, False) == pytest.approx(1.4 * 50 + 25)
    remorts = duel("", "level = 40\nremorts = 10\nstats = { dex = 20 }", extra=knobs)
    assert tohit.evasion(remorts.sheet("v"), content, False) == pytest.approx(1.4 * 50 + 25)


def test_r_hit_2_class_base_counts_remort_levels(duel):
    """R-HIT-2: classBase = 20 - interpolate(level + remorts, thac00, thac32): a warrior
    of level 24 with 8 remorts is level 32: 20 - (-10) = 30."""
    world = duel('profession = "warrior"\nlevel = 24\nremorts = 8', "")
    assert tohit.class_base(world.sheet("a")) == 30


def test_r_hit_1_a_legacy_hit_is_never_a_critical(duel):
    """R-HIT-1 end to end: the legacy model has no damage critical: every blow that lands
    deals the plain value (13 before protections: 10), and no event says critical."""
    extra = '[content.fight]\nmodel = "legacy"\n'
    world = duel("hitroll = 500\nlevel = 30\nhp = 1000", "hp = 5000", extra=extra)
    world.rules.add_modifier("melee", lambda hit, w: setattr(hit, "dam", 13))
    world.start_fight("a", "v")
    world.run(pulses=200)
    blows = [e for e in world.events if e.kind == "damage" and e.source == "a"]
    assert len(blows) > 10
    assert {(e.amount, e.critical) for e in blows} == {(10, False)}
