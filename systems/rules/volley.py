"""The vectorised combat round: a big battle's blows as numpy arrays (docs/decisions.md).

When a round has at least `fight.vectorise_min_fighters` fighters and the world's
`vectorise` option is "auto", the Melee system hands the round here; `volley_round` takes
the round's snapshot itself (`world.fighting` in spawn order, as rows of the columns
kept between rounds in `World.volley_cache`: volley_columns.py). Each fighter takes one
of two paths in the same round:

- the vectorised path, if it and its target are *plain* and beside each other: alive,
  standing or fighting, not stunned, weak-stunned or paralysed, not immortal, a player
  with movement points for a whole round of blows, and no hook of any kind for either
  (on-fight, pre- or post-damage, on-immune); the world's protections and defences must
  be the defaults and no "all melee" or "all damage" modifier registered (else nobody
  is);
- the scalar path (`melee.fighter_turn`, the per-blow pipeline) otherwise.

How: the vectorised fighters' blows are computed all at once from the state at the
start of the round, as if everyone lived (volley_blows.py); then the fighters are walked
in spawn order. Runs of consecutive vectorised turns in which no blow can bring a target
to 0 hit points or below are applied in bulk (events in order, hit points, movement);
a turn that may kill is walked blow by blow: a kill ends it (R-DMG-2), a fighter dead by
its turn gets none, a target dead by then ends the fight (R-MELEE-2). Each blow's event
is the scalar path's, in its order, with its fields. Whatever a later blow could see
changed is handled exactly:

- a scalar fighter's turn runs where it falls, on the live state, and the creatures it
  touched have their later turns walked singly, and the blows aimed at them too; so
  does every creature named by what a turn walked off the bulk path logged (a kill's
  events name those whose fight it ended, stood down and engaged anew, R-ACT-2);
- the turn of a fighter dead by then is nothing: it touches no one but itself;
- a plain fighter or target whose position changed before its turn (a player knocked
  down the hit point ladder) takes the scalar path for that turn; a ladder fall inside a
  vectorised turn finishes that turn's remaining blows on the scalar path;
- in a world with hooks, every turn that ran on the scalar path may have run a hook,
  which may change anything: the blows of the rest of the round are computed again from
  the state it left.

A round's random numbers come from `world.rng.numpy()` in bulk, so its log differs from
the scalar path's for the same seed but is the same for every run of that seed.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable
from heapq import heappop, heappush
from itertools import repeat
from typing import TYPE_CHECKING

import numpy as np

from affray.core.collector import collector_paused
from affray.core.event_log import EventLog, log_lazily
from affray.core.events import Damage, Defended, Immune, Miss
from affray.systems.rules.blow import pay_movement, regained_move
from affray.systems.rules.damage import inflict
from affray.systems.rules.defence import default_defences
from affray.systems.rules.engagement import set_fighting
from affray.systems.rules.hit import Hit, VictimDeath
from affray.systems.rules.immunity import WEAPON
from affray.systems.rules.volley_blows import (
    DAMAGE,
    DEFENDED,
    IMMUNE,
    MISS,
    STEPS,
    compute_blows,
)
from affray.systems.rules.volley_columns import COLUMN, TRAIT, VolleyCache
from affray.systems.rules.volley_protect import defaults_in_use

if TYPE_CHECKING:
    from affray.core.world import World
    from affray.systems.rules.sheet import Sheet

HOOK_KINDS = ("on_fight", "pre_damage", "post_damage", "on_immune")
MOST_BLOWS = STEPS      # first, haste, four attack skills (volley_blows.STEPS)
MOST_REPLANS = 8        # then the rest of a hook-heavy round runs scalar


def wanted(world: World, fighters: int) -> bool:
    """Vectorise this round? The world option, the fighter count, the rule registries."""
    if world.vectorise != "auto":
        return False
    if fighters < world.content.fight.vectorise_min_fighters:
        return False
    return registries_plain(world)


def registries_plain(world: World) -> bool:
    """No modifiers, and the default protections and defence chain, step for step."""
    rules = world.rules
    if rules.all_melee or rules.all_damage:
        return False
    return (defaults_in_use(world)
            and rules.defences.items() == default_defences(world.content).items())


PERSISTENT = True  # False: fresh columns every round (what the cache is tested against)


def column_cache(world: World, fresh: bool) -> VolleyCache:
    """The round's columns: the World's persistent cache brought up to date, or (`fresh`)
    new ones, read now and dropped after the round."""
    if fresh:
        world.volley_cache = None
        return VolleyCache(world)
    cache = world.volley_cache
    if cache is None or not cache.valid_for(world):
        cache = world.volley_cache = VolleyCache(world)
    else:
        cache.sync(world)
    return cache


def fighter_rows(world: World, cache: VolleyCache) -> np.ndarray:
    """The round's snapshot: the rows of `world.fighting` in spawn order (from the last
    round's, when only a few joined or left)."""
    fighting = world.fighting
    before = cache.fighting_set
    if fighting == before:
        return cache.order
    order = cache.order
    removed = before - fighting
    if len(removed) * 2 > len(before):  # mostly new: sort afresh
        order = cache.rows_for(world, list(fighting))
        order = order[np.argsort(cache.table[COLUMN["spawn"], order], kind="stable")]
    else:
        if removed:
            order = order[~np.isin(order, cache.rows_for(world, list(removed)))]
        added = fighting - before
        if added:
            new = cache.rows_for(world, list(added))
            spawn = cache.table[COLUMN["spawn"]]
            new = new[np.argsort(spawn[new], kind="stable")]
            order = np.insert(order, np.searchsorted(spawn[order], spawn[new]), new)
    cache.fighting_set = set(fighting)
    cache.order = order
    return order


