"""To-hit: the armor model (R-HIT-2..6) and the legacy THAC0 model (R-HIT-1).

The fight config's `model` picks one. Both are pure functions of the two sheets and the
content, plus the world's generator for the rolls, drawn in a fixed order: armor use
(if the victim has it), blind fighting (if the attacker is blind), then the d20 face,
then (armor model, middle faces) one uniform.
"""

from __future__ import annotations

import functools
from fractions import Fraction
from typing import TYPE_CHECKING, Any, NamedTuple

from affray.core.arith import any_of, clamp, interpolate, maximum, minimum, select, tdiv
from affray.data.defs import POSITIONS
from affray.systems.rules.hit import ZERO

if TYPE_CHECKING:
    from affray.core.rng import Rng
    from affray.data.content_loader import Content
    from affray.systems.rules.sheet import Sheet

FIGHTING = POSITIONS.index("fighting")
RESTING = POSITIONS.index("resting")
SLEEPING = POSITIONS.index("sleeping")
POSITION_RANK = {name: rank for rank, name in enumerate(POSITIONS)}


# -- the formulas, one definition each (ints or numpy arrays: issue 12) -----------------
# The scalar blow below and the vectorised round (volley_columns, volley_blows) both call
# these; each takes plain values, so `f(37)` and `f(np.array([37]))` agree element for
# element (floats bit for bit: the same operations in the same order).


def class_base_value(level: Any, thac00: Any, thac32: Any) -> Any:
    """R-HIT-2: classBase = 20 - interpolate(modify level, thac00, thac32), at least 1."""
    return maximum(20 - interpolate(level, thac00, thac32), 1)


def hitroll_product(hitroll: Any, skill: Any, str_hit: Any) -> Any:
    """R-HIT-2 / R-HIT-7: the effective hitroll in whole 1/10000ths: hitroll x skill% x
    (100 + strength hit bonus)%."""
    return hitroll * skill * (100 + str_hit)


def accuracy_value(base_w: float, class_base: Any, pierce: Any) -> Any:
    """R-HIT-2: acc = base_w * classBase + effective hitroll (`pierce`, 1/10000ths)."""
    return base_w * class_base + pierce / HITROLL_SCALE


def evasion_base(level: Any, defensive: Any, ev_level: float, ev_dex: float) -> Any:
    """R-HIT-3 before position, blindness and Sluggish: ev_level * Lv + ev_dex *
    (-dex defensive) * min(1, Lv/100)."""
    return ev_level * level + ev_dex * (-defensive) * minimum(level / 100.0, 1.0)


def sluggish_factor(degrees: Any, floor: float, per_degree: float) -> Any:
    """R-STAT-2: evasion x max(floor, 1 - per_degree * d) for Sluggish d; 1.0 without."""
    return select(degrees != 0, maximum(1.0 - per_degree * degrees, floor), 1.0)


def evasion_adjusted(value: Any, halve: Any, blind_failed: Any, blind_factor: float,
                     sluggish: Any) -> Any:
    """R-HIT-3: evasion halved below fighting or with no movement, times blind_factor
    against a blind attacker that failed blind fighting, times the Sluggish factor."""
    value = select(halve, value / 2.0, value)
    value = select(blind_failed, value * blind_factor, value)
    return value * sluggish


def hit_chance_value(acc: Any, ev: Any, hit_pow: float, p_floor: float, p_cap: float) -> Any:
    """R-HIT-4: acc^hit_pow / (acc^hit_pow + ev^hit_pow), clamped to p_floor..p_cap; no
    accuracy (0 or less) gives 0, accuracy against no evasion 1 (before the clamp)."""
    if hit_pow == 2.0:  # the default: a product is much cheaper than a power
        a, e = acc * acc, ev * ev
    else:
        a, e = abs(acc) ** hit_pow, abs(ev) ** hit_pow
    unclear = (acc <= 0) | (ev <= 0)
    if any_of(unclear):  # (the share's divisor made 1 there: it is not used)
        chance = select(acc <= 0, 0.0,
                        select(ev <= 0, 1.0, a / select(unclear, 1.0, a + e)))
    else:
        chance = a / (a + e)
    return minimum(maximum(chance, p_floor), p_cap)


def d20_faces(auto_miss: int, auto_critical: int) -> tuple[int, int, float, float]:
    """R-HIT-5's d20 (faces 0..19): the first face that is not an automatic miss, the
    first critical face, the criticals' share c/20 and the middle faces' share
    1 - (m + c)/20 (at least 1e-12)."""
    return (auto_miss, 20 - auto_critical, auto_critical / 20.0,
            max(1e-12, 1.0 - (auto_miss + auto_critical) / 20.0))


