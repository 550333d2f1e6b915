"""The vectorised round against the scalar one with real draws: the same rates.

The two paths draw their random numbers differently (the vectorised one in bulk from the
numpy generator), so their logs differ; what must agree is every distribution. One big
world per path (so the suite pays for two worlds, not one per pairing) holds six
pairings of 750 pairs each; twelve rounds give over 100,000 blows a path. Per pairing:
the hit rate, the critical rate, the immune rate, each defence's rate, the blows a fighter
deals a round (haste and attack skills), all within four standard deviations of the
difference of two binomials, and the damage a blow deals, by a chi-squared test of the
two histograms (scipy.stats), at p above 1e-4 (about the same four sigma).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict

import numpy as np
import pytest
from scipy import stats

from affray.core.grid import Grid, Terrain
from affray.core.world import World
from affray.data.content_loader import default_content
from affray.data.creatures import resolve
from affray.data.defs import CreatureFields, StatBlock

HP = 10_000_000  # nobody dies: the pairings keep their size for every round
PAIRS = 750
ROUNDS = 12

PAIRINGS: dict[str, tuple[dict, dict, str | None, str | None]] = {
    # name: (attacker fields, victim fields, attacker template, victim template)
    "npc mobs": ({}, {}, "orc_brute", "orc_brute"),
    "armed players with shields": ({"affects": ["sanctuary"]}, {}, "human_warrior",
                                   "human_warrior"),
    "protections": (
        {"alignment": -700},
        {"player": True, "level": 30, "profession": "paladin",
         "affects": ["protection_evil", "dark_shroud"],
         "skills": {"liturgy": 80, "parry": 60, "dodge": 50, "armor_use": 70},
         "wield": "long_sword", "wear": ["plate_armor", "wooden_shield"],
         "stats": StatBlock(dex=18)},
        "orc_brute", None),
    "immune and vulnerable": (
        {"player": True, "level": 25, "profession": "thief", "hitroll": 30,
         "skills": {"dagger": 90, "second_attack": 80, "third_attack": 60},
         "wield": "silver_dagger", "stats": StatBlock(str_=21, dex=20)},
        {"npc": True, "level": 22, "vuln": ["silver"], "res": ["pierce"], "imm": ["weapon"],
         "defences": ["dodge", "parry", "blink"]},
        None, None),
    "blind and hasted": (
        {"player": True, "level": 40, "race": "hobbit", "profession": "ninja",
         "affects": ["blind", "haste"], "hitroll": 35, "damroll": 10,
         "skills": {"blind_fighting": 55, "hand_to_hand": 80, "second_attack": 70,
                    "fourth_attack": 40}},
        {"player": True, "level": 38, "profession": "samurai", "affects": ["blind"],
         "skills": {"blind_fighting": 70, "sword": 80, "cross_block": 70, "dodge": 60,
                    "hand_block": 50},
         "wield": "katana", "second_wield": "dagger", "stats": StatBlock(dex=19)},
        None, None),
    # stunned attackers and sleeping victims take the scalar path until they recover
    "stunned and sleeping": ({"affects": ["stun"]}, {"position": "sleeping"}, "orc_brute",
                             "kobold"),
}


def battle(mode: str, seed: int) -> World:
    """Every pairing's pairs side by side, pairings interleaved in spawn order."""
    content = default_content()
    names = list(PAIRINGS)
    side = math.ceil(math.sqrt(PAIRS * len(names)))
    terrain = np.full((side * 2, side * 3), Terrain.FLOOR, dtype=np.uint8)
    world = World(content, Grid(terrain), seed=seed, name=f"stats-{mode}")
    world.vectorise = mode
    templates = content.creatures
    for index in range(PAIRS * len(names)):
        name = names[index % len(names)]
        attacker, victim, a_template, v_template = PAIRINGS[name]
        x, y = (index % side) * 3, (index // side) * 2
        for ident, fields, template, dx in ((f"a{index}", attacker, a_template, 0),
                                            (f"b{index}", victim, v_template, 1)):
            entry = CreatureFields(**{**fields, "hp": HP})
            world.add_creature(ident, (x + dx, y), resolve(
                content, entry, templates[template] if template else None), template)
        world.start_fight(f"a{index}", f"b{index}")
    return world


def measure(mode: str, seed: int) -> dict[str, dict]:
    """Per pairing: blows, outcomes by kind, criticals, defences, damage amounts, and the
    number of blows each attacker dealt per round."""
    world = battle(mode, seed)
    names = list(PAIRINGS)
    pairing = {f"{side}{i}": names[i % len(names)] for i in range(PAIRS * len(names))
               for side in "ab"}
    out: dict[str, dict] = {name: {"kinds": Counter(), "defences": Counter(),
                                   "damage": Counter(), "critical": 0,
                                   "per_fighter": Counter()} for name in names}
    try:
        for _ in range(ROUNDS):
            start = len(world.events)
            world.run(12)
            dealt: dict[str, int] = defaultdict(int)
            for event in world.events[start:]:
                if event.kind not in ("damage", "miss", "defended", "immune"):
                    continue
                row = out[pairing[event.source]]
                row["kinds"][event.kind] += 1
                if event.source.startswith("a"):
                    dealt[event.source] += 1
                if event.kind == "defended":
                    row["defences"][event.defence] += 1
                elif event.kind == "damage":
                    row["damage"][event.amount] += 1
                    row["critical"] += event.critical
            for source, count in dealt.items():
                out[pairing[source]]["per_fighter"][count] += 1
        # the comparison means something only if "auto" really took the vectorised
        # round (it builds the volley cache) and "never" did not
        assert (world.volley_cache is not None) == (mode == "auto"), mode
    finally:
        world.close()
    return out


@pytest.fixture(scope="module")
def both() -> tuple[dict, dict]:
    return measure("auto", 101), measure("never", 202)


def close_rates(k1: int, n1: int, k2: int, n2: int) -> bool:
    """Two binomial rates within four standard deviations of their difference."""
    p = (k1 + k2) / (n1 + n2)
    sigma = math.sqrt(max(p * (1 - p), 1e-12) * (1 / n1 + 1 / n2))
    return abs(k1 / n1 - k2 / n2) <= 4 * sigma + 1e-12


def histogram_p(first: Counter, second: Counter) -> float:
    """Chi-squared p of two damage histograms; bins with fewer than 20 expected merged
    into their neighbours."""
    values = sorted(set(first) | set(second))
    table: list[list[int]] = []
    pending = [0, 0]
    for value in values:
        pending[0] += first.get(value, 0)
        pending[1] += second.get(value, 0)
        if min(pending) >= 20:
            table.append(pending)
            pending = [0, 0]
    if table:
        table[-1][0] += pending[0]
        table[-1][1] += pending[1]
    if len(table) < 2:
        return 1.0
    return float(stats.chi2_contingency(np.array(table).T)[1])


def test_over_a_hundred_thousand_blows_a_path(both) -> None:
    vector, scalar = both
    for result in (vector, scalar):
        assert sum(sum(row["kinds"].values()) for row in result.values()) >= 100_000


@pytest.mark.parametrize("name", list(PAIRINGS))
def test_vectorised_rates_match_the_scalar_path(both, name: str) -> None:
    """R-HIT-2..5 (hit and critical rates), R-DEF-1..8 (each defence's rate), R-IMM-3 and
    R-IMM-9 (immune rate), R-MELEE-1 (blows a round) and R-MELEE-3, R-PROT-1..7 (damage
    per blow, chi-squared): the vectorised round's distributions are the scalar round's."""
    vector, scalar = both[0][name], both[1][name]
    nv, ns = sum(vector["kinds"].values()), sum(scalar["kinds"].values())
    for kind in ("miss", "defended", "immune", "damage"):
        assert close_rates(vector["kinds"][kind], nv, scalar["kinds"][kind], ns), kind
    for defence in set(vector["defences"]) | set(scalar["defences"]):
        assert close_rates(vector["defences"][defence], nv, scalar["defences"][defence],
                           ns), defence
    dv, ds = vector["kinds"]["damage"], scalar["kinds"]["damage"]
    if dv and ds:
        assert close_rates(vector["critical"], dv, scalar["critical"], ds)
        assert histogram_p(vector["damage"], scalar["damage"]) > 1e-4
    turns_v, turns_s = vector["per_fighter"], scalar["per_fighter"]
    assert histogram_p(turns_v, turns_s) > 1e-4 or turns_v.keys() == turns_s.keys() == {1}