class Plan:
    """The precomputed blows of the vectorised fighters from one point of the round, and
    the bookkeeping of the walk: which creatures a turn off the vectorised path touched
    (their later blows are walked one turn at a time), and the hit points of the rest.
    Rows are rows of the plan's `VolleyCache`; turns are indexes into the round.

    What the bulk turns change (hit points, movement) goes into the columns at once and
    into the components by `flush`, which the round calls before any code that may read
    any creature's components and at its end, or by `flush_rows` for the fighter and
    target alone before a melee turn walked singly when only the engine's code runs in it
    (`_engine_only`): each changed creature is written once per stretch of bulk turns,
    not once per change."""

    def __init__(self, world: World, cache: VolleyCache, order: np.ndarray, first: int,
                 hooky: bool) -> None:
        self.cache = cache
        self.sheets = cache.sheets
        self.turn_at = np.full(first + len(order), -1, dtype=np.int64)
        self.chosen = np.zeros(0, dtype=np.int64)
        self.touched = np.zeros(cache.count, dtype=bool)
        self.blocked: list[int] = []  # a heap of the turns whose fighter or target is touched
        self.changed = np.zeros(cache.count, dtype=bool)  # to flush: hp, move, move_pulse
        self.unflushed = False  # whether a row is marked in `changed`
        self.events: BlowEvents | None = None
        if not len(order):
            return
        cols = cache.columns(world)
        target = cols.target[order]
        has_victim = target >= 0
        refresh_moves(world, self, order, target[has_victim])
        ok = plain_many(cols)
        if hooky:
            sheets = cache.sheets
            ok &= np.array([not _hooked(world, sheets[row]) for row in range(cache.count)],
                           dtype=bool)
        v = np.where(has_victim, target, 0)
        beside = np.maximum(np.abs(cols.x[order] - cols.x[v]),
                            np.abs(cols.y[order] - cols.y[v])) == 1
        eligible = has_victim & ok[order] & ok[v] & beside
        chosen = np.flatnonzero(eligible)
        self.chosen = chosen + first
        self.turn_at[self.chosen] = np.arange(len(chosen))
        self.attacker = order[chosen]
        self.victim = target[chosen]
        # Each row's turns, for `touch_entities`: as the fighter (one at most) and as the
        # target (the turns aimed at it, in order).
        self.attacker_turn = np.full(cache.count, -1, dtype=np.int64)
        self.attacker_turn[self.attacker] = np.arange(len(chosen))
        by_victim = np.argsort(self.victim, kind="stable")
        self.by_victim: list[int] = by_victim.tolist()  # lists: `_block` bisects them
        self.victims_sorted: list[int] = self.victim[by_victim].tolist()
        self.hp = cache.table[HP, :cache.count]  # a view: the columns are written through
        self.no_foe = cols.target < 0
        if not len(chosen):
            return
        blows = compute_blows(world, cols, self.attacker, self.victim)
        self.start, self.stop = blows.start, blows.stop
        self.blow_victim = blows.victim
        self.blow_attacker = blows.attacker
        self.dam = blows.dam
        self.blow_step = blows.step
        if len(blows.dam) == len(chosen):  # one blow a turn: blow t is turn t's
            self.turn_dam = blows.dam
        else:
            self.turn_dam = np.add.reduceat(blows.dam, self.start) if len(blows.dam) else \
                np.zeros(len(chosen), dtype=np.int64)
            self.turn_dam = np.where(self.stop > self.start, self.turn_dam, 0)
        self.player_cost = cols.blow_cost
        self.positions = cols.positions
        # Whether a blow's target may fight no one yet (rows only ever leave `no_foe`)
        self.free_targets = bool(self.no_foe[blows.victim].any())
        self._breaks()
        self.events = BlowEvents(world, cols, blows)

    def _breaks(self) -> None:
        """Where a bulk run must stop, whatever is touched: `next_stop[t]`, the first turn
        from t on that may kill or knock down (its blows, after every earlier blow of the
        round on its target, may bring the target to 0 hit points or below: walked on its
        own), or that does not follow the turn before it in the round.

        The damage of every earlier turn counts, applied or not: a turn skipped (its
        fighter died) only leaves its target healthier than assumed, and a target changed
        off the vectorised path is touched, so the stop is never late."""
        victim, dam = self.victim, self.turn_dam
        count = len(victim)
        if np.bincount(victim).max(initial=0) <= 1:  # each target in one turn
            cumulative = dam
        else:
            order = np.argsort(victim, kind="stable")
            ordered_v, ordered_dam = victim[order], dam[order]
            total = np.cumsum(ordered_dam)
            group = np.flatnonzero(np.r_[True, ordered_v[1:] != ordered_v[:-1]])
            before = np.repeat(total[group] - ordered_dam[group],
                               np.diff(np.r_[group, count]))
            cumulative = np.empty_like(total)
            cumulative[order] = total - before
        lethal = (dam > 0) & (self.hp[victim] - cumulative <= 0)
        gap = np.r_[False, self.chosen[1:] != self.chosen[:-1] + 1]
        if not lethal.any() and not gap.any():  # one run to the end
            self.next_stop = np.full(count, count, dtype=np.int64)
            return
        index = np.arange(count)
        next_lethal = np.minimum.accumulate(np.where(lethal, index, count)[::-1])[::-1]
        next_gap = np.minimum.accumulate(np.where(gap, index, count)[::-1])[::-1]
        # a gap at t stops a run started before t, not one started at t
        self.next_stop = np.minimum(next_lethal, np.r_[next_gap[1:], count])

    def touch(self, *sheets: Sheet | None) -> None:
        """These creatures changed off the vectorised path: walk their turns singly."""
        self.touch_entities([sheet.entity for sheet in sheets if sheet is not None])

    def touch_entities(self, entities: Iterable[int]) -> None:
        """These creatures were named by what a turn off the vectorised path logged: it
        may have changed them (a kill ends the fights of those fighting the dead, and
        stands them down from fighting: R-ACT-2), so their later turns, and the blows
        aimed at them, are walked singly: each newly touched row's turns go on the heap
        `run_length` stops at."""
        row_of, touched = self.cache.row_of, self.touched
        for entity in entities:
            row = row_of.get(entity)
            if row is not None and row < len(touched) and not touched[row]:
                touched[row] = True
                if len(self.chosen):
                    self._block(row)

    def _block(self, row: int) -> None:
        blocked = self.blocked
        turn = int(self.attacker_turn[row])
        if turn >= 0:
            heappush(blocked, turn)
        victims = self.victims_sorted
        low = bisect_left(victims, row)
        for turn in self.by_victim[low:bisect_left(victims, row + 1, low)]:
            heappush(blocked, turn)

    def run_length(self, turn: int) -> int:
        """How many turns from `turn` on can be applied in bulk: consecutive in the round,
        fighter and target untouched, and no blow among them bringing a target to 0 hit
        points or below (a death or a ladder fall is walked on its own)."""
        limit = min(int(self.next_stop[turn]) - turn, WINDOW)
        blocked = self.blocked
        if limit and blocked:
            while blocked and blocked[0] < turn:  # turns walked already
                heappop(blocked)
            if blocked and blocked[0] - turn < limit:
                limit = blocked[0] - turn
        return limit

    def apply(self, world: World, turn: int, count: int) -> None:
        """Apply `count` turns from `turn` in bulk: their events in order, hit points,
        movement (in the columns; `flush` writes the components), and a target that
        fought no one starts fighting its first hurter."""
        b0, b1 = int(self.start[turn]), int(self.stop[turn + count - 1])
        if b1 <= b0:
            return
        assert self.events is not None  # a plan with turns has blows
        self._log_and_engage(world, b0, b1)
        cache = self.cache
        table = cache.table
        changed = self.changed
        size = len(changed)  # the rows when the plan was made (every row it names)
        victims, dam = self.blow_victim[b0:b1], self.dam[b0:b1]
        attackers = self.blow_attacker[b0:b1]
        cost = self.player_cost
        self.unflushed = True
        if (b1 - b0) * SCATTER_SHARE < size:  # a few blows: scatter them (subtract.at
            # sums a row's repeats), and mark the rows whose hit points or movement change
            np.subtract.at(table[HP], victims, dam)
            changed[victims[dam != 0]] = True
            paid = cost[attackers]
            if paid.any():  # plain players never run out mid-round
                np.subtract.at(table[MOVE], attackers, paid)
                changed[attackers[paid != 0]] = True
            return
        # Whole columns (adding 0 changes nothing): no gathers, no scatters.
        hurt = np.bincount(victims, weights=dam, minlength=size).astype(np.int64)
        table[HP, :size] -= hurt
        np.logical_or(changed, hurt, out=changed)  # a row whose hit points changed
        paid = np.bincount(attackers, minlength=size) * cost[:size]
        if paid.any():  # plain players never run out mid-round
            table[MOVE, :size] -= paid
            np.logical_or(changed, paid, out=changed)

    def _log_and_engage(self, world: World, b0: int, b1: int) -> None:
        """Log blows b0:b1; a target that fought no one fights its first attacker (R-ACT-1:
        whatever the blow did), its `fight` event right after that blow's, as on the
        scalar path."""
        assert self.events is not None
        if not self.free_targets:  # every target fights someone: nothing to engage
            log_blows(world, self.events, b0, b1)
            return
        victims = self.blow_victim[b0:b1]
        free = self.no_foe[victims]
        if not free.any():
            log_blows(world, self.events, b0, b1)
            return
        where = np.flatnonzero(free)
        _rows, first = np.unique(victims[where], return_index=True)
        cache, sheets = self.cache, self.sheets
        start = b0
        for offset in np.sort(where[first]).tolist():
            b = b0 + offset
            log_blows(world, self.events, start, b + 1)
            start = b + 1
            row, attacker_row = int(self.blow_victim[b]), int(self.blow_attacker[b])
            sheet, attacker = sheets[row], sheets[attacker_row]
            if sheet.combat.fighting is None:
                set_fighting(world, sheet, attacker, "attacked", stand=False)
                cache.fighting[row] = attacker.id
                cache.table[COLUMN["target"], row] = attacker_row
            self.no_foe[row] = False
        if start < b1:
            log_blows(world, self.events, start, b1)

    def flush_rows(self, *rows: int) -> None:
        """`flush` for these rows alone (a turn walked singly that reads no other
        creature's hit points or movement: volley_round's `_engine_only`); the rest stay
        marked for the next flush."""
        changed, table, vitals = self.changed, self.cache.table, self.cache.vitals
        for row in rows:
            if changed[row]:
                changed[row] = False
                record = vitals[row]
                record.hp = int(table[HP, row])
                record.move = int(table[MOVE, row])
                record.move_pulse = int(table[MOVE_PULSE, row])

    def flush(self) -> None:
        """Write what the bulk turns changed into the components (class docstring)."""
        if not self.unflushed:  # nothing since the last flush (turns walked singly)
            return
        self.unflushed = False
        table, vitals, changed = self.cache.table, self.cache.vitals, self.changed
        rows = np.flatnonzero(changed)
        if not len(rows):
            return
        every = len(rows) == len(changed)  # every row (a view, no gathers)
        index = slice(0, len(rows)) if every else rows
        changed[index] = False
        # One pass writes all three (the hit points of a creature only moved are those it
        # has: nothing but bulk turns, which mark it, changes it between two flushes).
        pulses = table[MOVE_PULSE, index]
        records = vitals[:len(rows)] if every else map(vitals.__getitem__, rows.tolist())
        hps, moves = table[HP, index].tolist(), table[MOVE, index].tolist()
        if pulses.min() == pulses.max():
            pulse = int(pulses[0])
            for record, hp, move in zip(records, hps, moves, strict=True):
                record.hp = hp
                record.move = move
                record.move_pulse = pulse
            return
        for record, hp, move, pulse in zip(records, hps, moves, pulses.tolist(), strict=True):
            record.hp = hp
            record.move = move
            record.move_pulse = pulse


