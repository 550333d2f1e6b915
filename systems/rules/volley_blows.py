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

from affray.data.defs import ARMOR_COLUMNS
from affray.systems.rules import immunity
from affray.systems.rules.blow import (
    bare_hand_range,
    class_bonus,
    critical_damage,
    damroll_term,
    holy_damage,
    normalised,
    position_multiplier_value,
    sharp_damage,
    sharp_succeeds,
    strength_bonus,
    unshielded_damage,
    weapon_damage,
)
from affray.systems.rules.defence import (
    WEAK_STUN_HALVES,
    blind_chance,
    flail_block_chance,
    flail_dodge_chance,
    weak_stun_chance,
    with_half_gap,
)
from affray.systems.rules.protections import EVIL, GOOD
from affray.systems.rules.stun import attack_chance_value
from affray.systems.rules.tohit import (
    FIGHTING,
    SLEEPING,
    accuracy_value,
    d20_faces,
    evasion_adjusted,
    hit_chance_value,
    hitroll_product,
    legacy_ac_adjusted,
    legacy_ac_value,
    legacy_hits,
    legacy_thac0_value,
    middle_threshold,
    sluggish_factor,
)
from affray.systems.rules.volley_columns import (
    ATTACK_SKILLS,
    DEFENCE_BIT,
    SKILL,
    TRAIT,
    WEAPON_FLAIL,
    WEAPON_NONE,
    WEAPON_WHIP,
    Columns,
)
from affray.systems.rules.volley_protect import (
    AFFECT_BITS,
    HitArrays,
    VictimArrays,
    armor_cut,
    column_index,
    protect_many,
    resolve_many,
    type_bits,
)

if TYPE_CHECKING:
    from affray.core.world import World
    from affray.data.content_loader import Content

# Blow kinds (what the scalar pipeline ends a blow with).
MISS, DEFENDED, IMMUNE, DAMAGE = 0, 1, 2, 3
STEPS = 6  # first, haste, and up to four attack skills
DEFENCES = {"bat_swarm", "shield_block", "blink", "cross_block", "parry", "hand_block",
            "dodge"}


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
    start: np.ndarray       # per fighter handed in: its first blow's index
    stop: np.ndarray        # and one past its last


def percent(u: np.ndarray) -> np.ndarray:
    """`Rng.percent` for an array of uniforms: 1..100."""
    return 1 + (u * 100).astype(np.int64)


def has(cols: Columns, rows: np.ndarray, name: str) -> np.ndarray:
    return (cols.affects[rows] & AFFECT_BITS[name]) != 0


def blow_steps(world: World, cols: Columns, attackers: np.ndarray, gen: np.random.Generator
               ) -> tuple[np.ndarray, bool]:
    """Which of each fighter's six blow steps happen (melee.fight_round): the first;
    a quick creature's extra one (haste and not slow); each attack skill the fighter
    learned, effective above 0, rolled number_percent() < effective/divisor, halved by
    weak stun for the skills the fight config marks (R-STUN-6), x3/4 when slowed.
    Returns the steps and whether any fighter has more than the first."""
    from affray.systems.melee import NPC_EXTRA, PLAYER_EXTRA  # the tables, not a copy

    n = len(attackers)
    affects = cols.affects[attackers]
    steps = np.zeros((n, STEPS), dtype=bool)
    steps[:, 0] = True
    present = int(np.bitwise_or.reduce(affects)) if n else 0  # skip what nobody has
    slow = (affects & AFFECT_BITS["slow"]) != 0
    any_slow = bool(present & AFFECT_BITS["slow"])
    extra = False
    if present & AFFECT_BITS["haste"]:
        quick = ((affects & AFFECT_BITS["haste"]) != 0) & ~slow
        steps[:, 1] = quick
        extra = bool(quick.any())
    skills = traits_of(cols, attackers)[0]  # attack skills learned (undazed)
    if not skills & ATTACK_SKILLS:
        return steps, extra
    player = cols.player[attackers] != 0
    halved = world.content.fight.stun.weak_stun_halves
    weak = (affects & AFFECT_BITS["weak_stun"]) != 0
    any_weak = bool(present & AFFECT_BITS["weak_stun"])
    for j, (name, player_divisor) in enumerate(PLAYER_EXTRA):
        npc_entry = NPC_EXTRA[j] if j < len(NPC_EXTRA) else (name, 1)
        assert npc_entry[0] == name  # the two tables list the skills in the same order
        if not skills & TRAIT[name]:  # nobody learned it: no blow, nothing rolled
            continue
        effective = cols.learned[SKILL[name]][attackers]
        learned = effective > 0
        if not learned.any():  # nobody has it: no blow, nothing rolled
            continue
        rolls = percent(gen.random(n))
        divisor = np.where(player, player_divisor, npc_entry[1])
        in_table = player | (j < len(NPC_EXTRA))
        chance = attack_chance_value(effective, divisor,
                                     weak if name in halved and any_weak else False,
                                     slow if any_slow else False)  # what nobody has: skipped
        # a skill never learned has effective 0: no blow (and its roll is not used)
        blows = in_table & learned & (rolls < chance)
        steps[:, 2 + j] = blows
        extra = extra or bool(blows.any())
    return steps, extra


