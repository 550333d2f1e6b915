"""Protections, in the seed's order, each on what the one before left (SPEC section 4).

Each step is a small function `step(hit, world)` that changes `hit.dam` in whole hit
points; its rounding is in its docstring. The steps sit in one ordered registry
(`default_protections()`); a game adds a protection by adding a step (R-PROT-8).
Raw damage skips them all (R-DMG-1).
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import TYPE_CHECKING, Any, NamedTuple

from affray.core.arith import any_of, select, tdiv
from affray.core.errors import HookError
from affray.systems.rules import immunity
from affray.systems.rules.hit import ZERO
from affray.systems.rules.registry import Steps, hook_failed
from affray.systems.rules.tohit import exact_knob

if TYPE_CHECKING:
    from affray.core.world import World
    from affray.data.defs import ArmorModel
    from affray.systems.rules.hit import Hit

Exact = Fraction | int  # an exact value: its numerator and denominator are ints

GOOD, EVIL = 333, -333  # SCENARIO.md: evil below -333, good above 333


# -- the formulas, one definition each (ints or numpy arrays: issue 12) -----------------
# The steps below and the vectorised protections (volley_protect.protect_many) call
# these; each flag is a bool per hit (or an array of them).
def sanctuary_value(dam: Any, sanctuary: Any, dark_shroud: Any, clan_guard: Any,
                    resistance: Any) -> Any:
    """R-PROT-1: sanctuary (or stardust) dam/2; else a dark shroud dam*6/10 (dam/2 for a
    clan guard); else the resistance spell dam - dam*2/5. Each branch is worked out only
    when some hit takes it (lowest precedence first, each overriding the one before)."""
    out = dam
    if any_of(resistance):
        out = select(resistance, dam - tdiv(dam * 2, 5), out)
    if any_of(dark_shroud):
        out = select(dark_shroud, select(clan_guard, tdiv(dam, 2), tdiv(dam * 6, 10)), out)
    if any_of(sanctuary):
        out = select(sanctuary, tdiv(dam, 2), out)
    return out


def alignment_cuts(source_alignment: Any, protection_evil: Any, protection_good: Any) -> Any:
    """R-PROT-2: protection from evil against an evil attacker, or from good against a
    good one."""
    return (((source_alignment < EVIL) & protection_evil)
            | ((source_alignment > GOOD) & protection_good))


def quarter_cut(dam: Any) -> Any:
    """R-PROT-2, R-PROT-3, R-IMM-8: dam - dam/4 (alignment, heat or cold, conductor)."""
    return dam - tdiv(dam, 4)


def liturgy_value(dam: Any, level: Any, melee: Any) -> Any:
    """R-PROT-4: a melee blow loses dam*(3 + Lv/10)/100, another hit dam*Lv/1200."""
    return dam - select(melee, tdiv(dam * (3 + tdiv(level, 10)), 100),
                        tdiv(dam * level, 1200))


def flat_trim_value(dam: Any) -> Any:
    """R-PROT-6: a hit above 10 becomes dam*4/5, truncated; 10 or less stays."""
    return select(dam > 10, tdiv(dam * 4, 5), dam)


# MEMOS for the steps (a C-level look-up instead of the formula's Python calls; the
# formula stays the one definition). For whole-number damage only: a game's modifier may
# leave a float or a Fraction, whose keys would share entries with ints (12.0 == 12).
_sanctuary_value = functools.lru_cache(maxsize=4096)(sanctuary_value)
_flat_trim_value = functools.lru_cache(maxsize=4096)(flat_trim_value)


def sanctuary(hit: Hit, world: World) -> None:
    """R-PROT-1: sanctuary or stardust: dam/2. Else a dark shroud: dam*6/10 (dam/2 for a
    clan guard). Else the resistance spell: dam - dam*2/5. Truncating: 37 -> 18; shroud
    37 -> 22; resistance 37 -> 37 - 14 = 23."""
    affects = hit.victim.affects.levels
    if not affects:
        return  # the common case: no affect, nothing to look up
    formula = _sanctuary_value if type(hit.dam) is int else sanctuary_value  # (MEMOS)
    # the first that applies (the formula gives each precedence too)
    if "sanctuary" in affects or "stardust" in affects:
        hit.dam = formula(hit.dam, True, False, False, False)
    elif "dark_shroud" in affects:
        hit.dam = formula(hit.dam, False, True, "clan_guard" in affects, False)
    elif "resistance" in affects:
        hit.dam = formula(hit.dam, False, False, False, True)


def alignment(hit: Hit, world: World) -> None:
    """R-PROT-2: protection from evil (good) takes dam/4 off a hit from an evil (good)
    attacker. Truncating: 37 -> 37 - 9 = 28. No attacker, no cut."""
    source = hit.source
    affects = hit.victim.affects.levels
    if source is None or not affects:
        return
    if alignment_cuts(source.level.alignment, "protection_evil" in affects,
                      "protection_good" in affects):
        hit.dam = quarter_cut(hit.dam)


def temperature(hit: Hit, world: World) -> None:
    """R-PROT-3: protection from heat takes dam/4 off fire; from cold, off cold.
    Truncating: 37 -> 28."""
    damage_type = hit.damage_type
    if damage_type != "fire" and damage_type != "cold":
        return
    affects = hit.victim.affects.levels
    if ((damage_type == "fire" and "protection_heat" in affects)
            or (damage_type == "cold" and "protection_cold" in affects)):
        hit.dam = quarter_cut(hit.dam)


def liturgy(hit: Hit, world: World) -> None:
    """R-PROT-4: a victim with the liturgy affect or skill: a melee blow loses
    dam*(3 + Lv/10)/100, a damage-pipeline hit dam*Lv/1200 (Lv its modify level).
    Truncating at each division: Lv 55, 37 melee -> 37 - 37*8/100 = 37 - 2 = 35;
    37 spell -> 37 - 37*55/1200 = 37 - 1 = 36."""
    victim = hit.victim
    if "liturgy" not in victim.affects.levels and victim.skills.learned.get("liturgy", 0) <= 0:
        return
    hit.dam = liturgy_value(hit.dam, victim.modify_level, hit.melee)


def immune(hit: Hit, world: World) -> None:
    """R-PROT-5: first the victim's on-immune hooks (its own, its template's, its
    affects'), any of which may handle the hit (and zero it); then the table (R-IMM-3).
    Then conductor: its owner resists electricity 25% more, dam - dam/4 (R-IMM-8).
    `hit.immune` is set when this step took a positive hit to 0."""
    before = hit.dam
    victim = hit.victim
    handled = False
    if world.rules.hooks["on_immune"]:
        for hook in world.rules.hooks_for("on_immune", victim.hook_owners()):
            try:
                answer = hook(hit, world)
            except HookError:
                raise
            except Exception as error:  # a game's hook: name it (VictimDeath passes)
                raise hook_failed(world, hook, error) from error
            if answer:
                handled = True
                break
    if not handled:
        # hit_bits' own cache read first: a call only the first time a pair is seen
        bits = world.content.cache.get((hit.damage_type, hit.flags), -1)
        if bits == -1:
            bits = immunity.hit_bits(world.content, hit.damage_type, hit.flags)
        if bits:
            own = victim.immunities  # Sheet.imm_mask / res_mask / vuln_mask, written out
            imm, res = own.imm | victim.gear_imm, own.res | victim.gear_res
            vuln = own.vuln | victim.gear_vuln
            if bits & (imm | res | vuln):  # else resolve says normal: the damage stays
                hit.dam = immunity.apply(immunity.resolve(bits, imm, res, vuln), hit.dam)
    if hit.damage_type == "lightning" and "conductor" in victim.affects.levels:
        hit.dam = quarter_cut(hit.dam)
    if before > 0 and hit.dam == 0:
        hit.immune = True


def flat_trim(hit: Hit, world: World) -> None:
    """R-PROT-6: a hit above 10 becomes dam*4/5, truncated: 11 -> 8, 37 -> 29; 10 stays."""
    dam = hit.dam
    hit.dam = _flat_trim_value(dam) if type(dam) is int else flat_trim_value(dam)  # (MEMOS)


class ExactArmor(NamedTuple):
    """The armor knobs as exact fractions (R-PROT-9), made once per knob set."""

    dr_level: Fraction
    dr_pierce: Fraction
    cap: Fraction                 # min(dr_cap%, 99%) (R-HIT-9)
    power: int | None             # dr_pow when it is a whole number, else None
    spell_factor: Fraction
    spell_pierce_level: Fraction
    dr_pow: float                 # the power itself, for the inexact fractional case
    # dr_level, dr_pierce and cap taken apart once into whole numbers, for cut_fraction:
    # (dr_level num, den, dr_pierce num, den, cap num, den).
    whole: tuple[int, int, int, int, int, int]


MAX_CUT = Fraction(99, 100)  # R-HIT-9


@functools.lru_cache(maxsize=64)
def exact_armor(knobs: ArmorModel) -> ExactArmor:
    """The knobs as the decimals content wrote (1.6 is 8/5)."""
    power = int(knobs.dr_pow) if float(knobs.dr_pow).is_integer() else None
    dr_level, dr_pierce = exact_knob(knobs.dr_level), exact_knob(knobs.dr_pierce)
    cap = min(exact_knob(knobs.dr_cap) / 100, MAX_CUT)
    return ExactArmor(dr_level, dr_pierce, cap, power,
                      exact_knob(knobs.spell_factor), exact_knob(knobs.spell_pierce_level),
                      knobs.dr_pow, (dr_level.numerator, dr_level.denominator,
                                     dr_pierce.numerator, dr_pierce.denominator,
                                     cap.numerator, cap.denominator))


# -- R-HIT-8 / R-HIT-9's cut, one definition (ints or int arrays: issue 12) ------------
def armor_k(victim_level: Any, pierce_num: Any, pierce_den: Any,
            whole: tuple[int, int, int, int, int, int]) -> tuple[Any, Any]:
    """R-HIT-8: k = dr_level * Lv + dr_pierce * pierce as kn / kd (`whole`: the knobs
    taken apart, ExactArmor.whole; pierce = pierce_num / pierce_den)."""
    dl_num, dl_den, dp_num, dp_den = whole[0], whole[1], whole[2], whole[3]
    return (dl_num * victim_level * dp_den * pierce_den + dp_num * pierce_num * dl_den,
            dl_den * dp_den * pierce_den)


def armor_cut_ratio(a: Any, k: Any, kn: Any, power: int, cap_num: int, cap_den: int
                    ) -> tuple[Any, Any]:
    """R-HIT-8 / R-HIT-9 for a whole dr_pow: armor / k = a / k (a = armor num x kd,
    k = kn x armor den); cut = a^n / (a^n + k^n), the cap when above it or when k is 0
    or less. Returns the cut as (numerator, denominator)."""
    if power != 1:  # the default 1: no power to raise
        a, k = a ** power, k ** power
    capped = (kn <= 0) | (a * cap_den > cap_num * (a + k))
    return select(capped, cap_num, a), select(capped, cap_den, a + k)


def armor_cut_float(a: int, k: int, kn: int, dr_pow: float, cap: Fraction
                    ) -> tuple[int, int] | float:
    """R-HIT-8 / R-HIT-9 for a fractional dr_pow (the one inexact case): x = (a/k)^dr_pow,
    cut = x / (1 + x), at most the cap (a float); the exact cap (numerator, denominator)
    when k is 0 or less. One value (the vectorised protections call it per hit)."""
    if kn <= 0:
        return cap.numerator, cap.denominator
    x = (a / k) ** dr_pow
    cut = x / (1.0 + x)
    return float(cap) if cut > cap else cut


def armor_loss(dam: Any, numerator: Any, denominator: Any) -> Any:
    """R-PROT-7: the victim keeps the rounding: it loses floor(dam x cut)."""
    return dam - dam * numerator // denominator


def armor_loss_float(dam: int, cut: float) -> int:
    """R-PROT-7 with a float cut (a fractional dr_pow): dam - floor(dam x cut)."""
    return dam - math.floor(dam * cut) if cut > 0 else dam


def _cut_terms(an: int, ad: int, victim_level: int, pn: int, pd: int,
               whole: tuple[int, int, int, int, int, int], power: int) -> tuple[int, int]:
    """cut_fraction's whole-power case from the formulas above (memoised below)."""
    kn, kd = armor_k(victim_level, pn, pd, whole)
    return armor_cut_ratio(an * kd, kn * ad, kn, power, whole[4], whole[5])