WINDOW = 1 << 30  # the most turns applied in one bulk run (tests make it small)
SCATTER_SHARE = 16  # a bulk run of fewer blows than the rows / this scatters (`Plan.apply`)
HP, MOVE, MOVE_PULSE = COLUMN["hp"], COLUMN["move"], COLUMN["move_pulse"]


def refresh_moves(world: World, plan: Plan, fighters: np.ndarray, victims: np.ndarray
                  ) -> None:
    """blow.refresh_move for every fighter and target at once: the movement of every tick
    since each one's `move_pulse`, capped, in the columns (the plan flushes it to the
    components before any code reads them)."""
    cache = plan.cache
    table = cache.table
    pulse = world.pulse
    stale = table[MOVE_PULSE, :cache.count] != pulse
    if len(fighters) < cache.count:  # else the fighters are every row
        wanted = np.zeros(cache.count, dtype=bool)
        wanted[fighters] = True
        wanted[victims] = True
        stale &= wanted
    rows = np.flatnonzero(stale)
    if not len(rows):
        return
    # every row: views, no gathers
    index: slice | np.ndarray = slice(0, cache.count) if len(rows) == cache.count else rows
    config = world.content.fight.movement
    ticks = pulse // config.tick_pulses - table[MOVE_PULSE, index] // config.tick_pulses
    table[MOVE, index] = regained_move(table[MOVE, index], ticks, table[COLUMN["level"], index],
                                       table[COLUMN["player"], index] != 0, config.player_min,
                                       config.max_move)
    table[MOVE_PULSE, index] = pulse
    plan.changed[index] = True
    plan.unflushed = True


