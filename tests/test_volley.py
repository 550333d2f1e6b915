"""The vectorised round (systems/rules/volley*.py) against the scalar pipeline, exactly.

With every draw pinned to one value u, each roll of a blow is the same function of u on
both paths, whatever order or batch the draws come in: so a vectorised world and a scalar
one must write the very same log, event for event. That checks every formula of the
vectorised blow (to-hit under both models, criticals, damage, protections, immunity and
material, the defence chain) and the round's order (deaths, ladder falls, spawn order,
mixed paths) exactly, for several u. Statistical equivalence with real draws is in
test_volley_stats.py.
"""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
import pytest

import affray
from affray.core.errors import ScenarioError, UsageError
from affray.data.content_loader import default_content
from affray.systems.rules import volley, volley_blows
from affray.systems.rules.hit import Hit
from affray.systems.rules.immunity import FLAG_BITS
from affray.systems.rules.protections import protect
from affray.systems.rules.tohit import exact_knob, hitroll_ten_thousandths
from affray.systems.rules.volley_columns import SKILL, gather
from affray.systems.rules.volley_protect import (
    HitArrays,
    VictimArrays,
    column_index,
    protect_many,
    type_bits,
)
from tests.conftest import world_from_text


class FixedGenerator:
    """A stand-in for the world's numpy generator: every uniform is `u`."""

    def __init__(self, u: float) -> None:
        self.u = u

    def random(self, size: int | tuple[int, ...]) -> np.ndarray:
        return np.full(size, self.u)


def pin(world: affray.World, u: float) -> None:
    """Every draw of either path is u."""
    world.rng.random = lambda: u
    world.rng.numpy = lambda: FixedGenerator(u)


def creature(ident: str, at: tuple[int, int], foe: str, lines: str) -> str:
    return f'[[creatures]]\nid = "{ident}"\nat = [{at[0]}, {at[1]}]\nfighting = "{foe}"\n{lines}\n'


