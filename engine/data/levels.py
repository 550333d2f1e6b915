"""What a creature's level implies: content `levels` (content/levels.toml).

A creature template states its level (`level`, 1 if it states none but has a `tier`):
the numbers it states are its numbers at that level. A scenario creature of that
template at another level gets each of those numbers scaled by the curve of the field,
value x curve(its level) / curve(the template's level), rounded half away from zero;
what the scenario creature sets itself wins (`affray.data.creatures.resolve`). An NPC
template with a `tier` gets the numbers it leaves out from the tier's multipliers of the
base curve at its own level (`tier_numbers`). The data is the source's newer balance
files (fight/mob_tiers.json, fight/pc_baseline.json; reference notes section 12); the
code that reads them in the source is not public, so how they are read here is ours
(docs/decisions.md, "Creatures at any level").

The curves: read at max(level, 1), on a straight line between two listed levels, at
the first value before the first (the file's own note: before its level-1 point, mobs of
levels 1-4 took the level-5 numbers), and past the last on the last segment's slope.
Arithmetic is exact (fractions of the content's decimals), so a worked example is exact
too, and rounding is C's `lround` (halves away from zero).

Which curve scales which field:

- a player character (`player = true`): hp and max_hp, hitroll, damroll, from the
  median live player of its band (`levels.pc.caster` for a caster profession, else
  `levels.pc.melee`). Its armor and saving throw come from its gear and are not scaled.
- an NPC: hp and max_hp by `npc.hp`; hand dice (`damage`) and damroll by `npc.dmg`;
  armor by `npc.ac`; hitroll and saving throw in proportion to the level (a tier's
  are level x its per-level share).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import msgspec
from msgspec import UNSET

from affray.data.defs import ARMOR_COLUMNS, CreatureFields, LevelsConfig, NpcCurve, PcCurve

# The fields a level implies, by who has them (the module doc).
PC_FIELDS = ("hp", "max_hp", "hitroll", "damroll")
NPC_FIELDS = ("hp", "max_hp", "damage", "damroll", "hitroll", "saving_throw", "armor")


def exact(number: float | int) -> Fraction:
    """A content number as the decimal the file wrote (0.8 is 4/5, not the float's
    binary neighbour): TOML decimals read back by their shortest repr."""
    if isinstance(number, int):
        return Fraction(number)
    return Fraction(repr(number))


def lround(value: Fraction) -> int:
    """C's lround: to the nearest whole number, halves away from zero (2.5 -> 3,
    -2.5 -> -3), on an exact fraction."""
    magnitude = math.floor(abs(value) + Fraction(1, 2))
    return magnitude if value >= 0 else -magnitude


def curve_at(levels: tuple[int, ...], values: tuple[float, ...], level: int) -> Fraction:
    """A curve at max(level, 1), exactly (the module doc says how it is read)."""
    lvl = max(level, 1)
    points = [(lv, exact(v)) for lv, v in zip(levels, values, strict=False)]
    if len(points) == 1 or lvl <= points[0][0]:
        return points[0][1]
    for (low, low_value), (high, high_value) in itertools.pairwise(points):
        if lvl <= high:
            return low_value + (high_value - low_value) * (lvl - low) / (high - low)
    (low, low_value), (high, high_value) = points[-2], points[-1]
    return high_value + (high_value - low_value) * (lvl - high) / (high - low)


# -- which curve ---------------------------------------------------------------------------
def pc_band(content: Any, profession: str | None) -> tuple[str, PcCurve]:
    """A player character's band: `caster` for a caster profession, else `melee`."""
    definition = content.professions.get(profession or "")
    if definition is not None and definition.flag == "caster":
        return "caster", content.levels.pc.caster
    return "melee", content.levels.pc.melee


def field_curve(content: Any, player: bool, profession: str | None, name: str
                ) -> tuple[tuple[int, ...], tuple[float, ...]] | None:
    """(levels, values) of the curve that scales field `name`; None: the level (hitroll
    and saving throw of an NPC scale in proportion to the level)."""
    if player:
        curve: PcCurve | NpcCurve = pc_band(content, profession)[1]
        column = {"hp": "hp", "max_hp": "hp", "hitroll": "hitroll", "damroll": "damroll"}
    else:
        curve = content.levels.npc
        column = {"hp": "hp", "max_hp": "hp", "damage": "dmg", "damroll": "dmg",
                  "armor": "ac"}
    if name not in column:
        return None
    return curve.level, getattr(curve, column[name])


