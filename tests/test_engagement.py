"""Who fights whom: R-ACT-1 (an attack makes its victim fight back), R-ACT-2 (nobody
fights a corpse), R-ACT-3 (moving apart ends a fight), and their `fight` events.

Each test builds a scenario, acts through `submit`/`tick`/`run` (or `World.damage`), and
reads the log: the `fight` events (source fights target, change, why) and the blows.
"""

from __future__ import annotations

import pytest
from conftest import world_from_text

import affray

NEVER_HIT = ("[content.fight]\nauto_miss_in_20 = 20\nauto_critical_in_20 = 0\n")
ALWAYS_HIT = ("[content.fight]\nauto_miss_in_20 = 0\nauto_critical_in_20 = 20\n")


def scenario(rows: list[str], creatures: list[tuple[str, tuple[int, int], str]],
             extra: str = "") -> str:
    text = 'name = "engage"\nseed = 3\npulses = 0\n[map]\nrows = ['
    text += ", ".join(f'"{row}"' for row in rows) + "]\n"
    for cid, (x, y), more in creatures:
        text += f'[[creatures]]\nid = "{cid}"\nat = [{x}, {y}]\n{more}\n'
    return text + extra


def fights(world: affray.World, since: int = 0) -> list[tuple]:
    """(pulse, source, target, change, why) of every `fight` event."""
    return [(e.pulse, e.source, e.target, e.change, e.why) for e in world.events[since:]
            if e.kind == "fight"]


def blows_by(world: affray.World, who: str) -> list[tuple[int, str]]:
    return [(e.pulse, e.target) for e in world.events
            if e.kind in ("damage", "miss", "defended", "immune")
            and getattr(e, "source", None) == who and getattr(e, "cause", "melee") == "melee"]


ROOM = [".......", ".......", "......."]


def test_r_act_1_r_act_2_the_audit_s_hero_fights_the_kobold_that_keeps_missing():
    """The audit's case: the hero kills a 1-hp kobold at pulse 0; a second kobold attacks
    the hero at pulse 1 and misses every blow. The hero's fight ended with the first
    kobold's death (R-ACT-2), so it is free: the attack makes it fight back at once
    (R-ACT-1), and it swings at the second kobold from its next round on."""
    world = world_from_text(scenario(ROOM, [
        ("hero", (2, 1), 'template = "human_warrior"\nfighting = "k1"'),
        ("k1", (1, 1), 'level = 1\nhp = 1'),
        ("k2", (3, 1), 'template = "kobold"\nhitroll = -10000\nhp = 100000')],
        "[content.fight]\nauto_miss_in_20 = 0\nauto_critical_in_20 = 20\n"))
    world.tick()  # pulse 0: the hero's round kills k1 (every blow a critical: it lands)
    assert not world.sheet("k1").vitals.alive
    assert world.sheet("hero").combat.fighting is None  # no fighting a corpse
    assert (0, "hero", "k1", "ended", "foe_died") in fights(world)
    world.submit(affray.Attack(actor="k2", target="hero"))
    world.run(pulses=20 * 12)
    assert (1, "k2", "hero", "started", "scripted") in fights(world)
    assert (1, "hero", "k2", "started", "attacked") in fights(world)
    swings = blows_by(world, "hero")
    assert swings[0] == (0, "k1") and swings[1] == (12, "k2")
    assert {pulse for pulse, target in swings if target == "k2"} == set(range(12, 241, 12))


def test_r_act_1_the_lake_storm_s_stormcaller_answers_the_kobold_beside_it():
    """The built-in lake storm: kobold2, struck through the water, fights the
    stormcaller beside it; the stormcaller, free, fights kobold2 back from then on."""
    world = affray.load_scenario(affray.builtin_scenario("lake_storm"))
    world.run()
    started = [f for f in fights(world) if f[3] == "started"]
    assert any(f[1:] == ("kobold2", "stormcaller", "started", "attacked") for f in started)
    assert any(f[1:] == ("stormcaller", "kobold2", "started", "attacked") for f in started)
    assert any(target == "kobold2" for _pulse, target in blows_by(world, "stormcaller"))


def _pair(victim_lines: str = "", extra: str = "", attacker_lines: str = "") -> affray.World:
    """a beside v, both level 20 with 1000 hp unless the lines give their own."""
    def lines(more: str) -> str:
        return ("" if "hp =" in more else "hp = 1000\n") + f"level = 20\n{more}"

    return world_from_text(scenario(ROOM, [("a", (2, 1), lines(attacker_lines)),
                                           ("v", (3, 1), lines(victim_lines))], extra))


