"""The fighters of a round as numpy columns, kept between rounds (volley.py).

Reading ~40 fields of every fighter costs far more than a round's arithmetic, so the
columns persist in `World.volley_cache` (a `VolleyCache`): row r holds one creature's
numbers, and a round re-reads only the rows that may have changed since the last one.

What may change a cached creature, and how the cache learns it (docs/decisions.md, "the
persistent columns"):

- the vectorised round itself: it writes what it changed (hit points, movement, whom a
  roused victim fights) into the columns as it writes the components;
- anything else the engine does to a creature logs an event naming it (a blow, a spell, a
  status tick, a stun, a move, a death...): at the start of a round every event logged
  since the cache last looked, and every event written by a scalar turn inside a round,
  marks the creatures it names (`source`, `target`, `actor`, `killer`, `cause`) dirty;
- the World's API mutators that log nothing (`add_affect`, `remove_affect`,
  `start_fight`, `place`) and `melee.fighter_turn` ending a fight whose target is gone
  touch the creature (`World.touch`, `VolleyCache.touch`), as a game that edits
  components by hand must (docs/api.md);
- a dirty creature out of the round's fight (the dead, a victor whose foe fell) is only
  marked `unread`: it is read when a round takes it as a fighter or a target
  (`VolleyCache.need`), so a pack of a thousand duels does not read its dead;
- a load (new sheets), a content change, a log that shrank or was replaced, `touch()`
  with no creature, or more rows than 4 x the fighters + 4,096 throw the whole cache
  away (`VolleyCache.valid_for`); a world with a hook registered (a hook may change
  anything silently) keeps none (volley.volley_round reads its columns afresh).

Lag (daze) is read from the lag table every round, never cached.

Values derived from a creature's numbers (effective skills with daze, armor per column,
masks...) are worked out for all rows at once with the scalar rules' integer rounding,
once per distinct row of inputs (`Derived`): rows alike (a thousand copies of a duel, an
army's ranks of one template) take the values of the first, and a creature read again
with the same inputs takes its own.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from itertools import chain, repeat
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from affray.core.dice import dice_average_x2
from affray.core.event_log import EventLog
from affray.core.events import mark_named
from affray.data.defs import ARMOR_COLUMNS
from affray.systems.rules.blow import (
    CLASS_DIVISOR,
    damroll_term,
    movement_cost,
    prefers_hand_dice,
)
from affray.systems.rules.defence import (
    FIGHTERS,
    blink_chance,
    cross_block_chance,
    dodge_chance,
    hand_block_chance,
    parry_chance,
    shield_block_chance,
)
from affray.systems.rules.skills import effective_value, npc_weapon_skill
from affray.systems.rules.tohit import (
    POSITION_RANK,
    SLEEPING,
    accuracy_value,
    class_base_value,
    evasion_base,
    hitroll_product,
    legacy_thac0_base,
    stat_index,
)
from affray.systems.rules.volley_protect import AFFECT_BITS, affect_mask

if TYPE_CHECKING:
    from affray.core.world import World
    from affray.systems.rules.sheet import Sheet

# Skills a blow reads, in column order of `Columns.learned`.
SKILLS = ("blind_fighting", "armor_use", "liturgy", "shield_block", "blink", "cross_block",
          "parry", "hand_block", "dodge", "second_attack", "third_attack", "fourth_attack",
          "fifth_attack")
SKILL = {name: i for i, name in enumerate(SKILLS)}
# Defences an NPC's template may list, as bits of `Columns.npc_defences`.
DEFENCE_BIT = {name: 1 << i for i, name in enumerate(
    ("shield_block", "blink", "cross_block", "parry", "hand_block", "dodge"))}
# Profession codes the defences read.
PROF_OTHER, PROF_FIGHTER, PROF_THIEF, PROF_NINJA, PROF_ANTI = 0, 1, 2, 3, 4
WEAPON_NONE, WEAPON_OTHER, WEAPON_FLAIL, WEAPON_WHIP = 0, 1, 2, 3

# Plain numbers read straight off the sheet, by one C-level getter per creature.
_NUMBERS = {
    "player": "creature.player", "immortal": "creature.immortal", "slot": "creature.slot",
    "level": "level.level", "remorts": "level.remorts", "alignment": "level.alignment",
    "hp": "vitals.hp", "move": "vitals.move", "move_pulse": "vitals.move_pulse",
    "alive": "vitals.alive", "spawn": "spawn.number", "entity": "entity",
    "strength": "stats.strength", "dexterity": "stats.dexterity",
    "hitroll": "offense.hitroll", "damroll": "offense.damroll",
    "own_bash": "defense.armor_bash", "own_pierce": "defense.armor_pierce",
    "own_slash": "defense.armor_slash", "own_exotic": "defense.armor_exotic",
    "own_imm": "immunities.imm", "own_res": "immunities.res", "own_vuln": "immunities.vuln",
    "gear_imm": "gear_imm", "gear_res": "gear_res", "gear_vuln": "gear_vuln",
    "shield": "shield", "weapon_bits": "weapon_bits", "x": "position.x", "y": "position.y",
}
_NUMBER_GETTER = operator.attrgetter(*_NUMBERS.values())
# Values that are not plain numbers.
_OBJECTS = operator.attrgetter("vitals.position", "affects.levels", "skills.learned",
                               "statuses.degrees", "equipment.second", "weapon_skill",
                               "combat.fighting", "weapon_type", "creature.id")
# Immutable definitions (and the gear view `refresh_gear` replaces whole): what they
# give is worked out once per distinct combination and kept (StaticRows).
_STATIC = operator.attrgetter("profession", "weapon", "weapon_dice", "offense.hand_dice",
                              "defense.defences", "gear_armor", "creature.race",
                              "creature.profession", "creature.player")
_STATIC_FIELDS = ("thac00", "thac32", "divisor", "profession", "hobbit", "wield", "wclass",
                  "sharp", "holy", "dice_n", "dice_s", "dice_b", "has_dice", "hand_n",
                  "hand_s", "hand_b", "has_hand", "npc_defences", "gear_bash",
                  "gear_pierce", "gear_slash", "gear_exotic")
# Columns worked out from the others when a row is read.
_DERIVED = ("rank", "affects", "second", "sluggish", "weapon_learned", "type_code",
            "target", "modify_level", "armor_bash", "armor_pierce", "armor_slash",
            "armor_exotic", "imm", "res", "vuln", "plain_weapon_skill", "use_hand", "dmg_n",
            "dmg_s", "dmg_b", "class_base", "thac0_legacy", "str_hit", "str_dam", "dex_def",
            "blow_cost", "plain_skill", "plain_pierce", "plain_damroll", "traits", "defence_ok",
            *(f"{name}_chance" for name in DEFENCE_BIT))
# Bits of the `traits` column: what a creature's blows (or the blows against it) may need
# worked out, so a round skips a step none of its creatures has (volley_blows).
TRAIT = {name: 1 << i for i, name in enumerate((
    "use_hand", "has_dice", "wield", "shield", "sharp", "holy", "hobbit", "class_divisor",
    "low_rank", "sluggish", "armor_use", "blind", "unaware", "second_attack",
    "third_attack", "fourth_attack", "fifth_attack", "steady"))}
ATTACK_SKILLS = (TRAIT["second_attack"] | TRAIT["third_attack"] | TRAIT["fourth_attack"]
                 | TRAIT["fifth_attack"])
# Float columns worked out when a row is read (`VolleyCache.floats`).
FLOATS = ("plain_acc", "ev_base")
FLOAT = {name: i for i, name in enumerate(FLOATS)}
NAMES = (*_NUMBERS, *_STATIC_FIELDS, *_DERIVED)
COLUMN = {name: i for i, name in enumerate(NAMES)}
# Read off the sheet and read by no worked-out column (`VolleyCache._derive`): what changes
# round to round, and what tells one creature from another.
UNUSED = ("hp", "move", "move_pulse", "x", "y", "entity", "spawn", "slot")
# The columns the worked-out ones are made from (with the learned skills): those read off
# the sheet but UNUSED, and those `read` takes from its objects. Equal inputs, equal
# worked-out values: a row's inputs key its worked-out values (`Derived`).
INPUTS = np.array([COLUMN[name] for name in (*_NUMBERS, *_STATIC_FIELDS, "type_code", "rank",
                                            "affects", "second", "sluggish", "weapon_learned")
                   if name not in UNUSED], dtype=np.int64)
# What `_derive` works out: every column of _DERIVED but the inputs and `target` (whom a
# row fights, by `resolve`).
OUTPUTS = np.array([COLUMN[name] for name in _DERIVED
                    if name not in ("type_code", "rank", "affects", "second", "sluggish",
                                    "weapon_learned", "target")], dtype=np.int64)

class StaticRows:
    """The numbers the immutable parts of a sheet give, one table row per distinct
    combination (definitions keyed by identity, kept alive here so an identity is never
    reused; the rest by value)."""

    __slots__ = ("index", "keep", "rows", "table")

    def __init__(self) -> None:
        self.index: dict[tuple[Any, ...], int] = {}
        self.keep: list[tuple[Any, ...]] = []
        self.rows: list[tuple[int, ...]] = []
        self.table = np.zeros((0, len(_STATIC_FIELDS)), dtype=np.int64)

    def row(self, parts: tuple[Any, ...]) -> int:
        # Definitions by identity; the small per-creature values (dice, defences, the
        # gear's armor in each column) by value, so creatures alike share one row.
        gear = parts[5]
        key = (id(parts[0]), id(parts[1]), parts[2], parts[3], parts[4],
               *map(gear.get, ARMOR_COLUMNS, _NO_ARMOR), parts[6], parts[7], parts[8])
        try:
            found = self.index.get(key)
        except TypeError:  # a list where a tuple belongs (dice, defences): by its items
            key = tuple(map(_hashable, key))
            found = self.index.get(key)
        if found is None:
            found = self.index[key] = len(self.rows)
            self.keep.append(parts)
            self.rows.append(_static_values(parts))
        return found

    def values(self, sheets: list[Sheet]) -> np.ndarray:
        """(n, len(_STATIC_FIELDS)) for these sheets."""
        index = [self.row(parts) for parts in map(_STATIC, sheets)]
        if len(self.table) < len(self.rows):
            self.table = np.array(self.rows, dtype=np.int64).reshape(len(self.rows),
                                                                     len(_STATIC_FIELDS))
        return self.table[np.array(index, dtype=np.int64)]


_NO_ARMOR = (0,) * len(ARMOR_COLUMNS)


def _hashable(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def _static_values(parts: tuple[Any, ...]) -> tuple[int, ...]:
    profession, weapon, dice, hand, defences, gear, race, job, player = parts
    wclass, sharp, holy = _weapon_row(weapon)
    dice3 = dice or (0, 0, 0)
    hand3 = hand or (0, 0, 0)
    return (profession.thac00, profession.thac32,
            CLASS_DIVISOR.get(profession.flag, 0) if player else 0, _profession_code(job),
            int(race == "hobbit"), int(weapon is not None), wclass, sharp, holy, *dice3,
            int(dice is not None), *hand3, int(hand is not None), _defence_mask(defences),
            *(gear.get(column, 0) for column in ARMOR_COLUMNS))


def _put_blow_constants(table: np.ndarray, rows: np.ndarray, col: np.ndarray) -> None:
    """What a creature's blows take from it alone, worked out when it is read:
    - the damage dice (blow.base_damage): an NPC's hand dice when it has no weapon dice
      or they are better on average, else the weapon's (`use_hand`, `dmg_n/s/b`);
    - the class base thac0 interpolated by modify level (tohit.class_base, R-HIT-2) and
      the legacy model's thac0 before hitroll and skill (tohit.roll_legacy, R-HIT-1)."""
    def get(name: str) -> np.ndarray:
        return col[COLUMN[name]]

    has_weapon_dice = get("has_dice") != 0
    # dice.dice_average_x2's formula itself (its memo's wrapped function), on the columns
    average_x2 = dice_average_x2.__wrapped__
    hand_x2 = average_x2((get("hand_n"), get("hand_s"), get("hand_b")))
    weapon_x2 = average_x2((get("dice_n"), get("dice_s"), get("dice_b")))
    use_hand = prefers_hand_dice((get("player") == 0) & (get("has_hand") != 0),
                                 has_weapon_dice, hand_x2, weapon_x2)
    table[COLUMN["use_hand"], rows] = use_hand
    # blow.pay_movement: a player pays max(level / 20, 1) a blow; an NPC nothing
    table[COLUMN["blow_cost"], rows] = np.where(get("player") != 0,
                                                movement_cost(get("level")), 0)
    for part in ("n", "s", "b"):
        table[COLUMN[f"dmg_{part}"], rows] = np.where(use_hand, get(f"hand_{part}"),
                                                     get(f"dice_{part}"))
    level, thac00, thac32 = get("modify_level"), get("thac00"), get("thac32")
    table[COLUMN["class_base"], rows] = class_base_value(level, thac00, thac32)
    table[COLUMN["thac0_legacy"], rows] = legacy_thac0_base(level, thac00, thac32)