PAIRS = [
    # armed players with shields, one under sanctuary
    ('template = "human_warrior"\naffects = ["sanctuary"]\nhp = 60',
     'template = "human_warrior"\nhp = 50'),
    # an evil NPC against a paladin with protection from evil and liturgy
    ('template = "orc_brute"\nalignment = -600\nhp = 90',
     'player = true\nlevel = 30\nhp = 40\nprofession = "paladin"\naffects = '
     '["protection_evil"]\nskills = { liturgy = 80, parry = 50, dodge = 40 }\n'
     'wield = "long_sword"\nwear = ["plate_armor"]'),
    # NPC mobs: a kobold's punch against a bash-immune NPC, a fire sword into resistances
    ('template = "kobold"\nhp = 30', 'npc = true\nlevel = 8\nhp = 30\nimm = ["bash"]'),
    # silver against a silver-vulnerable, pierce-resistant NPC (R-IMM-9)
    ('player = true\nlevel = 25\nhp = 70\nprofession = "thief"\nhitroll = 30\n'
     'skills = { dagger = 90, second_attack = 80, third_attack = 60 }\n'
     'wield = "silver_dagger"\nstats = { str = 21, dex = 20 }',
     'npc = true\nlevel = 22\nhp = 55\nvuln = ["silver"]\nres = ["pierce"]\n'
     'defences = ["dodge", "parry", "blink"]\naffects = ["dark_shroud"]'),
    # blind attacker and blind defender, blind fighting
    ('player = true\nlevel = 18\nhp = 45\nprofession = "ninja"\naffects = ["blind"]\n'
     'skills = { blind_fighting = 55, hand_to_hand = 70, hand_block = 60, dodge = 50 }',
     'player = true\nlevel = 20\nhp = 45\nprofession = "samurai"\naffects = ["blind"]\n'
     'skills = { blind_fighting = 70, sword = 80, cross_block = 70, dodge = 60 }\n'
     'wield = "katana"\nsecond_wield = "dagger"'),
    # a hasted hobbit with a sharp katana against a bat swarm with armor use
    ('player = true\nrace = "hobbit"\nlevel = 40\nhp = 80\nprofession = "warrior"\n'
     'affects = ["haste"]\nskills = { sword = 95, second_attack = 90, fourth_attack = 50 }\n'
     'wield = "katana"\nhitroll = 45\ndamroll = 12',
     'player = true\nlevel = 35\nhp = 25\nprofession = "anti-paladin"\nalignment = -900\n'
     'affects = ["bat_swarm", "resistance", "conductor"]\n'
     'skills = { armor_use = 80, dodge = 70, parry = 60, sword = 70 }\nwield = "long_sword"'),
    # a stunned fighter and a weak-stunned one (scalar path, mixed into the round)
    ('template = "orc_brute"\naffects = ["stun"]\nhp = 40',
     'template = "human_warrior"\naffects = ["weak_stun"]\nhp = 35'),
    # a sleeping victim (scalar) and a slowed attacker with every attack skill
    ('player = true\nlevel = 50\nhp = 90\nprofession = "warrior"\naffects = ["slow"]\n'
     'skills = { mace = 90, second_attack = 90, third_attack = 90, fourth_attack = 90,'
     ' fifth_attack = 90 }\nwield = "mace"\nmove = 12',
     'template = "kobold"\nposition = "sleeping"\nhp = 30'),
    # a good paladin's holy, sharp flail into an evil, sluggish NPC behind a shield (a
    # parry fails against a flail: the holy and sharp rolls show)
    ('player = true\nlevel = 30\nhp = 60\nprofession = "paladin"\nalignment = 800\n'
     'skills = { flail = 90 }\nwield = "holy_flail"',
     'npc = true\nlevel = 28\nhp = 60\nalignment = -800\nwear = ["wooden_shield"]\n'
     'defences = ["shield_block", "parry"]\nstatuses = { sluggish = 3 }\n'
     'affects = ["dark_shroud", "clan_guard"]'),
    # a sharp katana with attack skills into an NPC that cannot defend (the sharp roll's
    # boundary shows at every u)
    ('player = true\nlevel = 30\nhp = 70\nprofession = "samurai"\nwield = "katana"\n'
     'skills = { sword = 75, second_attack = 60, third_attack = 60 }',
     'npc = true\nlevel = 26\nhp = 120\narmor = { slash = 60 }'),
    # a whip against a player's shield block, parry and dodge
    ('player = true\nlevel = 22\nhp = 50\nprofession = "thief"\n'
     'skills = { whip = 80, dodge = 100 }\nwield = "whip"',
     'template = "human_warrior"\nhp = 45\nstatuses = { sluggish = 1 }\n'
     'skills = { sword = 85, parry = 70, dodge = 60, shield_block = 90 }'),
    # a flail against a player's shield block (halved), parry (fails) and dodge (x6/5)
    ('template = "orc_brute"\nwield = "holy_flail"\nhp = 70',
     'template = "human_warrior"\nhp = 50'),
    # a weak kobold against an armored NPC that cannot defend (legacy: a middle face)
    ('template = "kobold"\nhp = 40', 'npc = true\nlevel = 12\nhp = 40\n'
     'armor = { bash = 160, pierce = 160, slash = 160, exotic = 160 }'),
]
# Weapons the default content lacks: a holy, sharp flail and a whip.
ITEMS = ('[content.items.holy_flail]\nclass = "weapon"\nmaterial = "iron"\n'
         'damage = "2d6"\ndamage_type = "bash"\nweapon_class = "flail"\nholy = true\n'
         'sharp = true\n[content.items.whip]\nclass = "weapon"\nmaterial = "leather"\n'
         'damage = "1d4"\ndamage_type = "slash"\nweapon_class = "whip"\n')


def battle_text(model: str = "armor", extra: str = "") -> str:
    """Each pair side by side on its own row; spawn order a0, b0, a1, b1..."""
    rows = ["." * 6 for _ in range(2 * len(PAIRS))]
    text = ('name = "volley"\npulses = 60\n[map]\nrows = ['
            + ", ".join(f'"{row}"' for row in rows) + "]\n")
    for index, (attacker, victim) in enumerate(PAIRS):
        y = 2 * index
        text += creature(f"a{index}", (1, y), f"b{index}", attacker)
        text += creature(f"b{index}", (2, y), f"a{index}", victim)
    return (text + f'[content.fight]\nmodel = "{model}"\nvectorise_min_fighters = 2\n'
            + ITEMS + extra)


def run_pinned(text: str, mode: str, u: float, pulses: int = 37) -> list[dict]:
    world = world_from_text(text, seed=11)
    try:
        world.vectorise = mode
        pin(world, u)
        world.run(pulses)
        return [event.to_dict() for event in world.events]
    finally:
        world.close()


# Every percent roll 1..100 (and so every d20 face) once, and the two ends.
SWEEP = [0.0, *((k + 0.5) / 100 for k in range(100)), 0.999999]