def _hooked(world: World, sheet: Sheet) -> bool:
    owners = sheet.hook_owners()
    return any(world.rules.hooks_for(kind, owners) for kind in HOOK_KINDS)


def plain_many(cols) -> np.ndarray:  # type: ignore[no-untyped-def]
    """`plain` (without hooks) for every creature of the columns at once: alive, standing
    or fighting, not stunned, weak-stunned or paralysed, not immortal (the `steady` trait,
    worked out when the creature is read), and an NPC or a player with movement points
    for a whole round of blows."""
    enough = (cols.player == 0) | (cols.move > MOST_BLOWS * cols.blow_cost)
    return ((cols.traits & TRAIT["steady"]) != 0) & enough


class BlowEvents:
    """A plan's blow events, as the scalar pipeline writes them (blow.one_hit,
    damage.finish), kept as the round's columns: the log holds them as lazy blocks
    (engine/core/event_log.py) and `objects()` builds them all, once, when it is read; a blow
    walked singly gets its own object from `event(b)`, the same one.

    What could change in the columns before the log is read (a row read again after a
    weapon swap) is copied now: each blow's damage type and the defence names. A row's
    creature, and so its id, never changes within a column cache."""

    __slots__ = (
        "_objects",
        "attacker",
        "blow_type",
        "critical",
        "dam",
        "defence",
        "defence_names",
        "ids",
        "kind",
        "pulse",
        "raw",
        "type_names",
        "victim",
    )

    def __init__(self, world: World, cols, blows) -> None:  # type: ignore[no-untyped-def]
        self.pulse = world.pulse
        self.kind, self.attacker, self.victim = blows.kind, blows.attacker, blows.victim
        self.defence, self.dam, self.raw = blows.defence, blows.dam, blows.raw
        self.critical = blows.critical
        self.ids = cols.ids
        self.type_names = tuple(cols.type_names)
        # each blow's damage type code (None: one type for every blow)
        self.blow_type = cols.type_code[blows.attacker] if len(self.type_names) > 1 else None
        self.defence_names = (*world.rules.defences.names, "")
        self._objects: list | None = None

    def __len__(self) -> int:
        return len(self.kind)

    def event(self, b: int):  # type: ignore[no-untyped-def]
        """Blow b's event (the fields as `objects` builds them)."""
        if self._objects is not None:
            return self._objects[b]
        code, ids, pulse = int(self.kind[b]), self.ids, self.pulse
        src, tgt = ids[int(self.attacker[b])], ids[int(self.victim[b])]
        if code == MISS:
            return tuple.__new__(Miss, (pulse, src, tgt, "melee"))
        if code == DEFENDED:
            return tuple.__new__(Defended, (pulse, src, tgt,
                                            self.defence_names[int(self.defence[b])]))
        damage_type = self.type_names[0 if self.blow_type is None else int(self.blow_type[b])]
        if code == IMMUNE:
            return tuple.__new__(Immune, (pulse, src, tgt, damage_type))
        return tuple.__new__(Damage, (pulse, src, tgt, int(self.dam[b]), int(self.raw[b]),
                                      damage_type, "melee", None, bool(self.critical[b]),
                                      False, None))

    def damage_columns(self, blows: np.ndarray) -> tuple[np.ndarray, ...]:
        """The damage events among these blows (indexes), as columns, for a reader that
        sums them without building them (a pack's tally, engine/runners/pack_tally.py):
        each one's attacker and victim (as indexes into `ids`), amount and damage type (an
        index into `type_names`)."""
        where = blows[self.kind[blows] == DAMAGE]
        types = (np.zeros(len(where), dtype=np.int64) if self.blow_type is None
                 else self.blow_type[where])
        return self.attacker[where], self.victim[where], self.dam[where], types

    def objects(self) -> list:
        """Every blow's event, in blow order, built kind by kind with C-level tuple
        construction (kept: a second read gets the same objects).

        The cyclic garbage collector is paused meanwhile (when it was on): ten thousand
        new tuples would otherwise set off a dozen young collections and, every so often,
        a full one over the whole world; the tuples hold no cycles, and one young
        collection after the pause does the same work once."""
        if self._objects is None:
            with collector_paused():
                self._objects = self._build()
        return self._objects

    def _build(self) -> list:
        pulse, ids = self.pulse, self.ids
        n = len(self.kind)
        types = np.array(self.type_names, dtype=object)
        names = np.array(self.defence_names, dtype=object)
        out = np.empty(n, dtype=object)
        kind = self.kind
        for code, cls in ((MISS, Miss), (DEFENDED, Defended), (IMMUNE, Immune),
                          (DAMAGE, Damage)):
            where = np.flatnonzero(kind == code)
            if not len(where):
                continue
            m = len(where)
            src, tgt = ids[self.attacker[where]].tolist(), ids[self.victim[where]].tolist()
            if code == MISS:
                fields = zip(repeat(pulse, m), src, tgt, repeat("melee", m), strict=True)
            elif code == DEFENDED:
                fields = zip(repeat(pulse, m), src, tgt,
                             names[self.defence[where]].tolist(), strict=True)
            else:
                damage_types = (repeat(self.type_names[0], m) if self.blow_type is None
                                else types[self.blow_type[where]].tolist())
                if code == IMMUNE:
                    fields = zip(repeat(pulse, m), src, tgt, damage_types, strict=True)
                else:
                    fields = zip(repeat(pulse, m), src, tgt, self.dam[where].tolist(),
                                 self.raw[where].tolist(), damage_types, repeat("melee", m),
                                 repeat(None, m), self.critical[where].tolist(),
                                 repeat(False, m), repeat(None, m), strict=True)
            made = map(tuple.__new__, repeat(cls, m), fields)
            out[where] = np.fromiter(made, dtype=object, count=m)
        return out.tolist()


