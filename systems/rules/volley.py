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
start of the round, as if everyone lived (volley_blows.py); then one pass walks the
fighters in spawn order and applies them: a fighter dead by its turn is skipped, a
target dead by then ends the fight, a kill ends the blows of that turn (R-DMG-2), each
blow's event is appended in the scalar path's order with its fields. Whatever a later
blow could see changed is handled exactly:
- a scalar fighter's turn runs where it falls, on the live state;
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

from typing import TYPE_CHECKING

import numpy as np

from affray.arith import tdiv
from affray.events import Damage, Defended, Immune, Miss
from affray.systems.rules import blow as blow_rules
from affray.systems.rules.damage import inflict
from affray.systems.rules.defence import default_defences
from affray.systems.rules.hit import Hit, VictimDeath
from affray.systems.rules.immunity import WEAPON
from affray.systems.rules.volley_blows import DAMAGE, DEFENDED, IMMUNE, MISS, compute_blows
from affray.systems.rules.volley_columns import gather
from affray.systems.rules.volley_protect import defaults_in_use

if TYPE_CHECKING:
    from affray.systems.rules.sheet import Sheet
    from affray.world import World

# Movement regeneration, where the scalar pipeline has it (read before `move` is).
_refresh_move = getattr(blow_rules, "refresh_move", None)
VECTORISE = ("auto", "never")
HOOK_KINDS = ("on_fight", "pre_damage", "post_damage", "on_immune")
MOST_BLOWS = 6          # first, haste, four attack skills
MOST_REPLANS = 8        # then the rest of a hook-heavy round runs scalar


def wanted(world: World, fighters: int) -> bool:
    """Vectorise this round? The world option, the fighter count, the rule registries."""
    if getattr(world, "vectorise", "never") != "auto":
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


def plain(world: World, sheet: Sheet, hooky: bool) -> bool:
    """Can this creature's blows, or the blows against it, take the vectorised path?"""
    vitals = sheet.vitals
    if not vitals.alive or vitals.position not in ("standing", "fighting"):
        return False
    levels = sheet.affects.levels
    if "stun" in levels or "weak_stun" in levels or "paralysis" in levels:
        return False
    creature = sheet.creature
    if creature.immortal:
        return False
    if _refresh_move is not None:  # movement regenerates lazily (blow.refresh_move)
        _refresh_move(world, sheet)
    if creature.player and vitals.move <= MOST_BLOWS * max(tdiv(sheet.level.level, 20), 1):
        return False
    if hooky:
        owners = sheet.hook_owners()
        rules = world.rules
        if any(rules.hooks_for(kind, owners) for kind in HOOK_KINDS):
            return False
    return True


class Plan:
    """The precomputed blows of the vectorised fighters from one point of the round."""

    __slots__ = ("dam", "events", "positions", "start", "steps", "stop", "victim", "wanted")

    def __init__(self, world: World, fighters: list[Sheet], first: int, hooky: bool) -> None:
        sheets = world.sheets
        by_id = world.by_id
        self.wanted: dict[int, int] = {}   # fighter index -> plan turn
        self.victim: list[Sheet] = []
        chosen: list[int] = []
        ok: dict[int, bool] = {}

        def is_plain(sheet: Sheet) -> bool:
            known = ok.get(sheet.entity)
            if known is None:
                known = ok[sheet.entity] = plain(world, sheet, hooky)
            return known

        for index in range(first, len(fighters)):
            fighter = fighters[index]
            target = fighter.combat.fighting
            entity = by_id.get(target) if target is not None else None
            if entity is None or not is_plain(fighter):
                continue
            victim = sheets[entity]
            if not is_plain(victim) or not _beside(fighter, victim):
                continue
            self.wanted[index] = len(chosen)
            chosen.append(index)
            self.victim.append(victim)
        rows: dict[int, int] = {}
        members: list[Sheet] = []
        for sheet in [fighters[i] for i in chosen] + self.victim:
            if sheet.entity not in rows:
                rows[sheet.entity] = len(members)
                members.append(sheet)
        self.positions = {sheet.entity: sheet.vitals.position for sheet in members}
        if not chosen:
            self.start = self.stop = np.zeros(0, dtype=np.int64)
            self.events, self.dam, self.steps = [], [], []
            return
        cols = gather(world, members)
        attackers = np.array([rows[fighters[i].entity] for i in chosen], dtype=np.int64)
        victims = np.array([rows[v.entity] for v in self.victim], dtype=np.int64)
        blows = compute_blows(world, cols, attackers, victims)
        turns = np.arange(len(chosen))
        self.start = np.searchsorted(blows.turn, turns).tolist()
        self.stop = np.searchsorted(blows.turn, turns, side="right").tolist()
        self.dam = blows.dam.tolist()
        self.steps = blows.step.tolist()
        self.events = blow_events(world, cols, blows)