@pytest.mark.parametrize("model", ["armor", "legacy"])
def test_vectorised_round_writes_the_scalar_log_under_pinned_draws(model: str) -> None:
    """R-MELEE-1..8, R-HIT-1..9, R-PROT-1..7, R-IMM-3, R-IMM-9, R-DEF-1..8, R-DMG-2,
    R-TIME-3: with every draw u, four rounds of thirteen mixed pairs give the scalar log,
    for u making each percent roll 1..100 in turn (so every `roll < chance` of every
    pair meets its boundary: an off-by-one in either path fails)."""
    text = battle_text(model)
    for u in SWEEP:
        vector = run_pinned(text, "auto", u)
        assert vector == run_pinned(text, "never", u), f"u = {u}"
        assert any(e["kind"] in ("damage", "miss", "defended", "immune") for e in vector)


def test_pinned_runs_cover_every_outcome() -> None:
    """The pinned draws above reach misses, criticals, every outcome kind, deaths and a
    player's fall down the hit point ladder (so the comparisons mean something)."""
    kinds: set[str] = set()
    critical = defences = 0
    for model in ("armor", "legacy"):
        for u in SWEEP[::10]:
            for event in run_pinned(battle_text(model), "auto", u):
                kinds.add(event["kind"])
                critical += event["kind"] == "damage" and event["critical"]
                defences |= {"defended"} == {event["kind"]}
    assert {"damage", "miss", "defended", "immune", "death", "position", "lost_round",
            "stun"} <= kinds
    assert critical and defences


def test_the_vectorised_path_is_taken_for_plain_fighters(monkeypatch) -> None:
    """A round of at least vectorise_min_fighters fighters computes the plain fighters'
    blows in bulk (and only theirs); below it, or with vectorise = "never", it does not."""
    calls: list[int] = []
    real = volley.compute_blows

    def spy(world, cols, attackers, victims):  # type: ignore[no-untyped-def]
        calls.append(len(attackers))
        return real(world, cols, attackers, victims)

    monkeypatch.setattr(volley, "compute_blows", spy)
    world = world_from_text(battle_text(), seed=3)
    world.tick()
    # 26 fighters: the stunned orc and the weak-stunned warrior (each other's foes), the
    # sleeping kobold and the slow warrior with 12 move points (not enough for six blows
    # at 2 a blow) are scalar; the other 22 are vectorised.
    assert calls == [22]
    world.close()
    calls.clear()
    for text, mode in ((battle_text(extra="").replace("vectorise_min_fighters = 2",
                                                      "vectorise_min_fighters = 27"), "auto"),
                       (battle_text(), "never")):
        world = world_from_text(text, seed=3)
        world.vectorise = mode
        world.tick()
        world.close()
    assert calls == []


DAZED = ("a0", "b1", "a3", "b3", "b5", "a9", "b10", "a11")


def run_dazed(mode: str, u: float, model: str = "armor") -> list[dict]:
    world = world_from_text(battle_text(model), seed=11)
    try:
        world.vectorise = mode
        pin(world, u)
        for who in DAZED:
            world.set_daze(who, 40)
        world.run(37)
        return [event.to_dict() for event in world.events]
    finally:
        world.close()


@pytest.mark.parametrize("model", ["armor", "legacy"])
def test_dazed_fighters_write_the_scalar_log_under_pinned_draws_r_lag_3(model, monkeypatch
                                                                         ) -> None:
    """R-LAG-3, R-HIT-1..5, R-DEF-1..8, R-MELEE-3: dazed attackers and defenders (skills cut
    to two thirds) on the vectorised path, whose kept columns hold the undazed blow skill,
    accuracy, damroll term and defence chances: a round with anyone dazed works them out
    again, so with every draw pinned the log is the scalar one, for every third percent
    roll. The vectorised path is shown to see the daze."""
    seen: list[bool] = []
    real = volley_blows.compute_blows

    def spy(world, cols, attackers, victims):  # type: ignore[no-untyped-def]
        seen.append(cols.undazed)
        return real(world, cols, attackers, victims)

    monkeypatch.setattr(volley, "compute_blows", spy)
    for u in SWEEP[::3]:
        assert run_dazed("auto", u, model) == run_dazed("never", u, model), f"u = {u}"
    assert False in seen


def test_a_fighter_with_a_hook_takes_the_scalar_path_and_the_rest_is_recomputed() -> None:
    """A hook may change anything: the hooked fighter's turn runs scalar, and the blows of
    the fighters after it are computed from the state it left. Pinned draws: the log is
    the scalar one, hook effects included."""
    def run(mode: str) -> list[dict]:
        world = world_from_text(battle_text(), seed=5)
        world.vectorise = mode
        pin(world, 0.5)

        def sanctify(fighter, world):  # type: ignore[no-untyped-def]
            world.add_affect("b5", "sanctuary")  # a later fighter's target changes

        world.rules.add_hook("on_fight", ("creature", "a1"), sanctify)
        world.run(37)
        events = [event.to_dict() for event in world.events]
        world.close()
        return events

    assert run("auto") == run("never")