def log_blows(world: World, source: BlowEvents, start: int, stop: int) -> None:
    """Append blows `start:stop`'s events to the log: as a lazy block, or built now when
    a game replaced `world.events` with a plain list."""
    log_lazily(world.events, source, start, stop)


def volley_round(world: World) -> None:
    """One combat round of everyone in `world.fighting` (in spawn order), vectorised
    where it can be (the module docstring); leaves in `world.fighting` those alive and
    fighting, as the Melee system's scalar round does."""
    from affray.systems.melee import fighter_turn

    rules = world.rules
    hooky = any(rules.hooks[kind] for kind in HOOK_KINDS)
    fresh = not PERSISTENT or any(rules.hooks.values())  # a hook may change anything
    cache = column_cache(world, fresh)
    if fresh:
        order = _sorted_rows(world, cache)
    else:
        order = fighter_rows(world, cache)
        cache.need(world, order)  # the fighters, then whom they fight, read if left unread
        cache.need(world, cache.table[COLUMN["target"], order])
    sheets = cache.sheets
    plan = Plan(world, cache, order, 0, hooky)
    events = world.events
    narrow = not any(rules.hooks.values()) and _engine_only(world)  # no hook of any kind
    replans = 0
    index = 0
    total = len(order)
    while index < total:
        turn = int(plan.turn_at[index]) if index < len(plan.turn_at) else -1
        fighter = sheets[int(order[index])]
        if turn >= 0:
            count = plan.run_length(turn)
            if count:
                plan.apply(world, turn, count)
                index += count
                continue
        if not fighter.vitals.alive:
            # Died earlier this round: its turn is nothing (melee.fighter_turn) and reads
            # or changes no one, so nothing is flushed or marked but itself.
            plan.touch(fighter)
            index += 1
            continue
        if turn >= 0:
            row_v = int(plan.victim[turn])
            victim = plan.sheets[row_v]
            if narrow:
                plan.flush_rows(int(order[index]), row_v)
            else:
                plan.flush()
            start = len(events)
            walked = _vector_turn(world, plan, turn, fighter)
            if walked is None:
                plan.flush()
                fighter_turn(world, fighter)
            if walked is not BLOWS_ONLY:  # its blows name only the two, touched below
                plan.touch_entities(cache.note_events(world, start))
            plan.touch(fighter, victim)
            index += 1
            continue
        target = fighter.combat.fighting
        victim = world.sheets.get(world.by_id[target]) if target in world.by_id else None
        row_v = cache.row_of.get(victim.entity, -1) if victim is not None else -1
        if narrow and 0 <= row_v < len(plan.changed):
            plan.flush_rows(int(order[index]), row_v)  # a melee turn reads these two alone
        else:
            plan.flush()
        start = len(events)
        fighter_turn(world, fighter)
        plan.touch_entities(cache.note_events(world, start))
        plan.touch(fighter, victim)
        if hooky and len(plan.chosen) and plan.chosen[-1] > index:  # a hook may have run
            replans += 1
            replanned = VolleyCache(world)  # a hooky world keeps no columns: `fresh`
            rest = replanned.rows_for(world,
                                      [sheets[int(row)].entity for row in order[index + 1:]])
            plan = Plan(world, replanned, rest, index + 1, hooky)
            if replans > MOST_REPLANS:
                plan.turn_at[:] = -1
        index += 1
    plan.flush()
    _fighting_after(world, cache, plan, fresh)


