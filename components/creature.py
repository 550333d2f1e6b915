"""Creature components: plain data, every field of SCENARIO.md's creature schema.

Some fields are read only by rules that arrive in later issues (stats, armor, skills...);
they exist now so scenarios and saves carry them from the start. Hot per-pulse counters
(wait, daze) live in the World's dense lag arrays, indexed by `Creature.slot`, so the idle
pulse is one numpy operation (R-LAG-1).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from affray.components.registry import component


@component
@dataclass(slots=True)
class Spawn:
    """Spawn number: strictly increasing, never reused; breaks every tie (R-GRID-3)."""

    number: int


@component
@dataclass(slots=True)
class Position:
    """The cell a creature or item is on."""

    x: int
    y: int


@component
@dataclass(slots=True)
class Creature:
    """Identity of a creature: scenario id, template, race, profession, flags."""

    id: str
    slot: int
    template: str | None = None
    race: str = "human"
    profession: str = "mobile"
    player: bool = False
    undead: bool = False
    immortal: bool = False
    npc_tier: int = 0
    # R-SIDE-1: the side it is on; minds never target their own side. Resolved at
    # creation: "players" for a player character, "npcs" otherwise, unless given.
    side: str = "npcs"


@component
@dataclass(slots=True)
class Vitals:
    """Hit points, movement points and position (standing, fighting, sleeping...)."""

    hp: int
    max_hp: int
    move: int = 100
    alive: bool = True
    position: str = "standing"
    # The pulse `move` was last brought up to date: regeneration is computed lazily from
    # the pulses since (systems/rules/blow.py `refresh_move`), never by a per-pulse pass.
    move_pulse: int = 0
    # R-BOOK-2: mana, spent by casts from mana when the world's `casting.mana` is on,
    # regenerated lazily like movement (`spellbook.refresh_mana`) from `mana_pulse`.
    mana: int = 100
    max_mana: int = 100
    mana_pulse: int = 0


@component
@dataclass(slots=True)
class Level:
    """Level, remort levels (R-LVL-1) and alignment (-1000..1000); what else the spell
    level reads (R-LVL-3): clan ("shalafi" keeps half the class penalty), religion (None:
    none, so prayers weaken) and the skill-level bonus of equipment and affects."""

    level: int = 1
    remorts: int = 0
    alignment: int = 0
    clan: str | None = None
    religion: str | None = None
    skill_level_bonus: int = 0


@component
@dataclass(slots=True)
class Stats:
    """The seven stats; tables in content index by the current value (0..28)."""

    strength: int = 13
    intelligence: int = 13
    wisdom: int = 13
    dexterity: int = 13
    constitution: int = 13
    charisma: int = 13
    willpower: int = 12


@component
@dataclass(slots=True)
class Offense:
    """Hitroll, damroll and an NPC's hand dice (count, size, bonus)."""

    hitroll: int = 0
    damroll: int = 0
    hand_dice: tuple[int, int, int] | None = None


@component
@dataclass(slots=True)
class Defense:
    """Saving throw, armor points per column (R-HIT-10) and an NPC's listed defences."""

    saving_throw: int = 0
    armor_bash: int = 0
    armor_pierce: int = 0
    armor_slash: int = 0
    armor_exotic: int = 0
    defences: tuple[str, ...] = ()


@component
@dataclass(slots=True)
class Immunities:
    """Immune, resistant and vulnerable bit sets (R-IMM-2), as ints of content bits."""

    imm: int = 0
    res: int = 0
    vuln: int = 0


@component
@dataclass(slots=True)
class Affects:
    """Named affects (sanctuary, stun, weak_stun, conductor...) with their levels.

    A level of -2 marks a permanent affect, -1 an affect counted five levels higher for
    dispel (R-SAVE-9). `source` says where an affect came from ("equipment" cannot be
    dispelled while worn, R-IMM-6).
    """

    levels: dict[str, int] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    # The pulse each affect was applied on (paralysis counts its elapsed ticks, R-STUN-3).
    since: dict[str, int] = field(default_factory=dict)


@component
@dataclass(slots=True)
class Statuses:
    """Statuses with degrees (burning, sluggish, corroded, poisoned), SPEC section 12.

    Times are absolute pulses, not countdowns, so a world that jumps idle pulses needs to
    touch nobody: `ends` is the pulse a status ends on, `next_tick` the pulse of its next
    tick (statuses that tick), `owed` the hit points corroded still has to take.
    """

    degrees: dict[str, int] = field(default_factory=dict)
    ends: dict[str, int] = field(default_factory=dict)
    next_tick: dict[str, int] = field(default_factory=dict)
    owed: dict[str, int] = field(default_factory=dict)


@component
@dataclass(slots=True)
class Skills:
    """Learned skill percentages by skill name."""

    learned: dict[str, int] = field(default_factory=dict)


@component
@dataclass(slots=True)
class WornItem:
    """One piece of worn gear: an item name, its slot, and whether acid damaged it."""

    item: str
    slot: str
    damaged: bool = False


@component
@dataclass(slots=True)
class Equipment:
    """The wielded weapon (an item name), a second weapon, and worn gear, body first."""

    wield: str | None = None
    worn: list[WornItem] = field(default_factory=list)
    second: str | None = None


@component
@dataclass(slots=True)
class Combat:
    """Whom the creature fights (a creature id) and its last combat round."""

    fighting: str | None = None
    rounds: int = 0


@component
@dataclass(slots=True)
class Mind:
    """A creature's mind and what it remembers (R-MIND-1..7): the mind's name (None: no
    mind, it acts only when told), the foe it is after and the cell it last saw it on
    (followed when it is out of sight, R-MIND-3), whether it is fleeing (R-MIND-5), and
    the first pulse it may try a spell again (R-MIND-6). Saved with the world."""

    name: str | None = None
    target: str | None = None
    last_seen: tuple[int, int] | None = None
    fleeing: bool = False
    next_cast: int = 0
    # When it last found nothing to do: the log's length then (-1: it did something),
    # and the pulse it asked to be looked at again whatever happens (-1: none). Saved,
    # so a loaded world asks the same minds at the same pulses (R-MIND-7).
    idle_since: int = -1
    wake: int = -1
