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
    never = PinnedRng(1, 1)
    assert tohit.armor_use_succeeds(seeing, never, 1) is False and never.draws == 0
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


class StubRng:
    """Every percent draw is `pct`, every d20 face `face`, every uniform `u`."""

    def __init__(self, pct: int = 100, face: int = 10, u: float = 0.5) -> None:
        self.pct, self.face, self.u = pct, face, u
        self.percents = 0

    def percent(self) -> int:
        self.percents += 1
        return self.pct

    def number_range(self, low: int, high: int) -> int:
        return self.face

    def random(self) -> float:
        return self.u


def lowest_hitting_face(world, pct: int = 100, column: str = "bash") -> int:
    """R-HIT-1: the lowest d20 face (1..18) on which a's legacy blow hits v."""
    a, v = world.sheet("a"), world.sheet("v")
    blind = 0 if "blind" not in a.affects.levels else 50
    armor_use = v.skills.learned.get("armor_use", 0)
    for face in range(1, 19):
        roll = tohit.roll_legacy(a, v, 100, column, StubRng(pct, face), world.content,
                                 blind, armor_use)
        if roll.hit:
            return face
    return 19


LEGACY = '[content.fight]\nmodel = "legacy"\n'
# A mobile of level 24 with hitroll 12 (hr = 12 - 24/2 = 0) and a 100 skill: thac0 2.
MOBILE = 'profession = "mobile"\nlevel = 24\nhitroll = 12'
MOBILE_HR0 = 'profession = "mobile"\nlevel = 24\nhitroll = 0'


def test_r_hit_1_legacy_thac0_compression_boundaries(duel):
    """R-HIT-1: thac0 = interpolate(L, thac00, thac32), halved below 0, then below -5
    compressed to -5 + (thac0 + 5)/2 (truncating): a mobile at 24 is 2 (untouched); a
    warrior at 35 is -12 -> -6 -> -5; at 34, -11 -> -5 (not compressed); hitroll and
    strength: hr 50 at STR 20 (+4%) -> 52, skill 120 -> 62 off."""
    def thac0(attacker: str, skill: int = 100) -> int:
        world = duel(attacker, "")
        return tohit.legacy_thac0(world.sheet("a"), skill, world.content)

    assert thac0(MOBILE) == 2
    assert thac0('profession = "warrior"\nlevel = 35\nhitroll = 17') == -5
    assert thac0('profession = "warrior"\nlevel = 34\nhitroll = 17') == -5
    # warrior 35: -5; hr = 67 - 17 = 50; 50 + 50*4/100 = 52; 52*120/100 = 62; skill
    # term 5*(100-120)/100 = -1: -5 - 62 - 1 = -68
    assert thac0('profession = "warrior"\nlevel = 35\nhitroll = 67\nstats = { str = 20 }',
                 120) == -68


def test_r_hit_1_legacy_armor_class_dex_only_awake_and_compression(duel):
    """R-HIT-1: AC/10 of the column plus the dex defensive bonus while awake (DEX 20:
    -50), compressed below -20: armor 210 -> -21 -> ((-1)*2)/3 - 20 = -20; armor 200
    and DEX 20 awake: -25 -> -23; the same asleep: -20."""
    def ac(victim: str) -> int:
        world = duel("", victim)
        return tohit.legacy_armor_class(world.sheet("v"), "bash", world.content)

    assert ac("armor = { bash = 210 }\nstats = { dex = 13 }") == -20
    assert ac("armor = { bash = 200 }\nstats = { dex = 20 }") == -23
    assert ac('armor = { bash = 200 }\nstats = { dex = 20 }\nposition = "sleeping"') == -20