def _profession_code(name: str) -> int:
    if name in FIGHTERS:
        return PROF_FIGHTER
    return {"thief": PROF_THIEF, "ninja": PROF_NINJA, "anti-paladin": PROF_ANTI}.get(
        name, PROF_OTHER)


def _weapon_row(weapon: Any) -> tuple[int, int, int]:
    """(weapon class code, sharp, holy) of a wielded item definition (or None)."""
    if weapon is None:
        return WEAPON_NONE, 0, 0
    kind = weapon.weapon_class
    code = WEAPON_FLAIL if kind == "flail" else WEAPON_WHIP if kind == "whip" else WEAPON_OTHER
    return code, int(weapon.sharp), int(weapon.holy)


def _defence_mask(names: tuple[str, ...]) -> int:
    mask = 0
    for name in names:
        mask |= DEFENCE_BIT.get(name, 0)
    return mask


def defence_bases(world: World, learned: np.ndarray, raw: dict[str, np.ndarray]
                  ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """What each defence of the chain takes from the defender alone (defence.py, R-DEF-1..8):
    whether it has the defence (`defence_ok`, DEFENCE_BIT bits: an NPC's template lists
    it, a player's effective skill is above 1) and its chance before the weak stun and
    blindness adjustments, the attacker's weapon and the level gap: an NPC's flat chance
    (`npc_dodge`, `npc_other`); a player's from its effective skill (`learned`, rows of
    SKILLS) by defence.py's formulas (shield_block_chance, blink_chance,
    cross_block_chance, parry_chance, dodge_chance; hand_block_chance of the flat
    chance too for an NPC, which never hand blocks)."""
    config = world.content.fight.defence
    npc = raw["player"] == 0
    profession = raw["profession"]
    fighter = profession == PROF_FIGHTER
    listed = raw["npc_defences"]
    ok = np.zeros(len(npc), dtype=np.int64)
    chances: dict[str, np.ndarray] = {}
    for name, bit in DEFENCE_BIT.items():
        effective = learned[SKILL[name]]
        ok |= np.where(npc, (listed & bit) != 0, effective > 1) * bit
        flat = config.npc_dodge if name == "dodge" else config.npc_other
        if name == "shield_block":
            own = shield_block_chance(effective, fighter)
        elif name == "blink":
            own = blink_chance(effective)
        elif name == "cross_block":
            own = cross_block_chance(effective, fighter)
        elif name == "parry":
            own = parry_chance(effective, fighter)
        elif name == "hand_block":
            chances[name] = hand_block_chance(np.where(npc, flat, effective),
                                              profession == PROF_NINJA)
            continue
        else:  # dodge
            own = dodge_chance(effective, raw["dexterity"], fighter,
                               (profession == PROF_THIEF) | (profession == PROF_NINJA),
                               profession == PROF_ANTI)
        chances[name] = np.where(npc, flat, own)
    return ok, chances


def effective_many(learned: np.ndarray, dazed: np.ndarray | bool) -> np.ndarray:
    """`skills.effective_skill` for arrays (not a spell): skills.effective_value, with
    `dazed` per creature (a row per skill in `learned`)."""
    return np.asarray(effective_value(learned, dazed))


def weapon_skill_many(raw: dict[str, np.ndarray], dazed: np.ndarray | bool) -> np.ndarray:
    """skills.weapon_skill: an NPC that never learned its weapon's skill has
    skills.npc_weapon_skill; else the effective skill (skills.effective_value)."""
    weapon_learned = raw["weapon_learned"]
    untaught = (raw["player"] == 0) & (weapon_learned < 0)
    npc_value = npc_weapon_skill(raw["wield"] != 0, raw["level"], dazed)
    taught = effective_value(np.maximum(weapon_learned, 0), dazed)
    return np.where(untaught, npc_value, taught)


@dataclass(slots=True)
class Columns:
    """Per creature (row i): the raw numbers and the effective skills this round."""

    raw: dict[str, np.ndarray]
    learned: np.ndarray        # (len(SKILLS), n): effective skill 0..100 (daze applied)
    weapon_skill: np.ndarray   # effective weapon skill 0..100 (the blow's is 20 + this)
    type_names: list[str]      # damage type by `type_code` (R-IMM-5)
    positions: list[str]       # each creature's position, as read
    fighting: list[str | None]  # whom each fights, as read
    ids: np.ndarray            # each creature's id (an object array)
    armor: np.ndarray          # (4, n): armor_bash, _pierce, _slash, _exotic (a view)
    undazed: bool              # nobody dazed: the `plain_*` columns are this round's
    plain_acc: np.ndarray      # R-HIT-2's accuracy, undazed (float)
    ev_base: np.ndarray        # R-HIT-3's evasion before position, blindness, sluggishness
    learned_raw: np.ndarray    # (len(SKILLS), n): the learned percent, daze not applied

    def __getattr__(self, name: str) -> np.ndarray:
        try:
            return self.raw[name]
        except KeyError:
            raise AttributeError(name) from None

    @property
    def modify_level(self) -> np.ndarray:
        """Level plus remort levels (R-LVL-1)."""
        return self.raw["modify_level"]


class Derived:
    """The worked-out columns of each distinct row of inputs seen (`INPUTS` and the learned
    skills, as bytes): a thousand copies of a duel, or an army's ranks of one template,
    are worked out once, not row by row. Kept with the cache (the content it was worked
    out with); emptied past `MOST` distinct rows."""

    MOST = 1 << 16

    __slots__ = ("floats", "index", "learned", "values")

    def __init__(self) -> None:
        self.index: dict[bytes, int] = {}
        # Columns by key index, with room to grow (doubled when full, never copied per key)
        self.values = np.zeros((len(OUTPUTS), 64), dtype=np.int64)
        self.learned = np.zeros((len(SKILLS), 64), dtype=np.int64)
        self.floats = np.zeros((len(FLOATS), 64), dtype=np.float64)

    def keys(self, table: np.ndarray, learned: np.ndarray, rows: np.ndarray) -> list[bytes]:
        """Each row's inputs as bytes (`learned`: the rows' learned skills)."""
        block = np.ascontiguousarray(np.vstack((table[INPUTS[:, None], rows], learned)).T)
        keys = block.view(np.dtype((np.void, block.shape[1] * 8))).ravel().tolist()
        return cast("list[bytes]", keys)  # a void array's items are bytes

    def make_room(self, rows: int) -> None:
        """Before a read of this many rows: start afresh if they could take the store past
        its bound (a read's own rows are all kept, however many)."""
        if self.index and len(self.index) + rows > self.MOST:
            self.__init__()  # type: ignore[misc]

    def keep(self, keys: list[bytes], table: np.ndarray, learned_plain: np.ndarray,
             floats: np.ndarray, rows: np.ndarray) -> None:
        """Keep these rows' worked-out values under their keys (new keys, one row each)."""
        first = len(self.index)
        stop = first + len(keys)
        if stop > self.values.shape[1]:
            capacity = max(stop, 2 * self.values.shape[1])
            for name in ("values", "learned", "floats"):
                old = getattr(self, name)
                grown = np.zeros((old.shape[0], capacity), dtype=old.dtype)
                grown[:, :first] = old[:, :first]
                setattr(self, name, grown)
        for offset, key in enumerate(keys):
            self.index[key] = first + offset
        self.values[:, first:stop] = table[OUTPUTS[:, None], rows]
        self.learned[:, first:stop] = learned_plain[:, rows]
        self.floats[:, first:stop] = floats[:, rows]


class VolleyCache:
    """The persistent columns of the vectorised round (module docstring): one row per
    creature ever read, kept up to date by write-through and dirty marks."""

    def __init__(self, world: World) -> None:
        self.sheets_of = world.sheets       # a load replaces the dict: start again
        self.content = world.content
        self.creatures = len(world.by_id)
        self.static = StaticRows()
        self.derived = Derived()
        self.row_of: dict[int, int] = {}
        self.sheets: list[Sheet] = []
        self.vitals: list[Any] = []         # each row's Vitals component
        self.count = 0
        self.table = np.zeros((len(NAMES), 0), dtype=np.int64)
        self.learned_raw = np.zeros((len(SKILLS), 0), dtype=np.int64)
        self.learned_plain = np.zeros((len(SKILLS), 0), dtype=np.int64)
        self.floats = np.zeros((len(FLOATS), 0), dtype=np.float64)
        self.positions: list[str] = []
        self.fighting: list[str | None] = []
        self.ids: list[str] = []
        self.id_array = np.zeros(0, dtype=object)
        self.type_names: list[str] = []
        self.type_code: dict[str, int] = {}
        self.dirty: set[int] = set()        # entities to read again
        self.unread = np.zeros(0, dtype=bool)  # rows read again only when a round needs them
        self.stale = False                  # everything to read again
        self.seen = 0                       # events already looked at
        self.log: Any = None                # ... in this log
        self.edits = 0                      # ... after this many of its edits
        self.last_event: Any = None         # ... the last of them (a plain list's check)
        self.looked(world)
        self.unresolved: set[int] = set()   # rows fighting a creature not (yet) known
        # The round's fighters as the last round left them (Melee's `world.fighting`)
        self.fighting_set: set[int] = set()
        self.order = np.zeros(0, dtype=np.int64)  # their rows in spawn order

    # -- invalidation ------------------------------------------------------------------
    def touch(self, entity: int | None) -> None:
        """A creature (None: any) changed in a way no event shows: read it again."""
        if entity is None:
            self.stale = True
        else:
            self.dirty.add(entity)

    def valid_for(self, world: World) -> bool:
        """False when the whole cache must go: a load, another content, a log that
        shrank or was replaced, a `touch()` of everything, or too many rows."""
        events = world.events
        seen = self.seen
        if self.stale or world.sheets is not self.sheets_of or world.content is not self.content:
            return False
        if events is not self.log or len(events) < seen:
            return False
        if type(events) is EventLog:  # an edit of what was logged, counted by the log
            if events.edits != self.edits:
                return False
        elif seen and events[seen - 1] is not self.last_event:  # a game's plain list
            return False
        return self.count <= 4 * len(world.fighting) + 4096

    def note_events(self, world: World, start: int, stop: int | None = None) -> set[int]:
        """Mark dirty every creature the events `start:stop` name; their entities."""
        named: set[int] = set()
        mark_named(world.events[start:stop], world.by_id, named)
        self.dirty |= named
        return named

    def looked(self, world: World) -> None:
        """Every event so far has been taken into account."""
        events = self.log = world.events
        self.seen = len(events)
        if type(events) is EventLog:  # its edits counter; its last event may be columns
            self.edits = events.edits
        else:
            self.last_event = events[-1] if events else None

    def sync(self, world: World) -> None:
        """Bring the rows up to date with what happened since the last round: the dirty
        fighters are read again now; any other dirty row (the dead, a victor whose fight
        ended) is only marked `unread`, and read when a round needs it (`need`)."""
        self.note_events(world, self.seen)
        self.looked(world)
        if self.dirty:
            row_of, fighting = self.row_of, world.fighting
            entities = [e for e in self.dirty if e in row_of]
            self.dirty.clear()
            later = [row_of[e] for e in entities if e not in fighting]
            if later:
                self.unread[later] = True
            now = [row_of[e] for e in entities if e in fighting]
            if now:
                self.reread(world, now)
        if self.unresolved and len(world.by_id) != self.creatures:
            self.resolve(world, sorted(self.unresolved))
        self.creatures = len(world.by_id)

    def reread(self, world: World, rows: list[int]) -> None:
        """Read these cached rows again, and the creatures they now fight."""
        sheets, by_id = self.sheets, world.by_id
        self.read(world, [sheets[row] for row in rows], np.array(rows, dtype=np.int64))
        foes = [by_id[f] for f in (self.fighting[row] for row in rows)
                if f is not None and f in by_id]
        self.need(world, self.rows_for(world, foes))  # reads those not cached yet
        self.resolve(world, rows)

    def need(self, world: World, rows: np.ndarray) -> None:
        """A round reads these rows (-1: none): read again those left `unread` by `sync`."""
        rows = rows[rows >= 0]
        stale = rows[self.unread[rows]]
        if len(stale):
            self.reread(world, np.unique(stale).tolist())

    # -- reading -----------------------------------------------------------------------
    def rows_for(self, world: World, entities: list[int]) -> np.ndarray:
        """The rows of these creatures, reading those not cached yet (and the creatures
        they fight)."""
        row_of = self.row_of
        new = [e for e in dict.fromkeys(entities) if e not in row_of]
        if new:
            self.add(world, new)
        return np.array([row_of[e] for e in entities], dtype=np.int64)

    def add(self, world: World, entities: list[int]) -> None:
        """New rows for these creatures (not cached), then for whom they fight."""
        first = self.count
        by_id, row_of, sheets = world.by_id, self.row_of, world.sheets
        while entities:
            start = self.count
            self._grow(start + len(entities))
            for i, entity in enumerate(entities):
                row_of[entity] = start + i
            added = [sheets[e] for e in entities]
            self.sheets.extend(added)
            self.vitals.extend(sheet.vitals for sheet in added)
            self.positions.extend([""] * len(added))
            self.fighting.extend([None] * len(added))
            self.ids.extend([""] * len(added))
            self.count = start + len(entities)
            self.read(world, added, np.arange(start, self.count, dtype=np.int64))
            foes = {by_id[f] for f in self.fighting[start:self.count]
                    if f is not None and f in by_id}
            entities = [e for e in foes if e not in row_of]
        self.resolve(world, list(range(first, self.count)))

    def _grow(self, size: int) -> None:
        if size <= self.table.shape[1]:
            return
        capacity = max(size, 2 * self.table.shape[1], 64)
        ids = np.empty(capacity, dtype=object)
        ids[:len(self.id_array)] = self.id_array
        self.id_array = ids
        floats = np.zeros((len(FLOATS), capacity), dtype=np.float64)
        floats[:, :self.floats.shape[1]] = self.floats
        self.floats = floats
        for name in ("table", "learned_raw", "learned_plain"):
            old = getattr(self, name)
            grown = np.zeros((old.shape[0], capacity), dtype=np.int64)
            grown[:, :old.shape[1]] = old
            setattr(self, name, grown)
        unread = np.zeros(capacity, dtype=bool)
        unread[:len(self.unread)] = self.unread
        self.unread = unread

    def resolve(self, world: World, rows: list[int]) -> None:
        """The `target` column (the row of whom each fights, -1 none) of these rows."""
        by_id, row_of = world.by_id, self.row_of
        target = self.table[COLUMN["target"]]
        for row in rows:
            foe = self.fighting[row]
            entity = by_id.get(foe) if foe is not None else None
            found = row_of.get(entity, -1) if entity is not None else -1
            target[row] = found
            if foe is not None and found < 0:
                self.unresolved.add(row)
            else:
                self.unresolved.discard(row)

    def read(self, world: World, sheets: list[Sheet], rows: np.ndarray) -> None:
        """Read these creatures into their rows (C-level getters, then look-up tables);
        the worked-out columns of inputs seen before come from `Derived`, the rest are
        worked out (`_derive`) and kept there."""
        n = len(sheets)
        if not n:
            return
        table = self.table
        self.unread[rows] = False
        numbers = np.fromiter(chain.from_iterable(map(_NUMBER_GETTER, sheets)),
                              dtype=np.int64, count=n * len(_NUMBERS)).reshape(n, len(_NUMBERS))
        table[:len(_NUMBERS), rows] = numbers.T
        table[len(_NUMBERS):len(_NUMBERS) + len(_STATIC_FIELDS), rows] = \
            self.static.values(sheets).T
        (positions, affects, learned_dicts, degrees, seconds, weapon_skills, fighting, types,
         ids) = zip(*map(_OBJECTS, sheets), strict=True)
        own_positions, own_fighting, own_ids = self.positions, self.fighting, self.ids
        self.id_array[rows] = np.array(ids, dtype=object)
        type_code = self.type_code
        codes = []
        for i, row in enumerate(rows.tolist()):
            own_positions[row] = positions[i]
            own_fighting[row] = fighting[i]
            own_ids[row] = ids[i]
            code = type_code.get(types[i])
            if code is None:
                code = type_code[types[i]] = len(self.type_names)
                self.type_names.append(types[i])
            codes.append(code)

        def put(name: str, values: Any) -> None:
            table[COLUMN[name], rows] = values

        put("type_code", codes)
        put("rank", [POSITION_RANK[p] for p in positions])
        put("affects", [affect_mask(levels) if levels else 0 for levels in affects])
        put("second", [w is not None for w in seconds])
        put("sluggish", [d.get("sluggish", 0) if d else 0 for d in degrees])
        put("weapon_learned", [k.get(name, -1) for k, name in
                               zip(learned_dicts, weapon_skills, strict=True)])
        # The skills a blow reads, skill by skill (0: never learned), C-level look-ups.
        learned = np.empty((len(SKILLS), n), dtype=np.int64)
        for index, name in enumerate(SKILLS):
            learned[index] = np.fromiter(map(dict.get, learned_dicts, repeat(name),
                                             repeat(0)), dtype=np.int64, count=n)
        self.learned_raw[:, rows] = learned
        derived = self.derived
        derived.make_room(n)
        keys = derived.keys(table, learned, rows)
        known = derived.index
        new: dict[bytes, int] = {}
        for i, key in enumerate(keys):
            if key not in known and key not in new:
                new[key] = i
        if new:
            fresh = rows[list(new.values())]
            self._derive(world, fresh)
            derived.keep(list(new), table, self.learned_plain, self.floats, fresh)
            if len(new) == n:  # every row worked out just now
                return
        found = np.fromiter(map(known.__getitem__, keys), dtype=np.int64, count=n)
        table[OUTPUTS[:, None], rows] = derived.values[:, found]
        self.learned_plain[:, rows] = derived.learned[:, found]
        self.floats[:, rows] = derived.floats[:, found]

    def _derive(self, world: World, rows: np.ndarray) -> None:
        """The worked-out columns of these rows, from what `read` put in their inputs."""
        table = self.table

        def put(name: str, values: Any) -> None:
            table[COLUMN[name], rows] = values

        put("modify_level", table[COLUMN["level"], rows] + table[COLUMN["remorts"], rows])
        col = table[:, rows]
        for column in ARMOR_COLUMNS:  # own points plus the gear's (Sheet.armor)
            put(f"armor_{column}", col[COLUMN[f"own_{column}"]] + col[COLUMN[f"gear_{column}"]])
        for mask in ("imm", "res", "vuln"):
            put(mask, col[COLUMN[f"own_{mask}"]] | col[COLUMN[f"gear_{mask}"]])
        _put_blow_constants(table, rows, col)
        stats = world.content.stats  # the stat tables, indexed by the stat clamped 0..28
        strength = stat_index(col[COLUMN["strength"]])
        put("str_hit", np.asarray(stats.str_.hit, dtype=np.int64)[strength])
        put("str_dam", np.asarray(stats.str_.damage, dtype=np.int64)[strength])
        put("dex_def", np.asarray(stats.dex.defensive, dtype=np.int64)[
            stat_index(col[COLUMN["dexterity"]])])
        self.learned_plain[:, rows] = effective_many(self.learned_raw[:, rows], False)
        ok, chances = defence_bases(world, self.learned_plain[:, rows],
                                    {name: table[COLUMN[name], rows] for name in
                                     ("player", "profession", "dexterity", "npc_defences")})
        put("defence_ok", ok)
        for name, chance in chances.items():
            put(f"{name}_chance", chance)
        raw = {name: table[COLUMN[name], rows] for name in
               ("weapon_learned", "player", "wield", "level")}
        put("plain_weapon_skill", weapon_skill_many(raw, False))
        self._put_attack_constants(world, rows)

    def _put_attack_constants(self, world: World, rows: np.ndarray) -> None:
        """What a blow takes from its attacker alone, or from its victim alone, with the
        blow's own operations in the blow's order (volley_blows), so the values are the
        same: the blow skill, R-HIT-7's effective hitroll, R-HIT-2's accuracy and the
        damroll term of R-MELEE-3, undazed (`plain_*`: a round with anyone dazed works
        them out again); R-HIT-3's evasion before position, blindness and sluggishness."""
        table = self.table

        def get(name: str) -> np.ndarray:
            return table[COLUMN[name], rows]

        wield = get("wield") != 0
        traits = ((get("use_hand") != 0) * TRAIT["use_hand"]
                  | (get("has_dice") != 0) * TRAIT["has_dice"]
                  | wield * TRAIT["wield"] | (get("shield") != 0) * TRAIT["shield"]
                  | (wield & (get("sharp") != 0)) * TRAIT["sharp"]
                  | (wield & (get("holy") != 0)) * TRAIT["holy"]
                  | (get("hobbit") != 0) * TRAIT["hobbit"]
                  | (get("divisor") > 0) * TRAIT["class_divisor"]
                  | (get("rank") < POSITION_RANK["fighting"]) * TRAIT["low_rank"]
                  | (get("sluggish") != 0) * TRAIT["sluggish"]
                  | (self.learned_plain[SKILL["armor_use"], rows] > 1) * TRAIT["armor_use"]
                  | ((get("affects") & AFFECT_BITS["blind"]) != 0) * TRAIT["blind"]
                  | ((get("rank") <= SLEEPING)
                     | ((get("affects") & AFFECT_BITS["stun"]) != 0)) * TRAIT["unaware"])
        for name in ("second_attack", "third_attack", "fourth_attack", "fifth_attack"):
            traits |= (self.learned_plain[SKILL[name], rows] > 0) * TRAIT[name]
        # volley.plain_many but for the movement points: alive, standing or fighting, not
        # stunned, weak-stunned or paralysed, not immortal
        rank = get("rank")
        stunned = AFFECT_BITS["stun"] | AFFECT_BITS["weak_stun"] | AFFECT_BITS["paralysis"]
        traits |= ((get("alive") != 0)
                   & ((rank == POSITION_RANK["standing"]) | (rank == POSITION_RANK["fighting"]))
                   & ((get("affects") & stunned) == 0) & (get("immortal") == 0)
                   ) * TRAIT["steady"]
        table[COLUMN["traits"], rows] = traits
        skill = 20 + get("plain_weapon_skill")
        pierce = hitroll_product(get("hitroll"), skill, get("str_hit"))
        table[COLUMN["plain_skill"], rows] = skill
        table[COLUMN["plain_pierce"], rows] = pierce
        table[COLUMN["plain_damroll"], rows] = damroll_term(get("damroll"), skill)
        knobs = world.content.fight.armor
        self.floats[FLOAT["plain_acc"], rows] = accuracy_value(knobs.base_w,
                                                               get("class_base"), pierce)
        self.floats[FLOAT["ev_base"], rows] = evasion_base(
            get("modify_level"), get("dex_def"), knobs.ev_level, knobs.ev_dex)

    # -- the round's view --------------------------------------------------------------
    def columns(self, world: World) -> Columns:
        """The columns of every row, with this round's daze (read from the lag table)."""
        n = self.count
        table = self.table
        raw = {name: table[i, :n] for i, name in enumerate(NAMES)}
        lag = world.lag
        dazed = (lag.daze[raw["slot"]] > 0) if lag.dazed else None
        undazed = dazed is None or not dazed.any()
        if not undazed:
            assert dazed is not None
            raw["dazed"] = dazed.astype(np.int64)
            learned = effective_many(self.learned_raw[:, :n], dazed)
            weapon_skill = weapon_skill_many(raw, dazed)
            ok, chances = defence_bases(world, learned, raw)  # with this round's daze
            raw["defence_ok"] = ok
            for name, chance in chances.items():
                raw[f"{name}_chance"] = chance
        else:
            raw["dazed"] = np.zeros(n, dtype=np.int64)
            learned = self.learned_plain[:, :n]
            weapon_skill = raw["plain_weapon_skill"]
        first = COLUMN["armor_bash"]
        return Columns(raw, learned, weapon_skill, self.type_names, self.positions,
                       self.fighting, self.id_array[:n], table[first:first + 4, :n],
                       undazed, self.floats[FLOAT["plain_acc"], :n],
                       self.floats[FLOAT["ev_base"], :n], self.learned_raw[:, :n])


def gather(world: World, sheets: list[Sheet]) -> Columns:
    """Read these creatures into fresh columns: row i is sheets[i] (rows after them hold
    the creatures they fight)."""
    cache = VolleyCache(world)
    cache.rows_for(world, [sheet.entity for sheet in sheets])
    return cache.columns(world)