def test_vectorise_option_from_scenario_api_and_saves(tmp_path) -> None:
    """The option is a scenario field, a World property (UsageError on a bad value) and
    is saved with the world."""
    world = world_from_text('vectorise = "never"\n' + battle_text(), seed=1)
    assert world.vectorise == "never"
    with pytest.raises(UsageError, match="vectorise"):
        world.vectorise = "sometimes"
    world.save(str(tmp_path / "w.json"))
    assert affray.load_world(str(tmp_path / "w.json")).vectorise == "never"
    world.vectorise = "auto"
    world.save(str(tmp_path / "w2.json"))
    assert affray.load_world(str(tmp_path / "w2.json")).vectorise == "auto"
    with pytest.raises(ScenarioError, match="vectorise"):
        world_from_text('vectorise = "always"\n' + battle_text())
    world.close()


def test_save_and_continue_a_vectorised_battle_is_identical(tmp_path) -> None:
    """R-ENG-3: a vectorised world saved mid-battle and loaded continues event for event
    as the unsaved world (the generator's state carries the bulk draws)."""
    text = battle_text()
    whole = world_from_text(text, seed=21)
    whole.run(60)
    part = world_from_text(text, seed=21)
    part.run(25)
    part.save(str(tmp_path / "mid.json"))
    loaded = affray.load_world(str(tmp_path / "mid.json"))
    loaded.run(35)
    assert [e.to_dict() for e in loaded.events] == [e.to_dict() for e in whole.events]
    assert any(e.kind == "death" for e in whole.events)
    for world in (whole, part, loaded):
        world.close()


def test_same_seed_same_log_in_a_vectorised_world() -> None:
    """One seed, one log, on the vectorised path too (and not the scalar path's log)."""
    logs = []
    for mode in ("auto", "auto", "never"):
        world = world_from_text(battle_text(), seed=8)
        world.vectorise = mode
        world.run(60)
        logs.append([e.to_dict() for e in world.events])
        world.close()
    assert logs[0] == logs[1]
    assert logs[0] != logs[2]


# -- protect_many, hit for hit -------------------------------------------------------------
AFFECTS = ["sanctuary", "stardust", "dark_shroud", "clan_guard", "resistance",
           "protection_evil", "protection_good", "protection_heat", "protection_cold",
           "liturgy", "conductor"]
TYPES = ["slash", "pierce", "bash", "fire", "cold", "lightning", "acid", "energy", "light",
         "poison", "holy", "negative", "mental"]