def middle_threshold(chance: Any, crit_share: float, middle_share: float) -> Any:
    """R-HIT-5: a middle face hits when a uniform draw is below (P - c/20) / middle
    share, so that the overall hit rate is P."""
    return (chance - crit_share) / middle_share


def legacy_thac0_base(level: Any, thac00: Any, thac32: Any) -> Any:
    """R-HIT-1: thac0 interpolated by modify level, halved below 0, and below -5
    compressed to -5 + (thac0 + 5)/2."""
    thac0 = interpolate(level, thac00, thac32)
    thac0 = select(thac0 < 0, tdiv(thac0, 2), thac0)
    return select(thac0 < -5, -5 + tdiv(thac0 + 5, 2), thac0)


def legacy_thac0_value(thac0: Any, hitroll: Any, level: Any, str_hit: Any, skill: Any) -> Any:
    """R-HIT-1: minus the hitroll term ((hitroll - real level/2) plus its strength share,
    x skill/100), plus 5 x (100 - skill)/100."""
    hr = hitroll - tdiv(level, 2)
    hr = hr + tdiv(hr * str_hit, 100)
    return thac0 - tdiv(hr * skill, 100) + tdiv(5 * (100 - skill), 100)


def legacy_ac_value(armor: Any, dex_defensive: Any, awake: Any) -> Any:
    """R-HIT-1 / R-HIT-10: AC/10 of -armor points (plus the dex defensive value while
    awake); below -20 compressed: ((ac + 20) * 2)/3 - 20."""
    ac = tdiv(-armor + select(awake, dex_defensive, 0), 10)
    return select(ac < -20, tdiv((ac + 20) * 2, 3) - 20, ac)


def legacy_ac_adjusted(ac: Any, armor_use_level: Any, blind_failed: Any, rank: Any,
                       move: Any) -> Any:
    """R-HIT-1: a successful armor use takes modify level/2 off (`armor_use_level`: the
    victim's modify level, 0 when it failed); a blind attacker that failed blind
    fighting, 4; resting or below +4, sleeping or below +6 more; no movement +10."""
    ac = ac - tdiv(armor_use_level, 2) - 4 * blind_failed
    return ac + 4 * (rank < FIGHTING) + 6 * (rank < RESTING) + 10 * (move <= 0)


def legacy_hits(face: Any, hobbit: Any, thac0: Any, ac: Any) -> Any:
    """R-HIT-1: d20 face 0 misses (a hobbit hits), 19 hits, else face >= thac0 - ac."""
    return select(face == 0, hobbit, select(face == 19, True, face >= thac0 - ac))


def stat_index(value: Any) -> Any:
    """Stat tables index the current stat, 0..28 (ints or arrays; the blow's hottest
    reads write this clamp out inline)."""
    return clamp(value, 0, 28)


# ZERO (from affray.systems.rules.hit): one shared exact zero, for a Roll's defaults and
# the armor-use bonus (a Fraction is immutable, and building one costs a gcd).
# tuple.__new__(Roll, (...)) builds a NamedTuple without the Python frame of its generated
# __new__: half the cost, for the records made on every blow.
_new_tuple = tuple.__new__


class Roll(NamedTuple):
    """The outcome of a to-hit roll and what the blow needs from it (a tuple: one is
    made per blow, and building a tuple positionally is the cheapest record)."""

    hit: bool
    critical: bool = False
    pierce: Fraction = ZERO       # effective hitroll, exact, for armor (R-HIT-7)
    armor_bonus: Fraction = ZERO  # from a successful armor-use roll (R-HIT-3)


# -- shared pieces --------------------------------------------------------------------
def class_base(sheet: Sheet) -> int:
    """R-HIT-2: 20 - interpolate(level, thac00, thac32), never below 1."""
    profession = sheet.profession
    level = sheet.level
    return _class_base(level.level + level.remorts, profession.thac00, profession.thac32)


# The scalar blow calls the formulas whose arguments take few values through these
# memos: a C-level look-up on every blow instead of the formula's Python calls (the
# formulas stay the one definition; a memo only remembers what they gave).
_class_base = functools.lru_cache(maxsize=4096)(class_base_value)
_evasion_base = functools.lru_cache(maxsize=4096)(evasion_base)
_accuracy_value = functools.lru_cache(maxsize=4096)(accuracy_value)
_hit_chance_value = functools.lru_cache(maxsize=4096)(hit_chance_value)
_middle_threshold = functools.lru_cache(maxsize=4096)(middle_threshold)


HITROLL_SCALE = 10000  # hitroll x skill% x (100 + bonus)%: a whole number of 1/10000ths