_cut_terms_memo = functools.lru_cache(maxsize=4096)(_cut_terms)


def cut_fraction(armor: Exact, victim_level: int, pierce: Exact,
                 exact: ExactArmor) -> tuple[int, int] | float:
    """R-HIT-8 / R-HIT-9 in integers: the cut as (numerator, denominator), or a float
    for a fractional dr_pow. armor / k with k = dr_level * Lv + dr_pierce * pierce;
    cut = a^n / (a^n + k^n), at most the cap. Every operand is an int or a Fraction,
    taken apart into numerators and denominators (whole-number arithmetic is several
    times cheaper than Fraction objects on the blow's path)."""
    an, ad = armor.numerator, armor.denominator
    if an <= 0:
        return 0, 1
    power = exact.power
    if power is None:
        kn, kd = armor_k(victim_level, pierce.numerator, pierce.denominator, exact.whole)
        return armor_cut_float(an * kd, kn * ad, kn, exact.dr_pow, exact.cap)
    # the formulas' memo: a C-level look-up on most blows
    return _cut_terms_memo(an, ad, victim_level, pierce.numerator, pierce.denominator,
                           exact.whole, power)


def armor_reduction(armor: Exact, victim_level: int, pierce: Exact,
                    knobs: ArmorModel) -> Fraction | float:
    """R-HIT-8 / R-HIT-9: the fraction armor takes off.

    k = dr_level * victim level + dr_pierce * pierce; x = (armor / k) ^ dr_pow;
    reduction = min(dr_cap%, x / (1 + x)), never above 99%. Armor of 0 or less reduces
    nothing; a k of 0 or less with armor above 0 gives the cap (no division by zero).
    With a whole dr_pow the result is an exact fraction, armor^n / (armor^n + k^n) (so
    armor 10 against k 90 is exactly 1/10); a fractional dr_pow has no exact value and
    gives a float (the one inexact case, recorded in docs/decisions.md).
    """
    cut = cut_fraction(armor, victim_level, pierce, exact_armor(knobs))
    return Fraction(*cut) if isinstance(cut, tuple) else cut