def _engine_only(world: World) -> bool:
    """Whether nothing but the engine's own code runs in a turn walked singly (with no
    hook registered, which the caller asks): no game's `World.emit` nor log type of its
    own (either could read any creature). Then a melee turn, plain or on the scalar
    path, reads and writes the hit points and movement of its fighter and target alone
    (its blows, `damage.inflict`, a stun's check, standing up, a death: the dead's foes
    are stood down and re-engaged by their position and fight, never their hit points
    or movement), so only those two rows are flushed before it (`Plan.flush_rows`)."""
    from affray.core.world import World

    return type(world).emit is World.emit and type(world.events) in (EventLog, list)


def _sorted_rows(world: World, cache: VolleyCache) -> np.ndarray:
    """The rows of `world.fighting` in spawn order, read afresh."""
    fighters = sorted((world.sheets[e] for e in world.fighting),
                      key=lambda sheet: sheet.spawn.number)
    return cache.rows_for(world, [sheet.entity for sheet in fighters])


def _fighting_after(world: World, cache: VolleyCache, plan: Plan, fresh: bool) -> None:
    """Keep in `world.fighting` those alive and fighting (melee's scalar round); the
    creatures changed off the vectorised path are left dirty for the next round."""
    sheets = world.sheets
    if fresh:
        world.fighting = {e for e in world.fighting
                          if sheets[e].vitals.alive and sheets[e].combat.fighting}
        return
    entity = cache.table[COLUMN["entity"]]
    if plan.cache is cache:
        cache.dirty.update(entity[np.flatnonzero(plan.touched)].tolist())
    fighting = world.fighting
    for e in [e for e in cache.dirty if e in fighting]:
        sheet = sheets[e]
        if not (sheet.vitals.alive and sheet.combat.fighting):
            fighting.discard(e)
    cache.looked(world)


