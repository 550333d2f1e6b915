"""Melee blow cost: microseconds per blow through the full pipeline, at scale.

Fighters stand in adjacent pairs on an open floor, every pair fighting. Two rows per
size: whole combat rounds through `World.tick` (the Melee system: snapshot, stun check,
blows, hooks, events), and bare `one_hit` calls (the blow pipeline alone: to-hit,
damage, protections, material, position, defence chain, inflict). Blows are counted
from the events, so misses count as blows too. From `fight.vectorise_min_fighters` (64)
fighters on, the tick rows measure the vectorised round (benchmarks/volley.py compares
both paths); its first round, which reads every fighter into the kept columns, is timed
with the others.
"""

from __future__ import annotations

import time

import numpy as np

from affray.core.grid import Grid, Terrain
from affray.core.world import World
from affray.data.content_loader import Content
from affray.data.creatures import resolve
from affray.data.defs import ArmorBlock, CreatureFields, StatBlock
from affray.systems.rules.blow import one_hit
from affray.systems.rules.hit import Hit
from affray.systems.rules.immunity import WEAPON

from .timing import Result, result_from

FIGHTER = CreatureFields(level=30, hp=1_000_000, profession="warrior", hitroll=25, damroll=10,
                         player=True, stats=StatBlock(str_=18, dex=16),
                         skills={"sword": 90, "shield_block": 40, "parry": 50, "dodge": 60},
                         wield="long_sword", wear=["chain_mail", "wooden_shield"],
                         armor=ArmorBlock(bash=40, pierce=40, slash=40, exotic=20),
                         affects=["sanctuary"])


def fighting_pairs(content: Content, fighters: int, seed: int = 1) -> World:
    """`fighters` creatures in adjacent pairs (a, b side by side), each pair fighting."""
    pairs = fighters // 2
    columns = max(1, int(np.ceil(np.sqrt(pairs))))
    rows = int(np.ceil(pairs / columns))
    terrain = np.full((rows * 2, columns * 3), Terrain.FLOOR, dtype=np.uint8)
    world = World(content, Grid(terrain), seed=seed, name="bench-blows")
    for index in range(pairs):
        x, y = (index % columns) * 3, (index // columns) * 2
        world.add_creature(f"a{index}", (x, y), resolve(content, FIGHTER, None))
        world.add_creature(f"b{index}", (x + 1, y), resolve(content, FIGHTER, None))
        world.start_fight(f"a{index}", f"b{index}")
    return world


def melee_blows(content: Content, sizes: tuple[int, ...], rounds: int) -> list[Result]:
    """us per blow through rounds (World.tick on round pulses) and through bare one_hit."""
    rows: list[Result] = []
    round_pulses = content.fight.round_pulses
    for fighters in sizes:
        world = fighting_pairs(content, fighters)
        try:
            times, blows = [], 0
            for _ in range(rounds):
                before = len(world.events)
                start = time.perf_counter()
                world.tick()  # a round pulse: pulse % 12 == 0
                times.append(time.perf_counter() - start)
                blows += len(world.events) - before
                world.run(round_pulses - 1)
            per_round = blows // rounds
            rows.append(result_from("melee round (tick)", f"{fighters:,} fighters", "blow",
                                    per_round, times, note=f"{per_round:,} blows a round"))
            sheets = [world.sheet(f"a{i}") for i in range(fighters // 2)]
            victims = [world.sheet(f"b{i}") for i in range(fighters // 2)]
            times = []
            for _ in range(rounds):
                start = time.perf_counter()
                for attacker, victim in zip(sheets, victims, strict=True):
                    one_hit(world, attacker, victim)  # a million hp: nobody dies
                times.append(time.perf_counter() - start)
            rows.append(result_from("one_hit (blow pipeline)", f"{fighters:,} fighters",
                                    "blow", len(sheets), times))
            rows.append(defence_chain(world, sheets, victims, rounds, fighters))
        finally:
            world.close()
    return rows


def defence_chain(world: World, attackers: list, victims: list, rounds: int,
                  fighters: int) -> Result:
    """us per blow for the defence chain alone (shield block, parry, dodge all rolled
    until one succeeds), on the hits of a round."""
    hits = [Hit(source=a, victim=v, dam=20, damage_type="slash", flags=WEAPON, melee=True,
                cause="melee") for a, v in zip(attackers, victims, strict=True)]
    chain = world.rules.defences.items()
    times = []
    defended = 0
    for _ in range(rounds):
        start = time.perf_counter()
        for hit in hits:
            for _name, defence in chain:
                if defence(world, hit):
                    defended += 1
                    break
        times.append(time.perf_counter() - start)
    share = defended / (len(hits) * rounds)
    return result_from("defence chain", f"{fighters:,} fighters", "blow", len(hits), times,
                       note=f"{share:.0%} of blows defended")