def test_r_hit_1_legacy_roll_modifiers_move_the_needed_face(duel):
    """R-HIT-1: the blow hits iff face >= thac0 - ac: thac0 2 against AC 0 needs 2;
    armor use (a successful roll) lowers AC by level/2 (level 10: 5 more needed); a
    blind attacker failing blind fighting: 4 more; a victim below fighting: 4 fewer,
    asleep 10 fewer; no movement: 10 fewer; face 0 misses, 19 hits."""
    def needed(victim: str, attacker: str = MOBILE, pct: int = 100) -> int:
        return lowest_hitting_face(duel(attacker, f"level = 10\nstats = {{ dex = 13 }}\n"
                                                  f"{victim}", extra=LEGACY), pct)

    assert needed("") == 2
    assert needed("skills = { armor_use = 100 }", pct=1) == 7
    assert needed("skills = { armor_use = 100 }", pct=100) == 2
    assert needed("", MOBILE + '\naffects = ["blind"]', pct=100) == 6
    assert needed("", MOBILE + '\naffects = ["blind"]', pct=1) == 2
    assert needed('position = "fighting"') == 2
    assert needed('position = "sitting"') == 1        # 2 - 4 = -2: any middle face
    assert needed("move = 1") == 2
    world = duel(MOBILE_HR0, 'level = 10\nposition = "resting"', extra=LEGACY)
    # hr = -12: thac0 = 2 + 12 = 14; resting +4: needs 10
    assert lowest_hitting_face(world) == 10
    asleep = duel(MOBILE_HR0, 'level = 10\nposition = "sleeping"', extra=LEGACY)
    assert lowest_hitting_face(asleep) == 4
    tired = duel(MOBILE_HR0, "level = 10\nmove = 0", extra=LEGACY)
    assert lowest_hitting_face(tired) == 4
    a, v = world.sheet("a"), world.sheet("v")
    assert tohit.roll_legacy(a, v, 100, "bash", StubRng(face=0), world.content, 0, 0).hit \
        is False
    assert tohit.roll_legacy(a, v, 100, "bash", StubRng(face=1), world.content, 0, 0).hit \
        is False
    assert tohit.roll_legacy(a, v, 100, "bash", StubRng(face=19), world.content, 0, 0).hit


def test_r_hit_2_to_5_the_armor_models_roll_uses_accuracy_and_evasion(duel):
    """R-HIT-2..5: roll_armor_model hits a middle face iff the uniform is below (P -
    0.05)/0.9 with P from accuracy and evasion; a blind attacker that fails blind
    fighting meets evasion x blind_factor (so a uniform between the two thresholds hits
    only when it sees); a hobbit's face 0 is a critical; armor use of 2 is practised."""
    world = duel('level = 30\nhitroll = 40\nprofession = "warrior"', "level = 30")
    a, v, content = world.sheet("a"), world.sheet("v"), world.content
    acc = tohit.accuracy(a, 100, content)
    seeing = tohit.hit_chance(acc, tohit.evasion(v, content, False), content)
    failing = tohit.hit_chance(acc, tohit.evasion(v, content, True), content)
    assert failing < seeing
    high, low = (seeing - 0.05) / 0.9, (failing - 0.05) / 0.9
    between = (high + low) / 2

    def roll(u: float, pct: int = 100, armor_use: int = 0):
        return tohit.roll_armor_model(a, v, 100, StubRng(pct, 5, u), content, 0, armor_use)

    assert roll(high - 1e-9).hit and not roll(high + 1e-9).hit
    assert roll(between).hit
    world.add_affect("a", "blind")
    assert not roll(between).hit          # blind fighting 0: fails, evasion x1.5
    assert roll(low - 1e-9).hit
    passing = tohit.roll_armor_model(a, v, 100, StubRng(1, 5, between), content, 100, 0)
    assert passing.hit                    # blind fighting 100, draw 1: it sees enough
    assert roll(0.5, pct=1, armor_use=2).armor_bonus == 15
    hobbit = duel('race = "hobbit"', "")
    roll0 = tohit.roll_armor_model(hobbit.sheet("a"), hobbit.sheet("v"), 100,
                                   StubRng(face=0), hobbit.content, 0, 0)
    assert (roll0.hit, roll0.critical) == (True, True)


def test_r_hit_1_the_legacy_d20_has_twenty_faces(duel):
    """R-HIT-1 / R-HIT-5: d = number_range(0, 19), in both models."""
    from fixed_draws import RangeRecordingRng as Recording

    world = duel("", "")
    rng = Recording(1)
    tohit.roll_legacy(world.sheet("a"), world.sheet("v"), 100, "bash", rng, world.content,
                      0, 0)
    assert rng.calls == [(0, 19)]
    tohit.roll_d20(0.5, False, rng, world.content)  # R-HIT-5: the armor model's d20 too
    assert rng.calls == [(0, 19), (0, 19)]