def roll_dice(count: np.ndarray, size: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
    """`Rng.dice` for arrays: count + the sum of int(u * size) per die; 0 when either is
    0 or less; count when size is 1. `uniforms`: one row per roll, a column per die."""
    width = uniforms.shape[1]
    low_size, low_count = int(size.min(initial=2)), int(count.min(initial=width))
    faces = (uniforms * (size if low_size >= 1 else np.maximum(size, 1))[:, None]
             ).astype(np.int64)
    if low_count >= width:  # every roll uses every die: add the columns
        total = count + faces[:, 0] if width else count
        for die in range(1, width):
            total += faces[:, die]
    else:
        used = np.arange(width)[None, :] < count[:, None]
        total = count + (faces * used).sum(axis=1)
    if low_size <= 1:
        total = np.where(size == 1, count, total)
    if low_size <= 0 or low_count <= 0:
        total = np.where((size <= 0) | (count <= 0), 0, total)
    return total


def to_hit_armor(content: Content, cols: Columns, a: np.ndarray, v: np.ndarray,
                 skill: np.ndarray, gen: np.random.Generator
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """R-HIT-2..5 (tohit.roll_armor_model). Returns hit, critical, the effective hitroll
    in 1/10000ths (R-HIT-7's pierce) and whether armor use succeeded (R-HIT-3)."""
    knobs = content.fight.armor
    n = len(a)
    attacker_traits, victim_traits = traits_of(cols, a)[0], traits_of(cols, v)[0]
    if victim_traits & TRAIT["armor_use"]:  # else no victim's armor use is above 1
        armor_use = cols.learned[SKILL["armor_use"]][v]
        uses = armor_use > 1
        use_ok = (uses & (percent(gen.random(n)) < armor_use)) if uses.any() else uses
    else:
        use_ok = np.zeros(n, dtype=bool)
    if attacker_traits & TRAIT["blind"]:
        blind = (cols.affects[a] & AFFECT_BITS["blind"]) != 0
        blind_fighting = cols.learned[SKILL["blind_fighting"]][a]
        blind_failed = blind & ~(percent(gen.random(n)) < blind_fighting)
    else:
        blind_failed = np.zeros(n, dtype=bool)
    if cols.undazed:  # worked out per creature when it was read (the same functions)
        hitroll, acc = cols.plain_pierce[a], cols.plain_acc[a]
    else:
        hitroll = hitroll_product(cols.hitroll[a], skill, cols.str_hit[a])
        acc = accuracy_value(knobs.base_w, cols.class_base[a], hitroll)
    ev = evasion_many(content, cols, v, blind_failed, victim_traits)
    chance = hit_chance_value(acc, ev, knobs.hit_pow, knobs.p_floor, knobs.p_cap)
    fight = content.fight
    first_hit_face, first_crit_face, crit_share, middle_share = d20_faces(
        fight.auto_miss_in_20, fight.auto_critical_in_20)
    face = (gen.random(n) * 20).astype(np.int64)
    middle = gen.random(n) < middle_threshold(chance, crit_share, middle_share)
    low, top = face < first_hit_face, face >= first_crit_face
    if low.any():
        hobbit = (cols.hobbit[a] != 0) if attacker_traits & TRAIT["hobbit"] else False
        hit = np.where(low, hobbit, top | middle)
        critical = np.where(low, hobbit, top)
    else:
        hit, critical = top | middle, top
    return hit, critical, hitroll, use_ok


def evasion_many(content: Content, cols: Columns, v: np.ndarray,
                 blind_failed: np.ndarray, traits: int) -> np.ndarray:
    """R-HIT-3 (tohit.evasion): the column cache's tohit.evasion_base, then
    tohit.evasion_adjusted and tohit.sluggish_factor on the arrays.
    `traits`: the TRAIT bits some victim has."""
    knobs = content.fight.armor
    # tohit.evasion_base, per creature (volley_columns)
    value = cols.ev_base[v]
    halve = cols.move[v] <= 0
    if traits & TRAIT["low_rank"]:
        halve |= cols.rank[v] < FIGHTING
    factor: np.ndarray | float = 1.0
    if traits & TRAIT["sluggish"]:
        status = content.statuses["sluggish"]
        factor = sluggish_factor(cols.sluggish[v], status.evasion_floor,
                                 status.evasion_per_degree)
    if halve.any() or blind_failed.any() or type(factor) is not float:
        value = evasion_adjusted(value, halve, blind_failed, knobs.blind_factor, factor)
    return value


def to_hit_legacy(content: Content, cols: Columns, a: np.ndarray, v: np.ndarray,
                  skill: np.ndarray, column: np.ndarray, gen: np.random.Generator
                  ) -> np.ndarray:
    """R-HIT-1 (tohit.roll_legacy): d20 0 misses (a hobbit hits), 19 hits, else
    face >= thac0 - ac."""
    n = len(a)
    thac0 = legacy_thac0_value(cols.thac0_legacy[a], cols.hitroll[a], cols.level[a],
                               cols.str_hit[a], skill)
    armor = np.stack([cols.armor_bash, cols.armor_pierce, cols.armor_slash,
                      cols.armor_exotic])[column, v]
    rank = cols.rank[v]
    ac = legacy_ac_value(armor, cols.dex_def[v], rank > SLEEPING)
    armor_use = cols.learned[SKILL["armor_use"]][v]
    use_ok = (armor_use > 1) & (percent(gen.random(n)) < armor_use)
    blind = has(cols, a, "blind")
    blind_failed = blind & ~(percent(gen.random(n)) < cols.learned[SKILL["blind_fighting"]][a])
    ac = legacy_ac_adjusted(ac, np.where(use_ok, cols.modify_level[v], 0), blind_failed,
                            rank, cols.move[v])
    face = (gen.random(n) * 20).astype(np.int64)
    return legacy_hits(face, cols.hobbit[a] != 0, thac0, ac)


def base_damage(content: Content, cols: Columns, a: np.ndarray, v: np.ndarray,
                skill: np.ndarray, gen: np.random.Generator) -> np.ndarray:
    """R-MELEE-3's damBase (blow.base_damage): an NPC's better hand dice unscaled; weapon
    dice x skill/100; bare-handed number_range(1 + 4 skill/100, (2L/3) skill/100);
    x21/20 with a weapon and no shield; sharp and holy weapons."""
    n = len(a)
    traits = cols.traits[a]
    some, every = traits_of(cols, a, traits)
    count, size = cols.dmg_n[a], cols.dmg_s[a]
    width = int(count.max(initial=0))
    if width > 0:
        rolled = roll_dice(count, size, gen.random((n, width))) + cols.dmg_b[a]
    else:
        rolled = cols.dmg_b[a]
    if every & TRAIT["has_dice"]:  # every blow's weapon has dice
        dam = weapon_damage(rolled, skill)
    else:
        dam = np.where((traits & TRAIT["has_dice"]) != 0, weapon_damage(rolled, skill), 0)
        bare_hands = (traits & (TRAIT["use_hand"] | TRAIT["has_dice"])) == 0
        if bare_hands.any():
            low, high = bare_hand_range(cols.level[a], skill)
            bare = np.where(low >= high, low,
                            low + (gen.random(n) * (high - low + 1)).astype(np.int64))
            dam = np.where(bare_hands, bare, dam)
    if some & TRAIT["use_hand"]:
        dam = np.where((traits & TRAIT["use_hand"]) != 0, rolled, dam)
    if some & TRAIT["wield"] and not every & TRAIT["shield"]:
        unshielded = (traits & (TRAIT["wield"] | TRAIT["shield"])) == TRAIT["wield"]
        if unshielded.any():
            dam = np.where(unshielded, unshielded_damage(dam), dam)
    if some & TRAIT["sharp"]:  # wielded and sharp
        sharp = (traits & TRAIT["sharp"]) != 0
        p = percent(gen.random(n))
        sharp &= sharp_succeeds(p, skill)
        dam = np.where(sharp, sharp_damage(dam, p), dam)
    if some & TRAIT["holy"]:  # wielded and holy
        holy = ((traits & TRAIT["holy"]) != 0) & (
            (cols.alignment[a] > GOOD) & (cols.alignment[v] < EVIL)
            & (percent(gen.random(n)) < 30))
        dam = np.where(holy, holy_damage(dam), dam)
    return dam


def traits_of(cols: Columns, rows: np.ndarray, traits: np.ndarray | None = None
              ) -> tuple[int, int]:
    """The TRAIT bits some of these creatures have, and those all of them have."""
    if not len(rows):
        return 0, 0
    if traits is None:
        traits = cols.traits[rows]
    return int(np.bitwise_or.reduce(traits)), int(np.bitwise_and.reduce(traits))


def type_table(content: Content, type_names: list[str]) -> np.ndarray:
    """Per damage type (by code): armor column index, immunity bits, fire, cold,
    lightning, spell armor; kept in the content's cache."""
    key = ("volley type table", tuple(type_names))
    table = content.cache.get(key)
    if table is None:
        table = content.cache[key] = np.array(
            [[column_index(content, t), type_bits(content, t, immunity.WEAPON),
              t == "fire", t == "cold", t == "lightning", t in content.damage.spell_armor]
             for t in type_names], dtype=np.int64).reshape(len(type_names), 6)
    return table


def compute_blows(world: World, cols: Columns, attackers: np.ndarray, victims: np.ndarray
                  ) -> Blows:
    """Every blow of these fighters (rows of `cols`) against their victims, as if all
    lived (blow.one_hit for each), in order: fighter by fighter, step by step.

    Past the to-hit roll only the blows that hit are computed (a miss ends a blow), and
    a roll is drawn only for the blows that may use it (docs/decisions.md)."""
    content = world.content
    gen = world.rng.numpy()
    steps, extra = blow_steps(world, cols, attackers, gen)
    if extra:
        turn, step = np.nonzero(steps)  # row-major: round order
    else:  # one blow each
        turn, step = np.arange(len(attackers)), np.zeros(len(attackers), dtype=np.int64)
    a, v = (attackers[turn], victims[turn]) if extra else (attackers, victims)
    n = len(a)
    skill = cols.plain_skill[a] if cols.undazed else 20 + cols.weapon_skill[a]
    # Each attacker's damage type (R-IMM-5) and what it means for armor and immunity.
    type_names = cols.type_names
    codes = cols.type_code[a]
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
    keep = np.flatnonzero(hit)
    a, v, skill = a[keep], v[keep], skill[keep]
    kept_codes = codes[keep]
    types = type_table(content, type_names)
    if len(keep) and kept_codes.min() == kept_codes.max():  # one damage type for all
        per_type = np.broadcast_to(types[kept_codes[0]], (len(keep), types.shape[1]))
    else:
        per_type = types[kept_codes]
    column, imm_bits = per_type[:, 0], per_type[:, 1]
    # R-MELEE-3: damage calculation.
    dam = base_damage(content, cols, a, v, skill, gen)
    some, every = traits_of(cols, a)
    if some & TRAIT["class_divisor"]:  # a player's class bonus
        divisor = cols.divisor[a]
        class_roll = percent(gen.random(len(a)))
        if every & TRAIT["class_divisor"]:
            dam = class_bonus(dam, class_roll, divisor)
        else:
            dam = np.where(divisor > 0, class_bonus(dam, class_roll, np.maximum(divisor, 1)),
                           dam)
    dam = dam + (cols.plain_damroll[a] if cols.undazed
                 else damroll_term(cols.damroll[a], skill))
    dam = strength_bonus(dam, cols.str_dam[a])
    numerator, denominator = content.fight.critical_multiplier
    kept_critical = critical[keep]
    if kept_critical.any():
        dam = np.where(kept_critical, critical_damage(dam, numerator, denominator),
                       dam)  # R-HIT-5
    dam = normalised(dam)
    raw = dam
    m = len(keep)
    victim_level = cols.modify_level[v]
    hits = HitArrays(
        dam=dam, melee=np.ones(m, dtype=bool), has_source=np.ones(m, dtype=bool),
        source_alignment=cols.alignment[a], source_level=cols.modify_level[a],
        fire=per_type[:, 2] != 0, cold=per_type[:, 3] != 0, lightning=per_type[:, 4] != 0,
        imm_bits=imm_bits, column=column, spell_armor=per_type[:, 5] != 0,
        pierce=pierce[keep], armor_use_level=np.where(use_ok[keep], victim_level, 0))
    imm, res, vuln = cols.imm[v], cols.res[v], cols.vuln[v]
    victim_arrays = VictimArrays(
        # R-PROT-4 reads the learned skill (a dazed victim's liturgy of 1 still counts,
        # as in the scalar step), not the effective one daze halves.
        affects=cols.affects[v], liturgy_skill=cols.learned_raw[SKILL["liturgy"]][v] > 0,
        modify_level=victim_level, imm=imm, res=res, vuln=vuln, armor=None)
    # Armor (R-PROT-7), the material (R-IMM-9) and the position (R-MELEE-4) keep a
    # positive hit positive, but for the material's immunity (the armor cut is at most
    # 99%, R-HIT-9; resistance takes a third, rounded down; the position multiplies):
    # which blows reach the defences is known before them, and the three steps are
    # worked out below only for the blows that end as damage, with the same operations.
    dam, immune = protect_many(content, hits, victim_arrays, armor=False)
    material = cols.weapon_bits[a]
    use = (material != 0) & (dam > 0)
    # only a material that meets the victim's imm, res or vuln changes the damage
    any_material = bool(use.any()) and bool(((material & (imm | res | vuln)) != 0).any())
    if any_material:  # R-IMM-9: the wielded weapon's material, alone
        material_immune = use & ((material & imm) != 0)
        immune |= material_immune
        reaches = (dam > 0) & ~material_immune
    else:
        reaches = dam > 0
    names = world.rules.defences.names
    unknown = set(names) - DEFENCES
    if unknown:
        raise ValueError(f"the vectorised round has no defence {sorted(unknown)[0]!r}")
    defended, which = defence_chain(world, cols, a, v, reaches, gen, names)
    kept_kind = np.where(defended, DEFENDED, np.where(immune, IMMUNE, DAMAGE))
    kind = np.full(n, MISS, dtype=np.int64)
    kind[keep] = kept_kind
    out_dam = np.zeros(n, dtype=np.int64)
    lands = np.flatnonzero(reaches & ~defended)  # the others deal 0
    if len(lands):
        out_dam[keep[lands]] = finish_damage(content, cols, hits, victim_arrays, lands,
                                             dam[lands], v[lands],
                                             material[lands] if any_material else None)
    out_raw = np.zeros(n, dtype=np.int64)
    out_raw[keep] = raw
    out_which = np.full(n, -1, dtype=np.int64)
    out_which[keep] = which
    if extra:
        counts = np.bincount(turn, minlength=len(attackers))
        stop = np.cumsum(counts)
        start = stop - counts
        a_all, v_all = attackers[turn], victims[turn]
    else:  # blow i is turn i's only one
        start, stop = turn, turn + 1
        a_all, v_all = attackers, victims
    return Blows(turn, step, a_all, v_all, kind, out_dam, out_raw, critical & hit,
                 out_which, start, stop)


def finish_damage(content: Content, cols: Columns, hits: HitArrays, victims: VictimArrays,
                  lands: np.ndarray, dam: np.ndarray, v: np.ndarray,
                  material: np.ndarray | None) -> np.ndarray:
    """The damage of the blows that land (`lands`: indexes into `hits`, each with damage
    above 0 and not defended), from the protections before armor: armor (R-PROT-7,
    armor model), the weapon's material (R-IMM-9), the victim's position (R-MELEE-4)."""
    if content.fight.model == "armor":
        column = hits.column[lands]
        points = cols.armor[np.where(column >= 0, column, 0)
                            if column.min(initial=0) < 0 else column, v]
        dam = armor_cut(content, dam, column, points, hits.armor_use_level[lands],
                        hits.spell_armor[lands], hits.has_source[lands],
                        hits.source_level[lands], hits.pierce[lands],
                        victims.modify_level[lands])
    if material is not None:
        use = (material != 0) & (dam > 0)
        if use.any():
            dam = np.where(use, resolve_many(material, victims.imm[lands],
                                             victims.res[lands], victims.vuln[lands], dam),
                           dam)
    rank = cols.rank[v]
    if (rank < FIGHTING).any():  # R-MELEE-4
        dam = position_multiplier_value(rank, dam)
    return dam


def defence_chain(world: World, cols: Columns, a: np.ndarray, v: np.ndarray,
                  reaches: np.ndarray, gen: np.random.Generator, names: list[str]
                  ) -> tuple[np.ndarray, np.ndarray]:
    """R-DEF-1..8 (defence.py): the chain in the registry's order; the first defence that
    succeeds ends the blow. Returns (defended, index of the defence). A defence's roll
    is drawn only for the blows still undefended that it may stop.

    Each defence works on the blows still open to it (`P`, indexes of blows), not on
    every blow: the same values for those, fewer passes over the others. The one roll
    drawn for every blow (blind fighting, R-DEF-8, when a victim of the round is blind)
    is drawn for every blow as before, and read where needed."""
    n = len(a)
    player = cols.player[v] != 0
    gap = cols.modify_level[v] - cols.modify_level[a]
    affects = cols.affects[v]
    if traits_of(cols, v)[0] & TRAIT["unaware"]:  # asleep, or stunned (R-DEF-5): no defence
        awake: np.ndarray | bool = ((cols.rank[v] > SLEEPING)
                                    & ((affects & AFFECT_BITS["stun"]) == 0))
    else:  # every defender awake and not stunned
        awake = True
    weak = (affects & AFFECT_BITS["weak_stun"]) != 0
    any_weak = bool(weak.any())
    blind = (affects & AFFECT_BITS["blind"]) != 0
    any_blind = bool(blind.any())
    attacking = cols.wclass[a]
    remaining = reaches.copy()
    which = np.full(n, -1, dtype=np.int64)
    # The defences some defender of the round has, and its affects: a defence nobody
    # has is skipped whole (it would roll nothing), unless its blindness adjustment
    # draws a roll for every blow first (shield block, cross block, hand block check
    # who has the defence after it).
    present_ok = int(np.bitwise_or.reduce(cols.defence_ok[v])) if n else 0
    present_affects = int(np.bitwise_or.reduce(affects)) if n else 0

    def base(name: str, vp: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Whether each defender has the defence, and its chance from the defender
        alone (volley_columns.defence_bases)."""
        return ((cols.defence_ok[vp] & DEFENCE_BIT[name]) != 0,
                cols.raw[f"{name}_chance"][vp])

    def adjust(name: str, chance: np.ndarray, P: np.ndarray, vp: np.ndarray) -> np.ndarray:
        if name in WEAK_STUN_HALVES and any_weak:  # R-DEF-5
            chance = np.where(weak[P], weak_stun_chance(chance), chance)
        if not any_blind:
            return chance
        blind_fighting = cols.learned[SKILL["blind_fighting"]][vp]
        roll = percent(gen.random(n))[P]  # drawn for every blow, as always
        seen = (blind_fighting > 1) & (roll < blind_fighting)  # R-DEF-8
        return np.where(blind[P], blind_chance(chance, seen), chance)

    def settle(index: int, P: np.ndarray, candidates: np.ndarray, threshold: np.ndarray,
               inclusive: bool = False) -> None:
        """number_percent() for the candidates among P (in blow order), below (or at)
        their threshold: defended by this defence."""
        where = np.flatnonzero(candidates)
        # roll = 1 + floor(100 u) (`percent`): roll <= limit is 100 u < limit and
        # roll < limit is 100 u < limit - 1, for a whole limit
        scaled = gen.random(len(where)) * 100
        limit = threshold[where]
        won = P[where[scaled < (limit if inclusive else limit - 1)]]
        which[won] = index
        remaining[won] = False

    def open_to(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        P = np.flatnonzero(mask)
        return P, v[P]

    for index, name in enumerate(names):  # R-DEF-1: the registry's order, first wins
        if not remaining.any():  # every blow settled: nothing more is rolled
            break
        bit = DEFENCE_BIT.get(name)
        if bit is not None and not present_ok & bit and (
                not any_blind or name in ("blink", "parry", "dodge")):
            continue  # nobody has it: nothing is drawn
        if name == "bat_swarm":  # R-DEF-2
            if not present_affects & AFFECT_BITS["bat_swarm"]:
                continue
            P, vp = open_to(remaining & ((affects & AFFECT_BITS["bat_swarm"]) != 0))
            if not len(P):
                continue
            settle(index, P, np.ones(len(P), dtype=bool), 50 + gap[P], inclusive=True)
        elif name == "shield_block":
            P, vp = open_to((attacking != WEAPON_WHIP) & awake & remaining)
            keep = cols.shield[vp] != 0
            P, vp = P[keep], vp[keep]
            if not len(P):
                continue
            ok, chance = base(name, vp)
            player_p = player[P]
            flail = player_p & (attacking[P] == WEAPON_FLAIL)
            if flail.any():  # a player's halved by a flail; an NPC's is flat (R-DEF-7)
                chance = np.where(flail, flail_block_chance(chance), chance)
            chance = adjust(name, chance, P, vp)
            candidates = ok & (~player_p | (cols.move[vp] > 0))
            settle(index, P, candidates, chance + gap[P])
        elif name == "blink":  # R-DEF-6
            P, vp = open_to(awake & remaining)
            ok, half = base(name, vp)
            if not ok.any():
                continue
            chance = with_half_gap(adjust(name, half, P, vp), gap[P])
            settle(index, P, ok, chance)
        elif name == "cross_block":
            P, vp = open_to(awake & remaining)
            keep = ((cols.wield[vp] != 0) & (cols.second[vp] != 0) & (cols.move[vp] > 0))
            P, vp = P[keep], vp[keep]
            if not len(P):
                continue
            ok, chance = base(name, vp)
            chance = adjust(name, chance, P, vp)
            settle(index, P, ok, chance + gap[P])
        elif name == "parry":
            P, vp = open_to(awake & remaining & (attacking != WEAPON_FLAIL)
                            & (attacking != WEAPON_WHIP))
            keep = ~(player[P] & (cols.wclass[vp] == WEAPON_NONE))
            P, vp = P[keep], vp[keep]
            ok, chance = base(name, vp)
            if not ok.any():
                continue
            chance = adjust(name, chance, P, vp)
            settle(index, P, ok, chance + gap[P])
        elif name == "hand_block":
            P, vp = open_to(player & awake & remaining)  # never an NPC (R-DEF-4)
            keep = (cols.wclass[vp] == WEAPON_NONE) & (cols.second[vp] == 0)
            P, vp = P[keep], vp[keep]
            if not len(P):
                continue
            ok, chance = base(name, vp)
            chance = adjust(name, chance, P, vp)
            settle(index, P, ok, chance + gap[P])
        elif name == "dodge":
            P, vp = open_to(awake & remaining)
            ok, chance = base(name, vp)
            player_p = player[P]
            ok &= ~player_p | (cols.move[vp] > 0)
            if not ok.any():
                continue
            attacking_p = attacking[P]
            flail = player_p & ((attacking_p == WEAPON_FLAIL) | (attacking_p == WEAPON_WHIP))
            if flail.any():  # a player's own dodge x6/5 against a flail or whip
                chance = np.where(flail, flail_dodge_chance(chance), chance)
            chance = adjust(name, chance, P, vp)
            settle(index, P, ok, with_half_gap(chance, gap[P]))
        else:
            raise ValueError(f"the vectorised round has no defence {name!r}")
    return which >= 0, which