def hitroll_ten_thousandths(sheet: Sheet, skill: int, content: Content) -> int:
    """R-HIT-2's effective hitroll in whole 1/10000ths: hitroll * skill * (100 + strength
    hit bonus), exact."""
    strength = sheet.stats.strength  # stat_index, written out: this runs every blow
    str_hit = content.stats.str_.hit[0 if strength < 0 else 28 if strength > 28 else strength]
    return hitroll_product(sheet.offense.hitroll, skill, str_hit)


def effective_hitroll(sheet: Sheet, skill: int, content: Content) -> Fraction:
    """R-HIT-2: hitroll * skill% * (1 + strength hit bonus%), exact: it pierces armor,
    a protection step, which works in exact fractions (R-PROT-9). `skill` is the blow's
    skill (20 + weapon skill, so 20..120, as the source's)."""
    return exact_hitroll(hitroll_ten_thousandths(sheet, skill, content))


_EXACT_HITROLLS: dict[int, Fraction] = {}


def exact_hitroll(ten_thousandths: int) -> Fraction:
    """`ten_thousandths` / 10000 as a Fraction, memoised: a blow needs one, building it
    (a gcd and type checks) costs more than the rest of the to-hit roll, and a fight
    sees a handful of distinct values. Fractions are immutable, so sharing one is safe."""
    exact = _EXACT_HITROLLS.get(ten_thousandths)
    if exact is None:
        if len(_EXACT_HITROLLS) >= 4096:  # bounded: a game varying hitroll endlessly
            _EXACT_HITROLLS.clear()
        exact = _EXACT_HITROLLS[ten_thousandths] = Fraction(ten_thousandths, HITROLL_SCALE)
    return exact


@functools.lru_cache(maxsize=256)
def exact_knob(value: float) -> Fraction:
    """A content knob as the decimal it was written as: 1.6 is 8/5, not the binary float
    just below it (so a 10% cut is exactly 10%). Memoised, with a bound: the knobs are few
    and fixed, but armor also reads a game's own float pierce through it (R-HIT-7)."""
    return Fraction(repr(value))


def blind_fails(attacker: Sheet, rng: Rng, effective: int) -> bool:
    """A blind attacker rolls blind fighting: number_percent() < effective succeeds."""
    if not attacker.has("blind"):
        return False
    return not rng.percent() < effective


def armor_use_succeeds(victim: Sheet, rng: Rng, effective: int) -> bool:
    """The victim's armor use: effective above 1 and number_percent() < effective."""
    return effective > 1 and rng.percent() < effective


# -- the armor model ------------------------------------------------------------------
def accuracy(attacker: Sheet, skill: int, content: Content) -> float:
    """R-HIT-2: base_w * classBase + effective hitroll."""
    return accuracy_value(content.fight.armor.base_w, class_base(attacker),
                          hitroll_ten_thousandths(attacker, skill, content))


def evasion(victim: Sheet, content: Content, attacker_blind_failed: bool) -> float:
    """R-HIT-3 (and R-STAT-2): ev_level * Lv + ev_dex * (-dex defensive) * min(1, Lv/100);
    halved below fighting position or with no movement points; times blind_factor when
    the attacker is blind and failed blind fighting; times (1 - 0.1 d) for Sluggish d
    (floor from content)."""
    knobs = content.fight.armor
    levels = victim.level
    level = levels.level + levels.remorts
    dex = victim.stats.dexterity  # stat_index, written out: this runs every blow
    defensive = content.stats.dex.defensive[0 if dex < 0 else 28 if dex > 28 else dex]
    value = _evasion_base(level, defensive, knobs.ev_level, knobs.ev_dex)
    vitals = victim.vitals
    halve = POSITION_RANK[vitals.position] < FIGHTING or vitals.move <= 0
    degrees = victim.statuses.degrees
    sluggish = degrees.get("sluggish", 0) if degrees else 0
    if halve or attacker_blind_failed or sluggish:  # else evasion_adjusted changes nothing
        factor = 1.0
        if sluggish:
            status = content.statuses["sluggish"]
            factor = sluggish_factor(sluggish, status.evasion_floor, status.evasion_per_degree)
        value = evasion_adjusted(value, halve, attacker_blind_failed, knobs.blind_factor,
                                 factor)
    return value


def hit_chance(acc: float, ev: float, content: Content) -> float:
    """R-HIT-4: acc^hit_pow / (acc^hit_pow + ev^hit_pow), clamped to p_floor..p_cap."""
    knobs = content.fight.armor
    return _hit_chance_value(acc, ev, knobs.hit_pow, knobs.p_floor, knobs.p_cap)


