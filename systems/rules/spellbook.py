"""Spell lists and mana (R-BOOK-1, R-BOOK-2).

- R-BOOK-1 A creature's spell list: a player character's is the spells among its
  `skills` (in the order it learned them); an NPC's is its mind's `spells`. Minds cast
  only from it; with the world's `casting.known_only` on, a cast from mana of a spell
  not in the list is refused at submit.
- R-BOOK-2 With `casting.mana` on, a cast from mana costs the spell's `mana` and is
  refused at submit when the caster has less; a player character loses its
  concentration when a percent roll is at or above its learned percent of the spell
  (the source's "You lost your concentration"), paying half (`cast_failed`, reason
  "concentration"). Scrolls, wands, traps and breath cost nothing. Mana comes back
  every `casting.regen_pulses` by max(1, (wis + 2 int + level) // `regen_divisor`),
  computed when read (as movement, `blow.refresh_move`), never by a per-pulse pass.

Reads `Skills`, `Mind`, `Stats`, `Level`, `Vitals`; writes `Vitals.mana`, `mana_pulse`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from affray.core.world import World
    from affray.data.content_loader import Content
    from affray.systems.rules.sheet import Sheet


def spell_list(content: Content, sheet: Sheet) -> tuple[str, ...]:
    """R-BOOK-1: the spells a creature knows."""
    if sheet.creature.player:
        return tuple(name for name in sheet.skills.learned if name in content.spells)
    mind = content.minds.get(sheet.mind.name) if sheet.mind.name else None
    return mind.spells if mind is not None else ()


def mana_gain(content: Content, sheet: Sheet) -> int:
    """Mana regained each regeneration tick (module docstring)."""
    stats = sheet.stats
    base = stats.wisdom + 2 * stats.intelligence + sheet.level.level
    return max(1, base // content.world.casting.regen_divisor)


def current_mana(world: World, sheet: Sheet) -> int:
    """The mana a creature has now, regeneration since `mana_pulse` included, without
    changing anything (the snapshot reads it)."""
    vitals = sheet.vitals
    if vitals.mana >= vitals.max_mana:
        return vitals.mana
    every = world.content.world.casting.regen_pulses
    ticks = world.pulse // every - vitals.mana_pulse // every
    if ticks <= 0:
        return vitals.mana
    return min(vitals.max_mana, vitals.mana + ticks * mana_gain(world.content, sheet))


def refresh_mana(world: World, sheet: Sheet) -> int:
    """Bring a creature's mana up to date (before it is spent) and return it."""
    vitals = sheet.vitals
    vitals.mana = current_mana(world, sheet)
    vitals.mana_pulse = world.pulse
    return vitals.mana


def mana_check(world: World, sheet: Sheet, spell: str, via: str) -> str | None:
    """Why a cast cannot be made now under R-BOOK-1/2, or None: a spell not in the list
    (known_only), or less mana than it costs (mana). Changes nothing."""
    casting = world.content.world.casting
    if via != "mana":
        return None
    if casting.known_only and spell not in spell_list(world.content, sheet):
        return f"{spell!r} is not in its spell list (casting.known_only)"
    if casting.mana:
        cost = world.content.spells[spell].mana
        have = current_mana(world, sheet)
        if have < cost:
            return f"not enough mana for {spell!r}: {have} of {cost}"
    return None


def pay(world: World, sheet: Sheet, spell: str) -> bool:
    """R-BOOK-2 when a cast from mana runs: refresh, then a player character's
    concentration roll (failure: half the cost, False); else the whole cost, True."""
    refresh_mana(world, sheet)
    cost = world.content.spells[spell].mana
    vitals = sheet.vitals
    if sheet.creature.player:
        learned = sheet.skills.learned.get(spell, 0)
        if world.rng.percent() >= learned:
            vitals.mana -= min(vitals.mana, cost // 2)
            return False
    vitals.mana -= min(vitals.mana, cost)
    return True