def armor(hit: Hit, world: World) -> None:
    """R-PROT-7 / R-HIT-7: armor, last, with the armor model on. Bash, pierce, slash use
    their column, energy the exotic one, pierced by the attacker's effective hitroll;
    fire, cold, lightning, acid, light use exotic * spell_factor, pierced by attacker
    level * spell_pierce_level; other types pass. Exact arithmetic throughout; the victim
    keeps the rounding: it loses floor(dam * cut), so 37 at 150/382 loses 14 -> 23,
    and 20 at exactly 1/10 loses 2 -> 18."""
    dam = hit.dam
    content = world.content
    if dam <= 0 or content.fight.model != "armor":
        return
    damage_type = hit.damage_type
    damage = content.damage
    column = damage.armor_column.get(damage_type)
    if column is None:
        return
    victim = hit.victim
    bonus = hit.armor_bonus
    points: Exact = (victim.armor(column) if bonus is ZERO or not bonus
                     else victim.armor(column) + bonus)
    if points <= 0:
        return  # R-HIT-9: no armor, no reduction
    exact = content.cache.get("exact_armor")
    if exact is None:  # once per content: a dict look-up is cheaper than hashing knobs
        exact = content.cache["exact_armor"] = exact_armor(content.fight.armor)
    if damage_type in damage.spell_armor:
        points = points * exact.spell_factor
        pierce: Exact = (hit.source.modify_level * exact.spell_pierce_level
                            if hit.source is not None else 0)
    else:
        pierce = hit.pierce
        if isinstance(pierce, float):  # a game's own float: read as the decimal it shows
            pierce = exact_knob(pierce)
    level = victim.level
    cut = cut_fraction(points, level.level + level.remorts, pierce, exact)
    if isinstance(cut, tuple):
        hit.dam = armor_loss(dam, cut[0], cut[1])
    else:
        hit.dam = armor_loss_float(dam, cut)