@pytest.mark.parametrize(("case", "victim", "extra"), [
    ("hit", "", ALWAYS_HIT),
    ("miss", "", NEVER_HIT),
    ("defended", 'defences = ["dodge"]\n', ALWAYS_HIT.replace(
        "auto_critical_in_20 = 20", "auto_critical_in_20 = 0")
     + "[content.fight.defence]\nnpc_dodge = 100\n"),
    ("immune", 'imm = ["bash", "weapon"]\n', ALWAYS_HIT),
])
def test_r_act_1_any_blow_makes_a_free_victim_fight_its_attacker(case, victim, extra):
    """R-ACT-1: a blow that hit, missed, was defended or met an immunity: the free victim
    fights its attacker from then on (a `fight` event right after the blow's own)."""
    from affray.systems.rules.blow import one_hit

    world = _pair(victim, extra)
    if case == "defended":
        world.rng.percent = lambda: 1  # type: ignore[method-assign]
    one_hit(world, world.sheet("a"), world.sheet("v"))
    kinds = [e.kind for e in world.events]
    expected = {"hit": "damage", "miss": "miss", "defended": "defended", "immune": "immune"}
    assert kinds == [expected[case], "fight"], kinds
    assert fights(world) == [(0, "v", "a", "started", "attacked")]
    assert world.sheet("v").combat.fighting == "a"
    assert world.sheet("v").entity in world.fighting


@pytest.mark.parametrize("save", ["saved", "not saved", "immune", "no damage"])
def test_r_act_1_a_harmful_spell_saved_or_not_makes_its_victim_fight_the_caster(
        save, monkeypatch):
    """R-ACT-1: a harmful spell at a free victim beside its caster engages it, whether
    the victim saved, failed, was immune or the spell does no damage at all."""
    from affray.systems.rules import magic

    spells = ('[content.spells.jolt]\ntype = "fire"\nshape = "touch"\ndamage = "10"\n'
              '[content.spells.stare]\ntype = "fire"\nshape = "touch"\ndamage = 0\n'
              'save = "none"\ndaze = 2\n')
    victim = 'imm = ["fire"]\n' if save == "immune" else ""
    world = _pair(victim, spells)
    if save in ("saved", "not saved"):
        monkeypatch.setattr(magic, "saves_spell", lambda *args: save == "saved")
    world.submit(affray.Cast(actor="a", spell="stare" if save == "no damage" else "jolt",
                             target="v"))
    world.tick()
    assert (0, "v", "a", "started", "attacked") in fights(world)
    struck = [e for e in world.events if e.kind in ("damage", "immune")]
    if save == "saved":
        assert struck[0].saved
    elif save == "immune":
        assert struck[0].kind == "immune"


def test_r_act_1_negative_cases_stunned_busy_ticking_harmless_and_far_away():
    """R-ACT-1's limits: a player knocked to stunned does not fight back; a creature
    already fighting another keeps its fight; status damage (a burn's tick) starts no
    fight; a spell that is not offensive starts none; and a creature with no mind
    attacked from afar does nothing."""
    # knocked to stunned by the blow itself
    stunned = _pair('player = true\nhp = 5\nmax_hp = 5')
    stunned.damage("a", "v", 6, "bash", cause="raw")
    assert stunned.sheet("v").vitals.position == "stunned"
    assert fights(stunned) == []
    # busy: v fights w; a's hit does not switch it
    busy = world_from_text(scenario(ROOM, [
        ("a", (2, 1), "hp = 1000"), ("v", (3, 1), 'hp = 1000\nfighting = "w"'),
        ("w", (4, 1), "hp = 1000")]))
    start = len(busy.events)
    busy.damage("a", "v", 3, "bash")
    assert busy.sheet("v").combat.fighting == "w" and fights(busy, start) == []
    # a status tick: burning from nobody in particular
    burning = _pair('statuses = { burning = 2 }')
    burning.run(pulses=12)
    assert any(e.kind == "damage" and e.cause == "status" for e in burning.events)
    assert fights(burning) == []
    # a spell that is not offensive
    calm = _pair("", '[content.spells.soothe]\ntype = "fire"\nshape = "touch"\ndamage = 0\n'
                     'save = "none"\noffensive = false\n')
    calm.submit(affray.Cast(actor="a", spell="soothe", target="v"))
    calm.tick()
    assert fights(calm) == []
    # from afar, no mind
    far = world_from_text(scenario(ROOM, [("a", (0, 1), "hp = 1000"),
                                          ("v", (5, 1), "hp = 1000")]))
    far.damage("a", "v", 3, "bash")
    assert far.sheet("v").combat.fighting is None and fights(far) == []
    assert far.sheet("v").mind.target is None


def test_r_act_1_a_sleeping_victim_wakes_first_then_fights():
    """R-ACT-1: asleep, the victim of a miss wakes (a `position` event) and then fights."""
    from affray.systems.rules.blow import one_hit

    world = _pair('position = "sleeping"', NEVER_HIT)
    one_hit(world, world.sheet("a"), world.sheet("v"))
    assert [e.kind for e in world.events] == ["miss", "position", "fight"]
    assert world.sheet("v").vitals.position == "fighting"