def _beside(a: Sheet, b: Sheet) -> bool:
    return max(abs(a.position.x - b.position.x), abs(a.position.y - b.position.y)) == 1


def blow_events(world: World, cols, blows) -> list:  # type: ignore[no-untyped-def]
    """Each blow's event, as the scalar pipeline writes it (blow.one_hit, damage.finish)."""
    pulse = world.pulse
    ids = [sheet.id for sheet in cols.sheets]
    src = [ids[i] for i in blows.attacker.tolist()]
    tgt = [ids[i] for i in blows.victim.tolist()]
    types = [cols.types[i] for i in blows.attacker.tolist()]
    names = world.rules.defences.names
    out: list = []
    append = out.append
    for kind, s, t, dtype, dam, raw, crit, which in zip(
            blows.kind.tolist(), src, tgt, types, blows.dam.tolist(), blows.raw.tolist(),
            blows.critical.tolist(), blows.defence.tolist(), strict=True):
        if kind == DAMAGE:
            append(Damage(pulse, s, t, dam, raw, dtype, "melee", None, crit, False, None))
        elif kind == MISS:
            append(Miss(pulse, s, t, "melee"))
        elif kind == DEFENDED:
            append(Defended(pulse, s, t, names[which]))
        elif kind == IMMUNE:
            append(Immune(pulse, s, t, dtype))
    return out


def volley_round(world: World, fighters: list[Sheet]) -> None:
    """One combat round of `fighters` (the Melee system's snapshot, in spawn order),
    vectorised where it can be (the module docstring)."""
    from affray.systems.melee import fighter_turn

    hooky = any(world.rules.hooks[kind] for kind in HOOK_KINDS)
    plan = Plan(world, fighters, 0, hooky)
    replans = 0
    for index, fighter in enumerate(fighters):
        turn = plan.wanted.get(index)
        if turn is None or not _vector_turn(world, plan, turn, fighter):
            fighter_turn(world, fighter)
            if hooky and plan.wanted and max(plan.wanted) > index:  # a hook may have run
                replans += 1
                if replans > MOST_REPLANS:
                    plan.wanted.clear()
                else:
                    plan = Plan(world, fighters, index + 1, hooky)


def _vector_turn(world: World, plan: Plan, turn: int, fighter: Sheet) -> bool:
    """Apply one fighter's precomputed blows; False (nothing done) when its turn must take
    the scalar path: dead, its target changed, dead or knocked down since the plan."""
    victim = plan.victim[turn]
    positions = plan.positions
    if (not fighter.vitals.alive or not victim.vitals.alive
            or fighter.combat.fighting != victim.id
            or fighter.vitals.position != positions[fighter.entity]
            or victim.vitals.position != positions[victim.entity]):
        return False  # the scalar turn skips the dead, ends a fight with a dead target
    events = world.events
    pay = fighter.creature.player
    cost = max(tdiv(fighter.level.level, 20), 1)
    vitals = victim.vitals
    dams, blow_events_ = plan.dam, plan.events
    for b in range(plan.start[turn], plan.stop[turn]):
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