def test_protect_many_matches_protect_hit_for_hit() -> None:
    """R-PROT-1..7 (each step's rounding), R-HIT-7..9 (exact armor, armor use, spell
    armor and pierce), R-IMM-3/4/8: 4,000 random hits, melee and damage-pipeline, against
    random victims; protect_many gives every hit's damage and immune flag exactly."""
    content = default_content()
    rng = random.Random(12)
    text = 'name = "p"\n[map]\nrows = ["' + "." * 40 + '"]\n'
    for i in range(40):
        affects = [a for a in AFFECTS if rng.random() < 0.2]
        imm = [t for t in TYPES if rng.random() < 0.05]
        res = [t for t in TYPES if rng.random() < 0.15]
        vuln = [t for t in TYPES if rng.random() < 0.15]
        skills = "{ liturgy = 60 }" if rng.random() < 0.2 else "{}"
        text += (f'[[creatures]]\nid = "c{i}"\nat = [{i}, 0]\nlevel = {rng.randint(1, 60)}\n'
                 f'remorts = {rng.choice([0, 0, 3])}\nalignment = {rng.randint(-1000, 1000)}\n'
                 f'hitroll = {rng.randint(-5, 60)}\nhp = 500\naffects = {affects}\n'
                 f'imm = {imm}\nres = {res}\nvuln = {vuln}\nskills = {skills}\n'
                 f'armor = {{ bash = {rng.randint(-20, 300)}, pierce = {rng.randint(0, 300)},'
                 f' slash = {rng.randint(0, 300)}, exotic = {rng.randint(-10, 200)} }}\n')
    world = world_from_text(text.replace("'", '"'), seed=1)
    sheets = [world.sheet(f"c{i}") for i in range(40)]
    cols = gather(world, sheets)
    hits, expected, immune = [], [], []
    for _ in range(4000):
        source = rng.choice([*sheets, None])
        victim = rng.choice(sheets)
        damage_type = rng.choice(TYPES)
        flags = rng.choice([FLAG_BITS["weapon"], FLAG_BITS["spell"], FLAG_BITS["magic"],
                            FLAG_BITS["other"]])
        melee = rng.random() < 0.5
        skill = rng.randint(20, 120)
        bonus = rng.random() < 0.3
        hit = Hit(source, victim, rng.randint(0, 400), damage_type, flags, melee, "test")
        if source is not None:
            hit.pierce = Fraction(hitroll_ten_thousandths(source, skill, content), 10000)
        if bonus:
            hit.armor_bonus = exact_knob(content.fight.armor.armor_use_bonus) * victim.modify_level
        hits.append((hit.dam, source, victim, damage_type, flags, melee, skill, bonus))
        protect(hit, world)
        expected.append(hit.dam)
        immune.append(hit.immune)
    row = {sheet.entity: i for i, sheet in enumerate(sheets)}
    dams, srcs, vics, dtypes, flagss, melees, skills, bonuses = zip(*hits, strict=True)
    v = np.array([row[s.entity] for s in vics])
    a = np.array([row[s.entity] if s is not None else 0 for s in srcs])
    has_source = np.array([s is not None for s in srcs])
    pierce = np.array([hitroll_ten_thousandths(s, k, content) if s is not None else 0
                       for s, k in zip(srcs, skills, strict=True)])
    arrays = HitArrays(
        dam=np.array(dams), melee=np.array(melees), has_source=has_source,
        source_alignment=cols.alignment[a], source_level=cols.modify_level[a],
        fire=np.array([t == "fire" for t in dtypes]), cold=np.array([t == "cold" for t in dtypes]),
        lightning=np.array([t == "lightning" for t in dtypes]),
        imm_bits=np.array([type_bits(content, t, f) for t, f in zip(dtypes, flagss, strict=True)]),
        column=np.array([column_index(content, t) for t in dtypes]),
        spell_armor=np.array([t in content.damage.spell_armor for t in dtypes]),
        pierce=pierce, armor_use_level=np.where(np.array(bonuses), cols.modify_level[v], 0))
    victims = VictimArrays(
        affects=cols.affects[v], liturgy_skill=cols.learned[SKILL["liturgy"]][v] > 0,
        modify_level=cols.modify_level[v], imm=cols.imm[v], res=cols.res[v], vuln=cols.vuln[v],
        armor=np.stack([cols.armor_bash[v], cols.armor_pierce[v], cols.armor_slash[v],
                        cols.armor_exotic[v]]))
    got, got_immune = protect_many(content, arrays, victims)
    assert got.tolist() == expected
    assert got_immune.tolist() == immune
    world.close()


def siege_text() -> str:
    """Three attackers on each of twelve defenders (a siege), low hit points: deaths every
    round, victims shared by several attackers, fights ending mid-round."""
    rows = ["." * 5 for _ in range(36)]
    text = ('name = "siege"\npulses = 60\n[map]\nrows = ['
            + ", ".join(f'"{row}"' for row in rows) + "]\n")
    for index in range(12):
        y = 3 * index + 1
        text += (f'[[creatures]]\nid = "d{index}"\nat = [2, {y}]\nfighting = "s{index}0"\n'
                 f'template = "human_warrior"\nhp = {20 + 7 * index}\n')
        for k, (x, dy) in enumerate(((1, 0), (3, 0), (2, -1))):
            text += (f'[[creatures]]\nid = "s{index}{k}"\nat = [{x}, {y + dy}]\n'
                     f'fighting = "d{index}"\ntemplate = "{"orc_brute" if k else "kobold"}"\n'
                     f'hp = {9 + 5 * k + index}\n')
    return text + "[content.fight]\nvectorise_min_fighters = 2\n"


@pytest.mark.parametrize("window", [1, 3, 4096])
def test_bulk_runs_stop_at_every_death_and_shared_victim(monkeypatch, window: int) -> None:
    """R-DMG-2, R-MELEE-2: in a siege (three on one, deaths every round) the runs of turns
    applied in bulk stop before a blow that may kill, a dead fighter gets no turn, a
    fighter whose target died stops fighting; however short the look-ahead window, the
    log under pinned draws is the scalar one."""
    monkeypatch.setattr(volley, "WINDOW", window)
    for u in SWEEP[::7]:
        vector = run_pinned(siege_text(), "auto", u, pulses=61)
        assert vector == run_pinned(siege_text(), "never", u, pulses=61), f"u = {u}"
    assert any(e["kind"] == "death" for e in vector)


