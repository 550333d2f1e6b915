"""Every blow of a round at once: blow counts, to-hit, damage, protections, defences.

The vectorised round (volley.py) hands over, for each fighter on the vectorised path, its
row and its victim's row in the round's `Columns`; this module computes every blow those
fighters would deal if everyone lived, in round order (fighter, then blow), with the
scalar pipeline's rules and integer rounding (blow.py, tohit.py, protections.py,
defence.py, melee.py; each step below names its rule). Random numbers are drawn in bulk
from the world's numpy generator, one array per kind of roll, so a seed fixes the result;
they are not the scalar path's draws (docs/decisions.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from affray.defs import ARMOR_COLUMNS
from affray.systems.rules import immunity
from affray.systems.rules.defence import WEAK_STUN_HALVES
from affray.systems.rules.protections import EVIL, GOOD
from affray.systems.rules.tohit import FIGHTING, RESTING, SLEEPING
from affray.systems.rules.volley_columns import (
    DEFENCE_BIT,
    PROF_ANTI,
    PROF_FIGHTER,
    PROF_NINJA,
    PROF_THIEF,
    SKILL,
    WEAPON_FLAIL,
    WEAPON_NONE,
    WEAPON_WHIP,
    Columns,
)
from affray.systems.rules.volley_protect import (
    AFFECT_BITS,
    HitArrays,
    VictimArrays,
    column_index,
    protect_many,
    resolve_many,
    tdiv_many,
    type_bits,
)

if TYPE_CHECKING:
    from affray.content_loader import Content
    from affray.world import World

# Blow kinds (what the scalar pipeline ends a blow with).
MISS, DEFENDED, IMMUNE, DAMAGE = 0, 1, 2, 3
STEPS = 6  # first, haste, and up to four attack skills


@dataclass(slots=True)
class Blows:
    """The blows of a round as if everyone lived, in round order."""

    turn: np.ndarray        # index into the fighters handed in
    step: np.ndarray        # 0 first, 1 haste, 2.. each attack skill
    attacker: np.ndarray    # Columns rows
    victim: np.ndarray
    kind: np.ndarray        # MISS, DEFENDED, IMMUNE, DAMAGE
    dam: np.ndarray
    raw: np.ndarray
    critical: np.ndarray
    defence: np.ndarray     # index into the defence chain's names (DEFENDED)


def percent(u: np.ndarray) -> np.ndarray:
    """`Rng.percent` for an array of uniforms: 1..100."""
    return 1 + (u * 100).astype(np.int64)


def has(cols: Columns, rows: np.ndarray, name: str) -> np.ndarray:
    return (cols.affects[rows] & AFFECT_BITS[name]) != 0


def stat_table(table: tuple[int, ...], values: np.ndarray) -> np.ndarray:
    """A stat table indexed by the stat clamped 0..28 (tohit.stat_index)."""
    return np.asarray(table, dtype=np.int64)[np.clip(values, 0, 28)]


def blow_steps(world: World, cols: Columns, attackers: np.ndarray, gen: np.random.Generator
               ) -> np.ndarray:
    """Which of each fighter's six blow steps happen (melee.fight_round): the first;
    a quick creature's extra one (haste and not slow); each attack skill the fighter
    learned, effective above 0, rolled number_percent() < effective/divisor, halved by
    weak stun for the skills the fight config marks (R-STUN-6), x3/4 when slowed."""
    from affray.systems.melee import NPC_EXTRA, PLAYER_EXTRA  # the tables, not a copy

    n = len(attackers)
    steps = np.zeros((n, STEPS), dtype=bool)
    steps[:, 0] = True
    steps[:, 1] = has(cols, attackers, "haste") & ~has(cols, attackers, "slow")
    player = cols.player[attackers] != 0
    halved = world.content.fight.stun.weak_stun_halves
    weak = has(cols, attackers, "weak_stun")
    slow = has(cols, attackers, "slow")
    rolls = percent(gen.random((n, 4)))
    for j, (name, player_divisor) in enumerate(PLAYER_EXTRA):
        npc_entry = NPC_EXTRA[j] if j < len(NPC_EXTRA) else (name, 1)
        assert npc_entry[0] == name  # the two tables list the skills in the same order
        effective = cols.learned[SKILL[name]][attackers]
        divisor = np.where(player, player_divisor, npc_entry[1])
        in_table = player | (j < len(NPC_EXTRA))
        chance = np.where(effective >= 0, effective // divisor, 0)  # effective is 0..100
        if name in halved:
            chance = np.where(weak, tdiv_many(chance, 2), chance)
        chance = np.where(slow, tdiv_many(chance * 3, 4), chance)
        # a skill never learned has effective 0: no blow (and its roll is not used)
        steps[:, 2 + j] = in_table & (effective > 0) & (rolls[:, j] < chance)
    return steps


def roll_dice(count: np.ndarray, size: np.ndarray, gen: np.random.Generator) -> np.ndarray:
    """`Rng.dice` for arrays: count + the sum of int(u * size) per die; 0 when either is
    0 or less; count when size is 1."""
    n = len(count)
    width = int(count.max(initial=0))
    if width <= 0:
        return np.zeros(n, dtype=np.int64)
    faces = (gen.random((n, width)) * np.maximum(size, 1)[:, None]).astype(np.int64)
    used = np.arange(width)[None, :] < count[:, None]
    total = count + (faces * used).sum(axis=1)
    total = np.where(size == 1, count, total)
    return np.where((size <= 0) | (count <= 0), 0, total)


def to_hit_armor(content: Content, cols: Columns, a: np.ndarray, v: np.ndarray,
                 skill: np.ndarray, gen: np.random.Generator
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """R-HIT-2..5 (tohit.roll_armor_model). Returns hit, critical, the effective hitroll
    in 1/10000ths (R-HIT-7's pierce) and whether armor use succeeded (R-HIT-3)."""
    knobs = content.fight.armor
    n = len(a)
    armor_use = cols.learned[SKILL["armor_use"]][v]
    use_ok = (armor_use > 1) & (percent(gen.random(n)) < armor_use)
    blind = has(cols, a, "blind")
    blind_fighting = cols.learned[SKILL["blind_fighting"]][a]
    blind_failed = blind & ~(percent(gen.random(n)) < blind_fighting)
    hitroll = (cols.hitroll[a] * skill
               * (100 + stat_table(content.stats.str_.hit, cols.strength[a])))
    level_a = cols.modify_level[a]
    interp = cols.thac00[a] + tdiv_many(level_a * (cols.thac32[a] - cols.thac00[a]), 32)
    class_base = np.maximum(1, 20 - interp)
    acc = knobs.base_w * class_base + hitroll / 10000
    ev = evasion_many(content, cols, v, blind_failed)
    chance = hit_chance_many(content, acc, ev)
    fight = content.fight
    miss, crit = fight.auto_miss_in_20, fight.auto_critical_in_20
    crit_share, middle_share = crit / 20.0, max(1e-12, 1.0 - (miss + crit) / 20.0)
    face = (gen.random(n) * 20).astype(np.int64)
    middle = gen.random(n) < (chance - crit_share) / middle_share
    hobbit = cols.hobbit[a] != 0
    low, top = face < miss, face >= 20 - crit
    hit = np.where(low, hobbit, np.where(top, True, middle))
    critical = np.where(low, hobbit, top)
    return hit, critical, hitroll, use_ok


def evasion_many(content: Content, cols: Columns, v: np.ndarray,
                 blind_failed: np.ndarray) -> np.ndarray:
    """R-HIT-3 (tohit.evasion) in float64, the same operations in the same order."""
    knobs = content.fight.armor
    level = cols.modify_level[v].astype(np.float64)
    defensive = stat_table(content.stats.dex.defensive, cols.dexterity[v])
    value = (knobs.ev_level * level
             + knobs.ev_dex * (-defensive) * np.minimum(1.0, level / 100.0))
    halve = (cols.rank[v] < FIGHTING) | (cols.move[v] <= 0)
    value = np.where(halve, value / 2.0, value)
    value = np.where(blind_failed, value * knobs.blind_factor, value)
    sluggish = cols.sluggish[v]
    if sluggish.any():
        status = content.statuses["sluggish"]
        factor = np.maximum(status.evasion_floor, 1.0 - status.evasion_per_degree * sluggish)
        value = np.where(sluggish != 0, value * factor, value)
    return value


def hit_chance_many(content: Content, acc: np.ndarray, ev: np.ndarray) -> np.ndarray:
    """R-HIT-4 (tohit.hit_chance): acc^p / (acc^p + ev^p), clamped p_floor..p_cap."""
    knobs = content.fight.armor
    with np.errstate(divide="ignore", invalid="ignore"):
        if knobs.hit_pow == 2.0:
            x, e = acc * acc, ev * ev
        else:
            x, e = np.abs(acc) ** knobs.hit_pow, np.abs(ev) ** knobs.hit_pow
        chance = np.where(acc <= 0, 0.0, np.where(ev <= 0, 1.0, x / (x + e)))
    return np.minimum(knobs.p_cap, np.maximum(knobs.p_floor, chance))


def to_hit_legacy(content: Content, cols: Columns, a: np.ndarray, v: np.ndarray,
                  skill: np.ndarray, column: np.ndarray, gen: np.random.Generator
                  ) -> np.ndarray:
    """R-HIT-1 (tohit.roll_legacy): d20 0 misses (a hobbit hits), 19 hits, else
    face >= thac0 - ac."""
    n = len(a)
    thac0 = cols.thac00[a] + tdiv_many(cols.modify_level[a] * (cols.thac32[a]
                                                               - cols.thac00[a]), 32)
    thac0 = np.where(thac0 < 0, tdiv_many(thac0, 2), thac0)
    thac0 = np.where(thac0 < -5, -5 + tdiv_many(thac0 + 5, 2), thac0)
    hr = cols.hitroll[a] - tdiv_many(cols.level[a], 2)
    hr = hr + tdiv_many(hr * stat_table(content.stats.str_.hit, cols.strength[a]), 100)
    thac0 = thac0 - tdiv_many(hr * skill, 100) + tdiv_many(5 * (100 - skill), 100)
    armor = np.stack([cols.armor_bash, cols.armor_pierce, cols.armor_slash,
                      cols.armor_exotic])[column, v]
    rank = cols.rank[v]
    ac = -armor + np.where(rank > SLEEPING,
                           stat_table(content.stats.dex.defensive, cols.dexterity[v]), 0)
    ac = tdiv_many(ac, 10)
    ac = np.where(ac < -20, tdiv_many((ac + 20) * 2, 3) - 20, ac)
    armor_use = cols.learned[SKILL["armor_use"]][v]
    use_ok = (armor_use > 1) & (percent(gen.random(n)) < armor_use)
    ac = np.where(use_ok, ac - tdiv_many(cols.modify_level[v], 2), ac)
    blind = has(cols, a, "blind")
    blind_failed = blind & ~(percent(gen.random(n)) < cols.learned[SKILL["blind_fighting"]][a])
    ac = np.where(blind_failed, ac - 4, ac)
    ac = ac + np.where(rank < FIGHTING, 4, 0) + np.where(rank < RESTING, 6, 0)
    ac = ac + np.where(cols.move[v] <= 0, 10, 0)
    face = (gen.random(n) * 20).astype(np.int64)
    hobbit = cols.hobbit[a] != 0
    return np.where(face == 0, hobbit, np.where(face == 19, True, face >= thac0 - ac))


def base_damage(content: Content, cols: Columns, a: np.ndarray, v: np.ndarray,
                skill: np.ndarray, gen: np.random.Generator) -> np.ndarray:
    """R-MELEE-3's damBase (blow.base_damage): an NPC's better hand dice unscaled; weapon
    dice x skill/100; bare-handed number_range(1 + 4 skill/100, (2L/3) skill/100);
    x21/20 with a weapon and no shield; sharp and holy weapons."""
    n = len(a)
    npc = cols.player[a] == 0
    has_weapon_dice = cols.has_dice[a] != 0
    hand_x2 = (cols.hand_s[a] + 1) * cols.hand_n[a] + 2 * cols.hand_b[a]
    weapon_x2 = (cols.dice_s[a] + 1) * cols.dice_n[a] + 2 * cols.dice_b[a]
    use_hand = npc & (cols.has_hand[a] != 0) & (~has_weapon_dice | (hand_x2 > weapon_x2))
    count = np.where(use_hand, cols.hand_n[a], cols.dice_n[a])
    size = np.where(use_hand, cols.hand_s[a], cols.dice_s[a])
    bonus = np.where(use_hand, cols.hand_b[a], cols.dice_b[a])
    rolled = roll_dice(count, size, gen) + bonus
    level = cols.level[a]
    low = 1 + tdiv_many(4 * skill, 100)
    high = tdiv_many(tdiv_many(2 * level, 3) * skill, 100)
    bare = np.where(low >= high, low,
                    low + (gen.random(n) * (high - low + 1)).astype(np.int64))
    dam = np.where(use_hand, rolled,
                   np.where(has_weapon_dice, tdiv_many(rolled * skill, 100), bare))
    armed = cols.wield[a] != 0
    dam = np.where(armed & (cols.shield[a] == 0), tdiv_many(dam * 21, 20), dam)
    p = percent(gen.random(n))
    sharp = armed & (cols.sharp[a] != 0) & (p <= tdiv_many(skill, 8))
    dam = np.where(sharp, 2 * dam + tdiv_many(dam * 2 * p, 100), dam)
    holy = (armed & (cols.holy[a] != 0) & (cols.alignment[a] > GOOD)
            & (cols.alignment[v] < EVIL) & (percent(gen.random(n)) < 30))
    return np.where(holy, dam + tdiv_many(dam * 120, 100), dam)


def compute_blows(world: World, cols: Columns, attackers: np.ndarray, victims: np.ndarray
                  ) -> Blows:
    """Every blow of these fighters (rows of `cols`) against their victims, as if all
    lived (blow.one_hit for each), in order: fighter by fighter, step by step."""
    content = world.content
    gen = world.rng.numpy()
    steps = blow_steps(world, cols, attackers, gen)
    turn, step = np.nonzero(steps)  # row-major: round order
    a, v = attackers[turn], victims[turn]
    n = len(a)
    skill = 20 + cols.weapon_skill[a]
    # Each attacker's damage type (R-IMM-5) and what it means for armor and immunity.
    type_names = cols.type_names
    codes = cols.type_code[a]
    per_type = np.array([[column_index(content, t), type_bits(content, t, immunity.WEAPON),
                          t == "fire", t == "cold", t == "lightning",
                          t in content.damage.spell_armor] for t in type_names],
                        dtype=np.int64).reshape(len(type_names), 6)[codes]
    column, imm_bits = per_type[:, 0], per_type[:, 1]
    if content.fight.model == "armor":
        hit, critical, pierce, use_ok = to_hit_armor(content, cols, a, v, skill, gen)
    else:
        legacy_column = np.array(
            [ARMOR_COLUMNS.index(content.damage.armor_column.get(t, "exotic"))
             for t in type_names], dtype=np.int64)[codes]
        hit = to_hit_legacy(content, cols, a, v, skill, legacy_column, gen)
        critical = np.zeros(n, dtype=bool)
        pierce = np.zeros(n, dtype=np.int64)
        use_ok = np.zeros(n, dtype=bool)
    # R-MELEE-3: damage calculation.
    dam = base_damage(content, cols, a, v, skill, gen)
    divisor = cols.divisor[a]
    class_roll = percent(gen.random(n))
    dam = np.where(divisor > 0, dam + tdiv_many(dam * class_roll, np.maximum(divisor, 1)), dam)
    dam = dam + tdiv_many(cols.damroll[a] * np.minimum(100, skill), 100)
    dam = dam + tdiv_many(dam * stat_table(content.stats.str_.damage, cols.strength[a]), 100)
    numerator, denominator = content.fight.critical_multiplier
    dam = np.where(critical, tdiv_many(dam * numerator, denominator), dam)  # R-HIT-5
    dam = np.maximum(dam, 1)
    raw = dam
    hits = HitArrays(
        dam=dam, melee=np.ones(n, dtype=bool), has_source=np.ones(n, dtype=bool),
        source_alignment=cols.alignment[a], source_level=cols.modify_level[a],
        fire=per_type[:, 2] != 0, cold=per_type[:, 3] != 0, lightning=per_type[:, 4] != 0,
        imm_bits=imm_bits, column=column, spell_armor=per_type[:, 5] != 0, pierce=pierce,
        armor_use_level=np.where(use_ok, cols.modify_level[v], 0))
    victim_arrays = VictimArrays(
        affects=cols.affects[v], liturgy_skill=cols.learned[SKILL["liturgy"]][v] > 0,
        modify_level=cols.modify_level[v], imm=cols.imm[v], res=cols.res[v],
        vuln=cols.vuln[v], armor=np.stack([cols.armor_bash[v], cols.armor_pierce[v],
                                           cols.armor_slash[v], cols.armor_exotic[v]]))
    dam, immune = protect_many(content, hits, victim_arrays)
    # R-IMM-9: the wielded weapon's material, alone.
    material = cols.weapon_bits[a]
    before = dam
    use = (material != 0) & (dam > 0)
    dam = np.where(use, np_resolve(material, cols.imm[v], cols.res[v], cols.vuln[v], dam), dam)
    immune |= use & (before > 0) & (dam == 0)
    # R-MELEE-4: victim asleep or worse x2, resting or sitting x3/2, once.
    rank = cols.rank[v]
    dam = np.where(rank <= SLEEPING, dam * 2,
                   np.where(rank < FIGHTING, tdiv_many(dam * 3, 2), dam))
    names = world.rules.defences.names
    defended, which = defence_chain(world, cols, a, v, dam > 0, gen, names)
    kind = np.where(~hit, MISS, np.where(defended, DEFENDED,
                                         np.where(immune, IMMUNE, DAMAGE)))
    return Blows(turn, step, a, v, kind, np.where(kind == DAMAGE, dam, 0), raw,
                 critical & hit, which)


def np_resolve(mask: np.ndarray, imm: np.ndarray, res: np.ndarray, vuln: np.ndarray,
               dam: np.ndarray) -> np.ndarray:
    return resolve_many(mask, imm, res, vuln, dam)


def defence_chain(world: World, cols: Columns, a: np.ndarray, v: np.ndarray,
                  reaches: np.ndarray, gen: np.random.Generator, names: list[str]
                  ) -> tuple[np.ndarray, np.ndarray]:
    """R-DEF-1..8 (defence.py): the chain in the registry's order; the first defence that
    succeeds ends the blow. Returns (defended, index of the defence)."""
    n = len(a)
    config = world.content.fight.defence
    player = cols.player[v] != 0
    npc = ~player
    gap = cols.modify_level[v] - cols.modify_level[a]
    awake = (cols.rank[v] > SLEEPING) & ~has(cols, v, "stun")
    weak = has(cols, v, "weak_stun")
    blind = has(cols, v, "blind")
    blind_fighting = cols.learned[SKILL["blind_fighting"]][v]
    profession = cols.profession[v]
    fighter = profession == PROF_FIGHTER
    attacking = cols.wclass[a]
    moves = cols.move[v] > 0
    remaining = reaches.copy()
    defended = np.zeros(n, dtype=bool)
    which = np.full(n, -1, dtype=np.int64)

    def base(name: str) -> tuple[np.ndarray, np.ndarray]:
        flat = config.npc_dodge if name == "dodge" else config.npc_other
        listed = (cols.npc_defences[v] & DEFENCE_BIT[name]) != 0
        effective = cols.learned[SKILL[name]][v]
        ok = np.where(npc, listed, effective > 1)
        return ok, np.where(npc, flat, effective)

    def adjust(name: str, chance: np.ndarray) -> np.ndarray:
        if name in WEAK_STUN_HALVES:  # R-DEF-5
            chance = np.where(weak, tdiv_many(chance, 2), chance)
        seen = (blind_fighting > 1) & (percent(gen.random(n)) < blind_fighting)  # R-DEF-8
        adjusted = np.where(seen, np.trunc(chance / 1.5).astype(np.int64),
                            tdiv_many(chance, 4))
        return np.where(blind, adjusted, chance)

    for index, name in enumerate(names):
        roll = percent(gen.random(n))
        if name == "bat_swarm":  # R-DEF-2
            success = has(cols, v, "bat_swarm") & (roll <= 50 + gap)
        elif name == "shield_block":
            ok, chance = base(name)
            chance = np.where(npc, chance, tdiv_many(chance, 2) - 10 + np.where(fighter, 10, 0))
            chance = np.where(player & (attacking == WEAPON_FLAIL), tdiv_many(chance, 2), chance)
            chance = adjust(name, chance)
            possible = (cols.shield[v] != 0) & awake & ok & (attacking != WEAPON_WHIP)
            possible &= npc | moves
            success = possible & (roll < chance + gap)
        elif name == "blink":  # R-DEF-6
            ok, chance = base(name)
            half = np.where(npc, chance, tdiv_many(chance, 2))
            chance = adjust(name, half) + tdiv_many(gap, 2)
            success = awake & ok & (roll < chance)
        elif name == "cross_block":
            ok, chance = base(name)
            third = tdiv_many(chance, 3)
            chance = np.where(npc, chance, np.where(fighter, third + tdiv_many(third, 2), third))
            chance = adjust(name, chance)
            possible = (cols.wield[v] != 0) & (cols.second[v] != 0) & awake & ok & moves
            success = possible & (roll < chance + gap)
        elif name == "parry":
            ok, chance = base(name)
            half = tdiv_many(chance, 2)
            chance = np.where(npc, chance, np.where(fighter, half + tdiv_many(half, 5), half))
            chance = adjust(name, chance)
            possible = awake & ok & ~(player & (cols.wclass[v] == WEAPON_NONE))
            possible &= (attacking != WEAPON_FLAIL) & (attacking != WEAPON_WHIP)
            success = possible & (roll < chance + gap)
        elif name == "hand_block":
            ok, chance = base(name)
            chance = np.where(profession == PROF_NINJA, tdiv_many(chance, 2),
                              tdiv_many(chance, 3))
            chance = adjust(name, chance)
            possible = player & (cols.wclass[v] == WEAPON_NONE) & (cols.second[v] == 0)
            success = possible & awake & ok & (roll < chance + gap)
        elif name == "dodge":
            ok, chance = base(name)
            own = tdiv_many(chance, 2) + 2 * (cols.dexterity[v] - 20)
            own = np.where(fighter, own + tdiv_many(own, 5),
                           np.where((profession == PROF_THIEF) | (profession == PROF_NINJA),
                                    own + tdiv_many(own, 10),
                                    np.where(profession == PROF_ANTI, own - tdiv_many(own, 10),
                                             own)))
            flail = (attacking == WEAPON_FLAIL) | (attacking == WEAPON_WHIP)
            own = np.where(flail, tdiv_many(own * 6, 5), own)
            chance = adjust(name, np.where(npc, chance, own))
            possible = awake & ok & (npc | moves)
            success = possible & (roll < chance + tdiv_many(gap, 2))
        else:
            raise ValueError(f"the vectorised round has no defence {name!r}")
        success &= remaining
        defended |= success
        which = np.where(success, index, which)
        remaining &= ~success
    return defended, which