BLOWS_ONLY, INFLICTED = "blows only", "inflicted"  # what `_vector_turn` walked


def _vector_turn(world: World, plan: Plan, turn: int, fighter: Sheet) -> str | None:
    """Apply one fighter's precomputed blows singly (a turn that may kill, or whose
    fighter or target a turn off the vectorised path touched). None (nothing done) when
    it must take the scalar path: dead, its target changed, dead or knocked down since
    the plan. Else BLOWS_ONLY when it logged only its blows and a fight its victim
    started (events naming the two of them alone), or INFLICTED when a blow went
    through the damage pipeline (a death, a fall down the ladder: anything logged)."""
    row_f, row_v = plan.cache.row_of[fighter.entity], int(plan.victim[turn])
    victim = plan.sheets[row_v]
    positions = plan.positions
    if (not fighter.vitals.alive or not victim.vitals.alive
            or fighter.combat.fighting != victim.id
            or fighter.vitals.position != positions[row_f]
            or victim.vitals.position != positions[row_v]):
        return None  # the scalar turn skips the dead, ends a fight with a dead target
    events = world.events
    pay = fighter.creature.player
    vitals = victim.vitals
    blow_events = plan.events
    assert blow_events is not None
    dams = plan.dam[int(plan.start[turn]):int(plan.stop[turn])].tolist()
    first = int(plan.start[turn])
    for b in range(int(plan.start[turn]), int(plan.stop[turn])):
        if pay:  # plain players have enough for a whole round
            pay_movement(fighter)
        events.append(blow_events.event(b))
        dam = dams[b - first]
        if dam <= 0 or vitals.hp - dam > 0:
            if dam > 0:
                vitals.hp -= dam
            if victim.combat.fighting is None:  # R-ACT-1: whatever the blow did
                set_fighting(world, victim, fighter, "attacked", stand=False)
            continue
        try:
            inflict(world, Hit(fighter, victim, dam, fighter.weapon_type, WEAPON, True, "melee"))
        except VictimDeath:
            return INFLICTED  # R-DMG-2: the kill ends the turn
        # A player fell down the ladder, alive: the rest of the turn sees it down.
        _finish_scalar(world, fighter, victim, int(plan.blow_step[b]) + 1)
        return INFLICTED
    return BLOWS_ONLY


def _finish_scalar(world: World, fighter: Sheet, victim: Sheet, step: int) -> None:
    """The blows of a turn from `step` on, on the scalar path (melee.fight_round's
    order: haste's blow at step 1, each attack skill's roll and blow after)."""
    from affray.systems.melee import NPC_EXTRA, PLAYER_EXTRA, extra_attack, one_blow

    table = NPC_EXTRA if fighter.npc else PLAYER_EXTRA
    try:
        haste = step <= 1 and fighter.has("haste") and not fighter.has("slow")
        if haste and not one_blow(world, fighter, victim):
            return
        for skill, divisor in table[max(0, step - 2):]:
            if extra_attack(world, fighter, skill, divisor) and not one_blow(
                    world, fighter, victim):
                return
    except VictimDeath:
        return
