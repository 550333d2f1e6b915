"""The level a spell is cast at (SPEC section 10, R-LVL-1..4).

The caster's level is not the spell's level: `cast_level` starts from the modify level
(level + remort levels), takes the profession's class penalty off, then runs the steps of
R-LVL-3 in the seed's order, each reading the world's rng in a fixed order (spell craft's
roll, the improved-casting roll, mastering's roll then its 1..4 or 1..5). The formulas
and integer arithmetic are the source's `DefaultSpell::getSpellLevel`; where the seed and
the source differ the seed wins (the clan upgrade of mastering exists; the source-only
"Shalafi atheist +2" does not). See docs/decisions.md, `R-LVL-*`.

Skills are read as effective skills (daze halves them: R-LAG-3) and a skill step rolls
only when the caster's effective skill is above 0. NPCs cast at their modify level.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from affray.core.arith import tdiv
from affray.systems.rules.skills import effective_skill

if TYPE_CHECKING:
    from affray.core.world import World
    from affray.data.defs import SpellDef
    from affray.systems.rules.sheet import Sheet

SHALAFI = "shalafi"
# R-LVL-3: the improved-casting skill of each spell group; the level becomes
# mlevel + skill/20 on a success.
IMPROVED_BY_GROUP = {"maladictions": "improved_maladiction",
                     "benedictions": "improved_benediction",
                     "healing": "holy_remedy", "curative": "holy_remedy"}
# A learned clan_mastering (any value above 0; it is never rolled) is the clan upgrade
# of mastering spell: 1..5 instead of 1..4, and a tenth of the mana back.
CLAN_MASTERING = "clan_mastering"
CLAN_MASTERING_REFUND = 0.1
CONCENTRATE_B0 = 12.0  # magic concentrate's free parameter (the source's B0)


@dataclass(frozen=True, slots=True)
class CastLevel:
    """The outcome of R-LVL: the level, and what the Spell system needs beside it.

    - `level`: the spell level; 0 or below means the cast fails (R-LVL-4).
    - `refused`: why it failed: "prayer" (no religion and too old to pray, R-LVL-3) or
      "skill_level_bonus" (a negative bonus took it to 0 or below); None when it did not.
    - `mana_refund`: the fraction of the cast's mana given back (0.1 when mastering spell
      succeeded with the clan upgrade; affray keeps no mana pool, so it is reported only).
    - `steps`: (step, level after it) for every step that ran, for logs and tests.
    """

    level: int
    refused: str | None = None
    mana_refund: float = 0.0
    steps: tuple[tuple[str, int], ...] = ()

    @property
    def failed(self) -> bool:
        """R-LVL-4: a cast at level 0 or below fails."""
        return self.level <= 0


def class_penalty(flag: str, mlevel: int) -> int:
    """R-LVL-2: caster mlevel/20; hybrid max(2, mlevel/16); agile max(3, mlevel/13);
    anything else max(5, mlevel/10)."""
    if flag == "caster":
        return max(0, tdiv(mlevel, 20))
    if flag == "hybrid":
        return max(2, tdiv(mlevel, 16))
    if flag == "agile":
        return max(3, tdiv(mlevel, 13))
    return max(5, tdiv(mlevel, 10))


def concentrate_factor(spell_range: int, distance: int) -> float:
    """R-LVL-3, magic concentrate: f = A0 / (1 + x/B0), A0 = a / (B0 ln(1 + a/B0)),
    a = max(1, range), x = distance, B0 = 12 (floating point, as the source). Averaged
    over the distances 0..a the factor is 1: close casts gain what far casts lose."""
    a = max(1, spell_range)
    a0 = a / (CONCENTRATE_B0 * math.log(1.0 + a / CONCENTRATE_B0))
    return a0 / (1.0 + distance / CONCENTRATE_B0)


def concentrates(caster: Sheet, spell: SpellDef) -> bool:
    """Magic concentrate applies to ranged (range above 0, not a touch) offensive
    non-prayer spells of a caster with the affect."""
    return (caster.has("magic_concentrate") and not spell.prayer and spell.offensive
            and spell.range > 0 and spell.shape != "touch")


def _succeeds(world: World, caster: Sheet, skill: str) -> tuple[bool, int]:
    """(success, effective skill): rolls number_percent() < effective skill only when
    the effective skill is above 0 (no roll otherwise)."""
    effective = effective_skill(world, caster, skill, spell=True)
    if effective <= 0:
        return False, 0
    return world.rng.percent() < effective, effective


def cast_level(world: World, caster: Sheet, spell: SpellDef, distance: int) -> CastLevel:
    """R-LVL-1..4: the level `caster` casts `spell` at, `distance` cells (Chebyshev) from
    the creature or cell it aims at."""
    mlevel = caster.modify_level  # R-LVL-1: level + remort levels
    if caster.npc:  # R-LVL-1: an NPC casts at its level, nothing else applies
        level = max(1, mlevel)
        return CastLevel(level, steps=(("npc", level),))
    steps: list[tuple[str, int]] = []
    slevel = mlevel - class_penalty(caster.profession.flag, mlevel)  # R-LVL-2
    steps.append(("class_penalty", slevel))
    # R-LVL-3, in the seed's order.
    if spell.prayer and caster.level.religion is None:
        if mlevel > 1:  # keeps 100 - 2*mlevel percent
            slevel = tdiv(slevel * (100 - 2 * mlevel), 100)
        steps.append(("no_religion", slevel))
        if slevel <= 0:  # the prayer is refused
            return CastLevel(slevel, refused="prayer", steps=tuple(steps))
    if caster.level.clan == SHALAFI:  # keeps half the penalty
        slevel = max(slevel, tdiv(slevel + mlevel, 2))
        steps.append(("shalafi", slevel))
    success, _ = _succeeds(world, caster, "spell_craft")
    if success:
        slevel = mlevel
        steps.append(("spell_craft", slevel))
    improved = IMPROVED_BY_GROUP.get(spell.group)
    if improved is not None:
        success, effective = _succeeds(world, caster, improved)
        if success:
            slevel = mlevel + tdiv(effective, 20)
            steps.append((improved, slevel))
    if concentrates(caster, spell):
        slevel = int(concentrate_factor(spell.range, distance) * slevel)  # truncates
        steps.append(("magic_concentrate", slevel))
    refund = 0.0
    success, _ = _succeeds(world, caster, "mastering_spell")
    if success:
        upgraded = caster.skills.learned.get(CLAN_MASTERING, 0) > 0
        slevel += world.rng.number_range(1, 5 if upgraded else 4)
        refund = CLAN_MASTERING_REFUND if upgraded else 0.0
        steps.append(("mastering_spell", slevel))
    if spell.prayer:  # wisdom for prayers, intelligence otherwise; floor of 1
        table, stat = world.content.stats.wis.slevel, caster.stats.wisdom
    else:
        table, stat = world.content.stats.int_.slevel, caster.stats.intelligence
    slevel = max(1, slevel + table[min(len(table) - 1, max(0, stat))])
    steps.append(("wis_app" if spell.prayer else "int_app", slevel))
    slevel += caster.level.skill_level_bonus  # may take it below 1 (R-LVL-4)
    steps.append(("skill_level_bonus", slevel))
    return CastLevel(slevel, refused="skill_level_bonus" if slevel <= 0 else None,
                     mana_refund=refund, steps=tuple(steps))


def spell_level(world: World, caster: Sheet, spell: SpellDef, distance: int) -> int:
    """R-LVL-1..4 as a bare level: 0 or below means the cast fails (see `cast_level` for
    why, and for mastering's mana refund)."""
    return cast_level(world, caster, spell, distance).level