def test_the_default_knob_vectorises_rounds_of_64_fighters_or_more(monkeypatch) -> None:
    """content/fight.toml's vectorise_min_fighters (64, the measured crossover) is what
    switches a round to the vectorised path, with no scenario setting."""
    calls: list[int] = []
    real = volley.compute_blows
    monkeypatch.setattr(volley, "compute_blows", lambda world, cols, a, v: (
        calls.append(len(a)), real(world, cols, a, v))[1])
    assert default_content().fight.vectorise_min_fighters == 64
    for pairs in (31, 32):
        rows = ", ".join('"..."' for _ in range(pairs))
        text = f'name = "mob"\n[map]\nrows = [{rows}]\n' + "".join(
            creature(f"a{i}", (0, i), f"b{i}", 'template = "kobold"')
            + creature(f"b{i}", (1, i), f"a{i}", 'template = "kobold"') for i in range(pairs))
        world = world_from_text(text, seed=2)
        world.tick()
        world.close()
    assert calls == [64]


def test_r_prot_4_a_dazed_victim_keeps_a_liturgy_learned_at_1_on_both_paths() -> None:
    """R-PROT-4 reads the learned skill: a dazed victim whose liturgy is learned at
    exactly 1 (effective 0 under daze, R-LAG-3) still takes liturgy's cut, on the
    vectorised path as on the scalar one. With every draw pinned the two logs are equal,
    and the cut shows: the blows into the liturgy victim are smaller than the same blows
    into its twin without the skill."""
    pairs = "".join(
        creature(f"a{i}", (1, 2 * i), f"b{i}",
                 'template = "orc_brute"\nhp = 500\nhitroll = 40\ndamroll = 30')
        + creature(f"b{i}", (2, 2 * i), f"a{i}",
                   f'player = true\nlevel = 30\nhp = 5000\n{skills}')
        for i, skills in enumerate(("skills = { liturgy = 1 }", "")))
    text = ('name = "liturgy"\n[map]\nrows = ["......", "......", "......"]\n' + pairs
            + '[content.fight]\nvectorise_min_fighters = 2\n')

    def run(mode: str, u: float) -> list[dict]:
        world = world_from_text(text, seed=3)
        try:
            world.vectorise = mode
            pin(world, u)
            world.set_daze("b0", 60)
            world.set_daze("b1", 60)
            world.run(37)
            return [event.to_dict() for event in world.events]
        finally:
            world.close()

    cut_seen = False
    for u in SWEEP[::7]:
        vectorised = run("auto", u)
        assert vectorised == run("never", u), f"u = {u}"
        into = {target: [e["amount"] for e in vectorised
                         if e["kind"] == "damage" and e["target"] == target]
                for target in ("b0", "b1")}
        cut_seen |= any(a < b for a, b in zip(into["b0"], into["b1"], strict=False))
    assert cut_seen


def test_r_act_1_victims_that_fight_no_one_fight_back_on_both_paths_alike() -> None:
    """R-ACT-1 on the vectorised path: in a round where only the a's fight (their
    targets were set free by hand before it), each b starts fighting its attacker after
    the first blow on it, whatever that blow did, its `fight` event right after that
    blow's, as the scalar path logs it; with every draw pinned the two logs are equal."""
    from affray.systems.rules.engagement import rebuild_fought_by

    def run(mode: str, u: float) -> list[dict]:
        world = world_from_text(battle_text(), seed=11)
        try:
            for index in range(len(PAIRS)):
                sheet = world.sheet(f"b{index}")
                sheet.combat.fighting = None
                world.fighting.discard(sheet.entity)
            rebuild_fought_by(world)
            world.touch()
            world.vectorise = mode
            pin(world, u)
            start = len(world.events)
            world.run(25)
            return [event.to_dict() for event in world.events[start:]]
        finally:
            world.close()

    answered_somewhere = False
    for u in SWEEP[::9]:
        vectorised = run("auto", u)
        assert vectorised == run("never", u), f"u = {u}"
        answered = [e for e in vectorised if e["kind"] == "fight" and e["why"] == "attacked"]
        for event in answered:  # right after a blow on it by its attacker (or its waking)
            at = vectorised.index(event) - 1
            while vectorised[at]["kind"] == "position":
                at -= 1
            before = vectorised[at]
            assert before["kind"] in ("damage", "miss", "defended", "immune")
            assert (before["source"], before["target"]) == (event["target"], event["source"])
        answered_somewhere |= len(answered) >= 8
    assert answered_somewhere