def default_protections() -> Steps:
    """The seed's order (R-PROT-1..7): sanctuary, alignment, temperature, liturgy,
    immunity, flat trim, armor."""
    return Steps([("sanctuary", sanctuary), ("alignment", alignment),
                  ("temperature", temperature), ("liturgy", liturgy), ("immunity", immune),
                  ("flat_trim", flat_trim), ("armor", armor)])


def protect(hit: Hit, world: World) -> None:
    """Run every registered protection step in order (R-PROT-8). A world whose registry
    holds the default steps in the default order runs them inline below, each only when
    it could change the hit; any other registry runs the plain loop."""
    steps = world.rules.protections
    pairs = steps.items()
    seen = _last_registry_check[0]  # one read: a (pairs, verdict) tuple stays whole across threads
    if seen[0] is not pairs:
        seen = _last_registry_check[0] = (pairs, pairs == default_protections().items())
    if not seen[1]:
        for step in steps:
            try:
                step(hit, world)
            except HookError:
                raise
            except Exception as error:  # a game's step: name it (VictimDeath passes)
                raise hook_failed(world, step, error) from error
        return
    # The default registry: its steps in order, each called only when it could change the
    # hit: a step is skipped on a condition under which it does nothing (a victim with no
    # affect has no sanctuary, no protection from alignment, no liturgy affect; only fire
    # and cold meet temperature; 10 or less passes the flat trim). The steps keep their
    # own checks; skipping them saves a call each on most blows. Same result as the loop
    # (tests/test_protections.py compares the two on many hits).
    victim = hit.victim
    affects = victim.affects.levels
    if affects:
        sanctuary(hit, world)  # R-PROT-1
        alignment(hit, world)  # R-PROT-2
    damage_type = hit.damage_type
    if damage_type == "fire" or damage_type == "cold":
        temperature(hit, world)  # R-PROT-3
    if affects or "liturgy" in victim.skills.learned:
        liturgy(hit, world)  # R-PROT-4
    immune(hit, world)  # R-PROT-5
    if hit.dam > 10:
        flat_trim(hit, world)  # R-PROT-6
    armor(hit, world)  # R-PROT-7, R-HIT-7..9


# The registry last looked at (its pairs tuple, kept alive so its identity stays its own)
# and whether it held the default steps in the default order, as one tuple.
_last_registry_check: list[tuple[Any, bool]] = [(None, False)]