def ratio(content: Any, player: bool, profession: str | None, name: str,
          old_level: int, new_level: int) -> Fraction:
    """curve(new level) / curve(old level) for field `name` (the load checks that no
    curve is 0 or changes sign at a level from 1 up, so it never divides by 0)."""
    curve = field_curve(content, player, profession, name)
    if curve is None:
        return Fraction(max(new_level, 1), max(old_level, 1))
    return curve_at(*curve, new_level) / curve_at(*curve, old_level)


# -- scaling one value -----------------------------------------------------------------------
def scale_int(value: int, factor: Fraction) -> int:
    """value x factor, rounded half away from zero."""
    return lround(value * factor)


def scale_dice(dice: tuple[int, int, int], factor: Fraction) -> tuple[int, int, int]:
    """Hand dice NdS+K with their average scaled by `factor`, keeping their shape: the
    count stays, the sides scale (at least 1), and the bonus carries the rest of the
    scaled average, rounded half away from zero (never below -N: no roll under 0).
    A flat number (no dice) scales as a number."""
    count, sides, bonus = dice
    if count == 0 or sides == 0:
        return count, sides, max(scale_int(bonus, factor), -count)
    average = Fraction(count * (sides + 1), 2) + bonus
    new_sides = max(1, lround(sides * factor))
    new_bonus = lround(average * factor - Fraction(count * (new_sides + 1), 2))
    return count, new_sides, max(new_bonus, -count)


def dice_text(dice: tuple[int, int, int]) -> str | int:
    """Dice as content writes them: "3d8+8", "2d10", or a whole number."""
    count, sides, bonus = dice
    if count == 0:
        return bonus
    sign = f"+{bonus}" if bonus > 0 else (f"-{-bonus}" if bonus < 0 else "")
    return f"{count}d{sides}{sign}"


# -- the tier's numbers -------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class TierNumbers:
    """What a tier implies at a level: hit points, hand dice, hitroll, armor points (on
    every column) and saving throw."""

    hp: int
    damage: tuple[int, int, int]
    hitroll: int
    armor: int
    saving_throw: int