def stand_down_text() -> str:
    """X kills D at its first blow; F, fighting D, stands down from fighting (R-ACT-2)
    and, freed, fights back A, who fights it (R-ACT-1); A's turn comes after X's and
    before D's (spawn order X, A, F, D), and nothing else touches F before it."""
    text = ('name = "stand_down"\npulses = 40\n[map]\nrows = ["....."]\n'
            '[[creatures]]\nid = "x"\nat = [0, 0]\nfighting = "d"\n'
            'template = "human_warrior"\n'
            '[[creatures]]\nid = "a"\nat = [3, 0]\nfighting = "f"\ntemplate = "orc_brute"\n'
            '[[creatures]]\nid = "f"\nat = [2, 0]\nfighting = "d"\n'
            'template = "human_warrior"\nhp = 400\n'
            '[[creatures]]\nid = "d"\nat = [1, 0]\nfighting = "x"\ntemplate = "kobold"\n'
            'hp = 1\n')
    return text + "[content.fight]\nvectorise_min_fighters = 2\n"


def test_a_kill_s_bystanders_are_walked_singly_r_act_2(monkeypatch) -> None:
    """R-ACT-2, R-ACT-1: a death ends the fights of those fighting the dead, stands them
    down and may engage them anew, all off the vectorised path. Every creature the kill's
    events name is touched: the blows aimed at the bystander F later in the round (A's,
    planned while F still fought D) are walked singly against F as it is now, never
    applied in bulk, and under pinned draws the log is the scalar one."""
    bulk: list[tuple[int, str]] = []
    real_apply = volley.Plan.apply

    def recording(self, world, turn, count):  # type: ignore[no-untyped-def]
        for t in range(turn, turn + count):
            bulk.append((world.pulse, self.sheets[int(self.attacker[t])].id))
        real_apply(self, world, turn, count)

    monkeypatch.setattr(volley.Plan, "apply", recording)
    deaths = 0
    for u in SWEEP:
        bulk.clear()
        vector = run_pinned(stand_down_text(), "auto", u, pulses=13)
        assert vector == run_pinned(stand_down_text(), "never", u, pulses=13), f"u = {u}"
        killed = [e for e in vector if e["kind"] == "death"]
        assert all(e["target"] == "d" for e in killed)
        if killed and killed[0]["pulse"] == 0:
            deaths += 1
            assert (0, "a") not in bulk  # planned against F fighting D: walked singly
            assert (12, "a") in bulk  # the next round plans it afresh: in bulk again
    assert deaths > len(SWEEP) // 2


def _siege_by_share(monkeypatch: pytest.MonkeyPatch, share: int, seed: int
                    ) -> tuple[list[dict], dict]:
    monkeypatch.setattr(volley, "SCATTER_SHARE", share)
    world = world_from_text(siege_text(), seed=seed)
    try:
        world.run(61)
        return [event.to_dict() for event in world.events], world.snapshot()
    finally:
        world.close()


def test_bulk_runs_scattered_or_whole_column_leave_the_same_world(monkeypatch) -> None:
    """R-DMG-2, R-MELEE-2: a bulk run's hit points and movement go in by scattering its
    few blows (`SCATTER_SHARE` past every run) or by whole columns (never scattering):
    a siege of deaths every round writes the same log and ends in the same snapshot
    either way, over seeds; and scattered, under pinned draws, the scalar log."""
    for seed in range(6):
        scattered = _siege_by_share(monkeypatch, 1 << 30, seed)
        assert scattered == _siege_by_share(monkeypatch, 0, seed), f"seed {seed}"
    assert any(event["kind"] == "death" for event in scattered[0])
    monkeypatch.setattr(volley, "SCATTER_SHARE", 1 << 30)
    for u in SWEEP[::9]:
        vector = run_pinned(siege_text(), "auto", u, pulses=61)
        assert vector == run_pinned(siege_text(), "never", u, pulses=61), f"u = {u}"


def test_a_run_stops_at_the_first_turn_of_a_touched_fighter_or_target(monkeypatch) -> None:
    """R-ACT-2: the heap of touched turns `run_length` reads gives, at every step of every
    round, the run the definition gives: up to the next turn that may kill or breaks the
    round's order, and before the first turn whose fighter or target a turn off the
    vectorised path touched (scanned straight from `touched`)."""
    real = volley.Plan.run_length
    seen: list[int] = []

    def checked(self, turn):  # type: ignore[no-untyped-def]
        limit = real(self, turn)
        stop = int(self.next_stop[turn])
        touched = (self.touched[self.attacker[turn:stop]]
                   | self.touched[self.victim[turn:stop]])
        straight = int(np.argmax(touched)) if touched.any() else stop - turn
        assert limit == min(straight, volley.WINDOW)
        seen.append(limit)
        return limit

    monkeypatch.setattr(volley.Plan, "run_length", checked)
    for u in SWEEP[::13]:
        run_pinned(siege_text(), "auto", u, pulses=61)
    assert 0 in seen and any(limit > 1 for limit in seen)


