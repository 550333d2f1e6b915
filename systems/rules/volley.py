"""The vectorised combat round: a big battle's blows as numpy arrays (docs/decisions.md).

When a round has at least `fight.vectorise_min_fighters` fighters and the world's
`vectorise` option is "auto", the Melee system hands the round's snapshot here. Each
fighter takes one of two paths in the same round:
- the vectorised path, if it and its target are *plain*: alive, standing or fighting, not
  stunned, weak-stunned or paralysed, not immortal, a player with movement points for a
  whole round of blows, and no hook of any kind for either (on-fight, pre- or post-damage,
  on-immune); the world's protections and defences must be the defaults and no "all
  melee" or "all damage" modifier registered (else nobody is);
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
  touched have their later turns walked singly;
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

from functools import partial
from itertools import repeat
from typing import TYPE_CHECKING

import numpy as np

from affray.arith import tdiv
from affray.events import Damage, Defended, Immune, Miss
from affray.systems.rules.blow import refresh_move
from affray.systems.rules.damage import inflict
from affray.systems.rules.defence import default_defences
from affray.systems.rules.hit import Hit, VictimDeath
from affray.systems.rules.immunity import WEAPON
from affray.systems.rules.tohit import POSITION_RANK
from affray.systems.rules.volley_blows import DAMAGE, DEFENDED, IMMUNE, MISS, compute_blows
from affray.systems.rules.volley_columns import gather
from affray.systems.rules.volley_protect import AFFECT_BITS, defaults_in_use

if TYPE_CHECKING:
    from affray.systems.rules.sheet import Sheet
    from affray.world import World

HOOK_KINDS = ("on_fight", "pre_damage", "post_damage", "on_immune")
MOST_BLOWS = 6          # first, haste, four attack skills
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


class Plan:
    """The precomputed blows of the vectorised fighters from one point of the round, and
    the bookkeeping of the walk: which creatures a turn off the vectorised path touched
    (their later blows are walked one turn at a time), and the hit points of the rest."""

    def __init__(self, world: World, fighters: list[Sheet], first: int, hooky: bool) -> None:
        sheets, by_id = world.sheets, world.by_id
        candidates = fighters[first:]
        rows = {sheet.entity: i for i, sheet in enumerate(candidates)}
        members = list(candidates)
        victim_rows: list[int] = []
        for fighter in candidates:
            target = fighter.combat.fighting
            entity = by_id.get(target) if target is not None else None
            if entity is None:
                victim_rows.append(-1)
                continue
            row = rows.get(entity)
            if row is None:
                row = rows[entity] = len(members)
                members.append(sheets[entity])
            victim_rows.append(row)
        self.rows = rows
        self.members = members
        self.wanted: dict[int, int] = {}   # fighter index -> plan turn
        self.chosen = np.zeros(0, dtype=np.int64)
        self.touched = np.zeros(len(members), dtype=bool)
        self.events: list = []
        if not members:
            return
        pulse = world.pulse  # movement regenerates lazily: bring it up to date first
        for sheet in members:
            if sheet.vitals.move_pulse != pulse:
                refresh_move(world, sheet)
        cols = gather(world, members)
        ok = plain_many(cols)
        if hooky:
            ok &= np.array([not _hooked(world, sheet) for sheet in members], dtype=bool)
        vrow = np.array(victim_rows, dtype=np.int64)
        has_victim = vrow >= 0
        v = np.where(has_victim, vrow, 0)
        n = len(candidates)
        beside = np.maximum(np.abs(cols.x[:n] - cols.x[v]), np.abs(cols.y[:n] - cols.y[v])) == 1
        eligible = has_victim & ok[:n] & ok[v] & beside
        chosen = np.flatnonzero(eligible)
        self.chosen = chosen + first
        self.wanted = dict(zip(self.chosen.tolist(), range(len(chosen)), strict=True))
        self.attacker = chosen
        self.victim = vrow[chosen]
        self.hp = cols.hp.copy()
        self.fighting_none = {i for i, foe in enumerate(cols.fighting) if foe is None}
        if not len(chosen):
            return
        blows = compute_blows(world, cols, self.attacker, self.victim)
        turns = np.arange(len(chosen))
        self.start = np.searchsorted(blows.turn, turns)
        self.stop = np.searchsorted(blows.turn, turns, side="right")
        self.blow_victim = blows.victim
        self.blow_attacker = blows.attacker
        self.dam = blows.dam
        self.dam_list = blows.dam.tolist()
        self.steps = blows.step.tolist()
        self.turn_dam = np.add.reduceat(blows.dam, self.start) if len(blows.dam) else \
            np.zeros(len(chosen), dtype=np.int64)
        self.turn_dam = np.where(self.stop > self.start, self.turn_dam, 0)
        self.player_cost = np.where(cols.player != 0,
                                    np.maximum(cols.level // 20, 1), 0)
        self.positions = cols.positions
        self.events = blow_events(world, cols, blows)

    def touch(self, *sheets: Sheet | None) -> None:
        """These creatures changed off the vectorised path: walk their turns singly."""
        for sheet in sheets:
            if sheet is not None:
                row = self.rows.get(sheet.entity)
                if row is not None:
                    self.touched[row] = True

    def run_length(self, turn: int) -> int:
        """How many turns from `turn` on can be applied in bulk: consecutive in the round,
        fighter and target untouched, and no blow among them bringing a target to 0 hit
        points or below (a death or a ladder fall is walked on its own)."""
        end = min(len(self.chosen), turn + WINDOW)
        chosen = self.chosen[turn:end]
        consecutive = chosen - chosen[0] == np.arange(len(chosen))
        limit = len(chosen) if consecutive.all() else int(np.argmin(consecutive))
        a, v = self.attacker[turn:end], self.victim[turn:end]
        clean = ~self.touched[a] & ~self.touched[v]
        if not clean.all():
            limit = min(limit, int(np.argmin(clean)))
        dam = self.turn_dam[turn:end]
        order = np.argsort(v, kind="stable")
        ordered_v, ordered_dam = v[order], dam[order]
        total = np.cumsum(ordered_dam)
        group = np.flatnonzero(np.r_[True, ordered_v[1:] != ordered_v[:-1]])
        before = np.repeat(total[group] - ordered_dam[group], np.diff(np.r_[group, len(v)]))
        cumulative = np.empty_like(total)
        cumulative[order] = total - before
        lethal = (dam > 0) & (self.hp[v] - cumulative <= 0)
        if lethal.any():
            limit = min(limit, int(np.argmax(lethal)))
        return limit

    def apply(self, world: World, turn: int, count: int) -> None:
        """Apply `count` turns from `turn` in bulk: their events in order, hit points,
        movement, and a target that fought no one starts fighting its first hurter."""
        b0, b1 = int(self.start[turn]), int(self.stop[turn + count - 1])
        world.events.extend(self.events[b0:b1])
        if b1 <= b0:
            return
        members = self.members
        victims, dam = self.blow_victim[b0:b1], self.dam[b0:b1]
        hurt = np.bincount(victims, weights=dam, minlength=len(members)).astype(np.int64)
        rows = np.flatnonzero(hurt)
        self.hp[rows] -= hurt[rows]
        for row, hp in zip(rows.tolist(), self.hp[rows].tolist(), strict=True):
            members[row].vitals.hp = hp
        attackers = self.blow_attacker[b0:b1]
        paid = np.bincount(attackers, minlength=len(members)) * self.player_cost
        for row in np.flatnonzero(paid).tolist():  # plain players never run out mid-round
            members[row].vitals.move -= int(paid[row])
        for row in self.fighting_none.intersection(rows.tolist()):
            sheet = members[row]
            if sheet.combat.fighting is None:  # damage.rouse: it fights its first hurter
                first = int(np.argmax((victims == row) & (dam > 0)))
                sheet.combat.fighting = members[int(attackers[first])].id
                world.fighting.add(sheet.entity)


WINDOW = 4096  # turns looked ahead for a bulk run


def _hooked(world: World, sheet: Sheet) -> bool:
    owners = sheet.hook_owners()
    return any(world.rules.hooks_for(kind, owners) for kind in HOOK_KINDS)


def plain_many(cols) -> np.ndarray:  # type: ignore[no-untyped-def]
    """`plain` (without hooks) for every creature of the columns at once."""
    stunned = AFFECT_BITS["stun"] | AFFECT_BITS["weak_stun"] | AFFECT_BITS["paralysis"]
    up = (cols.rank == POSITION_RANK["standing"]) | (cols.rank == POSITION_RANK["fighting"])
    enough = (cols.player == 0) | (cols.move > MOST_BLOWS * np.maximum(cols.level // 20, 1))
    return ((cols.alive != 0) & up & ((cols.affects & stunned) == 0) & (cols.immortal == 0)
            & enough)


def blow_events(world: World, cols, blows) -> list:  # type: ignore[no-untyped-def]
    """Each blow's event, as the scalar pipeline writes it (blow.one_hit, damage.finish),
    built kind by kind with C-level tuple construction, then put in blow order."""
    pulse = world.pulse
    n = len(blows.kind)
    ids = np.array([sheet.id for sheet in cols.sheets], dtype=object)
    types = np.array(cols.types, dtype=object)
    names = np.array([*world.rules.defences.names, ""], dtype=object)
    out = np.empty(n, dtype=object)
    kind = blows.kind
    for code, cls in ((MISS, Miss), (DEFENDED, Defended), (IMMUNE, Immune), (DAMAGE, Damage)):
        where = np.flatnonzero(kind == code)
        if not len(where):
            continue
        a, v = blows.attacker[where], blows.victim[where]
        src, tgt = ids[a].tolist(), ids[v].tolist()
        m = len(where)
        if code == MISS:
            fields = zip(repeat(pulse, m), src, tgt, repeat("melee", m), strict=True)
        elif code == DEFENDED:
            fields = zip(repeat(pulse, m), src, tgt, names[blows.defence[where]].tolist(),
                         strict=True)
        elif code == IMMUNE:
            fields = zip(repeat(pulse, m), src, tgt, types[a].tolist(), strict=True)
        else:
            fields = zip(repeat(pulse, m), src, tgt, blows.dam[where].tolist(),
                         blows.raw[where].tolist(), types[a].tolist(), repeat("melee", m),
                         repeat(None, m), blows.critical[where].tolist(), repeat(False, m),
                         repeat(None, m), strict=True)
        made = map(partial(tuple.__new__, cls), fields)
        out[where] = np.fromiter(made, dtype=object, count=m)
    return out.tolist()


def volley_round(world: World, fighters: list[Sheet]) -> None:
    """One combat round of `fighters` (the Melee system's snapshot, in spawn order),
    vectorised where it can be (the module docstring)."""
    from affray.systems.melee import fighter_turn

    hooky = any(world.rules.hooks[kind] for kind in HOOK_KINDS)
    plan = Plan(world, fighters, 0, hooky)
    replans = 0
    index = 0
    while index < len(fighters):
        fighter = fighters[index]
        turn = plan.wanted.get(index)
        if turn is not None:
            count = plan.run_length(turn)
            if count:
                plan.apply(world, turn, count)
                index += count
                continue
            victim = plan.members[int(plan.victim[turn])]
            if not _vector_turn(world, plan, turn, fighter):
                fighter_turn(world, fighter)
            plan.touch(fighter, victim)
            index += 1
            continue
        target = fighter.combat.fighting
        victim = world.sheets.get(world.by_id[target]) if target in world.by_id else None
        fighter_turn(world, fighter)
        plan.touch(fighter, victim)
        if hooky and len(plan.chosen) and plan.chosen[-1] > index:  # a hook may have run
            replans += 1
            plan = Plan(world, fighters, index + 1, hooky)
            if replans > MOST_REPLANS:
                plan.wanted.clear()
        index += 1


def _vector_turn(world: World, plan: Plan, turn: int, fighter: Sheet) -> bool:
    """Apply one fighter's precomputed blows singly (a turn that may kill, or whose
    fighter or target a turn off the vectorised path touched); False (nothing done)
    when it must take the scalar path: dead, its target changed, dead or knocked down
    since the plan."""
    row_f, row_v = plan.rows[fighter.entity], int(plan.victim[turn])
    victim = plan.members[row_v]
    positions = plan.positions
    if (not fighter.vitals.alive or not victim.vitals.alive
            or fighter.combat.fighting != victim.id
            or fighter.vitals.position != positions[row_f]
            or victim.vitals.position != positions[row_v]):
        return False  # the scalar turn skips the dead, ends a fight with a dead target
    events = world.events
    pay = fighter.creature.player
    cost = max(tdiv(fighter.level.level, 20), 1)
    vitals = victim.vitals
    dams, blow_events_ = plan.dam_list, plan.events
    for b in range(int(plan.start[turn]), int(plan.stop[turn])):
        if pay:  # blow.pay_movement; plain players have enough for a whole round
            fighter.vitals.move -= min(cost, fighter.vitals.move)
        events.append(blow_events_[b])
        dam = dams[b]
        if dam <= 0:
            continue
        if vitals.hp - dam > 0:
            vitals.hp -= dam
            if victim.combat.fighting is None:  # damage.rouse: it fights back
                victim.combat.fighting = fighter.id
                world.fighting.add(victim.entity)
            continue
        try:
            inflict(world, Hit(fighter, victim, dam, fighter.weapon_type, WEAPON, True, "melee"))
        except VictimDeath:
            return True  # R-DMG-2: the kill ends the turn
        # A player fell down the ladder, alive: the rest of the turn sees it down.
        _finish_scalar(world, fighter, victim, plan.steps[b] + 1)
        return True
    return True


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