def tier_numbers(content: Any, level: int, tier: str, style: str | None,
                 profession: str | None) -> TierNumbers:
    """The numbers of a mob of this level, tier and style (the tier's multipliers of the
    base curve, the variance left out: docs/decisions.md, "Creatures at any level"):

    - hp = max(1, lround(npc.hp(L) x tier.hp x style.hp x class hp));
    - dam = max(1, lround(npc.dmg(L) x tier.dmg x style.dmg x class dmg)), as hand dice
      NdT+B with N = level/10 + 1, T = max(2, lround(2 dam / N - 1)), B = max(0, dam -
      N (T + 1) / 2) (the division truncates);
    - hitroll = lround(L x tier.hitroll), saving_throw = lround(L x tier.saves);
    - armor points = -10 x lround(npc.ac(L) x tier.ac) on each column (R-HIT-10: the
      curve's AC is in tenths, negative protects, as the source's).

    L = max(level, 1). The dice's N is at most content's `max_dice_count` and T at most
    `max_dice_sides` (then B carries more), so a derived roll fits the engine's bounds.
    """
    levels = content.levels
    row = levels.tiers[tier]
    lvl = max(level, 1)
    shape = levels.styles[style] if style is not None else None
    hp_factor = exact(row.hp) * (exact(shape.hp) if shape else 1)
    dmg_factor = exact(row.dmg) * (exact(shape.dmg) if shape else 1)
    if profession is not None:
        hp_factor *= exact(levels.class_mult.hp.get(profession, 1))
        dmg_factor *= exact(levels.class_mult.dmg.get(profession, 1))
    npc = levels.npc
    hp = max(1, lround(curve_at(npc.level, npc.hp, level) * hp_factor))
    dam = max(1, lround(curve_at(npc.level, npc.dmg, level) * dmg_factor))
    limits = content.world.limits
    count = min(max(level, 0) // 10 + 1, limits.max_dice_count)
    sides = min(max(2, lround(Fraction(2 * dam, count) - 1)), limits.max_dice_sides)
    bonus = max(0, dam - count * (sides + 1) // 2)
    ac = lround(curve_at(npc.level, npc.ac, level) * exact(row.ac))
    return TierNumbers(hp=hp, damage=(count, sides, bonus),
                       hitroll=lround(lvl * exact(row.hitroll)), armor=-10 * ac,
                       saving_throw=lround(lvl * exact(row.saves)))


# -- a template's numbers at its level, and a creature's at its own -------------------------
def stated(template: CreatureFields, name: str) -> Any:
    """A field the template states, or None."""
    value = getattr(template, name)
    return None if value is UNSET else value


def levelled(template: CreatureFields | None) -> bool:
    """A template whose numbers belong to a level: it states `level` or a `tier`."""
    if template is None:
        return False
    return template.level is not UNSET or getattr(template, "tier", UNSET) is not UNSET


def template_numbers(content: Any, template: CreatureFields) -> dict[str, Any]:
    """The level-implied fields of a template at its own level: what it states, and for
    an NPC template with a `tier` what the tier implies for the rest (hp, hand dice,
    hitroll, saving throw, each armor column it leaves out). `armor` is a dict of the
    columns; `damage` is (count, sides, bonus)."""
    from affray.core.dice import parse_dice

    numbers: dict[str, Any] = {}
    player = bool(stated(template, "player"))
    for name in PC_FIELDS if player else NPC_FIELDS:
        value = stated(template, name)
        if value is None:
            continue
        if name == "armor":
            numbers["armor"] = {column: getattr(value, column) for column in ARMOR_COLUMNS
                                if getattr(value, column) is not UNSET}
        elif name == "damage":
            numbers["damage"] = parse_dice(value)
        else:
            numbers[name] = value
    tier = getattr(template, "tier", UNSET)
    if player or tier is UNSET:
        return numbers
    style = getattr(template, "style", UNSET)
    implied = tier_numbers(content, stated(template, "level") or 1, tier,
                           None if style is UNSET else style, stated(template, "profession"))
    if "hp" not in numbers and "max_hp" not in numbers:
        numbers["hp"] = implied.hp
    numbers.setdefault("damage", implied.damage)
    numbers.setdefault("hitroll", implied.hitroll)
    numbers.setdefault("saving_throw", implied.saving_throw)
    armor = numbers.setdefault("armor", {})
    for column in ARMOR_COLUMNS:
        armor.setdefault(column, implied.armor)
    return numbers


def derived_fields(content: Any, entry: CreatureFields | None,
                   template: CreatureFields | None) -> dict[str, Any]:
    """The values a creature's level implies for the level-implied fields, as content
    fields (`damage` as dice text, `armor` a dict of columns): the template's numbers
    (`template_numbers`) scaled from the template's level to the creature's. Empty when
    the template is not levelled (`levelled`); the entry's own fields are left for the
    caller to lay over these (they win)."""
    if template is None or not levelled(template):
        return {}
    numbers = template_numbers(content, template)
    old_level = stated(template, "level") or 1
    new_level = old_level
    if entry is not None and entry.level is not UNSET:
        new_level = entry.level
    player = bool(_pick("player", entry, template))
    profession = _pick("profession", entry, template)
    derived: dict[str, Any] = {}
    for name, value in numbers.items():
        factor = ratio(content, player, profession, name, old_level, new_level)
        if name == "armor":
            derived[name] = {column: scale_int(points, factor)
                             for column, points in value.items()}
        elif name == "damage":
            derived[name] = dice_text(scale_dice(value, factor))
        elif name in ("hp", "max_hp"):  # a creature lives: at least 1
            derived[name] = max(1, scale_int(value, factor))
        else:
            derived[name] = scale_int(value, factor)
    return derived


def _pick(name: str, entry: CreatureFields | None, template: CreatureFields) -> Any:
    """The entry's field, else the template's, else None."""
    for layer in (entry, template):
        if layer is not None and getattr(layer, name) is not UNSET:
            return getattr(layer, name)
    return None


# -- what `affray check` and `affray render` show --------------------------------------------
def describe(content: Any, entry: CreatureFields, template: CreatureFields | None,
             name: str) -> str | None:
    """One line for a creature whose numbers its level implies (its template's at
    another level, or a tier's): the derived values it fights with, then the ones the
    scenario sets itself (they win). None when nothing is derived: no levelled
    template, or a template without a tier at its own level."""
    if template is None or not levelled(template):
        return None
    old_level = stated(template, "level") or 1
    new_level = old_level if entry.level is UNSET else entry.level
    tier = getattr(template, "tier", UNSET)
    if new_level == old_level and tier is UNSET:
        return None
    own = {key: value for key, value in msgspec.structs.asdict(entry).items()
           if value is not UNSET}
    own_armor = {} if entry.armor is UNSET else {
        column: getattr(entry.armor, column) for column in ARMOR_COLUMNS
        if getattr(entry.armor, column) is not UNSET}
    derived, kept = [], []
    for field_name, value in derived_fields(content, entry, template).items():
        if field_name == "armor":
            derived += [f"armor.{column} {points}" for column, points in value.items()
                        if column not in own_armor]
            kept += [f"armor.{column} {points}" for column, points in own_armor.items()]
        elif field_name in own:
            kept.append(f"{field_name} {own[field_name]}")
        else:
            derived.append(f"{field_name} {value}")
    what = f"{template_name(entry)} (level {old_level}"
    if tier is not UNSET:
        style = getattr(template, "style", UNSET)
        what += f", tier {tier}" + ("" if style is UNSET else f", style {style}")
    line = f"{name}: {what}) at level {new_level}: {', '.join(derived) or 'nothing derived'}"
    return line + (f"; set by the scenario: {', '.join(kept)}" if kept else "")


def template_name(entry: CreatureFields) -> str:
    """The template a scenario entry names."""
    return str(getattr(entry, "template", None))


def scenario_lines(spec: Any, content: Any) -> list[str]:
    """`describe` for each creature of a parsed scenario (`affray.data.scenario.ScenarioFile`)
    over its layered content, in the file's order."""
    lines = []
    for entry in spec.creatures:
        template = content.creatures.get(entry.template) if entry.template else None
        line = describe(content, entry, template, entry.id)
        if line:
            lines.append(line)
    return lines


# -- the content's own checks ---------------------------------------------------------------
def curve_problems(levels: LevelsConfig, max_level: int) -> list[tuple[str, str]]:
    """(field, message) for each curve a ratio could not divide by: levels strictly
    increasing (named by the curve's `level` field), one value per level, and every
    value from level 1 to `max_level` of one sign (hp, dmg, hitroll, damroll above 0;
    ac below 0). The curves are straight between their points, so the points, level 1
    and `max_level` decide it."""
    groups: list[tuple[str, NpcCurve | PcCurve, tuple[tuple[str, int], ...]]] = [
        ("npc", levels.npc, (("hp", 1), ("dmg", 1), ("ac", -1))),
        ("pc.melee", levels.pc.melee, (("hp", 1), ("hitroll", 1), ("damroll", 1))),
        ("pc.caster", levels.pc.caster, (("hp", 1), ("hitroll", 1), ("damroll", 1))),
    ]
    problems = []
    for prefix, curve, columns in groups:
        order = _levels_problem(curve.level)
        if order:
            problems.append((f"{prefix}.level", order))
            continue
        for column, sign in columns:
            problem = _curve_problem(curve.level, getattr(curve, column), sign, max_level)
            if problem:
                problems.append((f"{prefix}.{column}", problem))
    return problems


def _levels_problem(points: tuple[int, ...]) -> str | None:
    if not points:
        return "a curve needs at least one level"
    if any(high <= low for low, high in itertools.pairwise(points)):
        return f"levels must increase: {list(points)}"
    return None


def _curve_problem(points: tuple[int, ...], values: tuple[float, ...], sign: int,
                   max_level: int) -> str | None:
    if len(points) != len(values):
        return f"has {len(values)} values for {len(points)} levels"
    probes = sorted({1, max_level, *(lv for lv in points if lv >= 1)})
    for level in probes:
        value = curve_at(points, values, level)
        if value * sign <= 0:
            want = "above 0" if sign > 0 else "below 0"
            return (f"is {float(value):g} at level {level}: every level from 1 to "
                    f"{max_level} (content world.limits.max_level) must read {want}, as a "
                    f"creature's numbers are scaled by it")
    return None