def test_r_act_1_a_mind_attacked_from_afar_takes_the_attacker_as_its_target():
    """R-ACT-1: a creature with a mind, struck by a spell from afar, remembers the
    caster and where it stood (it closes in: test_minds.py); one of the caster's own
    side does not (R-SIDE-1)."""
    world = world_from_text(scenario(ROOM, [
        ("a", (0, 1), "hp = 1000"), ("v", (5, 1), 'hp = 1000\nmind = "guard"'),
        ("pal", (5, 2), 'hp = 1000\nmind = "guard"\nside = "players"\nplayer = true'),
        ("me", (0, 2), 'hp = 1000\nplayer = true\nmind = "guard"')],
        '[content.spells.zap]\ntype = "fire"\nshape = "bolt"\ndamage = "5"\nsave = "none"\n'))
    world.sheet("a").creature.side = "players"
    world.submit(affray.Cast(actor="a", spell="zap", target="v"))
    world.tick()
    mind = world.sheet("v").mind
    assert (mind.target, mind.last_seen) == ("a", (0, 1))
    assert world.sheet("v").combat.fighting is None  # not beside: no melee fight
    world.damage("a", "pal", 2, "fire")
    assert world.sheet("pal").mind.target is None  # its own side


def test_r_act_2_a_death_ends_every_fight_against_the_dead_at_once_and_re_engages():
    """R-ACT-2: when v dies, a and b (both fighting it) stop at once (foe_died, in spawn
    order); b, which c beside it is fighting, fights c from its next round."""
    world = world_from_text(scenario(ROOM, [
        ("a", (1, 1), 'hp = 1000\nfighting = "v"'), ("v", (2, 1), "hp = 10"),
        ("b", (3, 1), 'hp = 1000\nfighting = "v"'), ("c", (4, 1), 'hp = 1000\nfighting = "b"')]))
    start = len(world.events)
    with pytest.raises(affray.VictimDeath):
        world.damage(None, "v", 50, "bash", cause="raw")
    assert fights(world, start) == [(0, "a", "v", "ended", "foe_died"),
                                    (0, "b", "v", "ended", "foe_died"),
                                    (0, "b", "c", "started", "attacked")]
    assert world.sheet("a").combat.fighting is None
    assert world.sheet("b").combat.fighting == "c"
    assert world.sheet("a").entity not in world.fighting
    assert all(world.sheet(i).combat.fighting != "v" for i in world.creature_ids())


def test_r_act_3_a_step_apart_ends_the_fights_at_once_both_ways():
    """R-ACT-3: when a steps away from v, a's fight against v and v's against a both end
    in the move's pulse (why apart), and nobody swings at a non-neighbour."""
    world = world_from_text(scenario(ROOM, [
        ("a", (2, 1), 'hp = 1000\nfighting = "v"'), ("v", (3, 1), "hp = 1000")]))
    start = len(world.events)
    world.submit(affray.Move(actor="a", to=(1, 1)))
    world.tick()
    assert fights(world, start) == [(0, "a", "v", "ended", "apart"),
                                    (0, "v", "a", "ended", "apart")]
    assert not world.fighting
    world.run(pulses=30)
    assert blows_by(world, "v") == [] and blows_by(world, "a") == []


def test_r_act_3_a_step_that_stays_beside_keeps_the_fight():
    """R-ACT-3 (negative case): a step to another cell beside the foe ends nothing."""
    world = world_from_text(scenario(ROOM, [
        ("a", (2, 1), 'hp = 1000\nfighting = "v"'), ("v", (3, 1), "hp = 1000")]))
    start = len(world.events)
    world.submit(affray.Move(actor="a", to=(2, 0)))
    world.tick()
    assert fights(world, start) == []
    assert world.sheet("a").combat.fighting == "v"


def test_r_act_3_a_push_apart_ends_the_fight():
    """R-ACT-3: a force spell that knocks the foe a cell away ends the fight (apart)."""
    spells = ('[content.spells.shove]\ntype = "force"\nshape = "touch"\ndamage = "900"\n'
              'save = "none"\n')
    world = world_from_text(scenario(ROOM, [
        ("a", (2, 1), 'hp = 1000\nfighting = "v"'), ("v", (3, 1), "hp = 1000")], spells))
    world.submit(affray.Cast(actor="a", spell="shove", target="v"))
    world.tick()
    assert [e.kind for e in world.events if e.kind == "pushed"] == ["pushed"]
    assert (0, "a", "v", "ended", "apart") in fights(world)
    assert (0, "v", "a", "ended", "apart") in fights(world)