def _flushed(monkeypatch: pytest.MonkeyPatch, narrow: bool, seed: int, packed: str | None
             ) -> tuple[list[dict], dict]:
    """A siege, or twelve copies of a built-in packed in one World, with the narrow
    flush or without."""
    from affray.data.scenario import builtin_scenario
    from affray.runners.batch import prepare
    from affray.runners.packing import build_pack, pack_job

    if narrow:
        monkeypatch.undo()
    else:
        monkeypatch.setattr(volley, "_engine_only", lambda world: False)
    # every round vectorised, however few fight (a pack of twelve duels has 24 fighters)
    monkeypatch.setattr(volley, "wanted", lambda world, fighters: (
        world.vectorise == "auto" and volley.registries_plain(world)))
    if packed:
        job = pack_job(prepare(builtin_scenario(packed)), 12)
        world = build_pack(job, 12, seed)
    else:
        world = world_from_text(siege_text(), seed=seed)
    try:
        world.run(until="settled")
        return [event.to_dict() for event in world.events], world.snapshot()
    finally:
        world.close()


def test_a_plain_turn_walked_singly_flushes_its_two_rows_and_changes_nothing(monkeypatch
                                                                             ) -> None:
    """R-DMG-2, R-ACT-2: before a turn walked singly (a plain one that may kill or was
    touched, or one on the scalar path: a player down the hit point ladder, its
    attacker) only its fighter's and target's hit points and movement are written to
    the components, when nothing but the engine runs in it (`_engine_only`); a siege of
    deaths every round, and twelve duels or ambushes packed, write the same log and end
    in the same snapshot as with every changed row written first. A game's `emit` or log type of
    its own gets every row written (it could read any creature)."""
    for packed, seeds in ((None, 4), ("duel", 3), ("ambush", 1)):
        for seed in range(seeds):
            narrow = _flushed(monkeypatch, True, seed, packed)
            assert narrow == _flushed(monkeypatch, False, seed, packed), f"seed {seed}"
    monkeypatch.undo()
    assert any(event["kind"] == "death" for event in narrow[0])
    world = world_from_text(siege_text(), seed=1)
    try:
        assert volley._engine_only(world)

        class Watching(type(world)):  # type: ignore[misc]
            def emit(self, event):  # type: ignore[no-untyped-def]
                super().emit(event)

        world.__class__ = Watching
        assert not volley._engine_only(world)
        world.__class__ = Watching.__mro__[1]

        class GameLog(list):
            pass

        world.events = GameLog(world.events)
        assert not volley._engine_only(world)
    finally:
        world.close()


def test_a_scalar_turn_on_a_target_hurt_in_bulk_keeps_every_blow_r_dmg_1() -> None:
    from affray.core.events import Damage

    """R-DMG-1: a target hurt by a bulk run earlier in the round (V, by A) and then by a
    turn on the scalar path (B: immortal, so never plain) has its row written before
    that turn: after each round its hit points are its start less every damage event
    aimed at it, none lost to a later write of the columns."""
    text = ('name = "stale"\npulses = 40\n[map]\nrows = [".....", ".....", "....."]\n'
            + creature("a", (1, 1), "v", 'template = "orc_brute"\nhp = 400')
            + creature("v", (2, 1), "a", 'template = "orc_brute"\nhp = 900')
            + creature("b", (3, 1), "v", 'template = "orc_brute"\nhp = 400\nimmortal = true')
            + "[content.fight]\nvectorise_min_fighters = 2\n")
    by_b = 0
    for seed in range(6):
        world = world_from_text(text, seed=seed)
        try:
            start = world.sheet("v").vitals.hp
            for _ in range(10):
                world.run(3)
                taken = sum(event.amount for event in world.events
                            if isinstance(event, Damage) and event.target == "v")
                assert world.sheet("v").vitals.hp == start - taken, f"seed {seed}"
            by_b += sum(isinstance(event, Damage) and event.source == "b" and event.amount > 0
                        for event in world.events)
        finally:
            world.close()
    assert by_b  # B landed blows: the case was played