def roll_d20(chance: float, hobbit: bool, rng: Rng, content: Content) -> tuple[bool, bool]:
    """R-HIT-5: faces 0..m-1 miss (a hobbit scores a critical instead), the top c faces
    are criticals, the rest hit with (P - c/20) / (1 - (m + c)/20) so the overall hit
    rate is P. Returns (hit, critical)."""
    faces = content.cache.get("d20")
    if faces is None:
        fight = content.fight
        faces = content.cache["d20"] = d20_faces(fight.auto_miss_in_20,
                                                 fight.auto_critical_in_20)
    first_hit_face, first_crit_face, crit_share, middle_share = faces
    face = rng.number_range(0, 19)
    if face < first_hit_face:
        return (True, True) if hobbit else (False, False)
    if face >= first_crit_face:
        return True, True
    return rng.random() < _middle_threshold(chance, crit_share, middle_share), False


def roll_armor_model(attacker: Sheet, victim: Sheet, skill: int, rng: Rng, content: Content,
                     blind_fighting: int, armor_use: int) -> Roll:
    """The armor model's roll (R-HIT-2..5)."""
    knobs = content.fight.armor
    bonus = ZERO
    if armor_use > 1 and armor_use_succeeds(victim, rng, armor_use):
        bonus = exact_knob(knobs.armor_use_bonus) * victim.modify_level
    blind_failed = ("blind" in attacker.affects.levels
                    and blind_fails(attacker, rng, blind_fighting))
    # hitroll_ten_thousandths and class_base, written out (a call each saved on every
    # blow): accuracy() (R-HIT-2), its parts apart: the hitroll is needed again for the
    # pierce (R-HIT-7)
    strength = attacker.stats.strength  # stat_index, written out
    hitroll = hitroll_product(attacker.offense.hitroll, skill, content.stats.str_.hit[
        0 if strength < 0 else 28 if strength > 28 else strength])
    level, profession = attacker.level, attacker.profession
    acc = _accuracy_value(knobs.base_w, _class_base(level.level + level.remorts,
                                                    profession.thac00, profession.thac32),
                          hitroll)
    # hit_chance() (R-HIT-4), its memo called here: a Python call saved on every blow
    chance = _hit_chance_value(acc, evasion(victim, content, blind_failed), knobs.hit_pow,
                               knobs.p_floor, knobs.p_cap)
    hit, critical = roll_d20(chance, attacker.creature.race == "hobbit", rng, content)
    pierce = _EXACT_HITROLLS.get(hitroll)  # (not `or`: a Fraction's truth is a call)
    if pierce is None:
        pierce = exact_hitroll(hitroll)
    return _new_tuple(Roll, (hit, critical, pierce, bonus))  # Roll(...) without its frame


# -- the legacy model -----------------------------------------------------------------
def legacy_thac0(attacker: Sheet, skill: int, content: Content) -> int:
    """R-HIT-1 (source_notes section 4): thac0 from the profession, compressed, minus the
    hitroll term, plus the skill term. All divisions truncate toward zero."""
    profession = attacker.profession
    thac0 = legacy_thac0_base(attacker.modify_level, profession.thac00, profession.thac32)
    return legacy_thac0_value(thac0, attacker.offense.hitroll,
                              attacker.level.level,  # real level
                              content.stats.str_.hit[stat_index(attacker.stats.strength)],
                              skill)


def legacy_armor_class(victim: Sheet, column: str, content: Content) -> int:
    """R-HIT-1 / R-HIT-10: AC/10 of the column; AC = -armor points, plus the dex table's
    defensive value while awake; AC below -20 is compressed: ((ac+20)*2)/3 - 20."""
    return legacy_ac_value(victim.armor(column),
                           content.stats.dex.defensive[stat_index(victim.stats.dexterity)],
                           POSITION_RANK[victim.vitals.position] > SLEEPING)


def roll_legacy(attacker: Sheet, victim: Sheet, skill: int, column: str, rng: Rng,
                content: Content, blind_fighting: int, armor_use: int) -> Roll:
    """R-HIT-1: d = number_range(0, 19); 0 misses (a hobbit hits), 19 hits, else the
    blow hits iff d >= thac0 - ac. No rescaling, no critical, no armor reduction."""
    thac0 = legacy_thac0(attacker, skill, content)
    armor_use_level = victim.modify_level if armor_use_succeeds(victim, rng, armor_use) else 0
    blind_failed = blind_fails(attacker, rng, blind_fighting)
    ac = legacy_ac_adjusted(legacy_armor_class(victim, column, content), armor_use_level,
                            blind_failed, POSITION_RANK[victim.vitals.position],
                            victim.vitals.move)
    face = rng.number_range(0, 19)
    return Roll(legacy_hits(face, attacker.creature.race == "hobbit", thac0, ac))
